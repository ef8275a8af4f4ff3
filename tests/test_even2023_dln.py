"""Unit tests of the even2023 machinery: dynamics (float64 lanes, high precision, mpmath reference),
q/q_± series, the implicit-problem solver (spec §7 validation list), thresholds, strategies."""
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings

from claims.even2023 import _dln, _implicit
from claims.even2023._strategies import alpha_shapes, designs, problems, sparse_teachers


def test_q_series_matches_logs_across_the_switch():
    s = np.array([0.0499999, 0.05, -0.0499999, -0.05, 1e-9, -1e-9])
    qp, qm = _dln.q_plus_minus(s)
    with mpmath.workdps(40):
        for v, a, b in zip(s, qp, qm):
            ex_p = float(-2 * mpmath.mpf(v) - 2 * mpmath.log1p(-mpmath.mpf(v)))
            ex_m = float(2 * mpmath.mpf(v) - 2 * mpmath.log1p(mpmath.mpf(v)))
            assert a == pytest.approx(ex_p, rel=1e-13, abs=1e-300)
            assert b == pytest.approx(ex_m, rel=1e-13, abs=1e-300)


def test_hp_path_matches_pure_mpmath_reference():
    p = _dln.e3_problem(0)
    hp = _dln.run_hp(p, _dln.Constant(0.7), dps=40, max_steps=60, tol_rel=0)
    ref = _dln.run_mpmath_reference(p, 0.7, 60, dps=40)
    with mpmath.workdps(40):
        for a, b in zip(hp.final.beta, ref.beta):
            assert abs(a - b) < mpmath.mpf(10) ** -33
        for a, b in zip(hp.final.ln_ap, ref.ln_ap):
            assert abs(a - b) < mpmath.mpf(10) ** -33


def test_float64_lanes_match_high_precision():
    p = _dln.e3_problem(0)
    lanes = _dln.run_lanes(p, [0.5], max_steps=200, tol_rel=0.0)
    hp = _dln.run_hp(p, _dln.Constant(0.5), dps=30, max_steps=200, tol_rel=0)
    beta = np.array([float(b) for b in hp.final.beta])
    gain = -np.array([float(a + b) for a, b in zip(hp.final.ln_ap, hp.final.ln_am)]) + 2 * np.log(p.alpha)
    assert np.allclose(lanes.beta[0], beta, rtol=1e-9, atol=1e-12)
    assert np.allclose(lanes.gain[0], gain, rtol=1e-9, atol=1e-14)


def test_lane_results_depend_only_on_their_own_seed():
    p = _dln.e1_problem(0)
    a = _dln.run_lanes(p, [0.1, 0.2], b=1, seeds=[3, 4], max_steps=500, tol_rel=0.0)
    b = _dln.run_lanes(p, [0.2], b=1, seeds=[4], max_steps=500, tol_rel=0.0)
    assert np.array_equal(a.beta[1], b.beta[0])


def test_outcomes_are_explicit():
    p = _dln.e3_problem(0)
    lanes = _dln.run_lanes(p, [0.5, 50.0], max_steps=100_000, tol_rel=1e-20)
    assert lanes.outcome(0) == "converged"
    assert lanes.outcome(1) == "blown_up"
    short = _dln.run_lanes(p, [0.5], max_steps=10, tol_rel=1e-20)
    assert short.outcome(0) == "stalled"


def test_solver_large_alpha_gives_least_norm():
    p = _dln.e3_problem(0)
    sol = _implicit.solve_f64(p.X, p.y, np.full(p.d, 2 * np.log(1e3)), 0.0)
    assert np.allclose(sol.beta, np.linalg.pinv(p.X) @ p.y, atol=1e-6)


def test_solver_small_alpha_gives_l1():
    p = _dln.e3_problem(0)
    sol = _implicit.solve_f64(p.X, p.y, np.full(p.d, 2 * np.log(1e-8)), 0.0)
    assert np.allclose(sol.beta, _dln.l1_interpolator(p.X, p.y), atol=1e-3)


