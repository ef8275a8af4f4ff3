"""The diagonal linear network's full-batch GD declared as a step kernel (claims/even2023/_dln_step.py),
one compiled engine for every dimension, gives, lane by lane, every field of what the hand-written
kernel of claims/even2023/_dln.py gives, bit for bit (``run_lanes`` runs it for b >= n by default; the
hand-written GD path, ``run_lanes(..., gd_engine="hand")``, is the reference here)."""
import numpy as np
import pytest
from numba import njit

from claims.even2023 import _dln
from claims.even2023._dln import (OUTCOMES, _lanes_kernel, _series, batch_curvatures, e1_problem, e3_problem,
                                  series_terms, sparse_problem)
from claims.even2023._dln_step import dln_gd_kernel, run_gd_lanes
from verify.dynamics import stepkernel

FIELDS = ("status", "steps", "u", "v", "ln_ap", "ln_am", "gain", "sum_s2", "max_abs_s", "sum_loss", "bounces",
          "final_loss", "first_loss", "gain_snapshots", "loss_window", "sum_grad_curv")


@njit
def _skipped_terms_change_the_sums(S, factors):
    """For each m in S: the coordinates s = m·f (f in ``factors``, |f| <= 1, so max_j |s_j| = m) summed
    with the number of terms _lanes_kernel picks for m and with all 7 terms; the count of differing bits."""
    d = factors.shape[0]
    SS, QP, QM, Q7P, Q7M = np.empty(d), np.empty(d), np.empty(d), np.empty(d), np.empty(d)
    bad = 0
    for m in S:
        for j in range(d):
            SS[j] = m * factors[j]
        nterms = series_terms(m * m)  # _lanes_kernel's choice of the number of terms
        if nterms <= 3:
            _series(SS, QP, QM, 3)
        elif nterms <= 5:
            _series(SS, QP, QM, 5)
        else:
            _series(SS, QP, QM, 7)
        _series(SS, Q7P, Q7M, 7)
        for j in range(d):
            if QP[j] != Q7P[j] or QM[j] != Q7M[j]:
                bad += 1
    return bad


def test_the_skipped_series_terms_leave_the_sums_bits_unchanged():
    """_lanes_kernel sums 3, 5 or 7 terms of q_±'s series (below the log branch |s| < 0.05) where the
    skipped ones are below a quarter ulp; any longer count (all 7, as the step kernel's copy with the log
    branch) gives the same bits."""
    rng = np.random.default_rng(11)
    m = np.concatenate([10.0 ** rng.uniform(-320, np.log10(0.05), 400_000),
                        np.nextafter(0.05, 0.0) - rng.uniform(0, 1e-3, 20_000),
                        np.geomspace(5e-324, 0.05, 20_000, endpoint=False)])
    factors = np.concatenate([[1.0, -1.0, 0.0, -0.0, 0.5, -0.999999, 1e-3, -1e-9, 1e-200],
                              rng.uniform(-1, 1, 23)])
    assert _skipped_terms_change_the_sums(m, factors) == 0


def _compare(problem, gammas, **kw):
    ref = _lanes_kernel(np.ascontiguousarray(problem.X), problem.y, problem.alpha, np.asarray(gammas, float),
                        problem.n, kw["max_steps"], kw["tol_rel"], kw.get("n_snap", 24), kw.get("window", 64),
                        batch_curvatures(problem.X, problem.n))
    ref = _dln.Lanes(np.asarray(gammas, float), problem.n, *ref)
    got = run_gd_lanes(problem, gammas, lanewise_below=0, **kw)  # the blocked engine (lane by lane:
    # tests/test_stepkernel_lanewise.py)
    for name in FIELDS:
        assert np.array_equal(got[name], getattr(ref, name), equal_nan=True), (problem.label, kw, name)
    return {OUTCOMES[s] for s in ref.status}


def _gammas(problem, lanes):
    """From far below to above the stability threshold: converged, stalled and blown-up lanes."""
    lam = np.linalg.eigvalsh(problem.X.T @ problem.X / problem.n)[-1]
    return np.geomspace(0.05, 3.0, lanes) / (lam * 2 * float(np.max(problem.alpha)) ** 2)


def _hitting_gammas(problem):
    """γ with fl(γ g_j) = ±1 at the first step for some j (β_0 = 0, so g = Xᵀ(−y)/n, summed in the
    kernels' order): those lanes end hit_pm1 after one step."""
    n, d = problem.X.shape
    G = [0.0] * d
    for i in range(n):
        for j in range(d):
            G[j] += -problem.y[i] * problem.X[i, j]
    g = [Gj / n for Gj in G]
    return [c for gj in g for c in (1.0 / gj, -1.0 / gj) if c > 0 and c * gj in (1.0, -1.0)]


