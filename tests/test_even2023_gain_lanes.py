"""The gain-only kernel (claims/even2023/_gain_lanes.py) against the general float64 lanes of _dln:
same batches, same stopping step, the same ‖Gain‖₁ up to rounding."""
import numpy as np
import pytest

from claims.even2023 import _dln, _gain_lanes


def _problem(d=20, alpha=1e-2):
    return _dln.sparse_problem(12, d, 3, alpha, seed=5000, teacher=(1.0, -1.0, 1.0))


@pytest.mark.parametrize("b", [1, 2, 3, 5, 12])       # b = 1 (power sums), small, whole-residual, GD
@pytest.mark.parametrize("d", [20, 24])               # padded to a multiple of 8, and not
def test_matches_general_lanes(b, d):
    p = _problem(d)
    gamma = 0.1 / d
    seeds = [3, 4, 5]
    ref = _dln.run_lanes(p, np.full(3, gamma), b=b if b < p.n else None, seeds=seeds,
                         max_steps=60_000, tol_rel=1e-4)
    new = _gain_lanes.run_gain_lanes(p, gamma, seeds, b=b if b < p.n else None, max_steps=60_000,
                                     tol_rel=1e-4)
    assert np.array_equal(new.status, ref.status)
    assert (ref.status == _dln.CONVERGED).all()
    assert np.array_equal(new.steps, ref.steps)
    np.testing.assert_allclose(new.gain_l1, ref.gain.sum(1), rtol=1e-11)


def test_large_steps_take_the_log_branch():
    """|s| ≥ 0.05 (the series edge) on some steps: q from logarithms, as in _dln."""
    p = _problem(20, alpha=0.3)
    for b in (1, 4):
        ref = _dln.run_lanes(p, [0.05], b=b, seeds=[7], max_steps=3_000, tol_rel=0.0)
        new = _gain_lanes.run_gain_lanes(p, 0.05, [7], b=b, max_steps=3_000, tol_rel=0.0)
        assert ref.max_abs_s[0] > 0.05
        assert new.outcome(0) == ref.outcome(0)
        np.testing.assert_allclose(new.gain_l1, ref.gain.sum(1), rtol=1e-11)


def test_blow_up_is_reported():
    p = _problem(20)
    ref = _dln.run_lanes(p, [50.0], b=1, seeds=[1], max_steps=10_000)
    new = _gain_lanes.run_gain_lanes(p, 50.0, [1], b=1, max_steps=10_000)
    assert ref.outcome(0) == new.outcome(0) == "blown_up"


def test_gd_lanes_are_one_run():
    p = _problem(20)
    new = _gain_lanes.run_gain_lanes(p, 0.05, [1, 2, 3], max_steps=100_000, tol_rel=1e-6)
    assert len(set(new.gain_l1.tolist())) == 1 and new.status[0] == _dln.CONVERGED
