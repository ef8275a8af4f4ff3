"""Interval certificates on python-flint's arb balls: ``proved`` means *rigorously enclosed*.

Every number here is an arb ball ``[mid +/- rad]`` that is guaranteed to contain the true value
(arb's ball arithmetic is the trusted base, together with sympy's exact algebra where a Taylor
expansion is derived symbolically). Precision is a scoped resource (:func:`working_precision`);
nothing here leaves ``flint.ctx.prec`` changed.

What can be certified
---------------------
* **bounds on an interval** (:func:`prove_nonnegative`, check :func:`inequality`): ``h(s) >= 0``
  for all s in [a, b] by adaptive bisection. Each box is enclosed three ways and the enclosures are
  intersected: the natural extension ``h(X)``, the centred (mean-value) form
  ``h(c) + h'(X)(X - c)`` (``h'`` by automatic differentiation with ``arb_series`` when the
  callable supports it, see :data:`ops`), and near 0 a Taylor form with rigorous remainder
  (:class:`Taylor0`), which also closes removable singularities such as ``tanh(s)/s`` and touching
  points such as ``1 - s^2/4 - tanh(s)/s = s^2/12 + O(s^4)`` (the factor ``s^k`` is divided out, so
  a touching point at 0 is provable). An endpoint where sympy proves h = 0 exactly is closed on a
  box where h is certified monotone. Strict statements exclude s = 0 when h is undefined there
  (``tanh(s)/s < 1``), and say so in the evidence. Outcomes: ``proved``; ``refuted`` with a
  certified witness (an exact rational point, evaluated directly, whose value ball lies strictly on
  the wrong side); or ``inconclusive`` (box budget exhausted) with the unresolved sub-intervals.
  Limits: a touching point elsewhere than 0 or a sympy-exact endpoint, an identity (h = 0 on a
  whole interval), or a non-analytic touching point such as c|s|^(3/2) at 0 cannot be closed by
  balls; use sympy for those parts.
* **tails**: an interval proof covers a compact [a, b]. Rule: a check certifies exactly
  ``domain_certified`` (in its evidence). A statement on an unbounded domain is ``proved`` only when
  a tail argument is supplied (``tail=`` a :class:`~verify.claim.Check`, e.g. :func:`sympy_tail`
  or ``symbolic.truth``), and the claim takes the weaker of the two verdicts. Without a tail
  argument the summary says "on [a, b] only" and ``domain_certified`` is [a, b]; the claim author
  must then state the compact domain in the claim.
* **certified constants and roots** (:func:`enclose_root`, :func:`decide_constant`,
  :func:`validity_endpoint`): a root of a function on a bracket with a certified sign change at
  both ends and a certified sign of the derivative (uniqueness), enclosed by bisection on exact
  dyadic points; the largest interval [start, s*] on which an inequality holds, with s* enclosed
  (the inequality is proved on [start, lo] and fails at the exact point hi).
* **GD trajectory enclosures** for f(x, y) = l(xy) (:func:`enclose_limit_sharpness`): a centred
  form around an exact-midpoint reference trajectory, z_{t+1} in G(z_hat) + DG(Z)(z - z_hat), so
  the width follows the true sensitivity instead of the wrapping blow-up of naive ball iteration
  (which loses bits every step of the edge-of-stability phase, so 64-bit naive balls die within
  tens of steps; benchmark ``certify.trajectory_steps_per_second`` reports the centred form's
  ``max_radius``). The limit y_inf^2 is certified
  with D_{t+1} = (1 - eta^2 l'(s_t)^2) D_t, D = y^2 - x^2, plus a two-sided geometric tail bound
  proved by induction (see :func:`_tail_certificate`).

Example losses: ``ops.tanh`` (l_rsym' = tanh), ``lambda v: ops.tanh(v / 2) / 2`` (l_sym', curvature
1/4), ``lambda v: v * (1 + v * v).rsqrt()`` (l_sqrt'), and :func:`beta_loss` (the piecewise l_beta
family, with rigorous enclosures across the breakpoint r_beta).

Functions are Python callables on arb balls. Write them with the dual operations in :data:`ops`
(``ops.tanh(s)`` ...) so that they also accept ``arb_series`` (automatic derivatives); callables
written with arb methods (``s.tanh()``) work too, with the natural extension only (or pass the
derivative explicitly). :func:`from_sympy` turns a sympy expression in one variable into such a
callable by walking the expression tree with a whitelist of functions (no ``eval``).
"""
from __future__ import annotations

import contextlib
import math
import re
import time
from dataclasses import dataclass, field
from fractions import Fraction
from types import SimpleNamespace
from typing import Any, Callable, Iterator, Sequence

import flint
import sympy as sp
from flint import arb, arb_series, fmpq

from .bench import benchmark
from .claim import Check, Context, Evidence, Status, outcome

ArbFn = Callable[[Any], Any]

DEFAULT_PREC = 128


# --------------------------------------------------------------------------- precision

@contextlib.contextmanager
def working_precision(bits: int) -> Iterator[int]:
    """Scoped arb precision in bits (``flint.ctx.workprec``); restored on exit, even on error."""
    with flint.ctx.workprec(int(bits)):
        yield int(bits)


# --------------------------------------------------------------------------- numbers

def exact(value: Any) -> Fraction:
    """An exact rational from an int, Fraction, fmpq, sympy Rational, or a decimal/ratio string.

    Floats are read through their shortest decimal repr (``0.4`` means 2/5), because interval
    endpoints written as floats in claim files are meant as decimals.
    """
    if isinstance(value, Fraction):
        return value
    if isinstance(value, bool):
        raise TypeError("a bool is not an interval endpoint")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"endpoint {value!r} is not finite; certify a compact part and pass tail=")
        return Fraction(repr(value))
    if isinstance(value, fmpq):
        return Fraction(int(value.p), int(value.q))
    if isinstance(value, str):
        return Fraction(value.strip())
    if isinstance(value, sp.Basic):
        value = sp.nsimplify(value) if isinstance(value, sp.Float) else value
        if isinstance(value, sp.Rational):
            return Fraction(int(value.p), int(value.q))
    raise TypeError(f"cannot read {value!r} as an exact rational; use an int, Fraction or 'p/q' string")