def test_solver_n1_closed_form_kkt():
    X = np.array([[1.0, 2.0]])
    y = np.array([2.0])
    sol = _implicit.solve_f64(X, y, np.log([0.3, 0.5]) * 2, 0.0)
    # KKT with n = 1: ½ arcsinh(β_i/a_i²) = λ x_i
    lam = 0.5 * np.arcsinh(sol.beta / np.array([0.3, 0.5]) ** 2) / X[0]
    assert lam[0] == pytest.approx(lam[1], rel=1e-10)
    assert X @ sol.beta == pytest.approx(y, rel=1e-12)


def test_solver_random_a_phi_at_precision_floor():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((4, 9))
    y = rng.standard_normal(4)
    la2 = 2 * np.log(rng.uniform(0.05, 1.0, 9))
    phi = rng.uniform(-1, 1, 9)
    with mpmath.workdps(50):
        sol = _implicit.solve(X, y, [mpmath.mpf(v) for v in la2], [mpmath.mpf(v) for v in phi], dps=50)
        assert sol.converged and sol.residual_rel < 1e-38 and sol.fenchel_young < 1e-35
        grad = [mpmath.asinh(b / mpmath.exp(l)) / 2 - f for b, l, f in zip(sol.beta, la2, phi)]
        Xm = mpmath.matrix(X.tolist())
        g = mpmath.matrix(grad)
        coef = mpmath.lu_solve(Xm * Xm.T, Xm * g)
        assert max(abs(v) for v in g - Xm.T * coef) < mpmath.mpf(10) ** -35


def test_solver_handles_huge_gains():
    p = _dln.e3_problem(0)
    sol = _implicit.solve_f64(p.X, p.y, np.full(p.d, -400.0), 0.0)
    assert sol.converged
    # α² = e^{-400}: an interpolator, and (α → 0) the ℓ1 interpolator
    assert np.allclose(p.X @ sol.beta, p.y, atol=1e-10)
    assert np.allclose(sol.beta, _dln.l1_interpolator(p.X, p.y), atol=1e-8)


# problems on which the float64 Newton's Armijo test on the dual used to decide by rounding noise and
# stall for 500 iterations at ‖r‖/‖y‖ ≈ 1e-10..1e-8 (drawn by thm1's full-budget property)
STALLED_BEFORE = [
    ([[0.8009364242792267, -0.08027948395909831]], [1.5072816687746668],
     [3.3286201569003286, 3.3292777304093946], [5.252914032416456e-06, -5.287640436613117e-09]),
    ([[0.36012460858604317, -0.2561106467651031]], [-0.036012460858604316],
     [-5.2492163536584155e-05, -2.6548721082076344e-05], [-3.6866220092200686e-08, 1.3260269246822142e-08]),
    ([[1.0, -1.0]], [-0.1], [-2.9756713941300008e-05] * 2, [-1.5733670341361975e-08, 1.5733670341361975e-08]),
]


@pytest.mark.parametrize("X, y, la, ph", STALLED_BEFORE)
def test_float64_solver_converges_where_the_dual_cannot_resolve_progress(X, y, la, ph):
    X, y, la, ph = (np.array(v, float) for v in (X, y, la, ph))
    sol = _implicit.solve_f64(X, y, la, ph)
    assert sol.converged and sol.iterations <= 12, (sol.iterations, sol.residual_rel)
    ref = _implicit.solve(X, y, list(la), list(ph), dps=30, tol_rel=1e-20)
    ref_beta = np.array([float(b) for b in ref.beta])
    assert np.linalg.norm(sol.beta - ref_beta) <= 1e-13 * np.linalg.norm(ref_beta)


def test_solve_float_falls_back_and_refuses_what_does_not_converge(monkeypatch):
    X, y, la, ph = (np.array(v, float) for v in STALLED_BEFORE[0])
    stuck = _implicit.solve_f64(X, y, la, ph, max_iter=0)
    assert not stuck.converged
    monkeypatch.setattr(_implicit, "solve_f64", lambda *a, **k: stuck)
    sol = _implicit.solve_float(X, y, la, ph)        # re-solved at 30 digits, β in float64
    assert sol.converged and sol.dps == 30 and isinstance(sol.beta, np.ndarray)
    monkeypatch.setattr(_implicit, "solve", lambda *a, **k: stuck)
    with pytest.raises(RuntimeError, match="neither"):
        _implicit.solve_float(X, y, la, ph)


