"""verify.dynamics: the compiled engine against the high-precision path, outcomes, lane independence."""
import math

import mpmath
import numpy as np
import pytest

from verify import dynamics
from verify.dynamics import Outcome
from verify.loss import Loss
from claims.ahn2023._losses import HUBER, RSYM, SQRT, beta_loss


def _sweep(n=6, m=3.0):
    eta = np.exp(-np.linspace(1.0, 2.0, n))
    x0, y0 = dynamics.normalised_start(eta, m)
    return x0, y0, eta


@pytest.mark.parametrize("loss", [RSYM, SQRT, HUBER, beta_loss("3/2")])
def test_fast_path_agrees_with_high_precision(loss):
    x0, y0, eta = _sweep(3)
    cc = dynamics.cross_check(loss, x0, y0, eta, tol=1e-9, dps=30)
    assert cc.agree, cc
    assert cc.max_rel_diff_D < 1e-9 and cc.dps >= 30


def test_mpmath_fallback_backend_matches_arb():
    x0, y0, eta = _sweep(1)
    a = dynamics.run_hp(RSYM, x0, y0, eta, dps=30, backend="arb")[0]
    b = dynamics.run_hp(RSYM, x0, y0, eta, dps=30, backend="mpmath")[0]
    assert a.steps == b.steps and a.t_bar == b.t_bar
    with mpmath.workdps(30):
        assert abs(a.D - b.D) / abs(b.D) < mpmath.mpf(10) ** -20


def test_numpy_fallback_matches_numba():
    x0, y0, eta = _sweep(4)
    a = dynamics.run(SQRT, x0, y0, eta, engine="numba")
    b = dynamics.run(SQRT, x0, y0, eta, engine="numpy")
    assert np.array_equal(a.steps, b.steps) and np.array_equal(a.bounce, b.bounce)
    assert np.allclose(a.D, b.D, rtol=1e-13)
    # any loss gets its kernel generated from the expression: the same template shares the kernel
    import sympy as sp
    from verify.loss import S
    plain = Loss.from_derivative(S / sp.sqrt(1 + S**2), "sqrt-again")
    assert plain.compiled_dl()[0] is SQRT.compiled_dl()[0]
    c = dynamics.run(plain, x0, y0, eta)
    assert c.notes["engine"] == "numba" and np.array_equal(c.D, a.D)
    # an expression with no float64 code has no kernel (the engine then takes the numpy path)
    assert Loss.from_derivative(sp.besselj(1, S), "bessel").compiled_dl() is None


def test_outcomes_are_reported():
    # frozen: exact x = 0 start, and the exact Huber start (1, 4) at eta = 1/4 that lands on x_1 = 0
    r = dynamics.run(HUBER, [0.0, 1.0], [3.0, 4.0], [0.1, 0.25], max_steps=100)
    assert list(r.outcome) == [Outcome.FROZEN, Outcome.FROZEN]
    assert r.steps[1] == 1 and r.y[1] ** 2 == pytest.approx(225 / 16)
    # divergence at a huge step size (|1 - eta y^2| >> 1 near the axis)
    r = dynamics.run(RSYM, [1e-3], [10.0], [50.0], max_steps=10**4)
    assert r.outcome[0] == Outcome.DIVERGED
    # budget exhausted
    x0, y0, eta = _sweep(1)
    r = dynamics.run(RSYM, x0, y0, eta, max_steps=3)
    assert r.outcome[0] == Outcome.BUDGET and r.steps[0] == 3 and math.isnan(r.tail[0])
    hp = dynamics.run_hp(RSYM, x0, y0, eta, max_steps=3)[0]
    assert hp.outcome == Outcome.BUDGET


def test_lane_results_do_not_depend_on_lane_order():
    x0, y0, eta = _sweep(6)
    perm = np.array([3, 0, 5, 1, 4, 2])
    a = dynamics.run(beta_loss(3), x0, y0, eta)
    b = dynamics.run(beta_loss(3), x0[perm], y0[perm], eta[perm])
    for field in ("D", "steps", "t_bar", "bounce", "t0", "s_cross", "log_prod"):
        assert np.array_equal(getattr(a, field)[perm], getattr(b, field)), field
    c = dynamics.run(beta_loss(3), x0, y0, eta, parallel=True)
    assert np.array_equal(a.D, c.D)


def test_first_class_outputs_are_consistent():
    x0, y0, eta = _sweep(4)
    r = dynamics.run(RSYM, x0, y0, eta, qs_window=(0.0, 0.5))
    assert np.all(r.ok())
    assert np.all(r.bounce == r.t_bar)          # y_t decreasing: bouncing steps are t < t_bar
    assert np.all(r.bounce_from_t0 == r.t_bar - r.t0)
    assert np.all(r.gap > 0)
    assert np.allclose(r.y_inf2_product, r.D, rtol=1e-12)   # product form of fact1.dmono
    assert np.all(r.qs_min <= r.qs_max)


def test_trajectory_and_normalised_start():
    x0, y0 = dynamics.normalised_start(0.01, 3.0)
    assert y0**2 - x0**2 == pytest.approx(300.0)
    with pytest.raises(ValueError):
        dynamics.normalised_start(0.01, 3.0, 0.5, 1.0)
    xs, ys = dynamics.trajectory(RSYM, float(x0), float(y0), 0.01, 100, stride=10)
    assert len(xs) == 11
    r = dynamics.run(RSYM, [x0], [y0], [0.01], max_steps=100, rtol=0.0)
    assert xs[-1] == r.x[0] and ys[-1] == r.y[0]


@pytest.mark.parametrize("loss", [RSYM, SQRT, beta_loss("3/2"), HUBER])
def test_double_double_path_agrees_with_arb(loss):
    x0, y0 = dynamics.normalised_start(0.1, 3.0)
    a = dynamics.run_hp(loss, x0, y0, 0.1, dps=30, backend="arb")[0]
    d = dynamics.run_dd(loss, x0, y0, 0.1)[0]
    assert (a.outcome, a.steps, a.t_bar, a.bounce) == (d.outcome, d.steps, d.t_bar, d.bounce)
    with mpmath.workdps(40):
        assert abs(a.y - d.y) / abs(a.y) < mpmath.mpf(10) ** -26


def test_double_double_kernels_match_mpmath():
    from claims.ahn2023._losses import SYM
    for loss in (RSYM, SYM, SQRT, HUBER, beta_loss("4/3"), beta_loss(10)):
        kernel, p = loss.compiled_dl_dd()  # generated from the sympy form
        for x in ("1e-9", "-0.003", "0.3", "-0.7", "0.4999", "0.5001", "1.3", "-2.5", "45"):
            with mpmath.workdps(50):
                X = mpmath.mpf(x)
                h = float(X)
                gh, gl = kernel(h, float(X - h), p)
                ref = loss.dloss_mp(X)
                assert abs(mpmath.mpf(gh) + gl - ref) <= abs(ref) * mpmath.mpf(10) ** -30, (loss.name, x)
