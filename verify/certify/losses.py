"""Example losses as rigorous arb callables (the l_beta family of ahn2023 Example 1, tanh) and the
exact normalised edge-of-stability start used by the trajectory certificates.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import arb

from .balls import _q2arb, ArbFn, exact


# --------------------------------------------------------------------------- example losses

def _abs_pow(X: arb, beta: arb) -> arb:
    """|X|^beta for beta > 0, also when the ball X contains 0 (monotone in |s|)."""
    a = abs(X)
    if a.lower() > 0:
        return a ** beta
    top = a.upper()
    return arb(0) if top.is_zero() else arb(0).union(top ** beta).nonnegative_part()


def beta_loss(beta: Any) -> tuple[ArbFn, ArbFn]:
    """(l_beta', l_beta'') as rigorous arb callables for the family of ahn2023 Example 1:
    l_beta'(s) = s (1 - c_beta |s|^beta) for |s| < r_beta and sgn(s) beyond, with
    c_beta = (1/(beta+1)) (beta/(beta+1))^beta and r_beta = (beta+1)/beta (beta > 1 exact).

    A ball straddling +-r_beta gets the union of the pieces evaluated on the parts of the ball
    (each piece on a slightly enlarged part, which only widens the enclosure), so the callables are
    valid enclosures on every ball; they do not take arb_series, so pass both to
    :func:`limit_sharpness` (``dloss=..., d2loss=...``).
    """
    bq = exact(beta)
    if not bq > 1:
        raise ValueError(f"beta = {bq} must be > 1")

    def consts():
        b = _q2arb(bq)
        c = (b / (b + 1)).log().__mul__(b).exp() / (b + 1)
        return b, c, _q2arb((bq + 1) / bq)

    def pieces(S: arb, inner, outer_value):
        b, c, r = consts()
        lo, hi = S.lower(), S.upper()
        rhi, rlo = r.upper(), r.lower()
        parts = []
        if not (lo > rhi or hi < -rhi):
            parts.append(inner(lo.max(-rhi).union(hi.min(rhi)), b, c))
        if hi >= rlo:
            parts.append(arb(outer_value(1)))
        if lo <= -rlo:
            parts.append(arb(outer_value(-1)))
        out = parts[0]
        for p in parts[1:]:
            out = out.union(p)
        return out

    def dloss(S: arb) -> arb:
        return pieces(S, lambda X, b, c: X * (1 - c * _abs_pow(X, b)), lambda sign: sign)

    def d2loss(S: arb) -> arb:
        return pieces(S, lambda X, b, c: 1 - (b + 1) * c * _abs_pow(X, b), lambda sign: 0)

    dloss.__name__, d2loss.__name__ = f"l_beta'[beta={bq}]", f"l_beta''[beta={bq}]"
    return dloss, d2loss


def _tanh_dloss(s):
    return s.tanh()


def _tanh_d2loss(s):
    t = s.tanh()
    return 1 - t * t


@dataclass(frozen=True)
class ScaledSqrt:
    """The number coef * sqrt(ratio) (exact rationals), enclosed at the precision in force when
    called; hashable, so trajectory enclosures from the same start are cached."""

    coef: Fraction
    ratio: Fraction

    def __call__(self) -> arb:
        return _q2arb(self.ratio).sqrt() * _q2arb(self.coef)


def eos_start(eta: Any, m: Any = 3, xt: Any = Fraction(3, 4), yt: Any = Fraction(5, 4)):
    """The normalised start (x0, y0) = sqrt(m/eta) (x~, y~); y0^2 - x0^2 = m/eta for x~ = 3/4,
    y~ = 5/4 (edge-of-stability regime when m > 2). Exact, hashable, evaluated lazily in arb."""
    ratio = exact(m) / exact(eta)
    return ScaledSqrt(exact(xt), ratio), ScaledSqrt(exact(yt), ratio)


