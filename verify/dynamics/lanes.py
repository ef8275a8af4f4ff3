"""The float64 lane engine: GD on f(x, y) = ℓ(xy) for many (x₀, y₀, η) lanes at once.

The map is G_η(x, y) = (x − η ℓ'(xy) y, y − η ℓ'(xy) x) (Ahn et al. 2023, eq. (2)). Compiled with
numba with the loss's compiled ℓ' (generated from its sympy form, :meth:`Loss.compiled_dl`; the kernel
is a first-class argument and numba compiles one engine specialisation per kernel per process, so a
family of losses shares one), else a vectorised numpy fallback with the same semantics.
The compiled engine (:mod:`.lanekernel`) advances blocks of lanes in structure-of-arrays form, the
loop over lanes vectorised (SIMD), on one thread or several (``parallel``); each lane's arithmetic is
exactly that of a scalar loop, so a lane's result never depends on the other lanes, their order or the
number of threads.

First-class outputs (see :class:`Lanes`): y_∞² (final D = y² − x², and the product form
D₀ ∏(1 − η²ℓ'(s_t)²) accumulated in log space with compensated summation), the crossing index
t̄ (first t with y_t² < 2/η), the bouncing length T = #{t : y_t² > 2/η}, the count from the
operational t₀ (first t with x_t ≤ 0 or |s_t| ≤ s_c), |s_t̄|, max |s_t|, and the quasi-static
ratio |s_t|^β/δ_t (δ_t = ηy_t² − 2) over bouncing steps t ≥ t₀ with δ_t in a stated window.
"""
from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np

from ..loss import Loss
from . import lxy
from .lxy import FLOAT_FIELDS, INT_FIELDS
from .outcomes import _HUGE, Lanes, _as_lanes


_INT_FIELDS, _FLOAT_FIELDS = INT_FIELDS, FLOAT_FIELDS


def _threads(parallel: bool | int, n: int) -> int:
    """Threads for ``run(parallel=...)``: False → 1, True → every core, an int → that many (≤ lanes)."""
    if parallel is True:
        import os

        want = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    else:
        want = int(parallel) if parallel else 1
    return max(1, min(want, n))


def compiled_dl(loss: Loss) -> tuple | None:
    """(kernel, params) of ℓ' for the engine: :meth:`Loss.compiled_dl`, or the ``kernel``/``params``
    attributes of a loss-like object that compiles its own (the audit's callables)."""
    if hasattr(loss, "compiled_dl"):
        return loss.compiled_dl()
    kernel = getattr(loss, "kernel", None)
    return None if kernel is None else (kernel, np.array(getattr(loss, "params", ()) or (0.0,), float))


