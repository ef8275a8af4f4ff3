"""ahn2023, Appendix C: Lemma 5 (the minimiser, the necessary conditions, the converse, and the
errata N1, N2 on its constant and its global form) and the Taylor identity (9).

The inequalities used are the named ones of :mod:`claims.ahn2023._appC_inequalities`, certified in
arb where the claim is ``proved``.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp
from hypothesis import strategies as st

from claims.ahn2023 import PAPER
from claims.ahn2023._sec2_common import losses
from verify import Claim, Planted, Status, certify, sampling, symbolic
from verify.claim import check, outcome
from verify.nearmiss import near_miss
from claims.ahn2023._appC_inequalities import (
    S, r_, eps, beta, rsym_a2, rsym_third_derivative, rsym_converse, sqrt_third_derivative,
    sqrt_converse, certified, _l_rsym, _l_sqrt, _u, _t_real)


# ============================================================================ Lemma 5

def _d4_at_0(expr):
    return sp.diff(expr, S, 4).subs(S, 0)


def _excess_property(args):
    loss, sv = args
    with mpmath.workdps(50):
        e = loss.excess_mp(sv)
        ok = e >= 0 and (sv == 0 or e > 0)
        return bool(ok), {"loss": str(loss), "l(s)-l(0)": mpmath.nstr(e, 10)}


def _local_quadratic_growth(args, coef="0.515"):
    """Planted near miss: ℓ(s) − ℓ(0) >= coef·s² on 0 < |s| <= 1 (ℓ''(0)/2 = 1/2 is the sharp value)."""
    loss, sv = args
    if sv == 0 or abs(sv) > 1:
        return sampling.SKIP
    with mpmath.workdps(50):
        e = loss.excess_mp(sv)
        ratio = e / mpmath.mpf(sv) ** 2
        return bool(ratio >= mpmath.mpf(coef)), {"loss": str(loss), "excess_over_s2": float(ratio)}


def _quadratic_growth(args):
    loss, sv = args
    with mpmath.workdps(50):
        return bool(loss.excess_mp(sv) >= mpmath.mpf(sv) ** 2 / 2), {"loss": str(loss)}


_svals = st.one_of(st.just(0.0), st.floats(-50, 50), st.floats(-1e-6, 1e-6))

LEM5_MIN = Claim(
    id="ahn2023.lem5.min",
    source=PAPER.at("Lemma 5, App. C"),
    title="Under (A1), ℓ is minimised at 0 and ℓ'(0) = 0",
    statement=r"\ell'(0)=0,\ \ell(s)\ge\ell(0)",
    hypotheses=("(A1)",),
    status="theorem", expect="supported",
    uses=("ahn2023.def6.a1",),
    checks=(
        symbolic.all_of("derivative_at_0", (
            symbolic.identity("rsym", lambda: sp.diff(_l_rsym(S), S).subs(S, 0), 0),
            symbolic.identity("sqrt", lambda: sp.diff(_l_sqrt(S), S).subs(S, 0), 0),
            symbolic.identity("beta", lambda: sp.limit(S * (1 - (1 / (beta + 1)) * (beta / (beta + 1)) ** beta
                                                            * S**beta), S, 0, "+"), 0),
            symbolic.identity("hub", lambda: sp.diff(S**2 / 2, S).subs(S, 0), 0),
        )),
        sampling.forall("minimum_at_0", st.tuples(losses(), _svals), _excess_property, examples=(150, 1500),
                        describe="ℓ(s) − ℓ(0) >= 0, > 0 for s != 0 (50 digits, cancellation-free forms)"),
    ),
    planted=(Planted("p3", "ℓ(s) ≥ ℓ(0) + s²/2 for all s (quadratic growth; false for 1-Lipschitz ℓ)",
                     sampling.forall("quadratic_growth", st.tuples(losses(), _svals), _quadratic_growth,
                                     examples=(150, 1500))),
             near_miss("p4", "near miss: ℓ(s) ≥ ℓ(0) + 0.515 s² on |s| <= 1 (3% above ℓ''(0)/2)",
                       sampling.forall("local_quadratic_growth", st.tuples(losses(), st.floats(-1, 1)),
                                       _local_quadratic_growth, examples=(150, 1500)),
                       margin=lambda d: (0.515 - d["excess_over_s2"], f"at the shrunk witness "
                                         f"(ℓ(s) − ℓ(0))/s² = {d['excess_over_s2']:.6f} < 0.515")
                       if "excess_over_s2" in d else None)),
)

a4, a6, acoef = sp.symbols("a4 a6 a", real=True)


def _jet_ratio_limit():
    """For an even C⁴ loss s²/2 + a4 s⁴/24 + a6 s⁶/720: (ℓ'(s)/s − 1)/s² -> a4/6 = ℓ⁽⁴⁾(0)/6."""
    loss = S**2 / 2 + a4 * S**4 / 24 + a6 * S**6 / 720
    return sp.limit((sp.diff(loss, S) / S - 1) / S**2, S, 0, "+")


_fourth_family = sp.diff(sp.tanh(S + acoef * S**3), S, 3).subs(S, 0)  # ℓ⁽⁴⁾(0) of ℓ' = tanh(s + a s³)


@check("family_tanh_s_plus_as3", kind="CERT")
def _nec_family_certified(ctx):
    """ℓ' = tanh(s + a s³), a = k/12, k = 0..36 (convex, 1-Lipschitz, ℓ''(0) = 1), all members: if
    ℓ'(s)/s <= 1 at s = 1/1000 and 1/100 (as (A2) requires near 0), then ℓ⁽⁴⁾(0) = 6a − 2 <= 0.
    Each sign of ℓ'(s)/s − 1 is decided on an arb ball (certify.decide_constant)."""
    holds, precs = [], set()
    for k in range(37):
        a = sp.Rational(k, 12)
        fourth = _fourth_family.subs(acoef, a)
        below = []
        for s0 in (sp.Rational(1, 1000), sp.Rational(1, 100)):
            verdict, _, prec = certify.decide_constant(sp.tanh(s0 + a * s0**3) / s0 - 1, "<=", 0)
            precs.add(prec)
            if verdict is None:
                return outcome(Status.INCONCLUSIVE, f"a = {a}: sign of ℓ'(s)/s − 1 at s = {s0} undecided")
            below.append(verdict)
        if all(below):
            holds.append(str(a))
            if fourth > 0:
                return outcome(Status.REFUTED, f"a = {a}: ℓ'(s)/s <= 1 near 0 but ℓ⁽⁴⁾(0) = {fourth} > 0",
                               witness={"a": str(a), "l4(0)": str(fourth)})
    return outcome(Status.PROVED, f"all 37 members (a = 0, 1/12, ..., 3): ℓ'(s)/s <= 1 at s = 1/1000, 1/100 "
                   f"exactly for a in {{{', '.join(holds)}}}, where ℓ⁽⁴⁾(0) = 6a − 2 <= 0 (certified signs)",
                   members=37, ratio_le_1_near_0_for_a=holds, prec_bits=sorted(precs))




def _ratio_jet_over_s_beta():
    """(ℓ'(s)/s − 1)/s^β on the even 6-jet with β = 2 − u < 2: its limit at 0+ is 0."""
    loss = S**2 / 2 + a4 * S**4 / 24 + a6 * S**6 / 720
    return sp.limit((sp.diff(loss, S) / S - 1) / S ** (2 - _u), S, 0, "+")


LEM5_NEC = Claim(
    id="ahn2023.lem5.nec",
    source=PAPER.at("Lemma 5, App. C"),
    title="(A2) forces ℓ⁽⁴⁾(0) ≤ 0 (and β ≥ 2 for C⁴ losses)",
    statement=r"(A1),\ \ell\in C^4,\ (A2)\Rightarrow\ell^{(4)}(0)\le0;\ \ell'(s)/s=1+\ell^{(4)}(0)s^2/6+o(s^2)",
    hypotheses=("(A1)", r"\ell\in C^4\text{ near }0", "(A2) for some β"),
    status="theorem", expect="proved",
    uses=("ahn2023.eq9", "ahn2023.def6"),
    checks=(
        symbolic.identity("rsym_fourth_derivative", lambda: _d4_at_0(_l_rsym(S)), -2),
        symbolic.identity("sqrt_fourth_derivative", lambda: _d4_at_0(_l_sqrt(S)), -3),
        symbolic.identity("ratio_expansion", _jet_ratio_limit, lambda: a4 / 6),
        symbolic.identity("family_fourth_derivative", lambda: _fourth_family, lambda: 6 * acoef - 2),
        # β ≥ 2 for every C⁴ loss: with β = 2 − u (u > 0), (ℓ'(s)/s − 1)/s^β → 0, while (A2) needs
        # it <= −c < 0 for small s (symbolic u and jet coefficients a4, a6)
        symbolic.identity("beta_below_2_impossible", _ratio_jet_over_s_beta, 0,
                          why="(ℓ'(s)/s − 1)/s^{2−u} → 0 as s → 0+ for every u > 0, a4, a6"),
        _nec_family_certified,
    ),
    planted=(Planted("p4", "ℓ⁽⁴⁾(0) ≥ 0 (wrong sign; ℓ_rsym has −2)",
                     symbolic.truth("rsym_fourth_nonneg", lambda: sp.Ge(_d4_at_0(_l_rsym(S)), 0))),),
    notes="Scope of `proved`: every even C⁴ loss through its jet with symbolic coefficients (a4, a6; "
          "β symbolic as 2 − u in beta_below_2_impossible); the o(s²) remainder is Taylor's theorem "
          "for ℓ ∈ C⁴ (not machine-checked). "
          "Derived corollary: a C⁴ loss satisfies (A2) only with β ≥ 2. The proof's pointwise claim "
          "'ℓ''' ≤ 0 on (0, ε)' does not follow from an integral bound (§7 N6); the conclusion does. "
          "Proved: the coefficient a4/6 of s² in ℓ'(s)/s is exact on the even jet (sympy); the remainder "
          "o(s²) is Taylor's theorem for ℓ ∈ C⁴ (not machine-checked). The tanh(s + as³) family is an "
          "exhaustive certified illustration (37 members, signs decided on arb balls).",
)


def _converse_integral(divisor_kernel=1):
    """(1/s)∫₀^s (s − r)(−ε r) dr."""
    return sp.integrate((S - r_) * (-eps * r_), (r_, 0, S)) / S / divisor_kernel


@check("no_c_for_beta_3_2", kind="INT")
def _rsym_beta_3_2(ctx):
    """(A2) with β = 3/2 fails for ℓ_rsym: (1 − r(s))/s^{3/2} -> 0, so no c > 0 works near 0."""
    lim = sp.limit((1 - sp.tanh(S) / S) / S**sp.Rational(3, 2), S, 0, "+")
    with mpmath.workdps(50):
        s0 = mpmath.mpf("0.01")
        c = mpmath.mpf(1) / 4
        lhs, rhs = rsym_a2(s0, c=Fraction(1, 4), beta_=mpmath.mpf(3) / 2)
    if lim == 0 and lhs > rhs:
        return outcome(Status.REFUTED, "(1 − tanh(s)/s)/s^{3/2} -> 0 as s -> 0+, so ℓ'(s)/s <= 1 − c s^{3/2} "
                       f"fails near 0 for every c > 0; e.g. c = 1/4 at s = 0.01: {mpmath.nstr(lhs, 12)} > "
                       f"{mpmath.nstr(rhs, 12)}", limit=str(lim), witness={"c": "1/4", "s": "0.01"})
    return outcome(Status.INCONCLUSIVE, f"limit {lim}", limit=str(lim))


def _certified_eps_admissible(name, fn, eps_, why):
    """The hypothesis of the converse, ε r <= −ℓ'''(r) on [0, ε] (both sides odd: r > 0 is all)."""
    return certified(name, fn, 0, eps_, eps_=eps_, why=why)


# The printed chain (F3) at ℓ = ℓ_rsym, ε = 3/4, s = 1/10: tanh(1/10)/(1/10) <= 1 − (3/4)(1/100)/2 = 797/800.
_ERRATUM_CONST_AT_WITNESS = certify.constant(
    "printed_bound_at_s_1_10", 10 * sp.tanh(sp.Rational(1, 10)) - sp.Rational(797, 800), "<= 0",
    why="the printed conclusion tanh(s)/s <= 1 − εs²/2 for ℓ_rsym, ε = 3/4 at s = 1/10, as lhs − rhs <= 0")

LEM5_CONVERSE = Claim(
    id="ahn2023.lem5.converse",
    source=PAPER.at("Lemma 5, App. C (corrected, §7 F3, N1)"),
    title="ℓ⁽⁴⁾(0) < 0 gives the local part of (A2) with β = 2 (constant ε/6)",
    statement=r"\ell'''(r)\le-\varepsilon r\ (0<r<\varepsilon)\Rightarrow\ell'(s)/s\le1-\varepsilon s^2/6"
              r"\ (0<s<\varepsilon);\ \text{with }\ell'(s)\le s\ \forall s>0:\ (A2),\ \beta=2",
    hypotheses=("(A1)", r"\ell\in C^4\text{ near }0", r"\ell^{(4)}(0)<0"),
    status="theorem", expect="proved",
    uses=("ahn2023.eq9", "ahn2023.def6"),
    checks=(
        symbolic.identity("integral_core", _converse_integral, lambda: -eps * S**2 / 6,
                          why="with eq. (9) and (s − r) >= 0 on [0, s], ℓ''' <= −εr gives ℓ'(s)/s <= 1 − εs²/6"),
        _certified_eps_admissible("rsym_third_derivative_hyp", rsym_third_derivative, Fraction(3, 4),
                                  "ε = 3/4 admissible for ℓ_rsym: −ℓ_rsym'''(r) = 2 tanh(r)/cosh²(r)"),
        certified("rsym_conclusion", rsym_converse, 0, Fraction(3, 4), why="the conclusion for ℓ_rsym, ε = 3/4"),
        _certified_eps_admissible("sqrt_third_derivative_hyp", sqrt_third_derivative, Fraction(1, 2),
                                  "ε = 1/2 admissible for ℓ_sqrt: −ℓ_sqrt'''(r) = 3r(1 + r²)^{-5/2}"),
        certified("sqrt_conclusion", sqrt_converse, 0, Fraction(1, 2), why="the conclusion for ℓ_sqrt, ε = 1/2"),
    ),
    planted=(
        Planted("p1", "(A2) with β = 3/2 (fails near 0 for every C⁴ loss; ℓ_rsym)", _rsym_beta_3_2),
        Planted("p2", "the printed constant εs²/2 (= lem5.erratum_const)", _ERRATUM_CONST_AT_WITNESS),
    ),
    notes="The implication itself is the exact integral identity on top of eq. (9) (kernel s − r >= 0). "
          "ε = 3/4 for ℓ_rsym and ε = 1/2 for ℓ_sqrt are admissible and the conclusions hold: both "
          "certified in arb on the closed intervals [0, ε] (Taylor form at 0; the statement is for "
          "0 < s < ε). The global part needs ℓ'(s) <= s for s > 0 (ex1.*), otherwise erratum N1 applies.",
)

LEM5_ERRATUM_CONST = Claim(
    id="ahn2023.lem5.erratum_const",
    source=PAPER.at("Lemma 5 proof, App. C (§7 F3)"),
    title="Printed chain ℓ'''(r) ≤ −εr ⇒ ℓ'(s)/s ≤ 1 − εs²/2 (erratum)",
    statement=r"\ell'''(r)\le-\varepsilon r\ (0<r<\varepsilon)\Rightarrow\ell'(s)/s\le1-\varepsilon s^2/2",
    status="erratum", expect="refuted",
    uses=("ahn2023.lem5.converse",),
    checks=(
        _certified_eps_admissible("hypothesis_holds_rsym_eps_3_4", rsym_third_derivative, Fraction(3, 4),
                                  "the witness satisfies the hypothesis: (3/4) r <= 2 tanh(r)/cosh²(r) on [0, 3/4]"),
        _ERRATUM_CONST_AT_WITNESS,
    ),
    notes="Witness ℓ = ℓ_rsym, ε = 3/4, s = 1/10: tanh(0.1)/0.1 ≈ 0.99668 > 1 − (3/4)(0.01)/2 = 0.99625 "
          "(certified: 10 tanh(1/10) − 797/800 > 0, arb ball in the evidence). The hypothesis is certified "
          "on [0, 3/4]. The correct constant is ε/6 (lem5.converse).",
)


def _tanh_2s5_d(v):
    return sp.tanh(v + 2 * v**5)




def _tanh_2s5_a1():
    """(A1) for the witness, exactly: ℓ'' = sech²(s + 2s⁵)(1 + 10s⁴) > 0 (convex) and
    1 − ℓ'² = sech²(s + 2s⁵) > 0 (|ℓ'| < 1), for every real s."""
    arg = _t_real + 2 * _t_real**5
    return symbolic.all_of("witness_convex_lipschitz", (
        symbolic.identity("second_derivative", lambda: sp.diff(_tanh_2s5_d(_t_real), _t_real),
                          lambda: sp.sech(arg) ** 2 * (1 + 10 * _t_real**4)),
        symbolic.truth("convex", lambda: sp.Gt(sp.sech(arg) ** 2 * (1 + 10 * _t_real**4), 0)),
        symbolic.identity("one_minus_slope_squared", lambda: 1 - _tanh_2s5_d(_t_real) ** 2,
                          lambda: sp.sech(arg) ** 2),
        symbolic.truth("lipschitz", lambda: sp.Gt(sp.sech(arg) ** 2, 0)),
    ))


LEM5_ERRATUM_GLOBAL = Claim(
    id="ahn2023.lem5.erratum_global",
    source=PAPER.at("Lemma 5, App. C (§7 N1)"),
    title="Printed 'ℓ⁽⁴⁾(0) < 0 ⇒ (A2) with β = 2' read globally (erratum)",
    statement=r"(A1),\ \ell^{(4)}(0)<0\Rightarrow\ell'(s)/s\le1-c s^21\{|s|\le c\}\ \forall s\ne0",
    status="erratum", expect="refuted",
    uses=("ahn2023.lem5.converse",),
    checks=(
        symbolic.identity("witness_curvature_at_0", lambda: sp.diff(_tanh_2s5_d(S), S).subs(S, 0), 1),
        symbolic.identity("witness_fourth_derivative", lambda: sp.diff(_tanh_2s5_d(S), S, 3).subs(S, 0), -2),
        symbolic.identity("witness_odd", lambda: _tanh_2s5_d(-S) + _tanh_2s5_d(S), 0),
        _tanh_2s5_a1(),
        certify.constant("global_part_at_s_1_2", 2 * sp.tanh(sp.Rational(9, 16)), "<= 1",
                         why="ℓ'(1/2)/(1/2) = 2 tanh(1/2 + 2/32) = 2 tanh(9/16); (A2) needs it <= 1"),
    ),
    notes="Witness ℓ even with ℓ'(s) = tanh(s + 2s⁵): (A1) holds exactly (sympy: ℓ'' > 0, 1 − ℓ'² = "
          "sech² > 0) and ℓ⁽⁴⁾(0) = −2, but ℓ'(1/2)/(1/2) = 2 tanh(9/16) > 1 (certified arb "
          "ball, value in the evidence), so (A2) fails globally for every c.",
)

# ============================================================================ eq. (9)

a3c, a4c, a5c = sp.symbols("a3 a4 a5", real=True)


def _poly_loss(v):
    return v**2 / 2 + a3c * v**3 / 6 + a4c * v**4 / 24 + a5c * v**5 / 120


def _eq9_rhs(loss_of, kernel=lambda s_, r: s_ - r, with_inv_s=True):
    third = sp.diff(loss_of(r_), r_, 3)
    integral = sp.integrate(kernel(S, r_) * third, (r_, 0, S))
    return 1 + (integral / S if with_inv_s else integral)


def _eq9_lhs(loss_of):
    return sp.diff(loss_of(S), S) / S


_fprime = sp.Function("lprime")   # ℓ', an unspecified C² function (ℓ ∈ C³)
_s_real, _r_real = sp.symbols("s r", real=True)


def _eq9_general_difference():
    """G(s) = ℓ'(s) − s − ∫₀^s (s − r) ℓ‴(r) dr for an unspecified ℓ' (s·(lhs − rhs) of eq. (9))."""
    f = _fprime
    return f(_s_real) - _s_real - sp.Integral((_s_real - _r_real) * sp.diff(f(_r_real), _r_real, 2),
                                              (_r_real, 0, _s_real))


def _eq9_general_derivative(curvature=1):
    """G'(s) by Leibniz' rule, with the hypothesis ℓ''(0) = 1 substituted: identically 0."""
    dG = sp.diff(_eq9_general_difference(), _s_real).doit()
    return dG.subs(sp.Subs(sp.Derivative(_fprime(_r_real), _r_real), _r_real, 0), curvature)


def _eq9_general_at_0():
    """G(0) with the hypothesis ℓ'(0) = 0 substituted: 0."""
    return _eq9_general_difference().subs(_s_real, 0).doit().subs(_fprime(0), 0)


EQ9 = Claim(
    id="ahn2023.eq9",
    source=PAPER.at("eq. (9), App. C"),
    title="Taylor identity for ℓ'(s)/s",
    statement=r"\ell'(s)/s=1+\frac1s\int_0^s(s-r)\ell'''(r)\,dr",
    hypotheses=(r"\ell\in C^3\text{ near }0", r"\ell'(0)=0", r"\ell''(0)=1"),
    status="theorem", expect="proved",
    uses=("ahn2023.lem5.min",),
    checks=(
        # the statement for every C³ loss: G(s) = s(lhs − rhs) has G(0) = 0 and G' ≡ 0
        symbolic.identity("general_C3_derivative", _eq9_general_derivative, 0,
                          why="d/ds[ℓ'(s) − s − ∫₀^s (s−r)ℓ‴(r)dr] = ℓ''(0) − 1 = 0 for an unspecified ℓ'"),
        symbolic.identity("general_C3_at_0", _eq9_general_at_0, 0, why="G(0) = ℓ'(0) = 0"),
    ) + tuple(symbolic.identity(f"on_{name}", (lambda f=f: _eq9_lhs(f)), (lambda f=f: _eq9_rhs(f)))
              for name, f in (("rsym", _l_rsym), ("sqrt", _l_sqrt), ("polynomial_family", _poly_loss))),
    planted=(
        Planted("p1", "kernel (s − r)²/2 (ℓ = ℓ_rsym)",
                symbolic.identity("on_rsym", lambda: _eq9_lhs(_l_rsym),
                                  lambda: _eq9_rhs(_l_rsym, kernel=lambda s_, r: (s_ - r) ** 2 / 2))),
        Planted("p2", "the factor 1/s missing (ℓ = ℓ_rsym)",
                symbolic.identity("on_rsym", lambda: _eq9_lhs(_l_rsym),
                                  lambda: _eq9_rhs(_l_rsym, with_inv_s=False))),
        Planted("p3", "the general identity with ℓ''(0) = 2 (the normalisation ℓ''(0) = 1 dropped)",
                symbolic.identity("general_C3_derivative", lambda: _eq9_general_derivative(2), 0)),
    ),
    notes="Proved for every C³ loss: with ℓ' an unspecified sympy function, G(s) = ℓ'(s) − s − "
          "∫₀^s (s − r)ℓ‴(r)dr has G'(s) = ℓ''(0) − 1 = 0 (Leibniz' rule, sympy) and G(0) = ℓ'(0) = 0, "
          "so G ≡ 0 near 0 (a function with zero derivative on an interval is constant — the one step "
          "not machine-checked) and eq. (9) is G(s)/s = 0 for s ≠ 0. The instances ℓ_rsym, ℓ_sqrt and "
          "the polynomial family (symbolic a3, a4, a5) are kept as cross-checks.",
)