def ball(value: Any) -> arb:
    """An arb ball containing ``value`` at the current precision.

    Accepts arb, ints, Fractions/fmpq, decimal strings, floats (read as decimals), closed sympy
    expressions (converted by :func:`from_sympy`), and zero-argument callables returning one of these.
    """
    if isinstance(value, arb):
        return value
    if isinstance(value, (int, Fraction, fmpq, float, str)) and not isinstance(value, bool):
        q = exact(value)
        return arb(fmpq(q.numerator, q.denominator))
    if isinstance(value, sp.Basic):
        return from_sympy(value)(None)
    if callable(value):
        return ball(value())
    raise TypeError(f"cannot enclose {value!r} in an arb ball")


def _q2arb(q: Fraction) -> arb:
    return arb(fmpq(q.numerator, q.denominator))


def _box(lo: Fraction, hi: Fraction) -> arb:
    """A ball containing the whole closed interval [lo, hi].

    The union of the endpoint balls, clipped to [0, oo) when lo >= 0 (and to (-oo, 0] when
    hi <= 0), so that a box starting at 0 does not poke below 0 through outward rounding (sqrt,
    fractional powers stay defined there).
    """
    b = _q2arb(lo).union(_q2arb(hi))
    if lo >= 0:
        return b.nonnegative_part()
    if hi <= 0:
        return -((-b).nonnegative_part())
    return b


def _f(x: arb) -> float:
    return float(x.mid())


def _bounds(x: arb) -> list[float]:
    """[lower, upper] of a ball, rounded outward to float, for evidence data."""
    if not x.is_finite():
        return ["-inf", "inf"]
    if x.is_zero():
        return [0.0, 0.0]
    lo, hi = float(x.lower()), float(x.upper())
    return [math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)]


def _qstr(q: Fraction) -> str:
    return str(q)


# --------------------------------------------------------------------------- dual operations

def _series(v: Any) -> bool:
    return isinstance(v, arb_series)


def _tanh(v):
    if _series(v):  # arb_series has no tanh: tanh v = 1 - 2/(exp(2v) + 1)
        return 1 - 2 / ((2 * v).exp() + 1)
    return v.tanh()


def _sinh(v):
    if _series(v):
        e = v.exp()
        return (e - 1 / e) / 2
    return v.sinh()


def _cosh(v):
    if _series(v):
        e = v.exp()
        return (e + 1 / e) / 2
    return v.cosh()


def _sech(v):
    return 1 / _cosh(v) if _series(v) else v.sech()


def _coth(v):
    return _cosh(v) / _sinh(v) if _series(v) else v.coth()


def _atanh(v):
    return ((1 + v) / (1 - v)).log() / 2 if _series(v) else v.atanh()


def _asinh(v):
    return (v + (v * v + 1).sqrt()).log() if _series(v) else v.asinh()


def _acosh(v):
    return (v + (v * v - 1).sqrt()).log() if _series(v) else v.acosh()


def _csch(v):
    return 1 / _sinh(v) if _series(v) else v.csch()


def _sec(v):
    return 1 / v.cos() if _series(v) else v.sec()


def _csc(v):
    return 1 / v.sin() if _series(v) else v.csc()


def _cot(v):
    return v.cos() / v.sin() if _series(v) else v.cot()


def _log1p(v):
    return (1 + v).log() if _series(v) else v.log1p()


def _abs(v):
    if _series(v):
        raise TypeError("|.| has no Taylor series; the natural extension is used instead")
    return abs(v)


def _normal_pdf(v):
    return (-(v * v) / 2).exp() / (2 * arb.pi()).sqrt()


def _normal_cdf(v):
    return (-v / arb(2).sqrt()).erfc() / 2


ops = SimpleNamespace(
    exp=lambda v: v.exp(), log=lambda v: v.log(), sqrt=lambda v: v.sqrt(), rsqrt=lambda v: v.rsqrt(),
    tanh=_tanh, sinh=_sinh, cosh=_cosh, sech=_sech, csch=_csch, coth=_coth, atanh=_atanh,
    asinh=_asinh, acosh=_acosh, log1p=_log1p, abs=_abs,
    sin=lambda v: v.sin(), cos=lambda v: v.cos(), tan=lambda v: v.tan(), sec=_sec, csc=_csc, cot=_cot,
    asin=lambda v: v.asin(), acos=lambda v: v.acos(), atan=lambda v: v.atan(),
    erf=lambda v: v.erf(), erfc=lambda v: v.erfc(),
    normal_pdf=_normal_pdf, normal_cdf=_normal_cdf,
    num=lambda n: arb(n),
)
"""Operations that work on ``arb`` *and* ``arb_series`` (so a callable written with them gets
rigorous derivatives by automatic differentiation). ``normal_pdf``/``normal_cdf`` are phi and Phi;
``num(n)`` makes an exact integer ball (so ``num(1) / num(4)`` is 1/4 rounded outward)."""


class NoSeries(TypeError):
    """The callable cannot be evaluated on arb_series (it uses |.| or an arb-only method)."""


def derivative_enclosure(f: ArbFn, X: arb) -> tuple[arb, arb] | None:
    """(f(X), f'(X)) by evaluating ``f`` on the series X + t.

    Raises :class:`NoSeries` if ``f`` cannot take series at all; returns None if the result is not
    finite on this ball (e.g. a removable singularity inside X).
    """
    try:
        out = f(arb_series([X, 1], prec=2))
    except (TypeError, AttributeError) as exc:
        raise NoSeries(str(exc)) from None
    except (ValueError, ZeroDivisionError):
        return None
    if not isinstance(out, arb_series):
        if isinstance(out, (arb, int, Fraction, fmpq)):
            return ball(out), arb(0)  # a constant
        raise NoSeries(f"f returned {type(out).__name__} for a series argument")
    c = out.coeffs()
    c += [arb(0)] * (2 - len(c))
    if not (c[0].is_finite() and c[1].is_finite()):
        return None
    return c[0], c[1]


def supports_series(f: ArbFn) -> bool:
    try:
        derivative_enclosure(f, arb(fmpq(1, 3)))
        return True
    except NoSeries:
        return False


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


# --------------------------------------------------------------------------- bounds on an interval