def run(loss: Loss, x0: Any, y0: Any, eta: Any, *, max_steps: int = 10**6, xtol: float = 0.0,
        rtol: float = 1e-13, s_c: float = 0.5, s_eps: float = 0.0, qs_window: tuple | None = None,
        qs_shift: Any = 0.0,
        beta: float | None = None, contraction: bool = False, engine: str = "auto",
        parallel: bool | int = False) -> Lanes:
    """GD on ℓ(xy) for every lane (x0, y0, eta broadcast together), float64.

    Stops a lane when |x_t| ≤ ``xtol``, or when the estimated remaining relative drop of D
    (η²y²x²/(1 − q²), q the last contraction factor of |x|) is ≤ ``rtol``, or at ``max_steps``.
    ``s_c``: threshold of the operational t₀ (def7). ``s_eps``: records the first t with |s_t| ≤ s_eps.
    ``qs_window = (lo, hi)``: δ-window for the quasi-static ratio |s|^β/δ (lo may be an array per
    lane); ``None`` (default) skips the ratio (it costs a pow per bouncing step). ``qs_shift``
    (scalar or per lane) is added to δ in the denominator: |s|^β/(δ + shift).
    ``beta``: exponent in that ratio (default ``loss.beta``; ratios skipped when unknown or infinite).
    ``contraction``: also track min_{t≥t̄} log(|x_t|/|x_{t+1}|)/ρ_t (eq15; costs a log per step).
    ``engine``: ``"numba"``, ``"numpy"`` or ``"auto"`` (numba when ℓ' compiles).
    ``parallel``: ``True`` for a thread per core, or a thread count (results bit-identical for any
    count: lanes are independent, see :mod:`.lanekernel`).
    """
    x0, y0, eta = _as_lanes(x0, y0, eta)
    n = len(eta)
    b = loss.beta if beta is None else beta
    b = float(b) if (b is not None and math.isfinite(b) and qs_window is not None) else -1.0
    lo, hi = qs_window if qs_window is not None else (0.0, math.inf)
    qs_sh = np.ascontiguousarray(np.broadcast_to(np.asarray(qs_shift, float), (n,)))
    qs_lo = np.ascontiguousarray(np.broadcast_to(np.asarray(lo, float), (n,)))
    out_i = np.zeros((len(_INT_FIELDS), n), dtype=np.int64)
    out_f = np.zeros((len(_FLOAT_FIELDS), n), dtype=np.float64)
    compiled = compiled_dl(loss) if engine in ("numba", "auto") else None
    use_numba = engine == "numba" or (engine == "auto" and compiled is not None)
    if use_numba:
        if compiled is None:
            raise ValueError(f"loss {loss.name!r}: ℓ' does not compile to a numba kernel; use engine='numpy'")
        kernel, params = compiled
        engine_fn = lxy.engine()
        inputs = np.ascontiguousarray(np.stack([x0, y0, eta, qs_lo, qs_sh]))
        args = (int(max_steps), float(xtol), float(rtol), float(s_c), float(s_eps), b, float(hi), bool(contraction))
        threads = _threads(parallel, n)
        # lanes dealt round-robin into chunks (a grid sorted by cost splits evenly), chunks taken by
        # the threads as they come free; every lane's result is the same whoever runs it
        k = 2 * threads if threads > 1 else 1
        chunks = [np.arange(j, n, k) for j in range(k)]

        def part(idx):
            engine_fn(kernel, params, idx, inputs, *args, out_i, out_f)

        if threads > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(threads) as pool:
                list(pool.map(part, chunks))
        else:
            part(chunks[0])
        used = "numba"
    else:
        _numpy_engine(loss, x0, y0, eta, int(max_steps), float(xtol), float(rtol), float(s_c),
                      float(s_eps), b, qs_lo, float(hi), qs_sh, bool(contraction), out_i, out_f)
        used = "numpy"
    kw = {k: out_i[j].copy() for j, k in enumerate(_INT_FIELDS)}
    kw.update({k: out_f[j].copy() for j, k in enumerate(_FLOAT_FIELDS)})
    kw["outcome"] = kw["outcome"].astype(np.int8)
    return Lanes(eta=eta, x0=x0, y0=y0, notes={"engine": used, "max_steps": int(max_steps),
                                                "rtol": rtol, "xtol": xtol, "s_c": s_c}, **kw)


