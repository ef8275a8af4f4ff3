"""scalarnet: the conserved quantities and the sharpness of a minimiser (exact)."""
import sympy as sp

from verify import Claim, Planted, symbolic

from . import PAPER
from ._model import P, W, gradient, hessian


def _w_d(i, scale=1):
    # wᵢ∂ᵢf = ℓ'(p)p for every i, so w₁∂₁f = w₂∂₂f (scale = 1)
    return lambda: scale * W[i] * gradient()[i]


EQ1 = Claim(
    id="scalarnet.eq1",
    source=PAPER.at("§2, balancedness"),
    title="Gradient flow conserves w_i^2 - w_j^2",
    statement=r"\frac{d}{dt}(w_i^2 - w_j^2) = -2(w_i \partial_i f - w_j \partial_j f) = 0",
    checks=(symbolic.identity("w1_d1f_equals_w2_d2f", _w_d(0), _w_d(1)),),
    planted=(Planted("p1", "w_1^2 - 1.01 w_2^2 conserved (near miss)",
                     symbolic.identity("w1_d1f_equals_w2_d2f", _w_d(0),
                                                       _w_d(1, sp.Rational(101, 100)))),),
    expect="proved",
)


AT_MIN = {W[2]: 1 / (W[0] * W[1])}  # the minimiser surface p = 1, parametrised by w1, w2


def _grad_p():
    return sp.Matrix([sp.diff(P, w) for w in W]).subs(AT_MIN)


def _hessian_at_min():
    return hessian().subs(AT_MIN)


def _outer():
    # at p = 1 the Hessian is ∇p ∇pᵀ, whose only nonzero eigenvalue is |∇p|² = Σᵢ ∏_{j≠i} wⱼ²
    return _grad_p() * _grad_p().T


def _lambda_times_grad_p(scale):
    return lambda: scale * sum(1 / w**2 for w in W).subs(AT_MIN) * _grad_p()


LEM1 = Claim(
    id="scalarnet.lem1",
    source=PAPER.at("§2, sharpness of a minimiser"),
    title="At a minimiser (w1 w2 w3 = 1) the Hessian is rank one with eigenvalue sum 1/w_i^2",
    statement=r"w_1w_2w_3 = 1 \Rightarrow \nabla^2 f = \nabla p\,\nabla p^\top,\ "
              r"\lambda_{\max} = \sum_i w_i^{-2}",
    checks=(symbolic.identity("hessian_is_grad_p_outer", _hessian_at_min, _outer),
            symbolic.identity("top_eigenpair", lambda: _hessian_at_min() * _grad_p(),
                              _lambda_times_grad_p(1))),
    planted=(Planted("p1", "eigenvalue 1.01 Σ 1/w_i² (near miss)",
                     symbolic.identity("top_eigenpair", lambda: _hessian_at_min() * _grad_p(),
                                       _lambda_times_grad_p(sp.Rational(101, 100)))),),
    uses=("scalarnet.eq1",),
    expect="proved",
)
