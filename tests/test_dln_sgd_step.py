"""Mini-batch SGD on the diagonal network as a declared step kernel (claims/even2023/_dln_sgd_step.py)
gives every field of the lane pool (claims/even2023/_sgd_lanes.py, the oracle) bit for bit — up to
which NaN the curvature sums hold for b > 1, where they are NaN by design.

The lanes cover every outcome (converged, stalled, blown_up, hit_pm1), batches of 1, 2 and 3 rows,
d = 10 and 30, more lanes than a block holds (lanes enter as others leave, so their checks fall on
different sweeps and slots sit parked while others step), budgets that are not multiples of the check
period, and the budget's end deciding by the final loss. The engine's mini-batch features
(verify/dynamics/batchrows.py) refuse what they cannot print or run."""
import dataclasses
import math
import re

import numpy as np
import pytest
import sympy as sp

from claims.even2023 import _dln, _dln_sgd_step, _qseries, _sgd_lanes
from test_even2023_sgd_lanes import every_outcome, stalled_lanes_meeting_the_tolerance
from verify.dynamics.stepcompile import compiled_engine
from verify.dynamics.stepitems import T, Let, PerCoordinate, Reduce, RowMean, State
from verify.dynamics.stepkernel import kernel_source

FIELDS = ("status", "steps", "u", "v", "ln_ap", "ln_am", "gain", "sum_s2", "max_abs_s", "sum_loss",
          "bounces", "final_loss", "first_loss", "gain_snapshots", "loss_window", "sum_grad_curv")


def _both(p, gammas, seeds, b, max_steps, tol_rel, check_every=None):
    kw = dict(b=b, seeds=seeds, max_steps=max_steps, tol_rel=tol_rel, check_every=check_every)
    pool = _dln.run_lanes(p, gammas, **kw, sgd_engine="pool")
    declared = _dln.run_lanes(p, gammas, sgd_engine="declared", **kw)
    for f in FIELDS:
        x, y = np.asarray(getattr(pool, f)), np.asarray(getattr(declared, f))
        if f == "sum_grad_curv" and b > 1:  # NaN by design for b > 1 (eq10.batch): which NaN is the CPU's
            both = np.isnan(x) & np.isnan(y)
            x, y = np.where(both, 0.0, x), np.where(both, 0.0, y)
        assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes(), f
    return pool


@pytest.mark.parametrize("b, max_steps", [(1, 500), (2, 700), (3, 500)])
def test_declared_sgd_is_the_pool_bit_for_bit(b, max_steps):
    """70 lanes, more than a block's 32 slots, check_every = 7 (not dividing the budget for b = 1, 3)."""
    every_outcome(_both, b, max_steps, 70)


def test_declared_sgd_at_d30_near_the_stability_threshold():
    """E1 (d = 30) around γ̃_max, where the steps' |s_j| reach 0.05 (the logs' branch) and lanes bounce."""
    p = _dln.e1_problem(0)
    pool = _both(p, np.linspace(0.3, 0.5, 12), np.arange(12) % 3, 1, 3000, 1e-10)
    assert float(pool.max_abs_s.max()) >= 0.05


@pytest.mark.parametrize("gamma, terms", [(1e-10, 1), (1e-6, 2), (1e-4, 3), (1e-3, 4), (1e-2, 7)])
def test_each_series_term_count(gamma, terms):
    """The declared SGD sums the q_± series with the least of 1, 2, 3, 5, 7 terms at or above what the
    block's largest max_j s_j² needs (_qseries.series_terms), as the pool does; the bits are the pool's.
    One γ per call puts the call's largest step in one count's band (4 terms needed: the 5-term copy;
    γ = 1e-10 and 1e-6 keep every step in the 1- and 2-term bands). α = 1, so that ln α_± = −Σ_k q_±/2
    start at 0 and keep both halves' bits (the odd terms included, which Gain cancels); with E1's α
    the 1-term steps are below an ulp of ln α."""
    p = dataclasses.replace(_dln.e1_problem(0), alpha=np.ones(30))
    pool = _both(p, [gamma] * 4, np.arange(4), 1, 300, 1e-30)
    assert _qseries.series_terms(float(pool.max_abs_s.max()) ** 2) == terms
    if terms <= 2:
        assert (pool.ln_ap != pool.ln_am).any()  # the odd terms reached the bits


