"""Interval (python-flint ``arb``) certificates used by the audit, through the public functions of
:mod:`verify.certify` (bisection with centred forms, Taylor form at 0).
"""
from __future__ import annotations

import math
import time
import sympy as sp
from fractions import Fraction
from typing import Any

from .. import certify
from ..symbolic import BudgetExceeded
from . import clock
from .common import PROVED, REFUTED, T, _gave_up


# ============================================================================ interval arithmetic
def _arb_interval(a: float | sp.Expr, b: float | sp.Expr) -> Any:
    from flint import arb
    lo = arb(str(sp.N(a, 30))) if isinstance(a, sp.Basic) else arb(a)
    hi = arb(str(sp.N(b, 30))) if isinstance(b, sp.Basic) else arb(b)
    return lo.union(hi)


def _float_outward(x: Any, direction: float) -> float:
    """x as a float, moved one ulp toward ``direction`` unless the float is x exactly, so the
    float interval always contains the exact one (a rounded endpoint would leave a sliver)."""
    x = sp.sympify(x)
    f = float(sp.N(x, 30))
    return f if sp.Rational(f) == x else math.nextafter(f, direction)


def _certify_bound(e: sp.Expr, var: sp.Symbol, a: Any, b: Any, bound: Any, side: str,
                   strict: bool = False, max_evals: int = 6000) -> tuple[bool | None, Any]:
    """Certify e(x) >= bound (side="lower") or <= bound ("upper") for x in [a, b] by bisection.

    Returns (True, None) when certified, (False, x) when a midpoint violates it (a witness), None
    when the budget ran out or the expression cannot be enclosed.
    """
    from flint import arb
    try:
        f, g = certify.from_sympy(e, var), certify.from_sympy(bound, var)
    except ValueError:  # a node with no interval rule
        return None, None
    with certify.working_precision(128):
        bnd = g(arb(0))
        stack = [(_float_outward(a, -math.inf), _float_outward(b, math.inf))]
        evals = 0
        while stack:
            lo, hi = stack.pop()
            evals += 1
            if evals > max_evals:
                return None, None
            try:
                v = f(_arb_interval(lo, hi))
            except (ValueError, ZeroDivisionError):
                v = None
            if v is not None and v.is_finite():
                ok = (v > bnd if strict else v >= bnd) if side == "lower" else \
                    (v < bnd if strict else v <= bnd)
                if ok:
                    continue
                mid = (lo + hi) / 2
                vm = f(arb(mid))
                bad = (vm < bnd if not strict else vm <= bnd) if side == "lower" else \
                    (vm > bnd if not strict else vm >= bnd)
                if bad:
                    return False, mid
            if hi - lo < 1e-12:
                return None, None
            mid = (lo + hi) / 2
            stack += [(lo, mid), (mid, hi)]
        return True, None


def _frac(x: Any) -> Fraction | None:
    x = sp.sympify(x)
    if x.is_Rational:
        return Fraction(int(x.p), int(x.q))
    return None


def _prove_nonneg(E: sp.Expr, a: Any, b: Any, strict: bool = False,
                  max_boxes: int = 3000, zeros: tuple = (), var: sp.Symbol = T) -> tuple[bool | None, Any]:
    """E(t) >= 0 (> 0 if strict) for t in [a, b] (t = 0 excluded when E has a removable
    singularity there), certified with :mod:`verify.certify` (arb balls, centred forms and a Taylor
    form with Lagrange remainder at 0). Returns (True, None) proved, (False, witness) refuted with a
    certified counterexample (an exact rational), (None, None) undecided or certify unavailable."""
    clock.check("the interval certificates")
    fa, fb = _frac(a), _frac(b)
    if fa is None or fb is None or not fa < fb:
        return None, None
    if _PROVE_CLOCK[0] > PROVE_SECONDS:
        if not _PROVE_CLOCK[1]:
            _gave_up("interval certificates (their total budget for one audit)", PROVE_SECONDS)
            _PROVE_CLOCK[1] = True
        return None, None
    started = time.perf_counter()
    try:
        return _prove_nonneg_run(E, fa, fb, strict, max_boxes, zeros, var)
    finally:
        _PROVE_CLOCK[0] += time.perf_counter() - started


PROVE_SECONDS = 8.0      # total time for interval certificates in one audit
_PROVE_CLOCK = [0.0, False]


def _prove_nonneg_run(E, fa, fb, strict, max_boxes, zeros, var=T):
    try:
        h = certify.from_sympy(E, var)
    except ValueError:  # the expression has a node with no interval rule
        return None, None
    radii = [None]
    if fa == 0:
        radii = [min(fb, Fraction(1, 8)), min(fb, Fraction(1, 32))]
    for rad in radii:
        tay = None
        if rad is not None:
            try:
                with clock.step(4.0), certify.working_precision(128):
                    tay = certify.taylor_at_zero(E, var, rad, order=8)
            except (BudgetExceeded, Exception):
                tay = None
        try:
            with clock.step(8.0):
                res = certify.prove_nonnegative(h, fa, fb, strict=strict, taylor=tay, max_boxes=max_boxes,
                                                zeros=[z for z in (_frac(z) for z in zeros) if z is not None])
        except (BudgetExceeded, Exception):
            continue
        st = str(res.status)
        if st == PROVED:
            return True, None
        if st == REFUTED and res.witness is not None:
            return False, sp.Rational(res.witness.numerator, res.witness.denominator)
    return None, None


X = sp.Symbol("x", real=True)  # the variable of a cell's formula certified on a range of either sign
R_CERT = 64                    # |s| range the interval certificates cover; beyond it sympy or samples


def _outward(x: sp.Expr, down: bool) -> Fraction | None:
    """A rational r <= x (``down``) or >= x, within 1e-30 relative, checked exactly by sympy."""
    if x.is_Rational:
        return Fraction(int(x.p), int(x.q))
    r = Fraction(str(sp.N(x, 40)))
    r += (-1 if down else 1) * Fraction(1, 10**30) * (1 + abs(r))
    d = (x - sp.Rational(r.numerator, r.denominator)) if down else (sp.Rational(r.numerator, r.denominator) - x)
    return r if d.is_positive else None


def certify_on(e: sp.Expr, var: sp.Symbol, lo: sp.Expr, hi: sp.Expr, strict: bool = False,
               zeros: tuple = ()) -> tuple[bool | None, Any]:
    """e(var) >= 0 (> 0) on the closed range [lo, hi] cut to |var| <= R_CERT (end points exact,
    possibly algebraic: the certified box starts at rationals just outside them). Returns
    (True, None), (False, witness inside [lo, hi]) or (None, None)."""
    lo = sp.Max(lo, -R_CERT) if lo != -sp.oo else sp.Integer(-R_CERT)
    hi = sp.Min(hi, R_CERT) if hi != sp.oo else sp.Integer(R_CERT)
    if not (hi > lo):
        return True, None
    a, b = _outward(lo, True), _outward(hi, False)
    if a is None or b is None:
        return None, None
    e = e.subs(var, X)
    ok, w = _prove_nonneg(e, sp.Rational(a.numerator, a.denominator), sp.Rational(b.numerator, b.denominator),
                          strict=strict, zeros=zeros, var=X)
    if ok is False and not (lo <= w <= hi):
        return None, None  # a violation outside the cell, where this formula does not apply
    return ok, w
