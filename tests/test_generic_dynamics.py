"""Generic GD / SGD lanes on sympy objectives (verify.dynamics.generic)."""
import numpy as np
import pytest
import sympy as sp

from verify import dynamics
from verify.dynamics import Outcome, generic
from verify.loss import Loss, S

x, y = sp.symbols("x y", real=True)
w = sp.symbols("w1:4", real=True)


def test_l_of_xy_is_an_instance_and_agrees_with_the_lane_engine():
    obj = generic.Objective(sp.log(2 * sp.cosh(x * y)), (x, y), name="rsym(xy)")
    eta = np.array([0.05, 0.1, 0.2])
    x0, y0 = dynamics.normalised_start(eta, 3.0)
    r = generic.run(obj, np.c_[x0, y0], eta, max_steps=10**5, gtol=0.0)
    lanes = dynamics.run(Loss.from_expr(sp.log(2 * sp.cosh(S)), "rsym"), x0, y0, eta, max_steps=10**5)
    assert np.all(r.outcome == Outcome.CONVERGED) and np.all(lanes.ok())
    # the limit y_inf^2 is the sharpness of the limit point (f'' in the y direction at x = 0)
    assert np.allclose(r.theta[:, 1] ** 2, lanes.D, rtol=1e-10)
    assert np.allclose(r.final_sharpness, lanes.D, rtol=1e-10)
    assert np.all(r.final_sharpness <= 2 / eta)  # edge of stability: limits below 2/eta
    cc = generic.cross_check(r, [0, 2], dps=30, tol=1e-9)
    assert cc["hp_agree"], cc


def test_outcomes_are_explicit():
    quad = generic.Objective(x**2 / 2, (x,))
    cycle = generic.run(quad, [[1.0]], [2.0], patience=1000, check_every=10)  # x -> -x forever
    assert cycle.outcome[0] == Outcome.STALLED
    blow = generic.run(quad, [[1.0]], [3.0])  # |1 - eta| = 2 > 1
    assert blow.outcome[0] == Outcome.DIVERGED
    budget = generic.run(quad, [[1.0]], [1e-6], max_steps=100)
    assert budget.outcome[0] == Outcome.BUDGET and budget.steps[0] == 100
    floor = generic.run(quad, [[1.0]], [0.5], gtol=0.0)  # x halves until the step is below resolution
    assert floor.outcome[0] == Outcome.CONVERGED and floor.at_floor[0]


def test_sharpness_along_the_path_of_the_scalar_network():
    f = (w[0] * w[1] * w[2] - 1) ** 2 / 2
    obj = generic.Objective(f, w, name="scalar network")
    starts = np.array([[0.6, 1.1, 1.9], [0.5, 0.7, 2.5]])
    r = generic.run(obj, starts, [0.2, 0.3], gtol=1e-12, record_every=2, records=4)
    assert np.all(r.ok())
    a, b, c = r.theta.T
    assert np.allclose(r.final_sharpness, 1 / a**2 + 1 / b**2 + 1 / c**2, rtol=1e-9)
    hess = sp.lambdify(w, sp.hessian(f, w))
    assert np.allclose(r.sharpness[:, 0], [np.linalg.eigvalsh(hess(*s)).max() for s in starts])
    assert r.sharpness.shape == (2, 4) and np.all(np.isfinite(r.sharpness))


def test_minibatch_sgd_on_a_sum_is_seeded_and_reaches_the_least_squares_fit():
    a, b = sp.symbols("a b", real=True)
    u, v = sp.symbols("u v", real=True)  # one data row: (input, target)
    obj = generic.Objective((a * u + b - v) ** 2 / 2, (a, b), data=(u, v), name="linear fit")
    rng = np.random.default_rng(0)
    X = rng.normal(size=40)
    data = np.c_[X, 2 * X - 1]  # interpolable: SGD converges to the exact fit
    one = generic.run(obj, [[0.0, 0.0]], [0.1, 0.1], data=data, batch=4, seeds=[1, 1], max_steps=20000,
                      gtol=1e-10, check_every=50)
    assert np.array_equal(one.theta[0], one.theta[1])  # same seed, same path
    assert np.all(one.ok()) and np.allclose(one.theta, [[2.0, -1.0]] * 2, atol=1e-8)
    gd = generic.run(obj, [[0.0, 0.0]], [0.1], data=data, gtol=1e-10)
    assert gd.ok()[0] and np.allclose(gd.theta[0], [2.0, -1.0], atol=1e-8)


def test_readme_example_runs():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    code = re.search(r"## Dynamics on any objective.*?```python\n(.*?)```", text, re.S).group(1)
    namespace: dict = {}
    exec(compile(code, "README dynamics example", "exec"), namespace)  # our own documentation
    result = namespace["result"]
    assert np.all(result.final_sharpness <= 2 / namespace["eta"])