def test_the_declared_sgd_prints_the_one_and_two_term_copies():
    source = kernel_source(_dln_sgd_step.dln_sgd_kernel(24))
    for count in (1, 2, 3, 5):
        assert source.count(f"# the terms past {count} cannot move the sums") == 1, count


@pytest.mark.parametrize("max_steps, check_every", [(0, 7), (1, 7), (64, 1), (3, 10)])
def test_short_budgets(max_steps, check_every):
    _both(_dln.e3_problem(0), [0.1, 0.5, 2.5], [1, 2, 1], 2, max_steps, 1e-6, check_every)


def test_a_stalled_lane_whose_final_loss_meets_the_tolerance_converges():
    stalled_lanes_meeting_the_tolerance(_both)


def test_the_declared_engine_refuses_bad_batch_tables():
    p = _dln.e3_problem(0)
    engine = compiled_engine(_dln_sgd_step.dln_sgd_kernel(24), 0)
    d, L = p.d, 2
    Z = np.ascontiguousarray(np.c_[p.X, p.y, _dln.batch_curvatures(p.X, 1)])
    I = np.vstack([np.ones((2 * d, L)), np.full((1, L), 0.1), np.zeros((d, L)), np.zeros((1, L))])
    out = (np.zeros((2, L), np.int64), np.zeros((6 * d + 5 + 24 * d, L)))
    good = _sgd_lanes.batch_table(np.arange(2), p.n, 1, 5)
    rest = (5, 7, 0.0, 1.0, p.n, 1)
    with pytest.raises(ValueError, match="int32"):
        engine(np.arange(L), I, Z, good.astype(np.int64), *rest, *out)
    with pytest.raises(ValueError, match="outside Z"):
        engine(np.arange(L), I, Z, good + np.int32(p.n), *rest, *out)
    I[-1, 1] = 2.0  # a slot past the table's two
    with pytest.raises(ValueError, match="whole numbers"):
        engine(np.arange(L), I, Z, good, *rest, *out)
    assert engine(np.arange(1), I, Z, good, *rest, *out) == 0  # in a column that is not run: not read
    with pytest.raises(ValueError, match="check_every"):
        _dln.run_lanes(p, [0.1], b=1, check_every=0, sgd_engine="declared")
    with pytest.raises(ValueError, match="sgd_engine"):
        _dln.run_lanes(p, [0.1], b=1, sgd_engine="fast")


def test_batch_rows_are_declared_consistently():
    x, y = sp.symbols("x y", real=True)
    with pytest.raises(ValueError, match="mean=False"):
        RowMean((x,), (y,), (), batch=True)
    k = _dln_sgd_step.dln_sgd_kernel(24)
    with pytest.raises(ValueError, match="batch_slot"):
        kernel_source(dataclasses.replace(k, batch_slot=None))
    with pytest.raises(ValueError, match="blocked engine only"):
        kernel_source(k, lanewise=True)
    with pytest.raises(ValueError, match="without data rows"):
        kernel_source(dataclasses.replace(k, data=()))
    check = k.stop.before[0]
    rf, y = sp.symbols("rf y", real=True)
    not_a_let = dataclasses.replace(check.items[0], lets=(State(rf, 0.0, -y),))
    odd = dataclasses.replace(check, items=(not_a_let, *check.items[1:]))
    with pytest.raises(TypeError, match="checkpoint's intermediate .*declare a Let or a Reduce"):
        kernel_source(dataclasses.replace(k, stop=dataclasses.replace(k.stop, before=(odd,))))


def test_row_means_over_every_row_share_one_scratch_of_distinct_rows():
    """Lane by lane, a step's row mean over all rows and a checkpoint's row mean both compute every row's
    intermediates at once into the scratch R (.batchrows.every_row_intermediates): one R with a row
    each (r, 0.5 r, the loss term; the checkpoint's residual), one transposed copy of the data."""
    k = _dln_sgd_step.dln_sgd_kernel(24)
    full_rows = dataclasses.replace(k, row_means=(dataclasses.replace(k.row_means[0], batch=False),),
                                    batch_slot=None)
    lines = kernel_source(full_rows, lanewise=True).split("\n")
    assert [line.strip() for line in lines if "R = np.zeros" in line] == ["R = np.zeros((4, Z.shape[0]))"]
    assert sum("ZT = " in line for line in lines) == 1
    source = "\n".join(lines)
    assert all(f"R[{c}, i] = " in source for c in range(4))
    with pytest.raises(ValueError, match="b = 1 only"):
        _dln_sgd_step.run_sgd_lanes_declared(np.eye(3), np.ones(3), np.ones(3), [0.1], 2, [0], 5, 0.0, 1, 24,
                                             64, np.ones((3, 2)))


