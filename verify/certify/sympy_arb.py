"""sympy -> arb: compile a sympy expression in one variable into a callable on balls / series.

A whitelist walk of the expression tree (numbers, pi, E, +, *, powers, elementary functions,
sign, Min/Max, Piecewise with three-valued conditions); never ``eval``. A Piecewise evaluates each
branch on the part of the ball where it is active (the union of the pieces across a breakpoint), and
:func:`split_at_zero` rewrites |s| and sign(s) away on each half-line (so |s|^b/s cancels at 0).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

import sympy as sp
from flint import arb, fmpq

from .balls import _q2arb, ArbFn, exact
from .ops import _series, ops


# --------------------------------------------------------------------------- sympy -> arb

_SYMPY_UNARY: dict[Any, Callable] = {
    sp.exp: ops.exp, sp.log: ops.log, sp.tanh: ops.tanh, sp.sinh: ops.sinh, sp.cosh: ops.cosh,
    sp.sech: ops.sech, sp.csch: ops.csch, sp.coth: ops.coth, sp.atanh: ops.atanh,
    sp.asinh: ops.asinh, sp.acosh: ops.acosh,
    sp.sin: ops.sin, sp.cos: ops.cos, sp.tan: ops.tan, sp.sec: ops.sec, sp.csc: ops.csc,
    sp.cot: ops.cot, sp.asin: ops.asin, sp.acos: ops.acos, sp.atan: ops.atan,
    sp.erf: ops.erf, sp.erfc: ops.erfc, sp.Abs: ops.abs,
}


def from_sympy(expr: Any, var: sp.Symbol | None = None) -> ArbFn:
    """Compile a sympy expression in (at most) one variable into a callable on arb / arb_series.

    Walks the expression tree; only numbers, ``pi``, ``E``, ``+``, ``*``, powers and the functions
    exp, log, sqrt/rational powers, the hyperbolic and trigonometric functions and their inverses,
    erf, erfc, Abs, sign, Min, Max and Piecewise (with relational conditions) are accepted (anything
    else, e.g. an undefined function, raises ``ValueError`` naming the node). Rational constants become arb balls at the precision in force when called.
    """
    expr = sp.sympify(expr)
    free = expr.free_symbols
    if var is None:
        if len(free) > 1:
            raise ValueError(f"expression {expr} has several free symbols {sorted(map(str, free))}; pass var=")
        var = next(iter(free)) if free else None
    elif free - {var}:
        raise ValueError(f"expression {expr} has free symbols other than {var}: "
                         f"{sorted(map(str, free - {var}))}")

    def build(e: sp.Basic) -> Callable[[Any], Any]:
        if var is not None and e == var:
            return lambda v: v
        if e.is_Rational:
            p, q = int(e.p), int(e.q)
            return lambda v: arb(fmpq(p, q))
        if e is sp.pi:
            return lambda v: arb.pi()
        if e is sp.E:
            return lambda v: arb(1).exp()
        if e.is_Float:
            q = exact(str(e))
            return lambda v: _q2arb(q)
        if isinstance(e, sp.Add):
            parts = [build(a) for a in e.args]

            def add(v, parts=parts):
                out = parts[0](v)
                for p in parts[1:]:
                    out = out + p(v)
                return out
            return add
        if isinstance(e, sp.Mul):
            parts = [build(a) for a in e.args]

            def mul(v, parts=parts):
                out = parts[0](v)
                for p in parts[1:]:
                    out = out * p(v)
                return out
            return mul
        if isinstance(e, sp.Pow):
            base, ex = e.args
            b = build(base)
            if ex.is_Integer:
                n = int(ex)
                if n >= 0:
                    return lambda v: _ipow(b(v), n)
                return lambda v: 1 / _ipow(b(v), -n)
            if ex.is_Rational and ex.q == 2:
                n = int(ex.p)
                if n > 0:
                    return lambda v: _ipow(b(v).sqrt(), n)
                return lambda v: _ipow(b(v).rsqrt(), -n)
            if ex.is_Rational and ex > 0:
                p = Fraction(int(ex.p), int(ex.q))
                return lambda v: _rpow(b(v), p)
            c = build(ex)
            return lambda v: (c(v) * b(v).log()).exp()
        if e.func in _SYMPY_UNARY and len(e.args) == 1:
            f, a = _SYMPY_UNARY[e.func], build(e.args[0])
            return lambda v: f(a(v))
        if isinstance(e, sp.sign):
            a = build(e.args[0])
            return lambda v: _sign(a(v))
        if isinstance(e, (sp.Min, sp.Max)):
            parts = [build(x) for x in e.args]
            pick = _min2 if isinstance(e, sp.Min) else _max2

            def extremum(v, parts=parts, pick=pick):
                out = parts[0](v)
                for p in parts[1:]:
                    out = pick(out, p(v))
                return out
            return extremum
        if isinstance(e, sp.Piecewise):
            branches = [(build(val), build_cond(cond)) for val, cond in e.args]
            domains = _branch_domains(e, var, build)
            return lambda v: _piecewise(branches, v, domains)
        raise ValueError(f"from_sympy: unsupported node {e.func.__name__} in {e}; "
                         f"rewrite it with exp/log/tanh/erfc/... or pass an arb callable")

    def build_cond(c: Any) -> Callable[[Any], bool | None]:
        """A condition as a three-valued function of the ball: True, False or None (undecided)."""
        if c is sp.true or c is True:
            return lambda v: True
        if c is sp.false or c is False:
            return lambda v: False
        if isinstance(c, sp.And):
            parts = [build_cond(x) for x in c.args]
            return lambda v: _and3([p(v) for p in parts])
        if isinstance(c, sp.Or):
            parts = [build_cond(x) for x in c.args]
            return lambda v: _or3([p(v) for p in parts])
        if isinstance(c, sp.Not):
            inner = build_cond(c.args[0])
            return lambda v: (None if inner(v) is None else not inner(v))
        if isinstance(c, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan)):
            diff = build(c.rhs - c.lhs) if isinstance(c, (sp.StrictLessThan, sp.LessThan)) \
                else build(c.lhs - c.rhs)
            strict = isinstance(c, (sp.StrictLessThan, sp.StrictGreaterThan))
            return lambda v: _positive3(diff(_const_part(v)), strict)  # decided on the ball
        raise ValueError(f"from_sympy: unsupported condition {c}")

    return build(expr)


def split_at_zero(expr: Any, var: sp.Symbol) -> sp.Expr:
    """``expr`` as Piecewise((E+, var >= 0), (E-, True)), E+/E- being ``expr`` rewritten for
    var > 0 / var < 0, where |var| and sign(var) are known and fold away (|s|^3/s becomes s^2,
    s^2/sqrt(|s|) becomes s^(3/2)), so a ball containing 0 gives no 0/0. E- is written in |var|
    (= -var there): arb's |.| is exact and stays >= 0, where -1 * ball rounds below 0 and a
    fractional power of it would not be finite.

    The value at var = 0 is the common one-sided limit E+(0) = E-(0) (the continuous extension:
    the pointwise l'' of ahn2023's l_beta, Example 1, is written |s|^beta/s near 0 and equals 1
    there). ``expr`` is returned unchanged when it has no |.| or sign, or when E+(0) and E-(0) are
    not finite and equal (a jump at 0 cannot be split this way)."""
    expr = sp.sympify(expr)
    if not expr.has(sp.Abs, sp.sign):
        return expr
    p = sp.Dummy("p", positive=True)
    pos = expr.subs(var, p).subs(p, var)
    neg = expr.subs(var, -p).subs(p, sp.Abs(var))  # -var, written |var|: exact and >= 0 on a ball
    at0 = [h.subs(var, 0) for h in (pos, neg)]
    if not all(a.is_finite for a in at0) or sp.simplify(at0[0] - at0[1]) != 0:
        return expr
    return sp.Piecewise((pos, var >= 0), (neg, True))


def _ipow(x: Any, n: int) -> Any:
    """x^n for an integer n >= 0. arb's power is not finite on a ball centred at 0 (it goes through
    log), and loses the sign information of an even power; on a ball containing 0 the power is
    taken from its monotone pieces instead: [0, max|x|^n] for even n, [lo^n, hi^n] for odd n."""
    if n == 1:
        return x
    if n == 0:
        return x ** 0 if _series(x) else arb(1)
    if _series(x) or x > 0 or x < 0:
        return x ** n
    if not x.is_finite():
        return arb.nan()

    def point_pow(t: arb) -> arb:  # t an exact point
        return arb(0) if t.is_zero() else t ** n
    if n % 2 == 0:
        return arb(0).union(point_pow(abs(x).upper())).nonnegative_part()
    return point_pow(x.lower()).union(point_pow(x.upper()))


def _rpow(x: Any, p: Fraction) -> Any:
    """x^p for a rational p > 0 and x >= 0; on a ball touching 0 uses monotonicity: [0, hi^p]."""
    e = _q2arb(p)
    if _series(x) or x.lower() > 0:
        return (e * x.log()).exp()
    if x.lower() >= 0:
        top = x.upper()
        return arb(0) if top.is_zero() else arb(0).union((e * top.log()).exp()).nonnegative_part()
    return arb.nan()


def _const_part(x: Any) -> arb:
    return x.coeffs()[0] if _series(x) else x


def _positive3(d: arb, strict: bool) -> bool | None:
    """Is d > 0 (strict) / d >= 0 certainly true (True), certainly false (False), or undecided?"""
    if strict:
        return True if d > 0 else (False if d <= 0 else None)
    return True if d >= 0 else (False if d < 0 else None)


def _and3(vals: list) -> bool | None:
    if any(v is False for v in vals):
        return False
    return True if all(v is True for v in vals) else None


def _or3(vals: list) -> bool | None:
    if any(v is True for v in vals):
        return True
    return False if all(v is False for v in vals) else None


def _branch_domains(e: sp.Piecewise, var: sp.Symbol | None, build: Callable) -> list | None:
    """For each branch of ``e``, the set of var where it is the active one (its condition holds
    and no earlier one does), as closed intervals [lo, hi] of callables giving arb balls of the
    ends (None: unbounded); None when a condition is not a set of var that sympy can solve."""
    if var is None:
        return None
    covered, out = sp.S.EmptySet, []
    try:
        for _, cond in e.args:
            where = sp.S.Reals if cond is sp.true else cond.as_set()
            active = sp.Complement(where, covered, evaluate=True)
            covered = sp.Union(covered, where)
            parts = active.args if isinstance(active, sp.Union) else (active,)
            ends = []
            for part in parts:
                if part is sp.S.EmptySet:
                    continue
                if isinstance(part, sp.FiniteSet):
                    ends += [(build(x), build(x)) for x in part]
                elif isinstance(part, sp.Interval):
                    ends.append(tuple(None if x.is_infinite else build(x) for x in (part.start, part.end)))
                else:
                    return None
            out.append(ends)
    except (NotImplementedError, TypeError, ValueError, AttributeError):
        return None
    return out


def _clip(v: arb, lo_end, hi_end) -> arb | None:
    """The ball v cut to the closed interval [lo_end, hi_end] (ends rounded outward), v itself when
    nothing is cut, None when the two do not meet. A part known to lie in [0, inf) (or (-inf, 0])
    is made a ball with no point of the other sign (fractional powers of it stay finite)."""
    lo, hi = v.lower(), v.upper()
    cut_lo = lo_end is not None and lo_end(v).lower() > lo
    cut_hi = hi_end is not None and hi_end(v).upper() < hi
    if cut_lo:
        lo = lo_end(v).lower()
    if cut_hi:
        hi = hi_end(v).upper()
    if lo > hi:
        return None
    if not (cut_lo or cut_hi):
        return v
    part = lo.union(hi)
    if lo >= 0:
        return part.nonnegative_part()
    if hi <= 0:
        return -((-part).nonnegative_part())
    return part


def _piecewise(branches, v, domains=None):
    """Union of every branch that may be active on the ball v, each evaluated on the part of v
    where it is active when the conditions are sets of the variable (``domains``); otherwise on the
    whole ball (the first certainly-true condition ends the scan). For arb_series arguments the
    active branch must be unique."""
    if domains is not None and not _series(v):
        out = None
        for (val, _), ends in zip(branches, domains):
            for lo_end, hi_end in ends:
                part = _clip(v, lo_end, hi_end)
                if part is not None:
                    piece = val(part)
                    out = piece if out is None else out.union(piece)
        if out is None:
            raise ValueError("Piecewise: no branch applies")
        return out
    out = None
    for val, cond in branches:
        c = cond(v)
        if c is False:
            continue
        if _series(v):
            if c is True and out is None:
                return val(v)
            raise ValueError("Piecewise: branch not decided on this ball (no derivative here)")
        piece = val(v)
        out = piece if out is None else out.union(piece)
        if c is True:
            return out
    if out is None:
        raise ValueError("Piecewise: no branch applies")
    return out


def _sign(x):
    if _series(x):
        c0 = x.coeffs()[0]
        if c0 > 0 or c0 < 0:
            return arb(1) if c0 > 0 else arb(-1)
        raise ValueError("sign is not differentiable at 0")
    return x.sgn()


def _min2(a, b):
    if _series(a) or _series(b):
        a0, b0 = _const_part(a), _const_part(b)
        if a0 < b0:
            return a
        if b0 < a0:
            return b
        raise ValueError("min: branches not separated on this ball")
    return a.min(b)


def _max2(a, b):
    if _series(a) or _series(b):
        a0, b0 = _const_part(a), _const_part(b)
        if a0 > b0:
            return a
        if b0 > a0:
            return b
        raise ValueError("max: branches not separated on this ball")
    return a.max(b)


