"""The diagonal linear network's problems (even2023 spec §8 E0, E1, E3) and the outcome codes of its
float64 lanes; what the lane kernels (_dln_step's GD, _sgd_lanes' SGD, _gain_lanes) and _dln share."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np


CONVERGED, STALLED, BLOWN_UP, HIT_PM1 = 0, 1, 2, 3
OUTCOMES = ("converged", "stalled", "blown_up", "hit_pm1")


@dataclass(frozen=True, eq=False)
class Problem:
    """Data (X, y) with n < d, an initialisation scale α ∈ ℝ^d_{>0}, and the teacher if known.

    All arrays are float64; in high precision they are read as the exact dyadic rationals they are.
    """

    X: np.ndarray
    y: np.ndarray
    alpha: np.ndarray
    teacher: np.ndarray | None = None
    label: str = ""

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]

    def with_alpha(self, alpha) -> "Problem":
        a = np.broadcast_to(np.asarray(alpha, float), (self.d,)).copy()
        return Problem(self.X, self.y, a, self.teacher, self.label)

    def describe(self) -> dict:
        return {"n": self.n, "d": self.d, "label": self.label,
                "alpha_min": float(self.alpha.min()), "alpha_max": float(self.alpha.max())}


def sparse_problem(n: int, d: int, s: int, alpha: float, seed: int, sigma: float = 1.0,
                   teacher: Sequence[float] | None = None, label: str = "") -> Problem:
    """Spec §8 E0: X with i.i.d. N(0, σ²) entries; noiseless y = Xβ*; support uniformly random with
    N(0, 1) entries unless ``teacher`` (placed on the first coordinates) is given."""
    rng = np.random.default_rng(seed)
    X = sigma * rng.standard_normal((n, d))
    b = np.zeros(d)
    if teacher is None:
        supp = rng.choice(d, size=s, replace=False)
        b[supp] = rng.standard_normal(s)
    else:
        b[: len(teacher)] = teacher
    y = X @ b
    return Problem(X, y, np.full(d, float(alpha)), b, label or f"gauss(n={n},d={d},s={s},seed={seed})")


@lru_cache(maxsize=None)
def e1_problem(seed: int = 0) -> Problem:
    """E1 (Figure 1, [M]): n = 20, d = 30, s = 3, α = 0.1, Gaussian X, random 3-sparse teacher."""
    return sparse_problem(20, 30, 3, 0.1, seed=1000 + seed, label=f"E1(seed={seed})")


@lru_cache(maxsize=None)
def e3_problem(seed: int = 0) -> Problem:
    """E3 (Theorem 1 at high precision): n = 5, d = 10, teacher (1, −0.7, 0, …), α = 0.2."""
    return sparse_problem(5, 10, 2, 0.2, seed=3000 + seed, teacher=(1.0, -0.7),
                          label=f"E3(seed={seed})")


def l1_interpolator(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """β*_{ℓ1} = argmin_{Xβ=y} ‖β‖₁ by LP (β = p − m, p, m ≥ 0)."""
    from scipy.optimize import linprog

    n, d = X.shape
    res = linprog(np.ones(2 * d), A_eq=np.hstack([X, -X]), b_eq=y, bounds=(0, None), method="highs")
    if res.status != 0:
        raise RuntimeError(f"LP for the l1 interpolator failed: {res.message}")
    return res.x[:d] - res.x[d:]


def batch_curvatures(X: np.ndarray, b: int) -> np.ndarray:
    """(λ_min, λ_max) of the batch curvature used in eq10.batch: for GD the extreme non-zero
    eigenvalues of XXᵀ/n (row 0); for b = 1 both equal ‖x_i‖² (row i). Other b: NaN (not used)."""
    n = X.shape[0]
    if b >= n:
        ev = np.linalg.eigvalsh(X @ X.T / n)
        return np.array([[ev[0], ev[-1]]])
    if b == 1:
        nrm = np.sum(X * X, axis=1)
        return np.stack([nrm, nrm], axis=1)
    return np.full((n, 2), np.nan)
