"""Double-double arithmetic (~106 bits, ≈ 31.9 significant digits), compiled with numba.

Each number is an unevaluated sum hi + lo of two float64 (Dekker / Knuth error-free
transformations; Hida–Li–Bailey style algorithms), with exp, log, pow, sqrt and tanh. Loss kernels
for the double-double GD path have the signature ``dd_kernel(s_hi, s_lo, params) -> (hi, lo)``.
"""
from __future__ import annotations

import math

import mpmath
import numba
import numpy as np
import sympy as sp

_SPLIT = 134217729.0  # 2^27 + 1


@numba.njit(cache=True)
def two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@numba.njit(cache=True)
def quick_two_sum(a, b):
    s = a + b
    return s, b - (s - a)


@numba.njit(cache=True)
def _split(a):
    t = _SPLIT * a
    hi = t - (t - a)
    return hi, a - hi


@numba.njit(cache=True)
def two_prod(a, b):
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


@numba.njit(cache=True)
def dd_add(ah, al, bh, bl):
    s, e = two_sum(ah, bh)
    t, f = two_sum(al, bl)
    e += t
    s, e = quick_two_sum(s, e)
    e += f
    return quick_two_sum(s, e)


@numba.njit(cache=True)
def dd_sub(ah, al, bh, bl):
    return dd_add(ah, al, -bh, -bl)


@numba.njit(cache=True)
def dd_mul(ah, al, bh, bl):
    p, e = two_prod(ah, bh)
    e += ah * bl + al * bh
    return quick_two_sum(p, e)


@numba.njit(cache=True)
def dd_mul_d(ah, al, b):
    p, e = two_prod(ah, b)
    e += al * b
    return quick_two_sum(p, e)


@numba.njit(cache=True)
def dd_div(ah, al, bh, bl):
    """a / b: one correction step (relative error ~2^-104)."""
    q1 = ah / bh
    ph, pl = dd_mul_d(bh, bl, q1)
    rh, rl = dd_sub(ah, al, ph, pl)
    q2 = rh / bh
    return quick_two_sum(q1, q2)


@numba.njit(cache=True)
def dd_sqrt(ah, al):
    if ah <= 0.0:
        return 0.0, 0.0
    x = 1.0 / math.sqrt(ah)
    ax = ah * x
    sh, sl = two_prod(ax, ax)
    dh, dl = dd_sub(ah, al, sh, sl)
    return two_sum(ax, dh * (x * 0.5))


def _inverse_factorials(n: int) -> np.ndarray:
    out = np.zeros((n + 1, 2))
    with mpmath.workdps(50):
        for k in range(n + 1):
            v = 1 / mpmath.factorial(k)
            out[k, 0] = float(v)
            out[k, 1] = float(v - out[k, 0])
    return out


_INV_FACT = _inverse_factorials(18)


def _dd_table(values) -> np.ndarray:
    out = np.zeros((len(values), 2))
    with mpmath.workdps(50):
        for k, v in enumerate(values):
            out[k, 0] = float(v)
            out[k, 1] = float(v - out[k, 0])
    return out


with mpmath.workdps(50):
    _TANH_TABLE = _dd_table([mpmath.tanh(mpmath.mpf(j) / 64) for j in range(33)])
    _TANH_TAYLOR = _dd_table(mpmath.taylor(mpmath.tanh, 0, 15)[1::2])  # coefficients of r^1, r^3, ..., r^15


@numba.njit(cache=True)
def dd_expm1_small(xh, xl):
    """e^x − 1 for |x| <= 1: Taylor polynomial (Horner, 1/k! as double-double constants) at x/16,
    then four doublings m <- m(m + 2), which keep the relative accuracy of a small m."""
    rh, rl = xh / 16.0, xl / 16.0
    ph, pl = _INV_FACT[17, 0], _INV_FACT[17, 1]
    for k in range(16, 0, -1):
        ph, pl = dd_mul(ph, pl, rh, rl)
        ph, pl = dd_add(ph, pl, _INV_FACT[k, 0], _INV_FACT[k, 1])
    mh, ml = dd_mul(ph, pl, rh, rl)
    for _ in range(4):
        qh, ql = dd_add(mh, ml, 2.0, 0.0)
        mh, ml = dd_mul(mh, ml, qh, ql)
    return mh, ml


_LN2_HI = 0.6931471805599453
_LN2_LO = 2.3190468138462996e-17