@dataclass(frozen=True)
class BoundResult:
    status: Status
    lo: Fraction
    hi: Fraction
    prec: int
    boxes: int
    max_depth: int
    strict: bool
    witness: Fraction | None = None
    witness_value: arb | None = None
    unresolved: tuple = ()
    unresolved_count: int = 0
    taylor: Taylor0 | None = None
    boxes_by_method: dict = field(default_factory=dict)
    min_lower: float | None = None
    excluded_zero: bool = False

    def data(self) -> dict:
        d = {"interval": [_qstr(self.lo), _qstr(self.hi)], "prec_bits": self.prec,
             "boxes": self.boxes, "max_depth": self.max_depth, "strict": self.strict,
             "boxes_by_method": dict(self.boxes_by_method)}
        if self.witness is not None:
            d["witness"] = _qstr(self.witness)
            d["witness_float"] = float(self.witness)
            d["witness_value"] = _bounds(self.witness_value)
        if self.unresolved_count:
            d["unresolved"] = [[_qstr(a), _qstr(b)] for a, b in self.unresolved]
            d["unresolved_count"] = self.unresolved_count
        if self.taylor is not None:
            d["taylor_at_0"] = self.taylor.describe()
        if self.min_lower is not None:
            d["min_certified_lower_bound"] = self.min_lower
        if self.excluded_zero:
            d["excluded"] = "s = 0 (removable singularity: the statement is about s != 0)"
        return d


def _enclose(h: ArbFn, lo: Fraction, hi: Fraction, taylor: Taylor0 | None,
             derivative: ArbFn | None, use_series: bool,
             zeros: frozenset = frozenset()) -> tuple[arb | None, str, int, arb | None]:
    """Best enclosure of h on [lo, hi] and the method; also the power k of s divided out (Taylor).

    Returns (enclosure of h(s)/s^k, method, k, lower bound); k > 0 only for the Taylor form around
    0. The lower bound is exact (not rounded through a union) when h is certified monotone.
    """
    X = _box(lo, hi)
    if taylor is not None and -taylor.radius <= lo and hi <= taylor.radius:
        k = taylor.leading()
        if k % 2 == 1 and lo < 0 < hi:
            k = 0  # an odd power changes sign inside: use the plain Taylor enclosure
        q = taylor.quotient(X, k)
        if k % 2 == 1 and hi <= 0:
            q = -q  # s^k <= 0 on this box: the sign of h is that of -q
        return q, "taylor", k, q.lower()
    best = None
    exact_low = None
    method = "natural"
    try:
        nat = h(X)
        if isinstance(nat, arb) and nat.is_finite():
            best = nat
    except (ZeroDivisionError, ValueError):
        pass
    d = None
    if derivative is not None:
        try:
            d = derivative(X)
        except (ZeroDivisionError, ValueError):
            d = None
    elif use_series:
        pair = derivative_enclosure(h, X)
        d = pair[1] if pair is not None else None
    if d is not None and isinstance(d, arb) and d.is_finite():
        if d > 0 or d < 0:  # monotone on the box: the hull of the endpoint values is exact-ish
            # endpoint values; an endpoint where h is exactly 0 (sympy) contributes exactly 0
            a = arb(0) if lo in zeros else h(_q2arb(lo))
            b = arb(0) if hi in zeros else h(_q2arb(hi))
            mv = a.union(b)
            exact_low = a.lower().min(b.lower())
            method = "monotone"
        else:
            c = (lo + hi) / 2
            mv = h(_q2arb(c)) + d * (X - _q2arb(c))
            method = "mean-value"
        if mv.is_finite():
            best = mv if best is None else (best.intersection(mv) if best.overlaps(mv) else mv)
        elif exact_low is not None:
            exact_low = None
    if best is None:
        return None, method, 0, None
    low = exact_low if exact_low is not None else best.lower()
    return best, method, 0, low


def _point_value(h: ArbFn, s: Fraction, taylor: Taylor0 | None) -> arb | None:
    """h at an exact point, evaluated directly (never through the Taylor form: a witness must be a
    point where the statement itself is evaluated; None where h is undefined, e.g. 0/0)."""
    try:
        v = h(_q2arb(s))
    except (ZeroDivisionError, ValueError):
        return None
    return v if isinstance(v, arb) and v.is_finite() else None