def _numpy_engine(loss, x0, y0, eta, max_steps, xtol, rtol, s_c, s_eps, beta, qs_lo, qs_hi, qs_shift, track, out_i, out_f):
    """Vectorised fallback with the semantics of :func:`_engine` (all active lanes step together)."""
    n = len(eta)
    x, y = x0.copy(), y0.copy()
    thr = 2.0 / eta
    lp = np.zeros(n)
    lpc = np.zeros(n)
    status = np.full(n, 3)
    t_bar = np.full(n, -1)
    bounce = np.zeros(n, int)
    t0 = np.full(n, -1)
    bounce0 = np.zeros(n, int)
    s_cross = np.full(n, np.nan)
    s_lb = np.full(n, np.nan)
    d_lb = np.full(n, np.nan)
    smax = np.zeros(n)
    smax0 = np.zeros(n)
    xmax0 = np.zeros(n)
    D_t0 = np.full(n, np.nan)
    qmin = np.full(n, np.inf)
    qmax = np.zeros(n)
    qcnt = np.zeros(n, int)
    cmin = np.full(n, np.inf)
    t_small = np.full(n, -1)
    tail = np.full(n, np.nan)
    steps = np.zeros(n, int)
    active = np.ones(n, bool)
    with np.errstate(all="ignore"):
        for t in range(max_steps):
            frozen = active & (x == 0.0)
            status[frozen] = 1
            tail[frozen] = 0.0
            active &= ~frozen
            if not active.any():
                break
            idx = np.nonzero(active)[0]
            xa, ya, ea = x[idx], y[idx], eta[idx]
            s = xa * ya
            a = np.abs(s)
            y2 = ya * ya
            smax[idx] = np.maximum(smax[idx], a)
            new0 = (t0[idx] < 0) & ((xa <= 0) | (a <= s_c))
            t0[idx[new0]] = t
            D_t0[idx[new0]] = (y2 - xa * xa)[new0]
            after = t0[idx] >= 0
            smax0[idx[after]] = np.maximum(smax0[idx[after]], a[after])
            xmax0[idx[after]] = np.maximum(xmax0[idx[after]], np.abs(xa[after]))
            ns = (t_small[idx] < 0) & (a <= s_eps)
            t_small[idx[ns]] = t
            bouncing = y2 > thr[idx]
            delta = ea * y2 - 2.0
            bounce[idx[bouncing]] += 1
            s_lb[idx[bouncing]] = a[bouncing]
            d_lb[idx[bouncing]] = delta[bouncing]
            b0 = bouncing & after
            bounce0[idx[b0]] += 1
            if beta > 0:
                win = b0 & (delta >= qs_lo[idx]) & (delta <= qs_hi)
                q = a ** beta / (delta + qs_shift[idx])
                j = idx[win]
                qcnt[j] += 1
                qmin[j] = np.minimum(qmin[j], q[win])
                qmax[j] = np.maximum(qmax[j], q[win])
            cross = (~bouncing) & (t_bar[idx] < 0) & (y2 < thr[idx])
            t_bar[idx[cross]] = t
            s_cross[idx[cross]] = a[cross]
            g = np.asarray(loss.dloss(s), float)
            eg = ea * g
            xn = xa - eg * ya
            yn = ya - eg * xa
            term = np.log1p(-eg * eg) - lpc[idx]
            tmp = lp[idx] + term
            lpc[idx] = (tmp - lp[idx]) - term
            lp[idx] = tmp
            div = ~((np.abs(xn) < _HUGE) & (np.abs(yn) < _HUGE))
            crossed = (t_bar[idx] >= 0) & (xn != 0)
            rho = 2.0 - ea * y2
            cval = np.log(np.abs(xa) / np.abs(xn)) / rho
            upd = crossed & (rho > 0) & track
            cmin[idx[upd]] = np.minimum(cmin[idx[upd]], cval[upd])
            qf = np.abs(xn) / np.abs(xa)
            x[idx], y[idx] = xn, yn
            steps[idx] += 1
            status[idx[div]] = 2
            frz = ~div & (xn == 0.0)
            status[idx[frz]] = 1
            tail[idx[frz]] = 0.0
            conv = ~div & ~frz & (np.abs(xn) <= xtol)
            if rtol > 0:
                tl = ea * ea * yn * yn * xn * xn / (1.0 - qf * qf)
                okq = ~div & ~conv & (qf < 1.0)
                tail[idx[okq]] = tl[okq]
                conv |= okq & (tl <= rtol)
            status[idx[conv]] = 0
            active[idx[div | conv | frz]] = False
    tail[status == 3] = np.nan
    cols_i = [status, steps, t_bar, bounce, t0, bounce0, qcnt, t_small]
    for j, v in enumerate(cols_i):
        out_i[j] = v
    qmin = np.where(qcnt > 0, qmin, np.nan)
    qmax = np.where(qcnt > 0, qmax, np.nan)
    cols_f = [x, y, y * y - x * x, lp, tail, s_cross, s_lb, d_lb, smax, smax0, xmax0, D_t0, qmin, qmax, cmin]
    for j, v in enumerate(cols_f):
        out_f[j] = v


# ----------------------------------------------------------------------------- trajectories
@numba.njit(cache=False)
def _record(dl, params, x0, y0, eta, steps, stride, xs, ys):
    x = x0
    y = y0
    k = 0
    for t in range(steps + 1):
        if t % stride == 0:
            xs[k] = x
            ys[k] = y
            k += 1
        g = dl(x * y, params)
        x, y = x - eta * g * y, y - eta * g * x
        if not (abs(x) < _HUGE and abs(y) < _HUGE):
            break
    return k


def trajectory(loss: Loss, x0: float, y0: float, eta: float, steps: int, stride: int = 1
               ) -> tuple[np.ndarray, np.ndarray]:
    """Full (strided) trajectory of one lane for figures: arrays x_t, y_t for t = 0, stride, ... ≤ steps."""
    m = steps // stride + 1
    xs = np.full(m, np.nan)
    ys = np.full(m, np.nan)
    compiled = compiled_dl(loss)
    if compiled is not None:
        k = _record(compiled[0], compiled[1], float(x0), float(y0), float(eta), int(steps), int(stride), xs, ys)
    else:
        x, y, k = float(x0), float(y0), 0
        for t in range(steps + 1):
            if t % stride == 0:
                xs[k], ys[k] = x, y
                k += 1
            g = float(loss.dloss(x * y))
            x, y = x - eta * g * y, y - eta * g * x
    return xs[:k], ys[:k]


# ----------------------------------------------------------------------------- starts
def normalised_start(eta: Any, m: float, xt: float = 0.75, yt: float = 1.25) -> tuple[np.ndarray, np.ndarray]:
    """(x₀, y₀) = √(m/η)(x̃, ỹ) with ỹ > x̃ > 0, ỹ² − x̃² = 1, so y₀² − x₀² = m/η (spec §0.5)."""
    if not (yt > xt > 0) or abs(yt * yt - xt * xt - 1.0) > 1e-12:
        raise ValueError(f"normalised start needs ỹ > x̃ > 0 and ỹ² − x̃² = 1; got x̃={xt}, ỹ={yt}")
    eta = np.asarray(eta, float)
    scale = np.sqrt(m / eta)
    return scale * xt, scale * yt

