"""The SGD lane pool of claims/even2023/_sgd_lanes.py gives every lane the bits it gets alone.

Lanes share the pool's slots, its decision on how many q_± series terms to sum, its batch tables and
its admission order; none of that may change a lane's result. The tests compare every field of
:class:`_dln.Lanes` between lanes run together and the same lanes run one by one, with another pool
width or table split, and against a plain one-lane loop written here in Python (the old kernel's SGD
branch, with the full q_± series for every coordinate), on converged, stalled, blown-up and hit_pm1
lanes, with lanes entering the pool after others left it."""
import math

import numpy as np
import pytest
from numba import njit

from claims.even2023 import _dln, _qseries, _sgd_lanes

FIELDS = ("status", "steps", "u", "v", "ln_ap", "ln_am", "gain", "sum_s2", "max_abs_s", "sum_loss",
          "bounces", "final_loss", "first_loss", "gain_snapshots", "loss_window", "sum_grad_curv")


def _same(a: _dln.Lanes, b: _dln.Lanes, idx=None):
    for f in FIELDS:
        x = getattr(a, f) if idx is None else getattr(a, f)[idx]
        y = getattr(b, f) if idx is None else getattr(b, f)[0]
        assert np.array_equal(x, y, equal_nan=True), f


def _hit_gamma(problem, seed):
    """A γ with fl(γ·(0 + (−y_i)x_ij)) = ±1 at the first step of ``seed``'s batches (b = 1)."""
    i = int(_sgd_lanes.batch_table(np.array([seed]), problem.n, 1, 1)[0, 0, 0])
    a = -problem.y[i] * problem.X[i]
    j = int(np.argmax(np.abs(a)))
    gamma = abs(1.0 / a[j])
    assert abs(gamma * (0.0 + a[j])) == 1.0
    return gamma


def _log(x):
    return -math.inf if x == 0.0 else math.log(x)


def _qpm(s):
    """_qseries._qpm in Python floats (the same IEEE operations; log(0) = −inf as in numba)."""
    if abs(s) < 0.05:
        return _qseries.q_series.py_func(s, 7)
    return -2.0 * s - 2.0 * _log(abs(1.0 - s)), 2.0 * s - 2.0 * _log(abs(1.0 + s))


