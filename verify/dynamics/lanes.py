"""The float64 lane engine: GD on f(x, y) = ℓ(xy) for many (x₀, y₀, η) lanes at once.

The map is G_η(x, y) = (x − η ℓ'(xy) y, y − η ℓ'(xy) x) (Ahn et al. 2023, eq. (2)). Compiled with
numba with the loss's compiled ℓ' (generated from its sympy form, :meth:`Loss.compiled_dl`; the kernel
is a first-class argument and numba compiles one engine specialisation per kernel per process, so a
family of losses shares one), else a vectorised numpy fallback with the same semantics.
The compiled engine advances 8 lanes in an interleaved block (a finished lane's slot is refilled
from the queue) so that the CPU overlaps independent dependency chains; each lane's arithmetic is
exactly that of a scalar loop, so a lane's result never depends on the other lanes or their order.

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
from .outcomes import _HUGE, Lanes, _as_lanes


# ----------------------------------------------------------------------------- numba engine
# float state rows
_FX, _FY, _FE, _FTHR, _FLP, _FLPC, _FPROD, _FSCR, _FSLB, _FDLB, _FSMAX, _FSMAX0, _FXMAX0, _FDT0, _FQMIN, _FQMAX, _FCMIN, _FTAIL = range(18)
# int state rows
_ILANE, _ISTATUS, _IT, _ITBAR, _IBOUNCE, _IT0, _IBOUNCE0, _IQCNT, _ITSMALL = range(9)
_BLOCK = 8


def _block_load_py(F, N, b, i, x0, y0, eta):
    F[_FX, b] = x0[i]
    F[_FY, b] = y0[i]
    F[_FE, b] = eta[i]
    F[_FTHR, b] = 2.0 / eta[i]
    F[_FLP, b] = 0.0
    F[_FLPC, b] = 0.0
    F[_FPROD, b] = 1.0
    F[_FSCR, b] = np.nan
    F[_FSLB, b] = np.nan
    F[_FDLB, b] = np.nan
    F[_FSMAX, b] = 0.0
    F[_FSMAX0, b] = 0.0
    F[_FXMAX0, b] = 0.0
    F[_FDT0, b] = np.nan
    F[_FQMIN, b] = np.inf
    F[_FQMAX, b] = 0.0
    F[_FCMIN, b] = np.inf
    F[_FTAIL, b] = np.nan
    N[_ILANE, b] = i
    N[_ISTATUS, b] = -1  # running
    N[_IT, b] = 0
    N[_ITBAR, b] = -1
    N[_IBOUNCE, b] = 0
    N[_IT0, b] = -1
    N[_IBOUNCE0, b] = 0
    N[_IQCNT, b] = 0
    N[_ITSMALL, b] = -1


def _block_store_py(F, N, b, out_i, out_f):
    i = N[_ILANE, b]
    status = N[_ISTATUS, b]
    x = F[_FX, b]
    y = F[_FY, b]
    lp = F[_FLP, b]
    if F[_FPROD, b] != 1.0:
        lp += math.log(F[_FPROD, b]) - F[_FLPC, b]
    tail = F[_FTAIL, b]
    if status == 3:
        tail = np.nan
    elif status == 1:
        tail = 0.0
    qcnt = N[_IQCNT, b]
    out_i[0, i] = status
    out_i[1, i] = N[_IT, b]
    out_i[2, i] = N[_ITBAR, b]
    out_i[3, i] = N[_IBOUNCE, b]
    out_i[4, i] = N[_IT0, b]
    out_i[5, i] = N[_IBOUNCE0, b]
    out_i[6, i] = qcnt
    out_i[7, i] = N[_ITSMALL, b]
    out_f[0, i] = x
    out_f[1, i] = y
    out_f[2, i] = y * y - x * x
    out_f[3, i] = lp
    out_f[4, i] = tail
    out_f[5, i] = F[_FSCR, b]
    out_f[6, i] = F[_FSLB, b]
    out_f[7, i] = F[_FDLB, b]
    out_f[8, i] = F[_FSMAX, b]
    out_f[9, i] = F[_FSMAX0, b]
    out_f[10, i] = F[_FXMAX0, b]
    out_f[11, i] = F[_FDT0, b]
    out_f[12, i] = F[_FQMIN, b] if qcnt > 0 else np.nan
    out_f[13, i] = F[_FQMAX, b] if qcnt > 0 else np.nan
    out_f[14, i] = F[_FCMIN, b]


_block_load = numba.njit(_block_load_py)
_block_store = numba.njit(_block_store_py)


def _engine_py(dl, params, x0, y0, eta, max_steps, xtol, rtol, s_c, s_eps, beta, qs_lo, qs_hi, qs_shift, track, out_i, out_f):
    """Run every lane to its own stop; integer outputs in out_i[k, lane], floats in out_f[k, lane].

    Lanes are advanced in an interleaved block of _BLOCK slots (one step per slot per sweep, a
    finished lane's slot is refilled from the queue), so the CPU overlaps the latency chains of
    independent lanes; each lane's arithmetic is exactly that of a lone scalar loop.
    """
    n = x0.shape[0]
    F = np.empty((18, _BLOCK))
    N = np.empty((9, _BLOCK), dtype=np.int64)
    nxt = 0
    live = 0
    for b in range(_BLOCK):
        if nxt < n:
            _block_load(F, N, b, nxt, x0, y0, eta)
            nxt += 1
            live += 1
        else:
            N[_ISTATUS, b] = -2  # empty slot
    while live > 0:
        for b in range(_BLOCK):
            if N[_ISTATUS, b] != -1:
                continue
            i = N[_ILANE, b]
            x = F[_FX, b]
            y = F[_FY, b]
            e = F[_FE, b]
            t = N[_IT, b]
            status = -1
            if t >= max_steps:
                status = 3
            elif x == 0.0:
                status = 1
            else:
                s = x * y
                a = abs(s)
                y2 = y * y
                if a > F[_FSMAX, b]:
                    F[_FSMAX, b] = a
                t0 = N[_IT0, b]
                if t0 < 0 and (x <= 0.0 or a <= s_c):
                    t0 = t
                    N[_IT0, b] = t
                    F[_FDT0, b] = y2 - x * x
                if t0 >= 0:
                    if a > F[_FSMAX0, b]:
                        F[_FSMAX0, b] = a
                    if abs(x) > F[_FXMAX0, b]:
                        F[_FXMAX0, b] = abs(x)
                if N[_ITSMALL, b] < 0 and a <= s_eps:
                    N[_ITSMALL, b] = t
                if y2 > F[_FTHR, b]:
                    N[_IBOUNCE, b] += 1
                    delta = e * y2 - 2.0
                    F[_FSLB, b] = a
                    F[_FDLB, b] = delta
                    if t0 >= 0:
                        N[_IBOUNCE0, b] += 1
                        if beta > 0.0 and delta >= qs_lo[i] and delta <= qs_hi:
                            q = a ** beta / (delta + qs_shift[i])
                            N[_IQCNT, b] += 1
                            if q < F[_FQMIN, b]:
                                F[_FQMIN, b] = q
                            if q > F[_FQMAX, b]:
                                F[_FQMAX, b] = q
                elif N[_ITBAR, b] < 0 and y2 < F[_FTHR, b]:
                    N[_ITBAR, b] = t
                    F[_FSCR, b] = a
                g = dl(s, params)
                eg = e * g
                xn = x - eg * y
                yn = y - eg * x
                # product of (1 - (eta l')^2): multiplied in blocks, flushed into a Kahan-compensated log
                prod = F[_FPROD, b] * (1.0 - eg * eg)
                if prod < 1e-100 or (t & 1023) == 1023:
                    lp = F[_FLP, b]
                    term = math.log(prod) - F[_FLPC, b]
                    tmp = lp + term
                    F[_FLPC, b] = (tmp - lp) - term
                    F[_FLP, b] = tmp
                    prod = 1.0
                F[_FPROD, b] = prod
                if not (abs(xn) < _HUGE and abs(yn) < _HUGE):
                    status = 2
                else:
                    if track and N[_ITBAR, b] >= 0 and xn != 0.0:
                        rho = 2.0 - e * y2
                        if rho > 0.0:
                            c = math.log(abs(x) / abs(xn)) / rho
                            if c < F[_FCMIN, b]:
                                F[_FCMIN, b] = c
                    xo2 = x * x
                    if xn == 0.0:  # exactly on the y-axis: G(0, y) = (0, y) forever
                        status = 1
                    elif abs(xn) <= xtol:
                        status = 0
                    else:
                        xn2 = xn * xn
                        if xn2 < xo2 and rtol > 0.0:
                            # remaining relative drop of D: sum eta^2 l'^2 <= eta^2 y^2 sum x_k^2
                            # (|l'(s)| <= |s|) ~ eta^2 y^2 x^2 / (1 - q^2), q = |x_{t+1}/x_t|
                            num = e * e * yn * yn * xn2 * xo2
                            if num <= rtol * (xo2 - xn2):
                                F[_FTAIL, b] = num / (xo2 - xn2)
                                status = 0
                F[_FX, b] = xn
                F[_FY, b] = yn
                N[_IT, b] = t + 1
            if status != -1:
                N[_ISTATUS, b] = status
                _block_store(F, N, b, out_i, out_f)
                if nxt < n:
                    _block_load(F, N, b, nxt, x0, y0, eta)
                    nxt += 1
                else:
                    N[_ISTATUS, b] = -2
                    live -= 1
    return 0


_engine = numba.njit(nogil=True)(_engine_py)

_INT_FIELDS = ["outcome", "steps", "t_bar", "bounce", "t0", "bounce_from_t0", "qs_count", "t_small"]
_FLOAT_FIELDS = ["x", "y", "D", "log_prod", "tail", "s_cross", "s_last_bounce", "delta_last_bounce",
                 "s_max", "s_max_after_t0", "x_max_after_t0", "D_t0", "qs_min", "qs_max",
                 "contraction_min"]





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
        parallel: bool = False) -> Lanes:
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
    ``parallel``: two threads on interleaved lanes (results identical: lanes are independent).
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
        args = (int(max_steps), float(xtol), float(rtol), float(s_c), float(s_eps), b)
        if parallel and n > 1:
            # the compiled engine releases the GIL: two threads on interleaved lanes (0, 2, 4, ...
            # and 1, 3, 5, ...), so a grid sorted by cost (small η last) splits evenly
            from concurrent.futures import ThreadPoolExecutor

            def part(j):
                idx = np.arange(j, n, 2)
                oi = np.zeros((len(_INT_FIELDS), len(idx)), dtype=np.int64)
                of = np.zeros((len(_FLOAT_FIELDS), len(idx)), dtype=np.float64)
                _engine(kernel, params, x0[idx], y0[idx], eta[idx], *args, qs_lo[idx],
                        float(hi), qs_sh[idx], bool(contraction), oi, of)
                out_i[:, idx] = oi
                out_f[:, idx] = of

            with ThreadPoolExecutor(2) as pool:
                list(pool.map(part, range(2)))
        else:
            _engine(kernel, params, x0, y0, eta, *args, qs_lo, float(hi), qs_sh,
                    bool(contraction), out_i, out_f)
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

