"""Mini-batch SGD lanes on the diagonal linear network (even2023, eqs. (1)-(3) with |B_k| = b < n),
stepped side by side in a pool of slots.

u_{k+1} = u_k − s_k ⊙ v_k, v_{k+1} = v_k − s_k ⊙ u_k, s_k = γ ∇L_{B_k}(β_k), from (√2α, 0); the batch of
step k is a uniform b-subset drawn by a partial Fisher-Yates shuffle from ``np.random.seed(seed)``,
independent over k, so it depends only on the lane's seed and k. The batches of every seed are drawn
first (:func:`batch_table`, numba's generator, the same draws in the same order as a lane drawing its
own), then the lanes run in a pool of ``POOL`` slots: the state is one array, field-major then
coordinate-major with the slots contiguous (``ST[f, j, l]``), every inner loop runs over the slots, and
each lane keeps its own sums in their order (the dot product x_i·β_k over j ascending, one chain per
lane). That hides the latency of those chains, which bounded a one-lane-at-a-time loop (bench
``even2023.sgd_lanes``). A lane that stops leaves the pool (the last live slot takes its place) and
the next lane enters at the next full-loss check, so the pool stays full until the lanes run out.

The arithmetic per lane is the operation sequence of one lane run alone, so every result is the one the
lane gets alone (tests/test_even2023_sgd_lanes.py: the pool against lanes run one by one and against a
plain one-lane loop), up to the sign and payload of a NaN (the curvature sums are NaN by design for
b > 1; which NaN operand propagates is the hardware's choice). The one place
where lanes share a decision is the number of q_± series terms: the pool uses the largest any live lane
needs; a lane that needs fewer gets the same bits, because each skipped term is below an eighth of an
ulp of its sum (:func:`._qseries.series_terms`; tests/test_dln_step.py checks the counts 3, 5 and 7 on
440k cases, tests/test_even2023_sgd_lanes.py the pool's counts 1 to 7 at every switch point).
Two shortcuts give the same bits with less work: the series branch updates by q_±'s halves
(:func:`._qseries.q_halves`), and for b = 1 max_j |s_j| is read off the batch row's widest column
(:func:`_one_row_steps_into`); fact6's SGD calls take ~0.88x the time they took without them. The
series sums 1, 2, 3, 5 or 7 terms (the pool's largest :func:`._qseries.series_terms`): 0.96x the time of
3, 5 or 7 on fact6's SGD calls, the same bits.

The same SGD declared on the step-kernel engine, :mod:`._dln_sgd_step` (this pool's bits up to which NaN
the curvature sums hold for b > 1, tests/test_dln_sgd_step.py), is :func:`._dln.run_lanes`' default: ~0.9x
this pool's time on the catalogue's SGD calls (``verify bench even2023.dln_sgd_step`` compares them). This
pool runs on request (``run_lanes(..., sgd_engine="pool")``) and is the declared kernel's test oracle.

Stopping (per lane): every ``check_every`` steps the full loss L(β_k) — ``blown_up`` if not finite or
> 1e250, ``converged`` at L ≤ tol_rel·L(β_0); after a step ``hit_pm1`` if some s_{k,j} = ±1, ``blown_up``
if sup_k ‖s_k‖_∞ is not finite or > 1e120; ``stalled`` when the budget runs out, unless the full loss
then meets the tolerance.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from verify.bench import benchmark, best_of

from ._qseries import _qpm, q_halves, q_series, series_terms

CONVERGED_CODE, STALLED_CODE, BLOWN_CODE, HIT_CODE = 0, 1, 2, 3   # _dln.OUTCOMES' order
POOL = 32                    # slots stepped together (at d = 30 their state fits the 1 MB L2 cache)
VECTOR = 16                  # the loops over slots run over the live ones rounded up to a multiple of 16
                             # (the compiler's vector loop takes 16 at a time; shorter loops ran scalar),
                             # or to 8 or 4 when at most that many are live (see _width); idle slots hold
                             # γ = 0 and a zero state, which s = 0 keeps
TABLE_BYTES = 1 << 28        # the batch tables of one kernel call at most (seeds are split beyond)
# the fields of the pool's state array ST[f, j, l]: the state carried from step to step (u, v, ln α_±,
# Gain, Σ s²; the first _CARRIED fields), then the step's s, q_±, batch row x_i and batch gradient
_U, _V, _LP, _LM, _GAIN, _S2, _SS, _QP, _QM, _XB, _G = range(11)
_CARRIED = 6
_FIELDS = 11
# per-slot numbers SC[f, l]: the first _SLOT_OUT are written out per lane (OUT_S), the rest is scratch
_MAXS, _SUML, _LAST, _CURV0, _CURV1, _GAM, _ACC, _LB, _MA, _HIT = range(10)
_SLOT_OUT = 5
_SLOT_FLOATS = 10
# per-slot integers SI[f, l]: the lane in the slot, its step count, its outcome at this step (-1: runs
# on), its batch row; per-lane integer outputs OUT_I[f, lane]
_LANE, _K, _CODE, _ROW = range(4)
_SLOT_INTS = 4
_STATUS, _STEPS = range(2)


@njit(cache=True)
def batch_table(seeds, n, b, steps):
    """rows[s, k, t]: the t-th row of step k's batch for ``seeds[s]``, drawn as one lane draws them:
    ``np.random.seed(seed)``, then per step a partial Fisher-Yates shuffle of a persistent permutation."""
    rows = np.empty((seeds.shape[0], steps, b), np.int32)
    perm = np.empty(n, np.int64)
    for s in range(seeds.shape[0]):
        np.random.seed(seeds[s])
        for i in range(n):
            perm[i] = i
        for k in range(steps):
            for t in range(b):
                jj = t + np.random.randint(n - t)
                tmp = perm[t]
                perm[t] = perm[jj]
                perm[jj] = tmp
            for t in range(b):
                rows[s, k, t] = perm[t]
    return rows


@njit(inline="always")
def _width(w):
    """The slots a loop over ``w`` live ones runs over: 4 or 8 when at most that many are live, else w
    rounded up to a multiple of VECTOR. The γ̃_max bisection's rounds have 8 lanes, which ran 16 wide;
    8 wide they take ~25% less time (E1, b = 1, 8 lanes near γ̃_max, 400k steps: 1.9 s -> 1.4 s). Which
    idle slots a loop also steps changes no live lane's bits."""
    if w <= 4:
        return 4
    if w <= 8:
        return 8
    return (w + VECTOR - 1) // VECTOR * VECTOR