def test_a_checkpoint_reading_parameters_is_decided_before_the_vector_loop():
    """A checkpoint sum reading the parameter u itself (not the row let β): fine as the first
    before-rule (decided before the step, the parameters as they are); refused behind another rule,
    where the scalar pass would read a slot that did not step after its discarded step (.coordpark)."""
    k = _dln_sgd_step.dln_sgd_kernel(24)
    check = k.stop.before[0]
    u, x, y, rf = sp.symbols("u x y rf", real=True)
    loss = check.items[0]
    reads_u = dataclasses.replace(check, items=(
        dataclasses.replace(loss, lets=(Reduce(rf, -y, rf + x * u),)), *check.items[1:]))
    first = dataclasses.replace(k, stop=dataclasses.replace(k.stop, before=(reads_u,)))
    assert "checkpoint, before the step" in kernel_source(first)
    behind = dataclasses.replace(k, stop=dataclasses.replace(k.stop, before=((T < 0, 1), reads_u)))
    with pytest.raises(ValueError, match="decided before the vector loop"):
        kernel_source(behind)
    # the kernel's own checkpoint (reading the row let β) behind another rule: decided in the scalar pass
    late = dataclasses.replace(k, stop=dataclasses.replace(k.stop, before=((T < 0, 1), check)))
    assert "checkpoint, before the step" not in kernel_source(late)


def test_the_row_let_beta_is_printed_where_read_unless_a_late_checkpoint_reads_it():
    """β = u ⊙ v (a row let) is printed inline in the batch rows: no pass of the step stores it; the early
    checkpoint's row mean for every slot at once fills a row with it first. A checkpoint decided in the
    scalar pass, where a slot that did not step holds its discarded step (.coordpark), reads β from the
    row the data pass stores at this step instead (and the batch rows then read that row)."""
    import re

    k = _dln_sgd_step.dln_sgd_kernel(24)
    beta_pass = re.compile(r"C\[j, \d+ \+ b\] = \(C\[j, \d+ \+ b\]\*C\[j, \d+ \+ b\]\)")  # a row = u*v
    source = kernel_source(k)
    # one pass stores β: the checkpoint's for every slot at once, before its loop over the data rows
    # reads it (once per coordinate and slot, not once per data row too)
    across = source.index("# the row means for every slot (vectorised)")
    assert [m.start() > across for m in beta_pass.finditer(source)] == [True]
    beta_row = re.search(r"C\[j, (\d+) \+ b\] = \(C\[j, 0 \+ b\]\*C\[j, 32 \+ b\]\)", source).group(1)
    assert f"r_acc = (C[j + 0, {beta_row} + b]*ZT[j + 0, i] + r_acc)" in source
    # u*v where read, by the batch row's x
    assert re.search(r"\(C\[j \+ 0, \d+ \+ b\]\*C\[j \+ 0, \d+ \+ b\]\)\*C\[j \+ 0, \d+ \+ b\]", source)
    late = dataclasses.replace(k, stop=dataclasses.replace(k.stop, before=((T < 0, 1), k.stop.before[0])))
    late_source = kernel_source(late)
    assert len(beta_pass.findall(late_source)) == 1
    assert re.search(r"\(C\[j \+ 0, \d+ \+ b\]\*ZB\[", late_source)  # the batch rows read the row too


def test_seed_groups_of_their_own_tables_change_no_bit(monkeypatch):
    """Seeds whose tables do not fit together run in one engine call per group: the same bits."""
    p = _dln.e3_problem(0)
    gammas, seeds = np.linspace(0.05, 1.5, 9), np.arange(9) % 4
    ref = _dln.run_lanes(p, gammas, b=1, seeds=seeds, max_steps=400, tol_rel=1e-8, sgd_engine="declared")
    monkeypatch.setattr(_sgd_lanes, "TABLE_BYTES", 400 * 4 * 2)  # two seeds' tables per call
    split = _dln.run_lanes(p, gammas, b=1, seeds=seeds, max_steps=400, tol_rel=1e-8, sgd_engine="declared")
    _same_bytes(ref, split)


