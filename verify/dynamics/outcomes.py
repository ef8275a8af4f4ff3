"""Per-lane results of GD on ℓ(xy): the outcome codes and the result records of every path.

Outcomes are explicit values, never silently a pass: ``CONVERGED`` (|x_t| ≤ ``xtol`` or the
remaining-drop estimate of D is below ``rtol``), ``FROZEN`` (x_t == 0 exactly: G_η(0, y) = (0, y)),
``DIVERGED`` (overflow / NaN), ``BUDGET`` (step budget exhausted); and, for the generic engine
(:mod:`.generic`), ``STALLED`` (no progress for a stated number of steps).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

import mpmath
import numpy as np


class Outcome(IntEnum):
    CONVERGED = 0
    FROZEN = 1
    DIVERGED = 2
    BUDGET = 3
    STALLED = 4  # generic GD only (no progress for `patience` steps: a cycle or a plateau)

    def __str__(self) -> str:
        return self.name.lower()


_LXY_OUTCOMES = (Outcome.CONVERGED, Outcome.FROZEN, Outcome.DIVERGED, Outcome.BUDGET)  # what ℓ(xy) lanes produce
HUGE = 1e150  # |x| or |y| beyond this is treated as divergence (before float overflow)


# ----------------------------------------------------------------------------- results
@dataclass(frozen=True)
class Lanes:
    """Per-lane results of one batch (all arrays have one entry per lane, in input order)."""

    eta: np.ndarray
    x0: np.ndarray
    y0: np.ndarray
    outcome: np.ndarray          # Outcome codes (int8)
    steps: np.ndarray            # iterations performed
    x: np.ndarray                # final iterate
    y: np.ndarray
    D: np.ndarray                # final y^2 - x^2 (direct)
    log_prod: np.ndarray         # sum_t log(1 - eta^2 l'(s_t)^2) (compensated)
    tail: np.ndarray             # estimate of the remaining relative drop of D at the stop
    t_bar: np.ndarray            # first t with y_t^2 < 2/eta (-1: never)
    bounce: np.ndarray           # T = #{t : y_t^2 > 2/eta}
    t0: np.ndarray               # operational t0 (-1: never)
    bounce_from_t0: np.ndarray   # #{t >= t0 : y_t^2 > 2/eta}
    s_cross: np.ndarray          # |s_{t_bar}| (nan if no crossing)
    s_last_bounce: np.ndarray    # |s_{t_bar - 1}|
    delta_last_bounce: np.ndarray  # delta_{t_bar - 1}
    s_max: np.ndarray            # max_t |s_t|
    s_max_after_t0: np.ndarray   # max_{t >= t0} |s_t|
    x_max_after_t0: np.ndarray   # max_{t >= t0} |x_t|
    D_t0: np.ndarray             # D at t0
    qs_min: np.ndarray           # inf |s_t|^beta / delta_t over bouncing t >= t0, delta in window
    qs_max: np.ndarray           # sup of the same (denominator delta + qs_shift)
    qs_count: np.ndarray         # number of steps in that window
    contraction_min: np.ndarray  # min_{t >= t_bar} log(|x_t|/|x_{t+1}|) / rho_t
    t_small: np.ndarray          # first t >= 0 with |s_t| <= s_eps (-1: never)
    notes: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.eta)

    @property
    def y_inf2(self) -> np.ndarray:
        """y_∞² estimated as the final D (D is non-increasing, so this is an upper bound on D_∞)."""
        return self.D

    @property
    def y_inf2_product(self) -> np.ndarray:
        """D₀ ∏(1 − η²ℓ'²), the product form of the final D (fact1.dmono)."""
        return (self.y0**2 - self.x0**2) * np.exp(self.log_prod)

    @property
    def gap(self) -> np.ndarray:
        """2/η − y_∞² (sharpness gap at the EoS value)."""
        return 2.0 / self.eta - self.D

    def ok(self) -> np.ndarray:
        return self.outcome == Outcome.CONVERGED

    def counts(self) -> dict:
        return {str(o): int(np.sum(self.outcome == o)) for o in _LXY_OUTCOMES}

    def lane(self, i: int) -> dict:
        out = {}
        for k, v in self.__dict__.items():
            if isinstance(v, np.ndarray):
                out[k] = v[i].item()
        out["outcome"] = str(Outcome(out["outcome"]))
        return out



@dataclass(frozen=True)
class HPLane:
    eta: str
    outcome: Outcome
    steps: int
    x: mpmath.mpf
    y: mpmath.mpf
    D: mpmath.mpf
    t_bar: int
    bounce: int
    dps: int
    backend: str



def as_lanes(x0, y0, eta) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x0, y0, eta = np.broadcast_arrays(np.asarray(x0, float), np.asarray(y0, float), np.asarray(eta, float))
    return (np.ascontiguousarray(x0.ravel()), np.ascontiguousarray(y0.ravel()),
            np.ascontiguousarray(eta.ravel()))