def prove_nonnegative(h: ArbFn, lo: Any, hi: Any, *, strict: bool = False, taylor: Taylor0 | None = None,
                      derivative: ArbFn | None = None, prec: int = DEFAULT_PREC,
                      max_boxes: int = 20000, max_depth: int = 60,
                      use_series: bool | None = None, zeros: Sequence[Any] = ()) -> BoundResult:
    """Certify h(s) >= 0 (``strict``: > 0) for every s in [lo, hi] by adaptive bisection.

    Boxes are processed depth-first, left to right (deterministic). A box is closed when the
    enclosure's lower end is >= 0 (> 0 if strict). An undecided box is evaluated at its exact
    midpoint: a value ball strictly below 0 (<= 0 if strict) is a certified counterexample.
    ``zeros``: points where h is known to vanish exactly (e.g. by sympy); on a box where h is
    certified monotone, such an endpoint contributes the exact value 0 (touching endpoints).
    """
    zset = frozenset(exact(z) for z in zeros)
    a, b = exact(lo), exact(hi)
    if not a <= b:
        raise ValueError(f"empty interval [{a}, {b}]")
    with working_precision(prec):
        if strict:
            for z in sorted(zset):
                if a <= z <= b:  # h(z) = 0 exactly (sympy): the strict statement fails there
                    return BoundResult(Status.REFUTED, a, b, prec, 0, 0, strict, z, arb(0), taylor=taylor)
        if derivative is None and use_series is None:
            use_series = supports_series(h)
        stack = [(a, b, 0)]
        boxes = deepest = 0
        by_method: dict[str, int] = {}
        unresolved: list[tuple[Fraction, Fraction]] = []
        min_lower = None
        excluded_zero = False
        while stack:
            l, r, depth = stack.pop()
            boxes += 1
            deepest = max(deepest, depth)
            enc, method, k, low = _enclose(h, l, r, taylor, derivative, use_series, zset)
            ok = enc is not None and (low > 0 if (strict and (k == 0 or not (l <= 0 <= r))) else low >= 0)
            if strict and k > 0 and l <= 0 <= r and enc is not None:
                # h = s^k q with q > 0: h > 0 for s != 0; at s = 0 itself h is 0 or undefined
                ok = bool(low > 0)
                if ok:
                    v0 = _point_value(h, Fraction(0), None)
                    if v0 is not None and v0 <= 0:
                        return BoundResult(Status.REFUTED, a, b, prec, boxes, deepest, strict, Fraction(0), v0,
                                           taylor=taylor, boxes_by_method=by_method)
                    if v0 is None:
                        excluded_zero = True  # removable singularity: the statement is about s != 0
                    else:
                        ok = False
            if ok:
                by_method[method] = by_method.get(method, 0) + 1
                lowf = float(low) if k == 0 else None
                if lowf is not None:
                    min_lower = lowf if min_lower is None else min(min_lower, lowf)
                continue
            points = [(l + r) / 2] if l != r else [l]
            if enc is not None and (enc < 0 if not strict else enc <= 0):
                points = points + [l, r]  # the whole box is on the wrong side
            for p in points:
                if p in zset and not strict:
                    continue
                v = _point_value(h, p, taylor)
                if v is not None and (v < 0 if not strict else v <= 0):
                    return BoundResult(Status.REFUTED, a, b, prec, boxes, deepest, strict, p, v,
                                       taylor=taylor, boxes_by_method=by_method)
            if depth >= max_depth or boxes + len(stack) >= max_boxes:
                unresolved.append((l, r))
                if boxes + len(stack) >= max_boxes:
                    unresolved.extend((x, y) for x, y, _ in reversed(stack))
                    break
                continue
            m = (l + r) / 2
            stack.append((m, r, depth + 1))
            stack.append((l, m, depth + 1))
        if unresolved:
            return BoundResult(Status.INCONCLUSIVE, a, b, prec, boxes, deepest, strict,
                               unresolved=tuple(unresolved[:10]), unresolved_count=len(unresolved),
                               taylor=taylor, boxes_by_method=by_method)
        return BoundResult(Status.PROVED, a, b, prec, boxes, deepest, strict, taylor=taylor,
                           boxes_by_method=by_method, min_lower=min_lower, excluded_zero=excluded_zero)


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
    from .symbolic import BudgetExceeded, is_zero
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
    from .symbolic import BudgetExceeded, time_budget

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


# --------------------------------------------------------------------------- constants

_REL = re.compile(r"^\s*(<=|>=|<|>)\s*(.+?)\s*$")


def _parse_claim(claim: str) -> tuple[str, Fraction]:
    m = _REL.match(claim)
    if not m:
        raise ValueError(f"claim {claim!r} must look like '< -0.087' or '>= 1/200'")
    return m.group(1), exact(m.group(2))


def _decide(x: arb, rel: str, c: arb) -> bool | None:
    """True / False when certified, None when the ball straddles c."""
    yes = {"<": x < c, "<=": x <= c, ">": x > c, ">=": x >= c}[rel]
    no = {"<": x >= c, "<=": x > c, ">": x <= c, ">=": x < c}[rel]
    return True if yes else (False if no else None)


def decide_constant(value: Any, rel: str, threshold: Any, precs: Sequence[int] = (64, 128, 256, 1024)):
    """Decide ``value rel threshold`` at increasing precision; returns (verdict, ball, prec)."""
    x = None
    for p in precs:
        with working_precision(p):
            x = ball(value)
            c = ball(threshold)
            d = _decide(x, rel, c)
        if d is not None:
            return d, x, p
    return None, x, precs[-1]


def constant(name: str, value: Any, claim: str, *, kind: str = "CERT", why: str = "") -> Check:
    """A certified numeric fact about a closed-form constant, e.g. ``constant("g(-1)", g_expr, "> 0.08")``.

    ``value``: a closed sympy expression, a zero-argument arb callable, or a number.
    """
    rel, c = _parse_claim(claim)

    def run(ctx: Context) -> Evidence:
        d, x, p = decide_constant(value, rel, c)
        shown = sp.sstr(value) if isinstance(value, sp.Basic) else getattr(value, "__name__", str(value))
        with working_precision(p):
            margin = x - _q2arb(c)
        data = {"value": _bounds(x), "value_mid": _f(x), "width": float(2 * x.rad()),
                "threshold": _qstr(c), "relation": rel,
                "prec_bits": p, "margin_value_minus_threshold": _bounds(margin), "why": why}
        if d is True:
            return outcome(Status.PROVED, f"{shown} in [{_bounds(x)[0]:.10g}, {_bounds(x)[1]:.10g}] "
                           f"{rel} {c} (certified, {p} bits; margin {_f(margin):.3e})", **data)
        if d is False:
            return outcome(Status.REFUTED, f"{shown} in [{_bounds(x)[0]:.10g}, {_bounds(x)[1]:.10g}]: "
                           f"'{rel} {c}' is false (certified, {p} bits)", **data)
        return outcome(Status.INCONCLUSIVE, f"{shown} ~ {_f(x):.10g} too close to {c} to decide at {p} bits",
                       **data)

    return Check(name, run, kind)


# --------------------------------------------------------------------------- roots

@dataclass(frozen=True)
class RootResult:
    ok: bool
    reason: str
    lo: Fraction
    hi: Fraction
    enclosure: arb | None
    prec: int
    bisections: int
    monotone_boxes: int
    direction: int  # +1 increasing, -1 decreasing

    def data(self) -> dict:
        d = {"bracket": [_qstr(self.lo), _qstr(self.hi)], "prec_bits": self.prec,
             "bisections": self.bisections, "monotonicity_boxes": self.monotone_boxes,
             "direction": "increasing" if self.direction > 0 else "decreasing"}
        if self.enclosure is not None:
            d["root"] = _bounds(self.enclosure)
            d["root_mid"] = _f(self.enclosure)
            d["width"] = float(2 * self.enclosure.rad())
        if not self.ok:
            d["reason"] = self.reason
        return d


