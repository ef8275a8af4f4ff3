"""Certified enclosures of the orbit of any smooth map z_{t+1} = G(z_t) in R^n (arb balls).

The state is an exact reference point z_hat (ball midpoints, radius 0) plus an error ball dz
centred at 0; one step is the mean-value (centred) form

    z_{t+1} in  G(z_hat)  +  DG(Z) (z_t - z_hat),      Z = z_hat + dz (the current box),

then re-centred on the midpoint of the image. The true iterate stays in z_hat + dz at every step
(mean value theorem, DG enclosed over the box), and the width follows the true sensitivity of the
orbit instead of the wrapping blow-up of naive ball iteration. The map's parameters may be balls
themselves (e.g. eta = 10 pi / d^2): their radius enters through G(z_hat).

What the caller supplies: ``step(z)`` (G on a list of balls) and ``jacobian(Z)`` (DG over a box,
as a list of rows of balls or an ``arb_mat``), both written with arb operations; a ``stop(t, Z)``
predicate decides when the orbit is handed to a tail argument (which lives with the model: the
engine certifies the finite orbit only). :func:`enclose_orbit` never decides a claim; it reports
the last box, the number of steps and the largest radius seen, or why it failed (the box stopped
being finite, or the step budget ran out).

In more than two dimensions the error ball dz wraps: |DG| (entrywise) can have row sums > 1 even
where DG itself is a contraction (a manifold of fixed points with neutral directions, e.g. the
interpolators of a diagonal linear network), and the radius then grows like the product of those
row sums (e^700 over 3000 steps there) although the true sensitivity stays O(1). ``method="qr"``
is Lohner's QR method: the error set is kept as B_t r_t with a point matrix B_t (orthonormal
columns from a float QR of mid(DG B)) and a box r_t, updated by
r_{t+1} = (B_{t+1}^{-1} DG(Z) B_t) r_t + B_{t+1}^{-1} (G(z_hat) - z_hat_{t+1}), B^{-1} enclosed in arb.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
from flint import arb_mat

from .balls import ball, working_precision

StepFn = Callable[[list], list]
JacobianFn = Callable[[list], Any]


@dataclass(frozen=True)
class OrbitResult:
    """The enclosure of z_T (``box``, a list of balls) after ``steps`` steps, or why it failed."""

    ok: bool
    reason: str
    box: tuple
    steps: int
    prec: int
    max_radius: float
    stopped: bool = False
    extra: dict = field(default_factory=dict)

    def data(self) -> dict:
        d = {"steps": self.steps, "prec_bits": self.prec, "max_radius": self.max_radius,
             "method": "centred form z_{t+1} in G(z_hat) + DG(Z)(z - z_hat), re-centred every step"}
        if not self.ok:
            d["reason"] = self.reason
        return d


def _as_mat(J: Any, n: int) -> arb_mat:
    return J if isinstance(J, arb_mat) else arb_mat(n, n, [x for row in J for x in row])


def enclose_orbit(step: StepFn, jacobian: JacobianFn, z0: Sequence[Any], *, max_steps: int,
                  stop: Callable[[int, list], bool] | None = None, check_every: int = 1,
                  prec: int = 128, method: str = "centred") -> OrbitResult:
    """Enclose G^t(z0) for t = 0, 1, ... until ``stop(t, Z)`` is True (checked every
    ``check_every`` steps on the box Z) or ``max_steps``.

    ``z0``: the start (balls or exact numbers, see :func:`~verify.certify.balls.ball`).
    Returns ``ok=True, stopped=True`` with the box where ``stop`` fired; ``ok=True, stopped=False``
    at the step budget; ``ok=False`` if the box stops being finite (the reason names the step).
    ``method``: ``"centred"`` (error ball, cheapest; fine in 2-D) or ``"qr"`` (Lohner, see module doc).
    """
    if method == "qr":
        return _enclose_orbit_qr(step, jacobian, z0, max_steps=max_steps, stop=stop, check_every=check_every,
                                 prec=prec)
    if method != "centred":
        raise ValueError(f"method must be 'centred' or 'qr', got {method!r}")
    with working_precision(prec):
        Z0 = [ball(v) for v in z0]
        n = len(Z0)
        zh = [v.mid() for v in Z0]
        dz = arb_mat(n, 1, [v - m for v, m in zip(Z0, zh)])
        max_rad = 0.0
        for t in range(max_steps + 1):
            box = [zh[i] + dz[i, 0] for i in range(n)]
            if t % check_every == 0 or t == max_steps:
                if not all(v.is_finite() for v in box):
                    return OrbitResult(False, f"the enclosure stopped being finite by step {t}", tuple(box), t,
                                       prec, max_rad)
                max_rad = max(max_rad, *(float(dz[i, 0].rad()) for i in range(n)))
                if stop is not None and stop(t, box):
                    return OrbitResult(True, "", tuple(box), t, prec, max_rad, stopped=True)
            if t == max_steps:
                return OrbitResult(True, f"step budget {max_steps} reached", tuple(box), t, prec, max_rad)
            image = step(zh)
            J = _as_mat(jacobian(box), n)
            mids = [v.mid() for v in image]
            dz = arb_mat(n, 1, [v - m for v, m in zip(image, mids)]) + J * dz
            zh = mids
    raise AssertionError("unreachable")


def _enclose_orbit_qr(step: StepFn, jacobian: JacobianFn, z0: Sequence[Any], *, max_steps: int,
                      stop: Callable[[int, list], bool] | None, check_every: int, prec: int) -> OrbitResult:
    """Lohner's QR method (see the module docstring); same contract as :func:`enclose_orbit`."""
    with working_precision(prec):
        Z0 = [ball(v) for v in z0]
        n = len(Z0)
        zh = [v.mid() for v in Z0]
        B = arb_mat(n, n, [1 if i == j else 0 for i in range(n) for j in range(n)])
        r = arb_mat(n, 1, [v - m for v, m in zip(Z0, zh)])
        max_rad = 0.0
        for t in range(max_steps + 1):
            err = B * r
            box = [zh[i] + err[i, 0] for i in range(n)]
            if t % check_every == 0 or t == max_steps:
                if not all(v.is_finite() for v in box):
                    return OrbitResult(False, f"the enclosure stopped being finite by step {t}", tuple(box), t,
                                       prec, max_rad)
                max_rad = max(max_rad, *(float(err[i, 0].rad()) for i in range(n)))
                if stop is not None and stop(t, box):
                    return OrbitResult(True, "", tuple(box), t, prec, max_rad, stopped=True)
            if t == max_steps:
                return OrbitResult(True, f"step budget {max_steps} reached", tuple(box), t, prec, max_rad)
            image = step(zh)
            mids = [v.mid() for v in image]
            local = arb_mat(n, 1, [v - m for v, m in zip(image, mids)])
            JB = _as_mat(jacobian(box), n) * B
            q, _ = np.linalg.qr(np.array([[float(JB[i, j].mid()) for j in range(n)] for i in range(n)]))
            # rounded to a 2^-30 grid: LAPACK builds may differ in the last bits, the grid makes B (and so
            # the reported radii) the same on every machine; B need not be exactly orthogonal (B^-1 in arb)
            B_new = arb_mat(n, n, [float(x) for x in np.round(q.ravel() * 2.0 ** 30) / 2.0 ** 30])
            try:
                B_inv = B_new.inv()
            except ZeroDivisionError:
                return OrbitResult(False, f"QR basis not invertible in arb at step {t}", tuple(box), t, prec,
                                   max_rad)
            r = (B_inv * JB) * r + B_inv * local
            B = B_new
            zh = mids
    raise AssertionError("unreachable")

