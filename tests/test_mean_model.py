"""Tests for claims/ahn2023/_mean_model.py: g, κ, the mean model (5) in float64 lanes against
mpmath, the flow (6) and its invariant, and the transition bisection."""
import math

import mpmath
import numpy as np
import pytest
from scipy import integrate

from claims.ahn2023 import _mean_model as mm


@pytest.mark.parametrize("b", [-3.0, -1.0, 0.0, 0.4, 2.0])
def test_g_and_derivative(b):
    quad, _ = integrate.quad(lambda z: max(z + b, 0) * math.exp(-z * z / 2) / math.sqrt(2 * math.pi),
                             -b, np.inf, epsabs=1e-14)
    assert float(mm.g(b)) == pytest.approx(quad, abs=1e-12)
    h = 1e-6
    assert float(mm.g_prime(b)) == pytest.approx((float(mm.g(b + h)) - float(mm.g(b - h))) / (2 * h),
                                                 abs=1e-8)
    assert mm._g1(b) == pytest.approx(float(mm.g(b)), rel=1e-14)


def test_g_inverse_round_trip_and_example():
    root = mm.g_inverse(lambda: 2 / mpmath.sqrt(10 * mpmath.pi), dps=50)
    with mpmath.workdps(50):
        assert abs(mm.g_mp(root) - 2 / mpmath.sqrt(10 * mpmath.pi)) < mpmath.mpf(10) ** -45
    assert float(root) == pytest.approx(-0.0872715, abs=1e-6)
    assert mpmath.mp.dps == 15  # precision scoped, not left changed


def test_kappa_float_vs_mpmath_and_inverse():
    for b in (-1.0, -0.3, -0.01):
        assert mm.kappa(b) == pytest.approx(float(mm.kappa_mp(b)), rel=1e-11)
        assert mm.kappa_inverse(mm.kappa(b)) == pytest.approx(b, rel=1e-10)
    assert mm.kappa(0.0) == 0.0


def test_lanes_match_path_and_mpmath():
    eta, d, A0, T = 10 * math.pi / 50 ** 2, 50, 1.0, 120
    A, b = mm.mean_model_path(A0, eta, d, T)
    Am, bm = mm.mean_model_mp(A0, eta, d, T, dps=40)
    np.testing.assert_allclose(b, [float(v) for v in bm], atol=1e-12)
    np.testing.assert_allclose(A, [float(v) for v in Am], atol=1e-9)
    Af, bf, steps, _ = mm.mean_model_final(np.array([A0, -A0]), np.array([eta, eta]),
                                           np.array([d, d]), max_steps=T, a_tol=0.0)
    assert steps.tolist() == [T, T]
    assert bf[0] == pytest.approx(b[-1], abs=1e-13)
    assert bf[1] == pytest.approx(b[-1], abs=1e-13)  # (5) is odd in A: b does not see the sign


def test_bias_non_increasing_and_frozen_start():
    A, b = mm.mean_model_path(2.0, 12 * math.pi / 100 ** 2, 100, 500)
    assert np.all(np.diff(b) <= 0)
    A0, b0 = mm.mean_model_path(0.0, 12 * math.pi / 100 ** 2, 100, 50)
    assert np.all(A0 == 0) and np.all(b0 == 0)


def test_flow_invariant_and_limit():
    sol = mm.flow(1.5, 20.0, dense=True)
    ts = np.linspace(0, sol.t[-1], 12)
    A, b = sol.sol(ts)
    inv = 0.5 * A ** 2 - 2 * 400 * np.array([mm.kappa(v) for v in b])
    assert np.max(np.abs(inv - inv[0])) <= 1e-8 * abs(inv[0])
    b_inf, a_end = mm.flow_b_inf(1.5, 20.0)
    assert a_end < 1e-10
    assert b_inf == pytest.approx(mm.kappa_inverse(-1.5 ** 2 / (4 * 400)), rel=1e-8)


def test_envelope_theorem3_point():
    delta, A0, d = 0.5, 1.0, 200
    gamma = min(delta, 8 - delta, (8 - delta) / abs(A0)) / 200
    r = mm.envelope(A0, (8 - delta) * math.pi / d ** 2, d, gamma)
    assert r["converged"] and r["env_ratio"] <= 1 and r["b_ratio"] <= 1 and r["b_max"] <= 0


def test_transition_bisection_brackets_8():
    r = mm.transition_bisect(100, 1.0)
    assert r["ok"] and 8.0 < r["c_star"] < 8.3
    # the planted "d² instead of 2d²" model has its linear factor 1 − c/8: transition at 16
    _, b_lo, _, _ = mm.mean_model_final(np.array([1.0]), np.array([15 * math.pi / 1e4]),
                                        np.array([100.0]), a_mult=1.0)
    _, b_hi, _, _ = mm.mean_model_final(np.array([1.0]), np.array([17 * math.pi / 1e4]),
                                        np.array([100.0]), a_mult=1.0)
    assert abs(b_lo[0]) < 1e-2 < abs(b_hi[0])


def test_sympy_blocks():
    s = mm.sym()
    sp = s["sp"]
    assert sp.simplify(s["g"].subs(s["b"], 0) ** 2 - 1 / (2 * sp.pi)) == 0