@pytest.mark.parametrize("run", [_sgd_lanes.run_sgd_lanes, _dln_sgd_step.run_sgd_lanes_declared])
def test_seeds_and_stepsizes_may_be_lists(run):
    p = _dln.e3_problem(0)
    args = (np.ascontiguousarray(p.X), p.y, p.alpha)
    rest = (1, [3, 4], 50, 1e-8, 5, 24, 64, _dln.batch_curvatures(p.X, 1))
    listed, arrays = run(*args, [0.1, 0.3], *rest), run(*args, np.array([0.1, 0.3]), 1, np.array([3, 4]), *rest[2:])
    assert all(np.asarray(a).tobytes() == np.asarray(b).tobytes() for a, b in zip(listed, arrays))


def test_a_batch_row_mean_dividing_by_b_gets_a_copy_without_the_divisions_for_b_1_only():
    """The copy for b = 1 (a/1 is a) is printed for divisions by integer constants only: a float
    divisor keeps its divisions in the one copy."""
    k = _dln_sgd_step.dln_sgd_kernel(24)
    assert kernel_source(k).count("x/1 is x") == 1
    nb, loss_tol = sp.Symbol("nb", integer=True), sp.Symbol("loss_tol", real=True)
    m = k.row_means[0]
    by_float = dataclasses.replace(m, exprs=tuple(sp.sympify(e).xreplace({nb: loss_tol}) for e in m.exprs))
    source = kernel_source(dataclasses.replace(k, row_means=(by_float,)))
    assert "x/1 is x" not in source and "/ c_loss_tol" in source


def _python_engine(source: str):
    """The generated engine run as plain Python (numpy scalars: the same IEEE operations, no compile)."""
    class NoJit:
        @staticmethod
        def njit(*args, **options):
            return args[0] if args and callable(args[0]) else (lambda f: f)

    class CompiledMath:  # math.log as compiled: log 0 = -inf (Python's raises; a lane hitting s_j = ±1 reads it)
        @staticmethod
        def log(x):
            return -math.inf if x == 0.0 else math.log(x)

    scope = {"math": CompiledMath, "np": np, "numba": NoJit, "select": lambda c, a, b: a if c else b}
    exec(compile(source, "<generated engine, as Python>", "exec"), scope)  # generated from the declaration
    return scope["engine"]


def _run_as_python(monkeypatch, source: str, p, gammas, **kw):
    """run_lanes' declared SGD with the engine of ``source`` run as Python (:func:`_python_engine`)."""
    engine = _python_engine(source)
    monkeypatch.setattr(_dln_sgd_step, "compiled_engine", lambda kernel, lanewise_below: engine)
    with np.errstate(all="ignore"):
        return _dln.run_lanes(p, gammas, sgd_engine="declared", **kw)


def _same_bytes(a, b):
    """Every field of two runs (:class:`_dln.Lanes`) byte for byte."""
    for f in FIELDS:
        assert np.asarray(getattr(a, f)).tobytes() == np.asarray(getattr(b, f)).tobytes(), f


@pytest.mark.parametrize("b", [1, 2])
def test_the_full_loss_runs_for_every_slot_at_once_when_a_quarter_of_the_slots_check(b, monkeypatch):
    """The early checkpoint's leading row mean (the full loss) runs for every slot at once, the slots
    innermost, when at least a quarter of the block's slots check at this step, and slot by slot
    otherwise. Each way, forced for every check, gives the same bits as the other and the pool's
    values (the generated source run as Python: a compile per variant would take ~50 s; Python's
    scalars may give a NaN another sign bit than the compiled code). A checkpoint whose row mean
    follows a Let of its own is computed slot by slot only."""
    k = _dln_sgd_step.dln_sgd_kernel(24)
    source = kernel_source(k)
    across = "4 * due_slots0 >= w"
    assert source.count(across) == 2  # the pass for every slot, and each slot's read of it
    assert "r_acc = P[0, i, b]" in source and "R[0, i] = r_acc" in source  # every slot's rows; one slot's
    p, gammas = _dln.e3_problem(0), np.linspace(0.05, 3.0, 12)
    kw = dict(b=b, seeds=np.arange(12) % 3, max_steps=300, tol_rel=1e-3, check_every=7)
    pool = _dln.run_lanes(p, gammas, **kw, sgd_engine="pool")
    assert set(pool.status.tolist()) >= {0, 2}
    runs = {}
    for forced in ("True", "False"):
        runs[forced] = _run_as_python(monkeypatch, source.replace(across, forced), p, gammas, **kw)
        for f in FIELDS:
            assert np.array_equal(getattr(pool, f), getattr(runs[forced], f), equal_nan=True), (forced, f)
    _same_bytes(runs["True"], runs["False"])
    check = k.stop.before[0]
    z = sp.Symbol("z", real=True)
    let_first = dataclasses.replace(check, items=(Let(z, 1.0), *check.items))
    alone = kernel_source(dataclasses.replace(k, stop=dataclasses.replace(k.stop, before=(let_first,))))
    assert "due_slots" not in alone and "R[0, i] = r_acc" in alone


