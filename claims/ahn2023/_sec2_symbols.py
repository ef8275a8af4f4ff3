"""Sympy building blocks shared by the ahn2023 §2 / App. C claim modules (sec2_definitions,
sec2_basics, sec2_lemma8_fact3): the symbols, the GD map G_η of eq. (2) on f(x, y) = ℓ(xy), generic
(undefined, odd, even) losses and r = ℓ'(s)/s of def7."""
from __future__ import annotations

import mpmath
import sympy as sp

from claims.ahn2023._sec2_common import RSYM
from verify.loss import S

x, y, z, s = sp.symbols("x y z s", real=True)
eta, delta, m, a = sp.symbols("eta delta m a", positive=True)
beta = sp.Symbol("beta", positive=True)
ell = sp.Function("ell")   # an arbitrary (undefined) loss
g = sp.Function("g")       # an arbitrary (undefined) derivative ℓ'
h = sp.Function("h")


def _prime(loss_of, u):
    """ℓ'(u) for a loss given as a callable u -> sympy expression (undefined or concrete)."""
    return sp.diff(loss_of(z), z).subs(z, u)


def _second(loss_of, u):
    return sp.diff(loss_of(z), z, 2).subs(z, u)


def _gd(dl, X=x, Y=y, step=eta):
    """G_η(X, Y) for a derivative dl: u -> ℓ'(u)."""
    return (X - step * dl(X * Y) * Y, Y - step * dl(X * Y) * X)


def _undef_loss(u):
    return ell(u)


def _rsym_loss(u):
    return RSYM.l.subs(S, u)  # the catalogue's ℓ_rsym = log(2 cosh u)


def _odd(u):
    """A generic odd function h(u) − h(−u) (every odd function has this form)."""
    return h(u) - h(-u)


def _even_loss(u):
    """A generic even function H(u) + H(−u)."""
    return h(u) + h(-u)


def _logi_prime(u):
    return -1 / (1 + sp.exp(u))


def _mp(v):
    return mpmath.mpf(v)


def _r_of(dl, u):
    return dl(u) / u