def _one_lane(p, gamma, seed, b, max_steps, tol_rel, check_every, n_snap=24):
    """One SGD lane as the one-lane loop computed it, in Python floats, batches from batch_table."""
    X, y = p.X.tolist(), p.y.tolist()
    n, d = p.n, p.d
    rows = _sgd_lanes.batch_table(np.array([seed], np.int64), n, b, max_steps)[0]
    lam = _dln.batch_curvatures(p.X, b).tolist()
    u = [math.sqrt(2.0) * a for a in p.alpha.tolist()]
    v = [0.0] * d
    lp = [math.log(a) for a in p.alpha.tolist()]
    lm = list(lp)
    gain, s2 = [0.0] * d, [0.0] * d
    snaps = np.zeros((n_snap, d))
    L0 = 0.0
    for t in y:
        L0 += t * t
    L0 = 0.5 * L0 / n
    maxs = suml = curv0 = curv1 = 0.0
    last, status, k = L0, _dln.STALLED, 0

    def full_loss():
        beta = [u[j] * v[j] for j in range(d)]
        ss = 0.0
        for i in range(n):
            r = -y[i]
            for j in range(d):
                r += X[i][j] * beta[j]
            ss += r * r
        return 0.5 * ss / n

    while k < max_steps:
        if k % check_every == 0:
            last = full_loss()
            if not math.isfinite(last) or last > 1e250:
                status = _dln.BLOWN_UP
                break
            if last <= tol_rel * L0:
                status = _dln.CONVERGED
                break
        beta = [u[j] * v[j] for j in range(d)]
        g = [0.0] * d
        lb = 0.0
        for t in range(b):
            i = int(rows[k, t])
            acc = -y[i]
            for j in range(d):
                acc += X[i][j] * beta[j]
            lb += 0.5 * acc * acc / b
            for j in range(d):
                g[j] += acc * X[i][j] if b == 1 else acc * X[i][j] / b
        suml += lb
        i0 = int(rows[k, 0])
        curv0 += 2.0 * gamma * gamma * lam[0 if b >= n else i0][0] * lb
        curv1 += 2.0 * gamma * gamma * lam[0 if b >= n else i0][1] * lb
        s = [gamma * gj for gj in g]
        hit = any(sv == 1.0 or sv == -1.0 for sv in s)
        ma = 0.0
        for sv in s:
            if abs(sv) > ma:
                ma = abs(sv)
        if ma > maxs:
            maxs = ma
        for j in range(d):
            qp, qm = _qpm(s[j])
            lp[j] -= 0.5 * qp
            lm[j] -= 0.5 * qm
            gain[j] += 0.5 * (qp + qm)
            s2[j] += s[j] * s[j]
            uj = u[j]
            u[j] = uj - s[j] * v[j]
            v[j] = v[j] - s[j] * uj
        k += 1
        if hit:
            status = _dln.HIT_PM1
            break
        if not math.isfinite(maxs) or maxs > 1e120:
            status = _dln.BLOWN_UP
            break
        if k & (k - 1) == 0 and k.bit_length() - 1 < n_snap:
            snaps[k.bit_length() - 1] = gain
    if status == _dln.STALLED:
        last = full_loss()
        if last <= tol_rel * L0:
            status = _dln.CONVERGED
    return {"status": status, "steps": k, "u": u, "v": v, "ln_ap": lp, "ln_am": lm, "gain": gain,
            "sum_s2": s2, "max_abs_s": maxs, "sum_loss": suml, "bounces": 0, "final_loss": last,
            "first_loss": L0, "gain_snapshots": snaps, "sum_grad_curv": [curv0, curv1]}


def _matches_the_one_lane_loop(p, gammas, seeds, b, max_steps, tol_rel, check_every):
    pool = _dln.run_lanes(p, gammas, b=b, seeds=seeds, max_steps=max_steps, tol_rel=tol_rel,
                          check_every=check_every, sgd_engine="pool")
    for i, (g, s) in enumerate(zip(gammas, seeds)):
        ref = _one_lane(p, float(g), int(s), b, max_steps, tol_rel, check_every)
        for f, want in ref.items():
            assert np.array_equal(getattr(pool, f)[i], np.asarray(want), equal_nan=True), (f, i, g, s)
    return pool


@pytest.mark.parametrize("b, max_steps", [(1, 500), (2, 700), (3, 500)])
def test_the_pool_is_the_one_lane_loop(b, max_steps):
    """39 lanes in 32 slots (lanes enter after others leave), check_every = 7 (not dividing the
    budget for b = 1 and 3), every outcome."""
    every_outcome(_matches_the_one_lane_loop, b, max_steps, 39)


def every_outcome(compare, b, max_steps, lanes):
    """``lanes`` lanes (the last three or four at γ = 0.5, five seeds; for b = 1 the last hits ±1) on E3,
    check_every = 7; ``compare`` as in :func:`stalled_lanes_meeting_the_tolerance`; every outcome must
    occur (also used by tests/test_dln_sgd_step.py)."""
    p = _dln.e3_problem(0)
    repeats = 3 if lanes < 64 else 4
    gammas = list(np.geomspace(0.002, 3.0, lanes - repeats)) + [0.5] * repeats
    seeds = [i % 5 for i in range(lanes)]
    if b == 1:
        gammas[-1], seeds[-1] = _hit_gamma(p, 5), 5
    out = compare(p, gammas, seeds, b, max_steps, 1e-6, 7)
    outcomes = set(out.status.tolist())
    assert {_dln.CONVERGED, _dln.STALLED, _dln.BLOWN_UP} <= outcomes
    assert b != 1 or _dln.HIT_PM1 in outcomes


