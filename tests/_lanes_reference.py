"""Reference: the lane engine as it was before the blocked SIMD engine (one lane's arithmetic per
slot, 8 interleaved slots). Kept only for the bit-identity tests: the blocked engine must reproduce
every lane's stopping step and final state exactly."""
import math

import numba
import numpy as np

from verify.dynamics.outcomes import HUGE


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
                if not (abs(xn) < HUGE and abs(yn) < HUGE):
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

