"""Check constructors for inequalities on an interval: ``inequality``, ``nonnegative``, the sympy
tail argument ``sympy_tail`` that extends a compact certificate to [a, oo), and ``nondecreasing_from``
(h >= 0 on [a, oo) from h(a) >= 0 and h' >= 0, for a bound that touches at a).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

import sympy as sp
from sympy.calculus.util import continuous_domain

from ..claim import Check, Context, Evidence, outcome, Status
from .balls import _bounds, _qstr, ArbFn, ball, DEFAULT_PREC, exact, working_precision
from .bisection import prove_nonnegative
from .sympy_arb import from_sympy
from .taylor import Taylor0, taylor_at_zero


# --------------------------------------------------------------------------- building h = rhs - lhs

def _var_of(*exprs: Any) -> sp.Symbol | None:
    free: set = set()
    for e in exprs:
        if isinstance(e, sp.Basic):
            free |= e.free_symbols
    if len(free) > 1:
        raise ValueError(f"several free symbols {sorted(map(str, free))}; pass var=")
    return next(iter(free)) if free else None


def _as_callable(f: Any, var: sp.Symbol | None) -> ArbFn:
    if isinstance(f, sp.Basic):
        return from_sympy(f, var)
    if callable(f):
        return f
    c = f
    return lambda v: ball(c)


def _difference(lhs: Any, rhs: Any, var: sp.Symbol | None) -> tuple[ArbFn, sp.Expr | None]:
    """h = rhs - lhs as an arb callable, and as a sympy expression when both sides are symbolic."""
    symbolic = all(isinstance(x, (sp.Basic, int, Fraction)) for x in (lhs, rhs)) and \
        any(isinstance(x, sp.Basic) for x in (lhs, rhs))
    if symbolic:
        expr = sp.sympify(rhs) - sp.sympify(lhs)
        return from_sympy(expr, var), expr
    L, R = _as_callable(lhs, var), _as_callable(rhs, var)
    return (lambda v: R(v) - L(v)), None


def _auto_taylor(expr: sp.Expr | None, var, a: Fraction, b: Fraction, prec: int,
                 radius: Any | None, order: int) -> Taylor0 | None:
    if expr is None or var is None or not (a <= 0 <= b):
        return None
    r = exact(radius) if radius is not None else min(Fraction(1, 16), max(-a, b))
    if r <= 0:
        return None
    try:
        with working_precision(prec):
            return taylor_at_zero(expr, var, r, order)
    except (ValueError, TypeError, NotImplementedError, sp.PolynomialError):
        return None


def _exact_zeros(expr: sp.Expr | None, var, points: Sequence[Fraction], seconds: float = 5.0) -> list[Fraction]:
    """The given points where sympy proves expr == 0 exactly (touching endpoints)."""
    if expr is None or var is None:
        return []
    from ..symbolic import BudgetExceeded, is_zero
    out = []
    for p in points:
        try:
            val = expr.subs(var, sp.Rational(p.numerator, p.denominator))
            if val.has(sp.nan, sp.zoo):
                continue
            if is_zero(val, seconds) is True:
                out.append(p)
        except (BudgetExceeded, TypeError, ValueError):
            continue
    return out


# --------------------------------------------------------------------------- check constructors

def _claim_text(lhs: Any, rhs: Any, rel: str) -> str:
    show = lambda x: sp.sstr(x) if isinstance(x, sp.Basic) else getattr(x, "__name__", str(x))
    return f"{show(lhs)} {rel} {show(rhs)}"


def inequality(name: str, lhs: Any, rhs: Any, lo: Any, hi: Any, *, var: sp.Symbol | None = None,
               strict: bool = False, prec: int = DEFAULT_PREC, max_boxes: int = 20000,
               max_depth: int = 60, taylor: Taylor0 | None = None, taylor_radius: Any = None,
               taylor_order: int = 8, derivative: ArbFn | None = None, tail: Check | None = None,
               kind: str = "CERT", why: str = "") -> Check:
    """``lhs(s) <= rhs(s)`` (``<`` if strict) for every s in [lo, hi], certified in arb.

    ``lhs``/``rhs``: sympy expressions in one variable (then a Taylor form at 0 is derived
    automatically when 0 is in [lo, hi], closing removable singularities and touching points),
    arb callables (see :data:`ops`), or constants. ``derivative``: optional enclosure of
    (rhs - lhs)'. ``tail``: a Check proving the statement beyond [lo, hi] (see module docstring);
    without one the evidence says ``domain_certified = [lo, hi]``.
    """
    a, b = exact(lo), exact(hi)
    rel = "<" if strict else "<="

    def run(ctx: Context) -> Evidence:
        v = var if var is not None else _var_of(lhs, rhs)
        h, expr = _difference(lhs, rhs, v)
        t = taylor if taylor is not None else _auto_taylor(expr, v, a, b, prec, taylor_radius, taylor_order)
        zeros = _exact_zeros(expr, v, (a, b))
        res = prove_nonnegative(h, a, b, strict=strict, taylor=t, derivative=derivative, prec=prec,
                                max_boxes=max_boxes, max_depth=max_depth, zeros=zeros)
        stmt = _claim_text(lhs, rhs, rel)
        data = {"statement": stmt, "method": "arb adaptive bisection (natural / mean-value / "
                "monotone / Taylor-at-0 enclosures)", **res.data(),
                "domain_certified": [_qstr(a), _qstr(b)], "why": why}
        if zeros:
            data["exact_zeros_sympy"] = [_qstr(z) for z in zeros]
        where = f"[{a}, {b}]"
        if res.status == Status.REFUTED:
            return outcome(Status.REFUTED, f"{stmt} fails at {v if v is not None else 's'} = {res.witness} (~{float(res.witness):.6g}): "
                           f"rhs - lhs in [{_bounds(res.witness_value)[0]:.6g}, "
                           f"{_bounds(res.witness_value)[1]:.6g}] (certified, {prec} bits)", **data)
        if res.status == Status.INCONCLUSIVE:
            return outcome(Status.INCONCLUSIVE, f"{stmt} on {where}: box budget exhausted after "
                           f"{res.boxes} boxes, {res.unresolved_count} sub-intervals unresolved "
                           f"(raise max_boxes/prec or supply taylor=)", **data)
        summary = f"{stmt} certified on {where} ({res.boxes} boxes, depth {res.max_depth}, {prec} bits)"
        if tail is None:
            return outcome(Status.PROVED, summary + f"; domain_certified = {where} only", **data)
        tev = tail(ctx)
        data["tail"] = tev.to_json()
        start = tev.data.get("start") if isinstance(tev.data, dict) else None
        if tev.status == Status.PROVED:
            # the tail must say where it starts, at or before b, or [b, start) is not covered
            try:
                gap = start is None or exact(sp.Rational(str(start))) > b
            except (TypeError, ValueError):
                gap = True
            if gap:
                return outcome(Status.INCONCLUSIVE, summary + f"; the tail starts at {start} (not "
                               f"known to be <= {b}): the gap is not certified", **data)
        if tev.status == Status.PROVED:
            data["domain_certified"] = [_qstr(a), "oo"]
            data["tail_argument"] = tev.summary[:160]
            return outcome(Status.PROVED, summary + f"; tail proved: {tev.summary[:120]}", **data)
        return outcome(min(tev.status, Status.INCONCLUSIVE) if tev.status != Status.REFUTED else Status.REFUTED,
                       summary + f"; tail not proved ({tev.status}): {tev.summary[:120]}", **data)

    return Check(name, run, kind)


def nonnegative(name: str, h: Any, lo: Any, hi: Any, **kw: Any) -> Check:
    """``h(s) >= 0`` on [lo, hi] (``strict=True``: > 0); same options as :func:`inequality`."""
    return inequality(name, 0, h, lo, hi, **kw)


def sympy_tail(name: str, expr: Any, var: sp.Symbol, start: Any, *, strict: bool = False,
               seconds: float = 20.0) -> Check:
    """Tail argument: ``expr >= 0`` (or > 0) for all s >= start, by sympy's assumption system on
    s = start + t with t > 0 (three-valued: sympy's None is inconclusive, never a pass)."""
    from ..symbolic import BudgetExceeded, time_budget

    def run(ctx: Context) -> Evidence:
        t = sp.Symbol("t_tail", positive=True)
        e = sp.sympify(expr).subs(var, sp.sympify(start) + t)
        verdict = None
        try:
            with time_budget(seconds):
                for rewrite in (lambda x: x, sp.expand, sp.factor, sp.cancel, sp.simplify):  # cheap first
                    e2 = rewrite(e)
                    verdict = e2.is_positive if strict else e2.is_nonnegative
                    if verdict is not None:
                        break
        except BudgetExceeded:
            verdict = None
        data = {"expr": sp.sstr(expr), "start": str(start)}
        if verdict is True:
            return outcome(Status.PROVED, f"{sp.sstr(expr)} {'>' if strict else '>='} 0 for "
                           f"{var} >= {start} (sympy assumptions)", **data)
        if verdict is False:
            return outcome(Status.REFUTED, f"sympy shows {sp.sstr(expr)} takes the wrong sign beyond {start}",
                           **data)
        return outcome(Status.INCONCLUSIVE, f"sympy could not decide the sign of {sp.sstr(expr)} "
                       f"for {var} >= {start}", **data)

    return Check(name, run, "SYM")


def nondecreasing_from(name: str, expr: Any, var: sp.Symbol, start: Any, *, seconds: float = 20.0,
                       why: str = "") -> Check:
    """``expr >= 0`` for all s >= start by monotonicity: ``expr(start) >= 0`` decided exactly by sympy,
    ``expr`` continuous on [start, oo) and its derivative on (start, oo) (sympy's ``continuous_domain``),
    and ``expr' >= 0`` for s > start (:func:`sympy_tail` on the derivative); the mean value theorem then
    gives expr(s) >= expr(start). For a bound that touches at ``start`` (log(1 + t) <= t at 0), where no
    ball closes the gap and sympy cannot decide the sign of ``expr`` itself.

    ``var`` is read as a plain real variable (its assumptions, e.g. ``nonnegative``, are dropped, so
    they cannot simplify the expression outside the interval); ``expr`` must have no other free
    symbol; ``start`` must be exact (an int, Fraction or exact sympy number: a float's decimal and
    binary readings differ). Usable as an :func:`inequality` tail (data: start). If the argument fails,
    a point start + 2^k where the value is certified negative refutes; else inconclusive."""
    from ..symbolic import BudgetExceeded, time_budget

    a = sp.sympify(start)
    if a.has(sp.Float) or not (a.is_real and a.is_number):
        raise ValueError(f"{name}: start must be an exact real number, got {start!r}")
    s = sp.Dummy(str(var), real=True)
    e = sp.sympify(expr).subs(var, s)
    if e.free_symbols - {s}:
        raise ValueError(f"{name}: {sorted(map(str, e.free_symbols - {s}))} free besides {var}")
    derivative = sp.diff(e, s)
    slope = sympy_tail(f"{name}_slope", derivative, s, a, seconds=seconds)

    def run(ctx: Context) -> Evidence:
        shown = sp.sstr(e)
        data = {"expr": shown, "start": sp.sstr(a), "derivative": sp.sstr(derivative),
                "method": "value at start (exact) + continuity + derivative >= 0 (sympy), mean value theorem"}
        try:
            with time_budget(seconds):
                at_start = sp.simplify(e.subs(s, a))
                start_ok = at_start.is_nonnegative if at_start.is_real else None
                # C¹ on (start, oo) and continuous at start: sympy's derivative is the derivative
                # wherever it is continuous, so the mean value theorem applies
                try:
                    continuous = (continuous_domain(e, s, sp.Interval(a, sp.oo)) == sp.Interval(a, sp.oo)
                                  and continuous_domain(derivative, s, sp.Interval.open(a, sp.oo))
                                  == sp.Interval.open(a, sp.oo))
                except (NotImplementedError, ValueError, TypeError):   # sympy cannot tell: not shown
                    continuous = False
        except BudgetExceeded as exc:
            return outcome(Status.INCONCLUSIVE, f"{name}: {exc}", **data)
        data["value_at_start"] = sp.sstr(at_start)
        if start_ok is False:
            data.update(witness=sp.sstr(a), witness_value=[float(at_start)] * 2)
            return outcome(Status.REFUTED, f"{shown} = {sp.sstr(at_start)} < 0 at {var} = {a}", **data)
        sev = slope(ctx)
        data["slope"] = sev.summary
        if start_ok and continuous and sev.status == Status.PROVED:
            return outcome(Status.PROVED, f"{shown} >= 0 for {var} >= {a}: {sp.sstr(at_start)} at {a}, "
                           f"continuous, derivative {sp.sstr(derivative)} >= 0 (sympy){'; ' + why if why else ''}",
                           **data)
        point, probe_error = _negative_point(e, s, a)
        if point is not None:
            where, value = point
            data.update(witness=_qstr(where), witness_value=[float(v) for v in _bounds(value)])
            return outcome(Status.REFUTED, f"{shown} < 0 at {var} = {_qstr(where)} (~{float(where):.6g}): "
                           f"value in [{_bounds(value)[0]:.6g}, {_bounds(value)[1]:.6g}] (certified, 256 bits)", **data)
        missing = [w for w, ok in (("the value at start (real and >= 0)", start_ok), ("continuity", continuous),
                                   ("the derivative's sign", sev.status == Status.PROVED)) if not ok]
        probes = (f"the probe points could not be evaluated in arb ({probe_error})" if probe_error
                  else "no negative value at the probe points either")
        return outcome(Status.INCONCLUSIVE, f"{name}: sympy could not decide {', '.join(missing)}; {probes}", **data)

    return Check(name, run, "SYM")


def _negative_point(expr: sp.Expr, var: sp.Symbol, start: sp.Expr) -> tuple[tuple | None, str]:
    """(A point start + 2^k, k = 0, −1, …, −60, then 1 … 20, where ``expr`` is certified negative (arb,
    256 bits), as (exact point, value ball), or None; why arb could not evaluate ``expr``, or ""): the
    witness of a refutation when the monotonicity argument fails."""
    try:
        f = from_sympy(expr, var)
    except (ValueError, TypeError, NotImplementedError) as exc:
        return None, str(exc)[:120]
    base = exact(start)
    with working_precision(256):
        for k in [*range(0, -61, -1), *range(1, 21)]:
            point = base + Fraction(2) ** k
            try:
                value = f(ball(point))
            except (ValueError, ZeroDivisionError, TypeError):
                continue
            if value.is_finite() and value < 0:
                return (point, value), ""
    return None, ""
