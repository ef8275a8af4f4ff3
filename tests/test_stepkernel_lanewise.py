"""A declared step kernel printed lane by lane (verify.dynamics.steplanewise) gives every output of the
blocked engine bit for bit: the plain-loop tests of tests/test_coordloop.py (d = 1 … 13, several numbers
of data rows) and tests/test_stepkernel.py run again on it, and the diagonal network's GD
(claims/even2023/_dln_step.py) gives every field of the blocked engine and of the hand-written kernel at
E1 and E3 with every outcome; which engine runs a call is the driver's choice and changes no bit."""
import numpy as np
import pytest

import test_coordloop
import test_stepkernel
from test_dln_step import _gammas, _hitting_gammas
from claims.even2023 import _dln
from claims.even2023._dln import OUTCOMES, _lanes_kernel, batch_curvatures, e1_problem, e3_problem, sparse_problem
from claims.even2023._dln_step import run_gd_lanes
from verify.dynamics import stepcompile, stepkernel, steplayout
from verify.dynamics.steplanewise import drop_slot_loops, promote_slot_rows

FIELDS = ("status", "steps", "u", "v", "ln_ap", "ln_am", "gain", "sum_s2", "max_abs_s", "sum_loss", "bounces",
          "final_loss", "first_loss", "gain_snapshots", "loss_window", "sum_grad_curv")
ALWAYS = 10 ** 9  # lanewise_below: every call lane by lane


def _lanewise_source(k, lanewise=False):
    return stepkernel.kernel_source(k, lanewise=True)


def test_the_coordinate_loop_plain_loop_test_passes_lane_by_lane(monkeypatch):
    """d = 1 … 13 (the unrolled loops' remainders), 1 … 6 data rows, converged / diverged / budget
    lanes: the lane-by-lane engine is the plain loop's, as the blocked one is."""
    monkeypatch.setattr(test_coordloop, "kernel_source", _lanewise_source)
    test_coordloop.test_one_engine_runs_every_dimension_as_a_plain_loop()


def test_the_lane_by_lane_engine_gives_the_blocked_engines_bits_for_every_dimension():
    k = test_coordloop._kernel()
    blocked = stepkernel.compile_source(stepkernel.kernel_source(k), k.label)
    lanewise = stepkernel.compile_source(stepkernel.kernel_source(k, lanewise=True), k.label + "_lanewise")
    rng = np.random.default_rng(8)
    for d, n in ((1, 3), (2, 1), (5, 4), (8, 9), (13, 2), (64, 3)):
        X, Y = rng.normal(size=(n, d)), rng.normal(size=n)
        lanes = 11
        I = np.vstack([rng.uniform(-1, 1, (d, lanes)), rng.uniform(0.01, 2.0, (1, lanes)) / max(1.0, np.sum(X ** 2)),
                       rng.uniform(0.5, 1.5, (d, lanes))])
        outs = []
        for engine in (blocked, lanewise):
            out_i = np.zeros((2, lanes), np.int64)
            out_f = np.zeros((3 * d + 1 + test_coordloop.N_SNAP * d, lanes))
            assert engine(np.arange(lanes)[::-1].copy(), I, np.ascontiguousarray(np.c_[X, Y]), 150, 1e-10,
                          out_i, out_f) == 0
            outs.append((out_i, out_f))
        assert np.array_equal(outs[0][0], outs[1][0]), d
        assert np.array_equal(outs[0][1].view(np.int64), outs[1][1].view(np.int64)), d


def test_more_coordinates_than_a_row_holds_run_on_a_source_with_longer_rows(monkeypatch):
    """d > 64: the 64-coordinate source declines the call (returns 1, nothing written); the driver runs
    the source whose rows hold the next power of two (128 here), bit for bit the blocked engine."""
    k = test_coordloop._kernel()
    lanewise = stepkernel.compile_source(stepkernel.kernel_source(k, lanewise=True), k.label + "_lanewise")
    rng = np.random.default_rng(9)
    d, n, lanes = 65, 3, 2
    X, Y = rng.normal(size=(n, d)), rng.normal(size=n)
    I = np.vstack([rng.uniform(-1, 1, (d, lanes)), np.full((1, lanes), 1e-3), np.ones((d, lanes))])
    Z = np.ascontiguousarray(np.c_[X, Y])
    shape = ((2, lanes), (3 * d + 1 + test_coordloop.N_SNAP * d, lanes))
    out = np.zeros(shape[0], np.int64), np.zeros(shape[1])
    assert lanewise(np.arange(lanes), I, Z, 50, 1e-10, *out) == 1
    assert not out[0].any() and not out[1].any()  # nothing written
    assert [steplayout.stride_for(q) for q in (1, 64, 65, 128, 129, 1000)] == [64, 64, 128, 128, 256, 1024]
    ref = np.zeros(shape[0], np.int64), np.zeros(shape[1])
    stepcompile.compiled_engine(k)(np.arange(lanes), I, Z, 50, 1e-10, *ref)
    compiled = []
    real = stepcompile.compile_source
    monkeypatch.setattr(stepcompile, "compile_source",
                        lambda source, label, kernels=None: compiled.append(label) or real(source, label, kernels))
    stepcompile.compiled_engine(k, lanewise_below=ALWAYS)(np.arange(lanes), I, Z, 50, 1e-10, *out)
    assert compiled == [k.label + "_lanewise_128"]  # the lane-by-lane source ran: no blocked fallback
    assert np.array_equal(out[0], ref[0]) and np.array_equal(out[1].view(np.int64), ref[1].view(np.int64))


