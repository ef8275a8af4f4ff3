"""Example 1's named inequalities of ahn2023 Appendix C and how they are certified, shared by
``appC_losses`` and ``appC_lemma5``.

Each inequality is a small named function returning ``(lhs, rhs)`` with the claim ``lhs <= rhs`` on a
stated domain (see :data:`EXAMPLE1_INEQUALITIES`). Each takes an ``ops`` namespace (``tanh``,
``sqrt``, ``cosh``, ``num``): :data:`MP` (mpmath) or :data:`SYMPY` (sympy expressions). The sympy form
is certified in arb by :func:`verify.certify.inequality` (adaptive bisection with a Taylor form at 0,
see :func:`certified`): a certificate covers exactly its compact interval; unbounded statements add
a sympy tail argument (:func:`tail`), and s < 0 is covered by an exact evenness identity
(:func:`even_in_s`).
"""
from __future__ import annotations

import math
import types
from fractions import Fraction

import mpmath
import sympy as sp

from claims.ahn2023._sec2_common import RSYM, SQRT
from verify import certify, symbolic
from verify.loss import S as LOSS_ARG  # the argument of the catalogue losses (real; S here is positive)

MP = types.SimpleNamespace(tanh=mpmath.tanh, sqrt=mpmath.sqrt, cosh=mpmath.cosh, num=mpmath.mpf)
SYMPY = types.SimpleNamespace(tanh=sp.tanh, sqrt=sp.sqrt, cosh=sp.cosh, num=sp.Integer)

S = sp.Symbol("s", positive=True)
r_ = sp.Symbol("r", positive=True)
u_ = sp.Symbol("u", nonnegative=True)   # u = s²
eps = sp.Symbol("epsilon", positive=True)
beta = sp.Symbol("beta", positive=True)


def _k(ops, q) -> object:
    """An exact rational constant in the backend of ``ops``."""
    q = Fraction(q)
    return ops.num(q.numerator) / ops.num(q.denominator)


# ============================================================================ named inequalities
# Each returns (lhs, rhs); the claim is lhs <= rhs on the stated domain (s > 0 by evenness).

def rsym_a2inf(s, ops=MP):
    """ℓ_rsym'(s)/s = tanh(s)/s <= 1, all s != 0."""
    return ops.tanh(s) / s, ops.num(1)


def rsym_a2(s, c=Fraction(1, 4), beta_=2, ops=MP):
    """tanh(s)/s <= 1 − c|s|^β; Example 1 claims it for 0 < |s| < 1/4 with c = 1/4, β = 2."""
    return ops.tanh(s) / s, 1 - _k(ops, c) * abs(s) ** beta_


def rsym_a3(s, C=Fraction(1, 3), ops=MP):
    """1 − C s² <= tanh(s)/s, all s != 0 ((A3) with C = 1/3, sharp)."""
    return 1 - _k(ops, C) * s**2, ops.tanh(s) / s


def rsym_third_derivative(r, eps_=Fraction(3, 4), ops=MP):
    """ε r <= −ℓ_rsym'''(r) = 2 tanh(r)/cosh²(r) on (0, ε) (Lemma 5 converse hypothesis)."""
    return _k(ops, eps_) * r, 2 * ops.tanh(r) / ops.cosh(r) ** 2


def rsym_converse(s, eps_=Fraction(3, 4), divisor=6, ops=MP):
    """tanh(s)/s <= 1 − ε s²/divisor on (0, ε); divisor 6 is correct, 2 is the printed erratum F3."""
    return ops.tanh(s) / s, 1 - _k(ops, eps_) * s**2 / divisor


def sqrt_a2inf(s, ops=MP):
    """ℓ_sqrt'(s)/s = (1 + s²)^{-1/2} <= 1."""
    return 1 / ops.sqrt(1 + s**2), ops.num(1)


def sqrt_a2(s, c=Fraction(2, 5), ops=MP):
    """(1 + s²)^{-1/2} <= 1 − c s² for 0 < |s| < c (c = 2/5, reading §7 F2)."""
    return 1 / ops.sqrt(1 + s**2), 1 - _k(ops, c) * s**2


def sqrt_a3(s, C=Fraction(1, 2), ops=MP):
    """1 − C s² <= (1 + s²)^{-1/2}, all s ((A3) with C = 1/2, sharp)."""
    return 1 - _k(ops, C) * s**2, 1 / ops.sqrt(1 + s**2)


def sqrt_third_derivative(r, eps_=Fraction(1, 2), ops=MP):
    """ε r <= −ℓ_sqrt'''(r) = 3r(1 + r²)^{-5/2} on (0, ε)."""
    return _k(ops, eps_) * r, 3 * r / ops.sqrt(1 + r**2) ** 5