def test_threshold_bracket_is_ordered():
    p = _dln.e3_problem(0)
    br = _dln.locate_threshold(p, lo=0.05, hi=10.0, rel=5e-2, lanes=6, max_steps=50_000, tol_rel=1e-16)
    assert br.lo < br.hi and br.rel_width <= 5e-2
    # under the same step budget, the run at lo converges and the run at hi does not
    lanes = _dln.run_lanes(p, [br.lo, br.hi], max_steps=50_000, tol_rel=1e-16)
    assert lanes.outcome(0) == "converged" and lanes.outcome(1) != "converged"


@settings(max_examples=20, deadline=None, database=None)
@given(problems())
def test_strategy_problems_are_valid(problem):
    assert problem.n < problem.d
    assert np.linalg.matrix_rank(problem.X) == problem.n
    assert np.all(problem.alpha > 0)
    assert np.allclose(problem.X @ problem.teacher, problem.y)


@settings(max_examples=20, deadline=None, database=None)
@given(designs(3, 5), sparse_teachers(5, 2), alpha_shapes(5))
def test_strategy_parts(X, teacher, alpha):
    assert X.shape == (3, 5)
    assert 1 <= np.count_nonzero(teacher) <= 2
    assert alpha.shape == (5,) and np.all(alpha > 0)


def test_interleaved_residual_is_bitwise_the_plain_loop():
    """The lane kernel sums the rows of Xβ − y side by side (from Xᵀ); each row keeps its own order."""
    rng = np.random.default_rng(5)
    for n, d in ((20, 30), (7, 9), (3, 4)):
        X, y, beta = rng.normal(size=(n, d)), rng.normal(size=n), rng.normal(size=d) * 1e3
        plain = np.empty(n)
        for i in range(n):
            acc = -y[i]
            for j in range(d):
                acc += X[i, j] * beta[j]
            plain[i] = acc
        r = np.empty(n)
        _dln._residual(np.ascontiguousarray(X.T), y, beta, r)
        assert np.array_equal(r, plain)


@pytest.mark.parametrize("gamma", [0.01, 0.3])  # the q_± series branch, and the logs
def test_lane_kernel_is_bitwise_a_plain_python_gd_loop(gamma):
    """The compiled lanes (vectorised q_± series, interleaved residual) do exactly the float64
    operations of the textbook loop: u, v, ln α_± and Gain agree bit for bit after 200 steps."""
    p = _dln.e3_problem(0)
    X, y = p.X.tolist(), p.y.tolist()
    n, d = p.n, p.d
    u = [math.sqrt(2.0) * a for a in p.alpha]
    v = [0.0] * d
    lp = [math.log(a) for a in p.alpha]
    lm = list(lp)
    gain = [0.0] * d
    for _ in range(200):
        beta = [u[j] * v[j] for j in range(d)]
        r = []
        for i in range(n):
            acc = -y[i]
            for j in range(d):
                acc += X[i][j] * beta[j]
            r.append(acc)
        g = [0.0] * d
        for i in range(n):
            for j in range(d):
                g[j] += r[i] * X[i][j]
        for j in range(d):
            g[j] /= n
            s = gamma * g[j]
            qp, qm = _dln._qpm.py_func(s)
            lp[j] -= 0.5 * qp
            lm[j] -= 0.5 * qm
            gain[j] += 0.5 * (qp + qm)
            u[j], v[j] = u[j] - s * v[j], v[j] - s * u[j]
    lanes = _dln.run_lanes(p, [gamma], max_steps=200, tol_rel=0.0)
    assert lanes.steps[0] == 200
    assert np.array_equal(lanes.u[0], u) and np.array_equal(lanes.v[0], v)
    assert np.array_equal(lanes.ln_ap[0], lp) and np.array_equal(lanes.ln_am[0], lm)
    assert np.array_equal(lanes.gain[0], gain)