@numba.njit(cache=True)
def dd_exp(xh, xl):
    if xh > 709.0:
        return np.inf, 0.0
    if xh < -745.0:
        return 0.0, 0.0
    k = math.floor(xh / _LN2_HI + 0.5)
    ph, pl = dd_mul(_LN2_HI, _LN2_LO, k, 0.0)
    rh, rl = dd_sub(xh, xl, ph, pl)
    mh, ml = dd_expm1_small(rh, rl)
    eh, el = dd_add(1.0, 0.0, mh, ml)
    sc = 2.0 ** k
    return eh * sc, el * sc


@numba.njit(cache=True)
def dd_log(ah, al):
    """log(a) for a > 0: one Newton step y <- y + a e^{-y} − 1 from the float64 logarithm."""
    y = math.log(ah)
    eh, el = dd_exp(-y, 0.0)
    th, tl = dd_mul(ah, al, eh, el)
    th, tl = dd_sub(th, tl, 1.0, 0.0)
    return dd_add(y, 0.0, th, tl)


@numba.njit(cache=True)
def dd_pow(ah, al, bh, bl):
    """a^b for a > 0 (b a double-double exponent)."""
    lh, ll = dd_log(ah, al)
    ph, pl = dd_mul(lh, ll, bh, bl)
    return dd_exp(ph, pl)


@numba.njit(cache=True)
def dd_powi(ah, al, n):
    """a^n for an integer n >= 1 (binary powering)."""
    rh, rl = 1.0, 0.0
    bh, bl = ah, al
    while n > 0:
        if n & 1:
            rh, rl = dd_mul(rh, rl, bh, bl)
        n >>= 1
        if n > 0:
            bh, bl = dd_mul(bh, bl, bh, bl)
    return rh, rl


@numba.njit(cache=True)
def dd_pow0(ah, al, bh, bl):
    """a^b for a >= 0 (0^b = 0 for b > 0), the real power of a non-negative base."""
    if ah == 0.0:
        return (0.0, 0.0) if bh > 0.0 else (np.inf, 0.0)
    return dd_pow(ah, al, bh, bl)


@numba.njit(cache=True)
def dd_tanh(ah, al):
    neg = ah < 0.0
    th, tl = (-ah, -al) if neg else (ah, al)
    if th > 40.0:
        rh, rl = 1.0, 0.0
    elif th > 0.5:
        eh, el = dd_exp(2.0 * th, 2.0 * tl)
        dh, dl = dd_add(eh, el, 1.0, 0.0)
        qh, ql = dd_div(2.0, 0.0, dh, dl)
        rh, rl = dd_sub(1.0, 0.0, qh, ql)
    else:
        # table reduction: s = j/64 + r, |r| <= 1/128; tanh(s) = (T + τ)/(1 + Tτ) with T = tanh(j/64)
        # from the table and τ = tanh(r) from its odd Taylor polynomial (terms to r^15: < 2e-37)
        j = int(math.floor(th * 64.0 + 0.5))
        rh, rl = dd_sub(th, tl, j / 64.0, 0.0)
        uh, ul = dd_mul(rh, rl, rh, rl)
        ph, pl = _TANH_TAYLOR[7, 0], _TANH_TAYLOR[7, 1]
        for k in range(6, -1, -1):
            ph, pl = dd_mul(ph, pl, uh, ul)
            ph, pl = dd_add(ph, pl, _TANH_TAYLOR[k, 0], _TANH_TAYLOR[k, 1])
        wh, wl = dd_mul(ph, pl, rh, rl)
        Th, Tl = _TANH_TABLE[j, 0], _TANH_TABLE[j, 1]
        nh, nl = dd_add(Th, Tl, wh, wl)
        qh, ql = dd_mul(Th, Tl, wh, wl)
        dh, dl = dd_add(1.0, 0.0, qh, ql)
        rh, rl = dd_div(nh, nl, dh, dl)
    return (-rh, -rl) if neg else (rh, rl)


def dd_split(value) -> tuple[float, float]:
    """An exact number (sympy / mpmath / str) as a double-double (hi, lo)."""
    with mpmath.workdps(50):
        v = mpmath.mpf(sp.N(value, 50)) if isinstance(value, sp.Basic) else mpmath.mpf(value)
        hi = float(v)
        lo = float(v - hi)
    return hi, lo

