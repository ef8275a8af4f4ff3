"""verify.loss: exact forms, evaluators, and the cancellation-free ratio ℓ'(s)/s."""

import mpmath
import numpy as np
import pytest
import sympy as sp

from verify.loss import S, Loss
from claims.ahn2023._losses import HUBER, RSYM, SQRT, SYM, beta_loss, c_beta, r_beta


def test_from_expr_differentiates_and_accepts_plain_symbol():
    s = sp.Symbol("s")  # no assumptions: rebound to the canonical real symbol
    L = Loss.from_expr(sp.log(2 * sp.cosh(s)), "rsym")
    assert sp.simplify(L.dl - sp.tanh(S)) == 0
    assert L.l is not None


def test_from_derivative_and_foreign_symbols_rejected():
    L = Loss.from_derivative(S / sp.sqrt(1 + S**2), "sqrt")
    assert L.l is None
    with pytest.raises(ValueError):
        Loss.from_derivative(sp.Symbol("a") * S, "bad")


@pytest.mark.parametrize("loss", [RSYM, SQRT, HUBER, SYM, beta_loss(2), beta_loss("3/2"), beta_loss(10)])
def test_numpy_mpmath_and_kernel_agree(loss):
    s = np.array([-3.0, -0.7, -1e-6, 0.0, 1e-9, 0.3, 1.4, 5.0])
    f = loss.dloss(s)
    with mpmath.workdps(30):
        m = np.array([float(loss.dloss_mp(x)) for x in s])
    kernel, params = loss.compiled_dl()  # generated from the sympy form
    k = np.array([kernel(x, params) for x in s])
    assert np.allclose(f, m, rtol=1e-14, atol=1e-300)
    assert np.allclose(k, m, rtol=1e-14, atol=1e-300)


def test_ratio_near_zero_has_no_cancellation():
    s = np.array([0.0, 1e-12, 1e-6, 1e-4])
    assert np.all(RSYM.ratio(s) <= 1.0)
    d = RSYM.deficit(s)
    with mpmath.workdps(50):
        exact = [0.0] + [float(1 - mpmath.tanh(mpmath.mpf(x)) / mpmath.mpf(x)) for x in s[1:]]
    assert d[0] == 0.0
    assert np.allclose(d[1:], exact[1:], rtol=1e-10)
    # beta = 10: the deficit c|s|^10 is tiny but exactly representable, not rounded to 0
    b10 = beta_loss(10)
    assert b10.deficit(np.array([1e-3]))[0] == pytest.approx(float(c_beta(sp.Integer(10))) * 1e-30, rel=1e-12)
    assert RSYM.ratio_at_zero == 1 and SYM.ratio_at_zero == sp.Rational(1, 4)


def test_beta_loss_constants_are_exact_and_c1():
    b = sp.Rational(3, 2)
    L = beta_loss(b)
    assert L is beta_loss("3/2")  # cached by exact value
    r, c = r_beta(b), c_beta(b)
    assert sp.simplify(r * (1 - c * r**b) - 1) == 0
    assert sp.simplify(1 - (b + 1) * c * r**b) == 0
    assert c_beta(sp.Integer(2)) == sp.Rational(4, 27) and r_beta(sp.Integer(2)) == sp.Rational(3, 2)
    with pytest.raises(ValueError):
        beta_loss(1)


# ------------------------------------------------------------------ families (ℓ_β with β symbolic)
def test_float_member_agrees_with_the_exact_member():
    """β = 1.5 drawn as a float (family evaluators, β an argument) equals ℓ_{3/2} (substituted forms)."""
    fl, ex = beta_loss(1.5), beta_loss("3/2")
    assert fl.family is ex.family and fl.parameter == 1.5 and ex.parameter == sp.Rational(3, 2)
    assert str(fl) == "beta=1.5" and fl.beta == ex.beta == 1.5
    with mpmath.workdps(40):
        for sv in ("-2.5", "-0.3", "1e-7", "0.9", "1.6"):
            sv = mpmath.mpf(sv)
            for f in ("dloss_mp", "d2loss_mp", "deficit_mp", "excess_mp"):
                a, b = getattr(fl, f)(sv), getattr(ex, f)(sv)
                assert abs(a - b) <= mpmath.mpf(10) ** -35 * (abs(b) + mpmath.mpf(10) ** -300), (f, sv)
        assert abs(fl.c_mp() - ex.c_mp()) < mpmath.mpf(10) ** -38 and fl.C_mp() == fl.c_mp()
    assert fl.dloss_scalar(0.4) == pytest.approx(float(ex.dloss(0.4)), rel=1e-15)
    gap = (fl.dl - ex.dl).subs(S, sp.Rational(1, 3))  # the lazily substituted form (float β)
    assert abs(float(gap)) < 1e-15


def test_drawing_many_members_lambdifies_once():
    fam = beta_loss(2.0).family
    with mpmath.workdps(20):
        beta_loss(2.0).dloss_mp(0.1), beta_loss(2.0).deficit_mp(0.1), beta_loss(2.0).c_mp()
        n = len(fam._evaluators)
        for b in np.linspace(1.01, 20, 50):
            L = beta_loss(float(b))
            L.dloss_mp(0.2), L.deficit_mp(0.2), L.c_mp()
    assert len(fam._evaluators) == n  # no new lambdify per member


def test_mpmath_differences_are_cancellation_free():
    with mpmath.workdps(30):
        s = mpmath.mpf("1e-200")
        assert abs(RSYM.deficit_mp(s) / s**2 - mpmath.mpf(1) / 3) < 1e-25   # 1 − tanh(s)/s ~ s²/3
        assert abs(SQRT.excess_mp(s) / s**2 - mpmath.mpf(1) / 2) < 1e-25    # sqrt(1+s²) − 1 ~ s²/2
        assert HUBER.deficit_mp(mpmath.mpf("0.5")) == 0                      # an exact zero stays 0
        assert beta_loss(3.0).d2loss_mp(0) == pytest.approx(1, abs=1e-12)   # |s|^β/s is 0/0 at 0
        assert RSYM.d2loss_mp(60) > 0                                       # 1 − tanh² at 60: no cancellation to 0
        assert RSYM.deficit_mp(0) == 0 and SYM.deficit_mp(0) == mpmath.mpf(3) / 4