@njit(inline="always")
def _apply(STF, e, s, qp, qm):
    """One coordinate's step (even2023 eqs. (2)-(3) in the log domain of spec §0.6):
    ln α_± −= q_±/2, Gain += (q_+ + q_−)/2, Σ s² += s², u ← u − s v, v ← v − s u. ``STF`` is the
    pool's state with coordinates and slots flattened (STF[f, j·pool + l] = ST[f, j, l])."""
    STF[_LP, e] -= 0.5 * qp
    STF[_LM, e] -= 0.5 * qm
    STF[_GAIN, e] += 0.5 * (qp + qm)
    STF[_S2, e] += s * s
    uj = STF[_U, e]
    STF[_U, e] = uj - s * STF[_V, e]
    STF[_V, e] = STF[_V, e] - s * uj


@njit(inline="always")
def _apply_halves(STF, e, s, hp, hm):
    """:func:`_apply` given the halves hp = q_+/2, hm = q_−/2 (:func:`._qseries.q_halves`: the same
    bits as 0.5·q_±, 0.5·(q_+ + q_−) there, with fewer operations)."""
    STF[_LP, e] -= hp
    STF[_LM, e] -= hm
    STF[_GAIN, e] += hp + hm
    STF[_S2, e] += s * s
    uj = STF[_U, e]
    STF[_U, e] = uj - s * STF[_V, e]
    STF[_V, e] = STF[_V, e] - s * uj


