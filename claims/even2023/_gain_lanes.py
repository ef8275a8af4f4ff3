"""‖Gain_γ‖₁ of (S)GD on the diagonal linear network, compiled for long runs (Prop. 16, experiment E5).

The same dynamics as :func:`claims.even2023._dln.run_lanes` — u_{k+1} = u_k − s_k ⊙ v_k,
v_{k+1} = v_k − s_k ⊙ u_k with s_k = γ ∇L_{B_k}(β_k) from (√2α, 0), the same batches (the same
seeded partial Fisher–Yates draws per lane), the same stopping rule (full loss checked every ⌈n/b⌉
steps, stop at L ≤ tol_rel·L(β_0)) — but only what Proposition 16 measures is accumulated: the total
gain ‖Gain‖₁ = Σ_k Σ_j q(s_{k,j}), q(s) = −ln|1 − s²| (def8/def12; Gain ≥ 0 coordinate-wise while
|s| < 1, so the sum of the coordinates is the ℓ1 norm). Prop. 16's settings need ~5·10⁸ SGD steps
at d = 96, so the per-step cost is what matters:

* every inner loop runs over the coordinates without a loop-carried dependency, so the compiler
  vectorises it; the dot products x_i·β use 8 interleaved partial sums combined in a fixed tree
  (the order is fixed by the code, not by the machine's vector width: reports stay byte-identical);
* b = 1: Σ_j q(c·x_{ij}) = Σ_t c^{2t} P_t(i)/t with the row power sums P_t(i) = Σ_j x_{ij}^{2t}
  precomputed — the gain costs O(1) per step instead of O(d);
* GD (b = n) has no randomness: its lanes are one run, computed once and copied.

The series has 7 terms and is used while max_j |s_j| < 0.05 (remainder < 10⁻¹⁹ relative); otherwise
the step takes q from logarithms coordinate by coordinate. Outcomes as in ``_dln``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from verify.bench import benchmark

from ._problems import BLOWN_UP, CONVERGED, HIT_PM1, OUTCOMES, STALLED, Problem, sparse_problem

SERIES_TERMS = 7       # q(s) = Σ_{t=1}^{7} s^{2t}/t for |s| < SERIES_EDGE
SERIES_EDGE = 0.05
_W = 8                 # partial sums per dot product (fixed: part of the arithmetic, not a tuning knob)


@dataclass(frozen=True)
class GainLanes:
    """Per-lane results of :func:`run_gain_lanes`."""

    gamma: float
    b: int
    status: np.ndarray      # CONVERGED / STALLED / BLOWN_UP / HIT_PM1
    steps: np.ndarray       # iterations done
    gain_l1: np.ndarray     # ‖Gain‖₁ = Σ_k Σ_j q(s_{k,j})
    final_loss: np.ndarray

    def outcome(self, i: int) -> str:
        return OUTCOMES[int(self.status[i])]


@njit(inline="always")
def _fold(t, d):
    """Σ_{j<d} t_j (d a multiple of 8) in a fixed order: four quarters added elementwise, then
    halves while the length is even and above 12 (vector loops), then the rest in order."""
    m = d // 4
    for j in range(m):
        t[j] = (t[j] + t[j + m]) + (t[j + 2 * m] + t[j + 3 * m])
    return _fold_halves(t, m)


@njit(inline="always")
def _fold_halves(t, m):
    """The rest of :func:`_fold` once the quarters are in t[:m]."""
    while m % 2 == 0 and m > 12:
        m //= 2
        for j in range(m):
            t[j] += t[j + m]
    acc = t[0]
    for j in range(1, m):
        acc += t[j]
    return acc


@njit(inline="always")
def _dot(X, row, beta, t):
    """x_row·β: the products, then :func:`_fold` (rows are indexed, not sliced: a view costs two
    atomic reference-count updates). The products go straight into the fold's quarter sums (the
    same operations, without storing and reloading the d products)."""
    m = beta.shape[0] // 4
    for j in range(m):
        t[j] = ((X[row, j] * beta[j] + X[row, j + m] * beta[j + m])
                + (X[row, j + 2 * m] * beta[j + 2 * m] + X[row, j + 3 * m] * beta[j + 3 * m]))
    return _fold_halves(t, m)


@njit(inline="always")
def _full_residual(XT, y, u, v, r):
    """r = X(u ⊙ v) − y and L = ‖r‖²/(2n): rows side by side, each r_i summed over j in order.

    Four coordinates per pass over the rows (r_i ← (((r_i + x_ij β_j) + …) + x_i,j+3 β_j+3), the same
    additions in the same order): r is loaded and stored once per four terms instead of once per term,
    which bounded the loop (1.6× at n = 32, d = 96)."""
    n = y.shape[0]
    d = u.shape[0]
    for i in range(n):
        r[i] = -y[i]
    j = 0
    while j + 4 <= d:
        b0 = u[j] * v[j]
        b1 = u[j + 1] * v[j + 1]
        b2 = u[j + 2] * v[j + 2]
        b3 = u[j + 3] * v[j + 3]
        for i in range(n):
            r[i] = (((r[i] + XT[j, i] * b0) + XT[j + 1, i] * b1) + XT[j + 2, i] * b2) + XT[j + 3, i] * b3
        j += 4
    for jr in range(j, d):
        bj = u[jr] * v[jr]
        for i in range(n):
            r[i] += XT[jr, i] * bj
    ss = 0.0
    for i in range(n):
        ss += r[i] * r[i]
    return 0.5 * ss / n


@njit(inline="always")
def _loss_status(XT, y, u, v, r, tol_rel, L0):
    """The stopping rule every lane kind checks: (status, L) — BLOWN_UP when L is not finite or
    above 1e250, CONVERGED when L ≤ tol_rel·L0, else STALLED (still running)."""
    loss = _full_residual(XT, y, u, v, r)
    if not np.isfinite(loss) or loss > 1e250:
        return BLOWN_UP, loss
    if loss <= tol_rel * L0:
        return CONVERGED, loss
    return STALLED, loss


@njit(inline="always")
def _combine_rows(Xp, rows, coef, m_end, s):
    """s_j = c_0 x_{rows_0, j} + c_1 x_{rows_1, j} + … + c_{m_end−1} x_{rows_{m_end−1}, j}, added in row order
    (from c_0 x_0j, no leading 0). Four rows per pass over the coordinates, the same additions in the
    same order: s is loaded and stored once per four rows instead of once per row."""
    dp = s.shape[0]
    c0 = coef[0]
    r0 = rows[0]
    for j in range(dp):
        s[j] = c0 * Xp[r0, j]
    m = 1
    while m + 4 <= m_end:
        c0 = coef[m]
        c1 = coef[m + 1]
        c2 = coef[m + 2]
        c3 = coef[m + 3]
        r0 = rows[m]
        r1 = rows[m + 1]
        r2 = rows[m + 2]
        r3 = rows[m + 3]
        for j in range(dp):
            s[j] = (((s[j] + c0 * Xp[r0, j]) + c1 * Xp[r1, j]) + c2 * Xp[r2, j]) + c3 * Xp[r3, j]
        m += 4
    for mr in range(m, m_end):
        c0 = coef[mr]
        r0 = rows[mr]
        for j in range(dp):
            s[j] += c0 * Xp[r0, j]


@njit(inline="always")
def _q_series(sv):
    """q(s) = Σ_{t=1}^{7} s^{2t}/t by Horner in s² (|s| < SERIES_EDGE)."""
    s2 = sv * sv
    return s2 * (1.0 + s2 * (1.0 / 2 + s2 * (1.0 / 3 + s2 * (1.0 / 4 + s2 * (1.0 / 5 + s2 * (1.0 / 6
                                                                                    + s2 * (1.0 / 7)))))))


@njit(cache=True)
def _q_exact(s):
    """q(s) = −ln|1 − s| − ln|1 + s| (the log branch of _dln._qpm, halved sum)."""
    return -math.log(abs(1.0 - s)) - math.log(abs(1.0 + s))


@njit(cache=True)
def _q_slow(s):
    """Σ_j q(s_j) when some |s_j| ≥ SERIES_EDGE, with the flags (s_j = ±1 hit, overflow)."""
    total = 0.0
    hit = False
    bad = False
    for j in range(s.shape[0]):
        sv = s[j]
        if sv == 1.0 or sv == -1.0:
            hit = True
        elif not np.isfinite(sv) or abs(sv) > 1e120:
            bad = True
        elif abs(sv) < SERIES_EDGE:
            total += _q_series(sv)
        else:
            total += _q_exact(sv)
    return total, hit, bad


@njit(inline="always")
def _draw(perm, b):
    """The next uniform b-subset: partial Fisher–Yates on ``perm`` (the draws of _dln's kernel)."""
    n = perm.shape[0]
    for t in range(b):
        jj = t + np.random.randint(n - t)
        tmp = perm[t]
        perm[t] = perm[jj]
        perm[jj] = tmp


@njit(cache=True)
def _sgd1_lane(Xp, XT, y, u, v, gamma, max_steps, tol_rel, L0, powsum, rowmax, perm, r, t):
    """One b = 1 lane: the step and the next dot product share one pass over the coordinates."""
    n, dp = Xp.shape
    check_every = n
    cp = np.empty(SERIES_TERMS)
    inv_t = np.empty(SERIES_TERMS)
    for m in range(SERIES_TERMS):
        inv_t[m] = 1.0 / (m + 1)
    _draw(perm, 1)
    i = perm[0]
    for j in range(dp):
        t[j] = Xp[i, j] * (u[j] * v[j])
    ri = _fold(t, dp) - y[i]
    gain = 0.0
    loss = L0
    st = STALLED
    k = 0
    while k < max_steps:
        if k % check_every == 0:
            st, loss = _loss_status(XT, y, u, v, r, tol_rel, L0)
            if st != STALLED:
                break
        c = gamma * ri
        hit = False
        bad = False
        if abs(c) * rowmax[i] < SERIES_EDGE:   # Σ_j q(c x_ij) = Σ_m c^{2m} P_m(i)/m
            c2 = c * c
            p = c2
            for m in range(SERIES_TERMS):
                cp[m] = p
                p *= c2
            step_gain = 0.0
            for m in range(SERIES_TERMS - 1, -1, -1):
                step_gain += cp[m] * powsum[i, m] * inv_t[m]
        else:
            for j in range(dp):
                t[j] = c * Xp[i, j]
            step_gain, hit, bad = _q_slow(t)
        gain += step_gain
        _draw(perm, 1)
        i_next = perm[0]
        for j in range(dp):
            sj = c * Xp[i, j]
            uj = u[j]
            vj = v[j]
            un = uj - sj * vj
            vn = vj - sj * uj
            u[j] = un
            v[j] = vn
            t[j] = Xp[i_next, j] * (un * vn)
        ri = _fold(t, dp) - y[i_next]
        i = i_next
        k += 1
        if hit:
            st = HIT_PM1
            break
        if bad:
            st = BLOWN_UP
            break
    if st == STALLED:  # the step budget ran out: converged if the last step reached the level
        end, loss = _loss_status(XT, y, u, v, r, tol_rel, L0)
        if end == CONVERGED:
            st = CONVERGED
    return st, k, gain, loss


@njit(cache=True)
def _batch_lane(Xp, XT, y, u, v, gamma, b, max_steps, tol_rel, L0, perm, r, t, s, beta):
    """One lane with 2 ≤ b ≤ n (b = n: GD, the rows in order, no draws). One pass over the
    coordinates per row of the batch (its dot product, its share of s), and one for the step itself
    (q(s_j), the update, β)."""
    n, dp = Xp.shape
    full = b >= n
    check_every = 1 if full else max(1, n // b)
    # large batches: all n residuals at once (rows side by side) cost less than b dot products
    whole = 3 * b >= n
    coef = np.empty(b)
    all_rows = np.arange(n)
    for j in range(dp):
        beta[j] = u[j] * v[j]
    gain = 0.0
    loss = L0
    st = STALLED
    k = 0
    while k < max_steps:
        if full or k % check_every == 0:
            st, loss = _loss_status(XT, y, u, v, r, tol_rel, L0)
            if st != STALLED:
                break
        if full:
            for i in range(n):
                coef[i] = gamma * r[i] / n
            _combine_rows(Xp, all_rows, coef, n, s)
        else:
            _draw(perm, b)
            if whole and k % check_every != 0:   # (at a check, r is already the full residual)
                _full_residual(XT, y, u, v, r)
            for m in range(b):
                row = perm[m]
                rm = r[row] if whole else _dot(Xp, row, beta, t) - y[row]
                coef[m] = gamma * rm / b
            _combine_rows(Xp, perm, coef, b, s)
        nbig = 0
        for j in range(dp):
            sj = s[j]
            nbig += abs(sj) >= SERIES_EDGE
            t[j] = _q_series(sj)
            uj = u[j]
            vj = v[j]
            un = uj - sj * vj
            vn = vj - sj * uj
            u[j] = un
            v[j] = vn
            beta[j] = un * vn
        hit = False
        bad = False
        if nbig == 0:
            gain += _fold(t, dp)
        else:
            step_gain, hit, bad = _q_slow(s)
            gain += step_gain
        k += 1
        if hit:
            st = HIT_PM1
            break
        if bad:
            st = BLOWN_UP
            break
    if st == STALLED:  # the step budget ran out: converged if the last step reached the level
        end, loss = _loss_status(XT, y, u, v, r, tol_rel, L0)
        if end == CONVERGED:
            st = CONVERGED
    return st, k, gain, loss


@njit(cache=True)
def _gain_kernel(Xp, XT, y, alpha, gamma, b, seeds, max_steps, tol_rel, powsum, rowmax):
    n, dp = Xp.shape
    L = seeds.shape[0]
    status = np.full(L, STALLED, np.int64)
    steps = np.zeros(L, np.int64)
    gain = np.zeros(L)
    final = np.zeros(L)
    perm = np.arange(n)
    r = np.empty(n)
    t = np.empty(dp)
    s = np.empty(dp)
    beta = np.empty(dp)
    L0 = 0.5 * np.sum(y * y) / n
    for lane in range(L):
        np.random.seed(seeds[lane])
        for i in range(n):
            perm[i] = i
        u = math.sqrt(2.0) * alpha.copy()
        v = np.zeros(dp)
        if b == 1:
            out = _sgd1_lane(Xp, XT, y, u, v, gamma, max_steps, tol_rel, L0, powsum, rowmax, perm, r, t)
        else:
            out = _batch_lane(Xp, XT, y, u, v, gamma, min(b, n), max_steps, tol_rel, L0, perm, r, t,
                              s, beta)
        status[lane], steps[lane], gain[lane], final[lane] = out
    return status, steps, gain, final


def _padded(problem: Problem):
    """X with zero columns up to a multiple of _W (their s is 0: they stay at β = 0, q = 0)."""
    n, d = problem.X.shape
    dp = -(-d // _W) * _W
    Xp = np.zeros((n, dp))
    Xp[:, :d] = problem.X
    alpha = np.ones(dp)
    alpha[:d] = problem.alpha
    return Xp, alpha


def run_gain_lanes(problem: Problem, gamma: float, seeds, *, b: int | None = None,
                   max_steps: int = 100_000, tol_rel: float = 1e-20) -> GainLanes:
    """One lane per batch seed at the constant stepsize ``gamma``; GD (b ≥ n) is run once."""
    b = problem.n if b is None else int(b)
    seeds = np.atleast_1d(np.asarray(seeds, np.int64)) % (2 ** 32)
    Xp, alpha = _padded(problem)
    powsum = np.stack([np.sum(Xp ** (2 * (t + 1)), axis=1) for t in range(SERIES_TERMS)], axis=1)
    rowmax = np.max(np.abs(Xp), axis=1)
    run_seeds = seeds[:1] if b >= problem.n else seeds
    st, steps, gain, final = _gain_kernel(Xp, np.ascontiguousarray(Xp.T), problem.y.astype(float),
                                          alpha, float(gamma), b, run_seeds, int(max_steps),
                                          float(tol_rel), powsum, rowmax)
    if len(run_seeds) < len(seeds):
        st, steps, gain, final = (np.repeat(a, len(seeds)) for a in (st, steps, gain, final))
    return GainLanes(float(gamma), b, st, steps, gain, final)


@benchmark("even2023.gain_lanes_sgd_step", target=100.0, unit="ns/step", higher_is_better=False,
           description="Prop. 16's E5 kernel: one b = 1 SGD step at n = 32, d = 96 (the bulk of the "
                       "~5e8 steps of even2023.prop16 at the full budget); also reports b = 8")
def _bench_step() -> dict:
    import time

    p = sparse_problem(32, 96, 3, 1e-2, seed=5000, teacher=(1.0, -1.0, 1.0))   # an E5-sized dataset (n = 32, d = 96)
    out = {}
    for b in (1, 8):   # E5's base setting γ = 0.1/d, to E5's stopping rule (~4e5 steps)
        run_gain_lanes(p, 0.1 / 96, [0], b=b, max_steps=10, tol_rel=0.0)      # compiled before timing
        started = time.perf_counter()
        lanes = run_gain_lanes(p, 0.1 / 96, [0], b=b, max_steps=10_000_000, tol_rel=1e-5)
        out[f"b{b}_ns_per_step"] = 1e9 * (time.perf_counter() - started) / int(lanes.steps[0])
    return {"value": out["b1_ns_per_step"], **out}
