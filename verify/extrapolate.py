"""Limits of sequences measured on a geometric grid (η = e^{-k}, d = 2^k, ...): the hidden constant of
an O(·) / Θ(·) statement is lim R(η), not the prefactor of a fit over a finite range; a claimed
asymptotic location ("the transition sits at ηd²/π = 8") is lim y(d), not the finite-d numbers.

One result type, :class:`Limit` (value, error bar, method, the sequence used), from two
extrapolations:

* :func:`limit` — Wynn's ε-algorithm (the Shanks transform, ``mpmath.shanks``) for
  R_k = C + a·r₁^k + b·r₂^k + … (corrections geometric in k, which is what a power-law correction
  η^q becomes on a geometric grid); each even-order column of the ε-table removes one geometric
  correction. The estimate is the deepest even entry of the last row; its error bar is the largest
  change between that entry and its neighbours (the same column one row up, the previous even
  column of the same row), i.e. how much the answer still moves when one point or one correction
  order is dropped. When the sequence is not of that form (noise, a logarithmic correction) the
  neighbours disagree and the error bar says so.
* :func:`aitken_limit` — Aitken's Δ² for y(x) = L + a x^{-p} (one correction, p > 0 unknown) on a
  geometric grid in x: every three consecutive points give an estimate of L and of the rate p; the
  limit is the estimate from the three largest x, its error bar the change from the previous
  estimate plus the measurement noise amplified by the extrapolation. The model is checked, not
  assumed: successive differences must keep one sign and shrink (0 < r < 1), else the sequence is not
  in its asymptotic regime (``ok`` False, infinite error bar) and :func:`compare_to_limit` is
  inconclusive. Testing a claimed value against finite-x numbers with a band wide enough to hold them
  also accepts wrong values (8.2 when the data 8.250, 8.155, 8.089, 8.047 for d = 50…400 head to 8).

Neither returns a value without an error bar.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Sequence

import mpmath
import numpy as np

_METHODS = {"wynn": "Wynn epsilon (Shanks) on a geometric grid",
            "aitken": "Aitken delta-squared on a geometric grid"}


@dataclass(frozen=True)
class Limit:
    """An extrapolated limit ``value ± stderr`` of ``sequence`` (ordered towards the limit) by
    ``method`` (``"wynn"`` or ``"aitken"``; see the module docstring). Aitken also reports the fitted
    approach rate p (y = L + a x^{-p}), one estimate per triple, the successive-difference ratios, and
    whether the data look asymptotic (``ok``; ``why`` when not)."""

    value: float
    stderr: float
    method: str
    sequence: tuple
    rate: float = math.nan
    estimates: tuple = ()
    ratios: tuple = ()
    ok: bool = True
    why: str = ""

    @property
    def points(self) -> int:
        return len(self.sequence)

    @property
    def last(self) -> float:
        """The raw value at the smallest step (no extrapolation), for comparison."""
        return self.sequence[-1]

    def as_data(self) -> dict:
        """Evidence keys other tools read (design: ``leading_constant``, ``leading_constant_stderr``)."""
        data = {"leading_constant": self.value, "leading_constant_stderr": self.stderr,
                "extrapolation": _METHODS[self.method], "extrapolation_points": self.points,
                "last_raw_value": self.last}
        if self.method == "aitken":
            data.update(approach_rate=self.rate, aitken_estimates=list(self.estimates),
                        difference_ratios=list(self.ratios), asymptotic_regime=self.ok,
                        **({"why_not_asymptotic": self.why} if self.why else {}))
        return data

    def agrees(self, claimed: float, rel_tol: float) -> bool:
        """|value − claimed| ≤ rel_tol·|claimed| + 2·stderr."""
        return abs(self.value - claimed) <= rel_tol * abs(claimed) + 2 * self.stderr


def limit(values, min_points: int = 4) -> Limit:
    """Wynn-ε extrapolation of ``values`` (ordered towards the limit, equally spaced in log of the
    control variable) to the limit. Non-finite values are refused: a diverged run is not data."""
    v = [float(x) for x in np.asarray(values, float)]
    if any(not math.isfinite(x) for x in v):
        raise ValueError("limit: non-finite values in the sequence; drop diverged runs first")
    if len(v) < min_points:
        raise ValueError(f"limit: need at least {min_points} points on the grid, got {len(v)}")
    with mpmath.workdps(30):
        table = mpmath.shanks([mpmath.mpf(x) for x in v])
        # mpmath's table holds ε_{2j+1} (auxiliary) in even positions and the estimates
        # ε_{2j} (j ≥ 1) in odd positions; position -1 of the raw sequence is not stored
        rows = [[float(e) for e in row[1::2]] for row in table]
    rows = [[v[i], *row] for i, row in enumerate(rows)]  # column 0: the raw sequence
    last, prev = rows[-1], rows[-2]
    best = last[-1]
    moves = []
    if len(last) >= 2:
        moves.append(abs(best - last[-2]))
    col = len(last) - 1
    if col < len(prev):
        moves.append(abs(best - prev[col]))
    else:
        moves.append(abs(best - prev[-1]))
    return Limit(best, max(moves), "wynn", tuple(v))


def limit_with_window_shift(values, min_points: int = 4) -> tuple[Limit, float, float]:
    """Wynn-ε on ``values[1:]`` with an error bar that also covers the shift of the estimate when the
    window moves one point away from the limit (``values[:-1]``).

    Wynn's own bar (how much the last table entries move) can be far too small when the window's far
    end is not yet in the asymptotic regime — one mean-model sequence gave a bar of 2.5e-6 against a
    true error of 7.6e-5 — and the shift exposes exactly that. Returns (the limit with the larger of
    the two bars, Wynn's bar, the shift)."""
    top, below = limit(values[1:], min_points), limit(values[:-1], min_points)
    shift = abs(top.value - below.value)
    return replace(top, stderr=max(top.stderr, shift)), top.stderr, shift


def aitken_limit(x: Sequence[float], y: Sequence[float], noise: float = 0.0) -> Limit:
    """Aitken extrapolation of y(x) to x → ∞ on a geometric grid (ascending x).

    ``noise``: the absolute uncertainty of each y (e.g. a bisection half-width); it enters the error
    bar amplified by the extrapolation factor (1 + r)/(1 − r).
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.shape != y.shape or len(x) < 4:
        raise ValueError(f"aitken_limit needs x and y of one length >= 4 (two triples), got {len(x)}, {len(y)}")
    if np.any(np.diff(x) <= 0):
        raise ValueError("aitken_limit: x must be strictly increasing")
    q = x[1:] / x[:-1]
    if not np.allclose(q, q[0], rtol=1e-9):
        raise ValueError(f"aitken_limit: x must be a geometric grid, got ratios {q.tolist()}")
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
    if ok:
        error = abs(estimates[-1] - estimates[-2]) + noise * (1 + r_last) / (1 - r_last)
    else:
        error = math.inf
    return Limit(estimates[-1], error, "aitken", tuple(float(v) for v in y), rate=rates[-1],
                 estimates=tuple(estimates), ratios=ratios, ok=ok, why=why)


@dataclass(frozen=True)
class LimitTest:
    """A claimed limit against an extrapolation: ``distance`` = |L − claimed|, ``margin`` =
    distance − error bar (positive: the claimed value is outside the error bar)."""

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
        return (f"extrapolated limit {self.limit.value:.4f} ± {self.limit.stderr:.4f} "
                f"(approach ~ x^-{self.limit.rate:.2f}) vs claimed {self.claimed:.6g}: "
                f"distance {self.distance:.4f}")


def compare_to_limit(x: Sequence[float], y: Sequence[float], claimed: float, noise: float = 0.0) -> LimitTest:
    """Is ``claimed`` within the error bar of the Aitken limit of y(x) as x → ∞?"""
    lim = aitken_limit(x, y, noise)
    distance = abs(lim.value - claimed) if math.isfinite(claimed) else math.inf
    return LimitTest(lim, claimed, distance, distance - lim.stderr)