def enclose_root(f: ArbFn, lo: Any, hi: Any, *, derivative: ArbFn | None = None,
                 prec: int = DEFAULT_PREC, tol: float = 1e-30, max_bisections: int = 400) -> RootResult:
    """Enclose the unique root of ``f`` in [lo, hi].

    Certifies (1) opposite signs of f at the two exact endpoints and (2) a strict sign of f' on
    the whole bracket (adaptive bisection on f', derivative by arb_series or ``derivative=``), so the
    root exists and is unique; then bisects on exact dyadic points until the bracket is narrower
    than ``tol`` or the sign at the midpoint is undecidable at this precision.
    """
    a, b = exact(lo), exact(hi)
    with working_precision(prec):
        fa, fb = f(_q2arb(a)), f(_q2arb(b))
        if fa < 0 and fb > 0:
            direction = 1
        elif fa > 0 and fb < 0:
            direction = -1
        else:
            return RootResult(False, f"no certified sign change: f(lo) ~ {_f(fa):.3g}, f(hi) ~ {_f(fb):.3g}",
                              a, b, None, prec, 0, 0, 0)
        if derivative is None:
            if not supports_series(f):
                return RootResult(False, "f cannot be differentiated with arb_series; pass derivative=",
                                  a, b, None, prec, 0, 0, direction)
            def dfun(X: arb) -> arb:
                # no finite derivative enclosure on this box: an unbounded ball, so the box is
                # bisected further (or left unresolved) instead of crashing
                pair = derivative_enclosure(f, X)
                return arb(0, math.inf) if pair is None else pair[1]
        else:
            dfun = derivative
        mono = prove_nonnegative(lambda X: direction * dfun(X), a, b, strict=True, prec=prec,
                                 use_series=False)
        if mono.status != Status.PROVED:
            return RootResult(False, f"monotonicity not certified ({mono.status}) on the bracket",
                              a, b, None, prec, 0, mono.boxes, direction)
        l, r = a, b
        n = 0
        while n < max_bisections and float(r - l) > tol:
            m = _dyadic_between(l, r)  # short dyadic near the midpoint: exact in arb
            fm = f(_q2arb(m))
            if direction * fm < 0:
                l = m
            elif direction * fm > 0:
                r = m
            else:
                break
            n += 1
        enc = _box(l, r)
    return RootResult(True, "", a, b, enc, prec, n, mono.boxes, direction)


def _dyadic_between(l: Fraction, r: Fraction) -> Fraction:
    """A dyadic rational in (l, r) close to the midpoint (exact in arb, short to print)."""
    w = r - l
    k = max(0, -math.floor(math.log2(float(w))) + 2)
    m = (l + r) / 2
    d = Fraction(round(m * 2 ** k), 2 ** k)
    return d if l < d < r else m


def root_bound(name: str, f: Any, bracket: tuple[Any, Any], claim: str, *, var: sp.Symbol | None = None,
               derivative: ArbFn | None = None, prec: int = DEFAULT_PREC, kind: str = "CERT",
               why: str = "") -> Check:
    """The unique root of ``f`` in ``bracket`` satisfies ``claim`` (e.g. ``"< -0.087"``).

    ``f``: sympy expression in one variable or an arb callable. Evidence: the certified enclosure,
    its width, and the certified margin (threshold - root for '<', root - threshold for '>').
    """
    rel, c = _parse_claim(claim)

    def run(ctx: Context) -> Evidence:
        v = var if var is not None else _var_of(f)
        fn = _as_callable(f, v)
        res = enclose_root(fn, bracket[0], bracket[1], derivative=derivative, prec=prec)
        data = {**res.data(), "threshold": _qstr(c), "relation": rel, "why": why}
        if not res.ok:
            return outcome(Status.INCONCLUSIVE, f"root not certified: {res.reason}", **data)
        with working_precision(prec):
            cq = _q2arb(c)
            d = _decide(res.enclosure, rel, cq)
            margin = (cq - res.enclosure) if rel.startswith("<") else (res.enclosure - cq)
        data["margin"] = _bounds(margin)
        data["margin_mid"] = _f(margin)
        enc = _bounds(res.enclosure)
        shown = f"root in [{enc[0]:.12g}, {enc[1]:.12g}] (width {data['width']:.1e}, {prec} bits)"
        if d is True:
            return outcome(Status.PROVED, f"{shown} {rel} {c}; certified margin {_f(margin):.4e}", **data)
        if d is False:
            return outcome(Status.REFUTED, f"{shown}: '{rel} {c}' is false (certified enclosure "
                           f"is the witness; margin {_f(margin):.4e})", **data)
        return outcome(Status.INCONCLUSIVE, f"{shown} straddles {c}", **data)

    return Check(name, run, kind)


# --------------------------------------------------------------------------- largest valid interval

@dataclass(frozen=True)
class EndpointResult:
    status: Status
    start: Fraction
    lo: Fraction | None
    hi: Fraction | None
    bound: BoundResult | None
    fail_value: arb | None
    reason: str = ""

    def data(self) -> dict:
        d = {"start": _qstr(self.start), "reason": self.reason}
        if self.lo is not None:
            d["endpoint"] = [float(self.lo), float(self.hi)]
            d["endpoint_exact"] = [_qstr(self.lo), _qstr(self.hi)]
            d["width"] = float(self.hi - self.lo)
        if self.fail_value is not None:
            d["value_at_hi"] = _bounds(self.fail_value)
        if self.bound is not None:
            d["proof_on_[start,lo]"] = self.bound.data()
        return d


def validity_endpoint(h: ArbFn, start: Any, beyond: Any, *, taylor: Taylor0 | None = None,
                      prec: int = DEFAULT_PREC, tol: float = 1e-12, max_boxes: int = 20000) -> EndpointResult:
    """Enclose s* = sup{s : h >= 0 on [start, s]} (or inf when ``beyond < start``).

    Needs h(beyond) < 0 certified. Bisection on exact dyadic points between start and beyond finds
    lo (h(lo) > 0) and hi (h(hi) < 0, certified) with |hi - lo| <= tol; then h >= 0 is proved on
    [start, lo] with :func:`prove_nonnegative`. Result: s* in [lo, hi], both ends certified.
    """
    a, e = exact(start), exact(beyond)
    sgn = 1 if e > a else -1
    with working_precision(prec):
        fe = _point_value(h, e, taylor)
        if fe is None or not fe < 0:
            return EndpointResult(Status.INCONCLUSIVE, a, None, None, None, fe,
                                  f"h(beyond={e}) < 0 is not certified")
        l, r = a, e  # invariant: h(r) < 0 certified
        while abs(float(r - l)) > tol:
            m = _dyadic_between(min(l, r), max(l, r))
            v = _point_value(h, m, taylor)
            if v is not None and v < 0:
                r = m
            elif v is not None and v > 0:
                l = m
            else:
                break
        fr = _point_value(h, r, taylor)
    lo_, hi_ = (l, r)
    bound = prove_nonnegative(h, min(a, lo_), max(a, lo_), taylor=taylor, prec=prec, max_boxes=max_boxes)
    if bound.status != Status.PROVED:
        return EndpointResult(bound.status if bound.status == Status.REFUTED else Status.INCONCLUSIVE,
                              a, lo_, hi_, bound, fr, "h >= 0 not proved on [start, lo]")
    if sgn < 0:
        lo_, hi_ = hi_, lo_
    return EndpointResult(Status.PROVED, a, lo_, hi_, bound, fr)


