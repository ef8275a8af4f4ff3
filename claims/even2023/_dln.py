"""Diagonal linear network β = u ⊙ v trained by (S)GD on least squares (even2023, eqs. (1)-(3)):
q and q_± (def8) and the float64 lanes; the problems (re-exported here) are in ``_problems``.

u_{k+1} = u_k − s_k ⊙ v_k, v_{k+1} = v_k − s_k ⊙ u_k with s_k = γ_k ∇L_{B_k}(β_k), from
(u_0, v_0) = (√2 α, 0):

* :func:`run_lanes` — float64, compiled with numba, many constant stepsizes / batch seeds ("lanes")
  per call: full-batch GD and SGD on their declared step kernels (``_dln_step``, ``_dln_sgd_step``;
  on request the hand-written kernel and lane pool, ``_sgd_lanes``, the tests' oracles). Gains and tilts are accumulated in the log domain (ln α_{±,k}), with the series of
  q_± for small |s| (spec §0.6), so large gains never underflow.
* the high-precision path (:func:`claims.even2023._hp.run_hp`, any scalar schedule, python-flint
  midpoint arithmetic) lives in ``_hp`` and is re-exported here; the gain-only kernel of Prop. 16's
  long runs in ``_gain_lanes``.

Outcomes are explicit: ``converged``, ``stalled`` (budget exhausted), ``blown_up`` (overflow / NaN)
or ``hit_pm1`` (some s_{k,i} = ±1 exactly; α_{±} vanish and Theorem 1's objects are undefined).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import mpmath
import numpy as np
from numba import njit

from ._dln_sgd_step import run_sgd_lanes_declared
from ._dln_step import run_gd_lanes
from ._problems import (BLOWN_UP, CONVERGED, HIT_PM1, OUTCOMES, STALLED, Problem,  # noqa: F401 (re-exported)
                        batch_curvatures, e1_problem, e3_problem, l1_interpolator, sparse_problem)
from ._qseries import _qpm, _qpm_vec, _series, series_terms  # noqa: F401  (re-exported)
from ._sgd_lanes import run_sgd_lanes


# --------------------------------------------------------------------------- q, q_± (def8)

def q_plus_minus(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(q_+(s), q_−(s)) in float64: series 2Σ_{j≥2}(±s)^j/j for |s| < 0.05, logs otherwise."""
    s = np.asarray(s, float)
    return _qpm_vec(s)


def q_mp(s, dps: int = 40):
    """q(s) = −ln|1 − s²| in mpmath at ``dps`` digits (log1p: the argument s² is exact)."""
    with mpmath.workdps(dps):
        s2 = mpmath.mpf(s) ** 2
        return -mpmath.log1p(-s2) if s2 < 1 else -mpmath.log(s2 - 1)


# --------------------------------------------------------------------------- float64 lanes

@dataclass(frozen=True)
class Lanes:
    """Per-lane results of :func:`run_lanes` (lane = one stepsize and batch seed)."""

    gammas: np.ndarray
    b: int
    status: np.ndarray          # CONVERGED / STALLED / BLOWN_UP / HIT_PM1
    steps: np.ndarray           # K: iterations done
    u: np.ndarray               # (L, d) final iterates
    v: np.ndarray
    ln_ap: np.ndarray           # ln α_{+,K}
    ln_am: np.ndarray           # ln α_{−,K}
    gain: np.ndarray            # Σ_k q(s_k) = ln(α²/α_K²)
    sum_s2: np.ndarray          # Σ_k s_k² per coordinate
    max_abs_s: np.ndarray       # m = sup_k ‖s_k‖_∞
    sum_loss: np.ndarray        # GD: Σ_k L(β_k); SGD: Σ_k L_{B_k}(β_k)
    bounces: np.ndarray         # GD: #{k : L(β_{k+1}) > L(β_k)}
    final_loss: np.ndarray
    first_loss: np.ndarray
    gain_snapshots: np.ndarray  # (L, J, d): Gain^{(2^j)} for j = 0..J−1 (0 if the run was shorter)
    loss_window: np.ndarray     # (L, W): the last W full losses (GD), oldest first
    sum_grad_curv: np.ndarray   # (L, 2): Σ_k 2γ² λ_min/max(H_B) L_B(β_k) (batch curvature window)

    @property
    def beta(self) -> np.ndarray:
        with np.errstate(over="ignore"):  # diverged lanes hold ±inf-bound iterates: their β is ±inf
            return self.u * self.v

    @property
    def phi(self) -> np.ndarray:
        """φ_K = ½ ln(α_{+,K}/α_{−,K})."""
        return 0.5 * (self.ln_ap - self.ln_am)

    @property
    def ln_alpha2(self) -> np.ndarray:
        """ln α_K² = ln α_{+,K} + ln α_{−,K}."""
        return self.ln_ap + self.ln_am

    def outcome(self, i: int) -> str:
        return OUTCOMES[int(self.status[i])]