@pytest.mark.parametrize("test", ["test_every_observer_and_the_stop_rule_match_a_plain_loop_bit_for_bit",
                                  "test_prelude_state_checkpoint_and_row_means_match_a_plain_loop",
                                  "test_prelude_states_rare_updates_windows_and_doublings_match_a_plain_loop"])
def test_the_step_kernel_plain_loop_tests_pass_lane_by_lane(monkeypatch, request, test):
    """Every observer kind, the scalar pass, checkpoints, row means without coordinates, windows:
    another compile per kernel, so behind the budget option."""
    if request.config.getoption("--verify-budget") != "full":
        pytest.skip("one more kernel compile each: run with --verify-budget full")
    monkeypatch.setattr(test_stepkernel, "compiled_engine",
                        lambda k: stepcompile.compiled_engine(k, lanewise_below=ALWAYS))
    getattr(test_stepkernel, test)()


def _same_bits(a, b) -> bool:
    """Bit for bit, -0.0 and 0.0 told apart; a NaN matches any NaN (its sign and payload are not
    promised: steplanewise's docstring)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind != "f":
        return bool(np.array_equal(a, b))
    nan = np.isnan(a)
    return bool(np.array_equal(nan, np.isnan(b)) and np.array_equal(a[~nan].view(np.int64), b[~nan].view(np.int64)))


def _counting_lanewise(monkeypatch) -> list:
    """The return values of every lane-by-lane engine call from now on (0: it ran the call; 1: it
    declined and the blocked engine ran it), so a test cannot pass on the blocked engine unnoticed."""
    ran, original = [], stepcompile.compile_source

    def counting(source, label, kernels=None):
        engine = original(source, label, kernels)
        if "_lanewise" not in label:
            return engine

        def counted(*args):
            ran.append(engine(*args))
            return ran[-1]
        return counted
    monkeypatch.setattr(stepcompile, "compile_source", counting)
    return ran


def _both(problem, gammas, monkeypatch, **kw):
    """Every field lane by lane, blocked and hand-written: the same bits; the outcomes seen."""
    ran = _counting_lanewise(monkeypatch)
    lanewise = run_gd_lanes(problem, gammas, lanewise_below=ALWAYS, **kw)
    assert ran == [0], ran  # the call ran lane by lane, not declined
    monkeypatch.undo()
    blocked = run_gd_lanes(problem, gammas, lanewise_below=0, **kw)
    hand = _dln.Lanes(np.asarray(gammas, float), problem.n, *_lanes_kernel(
        np.ascontiguousarray(problem.X), problem.y, problem.alpha, np.asarray(gammas, float), problem.n,
        kw["max_steps"], kw["tol_rel"], 24, 64, batch_curvatures(problem.X, problem.n)))
    for name in FIELDS:
        assert _same_bits(lanewise[name], blocked[name]), (problem.label, kw, name)
        assert _same_bits(lanewise[name], getattr(hand, name)), (problem.label, kw, name)
    return {OUTCOMES[s] for s in lanewise["status"]}


def test_the_diagonal_network_lane_by_lane_is_the_blocked_and_the_hand_written_kernel_e3(monkeypatch):
    problem = e3_problem(0)
    seen = _both(problem, _gammas(problem, 60), monkeypatch, max_steps=3000, tol_rel=1e-20)
    seen |= _both(problem, _gammas(problem, 25), monkeypatch, max_steps=500, tol_rel=1e-8)
    seen |= _both(problem, _hitting_gammas(problem), monkeypatch, max_steps=100, tol_rel=1e-20)
    for max_steps in (0, 1):
        seen |= _both(problem, [0.0, 0.1, 1e3], monkeypatch, max_steps=max_steps, tol_rel=1e-20)
    seen |= _both(problem, [], monkeypatch, max_steps=10, tol_rel=1e-20)
    assert {"converged", "stalled", "blown_up", "hit_pm1"} <= seen


def test_the_diagonal_network_lane_by_lane_is_the_blocked_and_the_hand_written_kernel_e1(monkeypatch):
    seen = set()
    for seed in (0, 1):
        problem = e1_problem(seed)
        seen |= _both(problem, _gammas(problem, 30), monkeypatch, max_steps=2000, tol_rel=1e-6)
    seen |= _both(problem, _gammas(problem, 8), monkeypatch, max_steps=300, tol_rel=1e-20)
    for n, d in ((4, 2), (3, 7), (12, 40)):
        problem = sparse_problem(n, d, min(2, d), 0.1, seed=7100 + d)
        seen |= _both(problem, _gammas(problem, 9), monkeypatch, max_steps=1500, tol_rel=1e-10)
    assert {"converged", "stalled", "blown_up"} <= seen


def test_the_driver_chooses_by_the_number_of_lanes_and_no_bit_depends_on_it():
    problem = e3_problem(0)
    gammas = _gammas(problem, 20)
    runs = [run_gd_lanes(problem, gammas, max_steps=400, tol_rel=1e-12, lanewise_below=below)
            for below in (0, 21, ALWAYS)]
    for run in runs[1:]:
        for name in FIELDS:
            assert _same_bits(run[name], runs[0][name]), name


def test_slot_loops_are_dropped_and_slot_rows_promoted_in_coordinate_loops():
    source = "\n".join(["    for b in range(w):  # a comment", "        F[3, b] = 1.0", "        if x:",
                        "            y = 2", "    z = 3"])
    assert drop_slot_loops(source).split("\n") == ["    F[3, b] = 1.0", "    if x:", "        y = 2", "    z = 3"]
    loop = "\n".join(["    for j in range(d):", "        F[7 + b] = max(F[7 + b], C[64 + j])",
                      "        C[j] = N[2 + b]", "    F[7 + b] = F[7 + b] + 1.0"])
    assert promote_slot_rows(loop).split("\n") == [
        "    rF7 = F[7 + b]", "    rN2 = N[2 + b]", "    for j in range(d):", "        rF7 = max(rF7, C[64 + j])",
        "        C[j] = rN2", "    F[7 + b] = rF7", "    F[7 + b] = F[7 + b] + 1.0"]
    computed = "\n".join(["    for j in range(d):", "        F[(7 + q) * 1 + b] = F[7 + b]"])
    assert promote_slot_rows(computed) == computed  # a row at a computed index: left as it is


def test_arguments_of_the_wrong_shape_are_refused_by_the_driver():
    k = test_coordloop._kernel()
    engine = stepcompile.compiled_engine(k)
    d, n, lanes = 3, 4, 2
    Z = np.zeros((n, d + 1))
    I = np.ones((2 * d + 1, lanes))
    out_i, out_f = np.zeros((2, lanes), np.int64), np.zeros((3 * d + 1 + test_coordloop.N_SNAP * d, lanes))
    with pytest.raises(ValueError, match="lanes must be column indices"):
        engine(np.array([0, 2]), I, Z, 5, 0.0, out_i, out_f)
    with pytest.raises(ValueError, match="I has 6 rows"):
        engine(np.arange(lanes), I[1:], Z, 5, 0.0, out_i, out_f)
    with pytest.raises(ValueError, match="out_i has 1 rows"):
        engine(np.arange(lanes), I, Z, 5, 0.0, out_i[:1], out_f)
    with pytest.raises(ValueError, match="I must be a 2-d array"):
        engine(np.arange(lanes), I[:, 0], Z, 5, 0.0, out_i, out_f)
    # out_f's rows depend on d (per-coordinate outputs take d rows each): the engine itself refuses
    # too few, lane by lane and blocked, instead of writing past them
    for below in (0, ALWAYS):
        with pytest.raises(ValueError, match="out_f has fewer rows"):
            stepcompile.compiled_engine(k, below)(np.arange(lanes), I, Z, 5, 0.0, out_i, out_f[:-1])
    plain = test_stepkernel._kernel()
    with pytest.raises(ValueError, match="I: 2, expected 3"):
        stepcompile.compiled_engine(plain)(test_stepkernel._dl_square, np.array([1.0]), np.arange(1), np.ones((2, 1)),
                                           10, 1e-9, np.zeros((5, 1), np.int64), np.zeros((10, 1)))


def test_the_diagonal_network_lane_by_lane_source_keeps_its_speed_ups():
    """The lane-by-lane source is rewritten from the blocked one by patterns (steplanewise): a change of
    the blocked printer's layout would make them miss silently, leaving the bits but losing the speed.
    Pinned on the diagonal network (source only, no compile): no slot loops, the running maximum and
    the flag in locals (the flag as a boolean), the per-coordinate data transposed once per call."""
    import re

    from claims.even2023._dln_step import dln_gd_kernel

    source = stepkernel.kernel_source(dln_gd_kernel(24, 64), lanewise=True)
    assert "for b in range(w)" not in source
    assert re.search(r"\brF\d+ = F\[\d+ \+ b\]", source)
    assert re.search(r"\bfN\d+ = rN\d+ != 0", source)
    assert "ZT = np.ascontiguousarray" in source
