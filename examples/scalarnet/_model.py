"""The depth-3 scalar network with the square loss: exact forms, the GF-solution sharpness, and the
objective for the generic GD engine (:mod:`verify.dynamics.generic`)."""
from __future__ import annotations

import math
from functools import lru_cache

import sympy as sp

W = sp.symbols("w1:4", positive=True)
P = W[0] * W[1] * W[2]
F = (P - 1) ** 2 / 2  # f(w) = ℓ(w₁w₂w₃), ℓ(p) = (p − 1)²/2


def gradient() -> sp.Matrix:
    return sp.Matrix([sp.diff(F, w) for w in W])


def hessian() -> sp.Matrix:
    return sp.hessian(F, W)


@lru_cache(maxsize=None)
def network():
    """f as a generic objective: GD lanes with gradient and Hessian generated from ``F``."""
    from verify.dynamics import generic

    return generic.Objective(F, W, name="scalar network, square loss")


def gf_sharpness(w: tuple[float, float, float]) -> float:
    """Sharpness of the gradient-flow solution from w > 0: GF keeps wᵢ² − wⱼ² (eq1), so its limit
    is wᵢ² + c with ∏(wᵢ² + c) = 1; ψ(w) = Σᵢ 1/(wᵢ² + c). c by bisection (monotone in c)."""
    sq = [v * v for v in w]
    lo, hi = -min(sq), 1.0 + max(1.0, 1.0 / min(sq))
    for _ in range(200):
        mid = (lo + hi) / 2
        if math.prod(s + mid for s in sq) > 1.0:
            hi = mid
        else:
            lo = mid
    c = (lo + hi) / 2
    return sum(1.0 / (s + c) for s in sq)