def sqrt_converse(s, eps_=Fraction(1, 2), divisor=6, ops=MP):
    """(1 + s²)^{-1/2} <= 1 − ε s²/divisor on (0, ε)."""
    return 1 / ops.sqrt(1 + s**2), 1 - _k(ops, eps_) * s**2 / divisor


def tanh_2s5_a2inf(s, ops=MP):
    """For ℓ'(s) = tanh(s + 2s⁵) (erratum N1): ℓ'(s)/s <= 1 — false at s = 1/2."""
    return ops.tanh(s + 2 * s**5) / s, ops.num(1)


EXAMPLE1_INEQUALITIES = {
    # name: (function, lo, hi, what the paper / spec claims); each is certified on the closed [lo, hi]
    # (s = 0 through the Taylor form at 0), with a sympy tail where hi = oo and evenness for s < 0
    "rsym_a2inf": (rsym_a2inf, 0, math.inf, "ex1.rsym: tanh(s)/s <= 1 for s != 0"),
    "rsym_a2": (rsym_a2, 0, Fraction(1, 4), "ex1.rsym: tanh(s)/s <= 1 − s²/4 on 0 < |s| < 1/4"),
    "rsym_a3": (rsym_a3, 0, math.inf, "ex1.rsym_a3: tanh(s)/s >= 1 − s²/3"),
    "rsym_third_derivative": (rsym_third_derivative, 0, Fraction(3, 4),
                              "lem5.converse / erratum_const: −ℓ'''(r) >= (3/4) r on (0, 3/4)"),
    "rsym_converse": (rsym_converse, 0, Fraction(3, 4), "lem5.converse: tanh(s)/s <= 1 − (3/4)s²/6 on (0, 3/4)"),
    "sqrt_a2inf": (sqrt_a2inf, 0, math.inf, "ex1.sqrt: (1 + s²)^{-1/2} <= 1"),
    "sqrt_a2": (sqrt_a2, 0, Fraction(2, 5), "ex1.sqrt: (1 + s²)^{-1/2} <= 1 − (2/5)s² on |s| < 2/5"),
    "sqrt_a3": (sqrt_a3, 0, math.inf, "ex1.sqrt_a3: (1 + s²)^{-1/2} >= 1 − s²/2"),
    "sqrt_third_derivative": (sqrt_third_derivative, 0, Fraction(1, 2),
                              "lem5.converse: −ℓ_sqrt'''(r) >= r/2 on (0, 1/2)"),
    "sqrt_converse": (sqrt_converse, 0, Fraction(1, 2), "lem5.converse: (1 + s²)^{-1/2} <= 1 − s²/12 on (0, 1/2)"),
    "tanh_2s5_a2inf": (tanh_2s5_a2inf, Fraction(1, 2), Fraction(1, 2),
                       "lem5.erratum_global: printed global (A2) for ℓ' = tanh(s + 2s⁵), false at s = 1/2"),
}


S_REAL = sp.Symbol("s", real=True)  # for the evenness identities (s of either sign)


def certified(name, fn, lo, hi, *, tail_check=None, why="", **kw):
    """``lhs <= rhs`` of the named inequality ``fn`` (sympy form, s > 0) certified in arb on the
    closed interval [lo, hi]; ``tail_check`` (a Check on [hi, oo)) extends it to s >= lo."""
    lhs, rhs = fn(S, ops=SYMPY, **kw)
    return certify.inequality(name, lhs, rhs, lo, hi, tail=tail_check, why=why)


def tail(name, fn, start, *, rewrite_exp=False, **kw):
    """rhs − lhs >= 0 for all s >= start by sympy's assumptions on s = start + t, t > 0.

    ``rewrite_exp``: first rewrite tanh as (e^s − e^{−s})/(e^s + e^{−s}) (an exact identity), which
    lets sympy sign 1 − tanh(s)/s; it cannot sign tanh expressions directly."""
    lhs, rhs = fn(S, ops=SYMPY, **kw)
    expr = rhs - lhs
    return certify.sympy_tail(name, expr.rewrite(sp.exp) if rewrite_exp else expr, S, start)


def even_in_s(name, fn, **kw):
    """Both sides of ``fn`` are even in s (exact), so a certificate on s > 0 covers s < 0."""
    lhs, rhs = fn(S_REAL, ops=SYMPY, **kw)
    return symbolic.all_of(name, (
        symbolic.identity("lhs_even", lhs, lhs.subs(S_REAL, -S_REAL)),
        symbolic.identity("rhs_even", rhs, rhs.subs(S_REAL, -S_REAL)),
    ))


def _l_rsym(v):
    return RSYM.l.subs(LOSS_ARG, v)  # the catalogue's ℓ_rsym = log(2 cosh v)


def _l_sqrt(v):
    return SQRT.l.subs(LOSS_ARG, v)  # the catalogue's ℓ_sqrt = sqrt(1 + v²)


_u = sp.Symbol("u", positive=True)
_t_real = sp.Symbol("t", real=True)