def validity_range(name: str, lhs: Any, rhs: Any, start: Any, beyond: Any, *, var: sp.Symbol | None = None,
                   claim: str | None = None, prec: int = DEFAULT_PREC, tol: float = 1e-12,
                   taylor: Taylor0 | None = None, kind: str = "CERT", why: str = "") -> Check:
    """The largest interval from ``start`` towards ``beyond`` on which ``lhs <= rhs`` holds:
    its endpoint s* is enclosed in [lo, hi] (proved on [start, lo], certified to fail at hi).
    Optional ``claim`` about s* (e.g. ``">= 1/4"``) is decided on the enclosure.
    """

    def run(ctx: Context) -> Evidence:
        v = var if var is not None else _var_of(lhs, rhs)
        h, expr = _difference(lhs, rhs, v)
        a, e = exact(start), exact(beyond)
        t = taylor if taylor is not None else _auto_taylor(expr, v, min(a, e), max(a, e), prec, None, 8)
        res = validity_endpoint(h, a, e, taylor=t, prec=prec, tol=tol)
        stmt = _claim_text(lhs, rhs, "<=")
        data = {"statement": stmt, "prec_bits": prec, **res.data(), "why": why}
        if res.status != Status.PROVED:
            return outcome(res.status, f"endpoint of validity of {stmt} not certified: {res.reason}", **data)
        lo_, hi_ = sorted((res.lo, res.hi))
        summary = (f"{stmt} holds on [{a}, {float(res.lo):.12g}] and fails at {float(res.hi):.12g}: "
                   f"endpoint s* in [{float(lo_):.12g}, {float(hi_):.12g}] ({res.bound.boxes} boxes, {prec} bits)")
        if claim is None:
            return outcome(Status.PROVED, summary, **data)
        rel, c = _parse_claim(claim)
        with working_precision(prec):
            d = _decide(_box(lo_, hi_), rel, _q2arb(c))
        data["claim"] = claim
        if d is True:
            return outcome(Status.PROVED, summary + f"; s* {rel} {c}", **data)
        if d is False:
            return outcome(Status.REFUTED, summary + f"; 's* {rel} {c}' is false", **data)
        return outcome(Status.INCONCLUSIVE, summary + f"; undecided against {c}", **data)

    return Check(name, run, kind)


# --------------------------------------------------------------------------- GD trajectory enclosures

EOS = "2/eta"  # sentinel for limit_sharpness bounds: the edge-of-stability value 2/eta


@dataclass(frozen=True)
class SharpnessResult:
    ok: bool
    reason: str
    eta: arb
    y_inf_sq: arb | None
    steps: int
    prec: int
    x_T: arb | None = None
    D_T: arb | None = None
    tail_sum: tuple | None = None
    rho: tuple | None = None
    max_traj_width: float = 0.0
    y_sq_at_T: arb | None = None

    def data(self) -> dict:
        d = {"eta": _f(self.eta), "steps": self.steps, "prec_bits": self.prec,
             "max_trajectory_radius": self.max_traj_width,
             "method": "centred form around exact-midpoint reference; D_{t+1} = (1 - eta^2 l'(s_t)^2) D_t; "
                       "geometric tail bound by induction"}
        if self.y_inf_sq is not None:
            d["y_inf_sq"] = _bounds(self.y_inf_sq)
            d["y_inf_sq_mid"] = _f(self.y_inf_sq)
            d["width"] = float(self.y_inf_sq.upper() - self.y_inf_sq.lower())
        if self.x_T is not None:
            d["abs_x_T_upper"] = float(abs(self.x_T).upper())
            d["D_T"] = _bounds(self.D_T)
        if self.tail_sum is not None:
            d["tail_sum"] = [float(self.tail_sum[0]), float(self.tail_sum[1])]
            d["contraction"] = [float(self.rho[0]), float(self.rho[1])]
        if not self.ok:
            d["reason"] = self.reason
        return d


def _derivs(dloss: ArbFn, d2loss: ArbFn | None) -> Callable[[arb], tuple[arb, arb]]:
    if d2loss is not None:
        return lambda S: (dloss(S), d2loss(S))

    if not supports_series(dloss):
        raise ValueError("dloss cannot take arb_series; write it with verify.certify.ops or pass d2loss=")

    def both(S):
        pair = derivative_enclosure(dloss, S)
        if pair is None:
            return dloss(S), arb.nan()  # not finite: callers treat it as failure
        return pair
    return both


