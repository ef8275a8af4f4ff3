"""Evaluators generated from sympy (verify.kernels): float64 numba and double-double kernels."""
import mpmath
import pytest
import sympy as sp

from verify.kernels import NotCompilable, dd_kernel, float64_kernel, parametrise
from verify.loss import S

CASES = [
    sp.tanh(S), S / sp.sqrt(1 + S**2), -1 / (1 + sp.exp(S)), sp.tanh(S / 2) / 2,
    sp.Piecewise((S, sp.Abs(S) <= 1), (sp.sign(S), True)),
    sp.Piecewise((S * (1 - sp.Rational(4, 27) * sp.Abs(S) ** sp.Rational(5, 2)),
                  sp.And(S**2 < sp.Rational(49, 25), S > -5)), (sp.sign(S), True)),
    sp.log(1 + S**2) * S / (2 + S**4), S * sp.exp(-S**2 / 3) + 1 / sp.sqrt(2 + S**2),
]


@pytest.mark.parametrize("expr", CASES, ids=[str(i) for i in range(len(CASES))])
def test_generated_kernels_match_the_expression(expr):
    f64, p = float64_kernel(expr, S)
    ddk, q = dd_kernel(expr, S)
    ref_np = sp.lambdify(S, expr, "numpy")
    ref_mp = sp.lambdify(S, expr, "mpmath")
    for x in (-2.5, -1.0, -0.3, 0.0, 1e-7, 0.4999, 1.0, 1.7, 3.0):
        assert f64(x, p) == pytest.approx(float(ref_np(x)), rel=4e-16, abs=1e-300)
        with mpmath.workdps(50):
            X = mpmath.mpf(x)
            h, lo = ddk(x, 0.0, q)
            ref = ref_mp(X)
            assert abs(mpmath.mpf(h) + lo - ref) <= max(abs(ref), mpmath.mpf(1)) * mpmath.mpf(10) ** -30


def test_a_family_shares_one_kernel():
    def beta_dl(beta):
        c = (beta / (beta + 1)) ** beta / (beta + 1)
        return sp.Piecewise((S * (1 - c * sp.Abs(S) ** beta), S**2 < ((beta + 1) / beta) ** 2),
                            (sp.sign(S), True))
    kernels = {float64_kernel(beta_dl(sp.Rational(b)), S)[0] for b in ("4/3", "3/2", "7/5")}
    assert len(kernels) == 1  # c_β (with its radicals), β and r_β² are parameters
    template, values = parametrise(beta_dl(sp.Rational(3, 2)))
    assert len(values) == 3 and not any(v.is_Integer for v in values)


def test_unsupported_expressions_are_reported_not_guessed():
    with pytest.raises(NotCompilable):
        float64_kernel(sp.besselj(1, S), S)
    with pytest.raises(NotCompilable):
        dd_kernel(sp.atan(S), S)  # no double-double atan: the dd path is then unavailable
