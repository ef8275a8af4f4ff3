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
    # per-slot state (structure of arrays)
    X = np.zeros(w)
    Y = np.zeros(w)
    E = np.zeros(w)
    THR = np.zeros(w)
    LP = np.zeros(w)
    LPC = np.zeros(w)
    PROD = np.ones(w)
    SCR = np.zeros(w)
    SLB = np.zeros(w)
    DLB = np.zeros(w)
    SMAX = np.zeros(w)
    SMAX0 = np.zeros(w)
    XMAX0 = np.zeros(w)
    DT0 = np.zeros(w)
    QMIN = np.zeros(w)
    QMAX = np.zeros(w)
    CMIN = np.zeros(w)
    TAIL = np.zeros(w)
    QSLO = np.zeros(w)
    QSSH = np.zeros(w)
    LANE = np.zeros(w, np.int64)
    ST = np.full(w, -2, np.int64)  # -2 empty slot, -1 running, >= 0 the lane's Outcome
    T = np.zeros(w, np.int64)
    TBAR = np.zeros(w, np.int64)
    BOUNCE = np.zeros(w, np.int64)
    T0 = np.zeros(w, np.int64)
    BOUNCE0 = np.zeros(w, np.int64)
    QCNT = np.zeros(w, np.int64)
    TSMALL = np.zeros(w, np.int64)
    # values of the last step for the scalar pass
    FLUSH = np.zeros(w, np.int64)
    QFLAG = np.zeros(w, np.int64)
    CFLAG = np.zeros(w, np.int64)
    SA = np.zeros(w)
    SDELTA = np.zeros(w)
    SX = np.zeros(w)
    SXN = np.zeros(w)
    SRHO = np.zeros(w)
    qs_on = beta > 0.0
    nxt = 0
    live = 0
    for b in range(w):
        _load(b, lanes[nxt], x0, y0, eta, qs_lo, qs_shift, X, Y, E, THR, LP, LPC, PROD, SCR, SLB, DLB,
              SMAX, SMAX0, XMAX0, DT0, QMIN, QMAX, CMIN, TAIL, QSLO, QSSH, LANE, ST, T, TBAR, BOUNCE, T0,
              BOUNCE0, QCNT, TSMALL)
        nxt += 1
        live += 1
    while live > 0:
        for _ in range(_CHUNK):
            extra = 0
            for b in range(w):  # the vectorised loop: selects only, no calls besides ℓ'
                x = X[b]
                y = Y[b]
                e = E[b]
                t = T[b]
                act = ST[b] == -1
                at_budget = t >= max_steps
                on_axis = x == 0.0
                go = act and not at_budget and not on_axis
                s = x * y
                a = abs(s)
                y2 = y * y
                thr = THR[b]
                SMAX[b] = a if (go and a > SMAX[b]) else SMAX[b]
                new_t0 = go and T0[b] < 0 and (x <= 0.0 or a <= s_c)
                t0 = t if new_t0 else T0[b]
                T0[b] = t0
                DT0[b] = (y2 - x * x) if new_t0 else DT0[b]
                after = go and t0 >= 0
                SMAX0[b] = a if (after and a > SMAX0[b]) else SMAX0[b]
                XMAX0[b] = abs(x) if (after and abs(x) > XMAX0[b]) else XMAX0[b]
                TSMALL[b] = t if (go and TSMALL[b] < 0 and a <= s_eps) else TSMALL[b]
                bouncing = go and y2 > thr
                delta = e * y2 - 2.0
                BOUNCE[b] += 1 if bouncing else 0
                SLB[b] = a if bouncing else SLB[b]
                DLB[b] = delta if bouncing else DLB[b]
                bouncing0 = bouncing and t0 >= 0
                BOUNCE0[b] += 1 if bouncing0 else 0
                qflag = qs_on and bouncing0 and delta >= QSLO[b] and delta <= qs_hi
                cross = go and not (y2 > thr) and TBAR[b] < 0 and y2 < thr
                tbar = t if cross else TBAR[b]
                TBAR[b] = tbar
                SCR[b] = a if cross else SCR[b]
                g = dl(s, params)
                eg = e * g
                xn = x - eg * y
                yn = y - eg * x
                # product of (1 - (eta l')^2): multiplied in blocks, flushed into a Kahan-compensated
                # log in the scalar pass
                prod = PROD[b] * (1.0 - eg * eg)
                PROD[b] = prod if go else PROD[b]
                flush = go and (prod < 1e-100 or (t & 1023) == 1023)
                diverged = not (abs(xn) < _HUGE and abs(yn) < _HUGE)
                rho = 2.0 - e * y2
                cflag = go and track and not diverged and tbar >= 0 and xn != 0.0 and rho > 0.0
                xo2 = x * x
                frozen = xn == 0.0  # exactly on the y-axis: G(0, y) = (0, y) forever
                small = abs(xn) <= xtol
                xn2 = xn * xn
                # remaining relative drop of D: sum eta^2 l'^2 <= eta^2 y^2 sum x_k^2 (|l'(s)| <= |s|)
                # ~ eta^2 y^2 x^2 / (1 - q^2), q = |x_{t+1}/x_t|
                num = e * e * yn * yn * xn2 * xo2
                tail_ok = (not diverged and not frozen and not small and xn2 < xo2 and rtol > 0.0
                           and num <= rtol * (xo2 - xn2))
                TAIL[b] = num / (xo2 - xn2) if (go and tail_ok) else TAIL[b]
                status = (3 if at_budget else 1 if on_axis else 2 if diverged else 1 if frozen
                          else 0 if (small or tail_ok) else -1)
                ST[b] = status if act else ST[b]
                X[b] = xn if go else x
                Y[b] = yn if go else y
                T[b] = t + 1 if go else t
                FLUSH[b] = 1 if flush else 0
                QFLAG[b] = 1 if qflag else 0
                CFLAG[b] = 1 if cflag else 0
                SA[b] = a
                SDELTA[b] = delta
                SX[b] = x
                SXN[b] = xn
                SRHO[b] = rho
                extra |= (1 if flush else 0) | (1 if qflag else 0) | (1 if cflag else 0)
            if extra:
                for b in range(w):  # the scalar pass: logs and powers of the flagged slots
                    if FLUSH[b]:
                        lp = LP[b]
                        term = math.log(PROD[b]) - LPC[b]
                        tmp = lp + term
                        LPC[b] = (tmp - lp) - term
                        LP[b] = tmp
                        PROD[b] = 1.0
                    if QFLAG[b]:
                        q = SA[b] ** beta / (SDELTA[b] + QSSH[b])
                        QCNT[b] += 1
                        if q < QMIN[b]:
                            QMIN[b] = q
                        if q > QMAX[b]:
                            QMAX[b] = q
                    if CFLAG[b]:
                        c = math.log(abs(SX[b]) / abs(SXN[b])) / SRHO[b]
                        if c < CMIN[b]:
                            CMIN[b] = c
        for b in range(w):  # write out finished lanes, refill their slots
            if ST[b] >= 0:
                _store(b, out_i, out_f, X, Y, LP, LPC, PROD, SCR, SLB, DLB, SMAX, SMAX0, XMAX0, DT0, QMIN,
                       QMAX, CMIN, TAIL, LANE, ST, T, TBAR, BOUNCE, T0, BOUNCE0, QCNT, TSMALL)
                if nxt < n:
                    _load(b, lanes[nxt], x0, y0, eta, qs_lo, qs_shift, X, Y, E, THR, LP, LPC, PROD, SCR,
                          SLB, DLB, SMAX, SMAX0, XMAX0, DT0, QMIN, QMAX, CMIN, TAIL, QSLO, QSSH, LANE, ST,
                          T, TBAR, BOUNCE, T0, BOUNCE0, QCNT, TSMALL)
                    nxt += 1
                else:
                    ST[b] = -2
                    X[b] = 0.0
                    Y[b] = 0.0
                    E[b] = 0.0
                    live -= 1
    return 0


