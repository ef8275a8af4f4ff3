"""Dual operations on ``arb`` and ``arb_series`` (rigorous derivatives by automatic differentiation).

A callable written with :data:`ops` (``ops.tanh(s)`` ...) accepts both balls and truncated
series, so the bisection prover and the trajectory enclosures get enclosures of f' for free.
"""
from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace
from typing import Any

from flint import arb, arb_series, fmpq

from .balls import ArbFn, ball


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
    return abs(v).nonnegative_part()  # arb's |[-a, b]| keeps a negative lower end


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


