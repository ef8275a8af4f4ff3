"""Tests for claims/ahn2023/_network.py: the fast (sorted-prefix, numba) network path against the
definition, the conventions, and the Figure-1 grid."""

import numpy as np
import pytest

from claims.ahn2023 import _network as net
from claims.ahn2023.sec3_fig1 import hinge_fit


@pytest.fixture(scope="module")
def data():
    return net.sample(np.random.default_rng(7), 40, 30)


def test_sorted_features_match_definition(data):
    srt = net.presort(data)
    out = np.empty((data.n, 4))
    idx = np.full((data.n, 2), data.d // 2, dtype=np.int64)
    near = net.walk_cache(data.n)
    # include b values sitting exactly on data points (ties decide ReLU'(0) = 0)
    bs = [0.0, -0.7, 1.3, -3.0, 2.5, float(data.x[0, 3]), float(-data.x[1, 5]), 0.2]
    for b in bs:
        net._features_sorted(srt.s, srt.prefix, b, out, idx, near)
        Fm, Fp, Nm, Np_ = net.features_direct(data.x, b)
        np.testing.assert_allclose(out[:, 0], Fm, atol=1e-12)
        np.testing.assert_allclose(out[:, 1], Fp, atol=1e-12)
        np.testing.assert_array_equal(out[:, 2], Nm)
        np.testing.assert_array_equal(out[:, 3], Np_)


def test_compiled_gd_equals_definition(data):
    a0, eta = (0.05, -0.03), 3e-3
    path = net.gd_path(data, a0, eta, 15)
    th = np.array([a0[0], a0[1], 0.0])
    for t in range(16):
        np.testing.assert_allclose(path[t, :3], th, atol=1e-13)
        assert path[t, 3] == pytest.approx(net.loss(data, *th), rel=1e-12)
        th = th - eta * net.gradient_direct(data, *th)


def test_lanes_equal_single_runs_in_any_order(data):
    etas = np.array([2e-3, 5e-4, 1e-3])
    a0 = (0.02, 0.01)
    final = net.gd_final(data, a0, etas, np.array([30, 50, 40]))
    final_rev = net.gd_final(data, a0, etas[::-1], np.array([40, 50, 30]))
    np.testing.assert_array_equal(final, final_rev[::-1])
    for k, (eta, T) in enumerate(zip(etas, (30, 50, 40))):
        path = net.gd_path(data, a0, eta, T)
        np.testing.assert_allclose(final[k, :3], path[-1, :3], atol=1e-14)
        assert final[k, 3] == T


def test_hessian_matches_finite_differences(data):
    th = np.array([0.08, -0.05, -0.3])
    H = net.hessian(data, *th)
    h = 1e-6
    for i in range(3):
        e = np.zeros(3)
        e[i] = h
        col = (net.gradient_direct(data, *(th + e)) - net.gradient_direct(data, *(th - e))) / (2 * h)
        np.testing.assert_allclose(H[:, i], col, rtol=1e-5, atol=1e-7)
    assert net.sharpness(data, *th) == pytest.approx(np.linalg.eigvalsh(H)[-1])


def test_sum_objective_is_mean_with_n_times_the_step(data):
    a0 = (0.02, -0.01)
    p_sum = net.gd_path(data, a0, 1e-5, 10, objective="sum")
    p_mean = net.gd_path(data, a0, data.n * 1e-5, 10, objective="mean")
    np.testing.assert_allclose(p_sum[:, :3], p_mean[:, :3], atol=1e-14)
    np.testing.assert_allclose(p_sum[:, 3], data.n * p_mean[:, 3], rtol=1e-12)


def test_sampler_and_initialisation_conventions():
    rng = np.random.default_rng(0)
    d = net.sample(rng, 5000, 10, lam=3.0)
    assert set(np.unique(d.y)) == {-1.0, 1.0}
    signal = d.y * d.x[np.arange(5000), d.j]
    assert abs(signal.mean() - 3.0) < 0.1
    paper = np.array([net.init_params(rng, 200, "paper") for _ in range(4000)])
    theory = np.array([net.init_params(rng, 200, "theory") for _ in range(4000)])
    A_paper, A_theory = 200 * paper.sum(1), 200 * theory.sum(1)
    assert A_paper.var() == pytest.approx(200, rel=0.1)      # A₀ ~ N(0, d)
    assert A_theory.var() == pytest.approx(1.0, rel=0.1)     # A₀ ~ N(0, 1)


@pytest.mark.parametrize("full", [False, True])
def test_fig1_grid(full):
    g = net.fig1_grid(full)
    assert len(g) >= 12 and g.max() == pytest.approx(0.012) and g.min() > 0
    assert np.all(np.diff(g) > 0)
    near = g[(g > net.ETA_STAR - 2e-4) & (g < net.ETA_STAR + 2e-4)]
    assert near.min() < net.ETA_STAR < near.max()
    if full:
        assert np.max(np.diff(near)) <= 5e-5 + 1e-12


def test_hinge_fit_recovers_a_kink():
    x = np.linspace(1e-4, 1.5e-3, 29)
    k = 6.3e-4
    y = -0.2 - 5.0 * np.minimum(x - k, 0) - 400 * np.maximum(x - k, 0) \
        + 1.5e5 * np.maximum(x - k, 0) ** 2
    assert hinge_fit(x, y)["kink"] == pytest.approx(k, rel=0.01)
    y_lin = -0.2 - 400 * np.maximum(x - k, 0)
    assert hinge_fit(x, y_lin, right_degree=1)["kink"] == pytest.approx(k, rel=0.01)


def test_small_sweep_bends_near_8pi_over_d2():
    """A reduced Figure-1 sweep (d = 200, n = 300) already shows the bend near 8π/d²."""
    sweep = net.fig1_sweep(3, False)
    assert np.all(sweep.final[:, 3] == sweep.steps)
    keep = sweep.etas <= 1.5e-3 + 1e-12
    fit = hinge_fit(sweep.etas[keep], sweep.final[keep, 2])
    assert abs(fit["kink"] / net.ETA_STAR - 1) <= 0.1
    assert np.all(np.isfinite(sweep.test_acc))