@pytest.mark.parametrize("max_steps, check_every", [(0, 7), (1, 7), (64, 1), (3, 10)])
def test_short_budgets(max_steps, check_every):
    p = _dln.e3_problem(0)
    _matches_the_one_lane_loop(p, [0.1, 0.5, 2.5], [1, 2, 1], 2, max_steps, 1e-6, check_every)


def stalled_lanes_meeting_the_tolerance(compare):
    """check_every above the budget: no check runs after step 0, the final loss decides; the tolerance
    puts half the lanes below it. ``compare(p, gammas, seeds, b, max_steps, tol_rel, check_every)``
    runs and checks the lanes and returns them (also used by tests/test_dln_sgd_step.py)."""
    p = _dln.e3_problem(0)
    gammas, seeds = [0.05, 0.1, 0.2, 0.3], [1, 2, 3, 4]
    first = _dln.run_lanes(p, gammas, b=1, seeds=seeds, max_steps=300, tol_rel=0.0, check_every=1000)
    tol = float(np.median(first.final_loss / first.first_loss))
    lanes = compare(p, gammas, seeds, 1, 300, tol, 1000)
    assert {_dln.CONVERGED, _dln.STALLED} <= set(lanes.status.tolist())


def test_a_stalled_lane_whose_final_loss_meets_the_tolerance_converges():
    stalled_lanes_meeting_the_tolerance(_matches_the_one_lane_loop)


@pytest.mark.parametrize("b", [1, 2])
def test_lanes_in_the_pool_get_the_bits_they_get_alone(b):
    p = _dln.e3_problem(0)
    gammas = [0.002] + list(np.linspace(0.05, 2.5, 8)) + ([_hit_gamma(p, 5)] if b == 1 else [])
    seeds = [3, 4, 3, 5, 4, 3, 7, 3, 4] + ([5] if b == 1 else [])
    together = _dln.run_lanes(p, gammas, b=b, seeds=seeds, max_steps=4000, tol_rel=1e-12, sgd_engine="pool")
    for i, (g, s) in enumerate(zip(gammas, seeds)):
        _same(together, _dln.run_lanes(p, [g], b=b, seeds=s, max_steps=4000, tol_rel=1e-12, sgd_engine="pool"), i)


def test_pool_width_and_table_split_change_no_bit(monkeypatch):
    p = _dln.e1_problem(0)
    gammas = np.linspace(0.02, 0.45, 23)
    seeds = np.arange(23) % 4
    ref = _dln.run_lanes(p, gammas, b=1, seeds=seeds, max_steps=3000, tol_rel=1e-10, check_every=7,
                         sgd_engine="pool")
    args = (np.ascontiguousarray(p.X), p.y, p.alpha, gammas, 1, seeds, 3000, 1e-10, 7, 24, 64,
            _dln.batch_curvatures(p.X, 1))
    _same(ref, _dln.Lanes(gammas, 1, *_sgd_lanes.run_sgd_lanes(*args, pool=16)))
    monkeypatch.setattr(_sgd_lanes, "TABLE_BYTES", 3000 * 4)      # one seed's table per kernel call
    _same(ref, _dln.Lanes(gammas, 1, *_sgd_lanes.run_sgd_lanes(*args)))
    monkeypatch.setattr(_sgd_lanes, "TABLE_BYTES", 3000 * 4 - 1)
    with pytest.raises(ValueError, match="batch table"):
        _sgd_lanes.run_sgd_lanes(*args)


