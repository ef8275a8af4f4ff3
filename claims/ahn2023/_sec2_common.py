"""Shared helpers for the Section-2 / Appendix-C claims of ahn2023 (not scanned for claims).

* :class:`Loss`: the catalogue losses of Example 1 (``rsym``, ``sqrt``, ``hub``, ``beta``) with their
  derivative ℓ' evaluated in float64 or in mpmath, and the ratio r(s) = ℓ'(s)/s together with
  1 − r(s) evaluated *without cancellation* (closed forms or raised precision), as def6's audit note
  demands.
* :func:`grid_inequality`: an inequality ``gap(s) >= 0`` on an interval, checked with mpmath at high
  precision on a geometric-plus-uniform grid, with the behaviour at s → 0 decided by an exact sympy
  limit of the normalised gap gap(s)/|s|^order. This is empirical (SUPPORTED), not a certificate.
* :func:`gd_run`: a short float64 GD trajectory on f(x, y) = ℓ(xy).
* hypothesis strategies for losses and states.
"""
from __future__ import annotations

import math
import types
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import mpmath
import sympy as sp
from hypothesis import strategies as st

from verify import Check, Context, Status
from verify.claim import outcome

# An "ops" namespace lets the same gap formula run in mpmath or (later) in arb balls:
# ``ops.tanh``, ``ops.sqrt``, ``ops.cosh`` and ``ops.num`` (build a number from an int / str).
MP = types.SimpleNamespace(tanh=mpmath.tanh, sqrt=mpmath.sqrt, cosh=mpmath.cosh, num=mpmath.mpf)


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


def show_loss(loss: Loss) -> str:
    return str(loss)


# --------------------------------------------------------------------------- interval inequalities

def _grid(lo: float, hi: float, n: int, closed: bool) -> list:
    """Half geometric on [lo, hi], half uniform; the open right end is approached to 1e-12."""
    top = mpmath.mpf(hi) * (1 - mpmath.mpf(10) ** -12) if not closed else mpmath.mpf(hi)
    geo = [mpmath.mpf(lo) * (top / lo) ** (mpmath.mpf(k) / (n // 2 - 1)) for k in range(n // 2)]
    uni = [top * mpmath.mpf(k) / (n - n // 2) for k in range(1, n - n // 2 + 1)]
    return sorted(set(geo + uni))


def grid_inequality(name: str, gap: Callable[[Any], Any], lo: float, hi: float, *, order: float,
                    limit0: Callable[[], Any] | None = None, closed: bool = True,
                    points: tuple[int, int] = (240, 2400), dps: int = 50, even: bool = True,
                    describe: str = "") -> Check:
    """``gap(s) >= 0`` for lo <= |s| <= hi (``closed=False``: |s| < hi), with the normalised gap
    gap(s)/|s|^order evaluated at ``dps`` digits on a grid; ``limit0()`` gives the exact sympy limit
    of the normalised gap at 0+, which must be positive for the inequality to hold near 0.

    A negative grid value, confirmed at twice the precision, refutes with the point as witness.
    """

    def run(ctx: Context):
        n = ctx.pick(*points)
        data: dict = {"grid_points": n, "lo": lo, "hi": hi, "closed": closed, "dps": dps,
                      "normalised_by": f"|s|^{order}"}
        if limit0 is not None:
            lim = sp.sympify(limit0())
            data["limit_at_0"] = str(lim)
            if not bool(lim.is_extended_real):
                return outcome(Status.INCONCLUSIVE, f"limit of the normalised gap at 0 is {lim}", **data)
        worst = None
        with mpmath.workdps(dps):
            grid = _grid(lo, hi, n, closed)
            for s0 in grid:
                for s in ((s0, -s0) if even else (s0,)):
                    v = gap(s) / abs(s) ** order
                    if worst is None or v < worst[1]:
                        worst = (s, v)
        s_w, v_w = worst
        data.update(min_normalised_gap=mpmath.nstr(v_w, 12), argmin=mpmath.nstr(s_w, 15))
        if v_w < 0:
            with mpmath.workdps(2 * dps):
                v2 = gap(mpmath.mpf(s_w)) / abs(mpmath.mpf(s_w)) ** order
            if v2 < 0:
                return outcome(Status.REFUTED, f"fails at s = {mpmath.nstr(s_w, 15)}: normalised gap "
                               f"{mpmath.nstr(v_w, 8)} (confirmed at {2 * dps} digits)",
                               witness=mpmath.nstr(s_w, 20), gap_at_witness=mpmath.nstr(v2, 12), **data)
            return outcome(Status.INCONCLUSIVE, "sign of the gap changes with the precision", **data)
        if limit0 is not None and sp.sympify(data["limit_at_0"]) < 0:
            return outcome(Status.REFUTED, f"normalised gap tends to {data['limit_at_0']} < 0 as s -> 0+: "
                           "the inequality fails for all small s", witness="s -> 0+", **data)
        if limit0 is not None and sp.sympify(data["limit_at_0"]) == 0:
            return outcome(Status.INCONCLUSIVE, "normalised gap tends to 0 at 0+: the grid cannot "
                           "decide the sign near 0", **data)
        return outcome(Status.SUPPORTED, f"{describe or name}: min normalised gap "
                       f"{mpmath.nstr(v_w, 6)} >= 0 over {n} grid points{' (both signs)' if even else ''} at {dps} digits"
                       + (f"; exact limit at 0+: {data['limit_at_0']}" if limit0 is not None else ""),
                       **data)

    return Check(name, run, "INT")


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