# The three element-wise passes below run over the elements e = j·pool + l of the slots 0..nv−1. When
# nv is the whole pool (most steps of a full pool) that is one flat loop instead of one short loop per
# coordinate (each with its own entry checks: the fixed cost that made 8-slot pools ~1.5-4x dearer
# per lane-step than a full one).

@njit(inline="always")
def _series_update(STF, d, pool, nv, terms):
    """q_± by the series with ``terms`` terms fused with the state update, for steps in which no live
    lane has |s_j| >= 0.05 (_dln's _series and update, lane by lane), by their halves
    (:func:`._qseries.q_halves`: the same bits, ~10% less time per SGD step at E1)."""
    if nv == pool:
        for e in range(d * pool):
            sv = STF[_SS, e]
            hp, hm = q_halves(sv, terms)
            _apply_halves(STF, e, sv, hp, hm)
        return
    for j in range(d):
        for e in range(j * pool, j * pool + nv):
            sv = STF[_SS, e]
            hp, hm = q_halves(sv, terms)
            _apply_halves(STF, e, sv, hp, hm)


@njit(inline="always")
def _series_into(STF, d, pool, nv):
    """q_± by the full series (7 terms) into the QP, QM fields, for steps where some lane has
    |s_j| >= 0.05."""
    if nv == pool:
        for e in range(d * pool):
            STF[_QP, e], STF[_QM, e] = q_series(STF[_SS, e], 7)
        return
    for j in range(d):
        for e in range(j * pool, j * pool + nv):
            STF[_QP, e], STF[_QM, e] = q_series(STF[_SS, e], 7)


@njit(inline="always")
def _update(STF, d, pool, nv):
    """The state update from s and q_± (the SS, QP, QM fields)."""
    if nv == pool:
        for e in range(d * pool):
            _apply(STF, e, STF[_SS, e], STF[_QP, e], STF[_QM, e])
        return
    for j in range(d):
        for e in range(j * pool, j * pool + nv):
            _apply(STF, e, STF[_SS, e], STF[_QP, e], STF[_QM, e])


@njit(inline="always")
def _residuals_into(R, XT, ST, B, nv):
    """R[i, l] += Σ_j x_ij β_j (slot l's β = u ⊙ v, into B first: once per coordinate, not once per
    row), over j in order. Four coordinates per pass (R ← (((R + x_ij β_j) + …) + x_i,j+3 β_j+3): the
    same additions in the same order, with R loaded and stored once per four terms instead of once
    per term)."""
    d = ST.shape[1]
    n = R.shape[0]
    for j in range(d):
        for l in range(nv):
            B[j, l] = ST[_U, j, l] * ST[_V, j, l]
    j = 0
    while j + 4 <= d:
        for i in range(n):
            x0 = XT[j, i]
            x1 = XT[j + 1, i]
            x2 = XT[j + 2, i]
            x3 = XT[j + 3, i]
            for l in range(nv):
                R[i, l] = ((((R[i, l] + x0 * B[j, l]) + x1 * B[j + 1, l]) + x2 * B[j + 2, l])
                           + x3 * B[j + 3, l])
        j += 4
    for jr in range(j, d):
        for i in range(n):
            xji = XT[jr, i]
            for l in range(nv):
                R[i, l] += xji * B[jr, l]


@njit(inline="always")
def _batch_dot_into(SC, ST, nv):
    """SC[_ACC, l] += x·β of slot l's batch row (the XB field), over j in order; four coordinates per
    pass, as :func:`_residuals_into`."""
    d = ST.shape[1]
    j = 0
    while j + 4 <= d:
        for l in range(nv):
            SC[_ACC, l] = ((((SC[_ACC, l] + ST[_XB, j, l] * (ST[_U, j, l] * ST[_V, j, l]))
                             + ST[_XB, j + 1, l] * (ST[_U, j + 1, l] * ST[_V, j + 1, l]))
                            + ST[_XB, j + 2, l] * (ST[_U, j + 2, l] * ST[_V, j + 2, l]))
                           + ST[_XB, j + 3, l] * (ST[_U, j + 3, l] * ST[_V, j + 3, l]))
        j += 4
    for jr in range(j, d):
        for l in range(nv):
            SC[_ACC, l] += ST[_XB, jr, l] * (ST[_U, jr, l] * ST[_V, jr, l])