def test_the_kernel_indexes_inside_its_arrays():
    """The kernel run as Python (numpy checks every index) on a small pool with lanes entering late:
    the same results as compiled, so no slot reads a batch table past its lane's budget."""
    p = _dln.e3_problem(0)
    gammas = np.geomspace(0.01, 2.0, 20)
    seeds = np.arange(20) % 3
    rows = _sgd_lanes.batch_table(np.arange(3), p.n, 2, 100)
    args = (np.ascontiguousarray(p.X), p.y, p.alpha, gammas, seeds, rows, 100, 1e-6, 7, 8,
            _dln.batch_curvatures(p.X, 2), 16)
    with np.errstate(all="ignore"):        # (numpy scalars warn where the compiled code overflows quietly)
        interpreted = _sgd_lanes.sgd_lanes_kernel.py_func(*args)
    for a, b in zip(interpreted, _sgd_lanes.sgd_lanes_kernel(*args)):
        assert np.array_equal(a, b, equal_nan=True)


@njit
def _halved_q_series_and_q_halves(S, terms):
    """Per s in S: 0.5·q_+, 0.5·q_−, 0.5·(q_+ + q_−) from q_series (the old update's operands) and
    hp, hm, hp + hm from q_halves (the pool's)."""
    old = np.empty((S.shape[0], 3))
    new = np.empty((S.shape[0], 3))
    for i in range(S.shape[0]):
        if terms == 3:
            qp, qm = _qseries.q_series(S[i], 3)
            hp, hm = _qseries.q_halves(S[i], 3)
        elif terms == 5:
            qp, qm = _qseries.q_series(S[i], 5)
            hp, hm = _qseries.q_halves(S[i], 5)
        else:
            qp, qm = _qseries.q_series(S[i], 7)
            hp, hm = _qseries.q_halves(S[i], 7)
        old[i, 0], old[i, 1], old[i, 2] = 0.5 * qp, 0.5 * qm, 0.5 * (qp + qm)
        new[i, 0], new[i, 1], new[i, 2] = hp, hm, hp + hm
    return old, new


@pytest.mark.parametrize("terms", [3, 5, 7])
def test_q_halves_give_the_bits_of_the_halved_q_series(terms):
    """The series branch's update by halves (_qseries.q_halves) against 0.5·q_± of q_series, bit for
    bit, on |s| < 0.05 from the subnormals up (±0, where |s|³ or s² underflows, log-uniform magnitudes
    and the neighbours of 0.05) and NaN."""
    rng = np.random.default_rng(14)
    tiny = np.nextafter(0.0, 1.0)
    edges = [0.0, tiny, 2 * tiny, 1e-320, 1e-308, 2.2250738585072014e-308, 1e-200, 1e-160, 1e-155,
             1e-108, 1e-103, 1e-100, 1e-30, 1e-8, 1e-3, 0.01, np.nextafter(0.05, 0.0), math.nan]
    mags = np.concatenate([edges, 10.0 ** rng.uniform(-323.5, np.log10(0.05), 400_000),
                           np.nextafter(0.05, 0.0) - rng.uniform(0, 1e-3, 20_000)])
    S = np.concatenate([mags, -mags])
    old, new = _halved_q_series_and_q_halves(S, terms)
    both_nan = np.isnan(old) & np.isnan(new)
    assert both_nan.sum() == 6 and np.array_equal(old.view(np.int64)[~both_nan], new.view(np.int64)[~both_nan])


@njit
def _halves_short_and_full(S, factors):
    """For each m in S and the coordinates s = m·f (|f| <= 1, so max_j |s_j| = m): hp, hm and hp + hm
    of q_halves with the pool's count (the least of 1, 2, 3, 5, 7 at or above series_terms(m²)) and
    with all 7 terms."""
    short = np.empty((S.shape[0] * factors.shape[0], 3))
    full = np.empty((S.shape[0] * factors.shape[0], 3))
    row = 0
    for m in S:
        nterms = _qseries.series_terms(m * m)
        count = 1 if nterms <= 1 else 2 if nterms <= 2 else 3 if nterms <= 3 else 5 if nterms <= 5 else 7
        for f in factors:
            s = m * f
            hp, hm = _qseries.q_halves(s, count)
            short[row, 0], short[row, 1], short[row, 2] = hp, hm, hp + hm
            hp, hm = _qseries.q_halves(s, 7)
            full[row, 0], full[row, 1], full[row, 2] = hp, hm, hp + hm
            row += 1
    return short, full


