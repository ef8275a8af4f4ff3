"""The compiled float64 kernel of the lane engine: GD on ℓ(xy), lanes in structure-of-arrays blocks.

One step of a lane is G_η(x, y) = (x − η ℓ'(xy) y, y − η ℓ'(xy) x) (Ahn et al. 2023, eq. (2)) plus the
bookkeeping of the first-class outputs (see :func:`verify.dynamics.run`).

Layout (why it is fast): a block of up to ``_WIDTH`` lane slots holds each state variable in its own
contiguous array (x of every slot, y of every slot, …). The innermost loop runs over the slots and is
branch-free (every conditional update is a select), so LLVM vectorises it across lanes (AVX2/AVX-512:
``sqrt`` and ``/`` included, as long as ℓ' has no libm call). Each slot's lane has its own step counter;
a lane that stops is frozen (its slot is a no-op) and every ``_CHUNK`` steps the finished slots are
written out and refilled from the queue. What a vector loop cannot do (a ``log`` to flush the running
product, the optional ``|s|^β`` ratio and ``log`` contraction) is flagged in the vector loop and done in
a scalar pass over the flagged slots right after the step, on the same values.

Determinism: a lane's arithmetic is exactly the scalar sequence of operations of a lone loop (no
fast-math, no FMA contraction; IEEE ``sqrt``/``/`` are correctly rounded in every vector width), so its
stopping step and final state never depend on the block width, on which other lanes share its block,
on the order of the lanes or on the number of threads (the caller splits lanes between threads).
"""
from __future__ import annotations

import math

import numba
import numpy as np

from .outcomes import _HUGE

_WIDTH = 64  # lane slots per block: 8 AVX-512 / 16 AVX2 vectors of float64
_CHUNK = 32  # steps between refills of finished slots

# rows of F (floats) and N (integers)
(_X, _Y, _E, _THR, _LP, _LPC, _PROD, _SCR, _SLB, _DLB, _SMAX, _SMAX0, _XMAX0, _DT0, _QMIN, _QMAX, _CMIN, _TAIL, _QSLO, _QSSH, _SA, _SDELTA, _SX, _SXN, _SRHO, _G) = range(26)
(_LANE, _ST, _T, _TBAR, _BOUNCE, _T0, _BOUNCE0, _QCNT, _TSMALL, _FLUSH, _QFLAG, _CFLAG) = range(12)
_NF, _NI = 26, 12

INT_FIELDS = ["outcome", "steps", "t_bar", "bounce", "t0", "bounce_from_t0", "qs_count", "t_small"]
FLOAT_FIELDS = ["x", "y", "D", "log_prod", "tail", "s_cross", "s_last_bounce", "delta_last_bounce",
                "s_max", "s_max_after_t0", "x_max_after_t0", "D_t0", "qs_min", "qs_max",
                "contraction_min"]