def test_a_leading_row_mean_may_read_an_earlier_ones_sums_in_either_way(monkeypatch):
    """Two leading row means, the second reading the first's sum: the pass for every slot reads it from
    the first's rows (as each slot's pass reads its locals), and both ways give the same bits (run as
    Python, as above). A row mean whose terms read its own sums is refused."""
    k = _dln_sgd_step.dln_sgd_kernel(24)
    check = k.stop.before[0]
    ss, ss2, half = check.items[0].names[0], *sp.symbols("ss2 half", real=True)
    assert check.items[1].name == half
    second = RowMean((ss2,), (0.25 * ss,), (), mean=False)  # Σ_i ss/4: n/4 times the sum of squares
    items = (check.items[0], second, Let(half, 0.5 * ss2), *check.items[2:])
    two = dataclasses.replace(k, stop=dataclasses.replace(k.stop, before=(dataclasses.replace(check, items=items),)))
    source = kernel_source(two)
    p, gammas = _dln.e3_problem(0), np.linspace(0.05, 3.0, 6)
    kw = dict(b=2, seeds=np.arange(6) % 3, max_steps=100, tol_rel=1e-3, check_every=7)
    runs = [_run_as_python(monkeypatch, source.replace("4 * due_slots0 >= w", forced), p, gammas, **kw)
            for forced in ("True", "False")]
    _same_bytes(*runs)
    m = k.row_means[0]
    reads_itself = dataclasses.replace(m, exprs=(m.exprs[0], m.exprs[1] + m.names[1], *m.exprs[2:]))
    with pytest.raises(ValueError, match="read its own sums"):
        kernel_source(dataclasses.replace(k, row_means=(reads_itself,)))


def test_a_one_row_batch_reads_g_where_read_and_the_flag_is_searched_after_the_max(monkeypatch):
    """For b = 1 the batch gradient G_j is printed where s_j = γ G_j reads it, (0.0 + r x_j), with no pass
    storing it, x_j read from a row of C the batch row's x is copied into; and "some |s_j| = 1" is
    searched after the loop at the slots whose max_j |s_j| reaches 1 (verify/dynamics/coordmatch.py).
    Forced off — the general data pass at b = 1, a search at every slot — the generated source (run as
    Python, as above) gives the same bits, and the pool's, on lanes that converge, blow up, stall and
    hit s_j = ±1. G read by anything else (here a block after the vector
    loop) is stored."""
    from test_even2023_sgd_lanes import _hit_gamma

    k = _dln_sgd_step.dln_sgd_kernel(24)
    source = kernel_source(k)
    one_row = "if ZB.shape[0] == 1 and (c_nb == 1):  # one batch row: G where read"
    searches = re.findall(r"if not F\[\d+ \+ b\] < 1\.0:", source)
    assert source.count(one_row) == 1 and len(searches) == 2 and len(set(searches)) == 1  # both copies' passes
    search = searches[0]
    assert "(abs(v_s) == 1)" not in re.sub(r"if \(\(abs\(C\[j, \d+ \+ b\]\) == 1\)\):", "", source)
    assert len(re.findall(r"v_G = \(0\.0 \+ \(\(F\[\d+ \+ b\]\*C\[j \+ 0, \d+ \+ b\]\)\)\)", source)) == 1
    # the one row's x_j copied into a row of C and read from there, its other columns from Z: no ZB
    branch = source.split(one_row, 1)[1]
    indent = re.match(r"\n( *)", branch).group(1)
    branch = branch.split(f"\n{indent[:-4]}else:", 1)[0]
    assert re.search(r"C\[c, \d+ \+ b\] = Z\[row, c\]", branch) and "-Z[RW[0, b], d + 0]" in branch  # y_i
    assert "ZB[" not in branch
    p = _dln.e3_problem(0)
    gammas, seeds = [0.05, 0.5, 3.0, _hit_gamma(p, 5)], [0, 1, 2, 5]
    kw = dict(b=1, seeds=seeds, max_steps=300, tol_rel=1e-3, check_every=7)
    pool = _dln.run_lanes(p, gammas, **kw, sgd_engine="pool")
    assert set(pool.status.tolist()) == {_dln.CONVERGED, _dln.BLOWN_UP, _dln.STALLED, _dln.HIT_PM1}
    for variant in (source, source.replace(one_row, "if False:"), source.replace(search, "if True:")):
        _same_bytes(pool, _run_as_python(monkeypatch, variant, p, gammas, **kw))
    G, sum_G = k.row_means[0].names[1], sp.Symbol("sum_G", real=True)
    assert G.name == "G"
    read_after = dataclasses.replace(k, body=(*k.body, PerCoordinate((State(sum_G, 0.0, sum_G + G),))))
    assert "one batch row" not in kernel_source(read_after)
    # a term reading what the blocks before the vector loop define (their max_j |s_j|) is not moved there
    m, ma = k.row_means[0], sp.Symbol("ma", real=True)
    assert ma in {i.name for i in k.body[0].items}
    reads_ma = dataclasses.replace(m, exprs=(m.exprs[0], m.exprs[1] * ma, *m.exprs[2:]))
    assert "one batch row" not in kernel_source(dataclasses.replace(k, row_means=(reads_ma,)))
    # the flag read in its own block keeps its running value in the loop: no search
    hit, z = sp.Symbol("hit"), sp.Symbol("z", real=True)
    block = k.body[0]
    with_z = dataclasses.replace(block, items=(*block.items, Let(z, sp.Piecewise((1.0, hit), (0.0, True)))))
    flag_read = kernel_source(dataclasses.replace(k, body=(with_z, *k.body[1:])))
    assert search not in flag_read and "(abs(v_s) == 1)" in flag_read


