"""l', l'' compiled to arb from the loss catalogue's sympy forms (verify.certify.loss_derivatives).

The reference is the hand-written enclosure of ahn2023 Example 1's l_beta that the generated one
replaced (kept here as an oracle): on many balls, including balls straddling the breakpoints
+-r_beta and 0, the generated enclosure must contain the exact value (mpmath at 40 digits) and be
at most about as wide as the hand-written one.
"""
import random
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from flint import arb, fmpq

from claims.ahn2023._losses import HUBER, RSYM, SQRT, SYM, beta_loss
from verify import certify
from verify.certify.sympy_arb import _ipow
from verify.loss import S


# --------------------------------------------------------------------------- the replaced oracle

def _abs_pow(X: arb, beta: arb) -> arb:
    a = abs(X)
    if a.lower() > 0:
        return a ** beta
    top = a.upper()
    return arb(0) if top.is_zero() else arb(0).union(top ** beta).nonnegative_part()


def _hand_beta_loss(bq: Fraction):
    """The former verify.certify.beta_loss: l_beta' = s(1 - c|s|^beta) inside r_beta, sgn s beyond;
    each piece on the part of the ball where it applies (Example 1)."""
    def consts():
        b = arb(fmpq(bq.numerator, bq.denominator))
        c = (b / (b + 1)).log().__mul__(b).exp() / (b + 1)
        r = (bq + 1) / bq
        return b, c, arb(fmpq(r.numerator, r.denominator))

    def pieces(X, inner, outer):
        b, c, r = consts()
        lo, hi = X.lower(), X.upper()
        parts = []
        if not (lo > r.upper() or hi < -r.upper()):
            parts.append(inner(lo.max(-r.upper()).union(hi.min(r.upper())), b, c))
        if hi >= r.lower():
            parts.append(arb(outer(1)))
        if lo <= -r.lower():
            parts.append(arb(outer(-1)))
        out = parts[0]
        for p in parts[1:]:
            out = out.union(p)
        return out

    return (lambda X: pieces(X, lambda Y, b, c: Y * (1 - c * _abs_pow(Y, b)), lambda sg: sg),
            lambda X: pieces(X, lambda Y, b, c: 1 - (b + 1) * c * _abs_pow(Y, b), lambda sg: 0))


def _random_balls(r: float, n: int, seed: int):
    rng = random.Random(seed)
    for _ in range(n):
        rad = 10 ** rng.uniform(-12, -0.5)
        anchor = rng.choice([r, -r, 0.0, rng.uniform(-3, 3)])
        yield arb(anchor + rng.uniform(-1.2, 1.2) * rad, rad)  # an anchor inside the ball mostly


def _exact(x: arb) -> mpmath.mpf:
    man, exp = x.mid().man_exp()
    return mpmath.ldexp(mpmath.mpf(int(man)), int(exp))


def _points(X: arb):
    """Points of the ball (exact dyadic mid +- a fraction of the radius, in mpmath)."""
    mid, rad = _exact(X.mid()), _exact(X.rad())
    for t in (-0.999, -0.5, 0, 0.25, 0.999):
        yield mid + t * rad


@pytest.mark.parametrize("beta", [2, 3, 4, "3/2", "4/3"])
def test_generated_l_beta_encloses_the_exact_value_and_is_no_wider_than_the_hand_written(beta):
    L = beta_loss(beta)
    bq = Fraction(beta)
    gen, hand = certify.loss_derivatives(L), _hand_beta_loss(bq)
    r = float((bq + 1) / bq)
    straddled = {"r": 0, "0": 0}
    with certify.working_precision(64), mpmath.workdps(40):
        for X in _random_balls(r, 400, seed=int(bq * 7)):
            straddled["r"] += bool(X.lower() < r < X.upper() or X.lower() < -r < X.upper())
            straddled["0"] += bool(X.lower() < 0 < X.upper())
            for k, exact in ((0, L.dloss_mp), (1, L.d2loss_mp)):
                G, H = gen[k](X), hand[k](X)
                assert G.is_finite(), (beta, k, X)
                for t in _points(X):
                    if abs(abs(t) - r) < 1e-30:
                        continue  # l'' jumps at r_beta (l' is only C^1 there)
                    value = arb(mpmath.nstr(exact(t), 35), mpmath.mpf(10) ** -33)
                    assert G.overlaps(value), (beta, k, X, t)
                # not much wider: at most twice the hand-written width (plus rounding)
                assert float(G.rad()) <= 2 * float(H.rad()) + 1e-14 * (1 + abs(float(H.mid()))), (beta, k, X, G, H)
    assert straddled["r"] > 50 and straddled["0"] > 50