@numba.njit(nogil=True, error_model="numpy")
def engine(dl, params, lanes, x0, y0, eta, max_steps, xtol, rtol, s_c, s_eps, beta, qs_lo, qs_hi,
           qs_shift, track, out_i, out_f):
    """Run the lanes ``lanes`` (indices into x0, y0, eta) to their own stops; outputs go to column
    ``lane`` of out_i[k, lane] / out_f[k, lane] (rows in the order of INT_FIELDS / FLOAT_FIELDS)."""
    n = lanes.shape[0]
    w = min(_WIDTH, n)
    # per-slot state, structure of arrays: F[row, slot] floats, N[row, slot] integers. Two arrays of a
    # fixed width (not one array per variable) so that LLVM sees the rows cannot overlap and
    # vectorises the slot loop without run-time alias checks.
    F = np.zeros((_NF, _WIDTH))
    N = np.zeros((_NI, _WIDTH), np.int64)
    N[_ST, :] = -2  # -2 empty slot, -1 running, >= 0 the lane's Outcome
    qs_on = beta > 0.0
    nxt = 0
    live = 0
    for b in range(w):
        _load(b, lanes[nxt], x0, y0, eta, qs_lo, qs_shift, F, N)
        nxt += 1
        live += 1
    while live > 0:
        for _ in range(_CHUNK):
            for b in range(w):  # the vectorised loop: ℓ'(x y) of every slot (SIMD sqrt, / ...)
                F[_G, b] = dl(F[_X, b] * F[_Y, b], params)
            extra = 0
            for b in range(w):  # the bookkeeping of the step: selects, no calls
                x = F[_X, b]
                y = F[_Y, b]
                e = F[_E, b]
                t = N[_T, b]
                act = N[_ST, b] == -1
                at_budget = t >= max_steps
                on_axis = x == 0.0
                go = act & (not at_budget) & (not on_axis)
                s = x * y
                a = abs(s)
                y2 = y * y
                thr = F[_THR, b]
                F[_SMAX, b] = a if (go & (a > F[_SMAX, b])) else F[_SMAX, b]
                new_t0 = go & (N[_T0, b] < 0) & ((x <= 0.0) | (a <= s_c))
                t0 = t if new_t0 else N[_T0, b]
                N[_T0, b] = t0
                F[_DT0, b] = (y2 - x * x) if new_t0 else F[_DT0, b]
                after = go & (t0 >= 0)
                F[_SMAX0, b] = a if (after & (a > F[_SMAX0, b])) else F[_SMAX0, b]
                F[_XMAX0, b] = abs(x) if (after & (abs(x) > F[_XMAX0, b])) else F[_XMAX0, b]
                N[_TSMALL, b] = t if (go & (N[_TSMALL, b] < 0) & (a <= s_eps)) else N[_TSMALL, b]
                bouncing = go & (y2 > thr)
                delta = e * y2 - 2.0
                N[_BOUNCE, b] += 1 if bouncing else 0
                F[_SLB, b] = a if bouncing else F[_SLB, b]
                F[_DLB, b] = delta if bouncing else F[_DLB, b]
                bouncing0 = bouncing & (t0 >= 0)
                N[_BOUNCE0, b] += 1 if bouncing0 else 0
                qflag = qs_on & bouncing0 & (delta >= F[_QSLO, b]) & (delta <= qs_hi)
                cross = go & (not (y2 > thr)) & (N[_TBAR, b] < 0) & (y2 < thr)
                tbar = t if cross else N[_TBAR, b]
                N[_TBAR, b] = tbar
                F[_SCR, b] = a if cross else F[_SCR, b]
                g = F[_G, b]
                eg = e * g
                xn = x - eg * y
                yn = y - eg * x
                # product of (1 - (eta l')^2): multiplied in blocks, flushed into a Kahan-compensated
                # log in the scalar pass
                prod = F[_PROD, b] * (1.0 - eg * eg)
                F[_PROD, b] = prod if go else F[_PROD, b]
                flush = go & ((prod < 1e-100) | ((t & 1023) == 1023))
                diverged = not ((abs(xn) < _HUGE) & (abs(yn) < _HUGE))
                rho = 2.0 - e * y2
                cflag = go & track & (not diverged) & (tbar >= 0) & (xn != 0.0) & (rho > 0.0)
                xo2 = x * x
                frozen = xn == 0.0  # exactly on the y-axis: G(0, y) = (0, y) forever
                small = abs(xn) <= xtol
                xn2 = xn * xn
                # remaining relative drop of D: sum eta^2 l'^2 <= eta^2 y^2 sum x_k^2 (|l'(s)| <= |s|)
                # ~ eta^2 y^2 x^2 / (1 - q^2), q = |x_{t+1}/x_t|
                num = e * e * yn * yn * xn2 * xo2
                tail_ok = ((not diverged) & (not frozen) & (not small) & (xn2 < xo2) & (rtol > 0.0)
                           & (num <= rtol * (xo2 - xn2)))
                F[_TAIL, b] = num / (xo2 - xn2) if (go & tail_ok) else F[_TAIL, b]
                status = (3 if at_budget else 1 if on_axis else 2 if diverged else 1 if frozen
                          else 0 if (small | tail_ok) else -1)
                N[_ST, b] = status if act else N[_ST, b]
                F[_X, b] = xn if go else x
                F[_Y, b] = yn if go else y
                N[_T, b] = t + 1 if go else t
                N[_FLUSH, b] = 1 if flush else 0
                N[_QFLAG, b] = 1 if qflag else 0
                N[_CFLAG, b] = 1 if cflag else 0
                F[_SA, b] = a
                F[_SDELTA, b] = delta
                F[_SX, b] = x
                F[_SXN, b] = xn
                F[_SRHO, b] = rho
                extra |= (1 if flush else 0) | (1 if qflag else 0) | (1 if cflag else 0)
            if extra:
                for b in range(w):  # the scalar pass: logs and powers of the flagged slots
                    if N[_FLUSH, b]:
                        lp = F[_LP, b]
                        term = math.log(F[_PROD, b]) - F[_LPC, b]
                        tmp = lp + term
                        F[_LPC, b] = (tmp - lp) - term
                        F[_LP, b] = tmp
                        F[_PROD, b] = 1.0
                    if N[_QFLAG, b]:
                        q = F[_SA, b] ** beta / (F[_SDELTA, b] + F[_QSSH, b])
                        N[_QCNT, b] += 1
                        if q < F[_QMIN, b]:
                            F[_QMIN, b] = q
                        if q > F[_QMAX, b]:
                            F[_QMAX, b] = q
                    if N[_CFLAG, b]:
                        c = math.log(abs(F[_SX, b]) / abs(F[_SXN, b])) / F[_SRHO, b]
                        if c < F[_CMIN, b]:
                            F[_CMIN, b] = c
        for b in range(w):  # write out finished lanes, refill their slots
            if N[_ST, b] >= 0:
                _store(b, out_i, out_f, F, N)
                if nxt < n:
                    _load(b, lanes[nxt], x0, y0, eta, qs_lo, qs_shift, F, N)
                    nxt += 1
                else:
                    N[_ST, b] = -2
                    F[_X, b] = 0.0
                    F[_Y, b] = 0.0
                    F[_E, b] = 0.0
                    live -= 1
    return 0