def _inline_mean_model(A0, eta, d, steps):
    """(5) with ℓ_sym' written as ½·tanh(½·s) by hand (the form the compiled loops used before
    they took the catalogue's generated kernel), in plain Python floats."""
    A, b = A0, 0.0
    for _ in range(steps):
        gb = mm._g1.py_func(b)
        lp = 0.5 * math.tanh(0.5 * A * gb)
        A, b = A - 2.0 * d * d * eta * lp * gb, b - eta * lp * A * mm._gp1.py_func(b)
    return A, b


def test_compiled_loops_take_the_catalogue_kernel_and_are_bit_identical_to_the_inline_form():
    kernel, params = mm._dl_kernel("sym")
    rng = np.random.default_rng(3)
    s = np.concatenate([rng.standard_normal(20000) * 10.0 ** rng.uniform(-200, 3, 20000),
                        rng.uniform(-60, 60, 20000)])
    assert all(kernel(float(v), params) == 0.5 * math.tanh(0.5 * float(v)) for v in s)
    for A0, c, d in ((1.0, 10.0, 100.0), (-2.5, 6.0, 50.0), (0.7, 16.0, 200.0)):
        eta = c * math.pi / d ** 2
        A, b, steps, _ = mm.mean_model_final(np.array([A0]), np.array([eta]), np.array([d]), max_steps=400,
                                             a_tol=0.0)
        assert int(steps[0]) == 400
        assert (float(A[0]), float(b[0])) == _inline_mean_model(A0, eta, d, 400)
    # another catalogue loss goes through the same loop (ℓ_logi', the fig8 planted variant)
    _, b_logi, _, _ = mm.mean_model_final(np.array([1.0]), np.array([10 * math.pi / 1e4]), np.array([100.0]),
                                          max_steps=50, a_tol=0.0, loss="logi")
    path_A, path_b = mm.mean_model_path(1.0, 10 * math.pi / 1e4, 100.0, 50, loss="logi")
    assert float(b_logi[0]) == pytest.approx(path_b[-1], rel=1e-12, abs=1e-15)


def test_mpmath_recursion_and_flow_take_l_sym_from_the_catalogue_unchanged():
    As, bs = mm.mean_model_mp(1.0, 10 * math.pi / 1e4, 100, 20, dps=40)
    with mpmath.workdps(40):
        A, b = mpmath.mpf(1), mpmath.mpf(0)
        eta, d2 = mpmath.mpf(10 * math.pi / 1e4), mpmath.mpf(100) ** 2
        for _ in range(20):
            gb, gp = mm.g_mp(b), mpmath.ncdf(b)
            lp = mpmath.tanh(A * gb / 2) / 2   # ℓ_sym' = ½ tanh(s/2) written by hand
            A, b = A - 2 * d2 * eta * lp * gb, b - eta * lp * A * gp
        assert (As[-1], bs[-1]) == (A, b)
    rhs = mm.flow_rhs(100.0)
    for A, b in ((1.0, 0.0), (-3.2, -0.4), (1e-7, 0.2)):
        gb = float(mm.g(b))
        lp = 0.5 * math.tanh(0.5 * A * gb)
        assert rhs(0.0, np.array([A, b])) == [-2.0 * 100.0**2 * lp * gb, -lp * A * float(mm.g_prime(b))]


def test_relu_sign_case_proof_refutes_a_tighter_bound_with_an_exact_witness():
    """ahn2023.fact6.signal's proof (four sign cases decided by sympy) proves the bound λ and refutes
    0.97λ with an exact counterexample, which the sums themselves confirm: it is not a check that
    passes whatever the bound."""
    from fractions import Fraction

    import numpy as np

    from verify.claim import Context, Status
    from claims.ahn2023.sec3_mean_model_derivation import _signal_proof

    assert _signal_proof().run(Context(0, "quick")).status is Status.PROVED
    tighter = _signal_proof(Fraction(97, 100)).run(Context(0, "quick"))
    assert tighter.status is Status.REFUTED
    w = tighter.data["witness"]
    xi, lam, y = np.array([float(Fraction(w["xi"][0]))]), float(Fraction(w["lambda"])), w["y"]
    change = abs(np.maximum(xi + lam * y, 0).sum() - np.maximum(xi, 0).sum())
    assert change > 0.97 * lam and w["difference_over_lambda"] > 0.97


def test_fact7_sign_proof_refutes_a_strict_decrease_at_a_zero():
    from verify.claim import Context, Status
    from claims.ahn2023.sec3_mean_model import _fact7_sign_proof

    assert _fact7_sign_proof().run(Context(0, "quick")).status is Status.PROVED
    strict = _fact7_sign_proof(strict_at_zero=True).run(Context(0, "quick"))
    assert strict.status is Status.REFUTED and strict.data["witness"] == {"case": "A=0", "A": "0", "delta_b": "0"}


def test_fact7_limit_follows_from_the_sign_proof_only():
    """b_inf in [-inf, 0] is proved exactly when the one-step sign is; a sign that is not proved
    (here: the planted strict decrease at A = 0, refuted) leaves the limit undecided, not refuted."""
    from claims.ahn2023.sec3_mean_model import _fact7_limit_proof, _fact7_sign_proof
    from verify.claim import Context, Status
    ctx = Context(0, "quick")
    assert _fact7_limit_proof(_fact7_sign_proof()).run(ctx).status is Status.PROVED
    failed = _fact7_limit_proof(_fact7_sign_proof(strict_at_zero=True)).run(ctx)
    assert failed.status is Status.INCONCLUSIVE and "not proved" in failed.summary
