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
from ..symbolic import BudgetExceeded, time_budget
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
                  max_boxes: int = 3000, zeros: tuple = ()) -> tuple[bool | None, float | None]:
    """E(t) >= 0 (> 0 if strict) for t in [a, b] (t = 0 excluded when E has a removable
    singularity there), certified with :mod:`verify.certify` (arb balls, centred forms and a Taylor
    form with Lagrange remainder at 0). Returns (True, None) proved, (False, witness) refuted with a
    certified counterexample, (None, None) undecided or certify unavailable."""
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
        return _prove_nonneg_run(E, fa, fb, strict, max_boxes, zeros)
    finally:
        _PROVE_CLOCK[0] += time.perf_counter() - started


PROVE_SECONDS = 8.0      # total time for interval certificates in one audit
_PROVE_CLOCK = [0.0, False]


def _prove_nonneg_run(E, fa, fb, strict, max_boxes, zeros):
    try:
        h = certify.from_sympy(E, T)
    except ValueError:  # the expression has a node with no interval rule
        return None, None
    radii = [None]
    if fa == 0:
        radii = [min(fb, Fraction(1, 8)), min(fb, Fraction(1, 32))]
    for rad in radii:
        tay = None
        if rad is not None:
            try:
                with time_budget(4.0), certify.working_precision(128):
                    tay = certify.taylor_at_zero(E, T, rad, order=8)
            except (BudgetExceeded, Exception):
                tay = None
        try:
            with time_budget(8.0):
                res = certify.prove_nonnegative(h, fa, fb, strict=strict, taylor=tay, max_boxes=max_boxes,
                                                zeros=[z for z in (_frac(z) for z in zeros) if z is not None])
        except (BudgetExceeded, Exception):
            continue
        st = str(res.status)
        if st == PROVED:
            return True, None
        if st == REFUTED and res.witness is not None:
            return False, float(res.witness)
    return None, None