def _tail_certificate(eta: arb, x: arb, y: arb, derivs, dloss) -> tuple | None:
    """Two-sided bound on sum_{t>=T} eta^2 l'(s_t)^2 from the state (x, y) = (x_T, y_T).

    With r_t := l'(s_t)/s_t (in l''([-S, S]) by the mean value theorem, since l'(0) = 0):
        x_{t+1} = x_t (1 - eta r_t y_t^2),   y_{t+1} = y_t (1 - eta r_t x_t^2)   (exact).
    Induction hypothesis for t >= T: |y_t| in [ylo, yhi], so |1 - eta r_t y_t^2| in [rho_lo, rho_hi];
    hence |x_t| <= |x_T| rho_hi^(t-T), |s_t| <= S := |x_T| yhi, and
    |y_{t+1}| >= |y_T| (1 - eta r_hi |x_T|^2 / (1 - rho_hi^2)) =: ylo' ; the induction closes when
    ylo' >= ylo. Then sum a_t with a_t = eta^2 r_t^2 x_t^2 y_t^2 lies in
    [eta^2 r_lo^2 ylo^2 |x_T|_lo^2/(1 - rho_lo^2), eta^2 r_hi^2 yhi^2 |x_T|_hi^2/(1 - rho_hi^2)].
    Returns (A_lo, A_hi, rho_lo, rho_hi) or None when the hypotheses cannot be certified.
    """
    ax, ay = abs(x), abs(y)
    xi = ax.upper()
    xi_lo = ax.lower()
    yhi = ay.upper()
    yT_lo = ay.lower()
    if not (yT_lo > 0):
        return None
    S = xi * yhi
    Sbox = (-S).union(S)
    _, d2 = derivs(Sbox)
    if not d2.is_finite() or not d2 > 0:
        return None
    r_lo, r_hi = d2.lower(), d2.upper()
    theta = arb(0)
    for _ in range(6):
        ylo = yT_lo * (1 - theta)
        if not ylo > 0:
            return None
        m_hi = 1 - eta * r_lo * ylo * ylo   # largest multiplier 1 - eta r y^2
        m_lo = 1 - eta * r_hi * yhi * yhi   # smallest
        rho_hi = arb(max(abs(m_hi).upper(), abs(m_lo).upper()))
        if not rho_hi < 1:
            return None
        if m_lo > 0 or m_hi < 0:
            rho_lo = arb(min(abs(m_hi).lower(), abs(m_lo).lower()))
        else:
            rho_lo = arb(0)
        need = eta * r_hi * xi * xi / (1 - rho_hi * rho_hi)
        if not need < 1:
            return None
        if need <= theta:
            A_hi = eta * eta * r_hi * r_hi * yhi * yhi * xi * xi / (1 - rho_hi * rho_hi)
            A_lo = eta * eta * r_lo * r_lo * ylo * ylo * xi_lo * xi_lo / (1 - rho_lo * rho_lo)
            if not A_hi < 1:
                return None
            return A_lo.lower(), A_hi.upper(), rho_lo, rho_hi
        theta = 2 * need.upper()
    return None


def enclose_limit_sharpness(dloss: ArbFn, eta: Any, x0: Any, y0: Any, *, d2loss: ArbFn | None = None,
                            prec: int = 64, max_steps: int = 2_000_000, check_every: int = 500,
                            rel_width: float = 1e-3, x_small: float = 0.05) -> SharpnessResult:
    """Cached front end of :func:`_enclose_limit_sharpness` (same arguments) when all are hashable."""
    key = (dloss, _hkey(eta), _hkey(x0), _hkey(y0), d2loss, prec, max_steps, check_every, rel_width, x_small)
    try:
        hash(key)
    except TypeError:
        key = None
    if key is not None and key in _SHARPNESS_CACHE:
        return _SHARPNESS_CACHE[key]
    res = _enclose_limit_sharpness(dloss, eta, x0, y0, d2loss=d2loss, prec=prec, max_steps=max_steps,
                                   check_every=check_every, rel_width=rel_width, x_small=x_small)
    if key is not None:
        if len(_SHARPNESS_CACHE) > 64:
            _SHARPNESS_CACHE.clear()
        _SHARPNESS_CACHE[key] = res
    return res


_SHARPNESS_CACHE: dict = {}


def _hkey(v: Any) -> Any:
    """Hashable key for a number-like input (floats and strings by their exact rational)."""
    if isinstance(v, (float, str, int, fmpq)) and not isinstance(v, bool):
        try:
            return exact(v)
        except (TypeError, ValueError):
            return v
    return v


def _enclose_limit_sharpness(dloss: ArbFn, eta: Any, x0: Any, y0: Any, *, d2loss: ArbFn | None = None,
                             prec: int = 64, max_steps: int = 2_000_000, check_every: int = 500,
                             rel_width: float = 1e-3, x_small: float = 0.05) -> SharpnessResult:
    """Certified enclosure of y_inf^2 = lim y_t^2 for GD on f(x, y) = l(xy) from (x0, y0).

    The state is kept as an exact reference z_hat plus an error ball; one step is
    z_{t+1} in G(z_hat) + DG(Z) (z - z_hat) (mean-value form, DG over the current box Z, needing
    l'' = ``d2loss`` or automatic differentiation of ``dloss``), then re-centred. Every
    ``check_every`` steps, once |x_t| <= x_small * |y_t|, a tail certificate is attempted; it is
    accepted when the enclosure width is <= rel_width * |2/eta - y_inf^2| (or at the last step).
    Requires l'(0) = 0 and l'' > 0 near 0.
    """
    derivs = _derivs(dloss, d2loss)
    with working_precision(prec):
        e = ball(eta)
        X, Y = ball(x0), ball(y0)
        zero = dloss(arb(0))
        if not (isinstance(zero, arb) and zero.is_zero()):
            return SharpnessResult(False, "l'(0) = 0 is not certified exactly", e, None, 0, prec)
        two_over_eta = 2 / e
        xh, yh = X.mid(), Y.mid()
        dx, dy = X - xh, Y - yh
        best = None
        maxw = 0.0
        one = arb(1)
        for t in range(max_steps + 1):
            if t % check_every == 0 or t == max_steps:
                Xb, Yb = xh + dx, yh + dy
                if not (Xb.is_finite() and Yb.is_finite()):
                    return SharpnessResult(False, f"enclosure lost at step {t}", e, None, t, prec)
                maxw = max(maxw, float(dx.rad()), float(dy.rad()))
                if abs(Xb).upper() <= x_small * abs(Yb).lower():
                    tail = _tail_certificate(e, Xb, Yb, derivs, dloss)
                    if tail is not None:
                        A_lo, A_hi, rho_lo, rho_hi = tail
                        D = Yb * Yb - Xb * Xb
                        if not D > 0:
                            break_reason = f"D_T = y_T^2 - x_T^2 not certified positive at step {t}"
                            return SharpnessResult(False, break_reason, e, None, t, prec, max_traj_width=maxw)
                        lo = D.lower() * (1 - A_hi)
                        hi = D.upper() * (-A_lo).exp()
                        enc = lo.union(hi)
                        best = SharpnessResult(True, "", e, enc, t, prec, Xb, D, (A_lo, A_hi),
                                               (rho_lo, rho_hi), maxw, Yb * Yb)
                        width = float(enc.upper() - enc.lower())
                        gap = abs(float((two_over_eta - enc).mid()))
                        if width <= rel_width * gap:
                            return best
            if t == max_steps:
                break
            # point image of the exact reference
            s = xh * yh
            g = e * dloss(s)
            px, py = xh - g * yh, yh - g * xh
            # Jacobian of G over the box
            Xb, Yb = xh + dx, yh + dy
            S = Xb * Yb
            d1, d2 = derivs(S)
            a = e * d2
            j11 = one - a * Yb * Yb
            j22 = one - a * Xb * Xb
            j12 = -e * (d1 + d2 * S)
            nx, ny = px.mid(), py.mid()
            dx, dy = (px - nx) + j11 * dx + j12 * dy, (py - ny) + j12 * dx + j22 * dy
            xh, yh = nx, ny
        if best is not None:
            return best
        return SharpnessResult(False, f"no tail certificate within {max_steps} steps", e, None, max_steps, prec,
                               max_traj_width=maxw)


