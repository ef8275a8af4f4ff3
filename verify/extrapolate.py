"""Limits of sequences measured on a geometric grid (η = e^{-k}, d = 2^k, ...): the hidden constant of
an O(·) / Θ(·) statement is lim R(η), not the prefactor of a fit over a finite range.

A sequence R_k = C + a·r₁^k + b·r₂^k + … (corrections geometric in k, which is what a power-law
correction η^q becomes on a geometric grid) is accelerated by Wynn's ε-algorithm (the Shanks
transform, ``mpmath.shanks``); each even-order column of the ε-table removes one geometric correction.
The estimate is the deepest even entry of the last row; its error bar is the largest change between
that entry and its neighbours (the same column one row up, the previous even column of the same row),
i.e. how much the answer still moves when one point or one correction order is dropped. When the
sequence is not of that form (noise, a logarithmic correction) the neighbours disagree and the error
bar says so; :func:`limit` never returns a value without one.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np


@dataclass(frozen=True)
class Limit:
    """lim R_k with a standard-error-like bar (see the module docstring)."""

    value: float
    stderr: float
    points: int
    last: float  # the raw value at the smallest step (no extrapolation), for comparison

    def as_data(self) -> dict:
        """Evidence keys other tools read (design: ``leading_constant``, ``leading_constant_stderr``)."""
        return {"leading_constant": self.value, "leading_constant_stderr": self.stderr,
                "extrapolation": "Wynn epsilon (Shanks) on a geometric grid",
                "extrapolation_points": self.points, "last_raw_value": self.last}

    def agrees(self, claimed: float, rel_tol: float) -> bool:
        """|value − claimed| ≤ rel_tol·|claimed| + 2·stderr."""
        return abs(self.value - claimed) <= rel_tol * abs(claimed) + 2 * self.stderr


def limit(values, min_points: int = 4) -> Limit:
    """Extrapolate ``values`` (ordered towards the limit, equally spaced in log of the control
    variable) to the limit. Non-finite values end the usable prefix: a diverged run is not data."""
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
    return Limit(best, max(moves), len(v), v[-1])
