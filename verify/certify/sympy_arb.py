"""sympy -> arb: compile a sympy expression in one variable into a callable on balls / series.

A whitelist walk of the expression tree (numbers, pi, E, +, *, powers, elementary functions,
sign, Min/Max, Piecewise with three-valued conditions); never ``eval``. A Piecewise evaluates each
branch on the part of the ball where it is active (the union of the pieces across a breakpoint), and
``split_at_zero=True`` compiles the two half-lines separately, where |s| and sign(s) fold away (so
|s|^b/s cancels at 0).
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


def from_sympy(expr: Any, var: sp.Symbol | None = None, *, split_at_zero: bool = False) -> ArbFn:
    """Compile a sympy expression in (at most) one variable into a callable on arb / arb_series.

    Walks the expression tree; only numbers, ``pi``, ``E``, ``+``, ``*``, powers and the functions
    exp, log, sqrt/rational powers, the hyperbolic and trigonometric functions and their inverses,
    erf, erfc, Abs, sign, Min, Max and Piecewise (with relational conditions) are accepted (anything
    else, e.g. an undefined function, raises ``ValueError`` naming the node). Rational constants become arb balls at the precision in force when called.
    A Piecewise is the union of its branches, each on the part of the ball where it is active.
    ``split_at_zero``: compile the halves var >= 0 and var <= 0 separately when that folds |var|
    and sign(var) away (:func:`halves_at_zero`), so that |s|^b/s has no 0/0 on a ball around 0.
    """
    expr = sp.sympify(expr)
    free = expr.free_symbols
    if split_at_zero and var is not None:
        halves = halves_at_zero(expr, var)
        if halves is not None:
            p, pos, neg = halves
            return join_at_zero(from_sympy(pos, p), from_sympy(neg, p))
    if var is None:
        if len(free) > 1:
            raise ValueError(f"expression {expr} has several free symbols {sorted(map(str, free))}; pass var=")
        var = next(iter(free)) if free else None
    elif free - {var}:
        raise ValueError(f"expression {expr} has free symbols other than {var}: "
                         f"{sorted(map(str, free - {var}))}")

    def build(e: sp.Basic) -> Callable[[Any], Any]:
        if var is not None and e == var:
            return _identity
        if e.is_Integer:
            return _constant(arb(int(e)))  # exact at any precision: made once
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
            return _fold([build(a) for a in e.args], lambda a, b: a + b)
        if isinstance(e, sp.Mul):
            if e.args[0] == -1:  # -x: exact negation (-1 * x rounds the radius up)
                rest = build(sp.Mul(*e.args[1:]))
                return lambda v: -rest(v)
            return _fold([build(a) for a in e.args], lambda a, b: a * b)
        if isinstance(e, sp.Pow):
            base, ex = e.args
            b = build(base)
            if ex.is_Integer:
                n = int(ex)
                if n == 2:
                    return _compose(_square, b)
                if n >= 0:
                    return lambda v: _ipow(b(v), n)
                return lambda v: 1 / _ipow(b(v), -n)
            if ex.is_Rational and ex.q == 2:
                n = int(ex.p)
                if n == 1:
                    return _compose(_sqrt, b)
                if n == -1:
                    return _compose(_rsqrt, b)
                if n > 0:
                    return lambda v: _ipow(b(v).sqrt(), n)
                return lambda v: _ipow(b(v).rsqrt(), -n)
            if ex.is_Rational and ex > 0:
                p = Fraction(int(ex.p), int(ex.q))
                return lambda v: _rpow(b(v), p)
            c = build(ex)
            return lambda v: (c(v) * b(v).log()).exp()
        if e.func in _SYMPY_UNARY and len(e.args) == 1:
            return _compose(_SYMPY_UNARY[e.func], build(e.args[0]))
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


def halves_at_zero(expr: Any, var: sp.Symbol) -> tuple[sp.Symbol, sp.Expr, sp.Expr] | None:
    """(p, E+, E-) with E+(p) = expr(p) and E-(p) = expr(-p) for a positive symbol p, where |.| and
    sign fold away (|s|^3/s becomes p^2, s^2/sqrt(|s|) becomes p^(3/2)); None when ``expr`` has no
    |.| or sign, or when E+(0) and E-(0) are not finite and equal (a jump at 0 cannot be split).

    The value at var = 0 is then the common one-sided limit E+(0) = E-(0): the continuous extension
    (ahn2023's l_beta'' of Example 1 is written |s|^beta/s near 0 and equals 1 there). Compile the two
    halves with :func:`from_sympy` in p and combine them with :func:`join_at_zero`."""
    expr = sp.sympify(expr)
    if not expr.has(sp.Abs, sp.sign):
        return None
    p = sp.Dummy("p", positive=True)
    pos, neg = expr.subs(var, p), expr.subs(var, -p)
    at0 = [h.subs(p, 0) for h in (pos, neg)]
    if not all(a.is_finite for a in at0) or sp.simplify(at0[0] - at0[1]) != 0:
        return None
    return p, pos, neg


def join_at_zero(pos: ArbFn, neg: ArbFn) -> ArbFn:
    """v -> pos(v) for v >= 0, neg(-v) for v <= 0 (the halves of :func:`halves_at_zero`): on a
    ball, the union of pos on its part in [0, inf) and neg on the mirror of its part in (-inf, 0]
    (exact negation, so the argument of neg is a ball with no negative point)."""
    zero = lambda v: arb(0)  # noqa: E731

    def joined(v):
        if _series(v):
            c0 = v.coeffs()[0]
            if c0 > 0:
                return pos(v)
            if c0 < 0:
                return neg(-v)
            raise ValueError("split at 0: no derivative on a ball containing 0")
        out = None
        right, left = _clip(v, zero, None), _clip(v, None, zero)
        if right is not None:
            out = pos(right)
        if left is not None:
            piece = neg(-left)
            out = piece if out is None else out.union(piece)
        return out
    return joined


def _ipow(x: Any, n: int) -> Any:
    """x^n for an integer n >= 0 on a ball or series. arb's power is used on balls away from 0; on
    a ball containing 0 (where it is not even finite when the ball is centred at 0) the power is
    taken from its monotone pieces: [0, max|x|^n] for even n, [lo^n, hi^n] for odd n."""
    if n == 1:
        return x
    if _series(x):
        return x ** n
    if n == 2:
        return _square(x)
    if n == 0:
        return arb(1)
    if x > 0 or x < 0:
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


# ---- closure combinators (fewer Python calls per evaluation: the GD enclosures call l', l'' per step)

def _identity(v):
    return v


def _constant(c: arb) -> Callable:
    f = lambda v: c  # noqa: E731
    f.constant = c
    return f


def _compose(f: Callable, a: Callable) -> Callable:
    """v -> f(a(v)), without the extra call when a is the variable itself."""
    return f if a is _identity else (lambda v: f(a(v)))


def _fold(parts: list, op: Callable) -> Callable:
    """v -> op(...op(parts[0](v), parts[1](v))...), with the variable and exact constants inlined
    for the common two-term case (c + f, v * f, ...)."""
    if len(parts) == 2:
        a, b = parts
        ca, cb = getattr(a, "constant", None), getattr(b, "constant", None)
        if ca is not None and b is _identity:
            return lambda v: op(ca, v)
        if ca is not None:
            return lambda v: op(ca, b(v))
        if a is _identity and cb is None:
            return lambda v: op(v, b(v))
        return lambda v: op(a(v), b(v))

    def fold(v):
        out = parts[0](v)
        for p in parts[1:]:
            out = op(out, p(v))
        return out
    return fold


def _square(x):
    """x^2: x*x, clipped to [0, inf) on a ball (x*x of a ball containing 0 reaches below 0)."""
    p = x * x
    return p if _series(p) or p >= 0 else p.nonnegative_part()


def _sqrt(x):
    return x.sqrt()


def _rsqrt(x):
    return x.rsqrt()


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