def test_generated_l_beta_across_the_breakpoint_is_the_union_of_the_pieces():
    d1, d2 = certify.loss_derivatives(beta_loss(2))   # r_2 = 3/2, l_2'(r_2) = 1, l_2''(r_2) = 0
    with certify.working_precision(64):
        X = arb("1.5 +/- 0.1")
        v = d1(X)
        assert v.contains(arb(1)) and v.contains(d1(arb("1.45")))
        # the inner piece only on [1.4, 3/2] (natural extension: l' in [0.93, 1.07]), the outer one = 1
        assert 0.93 < v.lower() and v.upper() < 1.07
        w = d2(X)
        assert w.contains(arb(0)) and w.contains(d2(arb("1.41")))
        assert d1(arb(0)).is_zero() and d2(arb(0)).contains(arb(1))
        assert d1(arb(-7)).contains(arb(-1)) and d2(arb(7)).is_zero()


def test_l_beta_with_a_fractional_power_is_finite_on_balls_around_0():
    # |s|^(3/2) on a ball containing 0, and l'' = 1 - (beta+1) c |s|^beta where the printed form is
    # |s|^beta / s (0/0 at 0): split at 0 by verify.certify.split_at_zero
    for beta in ("3/2", "4/3", 3):
        d1, d2 = certify.loss_derivatives(beta_loss(beta))
        with certify.working_precision(64):
            for X in (arb(0, 0.05), arb("0.01 +/- 0.05"), arb("-0.01 +/- 0.05"), arb(0)):
                assert d1(X).is_finite() and d2(X).is_finite()
                assert d2(X).contains(arb(1)) and d2(X).upper() < 1 + 1e-9  # radii are rounded outward


@pytest.mark.parametrize("loss, d1, d2", [
    (RSYM, lambda v: v.tanh(), lambda v: 1 - v.tanh() ** 2),
    (SYM, lambda v: (v / 2).tanh() / 2, lambda v: (1 - (v / 2).tanh() ** 2) / 4),
    (SQRT, lambda v: v * (1 + v * v).rsqrt(), lambda v: (1 + v * v).rsqrt() ** 3),
], ids=["rsym", "sym", "sqrt"])
def test_smooth_catalogue_losses_compile_to_their_closed_forms(loss, d1, d2):
    g1, g2 = certify.loss_derivatives(loss)
    assert certify.loss_derivatives(loss) == (g1, g2)  # cached: trajectory enclosures are shared
    with certify.working_precision(128):
        for X in (arb("0.3"), arb("-2.5 +/- 1e-6"), arb("7 +/- 0.5"), arb(0, 0.1)):
            for g, h in ((g1, d1), (g2, d2)):
                assert g(X).overlaps(h(X))
                assert float(g(X).rad()) <= 2 * float(h(X).rad()) + 1e-30
        # smooth forms take arb_series: l'' by automatic differentiation agrees
        _, der = certify.derivative_enclosure(g1, arb("0.7"))
        assert der.overlaps(g2(arb("0.7")))


