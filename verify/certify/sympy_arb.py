"""sympy -> arb: compile a sympy expression in one variable into a callable on balls / series.

A whitelist walk of the expression tree (numbers, pi, E, +, *, powers, elementary functions,
sign, Min/Max, Piecewise with three-valued conditions); never ``eval``.
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
                    return lambda v: b(v) ** n
                return lambda v: 1 / (b(v) ** (-n))
            if ex.is_Rational and ex.q == 2:
                n = int(ex.p)
                if n > 0:
                    return lambda v: b(v).sqrt() ** n
                return lambda v: b(v).rsqrt() ** (-n)
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
            return lambda v: _piecewise(branches, v)
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


def _piecewise(branches, v):
    """Union of every branch that may be active on the ball v (the first certainly-true one ends
    the scan). For arb_series arguments the active branch must be unique."""
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