@njit(inline="always")
def _steps_into(SC, ST, nv):
    """b > 1: s_j = γ g_j (g_j from the G field) into the SS field and max_j |s_j| into SC[_MA] (NaN
    ignored, as `if a > ma`), for the slots 0..nv−1; four coordinates per pass, so that the running
    max is loaded and stored once per four of them (the same comparisons in the same order)."""
    d = ST.shape[1]
    j = 0
    while j + 4 <= d:
        for l in range(nv):
            s0 = SC[_GAM, l] * ST[_G, j, l]
            s1 = SC[_GAM, l] * ST[_G, j + 1, l]
            s2 = SC[_GAM, l] * ST[_G, j + 2, l]
            s3 = SC[_GAM, l] * ST[_G, j + 3, l]
            ST[_SS, j, l] = s0
            ST[_SS, j + 1, l] = s1
            ST[_SS, j + 2, l] = s2
            ST[_SS, j + 3, l] = s3
            m = SC[_MA, l]
            a = abs(s0)
            m = a if a > m else m
            a = abs(s1)
            m = a if a > m else m
            a = abs(s2)
            m = a if a > m else m
            a = abs(s3)
            m = a if a > m else m
            SC[_MA, l] = m
        j += 4
    for jr in range(j, d):
        for l in range(nv):
            sv = SC[_GAM, l] * ST[_G, jr, l]
            ST[_SS, jr, l] = sv
            a = abs(sv)
            SC[_MA, l] = a if a > SC[_MA, l] else SC[_MA, l]


@njit(cache=True)
def _final_loss(X, y, u, v):
    """The full loss ½‖Xβ − y‖²/n at β = u ⊙ v: r_i over j ascending, then np.sum(r²)."""
    n, d = X.shape
    beta = u * v
    r = np.empty(n)
    for i in range(n):
        acc = -y[i]
        for j in range(d):
            acc += X[i, j] * beta[j]
        r[i] = acc
    return 0.5 * np.sum(r * r) / n


@njit(cache=True)
def _widest_columns(X):
    """j*(i): the first j of largest |x_ij| in each row i (see :func:`_one_row_steps_into`)."""
    n, d = X.shape
    jmax = np.zeros(n, np.int64)
    for i in range(n):
        for j in range(d):
            if abs(X[i, j]) > abs(X[i, jmax[i]]):
                jmax[i] = j
    return jmax


@njit(inline="always")
def _one_row_steps_into(SC, SI, ST, jmax, nv):
    """:func:`_steps_into` for b = 1: s_j = γ (0 + r x_ij) (x/1 = x exactly: a lane alone's bits, no
    division), and the max without a comparison per coordinate: max_j |s_j| is
    |s_j*| at j* = ``jmax[i]`` of the slot's row i, because |fl(γ·fl(0 + fl(r·x)))| =
    fl(|γ|·fl(|r|·|x|)) is non-decreasing in |x| (round-to-nearest is symmetric and monotone,
    overflow included; ties in |x| give equal |s|). The NaN cases agree with the running max, which
    skips NaN from 0: a NaN s_j* (r or γ NaN, or infinite times a zero) makes every s_j NaN (x_ij* = 0
    zeroes the row; fl(r·x_ij*) = 0 zeroes every fl(r·x_ij)), and both give 0."""
    for j in range(ST.shape[1]):
        for l in range(nv):
            ST[_SS, j, l] = SC[_GAM, l] * (0.0 + SC[_ACC, l] * ST[_XB, j, l])
    for l in range(nv):
        a = abs(ST[_SS, jmax[SI[_ROW, l]], l])  # the slot's batch row i is copied in the XB field
        SC[_MA, l] = a if a > 0.0 else 0.0


