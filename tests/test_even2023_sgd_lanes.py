"""The SGD lane pool of claims/even2023/_sgd_lanes.py gives every lane the bits it gets alone.

Lanes share the pool's slots, its decision on how many q_± series terms to sum, its batch tables and
its admission order; none of that may change a lane's result. Each test compares every field of
:class:`_dln.Lanes` between lanes run together and the same lanes run one by one (or with another pool
width / table split), on converged, stalled, blown-up and hit_pm1 lanes."""
import numpy as np
import pytest

from claims.even2023 import _dln, _sgd_lanes

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


@pytest.mark.parametrize("b", [1, 2])
def test_lanes_in_the_pool_get_the_bits_they_get_alone(b):
    p = _dln.e3_problem(0)
    gammas = [0.002] + list(np.linspace(0.05, 2.5, 8)) + ([_hit_gamma(p, 5)] if b == 1 else [])
    seeds = [3, 4, 3, 5, 4, 3, 7, 3, 4] + ([5] if b == 1 else [])
    together = _dln.run_lanes(p, gammas, b=b, seeds=seeds, max_steps=4000, tol_rel=1e-12)
    outcomes = set(together.status.tolist())
    assert {_dln.CONVERGED, _dln.STALLED, _dln.BLOWN_UP} <= outcomes
    if b == 1:
        assert _dln.HIT_PM1 in outcomes
    for i, (g, s) in enumerate(zip(gammas, seeds)):
        _same(together, _dln.run_lanes(p, [g], b=b, seeds=s, max_steps=4000, tol_rel=1e-12), i)


def test_pool_width_and_table_split_change_no_bit(monkeypatch):
    p = _dln.e1_problem(0)
    gammas = np.linspace(0.02, 0.45, 23)
    seeds = np.arange(23) % 4
    ref = _dln.run_lanes(p, gammas, b=1, seeds=seeds, max_steps=3000, tol_rel=1e-10, check_every=7)
    args = (np.ascontiguousarray(p.X), p.y, p.alpha, gammas, 1, seeds, 3000, 1e-10, 7, 24, 64,
            _dln.batch_curvatures(p.X, 1))
    narrow = _dln.Lanes(gammas, 1, *_sgd_lanes.run_sgd_lanes(*args, pool=3))
    _same(ref, narrow)
    monkeypatch.setattr(_sgd_lanes, "TABLE_BYTES", 3000 * 4)      # one seed's table per kernel call
    _same(ref, _dln.Lanes(gammas, 1, *_sgd_lanes.run_sgd_lanes(*args)))


def test_batches_are_subsets_without_repetition():
    rows = _sgd_lanes.batch_table(np.array([0, 9]), 20, 5, 200)
    assert rows.min() >= 0 and rows.max() < 20
    assert all(len(set(r)) == 5 for r in rows.reshape(-1, 5))
    assert not np.array_equal(rows[0], rows[1])      # seeds give different streams
