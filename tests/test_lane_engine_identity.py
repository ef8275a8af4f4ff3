"""The blocked SIMD lane engine reproduces the scalar engine it replaced bit for bit, on any number of
threads: every lane's outcome, stopping step and every first-class output (as float64 bit patterns)."""
import numpy as np
import pytest

from verify import dynamics
from verify.dynamics.lanes import _FLOAT_FIELDS, _INT_FIELDS, compiled_dl
from claims.ahn2023._losses import HUBER, RSYM, SQRT, beta_loss

import _lanes_reference as reference  # the replaced engine, kept as the reference


def _grid(n=300, seed=1):
    """Lanes that converge, stall at the budget, diverge and freeze, at many different steps."""
    rng = np.random.default_rng(seed)
    eta = np.exp(rng.uniform(np.log(1e-3), np.log(3.0), n))
    x0, y0 = dynamics.normalised_start(eta, 3.0)
    x0 = x0 * rng.uniform(-1.5, 1.5, n)
    y0 = y0 * rng.uniform(0.3, 1.5, n)
    x0[::37] = 0.0
    return x0, y0, eta


def _reference(loss, x0, y0, eta, max_steps, xtol, rtol, s_eps, beta, qs, track):
    n = len(eta)
    kernel, params = compiled_dl(loss)
    out_i = np.zeros((len(_INT_FIELDS), n), np.int64)
    out_f = np.zeros((len(_FLOAT_FIELDS), n))
    reference._engine(kernel, params, x0, y0, eta, max_steps, xtol, rtol, 0.5, s_eps, beta,
                      np.full(n, qs[0]), qs[1], np.zeros(n), track, out_i, out_f)
    return out_i, out_f


def _bits(lanes, out_i, out_f):
    ints = np.array([np.asarray(getattr(lanes, f), np.int64) for f in _INT_FIELDS])
    floats = np.array([getattr(lanes, f) for f in _FLOAT_FIELDS])
    return ints, floats.view(np.int64)


@pytest.mark.parametrize("loss", [SQRT, HUBER, beta_loss("3/2")], ids=lambda L: L.name)
@pytest.mark.parametrize("extras", [False, True], ids=["plain", "ratio+contraction"])
def test_blocked_engine_is_bit_identical_to_the_scalar_engine_on_any_thread_count(loss, extras):
    x0, y0, eta = _grid()
    kw = dict(max_steps=6000, xtol=1e-9 if extras else 0.0, rtol=1e-13, s_eps=1e-3 if extras else 0.0)
    beta = 2.0 if extras else -1.0
    qs = (0.01, 1.0) if extras else (0.0, np.inf)
    ref_i, ref_f = _reference(loss, x0, y0, eta, kw["max_steps"], kw["xtol"], kw["rtol"], kw["s_eps"],
                              beta, qs, extras)
    outcomes = set(ref_i[0])
    assert {0, 1, 3} <= outcomes  # the grid exercises converged, frozen and budget lanes
    for parallel in (False, 2, 3):
        r = dynamics.run(loss, x0, y0, eta, qs_window=qs if extras else None, beta=2.0 if extras else None,
                         contraction=extras, parallel=parallel, **kw)
        ints, floats = _bits(r, ref_i, ref_f)
        assert np.array_equal(ints, ref_i), parallel
        assert np.array_equal(floats, ref_f.view(np.int64)), parallel
    # a lane's result does not depend on which lanes share its block (fewer lanes than a block, reversed)
    few = slice(0, 40)
    r = dynamics.run(loss, x0[few][::-1], y0[few][::-1], eta[few][::-1], qs_window=qs if extras else None,
                     beta=2.0 if extras else None, contraction=extras, **kw)
    ints, floats = _bits(r, ref_i, ref_f)
    assert np.array_equal(ints, ref_i[:, few][:, ::-1])
    assert np.array_equal(floats, ref_f[:, few][:, ::-1].view(np.int64))


def test_diverging_lanes_are_bit_identical():
    eta = np.geomspace(0.5, 60.0, 90)
    x0 = np.full(90, 1e-3)
    y0 = np.linspace(2.0, 12.0, 90)
    ref_i, ref_f = _reference(RSYM, x0, y0, eta, 4000, 0.0, 1e-13, 0.0, -1.0, (0.0, np.inf), False)
    assert 2 in set(ref_i[0])
    r = dynamics.run(RSYM, x0, y0, eta, max_steps=4000, parallel=2)
    ints, floats = _bits(r, ref_i, ref_f)
    assert np.array_equal(ints, ref_i) and np.array_equal(floats, ref_f.view(np.int64))