@njit(cache=True)
def _retire(w, SC, SI, ST, OUT_D, OUT_S, OUT_I, X, y, tol_rel, L0):
    """Write out the lanes whose code is set and close the gaps with the last live slots; a stalled
    lane gets its final full loss (converged if it meets the tolerance). Returns the number of live
    slots left. A freed slot idles: γ = 0, a zero state and step count."""
    d = ST.shape[1]
    l = w - 1
    while l >= 0:
        code = SI[_CODE, l]
        if code >= 0:
            lane = SI[_LANE, l]
            OUT_I[_STATUS, lane] = code
            OUT_I[_STEPS, lane] = SI[_K, l]
            for f in range(_CARRIED):
                for j in range(d):
                    OUT_D[f, lane, j] = ST[f, j, l]
            for f in range(_SLOT_OUT):
                OUT_S[f, lane] = SC[f, l]
            if code == STALLED_CODE:
                final = _final_loss(X, y, OUT_D[_U, lane], OUT_D[_V, lane])
                OUT_S[_LAST, lane] = final
                if final <= tol_rel * L0:
                    OUT_I[_STATUS, lane] = CONVERGED_CODE
            last = w - 1   # slots above l are live (retired ones were filled from above)
            if last != l:
                for f in range(_SLOT_FLOATS):
                    SC[f, l] = SC[f, last]
                for f in range(_SLOT_INTS):
                    SI[f, l] = SI[f, last]
                for f in range(_CARRIED):
                    for j in range(d):
                        ST[f, j, l] = ST[f, j, last]
            for f in range(_SLOT_FLOATS):
                SC[f, last] = 0.0
            for f in range(_SLOT_INTS):
                SI[f, last] = 0
            for f in range(_CARRIED):
                for j in range(d):
                    ST[f, j, last] = 0.0
            for j in range(d):       # s = 0 too: a pass over the whole pool steps idle slots, and
                ST[_SS, j, last] = 0.0   # s = 0 keeps their zero state (every field stays +0)
            w -= 1
        l -= 1
    return w