def test_lanes_refilled_at_a_multiple_of_the_check_period_check_together():
    """A blocked kernel with one check period c (T mod c) refills its finished slots every least multiple
    of c at or above 32 steps, so lanes loaded later check at the same sweeps as the first ones; the
    lane-by-lane printing, and a kernel with no period, keep 32. (The bits do not depend on it: the
    70-lane runs above, check_every = 7, refill at 35 steps.)"""
    from claims.even2023._dln_step import dln_gd_kernel

    line = next(x for x in kernel_source(_dln_sgd_step.dln_sgd_kernel(24)).splitlines() if x.startswith("    chunk = "))
    for c, chunk in ((1, 32), (5, 35), (7, 35), (20, 40), (32, 32), (33, 32), (0, 32)):
        scope = {"c_check_every": c}
        exec(line.strip(), scope)  # the generated line, as the engine runs it
        assert scope["chunk"] == chunk, (c, line)
    assert "    chunk = 32\n" in kernel_source(dln_gd_kernel(24, 64))
    assert "    chunk = 32\n" in kernel_source(dln_gd_kernel(24, 64), lanewise=True)


def test_a_one_row_batch_mean_printed_wholly_where_read_has_no_empty_loop(monkeypatch):
    """A second batch row mean with no intermediates whose one sum (H_j = Σ x_j²) only a block before the
    vector loop reads: for a batch of one row nothing of it is left in the pass over the rows, which
    used to print a loop with no body (a source that did not parse). Run as Python, the kernel gives
    the pool's bits (H changes no output)."""
    k = _dln_sgd_step.dln_sgd_kernel(24)
    x = next(z for z in k.data if z.name == "x")
    H, h = sp.Symbol("H", real=True), sp.Symbol("h", real=True)
    block = k.body[0]
    k2 = dataclasses.replace(k, row_means=(*k.row_means, RowMean((H,), (x * x,), (), mean=False, batch=True)),
                             body=(dataclasses.replace(block, items=(*block.items, Let(h, H))), *k.body[1:]))
    source = kernel_source(k2)
    assert "one batch row: G, H where read" in source
    p, gammas = _dln.e3_problem(0), [0.05, 0.5, 3.0]
    kw = dict(b=1, seeds=[0, 1, 2], max_steps=60, tol_rel=1e-3, check_every=7)
    pool = _dln.run_lanes(p, gammas, **kw, sgd_engine="pool")
    _same_bytes(pool, _run_as_python(monkeypatch, source, p, gammas, **kw))