@numba.njit
def _load(b, i, x0, y0, eta, qs_lo, qs_shift, X, Y, E, THR, LP, LPC, PROD, SCR, SLB, DLB, SMAX, SMAX0,
          XMAX0, DT0, QMIN, QMAX, CMIN, TAIL, QSLO, QSSH, LANE, ST, T, TBAR, BOUNCE, T0, BOUNCE0, QCNT,
          TSMALL):
    X[b] = x0[i]
    Y[b] = y0[i]
    E[b] = eta[i]
    THR[b] = 2.0 / eta[i]
    LP[b] = 0.0
    LPC[b] = 0.0
    PROD[b] = 1.0
    SCR[b] = np.nan
    SLB[b] = np.nan
    DLB[b] = np.nan
    SMAX[b] = 0.0
    SMAX0[b] = 0.0
    XMAX0[b] = 0.0
    DT0[b] = np.nan
    QMIN[b] = np.inf
    QMAX[b] = 0.0
    CMIN[b] = np.inf
    TAIL[b] = np.nan
    QSLO[b] = qs_lo[i]
    QSSH[b] = qs_shift[i]
    LANE[b] = i
    ST[b] = -1
    T[b] = 0
    TBAR[b] = -1
    BOUNCE[b] = 0
    T0[b] = -1
    BOUNCE0[b] = 0
    QCNT[b] = 0
    TSMALL[b] = -1


@numba.njit
def _store(b, out_i, out_f, X, Y, LP, LPC, PROD, SCR, SLB, DLB, SMAX, SMAX0, XMAX0, DT0, QMIN, QMAX, CMIN,
           TAIL, LANE, ST, T, TBAR, BOUNCE, T0, BOUNCE0, QCNT, TSMALL):
    i = LANE[b]
    status = ST[b]
    x = X[b]
    y = Y[b]
    lp = LP[b]
    if PROD[b] != 1.0:
        lp += math.log(PROD[b]) - LPC[b]
    tail = TAIL[b]
    if status == 3:
        tail = np.nan
    elif status == 1:
        tail = 0.0
    qcnt = QCNT[b]
    out_i[0, i] = status
    out_i[1, i] = T[b]
    out_i[2, i] = TBAR[b]
    out_i[3, i] = BOUNCE[b]
    out_i[4, i] = T0[b]
    out_i[5, i] = BOUNCE0[b]
    out_i[6, i] = qcnt
    out_i[7, i] = TSMALL[b]
    out_f[0, i] = x
    out_f[1, i] = y
    out_f[2, i] = y * y - x * x
    out_f[3, i] = lp
    out_f[4, i] = tail
    out_f[5, i] = SCR[b]
    out_f[6, i] = SLB[b]
    out_f[7, i] = DLB[b]
    out_f[8, i] = SMAX[b]
    out_f[9, i] = SMAX0[b]
    out_f[10, i] = XMAX0[b]
    out_f[11, i] = DT0[b]
    out_f[12, i] = QMIN[b] if qcnt > 0 else np.nan
    out_f[13, i] = QMAX[b] if qcnt > 0 else np.nan
    out_f[14, i] = CMIN[b]
