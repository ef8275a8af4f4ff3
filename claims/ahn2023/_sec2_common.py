"""Shared helpers for the Section-2 / Appendix-C claims of ahn2023 (not scanned for claims).

* The catalogue losses are those of :mod:`claims.ahn2023._losses` (one loss model,
  :class:`verify.loss.Loss`): ℓ_rsym, ℓ_sqrt, ℓ_Hub and the family ℓ_β (a float β drawn by hypothesis
  is a member evaluated from the family's sympy forms, β an argument). Their mpmath evaluators give
  ℓ', ℓ'', 1 − ℓ'(s)/s and ℓ(s) − ℓ(0) to the working precision without cancellation (def6 audit note).
* :func:`gd_run`: a short GD trajectory on f(x, y) = ℓ(xy), in float64 or mpmath.
* hypothesis strategies for losses and states.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable

import mpmath
import sympy as sp
from hypothesis import strategies as st

from claims.ahn2023._losses import HUBER, RSYM, SQRT, THETA, beta_loss, c_beta, r_beta

__all__ = ["HUBER", "RSYM", "SQRT", "beta_loss", "beta_constants", "losses", "gd_run", "frac"]

_BETA_CONSTANTS = {M: sp.lambdify(THETA, (c_beta(THETA), r_beta(THETA)), modules=M) for M in ("mpmath", "math")}


def beta_constants(beta: Any, num: Callable = mpmath.mpf) -> tuple[Any, Any]:
    """(c_β, r_β) = ((1/(β+1))·(β/(β+1))^β, (β+1)/β) (def5.beta) evaluated from their sympy forms
    (:func:`claims.ahn2023._losses.c_beta`, ``r_beta``): in mpmath (default) or float (``num=float``)."""
    if num is float:
        return tuple(_BETA_CONSTANTS["math"](float(beta)))
    return tuple(_BETA_CONSTANTS["mpmath"](mpmath.mpf(beta)))


# β as floats (not exact rationals): the members are evaluated with β a kernel argument, as the draws are
NAMED_LOSSES = (RSYM, SQRT, HUBER, beta_loss(4 / 3), beta_loss(1.5), beta_loss(2.0), beta_loss(4.0),
                beta_loss(10.0))


def losses() -> st.SearchStrategy:
    """Losses satisfying (A1) and (A2) (hence 0 <= ℓ'(s)s <= s²): named ones or ℓ_β, β ∈ (1, 20]."""
    return st.one_of(st.sampled_from(NAMED_LOSSES),
                     st.floats(1.0, 20.0, exclude_min=True).map(beta_loss))


# --------------------------------------------------------------------------- GD trajectories

def gd_run(loss, eta: float, x: float, y: float, steps: int,
           M: Any = math) -> list[tuple[Any, Any]]:
    """Iterates (x_t, y_t), t = 0..steps, of G_η(x, y) = (x − ηℓ'(xy)y, y − ηℓ'(xy)x), in float64
    (``M=math``) or at the mpmath working precision (``M=mpmath``)."""
    dl = loss.dloss_mp if M is mpmath else loss.dloss_scalar
    out = [(x, y)]
    for _ in range(steps):
        g = dl(x * y)
        x, y = x - eta * g * y, y - eta * g * x
        out.append((x, y))
        if not (math.isfinite(float(x)) and math.isfinite(float(y))):
            break
    return out


def frac(x: float) -> Fraction:
    return Fraction(x).limit_denominator(10**12)
