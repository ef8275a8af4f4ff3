"""Taylor forms at 0 with a rigorous (Lagrange) remainder: close removable singularities and
touching points at 0 by dividing out s^k. Coefficients are exact (sympy series).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy as sp
from flint import arb, arb_series

from .balls import _bounds, _box, _qstr, ball, exact
from .sympy_arb import from_sympy


# --------------------------------------------------------------------------- Taylor form at 0

@dataclass(frozen=True)
class Taylor0:
    """A Taylor enclosure at 0: for 0 < |s| <= radius, h(s) = sum_i coeffs[i] s^i + rho(s) s^order
    with rho(s) in ``remainder`` (an arb ball). ``coeffs`` are exact rationals or arb balls; an
    exact 0 coefficient lets the prover divide out s^k (touching points, removable singularities).
    """

    radius: Fraction
    coeffs: tuple
    order: int
    remainder: arb
    source: str = "user"

    def leading(self) -> int:
        """Index of the first coefficient not known to be exactly zero (``order`` if none)."""
        for i, c in enumerate(self.coeffs):
            if not _is_exact_zero(c):
                return i
        return self.order

    def quotient(self, X: arb, k: int) -> arb:
        """Enclosure of h(s)/s^k for s in X (k <= leading())."""
        out = arb(0)
        for i in range(len(self.coeffs) - 1, k - 1, -1):  # Horner on the shifted polynomial
            out = out * X + _coef(self.coeffs[i])
        # coefficients beyond len(coeffs) up to order-1 are zero
        return out + self.remainder * X ** (self.order - k)

    def enclose(self, X: arb) -> arb:
        return self.quotient(X, 0)

    def describe(self) -> dict:
        return {"radius": _qstr(self.radius), "order": self.order,
                "coeffs": [str(c) for c in self.coeffs], "remainder": _bounds(self.remainder),
                "source": self.source}


def _is_exact_zero(c: Any) -> bool:
    if isinstance(c, arb):
        return c.is_zero()
    return c == 0


def _coef(c: Any) -> arb:
    return c if isinstance(c, arb) else ball(c)


def taylor_at_zero(expr: Any, var: sp.Symbol, radius: Any, order: int = 8, pieces: int = 8) -> Taylor0:
    """Derive a :class:`Taylor0` for a sympy expression with at most a pole-free singularity at 0.

    The expression is written as N(s)/(c s^m) (``sympy.together``); the Taylor coefficients of N
    below ``order + m`` are exact (sympy series) and must vanish below m (else the singularity is not
    removable: ``ValueError``). The remainder is Lagrange's: N^(n)(xi)/n! for xi in [-radius, radius],
    enclosed by evaluating N on an arb_series over that ball (so N must avoid |.|, see :data:`ops`).
    Call inside :func:`working_precision`.
    """
    expr = sp.sympify(expr)
    r = exact(radius)
    num, den = sp.fraction(sp.together(expr))
    m, c = 0, sp.Integer(1)
    try:
        poly = sp.Poly(den, var) if den.has(var) else None
    except sp.PolynomialError:
        poly = False
    if poly and poly.is_monomial and len(poly.terms()) == 1:
        (mon, coeff), = poly.terms()
        m, c = mon[0], coeff
        numerator = num / c
    elif poly is None:
        numerator = num / den
    else:
        numerator, m = expr, 0
    n = order + m
    series = sp.series(numerator, var, 0, n).removeO()
    pcoef = sp.Poly(series, var).all_coeffs()[::-1] if series.has(var) else [series]
    pcoef = list(pcoef) + [sp.Integer(0)] * (n - len(pcoef))
    for i in range(m):
        if sp.simplify(pcoef[i]) != 0:
            raise ValueError(f"{expr} is singular at 0 (coefficient s^{i - m} = {pcoef[i]})")
    coeffs = []
    for co in pcoef[m:n]:
        co = sp.nsimplify(co) if co.is_Float else co
        coeffs.append(Fraction(int(co.p), int(co.q)) if co.is_Rational else from_sympy(co)(None))
    N = from_sympy(numerator, var)
    rem = None
    for j in range(pieces):  # the remainder over [-r, r] as a union over sub-balls (less overestimation)
        X = _box(-r + 2 * r * Fraction(j, pieces), -r + 2 * r * Fraction(j + 1, pieces))
        out = N(arb_series([X, 1], prec=n + 1))
        cs = out.coeffs() if isinstance(out, arb_series) else []
        piece = cs[n] if len(cs) > n else arb(0)
        rem = piece if rem is None else rem.union(piece)
    if not rem.is_finite():
        raise ValueError(f"Taylor remainder of {numerator} is not finite on [-{r}, {r}]")
    return Taylor0(r, tuple(coeffs), order, rem, source=f"sympy series to order {n}, Lagrange remainder in arb")