def test_the_pools_short_series_give_the_bits_of_all_seven_terms():
    """The pool sums 1 or 2 terms late in a converging run (max_j |s_j| below 2^-28 ≈ 3.7e-9 or 2^-14
    ≈ 6.1e-5, where series_terms switches): the halves and their sum are those of the 7-term series,
    bit for bit (signed zeros included), from the subnormals to 0.05, at and beside every switch
    point 2^(-28/t) of the count."""
    rng = np.random.default_rng(26)
    switches = [2.0 ** (-28 / t) for t in range(1, 7)]
    near = [x for e in switches for x in (e, np.nextafter(e, 0.0), np.nextafter(e, 1.0),
                                         *(e * (1 + rng.uniform(-1e-6, 1e-6, 200))))]
    m = np.concatenate([10.0 ** rng.uniform(-320, np.log10(0.05), 300_000),
                        np.geomspace(5e-324, 0.05, 20_000, endpoint=False), near])
    factors = np.concatenate([[1.0, -1.0, 0.0, -0.0, 0.5, -0.999999, 1e-3, -1e-9, 1e-200],
                              rng.uniform(-1, 1, 15)])
    counts = {_qseries.series_terms(x * x) for x in near}
    assert {1, 2, 3, 4, 5, 6} <= counts   # each switch is exercised from both sides
    for part in np.array_split(m, 40):   # (in parts: all at once would hold ~600 MB)
        short, full = _halves_short_and_full(part, factors)
        assert np.array_equal(short.view(np.int64), full.view(np.int64))


def test_the_widest_column_gives_max_abs_s_for_one_row_batches():
    """b = 1: max_j |s_j| (s_j = γ(0 + r x_ij), NaN skipped, from 0) is |s_j*| at the row's first
    widest column j* (_sgd_lanes._one_row_steps_into), also for zero rows, ties, overflow, ±inf and
    NaN residuals and stepsizes."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(12, 9)) * 10.0 ** rng.integers(-300, 300, size=(12, 9))
    X[0] = 0.0
    X[1, :4] = [2.0, -2.0, 0.0, -2.0]
    X[2, 3] = -np.inf
    X[3] = [1e-320, -1e-320, 0.0, 5e-324, 0.0, 0.0, 0.0, 0.0, 0.0]
    jmax = _sgd_lanes._widest_columns(X)
    specials = [0.0, -0.0, 5e-324, 1e-300, 1.0, -3.5, 1e300, np.inf, -np.inf, np.nan]
    with np.errstate(all="ignore"):
        for gam in specials + list(10.0 ** rng.uniform(-20, 5, 40)):
            for r in specials + list(rng.normal(size=40) * 10.0 ** rng.uniform(-300, 300, 40)):
                for i in range(X.shape[0]):
                    m = 0.0
                    for a in np.abs(gam * (0.0 + r * X[i])):
                        m = a if a > m else m
                    a = abs(gam * (0.0 + r * X[i, jmax[i]]))
                    assert (a if a > 0.0 else 0.0) == m


@pytest.mark.parametrize("engine", ["pool", "declared"])
def test_no_lanes(engine):
    lanes = _dln.run_lanes(_dln.e3_problem(0), [], b=1, sgd_engine=engine)
    assert lanes.status.shape == (0,) and lanes.sum_grad_curv.shape == (0, 2)


def test_batches_are_subsets_without_repetition():
    rows = _sgd_lanes.batch_table(np.array([0, 9]), 20, 5, 200)
    assert rows.min() >= 0 and rows.max() < 20
    assert all(len(set(r)) == 5 for r in rows.reshape(-1, 5))
    assert not np.array_equal(rows[0], rows[1])      # seeds give different streams
