"""GD on ℓ(xy) in compiled double-double arithmetic (:mod:`.ddarith`): the fast high-precision path.

It runs the same map as :func:`verify.dynamics.run_hp` much faster than mpmath (benchmark
``dynamics.high_precision``), so long (small-η) lanes can be cross-checked.
"""
from __future__ import annotations

from typing import Any

import mpmath
import numpy as np

from ..kernelcache import compiled_template
from ..loss import Loss
from .ddarith import dd_div, dd_mul, dd_mul_d, dd_sub
from .outcomes import HUGE, HPLane, Outcome, as_lanes


def _dd_engine(params, x0, y0, eta, max_steps, xtol, rtol, out_i, out_f):
    """The GD map for every lane; a template (:func:`verify.kernelcache.compiled_template`) in which
    ``dl`` is the loss's double-double ℓ' kernel, so that the compiled engine is cached on disk."""
    n = x0.shape[0]
    for i in range(n):
        xh, xl = x0[i], 0.0
        yh, yl = y0[i], 0.0
        e = eta[i]
        thh, thl = dd_div(2.0, 0.0, e, 0.0)
        status = 3
        t = 0
        t_bar = -1
        bounce = 0
        while t < max_steps:
            if xh == 0.0:
                status = 1
                break
            y2h, y2l = dd_mul(yh, yl, yh, yl)
            dh, dl_ = dd_sub(y2h, y2l, thh, thl)
            if dh > 0.0:
                bounce += 1
            elif t_bar < 0 and dh < 0.0:
                t_bar = t
            sh, sl = dd_mul(xh, xl, yh, yl)
            gh, gl = dl(sh, sl, params)  # noqa: F821 (bound by the generated module)
            egh, egl = dd_mul_d(gh, gl, e)
            ph, pl = dd_mul(egh, egl, yh, yl)
            qh, ql = dd_mul(egh, egl, xh, xl)
            nxh, nxl = dd_sub(xh, xl, ph, pl)
            nyh, nyl = dd_sub(yh, yl, qh, ql)
            if not (abs(nxh) < HUGE and abs(nyh) < HUGE):
                status = 2
                xh, xl, yh, yl = nxh, nxl, nyh, nyl
                t += 1
                break
            xo2 = xh * xh
            xh, xl, yh, yl = nxh, nxl, nyh, nyl
            t += 1
            if xh == 0.0:
                status = 1
                break
            if abs(xh) <= xtol:
                status = 0
                break
            xn2 = xh * xh
            if xn2 < xo2 and rtol > 0.0:
                if e * e * yh * yh * xn2 * xo2 <= rtol * (xo2 - xn2):
                    status = 0
                    break
        out_i[0, i] = status
        out_i[1, i] = t
        out_i[2, i] = t_bar
        out_i[3, i] = bounce
        out_f[0, i] = xh
        out_f[1, i] = xl
        out_f[2, i] = yh
        out_f[3, i] = yl
    return 0


_ENGINES: dict = {}


def _engine_for(kernel) -> object:
    if kernel not in _ENGINES:
        _ENGINES[kernel] = compiled_template((_dd_engine,), "dd_engine", {"dl": kernel})._dd_engine
    return _ENGINES[kernel]


def run_dd(loss: Loss, x0: Any, y0: Any, eta: Any, *, max_steps: int = 10**6, xtol: float = 0.0,
           rtol: float = 1e-13) -> list["HPLane"]:
    """The GD map in compiled double-double arithmetic (~106 bits, ≈ 31.9 significant digits).

    Needs ℓ' in double-double (:meth:`Loss.compiled_dl_dd`); stopping rules and outcomes are those of :func:`run`. Results are
    returned as :class:`HPLane` with mpmath values (hi + lo exactly) and ``dps = 31``.
    """
    compiled = loss.compiled_dl_dd()
    if compiled is None:
        raise ValueError(f"loss {loss.name!r}: ℓ' has no double-double translation")
    x0, y0, eta = as_lanes(x0, y0, eta)
    n = len(eta)
    out_i = np.zeros((4, n), dtype=np.int64)
    out_f = np.zeros((4, n), dtype=np.float64)
    _engine_for(compiled[0])(compiled[1], x0, y0, eta, int(max_steps), float(xtol), float(rtol), out_i, out_f)
    res = []
    with mpmath.workdps(40):
        for i in range(n):
            X = mpmath.mpf(out_f[0, i]) + mpmath.mpf(out_f[1, i])
            Y = mpmath.mpf(out_f[2, i]) + mpmath.mpf(out_f[3, i])
            res.append(HPLane(repr(float(eta[i])), Outcome(int(out_i[0, i])), int(out_i[1, i]), X, Y,
                              Y * Y - X * X, int(out_i[2, i]), int(out_i[3, i]), 31, "double-double"))
    return res