def test_huber_piecewise_and_sign_on_balls():
    d1, d2 = certify.loss_derivatives(HUBER)   # l' = s on [-1, 1], sgn s beyond; l'' = 1, 0
    with certify.working_precision(64):
        assert d1(arb("1 +/- 0.1")).contains(arb("0.95")) and d1(arb("1 +/- 0.1")).upper() <= 1 + 1e-9
        assert d1(arb(0, 0.5)).contains(arb("-0.5")) and d1(arb(-3)).contains(arb(-1))
        assert d2(arb("1 +/- 0.1")).contains(arb(0)) and d2(arb("1 +/- 0.1")).contains(arb(1))


def test_piecewise_branches_are_evaluated_on_their_part_of_the_ball():
    s = sp.Symbol("s", real=True)
    # s^2 on the whole ball [0.5, 1.5] reaches 2.25; its part is [0.5, 1] (and 2 - s on [1, 1.5])
    f = certify.from_sympy(sp.Piecewise((s**2, s < 1), (2 - s, True)), s)
    with certify.working_precision(64):
        v = f(arb("1 +/- 0.5"))
        assert v.lower() >= 0 and v.upper() <= 1 + 1e-8 and v.contains(arb("0.25")) and v.contains(arb("0.5"))
        assert f(arb("0.3")).contains(arb("0.09")) and f(arb(3)).contains(arb(-1))
    # a condition sympy cannot turn into a set of s falls back to the whole-ball evaluation
    g = certify.from_sympy(sp.Piecewise((1, sp.sin(s) > 0), (0, True)), s)
    with certify.working_precision(64):
        assert g(arb(1)).contains(arb(1)) and g(arb(-1)).contains(arb(0))


def test_halves_at_zero():
    s = S
    e = sp.Abs(s) ** 3 / s   # 0/0 at 0 as written, s|s| otherwise
    p, pos, neg = certify.halves_at_zero(e, s)
    assert pos == p**2 and neg == -p**2
    f = certify.from_sympy(e, s, split_at_zero=True)
    with certify.working_precision(64):
        assert f(arb(0, 0.1)).is_finite() and f(arb(0, 0.1)).contains(arb(0))
        assert f(arb(-2)).contains(arb(-4)) and f(arb(3)).contains(arb(9))
        _, der = certify.derivative_enclosure(f, arb("0.5"))   # away from 0 the halves take series
        assert der.contains(arb(1))
    # a jump at 0 is left alone (sign(0) = 0 is not a one-sided limit); nothing to split in s^2
    assert certify.halves_at_zero(sp.sign(s), s) is None and certify.halves_at_zero(s**2, s) is None


def test_integer_powers_on_balls_containing_zero():
    with certify.working_precision(64):
        x = arb(0, 0.05)          # arb's own x**2 is nan here
        assert (x ** 2).is_finite() is False
        for n in (2, 3, 4, 5):
            p = _ipow(x, n)
            assert p.is_finite() and p.contains(arb("0.05") ** n) and p.contains(arb(0))
            if n % 2 == 0:
                assert p.lower() >= 0
        y = arb("0.01 +/- 0.05")  # [-0.04, 0.06]: odd powers from the monotone ends
        assert _ipow(y, 3).lower() >= -(arb("0.04") ** 3).upper() * (1 + 1e-7)  # ends rounded outward


def test_certified_theorems_take_their_losses_from_the_catalogue():
    from claims.ahn2023 import certified_theorems as ct
    from claims.ahn2023._losses import loss_by_key
    assert ct._mm_functions()[3:] == certify.loss_derivatives(SYM)   # ℓ_sym', ℓ_sym'' of (5)
    assert (ct._BETA3, ct._BETA3_D2) == certify.loss_derivatives(loss_by_key("beta=3"))
    assert set(ct.THM2_LOWER_RUNS) == {"rsym", "sqrt", "beta=3", "beta=4"}
    assert all(certify.loss_derivatives(loss_by_key(k)) for k in ct.THM2_LOWER_RUNS)
