"""Losses as rigorous arb callables, generated from their sympy forms (:class:`verify.loss.Loss`),
and the exact normalised edge-of-stability start used by the trajectory certificates.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy as sp
from flint import arb

from ..loss import S, Loss
from .balls import _q2arb, ArbFn, exact
from .sympy_arb import from_sympy, halves_at_zero, join_at_zero


# --------------------------------------------------------------------------- losses

def _together(e: sp.Expr) -> sp.Expr:
    """Each branch over one denominator: ℓ_sqrt'' = −s²(1+s²)^(-3/2) + (1+s²)^(-1/2) becomes
    (1+s²)^(-3/2), with no cancellation on a ball."""
    if isinstance(e, sp.Piecewise):
        return sp.Piecewise(*[(_together(v), c) for v, c in e.args])
    return sp.together(e)


def _compile(expr: sp.Expr) -> ArbFn:
    """``expr`` (in s) to arb: the half-lines s >= 0 and s <= 0 separately when |s| or sign(s)
    occur (:func:`halves_at_zero`, so |s|^β/s has no 0/0 at 0), each branch over one denominator."""
    halves = halves_at_zero(expr, S)
    if halves is None:
        return from_sympy(_together(expr), S)
    p, pos, neg = halves
    return join_at_zero(from_sympy(_together(pos), p), from_sympy(_together(neg), p))


@functools.lru_cache(maxsize=None)
def loss_derivatives(loss: Loss) -> tuple[ArbFn, ArbFn]:
    """(ℓ', ℓ'') of a :class:`verify.loss.Loss` as rigorous arb callables, compiled by
    :func:`from_sympy` from the loss's sympy forms ``loss.dl`` and ``loss.d2`` (nothing written by
    hand per loss). Piecewise losses are enclosed across a breakpoint by the union of the pieces
    on the parts of the ball (and |s|^β near 0 without 0/0, see :func:`halves_at_zero`).

    Cached per loss, so the trajectory enclosures (cached on the identity of the callables) are
    shared by every check that certifies the same loss. A callable accepts arb_series (automatic
    derivatives) when its form is smooth on the ball; pass both to :func:`limit_sharpness`.
    """
    d1, d2 = _compile(loss.dl), _compile(loss.d2)
    d1.__name__, d2.__name__ = f"{loss.name}'", f"{loss.name}''"
    return d1, d2


@dataclass(frozen=True)
class ScaledSqrt:
    """The number coef * sqrt(ratio) (exact rationals), enclosed at the precision in force when
    called; hashable, so trajectory enclosures from the same start are cached."""

    coef: Fraction
    ratio: Fraction

    def __call__(self) -> arb:
        return _q2arb(self.ratio).sqrt() * _q2arb(self.coef)


def eos_start(eta: Any, m: Any, xt: Any, yt: Any):
    """The normalised start (x0, y0) = sqrt(m/eta) (x~, y~), so y0^2 - x0^2 = (m/eta)(y~^2 - x~^2)
    (with y~^2 - x~^2 = 1, the edge-of-stability regime of GD on l(xy) when m > 2). Every value is the
    caller's (a paper's experiment fixes them; the engine carries none). Exact, hashable, evaluated
    lazily in arb."""
    ratio = exact(m) / exact(eta)
    return ScaledSqrt(exact(xt), ratio), ScaledSqrt(exact(yt), ratio)