@njit(cache=True)
def _residual(XT, y, beta, r):
    """r = Xβ − y from Xᵀ (d × n): the rows side by side, a vector over i for each j, so the loop
    vectorises; each r_i is still summed over j in order (bitwise the plain row loop). Four
    coordinates per pass over the rows, r_i ← (((r_i + x_ij β_j) + …) + x_i,j+3 β_j+3): the same
    additions in the same order, with r loaded and stored once per four terms instead of once per
    term, which bounded the loop."""
    n = y.shape[0]
    d = beta.shape[0]
    for i in range(n):
        r[i] = -y[i]
    j = 0
    while j + 4 <= d:
        b0 = beta[j]
        b1 = beta[j + 1]
        b2 = beta[j + 2]
        b3 = beta[j + 3]
        for i in range(n):
            r[i] = (((r[i] + XT[j, i] * b0) + XT[j + 1, i] * b1) + XT[j + 2, i] * b2) + XT[j + 3, i] * b3
        j += 4
    for jr in range(j, d):
        bj = beta[jr]
        for i in range(n):
            r[i] += XT[jr, i] * bj


@njit(cache=True)
def _gradient_sum(X, r, g):
    """G_j = Σ_i r_i x_ij, summed from 0.0 over i in order; four rows per pass over the coordinates
    (g_j ← (((g_j + r_i x_ij) + …) + r_i+3 x_i+3,j): the same additions in the same order, g loaded
    and stored once per four rows)."""
    n, d = X.shape
    for j in range(d):
        g[j] = 0.0
    i = 0
    while i + 4 <= n:
        r0 = r[i]
        r1 = r[i + 1]
        r2 = r[i + 2]
        r3 = r[i + 3]
        for j in range(d):
            g[j] = (((g[j] + r0 * X[i, j]) + r1 * X[i + 1, j]) + r2 * X[i + 2, j]) + r3 * X[i + 3, j]
        i += 4
    for ir in range(i, n):
        ri = r[ir]
        for j in range(d):
            g[j] += ri * X[ir, j]


@njit(inline="always")
def _steps_and_max(gamma, g, SS):
    """SS_j = s_j = γ g_j and max_j |s_j| (0 if none is above 0; a NaN s_j is skipped, as `if a > ma`).
    The max is exact, so the order of the comparisons is immaterial: four running maxima over
    j mod 4, combined at the end, keep four comparison chains in flight instead of one."""
    d = g.shape[0]
    m0 = 0.0
    m1 = 0.0
    m2 = 0.0
    m3 = 0.0
    j = 0
    while j + 4 <= d:
        s0 = gamma * g[j]
        s1 = gamma * g[j + 1]
        s2 = gamma * g[j + 2]
        s3 = gamma * g[j + 3]
        SS[j] = s0
        SS[j + 1] = s1
        SS[j + 2] = s2
        SS[j + 3] = s3
        a = abs(s0)
        m0 = a if a > m0 else m0
        a = abs(s1)
        m1 = a if a > m1 else m1
        a = abs(s2)
        m2 = a if a > m2 else m2
        a = abs(s3)
        m3 = a if a > m3 else m3
        j += 4
    for jr in range(j, d):
        sv = gamma * g[jr]
        SS[jr] = sv
        a = abs(sv)
        m0 = a if a > m0 else m0
    m0 = m1 if m1 > m0 else m0
    m2 = m3 if m3 > m2 else m2
    return m2 if m2 > m0 else m0


