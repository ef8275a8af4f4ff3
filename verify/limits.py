"""Limits of measured sequences, with an error bar: Aitken / Richardson extrapolation in a size parameter.

A statement such as "the transition sits at ηd²/π = 8" is a statement about d → ∞; at finite d the
measured location is 8 + a d^{-p} + ... . Testing the claimed value against the finite-d numbers with
a band wide enough to hold them also accepts wrong values (8.2 when the data 8.250, 8.155, 8.089,
8.047 for d = 50…400 clearly head to 8). Instead, :func:`extrapolate` estimates the limit assuming
y(x) = L + a x^{-p} (p > 0 unknown) on a geometric grid in x: every three consecutive points give an
Aitken (Δ²) estimate of L and of the rate p; the limit reported is the estimate from the three
largest x, and its error bar is the change from the previous estimate (the usual a-posteriori error
of an extrapolation sequence) plus the measurement noise amplified by the extrapolation. The model
is checked, not assumed: successive differences must keep one sign and shrink (0 < r < 1), else the
sequence is not in its asymptotic regime and :func:`compare_to_limit` is inconclusive.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np


@dataclass(frozen=True)
class Limit:
    """An extrapolated limit ``value ± error``; ``estimates`` holds one Aitken estimate per triple."""

    value: float
    error: float
    rate: float            # fitted p in y = L + a x^{-p}, from the last triple
    estimates: tuple       # Aitken limits, from the smallest x triples to the largest
    ratios: tuple          # successive-difference ratios r = Δ_{k+1}/Δ_k
    ok: bool               # the data look asymptotic (one sign, 0 < r < 1, at least two triples)
    why: str = ""

    def as_data(self) -> dict:
        return {"limit": self.value, "limit_error": self.error, "approach_rate": self.rate,
                "aitken_estimates": list(self.estimates), "difference_ratios": list(self.ratios),
                "asymptotic_regime": self.ok, **({"why_not_asymptotic": self.why} if self.why else {})}


def extrapolate(x: Sequence[float], y: Sequence[float], noise: float = 0.0) -> Limit:
    """Aitken extrapolation of y(x) to x → ∞ on a geometric grid (ascending x).

    ``noise``: the absolute uncertainty of each y (e.g. a bisection half-width); it enters the error
    bar amplified by the extrapolation factor (1 + r)/(1 − r).
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.shape != y.shape or len(x) < 4:
        raise ValueError(f"extrapolate needs x and y of one length >= 4 (two triples), got {len(x)}, {len(y)}")
    if np.any(np.diff(x) <= 0):
        raise ValueError("extrapolate: x must be strictly increasing")
    q = x[1:] / x[:-1]
    if not np.allclose(q, q[0], rtol=1e-9):
        raise ValueError(f"extrapolate: x must be a geometric grid, got ratios {q.tolist()}")
    dy = np.diff(y)
    ratios = tuple(float(b / a) if a != 0 else math.inf for a, b in zip(dy, dy[1:]))
    estimates, rates = [], []
    for (a, b), r, y2 in zip(zip(dy, dy[1:]), ratios, y[2:]):
        if 0 < r < 1:
            estimates.append(float(y2 + b * r / (1 - r)))
            rates.append(float(-math.log(r) / math.log(q[0])))
        else:
            estimates.append(math.nan)
            rates.append(math.nan)
    bad = [r for r in ratios if not 0 < r < 1]
    ok = not bad and len(estimates) >= 2
    why = "" if ok else (f"successive differences do not shrink with one sign (ratios {[round(r, 4) for r in ratios]})"
                         if bad else "need at least two triples")
    r_last = ratios[-1]
    value = estimates[-1]
    if ok:
        error = abs(estimates[-1] - estimates[-2]) + noise * (1 + r_last) / (1 - r_last)
    else:
        error = math.inf
    return Limit(value, error, rates[-1], tuple(estimates), ratios, ok, why)


@dataclass(frozen=True)
class LimitTest:
    """A claimed limit against an extrapolation: ``distance`` = |L − claimed|, ``margin`` =
    distance − error (positive: the claimed value is outside the error bar)."""

    limit: Limit
    claimed: float
    distance: float
    margin: float

    @property
    def consistent(self) -> bool | None:
        if not self.limit.ok:
            return None
        return self.margin <= 0

    def text(self) -> str:
        return (f"extrapolated limit {self.limit.value:.4f} ± {self.limit.error:.4f} "
                f"(approach ~ x^-{self.limit.rate:.2f}) vs claimed {self.claimed:.6g}: "
                f"distance {self.distance:.4f}")


def compare_to_limit(x: Sequence[float], y: Sequence[float], claimed: float, noise: float = 0.0) -> LimitTest:
    """Is ``claimed`` within the error bar of the extrapolated limit of y(x) as x → ∞?"""
    lim = extrapolate(x, y, noise)
    distance = abs(lim.value - claimed) if math.isfinite(claimed) else math.inf
    return LimitTest(lim, claimed, distance, distance - lim.error)

