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