@njit(cache=True)
def sgd_lanes_kernel(X, y, alpha, gammas, seed_index, rows, max_steps, tol_rel, check_every, n_snap,
                     lam_batch, pool):
    """SGD lanes (b = rows.shape[2] < n), lane i drawing the batches ``rows[seed_index[i]]``.

    Returns (OUT_D, OUT_S, OUT_I, FIRST, SNAP): per lane the carried state (u, v, ln α_±, Gain, Σ s²),
    (max_k ‖s_k‖_∞, Σ_k L_{B_k}(β_k), final full loss, the two curvature sums), (outcome, steps),
    L(β_0) and the gains Gain^{(2^j)}."""
    L = gammas.shape[0]
    n, d = X.shape
    b = rows.shape[2]
    pool = _width(max(1, min(pool, L)))
    OUT_D = np.zeros((_CARRIED, L, d))
    OUT_S = np.zeros((_SLOT_OUT, L))
    OUT_I = np.zeros((2, L), np.int64)
    FIRST = np.zeros(L)
    SNAP = np.zeros((L, n_snap, d))
    ln_alpha = np.log(alpha)
    XT = np.ascontiguousarray(X.T)
    L0 = 0.5 * np.sum(y * y) / n
    # the pool, one array per kind: field f of coordinate j of slot l at ST[f, j, l] (slots contiguous:
    # with fixed field offsets in one array the compiler vectorises the slot loops without run-time
    # overlap checks between a dozen arrays), per-slot numbers at SC[f, l] and SI[f, l]; slots 0..w-1
    # are live
    ST = np.zeros((_FIELDS, d, pool))
    STF = ST.reshape((_FIELDS, d * pool))    # the same memory, coordinates and slots flattened
    SC = np.zeros((_SLOT_FLOATS, pool))
    SI = np.zeros((_SLOT_INTS, pool), np.int64)
    R = np.zeros((n, pool))
    B = np.zeros((d, pool))      # β = u ⊙ v at a full-loss check
    jmax = _widest_columns(X)
    nxt = 0        # the next lane to enter
    w = 0          # live slots
    g_step = 0     # the pool's steps; lanes enter when it is ≡ 0 mod check_every
    while w > 0 or nxt < L:
        if w == 0:     # (an empty pool waits for nothing: to the next entry step)
            g_step = (g_step + check_every - 1) // check_every * check_every
        if g_step % check_every == 0:
            while True:
                # lanes enter at their step 0, here, so every lane's full-loss checks fall on this step
                while w < pool and nxt < L:
                    SI[_LANE, w] = nxt
                    SI[_K, w] = 0
                    SC[_GAM, w] = gammas[nxt]
                    SC[_LAST, w] = L0
                    FIRST[nxt] = L0
                    for j in range(d):
                        ST[_U, j, w] = np.sqrt(2.0) * alpha[j]
                        ST[_LP, j, w] = ln_alpha[j]
                        ST[_LM, j, w] = ln_alpha[j]
                    nxt += 1
                    w += 1
                nv = _width(w)
                for l in range(w):
                    SI[_CODE, l] = STALLED_CODE if SI[_K, l] >= max_steps else -1
                # the full loss: r_i = −y_i + Σ_j x_ij β_j (j ascending), then Σ_i r_i² (i ascending)
                for i in range(n):
                    for l in range(nv):
                        R[i, l] = -y[i]
                _residuals_into(R, XT, ST, B, nv)
                for l in range(nv):
                    SC[_ACC, l] = 0.0
                for i in range(n):
                    for l in range(nv):
                        SC[_ACC, l] += R[i, l] * R[i, l]
                for l in range(w):
                    if SI[_CODE, l] >= 0:      # out of budget: no check (the final loss instead)
                        continue
                    loss = 0.5 * SC[_ACC, l] / n
                    SC[_LAST, l] = loss
                    if not np.isfinite(loss) or loss > 1e250:
                        SI[_CODE, l] = BLOWN_CODE
                    elif loss <= tol_rel * L0:
                        SI[_CODE, l] = CONVERGED_CODE
                live = w
                w = _retire(w, SC, SI, ST, OUT_D, OUT_S, OUT_I, X, y, tol_rel, L0)
                if w == live or nxt >= L:
                    break
            if w == 0:
                continue
        nv = _width(w)
        for l in range(nv):
            SC[_LB, l] = 0.0
            SC[_MA, l] = 0.0
            SC[_HIT, l] = 0.0
            SI[_CODE, l] = -1
        if b > 1:
            for j in range(d):
                for l in range(nv):
                    ST[_G, j, l] = 0.0
        for tb in range(b):
            for l in range(w):     # (live slots only: an idle slot's step count is not a step)
                SI[_ROW, l] = rows[seed_index[SI[_LANE, l]], SI[_K, l], tb]
            # r = x_i·β − y_i for each lane's row i (j ascending: one chain per lane), the batch loss
            for l in range(nv):
                SC[_ACC, l] = -y[SI[_ROW, l]]
            for l in range(nv):      # each slot's row, copied whole (contiguous loads; the loop below
                row = SI[_ROW, l]    # then vectorises over the slots without a gather)
                for j in range(d):
                    ST[_XB, j, l] = X[row, j]
            _batch_dot_into(SC, ST, nv)
            for l in range(nv):
                SC[_LB, l] += 0.5 * SC[_ACC, l] * SC[_ACC, l] / b
            if b > 1:
                for j in range(d):
                    for l in range(nv):
                        ST[_G, j, l] += SC[_ACC, l] * ST[_XB, j, l] / b
        # s_j = γ g_j, with max_j |s_j| per lane
        if b == 1:
            _one_row_steps_into(SC, SI, ST, jmax, nv)
        else:
            _steps_into(SC, ST, nv)
        # some s_j = ±1 (|s_j| = 1 exactly) needs max_j |s_j| >= 1: only such lanes are searched
        for l in range(w):
            if SC[_MA, l] >= 1.0:
                for j in range(d):
                    if abs(ST[_SS, j, l]) == 1.0:
                        SC[_HIT, l] = 1.0
        ma_all = 0.0
        for l in range(w):
            gam = SC[_GAM, l]
            lb = SC[_LB, l]
            i0 = rows[seed_index[SI[_LANE, l]], SI[_K, l], 0]
            SC[_SUML, l] += lb
            # batch curvature window (eq10.batch): only b = 1 has known λ's (else NaN)
            SC[_CURV0, l] += 2.0 * gam * gam * lam_batch[i0, 0] * lb
            SC[_CURV1, l] += 2.0 * gam * gam * lam_batch[i0, 1] * lb
            if SC[_HIT, l] != 0.0:
                SI[_CODE, l] = HIT_CODE
            ma = SC[_MA, l]
            if ma > SC[_MAXS, l]:
                SC[_MAXS, l] = ma
            if ma > ma_all:
                ma_all = ma
        # the most terms any live lane needs (series_terms grows with its argument)
        nterms = series_terms(ma_all * ma_all)
        if ma_all < 0.05:
            if nterms <= 1:    # late in a converging run: max|s_j| < 2^-28 ≈ 3.7e-9 takes 1 term,
                               # < 2^-14 ≈ 6.1e-5 two
                _series_update(STF, d, pool, nv, 1)
            elif nterms <= 2:
                _series_update(STF, d, pool, nv, 2)
            elif nterms <= 3:
                _series_update(STF, d, pool, nv, 3)
            elif nterms <= 5:
                _series_update(STF, d, pool, nv, 5)
            else:
                _series_update(STF, d, pool, nv, 7)
        else:
            _series_into(STF, d, pool, nv)
            for l in range(w):     # the log branch where |s_j| >= 0.05 (or NaN), as _qpm
                if not SC[_MA, l] < 0.05:
                    for j in range(d):
                        if not abs(ST[_SS, j, l]) < 0.05:
                            ST[_QP, j, l], ST[_QM, j, l] = _qpm(ST[_SS, j, l])
            _update(STF, d, pool, nv)
        g_step += 1
        stops = False
        for l in range(w):
            SI[_K, l] += 1
            k = SI[_K, l]
            if SI[_CODE, l] < 0 and (not np.isfinite(SC[_MAXS, l]) or SC[_MAXS, l] > 1e120):
                SI[_CODE, l] = BLOWN_CODE
            if SI[_CODE, l] < 0 and k & (k - 1) == 0:     # partial gains Gain^{(2^j)} (obs1)
                jpow = 0
                kk = k
                while kk > 1:
                    kk //= 2
                    jpow += 1
                if jpow < n_snap:
                    for j in range(d):
                        SNAP[SI[_LANE, l], jpow, j] = ST[_GAIN, j, l]
            if SI[_CODE, l] < 0 and k >= max_steps and k % check_every != 0:
                SI[_CODE, l] = STALLED_CODE     # (at a check step the check retires it)
            if SI[_CODE, l] >= 0:
                stops = True
        if stops:
            w = _retire(w, SC, SI, ST, OUT_D, OUT_S, OUT_I, X, y, tol_rel, L0)
    return OUT_D, OUT_S, OUT_I, FIRST, SNAP


