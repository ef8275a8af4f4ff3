"""The depth-3 scalar network with the square loss: exact forms and a float64 GD run."""
from __future__ import annotations

import math

import sympy as sp

W = sp.symbols("w1:4", positive=True)
P = W[0] * W[1] * W[2]
F = (P - 1) ** 2 / 2  # f(w) = ℓ(w₁w₂w₃), ℓ(p) = (p − 1)²/2


def gradient() -> sp.Matrix:
    return sp.Matrix([sp.diff(F, w) for w in W])


def hessian() -> sp.Matrix:
    return sp.hessian(F, W)


def gd(w0: tuple[float, float, float], eta: float, steps: int = 4000, tol: float = 1e-12):
    """GD w ← w − η(p − 1)∂p/∂w; returns (outcome, w) with outcome converged | diverged | budget."""
    a, b, c = w0
    for _ in range(steps):
        p = a * b * c
        r = p - 1.0
        if abs(r) <= tol:
            return "converged", (a, b, c)
        a, b, c = a - eta * r * b * c, b - eta * r * a * c, c - eta * r * a * b
        if not all(math.isfinite(v) and abs(v) < 1e8 for v in (a, b, c)):
            return "diverged", (a, b, c)
    return "budget", (a, b, c)


def sharpness_at_minimiser(w: tuple[float, float, float]) -> float:
    """λ_max ∇²f at a point with p = 1: Σᵢ ∏_{j≠i} wⱼ² (lem1)."""
    a, b, c = w
    return (b * c) ** 2 + (a * c) ** 2 + (a * b) ** 2


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
