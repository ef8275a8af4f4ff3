"""Mini-batch SGD lanes on the diagonal linear network (even2023, eqs. (1)-(3) with |B_k| = b < n),
stepped side by side in a pool of slots.

u_{k+1} = u_k − s_k ⊙ v_k, v_{k+1} = v_k − s_k ⊙ u_k, s_k = γ ∇L_{B_k}(β_k), from (√2α, 0); the batch of
step k is a uniform b-subset drawn by a partial Fisher-Yates shuffle from ``np.random.seed(seed)``,
independent over k, so it depends only on the lane's seed and k. The batches of every seed are drawn
first (:func:`batch_table`, numba's generator, the same draws in the same order as a lane drawing its
own), then the lanes run in a pool of ``POOL`` slots: the state is one array, field-major then
coordinate-major with the slots contiguous (``ST[f, j, l]``), every inner loop runs over the slots, and
each lane keeps its own sums in their order (the dot product x_i·β_k over j ascending, one chain per
lane). That hides the latency of those chains, which bounded a one-lane-at-a-time loop (~200 ns per
step at d = 30; here ~90 ns per lane and step with a full pool, E1 b = 1). A lane that stops leaves the
pool (the last live slot takes its place) and the next lane enters at the next full-loss check, so the
pool stays full until the lanes run out.

The arithmetic per lane is the operation sequence of one lane run alone, so every result is the one the
lane gets alone (tests/test_even2023_sgd_lanes.py: the pool against lanes run one by one). The one place
where lanes share a decision is the number of q_± series terms: the pool uses the largest any live lane
needs; a lane that needs fewer gets the same bits, because each skipped term is below a quarter ulp of
its sum (:func:`._qseries.series_terms`; tests/test_dln_step.py checks the bits on 440k cases).

Stopping (per lane): every ``check_every`` steps the full loss L(β_k) — ``blown_up`` if not finite or
> 1e250, ``converged`` at L ≤ tol_rel·L(β_0); after a step ``hit_pm1`` if some s_{k,j} = ±1, ``blown_up``
if sup_k ‖s_k‖_∞ is not finite or > 1e120; ``stalled`` when the budget runs out, unless the full loss
then meets the tolerance.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from verify.bench import benchmark

from ._qseries import _qpm, q_series, series_terms

CONVERGED_CODE, STALLED_CODE, BLOWN_CODE, HIT_CODE = 0, 1, 2, 3   # _dln.OUTCOMES' order
POOL = 32                    # slots stepped together (at d = 30 their state fits the 1 MB L2 cache)
VECTOR = 16                  # the loops over slots run over the live ones rounded up to a multiple of 16
                             # (the compiler's vector loop takes 16 at a time; shorter loops ran scalar);
                             # idle slots hold γ = 0 and a zero state, which s = 0 keeps
TABLE_BYTES = 1 << 28        # the batch tables of one kernel call at most (seeds are split beyond)
# the fields of the pool's state array ST[f, j, l]: the state carried from step to step (u, v, ln α_±,
# Gain, Σ s²; the first _CARRIED fields), then the step's s, q_±, batch row x_i and batch gradient
_U, _V, _LP, _LM, _GAIN, _S2, _SS, _QP, _QM, _XB, _G = range(11)
_CARRIED = 6
_FIELDS = 11


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
def _series_update(ST, nv, terms):
    """q_± by the series with ``terms`` terms fused with the state update, for steps in which no live
    lane has |s_j| >= 0.05 (_dln's _series and update, lane by lane)."""
    for j in range(ST.shape[1]):
        for l in range(nv):
            sv = ST[_SS, j, l]
            qp, qm = q_series(sv, terms)
            ST[_LP, j, l] -= 0.5 * qp
            ST[_LM, j, l] -= 0.5 * qm
            ST[_GAIN, j, l] += 0.5 * (qp + qm)
            ST[_S2, j, l] += sv * sv
            uj = ST[_U, j, l]
            ST[_U, j, l] = uj - sv * ST[_V, j, l]
            ST[_V, j, l] = ST[_V, j, l] - sv * uj


@njit(inline="always")
def _series_into(ST, nv):
    """q_± by the full series (7 terms) into the QP, QM fields, for steps where some lane has
    |s_j| >= 0.05."""
    for j in range(ST.shape[1]):
        for l in range(nv):
            ST[_QP, j, l], ST[_QM, j, l] = q_series(ST[_SS, j, l], 7)


@njit(inline="always")
def _update(ST, nv):
    """The state update from s and q_± (the SS, QP, QM fields)."""
    for j in range(ST.shape[1]):
        for l in range(nv):
            s = ST[_SS, j, l]
            qp = ST[_QP, j, l]
            qm = ST[_QM, j, l]
            ST[_LP, j, l] -= 0.5 * qp
            ST[_LM, j, l] -= 0.5 * qm
            ST[_GAIN, j, l] += 0.5 * (qp + qm)
            ST[_S2, j, l] += s * s
            uj = ST[_U, j, l]
            ST[_U, j, l] = uj - s * ST[_V, j, l]
            ST[_V, j, l] = ST[_V, j, l] - s * uj


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
def _retire(w, code, lane_of, k_of, gam, maxs, suml, last_full, curv0, curv1, ST, status, steps, U_out, V_out, LP_out, LM_out, GAIN_out, S2_out, MAXS_out, SUML_out,
            FINAL_out, CURV, X, y, tol_rel, L0):
    """Write out the lanes whose ``code`` is set and close the gaps with the last live slots; a
    stalled lane gets its final full loss (converged if it meets the tolerance). Returns the new
    number of live slots."""
    d = ST.shape[1]
    l = w - 1
    while l >= 0:
        if code[l] >= 0:
            lane = lane_of[l]
            status[lane] = code[l]
            steps[lane] = k_of[l]
            for j in range(d):
                U_out[lane, j] = ST[_U, j, l]
                V_out[lane, j] = ST[_V, j, l]
                LP_out[lane, j] = ST[_LP, j, l]
                LM_out[lane, j] = ST[_LM, j, l]
                GAIN_out[lane, j] = ST[_GAIN, j, l]
                S2_out[lane, j] = ST[_S2, j, l]
            MAXS_out[lane] = maxs[l]
            SUML_out[lane] = suml[l]
            FINAL_out[lane] = last_full[l]
            CURV[lane, 0] = curv0[l]
            CURV[lane, 1] = curv1[l]
            if code[l] == STALLED_CODE:
                fl = _final_loss(X, y, U_out[lane], V_out[lane])
                FINAL_out[lane] = fl
                if fl <= tol_rel * L0:
                    status[lane] = CONVERGED_CODE
            last = w - 1   # slots above l are live (retired ones were filled from above)
            if last != l:
                lane_of[l] = lane_of[last]
                k_of[l] = k_of[last]
                gam[l] = gam[last]
                maxs[l] = maxs[last]
                suml[l] = suml[last]
                last_full[l] = last_full[last]
                curv0[l] = curv0[last]
                curv1[l] = curv1[last]
                code[l] = code[last]
                for f in range(_CARRIED):
                    for j in range(d):
                        ST[f, j, l] = ST[f, j, last]
            gam[last] = 0.0          # the freed slot idles: s = 0 keeps its zero state
            for f in range(_CARRIED):
                for j in range(d):
                    ST[f, j, last] = 0.0
            w -= 1
        l -= 1
    return w


@njit(cache=True)
def sgd_lanes_kernel(X, y, alpha, gammas, seed_index, rows, max_steps, tol_rel, check_every, n_snap,
                     window, lam_batch, pool):
    """SGD lanes (b = rows.shape[2] < n), lane i drawing the batches ``rows[seed_index[i]]``; returns
    the fields of :class:`._dln.Lanes` after ``gammas`` and ``b``."""
    L = gammas.shape[0]
    n, d = X.shape
    b = rows.shape[2]
    pool = (max(1, min(pool, L)) + VECTOR - 1) // VECTOR * VECTOR
    status = np.full(L, STALLED_CODE, np.int64)
    steps = np.zeros(L, np.int64)
    U_out = np.zeros((L, d))
    V_out = np.zeros((L, d))
    LP_out = np.zeros((L, d))
    LM_out = np.zeros((L, d))
    GAIN_out = np.zeros((L, d))
    S2_out = np.zeros((L, d))
    MAXS_out = np.zeros(L)
    SUML_out = np.zeros(L)
    BOUNCE_out = np.zeros(L, np.int64)     # GD only: 0 here
    FINAL_out = np.zeros(L)
    FIRST_out = np.zeros(L)
    SNAP = np.zeros((L, n_snap, d))
    WIN = np.full((L, window), np.nan)     # GD only: NaN here
    CURV = np.zeros((L, 2))
    ln_alpha = np.log(alpha)
    XT = np.ascontiguousarray(X.T)
    L0 = 0.5 * np.sum(y * y) / n
    # the pool's state, one array: field f of coordinate j of slot l at ST[f, j, l] (slots contiguous;
    # one array with fixed field offsets lets the compiler vectorise the slot loops without run-time
    # overlap checks between a dozen arrays); slots 0..w-1 are live
    ST = np.zeros((_FIELDS, d, pool))
    R = np.zeros((n, pool))
    lane_of = np.zeros(pool, np.int64)
    k_of = np.zeros(pool, np.int64)        # each slot's own step count
    gam = np.zeros(pool)
    maxs = np.zeros(pool)
    suml = np.zeros(pool)
    last_full = np.zeros(pool)
    curv0 = np.zeros(pool)
    curv1 = np.zeros(pool)
    acc = np.zeros(pool)
    lb = np.zeros(pool)
    ma = np.zeros(pool)
    hit = np.zeros(pool)                   # > 0 where some s_j = ±1 exactly
    code = np.zeros(pool, np.int64)        # -1 running, else the outcome decided at this step
    row = np.zeros(pool, np.int64)
    nxt = 0                                # the next lane to enter
    w = 0
    g_step = 0                             # steps of the pool (lanes enter when it is ≡ 0 mod check_every)
    while w > 0 or nxt < L:
        if g_step % check_every == 0:
            while True:
                # lanes enter at their step 0, here, so every lane's full-loss checks fall on this step
                while w < pool and nxt < L:
                    l = w
                    lane_of[l] = nxt
                    k_of[l] = 0
                    gam[l] = gammas[nxt]
                    maxs[l] = 0.0
                    suml[l] = 0.0
                    last_full[l] = L0
                    curv0[l] = 0.0
                    curv1[l] = 0.0
                    FIRST_out[nxt] = L0
                    for j in range(d):
                        ST[_U, j, l] = np.sqrt(2.0) * alpha[j]
                        ST[_V, j, l] = 0.0
                        ST[_LP, j, l] = ln_alpha[j]
                        ST[_LM, j, l] = ln_alpha[j]
                        ST[_GAIN, j, l] = 0.0
                        ST[_S2, j, l] = 0.0
                    nxt += 1
                    w += 1
                nv = (w + VECTOR - 1) // VECTOR * VECTOR
                for l in range(w):
                    code[l] = STALLED_CODE if k_of[l] >= max_steps else -1
                # the full loss: r_i = −y_i + Σ_j x_ij β_j (j ascending), then Σ_i r_i² (i ascending)
                for i in range(n):
                    for l in range(nv):
                        R[i, l] = -y[i]
                for j in range(d):
                    for i in range(n):
                        xji = XT[j, i]
                        for l in range(nv):
                            R[i, l] += xji * (ST[_U, j, l] * ST[_V, j, l])
                for l in range(nv):
                    acc[l] = 0.0
                for i in range(n):
                    for l in range(nv):
                        acc[l] += R[i, l] * R[i, l]
                for l in range(w):
                    if code[l] >= 0:           # out of budget: no check (the final loss below)
                        continue
                    loss = 0.5 * acc[l] / n
                    last_full[l] = loss
                    if not np.isfinite(loss) or loss > 1e250:
                        code[l] = BLOWN_CODE
                    elif loss <= tol_rel * L0:
                        code[l] = CONVERGED_CODE
                w_before = w
                w = _retire(w, code, lane_of, k_of, gam, maxs, suml, last_full, curv0, curv1,
                            ST, status, steps, U_out, V_out, LP_out, LM_out,
                            GAIN_out, S2_out, MAXS_out, SUML_out, FINAL_out, CURV, X, y, tol_rel, L0)
                if w == w_before or nxt >= L:
                    break
            if w == 0:
                continue
        nv = (w + VECTOR - 1) // VECTOR * VECTOR
        # the batch rows of each live lane at its step k
        for l in range(nv):
            lb[l] = 0.0
            ma[l] = 0.0
            hit[l] = 0.0
            code[l] = -1
        if b > 1:
            for j in range(d):
                for l in range(nv):
                    ST[_G, j, l] = 0.0
        for tb in range(b):
            for l in range(w):
                row[l] = rows[seed_index[lane_of[l]], k_of[l], tb]
            # r = x_i·β − y_i for each lane's row i (j ascending: one chain per lane), the batch loss
            for l in range(nv):
                acc[l] = -y[row[l]]
            for j in range(d):
                for l in range(nv):
                    x = XT[j, row[l]]
                    ST[_XB, j, l] = x
                    acc[l] += x * (ST[_U, j, l] * ST[_V, j, l])
            for l in range(nv):
                lb[l] += 0.5 * acc[l] * acc[l] / b
            if b > 1:
                for j in range(d):
                    for l in range(nv):
                        ST[_G, j, l] += acc[l] * ST[_XB, j, l] / b
        # s_j = γ g_j, with max_j |s_j| per lane (NaN ignored, as `if a > ma`) and whether some
        # s_j = ±1; for b = 1, g_j = 0 + r x_ij (x/1 = x exactly: a lane alone's bits, no division)
        for j in range(d):
            for l in range(nv):
                g = (0.0 + acc[l] * ST[_XB, j, l]) if b == 1 else ST[_G, j, l]
                sv = gam[l] * g
                ST[_SS, j, l] = sv
                hit[l] += 1.0 if (sv == 1.0 or sv == -1.0) else 0.0
                a = abs(sv)
                ma[l] = a if a > ma[l] else ma[l]
        for l in range(w):
            i0 = rows[seed_index[lane_of[l]], k_of[l], 0]
            suml[l] += lb[l]
            # batch curvature window (eq10.batch): only b = 1 has known λ's (else NaN)
            curv0[l] += 2.0 * gam[l] * gam[l] * lam_batch[i0, 0] * lb[l]
            curv1[l] += 2.0 * gam[l] * gam[l] * lam_batch[i0, 1] * lb[l]
        ma_all = 0.0
        for l in range(w):
            if hit[l] != 0.0:
                code[l] = HIT_CODE
            if ma[l] > maxs[l]:
                maxs[l] = ma[l]
            if ma[l] > ma_all:
                ma_all = ma[l]
        big = not ma_all < 0.05
        nterms = series_terms(ma_all * ma_all)   # the most any live lane needs (it grows with ma)
        if not big:
            if nterms <= 3:
                _series_update(ST, nv, 3)
            elif nterms <= 5:
                _series_update(ST, nv, 5)
            else:
                _series_update(ST, nv, 7)
        else:
            _series_into(ST, nv)
            for l in range(w):     # the log branch where |s_j| >= 0.05 (or NaN), as _qpm
                if not ma[l] < 0.05:
                    for j in range(d):
                        if not abs(ST[_SS, j, l]) < 0.05:
                            ST[_QP, j, l], ST[_QM, j, l] = _qpm(ST[_SS, j, l])
            _update(ST, nv)
        g_step += 1
        stops = False
        for l in range(w):
            k_of[l] += 1
            if code[l] < 0 and (not np.isfinite(maxs[l]) or maxs[l] > 1e120):
                code[l] = BLOWN_CODE
            kk = k_of[l]
            if code[l] < 0 and kk & (kk - 1) == 0:     # partial gains Gain^{(2^j)} (obs1)
                jpow = 0
                while kk > 1:
                    kk //= 2
                    jpow += 1
                if jpow < n_snap:
                    for j in range(d):
                        SNAP[lane_of[l], jpow, j] = ST[_GAIN, j, l]
            if code[l] < 0 and k_of[l] >= max_steps and k_of[l] % check_every != 0:
                code[l] = STALLED_CODE     # (at a check step it is retired by the check)
            if code[l] >= 0:
                stops = True
        if stops:
            w = _retire(w, code, lane_of, k_of, gam, maxs, suml, last_full, curv0, curv1,
                    ST, status, steps, U_out, V_out, LP_out, LM_out,
                        GAIN_out, S2_out, MAXS_out, SUML_out, FINAL_out, CURV, X, y, tol_rel, L0)
    return (status, steps, U_out, V_out, LP_out, LM_out, GAIN_out, S2_out, MAXS_out, SUML_out,
            BOUNCE_out, FINAL_out, FIRST_out, SNAP, WIN, CURV)


def run_sgd_lanes(X, y, alpha, gammas, b, seeds, max_steps, tol_rel, check_every, n_snap, window,
                  lam_batch, pool=POOL):
    """The SGD lanes (b < n) of :func:`._dln.run_lanes`: the batch tables of the distinct seeds, then
    the pool; seeds are taken in groups whose tables stay within ``TABLE_BYTES``.

    Lanes enter the pool by decreasing γ. Where they enter changes no result (each lane's arithmetic
    is its own); it is scheduling: the runs near the stability threshold are the longest (they stall
    or converge slowly), and started first they keep the pool full instead of running on alone at
    the end (E1, b = 1: 3.2 s instead of 4.7 s)."""
    gammas = np.asarray(gammas, float)
    seeds = np.asarray(seeds, np.int64)
    distinct = np.unique(seeds)
    per_seed = max(1, int(max_steps) * int(b) * 4)
    group = max(1, TABLE_BYTES // per_seed)
    by_gamma = np.argsort(-gammas, kind="stable")
    parts = []
    for g0 in range(0, len(distinct), group):
        these = distinct[g0:g0 + group]
        lanes = by_gamma[np.isin(seeds[by_gamma], these)]
        rows = batch_table(these, X.shape[0], int(b), int(max_steps))
        seed_index = np.searchsorted(these, seeds[lanes])
        parts.append((lanes, sgd_lanes_kernel(X, y, alpha, gammas[lanes], seed_index, rows,
                                              int(max_steps), float(tol_rel), int(check_every),
                                              int(n_snap), int(window), lam_batch, int(pool))))
    out = [np.empty((len(gammas),) + a.shape[1:], a.dtype) for a in parts[0][1]]
    for lanes, res in parts:
        for o, a in zip(out, res):
            o[lanes] = a
    return tuple(out)


@benchmark("even2023.sgd_lanes", target=8e6, unit="lane-steps/s",
           description="SGD b = 1 on E1 (n = 20, d = 30): 32 lanes (4 stepsizes × 8 batch seeds) for "
                       "10⁵ steps each in one pool, one thread (a one-lane-at-a-time loop did ~5·10⁶)")
def _bench_sgd_lanes() -> dict:
    import time

    from ._dln import batch_curvatures, e1_problem

    p = e1_problem(0)
    gammas = np.repeat([0.02, 0.05, 0.1, 0.2], 8)
    seeds = np.tile(np.arange(8), 4)
    args = (np.ascontiguousarray(p.X), p.y, p.alpha, gammas, 1, seeds)
    rest = (0.0, 20, 24, 64, batch_curvatures(p.X, 1))
    run_sgd_lanes(*args, 10, *rest)                       # compile / load the cache
    steps = 100_000
    started = time.perf_counter()
    out = run_sgd_lanes(*args, steps, *rest)
    seconds = time.perf_counter() - started
    lane_steps = int(out[1].sum())
    return {"value": lane_steps / seconds, "seconds": seconds, "lane_steps": lane_steps,
            "lanes": len(gammas)}
