"""Shared helpers for the Section-2 / Appendix-C claims of ahn2023 (not scanned for claims).

* :class:`Loss`: the catalogue losses of Example 1 (``rsym``, ``sqrt``, ``hub``, ``beta``) with their
  derivative ℓ' evaluated in float64 or in mpmath, and the ratio r(s) = ℓ'(s)/s together with
  1 − r(s) evaluated *without cancellation* (closed forms or raised precision), as def6's audit note
  demands.
* :func:`gd_run`: a short float64 GD trajectory on f(x, y) = ℓ(xy).
* hypothesis strategies for losses and states.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import mpmath
from hypothesis import strategies as st


def beta_constants(beta: Any, num: Callable = mpmath.mpf) -> tuple[Any, Any]:
    """c_β = (1/(β+1))·(β/(β+1))^β and r_β = (β+1)/β (def5.beta)."""
    b = num(beta)
    return (1 / (b + 1)) * (b / (b + 1)) ** b, (b + 1) / b


@dataclass(frozen=True)
class Loss:
    """A catalogue loss; ``beta`` is the (A2) exponent (math.inf for Huber), ``c`` the (A2)
    constant of Example 1 and ``C`` the sharp (A3) constant (None where (A3) is not claimed)."""

    name: str
    beta: float
    c: float | None
    C: float | None

    # ---- derivative -------------------------------------------------------------------------
    def d(self, s: Any, M: Any = mpmath) -> Any:
        """ℓ'(s) in float64 (``M=math``) or mpmath (``M=mpmath``)."""
        if self.name == "rsym":
            return M.tanh(s)
        if self.name == "sqrt":
            return s / M.sqrt(1 + s * s)
        if self.name == "hub":
            return s if -1 <= s <= 1 else (1 if s > 0 else -1) * (s * 0 + 1)
        if self.name == "beta":
            num = mpmath.mpf if M is mpmath else float
            c, r = beta_constants(self.beta, num)
            if s * s < r * r:
                return s * (1 - c * abs(s) ** num(self.beta))
            return (s * 0 + 1) * (1 if s > 0 else -1)
        raise ValueError(f"unknown loss {self.name!r}")

    def d2(self, s: Any) -> Any:
        """ℓ''(s) in mpmath (for convexity checks)."""
        s = mpmath.mpf(s)
        if self.name == "rsym":
            return mpmath.sech(s) ** 2
        if self.name == "sqrt":
            return (1 + s * s) ** mpmath.mpf(-1.5)
        if self.name == "hub":
            return mpmath.mpf(1) if abs(s) <= 1 else mpmath.mpf(0)
        c, r = beta_constants(self.beta)
        return 1 - (self.beta + 1) * c * abs(s) ** self.beta if s * s < r * r else mpmath.mpf(0)

    def c_mp(self) -> Any:
        """The (A2) constant c of Example 1 in mpmath (exact value at the working precision)."""
        if self.name == "beta":
            return beta_constants(self.beta)[0]
        return {"rsym": mpmath.mpf(1) / 4, "sqrt": mpmath.mpf(2) / 5}[self.name]

    def C_mp(self) -> Any:
        """The sharp (A3) constant C in mpmath."""
        if self.name == "beta":
            return beta_constants(self.beta)[0]
        return {"rsym": mpmath.mpf(1) / 3, "sqrt": mpmath.mpf(1) / 2}[self.name]

    def excess(self, s: Any) -> Any:
        """ℓ(s) − ℓ(0) in mpmath, in forms without cancellation near 0 (for argmin checks)."""
        s = mpmath.mpf(s)
        a = abs(s)
        if self.name == "rsym":  # log(2 cosh s) − log 2 = log cosh s = log1p(2 sinh²(s/2))
            return mpmath.log1p(2 * mpmath.sinh(a / 2) ** 2)
        if self.name == "sqrt":
            return s * s / (mpmath.sqrt(1 + s * s) + 1)
        if self.name == "hub":
            return s * s / 2 if a <= 1 else a - mpmath.mpf(1) / 2
        b = mpmath.mpf(self.beta)
        c, r = beta_constants(self.beta)

        def inner(t):
            return t * t / 2 - c * t ** (b + 2) / (b + 2)
        return inner(a) if a < r else inner(r) + (a - r)

    def ratio(self, s: Any) -> Any:
        """r(s) = ℓ'(s)/s in mpmath, with r(0) = 1."""
        s = mpmath.mpf(s)
        return mpmath.mpf(1) if s == 0 else self.d(s) / s

    def one_minus_ratio(self, s: Any) -> Any:
        """1 − ℓ'(s)/s in mpmath, free of catastrophic cancellation near s = 0."""
        s = mpmath.mpf(s)
        a = abs(s)
        if s == 0:
            return mpmath.mpf(0)
        if self.name == "rsym":
            # s − tanh s ~ s³/3: raise the precision by the number of digits the subtraction loses
            extra = 10 + 3 * max(0, int(-mpmath.log10(a)))
            with mpmath.workdps(mpmath.mp.dps + extra):
                return (a - mpmath.tanh(a)) / a
        if self.name == "sqrt":
            q = mpmath.sqrt(1 + s * s)
            return s * s / (q * (1 + q))
        if self.name == "hub":
            return mpmath.mpf(0) if a <= 1 else 1 - 1 / a
        c, r = beta_constants(self.beta)
        return c * a ** mpmath.mpf(self.beta) if a < r else 1 - 1 / a

    def __str__(self) -> str:
        return self.name if self.name != "beta" else f"beta({self.beta:g})"


RSYM = Loss("rsym", 2.0, 0.25, 1 / 3)
SQRT = Loss("sqrt", 2.0, 0.4, 0.5)
HUB = Loss("hub", math.inf, None, None)


def beta_loss(beta: float) -> Loss:
    c, _ = beta_constants(beta, float)
    return Loss("beta", float(beta), c, c)


NAMED_LOSSES = (RSYM, SQRT, HUB, beta_loss(4 / 3), beta_loss(1.5), beta_loss(2.0), beta_loss(4.0),
                beta_loss(10.0))


def losses() -> st.SearchStrategy:
    """Losses satisfying (A1) and (A2) (hence 0 <= ℓ'(s)s <= s²): named ones or ℓ_β, β ∈ (1, 20]."""
    return st.one_of(st.sampled_from(NAMED_LOSSES),
                     st.floats(1.0, 20.0, exclude_min=True).map(beta_loss))


# --------------------------------------------------------------------------- GD trajectories

def gd_run(loss: Loss, eta: float, x: float, y: float, steps: int,
           M: Any = math) -> list[tuple[Any, Any]]:
    """Iterates (x_t, y_t), t = 0..steps, of G_η(x, y) = (x − ηℓ'(xy)y, y − ηℓ'(xy)x)."""
    out = [(x, y)]
    for _ in range(steps):
        g = loss.d(x * y, M)
        x, y = x - eta * g * y, y - eta * g * x
        out.append((x, y))
        if not (math.isfinite(float(x)) and math.isfinite(float(y))):
            break
    return out


def frac(x: float) -> Fraction:
    return Fraction(x).limit_denominator(10**12)