def test_declared_dln_gd_is_bit_identical_to_the_hand_written_kernel_e3():
    problem = e3_problem(0)
    seen = set()
    for max_steps, tol_rel in ((3000, 1e-20), (500, 1e-8)):
        seen |= _compare(problem, _gammas(problem, 150), max_steps=max_steps, tol_rel=tol_rel)
    hitting = _hitting_gammas(problem)
    assert hitting
    seen |= _compare(problem, hitting, max_steps=100, tol_rel=1e-20)
    for max_steps in (0, 1):  # no step / one step: the final loss is L(β₀) in both
        seen |= _compare(problem, [0.0, 0.1, 1e3], max_steps=max_steps, tol_rel=1e-20)
    seen |= _compare(problem, [], max_steps=10, tol_rel=1e-20)  # no lane
    assert {"converged", "stalled", "blown_up", "hit_pm1"} <= seen


def test_declared_dln_gd_is_bit_identical_to_the_hand_written_kernel_e1():
    seen = set()
    for seed in (0, 1, 2):
        problem = e1_problem(seed)
        seen |= _compare(problem, _gammas(problem, 90), max_steps=3000, tol_rel=1e-6)
    seen |= _compare(problem, _gammas(problem, 30), max_steps=300, tol_rel=1e-20)
    assert {"converged", "stalled", "blown_up"} <= seen


def test_one_declared_dln_gd_kernel_serves_every_dimension():
    """d is read from the data's columns: one compiled engine (one specialisation) for d = 2 … 40,
    the catalogue's range, every field the hand-written kernel's."""
    engine = stepkernel.compile_source(stepkernel.kernel_source(dln_gd_kernel()), "gd_dln")
    for n, d in ((4, 2), (3, 5), (5, 10), (20, 30), (12, 40), (7, 17)):
        problem = sparse_problem(n, d, min(2, d), 0.1, seed=7000 + d)
        _compare(problem, _gammas(problem, 40), max_steps=1500, tol_rel=1e-10)
    # the runs above went through this very engine (compiled sources are cached by their text), with
    # one type signature: 0 would mean _compare ran another engine, 2 a per-shape specialisation
    assert len(engine.signatures) == 1


def test_declared_dln_gd_short_windows(request):
    # short snapshot and loss windows: another generated kernel (n_snap and window are built in; the
    # catalogue uses the defaults only), ~13 s to compile on a fresh machine: behind the budget option
    if request.config.getoption("--verify-budget") != "full":
        pytest.skip("another kernel compile (~13 s cold): run with --verify-budget full")
    e3 = e3_problem(0)
    _compare(e3, _gammas(e3, 70), max_steps=700, tol_rel=1e-12, n_snap=5, window=3)


def test_run_lanes_runs_the_declared_gd_kernel_by_default_and_the_hand_written_on_request(monkeypatch):
    problem = e3_problem(0)
    gammas = _gammas(problem, 20)
    calls = []
    monkeypatch.setattr(_dln, "run_gd_lanes", lambda *a, **kw: calls.append(1) or run_gd_lanes(*a, **kw))
    declared = _dln.run_lanes(problem, gammas, max_steps=400, tol_rel=1e-12)
    assert calls == [1]
    hand = _dln.run_lanes(problem, gammas, max_steps=400, tol_rel=1e-12, gd_engine="hand")
    assert calls == [1]
    for field in ("status", "steps", "u", "v", "ln_ap", "ln_am", "gain", "sum_s2", "max_abs_s", "sum_loss",
                  "bounces", "final_loss", "first_loss", "gain_snapshots", "loss_window", "sum_grad_curv"):
        assert np.array_equal(getattr(hand, field), getattr(declared, field), equal_nan=True), field
    with pytest.raises(ValueError, match="gd_engine"):
        _dln.run_lanes(problem, gammas, gd_engine="fast")


def test_run_lanes_zero_padded_gd_is_the_unpadded_kernel():
    """run_lanes(gd_engine="hand") pads d >= 16 coordinates to a multiple of 16 for the vector loops:
    the real coordinates' bits are those of the unpadded kernel (E1, d = 30 -> 32)."""
    problem = e1_problem(0)
    gammas = _gammas(problem, 40)
    lanes = _dln.run_lanes(problem, gammas, max_steps=2000, tol_rel=1e-8, gd_engine="hand")
    ref = _dln.Lanes(np.asarray(gammas, float), problem.n, *_lanes_kernel(
        np.ascontiguousarray(problem.X), problem.y, problem.alpha, np.asarray(gammas, float), problem.n,
        2000, 1e-8, 24, 64, batch_curvatures(problem.X, problem.n)))
    for field in FIELDS:
        assert np.array_equal(getattr(lanes, field), getattr(ref, field), equal_nan=True), field
    assert {_dln.CONVERGED, _dln.STALLED, _dln.BLOWN_UP} <= set(lanes.status.tolist())