def table_groups(gammas, seeds, n: int, b: int, max_steps: int):
    """The batch tables of the distinct seeds, in groups of seeds whose tables fit in ``TABLE_BYTES``
    (4 bytes per row and step; a single seed needing more is refused: draw fewer steps per call): yields
    (the group's seeds, its lanes by decreasing γ, their table ``batch_table(seeds, n, b, steps)``).
    A table has max(max_steps, 1) steps: the declared kernel's engine refuses an empty one, and no lane
    reads step 0's rows when it may take no step."""
    seeds = np.asarray(seeds, np.int64)
    per_seed = int(max_steps) * int(b) * 4
    if per_seed > TABLE_BYTES:
        raise ValueError(f"SGD lanes: one seed's batch table ({max_steps} steps × b = {b}) would take "
                         f"{per_seed / 2**20:.0f} MiB, above {TABLE_BYTES / 2**20:.0f} MiB; "
                         "run fewer steps per call")
    distinct = np.unique(seeds)
    group = max(1, TABLE_BYTES // max(per_seed, 1))
    by_gamma = np.argsort(-np.asarray(gammas, float), kind="stable")
    for g0 in range(0, len(distinct), group):
        these = distinct[g0:g0 + group]
        yield these, by_gamma[np.isin(seeds[by_gamma], these)], batch_table(these, n, int(b), max(int(max_steps), 1))


def run_sgd_lanes(X, y, alpha, gammas, b, seeds, max_steps, tol_rel, check_every, n_snap, window,
                  lam_batch, pool=POOL):
    """The SGD lanes (b < n) of :func:`._dln.run_lanes`, in the order of the fields of
    :class:`._dln.Lanes` after ``gammas`` and ``b`` (GD's bounces are 0 and its loss window NaN here).

    The batch tables of the distinct seeds are drawn first (:func:`table_groups`). Lanes enter the pool
    by decreasing γ. Where they enter changes no result (each lane's
    arithmetic is its own); it is scheduling: the runs near the stability threshold are the longest
    (they stall or converge slowly), and started first they keep the pool full instead of running on
    alone at the end."""
    gammas = np.asarray(gammas, float)
    seeds = np.asarray(seeds, np.int64)
    L, (n, d) = len(gammas), X.shape
    OUT_D = np.zeros((_CARRIED, L, d))
    OUT_S = np.zeros((_SLOT_OUT, L))
    OUT_I = np.zeros((2, L), np.int64)
    FIRST = np.zeros(L)
    SNAP = np.zeros((L, int(n_snap), d))
    for these, lanes, rows in table_groups(gammas, seeds, n, b, max_steps):
        part = sgd_lanes_kernel(X, y, alpha, gammas[lanes], np.searchsorted(these, seeds[lanes]), rows,
                                int(max_steps), float(tol_rel), int(check_every), int(n_snap), lam_batch,
                                int(pool))
        for whole, piece in zip((OUT_D, OUT_S, OUT_I), part[:3]):
            whole[:, lanes] = piece
        FIRST[lanes], SNAP[lanes] = part[3], part[4]
    return (OUT_I[_STATUS], OUT_I[_STEPS], *OUT_D, OUT_S[_MAXS], OUT_S[_SUML], np.zeros(L, np.int64),
            OUT_S[_LAST], FIRST, SNAP, np.full((L, int(window)), np.nan),
            np.stack([OUT_S[_CURV0], OUT_S[_CURV1]], axis=1))


@benchmark("even2023.sgd_lanes", target=8e6, unit="lane-steps/s",
           description="SGD b = 1 on E1 (n = 20, d = 30): 32 lanes (4 stepsizes × 8 batch seeds) for "
                       "10⁵ steps each in one pool, one thread, best of 3 (a one-lane-at-a-time loop did "
                       "~5·10⁶)")
def _bench_sgd_lanes() -> dict:
    from ._problems import batch_curvatures, e1_problem

    p = e1_problem(0)
    gammas = np.repeat([0.02, 0.05, 0.1, 0.2], 8)
    seeds = np.tile(np.arange(8), 4)
    args = (np.ascontiguousarray(p.X), p.y, p.alpha, gammas, 1, seeds)
    rest = (0.0, 20, 24, 64, batch_curvatures(p.X, 1))
    run_sgd_lanes(*args, 10, *rest)                       # compile / load the cache
    steps = 100_000
    seconds, out = best_of(3, lambda: run_sgd_lanes(*args, steps, *rest))
    lane_steps = int(out[1].sum())
    return {"value": lane_steps / seconds, "seconds": seconds, "lane_steps": lane_steps,
            "lanes": len(gammas), "repeats": 3}