@njit(cache=True)
def _lanes_kernel(X, y, alpha, gammas, b, max_steps, tol_rel, n_snap, window, lam_batch):
    """Full-batch GD lanes written by hand (b >= n, the full loss at every step): the reference the
    declared kernel :mod:`._dln_step` (:func:`run_lanes`' default) is tested against bit for bit
    (tests/test_dln_step.py) and benchmarked against (bench ``even2023.dln_gd_step``); run by
    :func:`run_lanes` with ``gd_engine="hand"``."""
    if b < X.shape[0]:
        raise ValueError("_lanes_kernel runs full-batch GD (b >= n); SGD lanes: run_sgd_lanes")
    L = gammas.shape[0]
    n, d = X.shape
    status = np.full(L, 1, np.int64)
    steps = np.zeros(L, np.int64)
    U = np.zeros((L, d))
    V = np.zeros((L, d))
    LP = np.zeros((L, d))
    LM = np.zeros((L, d))
    GAIN = np.zeros((L, d))
    S2 = np.zeros((L, d))
    MAXS = np.zeros(L)
    SUML = np.zeros(L)
    BOUNCE = np.zeros(L, np.int64)
    FINAL = np.zeros(L)
    FIRST = np.zeros(L)
    SNAP = np.zeros((L, n_snap, d))
    WIN = np.full((L, window), np.nan)
    CURV = np.zeros((L, 2))
    ln_alpha = np.log(alpha)
    XT = np.ascontiguousarray(X.T)
    r = np.empty(n)
    g = np.empty(d)
    beta = np.empty(d)
    SS = np.empty(d)   # s_k = γ g_k and its q_± series, per coordinate
    QP = np.empty(d)
    QM = np.empty(d)
    for lane in range(L):
        gamma = gammas[lane]
        u = math.sqrt(2.0) * alpha.copy()
        v = np.zeros(d)
        lp = ln_alpha.copy()
        lm = ln_alpha.copy()
        gain = np.zeros(d)
        s2 = np.zeros(d)
        maxs = 0.0
        suml = 0.0
        prev = np.inf
        bounces = 0
        L0 = 0.5 * np.sum(y * y) / n
        FIRST[lane] = L0
        last_full = L0
        wpos = 0
        loss = L0
        st = STALLED_CODE
        k = 0
        while k < max_steps:
            for j in range(d):
                beta[j] = u[j] * v[j]
            # the full loss, every step
            _residual(XT, y, beta, r)
            ss = 0.0
            for i in range(n):  # the order of np.sum(r * r), without the temporary
                ss += r[i] * r[i]
            loss = 0.5 * ss / n
            if not np.isfinite(loss) or loss > 1e250:
                st = BLOWN_CODE
                last_full = loss
                break
            last_full = loss
            suml += loss
            if loss > prev:
                bounces += 1
            prev = loss
            WIN[lane, wpos % window] = loss
            wpos += 1
            if loss <= tol_rel * L0:
                st = CONVERGED_CODE
                break
            # the gradient Xᵀr/n
            _gradient_sum(X, r, g)
            for j in range(d):
                g[j] /= n
            # the curvature window (eq10.batch) with the extreme non-zero eigenvalues of XXᵀ/n
            CURV[lane, 0] += 2.0 * gamma * gamma * lam_batch[0, 0] * loss
            CURV[lane, 1] += 2.0 * gamma * gamma * lam_batch[0, 1] * loss
            hit = False
            # the series branch of q_± (_qpm) for every coordinate in one branch-free loop, which
            # the compiler vectorises across coordinates (same operations per coordinate, so
            # bitwise _qpm; its 14 divisions were ~70% of an SGD step, now multiplications by the
            # divisors' reciprocals, as in _qpm); logs where |s| >= 0.05
            # Terms the sums cannot feel are skipped: with m = max_j |s_j| < 0.05, every term t > T
            # of either sum is below 2^-56 of its first term when m^{2T} < 2^-56, hence below a
            # quarter ulp of the partial sum, and adding it (or any later, smaller term) leaves the
            # sum's bits unchanged. T = 7 at m -> 0.05 (the full series), 3 for m <= 1e-3.
            ma = _steps_and_max(gamma, g, SS)
            if ma >= 1.0:    # some s_j = ±1 (|s_j| = 1 exactly) needs max_j |s_j| >= 1
                for j in range(d):
                    if abs(SS[j]) == 1.0:
                        hit = True
            if ma > maxs:
                maxs = ma
            nterms = series_terms(ma * ma)   # ma² >= every s_j² (rounding is monotone)
            if nterms <= 3:
                _series(SS, QP, QM, 3)
            elif nterms <= 5:
                _series(SS, QP, QM, 5)
            else:
                _series(SS, QP, QM, 7)
            if not ma < 0.05:    # the log branch where |s_j| >= 0.05 (or NaN), as _qpm
                for j in range(d):
                    if not abs(SS[j]) < 0.05:
                        QP[j], QM[j] = _qpm(SS[j])
            # the state update: the same operations per coordinate as before, now branch-free
            for j in range(d):
                s = SS[j]
                qp = QP[j]
                qm = QM[j]
                lp[j] -= 0.5 * qp
                lm[j] -= 0.5 * qm
                gain[j] += 0.5 * (qp + qm)
                s2[j] += s * s
                uj = u[j]
                u[j] = uj - s * v[j]
                v[j] = v[j] - s * uj
            k += 1
            if hit:
                st = HIT_CODE
                break
            if not np.isfinite(maxs) or maxs > 1e120:
                st = BLOWN_CODE
                break
            # partial gains Gain^{(2^j)} for obs1
            kk = k
            jpow = 0
            while kk > 1 and kk % 2 == 0:
                kk //= 2
                jpow += 1
            if kk == 1 and jpow < n_snap:
                SNAP[lane, jpow, :] = gain
        status[lane] = st
        steps[lane] = k
        U[lane] = u
        V[lane] = v
        LP[lane] = lp
        LM[lane] = lm
        GAIN[lane] = gain
        S2[lane] = s2
        MAXS[lane] = maxs
        SUML[lane] = suml
        BOUNCE[lane] = bounces
        FINAL[lane] = last_full
        # unroll the ring buffer (oldest first)
        if wpos > 0:
            tmpw = WIN[lane].copy()
            for t in range(window):
                WIN[lane, t] = tmpw[(wpos + t) % window]
    return status, steps, U, V, LP, LM, GAIN, S2, MAXS, SUML, BOUNCE, FINAL, FIRST, SNAP, WIN, CURV


