"""Arb balls and scoped precision: exact rationals, balls containing a value, boxes [lo, hi].

Precision is a scoped resource (:func:`working_precision`); nothing here leaves
``flint.ctx.prec`` changed. Floats are read as the decimals they print as.
"""
from __future__ import annotations

import contextlib
import math
from fractions import Fraction
from typing import Any, Callable, Iterator

import flint
import sympy as sp
from flint import arb, fmpq


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
        from .sympy_arb import from_sympy  # lazy: sympy_arb is built on these balls
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