def limit_sharpness(name: str, dloss: ArbFn, eta: Any, x0: Any, y0: Any, *, d2loss: ArbFn | None = None,
                    curvature: Any = 1, upper: Any = EOS, lower: Any = None, prec: int = 64,
                    max_steps: int = 2_000_000, rel_width: float = 1e-3, kind: str = "CERT",
                    why: str = "") -> Check:
    """Certified limiting sharpness of GD on l(xy): encloses y_inf^2 and decides
    ``lower < curvature * y_inf^2 < upper`` (``upper`` defaults to 2/eta; either may be None;
    ``EOS`` means 2/eta; numbers, sympy numbers or callables eta -> value are accepted).
    ``curvature`` = l''(0), so that the sharpness at (0, y) is l''(0) y^2.
    """

    def resolve(bound, e):
        if bound is None:
            return None
        if isinstance(bound, str) and bound == EOS:
            return 2 / e
        if callable(bound) and not isinstance(bound, sp.Basic):
            return ball(bound(e))
        return ball(bound)

    def run(ctx: Context) -> Evidence:
        res = enclose_limit_sharpness(dloss, eta, x0, y0, d2loss=d2loss, prec=prec, max_steps=max_steps,
                                      rel_width=rel_width)
        data = res.data()
        data["why"] = why
        if not res.ok:
            return outcome(Status.INCONCLUSIVE, f"y_inf^2 not certified: {res.reason}", **data)
        with working_precision(prec):
            e = res.eta
            sharp = ball(curvature) * res.y_inf_sq
            up, low = resolve(upper, e), resolve(lower, e)
            verdicts, parts = [], []
            if up is not None:
                verdicts.append(_decide(sharp, "<", up))
                gap = up - sharp
                data["upper"] = _bounds(up)
                data["upper_minus_sharpness"] = _bounds(gap)
                parts.append(f"upper - sharpness in [{_bounds(gap)[0]:.6g}, {_bounds(gap)[1]:.6g}]")
            if low is not None:
                verdicts.append(_decide(sharp, ">", low))
                data["lower"] = _bounds(low)
                data["sharpness_minus_lower"] = _bounds(sharp - low)
                parts.append(f"sharpness - lower ~ {_f(sharp - low):.6g}")
        data["sharpness"] = _bounds(sharp)
        enc = _bounds(res.y_inf_sq)
        shown = (f"y_inf^2 in [{enc[0]:.10g}, {enc[1]:.10g}] (width {data['width']:.2e}, {res.steps} steps, "
                 f"{prec} bits); " + "; ".join(parts))
        if any(v is False for v in verdicts):
            return outcome(Status.REFUTED, "bound violated (certified): " + shown, **data)
        if all(v is True for v in verdicts):
            return outcome(Status.PROVED, shown, **data)
        return outcome(Status.INCONCLUSIVE, "enclosure straddles a bound: " + shown, **data)

    return Check(name, run, kind)


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


# --------------------------------------------------------------------------- benchmarks

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


@benchmark("certify.ex1_rsym_seconds", target=1.0, unit="s", higher_is_better=False,
           description="certify tanh(s)/s <= 1 - s^2/4 on [-1/4, 1/4] (arb bisection + Taylor at 0)")
def _bench_ex1() -> dict:
    s = sp.Symbol("s")
    chk = inequality("bench", sp.tanh(s) / s, 1 - s**2 / 4, Fraction(-1, 4), Fraction(1, 4))
    started = time.perf_counter()
    ev = chk(Context(0))
    sec = time.perf_counter() - started
    return {"value": sec, "verdict": str(ev.status), "boxes": ev.data.get("boxes")}


@benchmark("certify.trajectory_steps_per_second", target=2.5e4, unit="steps/s",
           description="centred-form arb enclosure of GD on tanh loss, eta = 0.01 (64 bits); the target is "
                       "what the 2 s y_inf^2 certificate needs (its step count: certify.y_inf_sq_eta_0.01_seconds)")
def _bench_steps() -> dict:
    x0, y0 = eos_start(Fraction(1, 100))
    steps = 20000
    started = time.perf_counter()
    res = enclose_limit_sharpness(_tanh_dloss, Fraction(1, 100), x0, y0, d2loss=_tanh_d2loss,
                                  max_steps=steps, check_every=steps + 1)
    sec = time.perf_counter() - started
    return {"value": steps / sec, "steps": steps, "max_radius": res.max_traj_width}


@benchmark("certify.y_inf_sq_eta_0.01_seconds", target=2.0, unit="s", higher_is_better=False,
           description="certified y_inf^2 and 2/eta - y_inf^2 > 0 for tanh loss, eta = 0.01, EoS start m = 3")
def _bench_limit() -> dict:
    x0, y0 = eos_start(Fraction(1, 100))
    chk = limit_sharpness("bench", _tanh_dloss, Fraction(1, 100), x0, y0, d2loss=_tanh_d2loss)
    _SHARPNESS_CACHE.clear()  # time a cold run
    started = time.perf_counter()
    ev = chk(Context(0))
    sec = time.perf_counter() - started
    return {"value": sec, "verdict": str(ev.status), "width": ev.data.get("width"),
            "steps": ev.data.get("steps")}