@numba.njit
def _load(b, i, x0, y0, eta, qs_lo, qs_shift, F, N):
    F[_X, b] = x0[i]
    F[_Y, b] = y0[i]
    F[_E, b] = eta[i]
    F[_THR, b] = 2.0 / eta[i]
    F[_LP, b] = 0.0
    F[_LPC, b] = 0.0
    F[_PROD, b] = 1.0
    F[_SCR, b] = np.nan
    F[_SLB, b] = np.nan
    F[_DLB, b] = np.nan
    F[_SMAX, b] = 0.0
    F[_SMAX0, b] = 0.0
    F[_XMAX0, b] = 0.0
    F[_DT0, b] = np.nan
    F[_QMIN, b] = np.inf
    F[_QMAX, b] = 0.0
    F[_CMIN, b] = np.inf
    F[_TAIL, b] = np.nan
    F[_QSLO, b] = qs_lo[i]
    F[_QSSH, b] = qs_shift[i]
    N[_LANE, b] = i
    N[_ST, b] = -1
    N[_T, b] = 0
    N[_TBAR, b] = -1
    N[_BOUNCE, b] = 0
    N[_T0, b] = -1
    N[_BOUNCE0, b] = 0
    N[_QCNT, b] = 0
    N[_TSMALL, b] = -1


@numba.njit
def _store(b, out_i, out_f, F, N):
    i = N[_LANE, b]
    status = N[_ST, b]
    x = F[_X, b]
    y = F[_Y, b]
    lp = F[_LP, b]
    if F[_PROD, b] != 1.0:
        lp += math.log(F[_PROD, b]) - F[_LPC, b]
    tail = F[_TAIL, b]
    if status == 3:
        tail = np.nan
    elif status == 1:
        tail = 0.0
    qcnt = N[_QCNT, b]
    out_i[0, i] = status
    out_i[1, i] = N[_T, b]
    out_i[2, i] = N[_TBAR, b]
    out_i[3, i] = N[_BOUNCE, b]
    out_i[4, i] = N[_T0, b]
    out_i[5, i] = N[_BOUNCE0, b]
    out_i[6, i] = qcnt
    out_i[7, i] = N[_TSMALL, b]
    out_f[0, i] = x
    out_f[1, i] = y
    out_f[2, i] = y * y - x * x
    out_f[3, i] = lp
    out_f[4, i] = tail
    out_f[5, i] = F[_SCR, b]
    out_f[6, i] = F[_SLB, b]
    out_f[7, i] = F[_DLB, b]
    out_f[8, i] = F[_SMAX, b]
    out_f[9, i] = F[_SMAX0, b]
    out_f[10, i] = F[_XMAX0, b]
    out_f[11, i] = F[_DT0, b]
    out_f[12, i] = F[_QMIN, b] if qcnt > 0 else np.nan
    out_f[13, i] = F[_QMAX, b] if qcnt > 0 else np.nan
    out_f[14, i] = F[_CMIN, b]