CONVERGED_CODE, STALLED_CODE, BLOWN_CODE, HIT_CODE = CONVERGED, STALLED, BLOWN_UP, HIT_PM1


def run_lanes(problem: Problem, gammas: Sequence[float], *, b: int | None = None,
              seeds: Sequence[int] | int = 0, max_steps: int = 100_000, tol_rel: float = 1e-20,
              check_every: int | None = None, n_snap: int = 24, window: int = 64,
              gd_engine: str = "declared", sgd_engine: str = "declared") -> Lanes:
    """Run one float64 lane per stepsize (constant γ) with the given batch seeds.

    Stops a lane when L(β_K) ≤ tol_rel·L(β_0) (spec §0.6: 1e−20 by default). Full-batch GD (b ≥ n,
    the full loss at every step; ``seeds`` and ``check_every`` are not used) runs on its declared step
    kernel, :func:`._dln_step.run_gd_lanes`; mini-batch SGD (b < n, the full loss every
    ``check_every`` steps, by default ⌊n/b⌋) on its declared step kernel too,
    :func:`._dln_sgd_step.run_sgd_lanes_declared`.

    ``gd_engine="hand"`` runs the GD lanes on the hand-written :func:`_lanes_kernel` instead, bit for
    bit the same (tests/test_dln_step.py, tests/test_stepkernel_lanewise.py; and on each of the 1436
    GD calls of ``verify check even2023 --budget full --planted``, recorded and replayed). The
    declared kernel runs calls of 128 lanes or more on its blocked engine (one compiled engine for
    every d, ~15-20 s cold), fewer lanes on the same declaration printed lane by lane (~15 s cold);
    both sum q_±'s series with 3, 5 or 7 terms per step as :func:`_lanes_kernel` does
    (:class:`verify.dynamics.stepseries.TruncatedSeries`) and, at the steps where max_j |s_j| < 0.05,
    run the coordinate loop without the logs' rare branch (``RareUpdate(absent_if=...)``). Which is
    the default follows the measured speed on the catalogue's GD calls (1338 single lanes, bisections;
    72 of 40 lanes, a few of up to 120), replayed interleaved on the 2-core EPYC: the declared kernel
    takes 0.987× the hand-written time (25.6 s against 25.9 s, three rounds 0.985-0.987; it took
    1.07× before its rare branch got the copy without it); bench ``even2023.dln_gd_step``, declared
    over hand-written speed: one lane at E1 (d = 30) 1.00, 8 lanes 1.00, 128 lanes 0.97; E3 (d = 10)
    1.36-1.44. The hand-written kernel stays as the oracle of the tests and the bench's baseline.

    ``sgd_engine="pool"`` runs the SGD lanes in the hand-written lane pool of
    :func:`._sgd_lanes.run_sgd_lanes` instead, bit for bit the declared kernel's up to which NaN the
    curvature sums hold for b > 1 (NaN by design there; tests/test_dln_sgd_step.py, and each of the
    catalogue's 30 SGD calls of ``verify check even2023 --budget full``, recorded and replayed in a
    session: equal on every field). Which is the default follows the measured speed, as for GD: on those 30
    calls, replayed interleaved on the 2-core EPYC, the declared kernel takes 0.89-0.91× the pool's
    time (19.0 s against 20.9 s by the fastest of three rounds per call shape; the call shapes
    holding more than 2% of the time at 0.63-1.03×); ``python -m verify bench even2023.dln_sgd_step``,
    declared over pool speed: E1 (d = 30) b = 1 with 32 lanes 0.95-0.99, 8 lanes near the stability
    threshold 1.00-1.13, E3 (d = 10) b = 2 1.05-1.10 (docs/declared-sgd-speed.md). The pool stays
    as the oracle of the tests and the bench's baseline.
    """
    gammas = np.asarray(gammas, float)
    b = problem.n if b is None else int(b)
    if gd_engine not in ("hand", "declared"):
        raise ValueError(f"gd_engine must be 'hand' or 'declared', got {gd_engine!r}")
    if sgd_engine not in ("pool", "declared"):
        raise ValueError(f"sgd_engine must be 'pool' or 'declared', got {sgd_engine!r}")
    if b >= problem.n and gd_engine == "declared":  # the default
        return Lanes(gammas, b, **run_gd_lanes(problem, gammas, max_steps=int(max_steps),
                                               tol_rel=float(tol_rel), n_snap=int(n_snap),
                                               window=int(window)))
    if b >= problem.n:
        # from d = 16 on, the coordinates padded to a multiple of 16 (zero columns, α = 1: their s is
        # 0, so u stays √2 and v, β, q, the gain stay 0, and their products and sums leave the real
        # coordinates' bits alone): the loops over coordinates vectorise whole instead of leaving up
        # to 15 coordinates to a scalar remainder (E1, d = 30: ~1.25x; at d = 10 the 6 extra columns
        # cost more than the remainder)
        n, d = problem.X.shape
        dp = d if d < 16 else -(-d // 16) * 16
        X = np.zeros((n, dp))
        X[:, :d] = problem.X
        alpha = np.ones(dp)
        alpha[:d] = problem.alpha
        out = list(_lanes_kernel(X, problem.y, alpha, gammas, b, int(max_steps), float(tol_rel), int(n_snap),
                                 int(window), batch_curvatures(problem.X, b)))
        for k in range(2, 8):               # u, v, ln α_±, Gain, Σ s² (L, dp) -> (L, d)
            out[k] = np.ascontiguousarray(out[k][:, :d])
        out[13] = np.ascontiguousarray(out[13][:, :, :d])      # the gain snapshots
        return Lanes(gammas, b, *out)
    seeds_arr = (np.full(len(gammas), seeds, np.int64) if np.isscalar(seeds)
                 else np.asarray(seeds, np.int64))
    if check_every is None:
        check_every = max(1, problem.n // max(b, 1))
    if int(check_every) < 1:
        raise ValueError(f"check_every must be a positive number of steps, got {check_every}")
    run_sgd = run_sgd_lanes_declared if sgd_engine == "declared" else run_sgd_lanes
    out = run_sgd(np.ascontiguousarray(problem.X), problem.y, problem.alpha, gammas, b,
                  seeds_arr % (2**32), int(max_steps), float(tol_rel), int(check_every),
                  int(n_snap), int(window), batch_curvatures(problem.X, b))
    return Lanes(gammas, b, *out)


# --------------------------------------------------------------------------- thresholds (def14)

@dataclass(frozen=True)
class Bracket:
    lo: float            # largest γ seen to converge
    hi: float            # smallest γ above lo seen not to converge
    hi_outcome: str      # how the run at hi failed (blown_up / stalled / hit_pm1)
    stepsizes: int       # stepsizes placed in the rounds' grids
    rounds: int
    lanes_run: int       # of those, the ones run (full-batch rounds stop at the first from the top
                         # that converges: see _last_converged)

    @property
    def rel_width(self) -> float:
        return (self.hi - self.lo) / self.lo

    def data(self) -> dict:
        return {"gamma_lo": self.lo, "gamma_hi": self.hi, "rel_width": self.rel_width,
                "hi_outcome": self.hi_outcome, "stepsizes": self.stepsizes, "rounds": self.rounds,
                "lanes_run": self.lanes_run}


def _last_converged(problem: Problem, grid: np.ndarray, b: int | None, seed: int, max_steps: int,
                    tol_rel: float) -> tuple[int, dict]:
    """(index of the largest converged stepsize of ``grid``, or −1; {index: outcome} of the lanes run).

    Only that index and the outcome of the lane above it move the bracket. Full-batch GD runs few lanes
    one after another anyway (lane by lane, :mod:`._dln_step`), so it runs them from the top down and stops at
    the first that converges: the lanes below it cannot move the bracket, and near γ̃_max they were
    the slow ones (converging in up to ~400k steps each). A lane's run does not depend on the others,
    so the bracket is the one all lanes give. SGD lanes run side by side in one call (``run_lanes``' SGD
    engine), all of them."""
    if b is None or b >= problem.n:
        outcomes = {}
        for i in range(len(grid) - 1, -1, -1):
            res = run_lanes(problem, grid[i:i + 1], b=b, seeds=seed, max_steps=max_steps, tol_rel=tol_rel)
            outcomes[i] = res.outcome(0)
            if res.status[0] == CONVERGED:
                return i, outcomes
        return -1, outcomes
    res = run_lanes(problem, grid, b=b, seeds=seed, max_steps=max_steps, tol_rel=tol_rel)
    ok = np.nonzero(res.status == CONVERGED)[0]
    return (int(ok[-1]) if len(ok) else -1), {i: res.outcome(i) for i in range(len(grid))}


def locate_threshold(problem: Problem, *, b: int | None = None, seed: int = 0,
                     lo: float = 1e-3, hi: float = 10.0, rel: float = 1e-3, lanes: int = 8,
                     max_steps: int = 200_000, tol_rel: float = 1e-16) -> Bracket:
    """Bracket γ̃_max (def14) by multi-section: each round runs ``lanes`` stepsizes inside the
    current bracket (one float64 lane each, same batch seed) and keeps the last converged stepsize
    and the next one. ``lo`` should be a stepsize known to converge within the budget. "Not converged" covers blow-up, a hit of ±1 and an
    exhausted budget (recorded in ``hi_outcome``)."""
    stepsizes = lanes_run = rounds = 0
    hi_outcome = "unknown"
    while (hi - lo) / lo > rel and rounds < 40:
        grid = np.exp(np.linspace(math.log(lo), math.log(hi), lanes + 2))[1:-1]
        last, outcomes = _last_converged(problem, grid, b, seed, max_steps, tol_rel)
        stepsizes += len(grid)
        lanes_run += len(outcomes)
        rounds += 1
        # the bracket ends at the LAST converged stepsize: a failure below a converged γ is a
        # budget artefact (small γ converge slowly), not the threshold
        if last == len(grid) - 1:
            lo = float(grid[-1])
            continue
        if last < 0:
            hi = float(grid[0])
            hi_outcome = outcomes[0]
            continue
        lo = float(grid[last])
        hi = float(grid[last + 1])
        hi_outcome = outcomes[last + 1]
    return Bracket(lo, hi, hi_outcome, stepsizes, rounds, lanes_run)


# the high-precision path and the schedules (claims/even2023/_hp.py), under their historical names
from ._hp import (AdaDeltaScalar, AdaGradNorm, Constant, Decaying, DiagonalAdaGrad, HPRun,  # noqa: E402,F401
                  RandomIID, Schedule, Snapshot, run_hp, run_mpmath_reference)