def test_blocked_kernel_is_bit_identical_to_the_lane_by_lane_engine():
    # converged (also at the float64 floor), stalled (2-cycles), budget and diverged lanes
    fields = ["outcome", "steps", "at_floor", "theta", "value", "grad_norm", "final_sharpness"]
    cases = [(generic.Objective(sp.sqrt(1 + (x * y) ** 2), (x, y)), np.geomspace(1e-2, 0.6, 150)),
             (generic.Objective(x**2 / 2, (x,)), np.linspace(0.1, 2.5, 150))]
    for obj, eta in cases:
        if obj.dim == 2:
            x0, y0 = dynamics.normalised_start(eta, 3.0)
            theta0 = np.c_[x0, y0]
        else:
            theta0 = np.ones((len(eta), 1))
        for kw in (dict(max_steps=3000, gtol=0.0, patience=500, check_every=7),
                   dict(max_steps=20000, gtol=1e-10)):
            a = generic.run(obj, theta0, eta, blocked=False, **kw)
            b = generic.run(obj, theta0, eta, blocked=True, **kw)
            assert len(set(a.outcome)) >= 2
            for f in fields:
                assert np.array_equal(getattr(a, f), getattr(b, f), equal_nan=True), (obj.expr, kw, f)


def test_blocked_kernel_agrees_on_non_finite_gradients_and_values():
    # a gradient that turns NaN (sqrt of a negative: max() would drop it), a value and gradient that
    # overflow (two objectives: each costs a cold compile)
    fields = ["outcome", "steps", "at_floor", "theta", "grad_norm"]
    eta = np.linspace(0.05, 3.0, 90)
    for expr, x0 in ((sp.sqrt(x), 1.0), (sp.exp(x**2), 1.0)):
        obj = generic.Objective(expr, (x,))
        theta0 = np.full((len(eta), 1), x0)
        a = generic.run(obj, theta0, eta, blocked=False, max_steps=500, gtol=0.0, check_every=3, patience=60)
        b = generic.run(obj, theta0, eta, blocked=True, max_steps=500, gtol=0.0, check_every=3, patience=60)
        for f in fields:
            assert np.array_equal(getattr(a, f), getattr(b, f), equal_nan=True), (expr, f)
        # and the outcome itself: a NaN or overflowing gradient is a divergence in both engines,
        # never "converged" (both engines changed together, so agreement alone would not show it)
        assert np.all(b.outcome[~np.isfinite(b.grad_norm)] == generic.Outcome.DIVERGED), expr
        assert np.any(~np.isfinite(b.grad_norm)), expr


def test_parameter_names_are_never_pasted_into_the_generated_code():
    # names that are not identifiers compile; a name holding code stays a name; two different
    # symbols sharing a name are refused instead of becoming one variable
    eta = np.array([0.5])
    for name in ("θ₀", "x'", "u_{1}", "x=0;import os;x"):
        p = sp.Symbol(name, real=True)
        r = generic.run(generic.Objective((p - 1) ** 2 / 2, (p,)), [[3.0]], eta, gtol=0.0)
        assert r.outcome[0] == generic.Outcome.CONVERGED and abs(r.theta[0, 0] - 1.0) < 1e-12, name
    twins = (sp.Symbol("x", real=True), sp.Symbol("x", positive=True))
    with pytest.raises(ValueError, match="both named 'x'"):
        generic.run(generic.Objective(twins[0] ** 2 + twins[1] ** 2, twins), [[1.0, 1.0]], eta)


def test_bad_run_parameters_are_errors():
    quad = generic.Objective(x**2 / 2, (x,))
    with pytest.raises(ValueError, match="check_every"):
        generic.run(quad, [[1.0]], [0.1], check_every=0)
    for eta in (float("nan"), float("inf"), 0.0, -0.1):
        with pytest.raises(ValueError, match="finite and > 0"):
            generic.run(quad, [[1.0]], [eta])


def test_blocked_kernel_with_data_rows_is_bit_identical():
    # full-batch GD on a mean over data rows (even2023's diagonal linear network, n = 5, d = 3, and a
    # single-row objective): the per-row gradients are summed in _mean_into's order
    rng = np.random.default_rng(1)
    d, n = 3, 5
    u, v, xs = sp.symbols(f"u0:{d}", real=True), sp.symbols(f"v0:{d}", real=True), sp.symbols(f"x0:{d}", real=True)
    t = sp.Symbol("t", real=True)
    residual = sum(u[j] * v[j] * xs[j] for j in range(d)) - t
    obj = generic.Objective(residual**2 / 2, (*u, *v), (*xs, t), name="dln")
    X = rng.normal(size=(n, d))
    data = np.c_[X, X @ np.array([1.0, -0.5, 0.0])]
    gammas = np.geomspace(0.05, 3.0, 100)
    theta0 = np.r_[np.full(d, 0.3), np.zeros(d)] + 0.01
    fields = ["outcome", "steps", "at_floor", "theta", "value", "grad_norm", "final_sharpness"]
    for rows, kw in ((data, dict(max_steps=4000, gtol=0.0, patience=300, check_every=7)),
                     (data[:1], dict(max_steps=2000, gtol=1e-11))):
        a = generic.run(obj, theta0, gammas, data=rows, blocked=False, **kw)
        b = generic.run(obj, theta0, gammas, data=rows, **kw)  # blocked by default
        assert len(set(a.outcome)) >= 2
        for f in fields:
            assert np.array_equal(getattr(a, f), getattr(b, f), equal_nan=True), (len(rows), f)
