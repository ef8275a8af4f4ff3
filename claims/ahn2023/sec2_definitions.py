"""ahn2023, Section 2 and Appendix C: the definitions of the single-neuron model f(x, y) = ℓ(xy) —
def4 (the model), def5 (the losses ℓ_logi, ℓ_sym, ℓ_rsym, ℓ_sqrt, ℓ_Hub, ℓ_β), def6 (assumptions
(A1), (A2), (A2∞), (A2+), (A3)) and def7 (trajectory quantities and the exact rewriting of GD).
Ids and statements follow the claim spec (§1, §2, §7).
"""
from __future__ import annotations

import math

import mpmath
import sympy as sp
from hypothesis import strategies as st

from claims.ahn2023 import PAPER
from claims.ahn2023._sec2_common import RSYM, SQRT, beta_loss, losses
from verify import Claim, Planted, certify, sampling, symbolic
from verify.loss import S, Loss
from verify.nearmiss import near_miss
from claims.ahn2023._sec2_symbols import (
    x, y, z, s, eta, beta, ell, g, _prime, _gd, _undef_loss, _rsym_loss, _mp, _r_of)


# ============================================================================ definitions

DEF4 = Claim(
    id="ahn2023.def4",
    source=PAPER.at("§2, eq. (3)"),
    title="Single-neuron model f(x, y) = ℓ(xy) and its GD map",
    statement=r"f(x,y)=\ell(xy);\ G_\eta(x,y)=(x-\eta\ell'(xy)y,\ y-\eta\ell'(xy)x);\ "
              r"\text{GF regime iff } y_0^2-x_0^2<2/\eta,\ \text{EoS iff } >2/\eta",
    status="theorem",
    expect="proved",
    checks=(symbolic.all_of("gd_map_is_gradient_step", (
        symbolic.identity("x_component", lambda: _gd(lambda u: _prime(_undef_loss, u))[0],
                          lambda: x - eta * sp.diff(ell(x * y), x)),
        symbolic.identity("y_component", lambda: _gd(lambda u: _prime(_undef_loss, u))[1],
                          lambda: y - eta * sp.diff(ell(x * y), y)),
    )),),
    planted=(Planted("p1", "G_η(x, y) = (x − ηℓ'(xy)x, y − ηℓ'(xy)y) (factors swapped); ℓ = ℓ_rsym",
                     symbolic.identity("swapped_x_component",
                                       lambda: x - eta * _prime(_rsym_loss, x * y) * x,
                                       lambda: x - eta * sp.diff(_rsym_loss(x * y), x))),),
    notes="The gradient of ℓ(xy) is computed by sympy with ℓ an undefined function, so the identity "
          "holds for every differentiable ℓ. The regimes are definitions (no content to check).",
)

# ---------------------------------------------------------------------------- def5 losses

def _l_logi(u):
    return sp.log(1 + sp.exp(-u))


def _l_sym(u):
    return (sp.log(1 + sp.exp(-u)) + sp.log(1 + sp.exp(u))) / 2


def _l_rsym_def(u):
    return (_l_logi(-2 * u) + _l_logi(2 * u)) / 2


def _l_sqrt(u):
    return SQRT.l.subs(S, u)  # the catalogue's ℓ_sqrt = sqrt(1 + u²)


def _c_beta(b, exponent_shift=0):
    return (1 / (b + 1)) * (b / (b + 1)) ** (b + exponent_shift)


def _r_beta(b):
    return (b + 1) / b


DEF5_LOGI = Claim(
    id="ahn2023.def5.logi",
    source=PAPER.at("§1.2"),
    title="Logistic loss",
    statement=r"\ell_{logi}(z)=\log(1+e^{-z}),\ \ell_{logi}'(z)=-1/(1+e^{z})",
    status="theorem", expect="proved",
    checks=(symbolic.identity("derivative", lambda: sp.diff(_l_logi(s), s),
                              lambda: -1 / (1 + sp.exp(s))),),
    planted=(Planted("p3", "ℓ_logi'(z) = 1/(1 + e^{−z}) (sign and argument wrong)",
                     symbolic.identity("derivative", lambda: sp.diff(_l_logi(s), s),
                                       lambda: 1 / (1 + sp.exp(-s)))),),
)

DEF5_SYM = Claim(
    id="ahn2023.def5.sym",
    source=PAPER.at("§3, footnote 2"),
    title="Symmetrised logistic loss",
    statement=r"\ell_{sym}(s)=\tfrac12\log(1+e^{-s})+\tfrac12\log(1+e^{s});\ "
              r"\ell_{sym}'=\tfrac12\tanh(s/2),\ \ell_{sym}''(0)=1/4",
    status="theorem", expect="proved",
    checks=(
        symbolic.identity("derivative", lambda: sp.diff(_l_sym(s), s), lambda: sp.tanh(s / 2) / 2),
        symbolic.identity("curvature_at_0", lambda: sp.diff(_l_sym(s), s, 2).subs(s, 0),
                          sp.Rational(1, 4),
                          why="ℓ_sym is not normalised as (A1) requires"),
    ),
    planted=(Planted("p4", "ℓ_sym''(0) = 1 (i.e. ℓ_sym is normalised)",
                     symbolic.identity("curvature_at_0", lambda: sp.diff(_l_sym(s), s, 2).subs(s, 0),
                                       1)),),
)

DEF5_RSYM = Claim(
    id="ahn2023.def5.rsym",
    source=PAPER.at("App. C, Example 1"),
    title="Rescaled symmetrised logistic loss",
    statement=r"\ell_{rsym}(s)=\tfrac12\ell_{logi}(-2s)+\tfrac12\ell_{logi}(2s)=\ell_{sym}(2s)"
              r"=\log(2\cosh s),\ \ell_{rsym}'=\tanh",
    status="theorem", expect="proved",
    checks=(
        # both sides are logs of positive reals; compare exp(2·side) (log is injective there)
        symbolic.identity("closed_form", lambda: sp.exp(2 * _l_rsym_def(s)),
                          lambda: sp.exp(2 * sp.log(2 * sp.cosh(s)))),
        symbolic.identity("is_sym_at_2s", lambda: _l_rsym_def(s), lambda: _l_sym(2 * s)),
        symbolic.identity("derivative_tanh", lambda: sp.diff(_l_rsym_def(s), s), lambda: sp.tanh(s)),
    ),
    planted=(Planted("p1", "ℓ_rsym' = tanh(2s)",
                     symbolic.identity("derivative_tanh", lambda: sp.diff(_l_rsym_def(s), s),
                                       lambda: sp.tanh(2 * s))),),
)

DEF5_SQRT = Claim(
    id="ahn2023.def5.sqrt",
    source=PAPER.at("App. C, Example 1"),
    title="Square-root loss",
    statement=r"\ell_{sqrt}(s)=\sqrt{1+s^2},\ \ell_{sqrt}'(s)=s/\sqrt{1+s^2}",
    status="theorem", expect="proved",
    checks=(symbolic.identity("derivative", lambda: sp.diff(_l_sqrt(s), s),
                              lambda: s / sp.sqrt(1 + s**2)),),
    planted=(Planted("p5", "ℓ_sqrt'(s) = s/(1 + s²)",
                     symbolic.identity("derivative", lambda: sp.diff(_l_sqrt(s), s),
                                       lambda: s / (1 + s**2))),),
)


def _hub_pieces_c1(outer_const):
    """Huber: value and slope of the pieces s²/2 and s − outer_const agree at s = 1."""
    inner, outer = s**2 / 2, s - outer_const
    return (sp.Matrix([inner.subs(s, 1) - outer.subs(s, 1),
                       sp.diff(inner, s).subs(s, 1) - sp.diff(outer, s).subs(s, 1)]).norm())


_pos, _neg = sp.Symbol("s", positive=True), sp.Symbol("s", negative=True)


def _hub_def(v):
    return sp.Piecewise((v**2 / 2, sp.Abs(v) <= 1), (sp.Abs(v) - sp.Rational(1, 2), True))


DEF5_HUB = Claim(
    id="ahn2023.def5.hub",
    source=PAPER.at("App. C, Example 1"),
    title="Huber loss",
    statement=r"\ell_{Hub}(s)=s^2/2\ (|s|\le1),\ |s|-1/2\ (|s|>1);\ \ell_{Hub}'=s\text{ on }[-1,1],"
              r"\ \operatorname{sgn}s\text{ outside}",
    status="theorem", expect="proved",
    checks=(
        symbolic.identity("pieces_join_C1_at_1", lambda: _hub_pieces_c1(sp.Rational(1, 2)), 0),
        # ℓ' on the whole line: each piece on the interior of its region, the junctions at ±1 above
        # (and at −1 by evenness: the definition depends on |s| only)
        symbolic.identity("inner_piece_derivative", lambda: sp.diff(s**2 / 2, s), lambda: s,
                          why="|s| < 1: ℓ_Hub' = s"),
        symbolic.identity("outer_piece_derivative_positive",
                          lambda: sp.diff(sp.Abs(_pos) - sp.Rational(1, 2), _pos), 1, why="s > 1: ℓ_Hub' = 1 = sgn s"),
        symbolic.identity("outer_piece_derivative_negative",
                          lambda: sp.diff(sp.Abs(_neg) - sp.Rational(1, 2), _neg), -1, why="s < −1: ℓ_Hub' = −1 = sgn s"),
        symbolic.identity("even", lambda: _hub_def(-s), lambda: _hub_def(s)),
        symbolic.identity("derivative_matches_definition", lambda: sp.diff(
            sp.Piecewise((s**2 / 2, sp.Abs(s) <= 1), (sp.Abs(s) - sp.Rational(1, 2), True)), s).subs(s, 3),
            1),
    ),
    notes="Proved on the whole line: the derivative of each piece on the open region where it applies "
          "(|s| < 1; s > 1 and s < −1 with |s| = ±s), and at the junctions s = ±1 the values and the "
          "one-sided slopes agree (pieces_join_C1_at_1, evenness), so ℓ_Hub ∈ C¹ with the stated ℓ'.",
    planted=(Planted("p6", "outer piece |s| − 1 (value jumps at |s| = 1)",
                     symbolic.identity("pieces_join_C1_at_1", lambda: _hub_pieces_c1(1), 0)),),
)


def _beta_continuity(shift=0):
    b = beta
    c, r = _c_beta(b, shift), _r_beta(b)
    return sp.powsimp(sp.expand_power_base(r * (1 - c * r**b) - 1, force=True), force=True)


def _beta_c1(shift=0):
    b = beta
    c, r = _c_beta(b, shift), _r_beta(b)
    return sp.powsimp(sp.expand_power_base(1 - (b + 1) * c * r**b, force=True), force=True)


DEF5_BETA = Claim(
    id="ahn2023.def5.beta",
    source=PAPER.at("App. C, Example 1"),
    title="Higher-order losses ℓ_β",
    statement=r"c_\beta=\tfrac{1}{\beta+1}\big(\tfrac{\beta}{\beta+1}\big)^\beta,\ r_\beta=\tfrac{\beta+1}{\beta};"
              r"\ \ell_\beta'(s)=s(1-c_\beta|s|^\beta)1\{s^2<r_\beta^2\}+\operatorname{sgn}(s)1\{s^2\ge r_\beta^2\};"
              r"\ r_\beta(1-c_\beta r_\beta^\beta)=1,\ 1-(\beta+1)c_\beta r_\beta^\beta=0",
    hypotheses=(r"\beta>1",),
    status="theorem", expect="proved",
    checks=(
        symbolic.identity("continuity_at_r_beta", _beta_continuity, 0, domain={"beta": (1.01, 20)}),
        symbolic.identity("C1_at_r_beta", _beta_c1, 0, domain={"beta": (1.01, 20)}),
        symbolic.identity("curvature_at_0", lambda: sp.limit(
            sp.diff(z * (1 - _c_beta(beta) * z**beta), z), z, 0, "+"), 1),
        symbolic.exact_rational("c2_r2", lambda: (
            (_c_beta(sp.Integer(2)), _r_beta(sp.Integer(2))) == (sp.Rational(4, 27), sp.Rational(3, 2)),
            {"c_2": str(_c_beta(sp.Integer(2))), "r_2": str(_r_beta(sp.Integer(2)))}),
            why="c_2 = 4/27 and r_2 = 3/2"),
    ),
    planted=(Planted("p2", "c_β = (1/(β+1))(β/(β+1))^{β+1}: the continuity identity fails",
                     symbolic.identity("continuity_at_r_beta", lambda: _beta_continuity(1), 0,
                                       domain={"beta": (1.01, 20)})),),
    notes="With β symbolic (positive), c_β r_β^β = 1/(β+1) after power simplification; the two "
          "identities make ℓ_β' continuous with ℓ_β'' = 0 on both sides of r_β, so ℓ_β ∈ C².",
)

# ---------------------------------------------------------------------------- def6 assumptions

_s_values = st.one_of(st.floats(-50, 50, allow_nan=False), st.floats(-1e-3, 1e-3, allow_nan=False))


def _a1_holds(args, lipschitz=1):
    loss, sv = args
    with mpmath.workdps(40):
        sv = _mp(sv)
        d, dm, d2 = loss.dloss_mp(sv), loss.dloss_mp(-sv), loss.d2loss_mp(sv)
        ok = d2 >= 0 and abs(d) <= lipschitz and d == -dm and (sv == 0 or mpmath.sign(d) == mpmath.sign(sv))
        return bool(ok), {"loss": str(loss), "d": mpmath.nstr(d, 10), "d2": mpmath.nstr(d2, 10),
                          "abs_d": float(abs(d))}


def _witness_margin(key: str, bound: float, what: str):
    """Margin of a forall refutation whose witness records ``key``: how far it exceeds ``bound``."""
    def margin(data):
        if key not in data:
            return None
        v = float(data[key])
        return v - bound, f"at the shrunk witness {what} = {v:.6g} > {bound}"
    return margin


DEF6_A1 = Claim(
    id="ahn2023.def6.a1",
    source=PAPER.at("§2.1, assumption (A1)"),
    title="(A1): convex, even, 1-Lipschitz, C² near 0, ℓ''(0) = 1 — the catalogue satisfies it",
    statement=r"\ell\text{ convex, even},\ |\ell'|\le1,\ \ell\in C^2\text{ near }0,\ \ell''(0)=1;"
              r"\ \Rightarrow\ \ell'\text{ odd, non-decreasing},\ \operatorname{sgn}\ell'(s)=\operatorname{sgn}s",
    status="theorem", expect="supported",
    checks=(
        symbolic.all_of("curvature_at_0", (
            symbolic.identity("rsym", lambda: sp.diff(sp.log(2 * sp.cosh(s)), s, 2).subs(s, 0), 1),
            symbolic.identity("sqrt", lambda: sp.diff(_l_sqrt(s), s, 2).subs(s, 0), 1),
            symbolic.identity("beta", lambda: sp.limit(
                sp.diff(z * (1 - _c_beta(beta) * z**beta), z), z, 0, "+"), 1),
        )),
        sampling.forall("catalogue_convex_odd_lipschitz", st.tuples(losses(), _s_values), _a1_holds,
                        examples=(150, 1500),
                        describe="ℓ'' >= 0, |ℓ'| <= 1, ℓ' odd, sgn ℓ' = sgn s for the catalogue losses"),
    ),
    planted=(Planted("p1", "ℓ_sym satisfies (A1) (it has ℓ_sym''(0) = 1/4)",
                     symbolic.identity("sym_curvature_at_0",
                                       lambda: sp.diff(_l_sym(s), s, 2).subs(s, 0), 1)),
             near_miss("p2", "near miss: the catalogue is 0.97-Lipschitz (|ℓ'| <= 0.97)",
                       sampling.forall("lipschitz_0_97", st.tuples(losses(), _s_values),
                                       lambda a_: _a1_holds(a_, lipschitz=0.97), examples=(150, 1500)),
                       margin=_witness_margin("abs_d", 0.97, "|ℓ'(s)|"))),
    notes="Definition; checked by verifying it on the catalogue losses (ℓ_rsym, ℓ_sqrt, ℓ_Hub, ℓ_β).",
)


def _a2_consequence(args, power=2, factor=1):
    loss, sv = args
    with mpmath.workdps(40):
        sv = _mp(sv)
        d = loss.dloss_mp(sv)
        ok = 0 <= d * sv <= factor * abs(sv) ** power
        return bool(ok), {"loss": str(loss), "l'(s)s": mpmath.nstr(d * sv, 10),
                          "ratio_to_s2": float(d * sv / sv ** 2) if sv != 0 else 0.0}


def _abs_d_le_s2(args):
    loss, sv = args
    with mpmath.workdps(40):
        sv = _mp(sv)
        return bool(abs(loss.dloss_mp(sv)) <= sv * sv), {"loss": str(loss)}


DEF6_A2 = Claim(
    id="ahn2023.def6.a2",
    source=PAPER.at("§2.1, assumption (A2)"),
    title="(A2) and its consequence 0 ≤ ℓ'(s)s ≤ s²",
    statement=r"\exists c>0:\ \ell'(s)/s\le 1-c|s|^\beta 1\{|s|\le c\}\ \forall s\ne0;"
              r"\ \Rightarrow\ 0\le\ell'(s)s\le s^2",
    status="theorem", expect="supported",
    checks=(sampling.forall("consequence_on_catalogue", st.tuples(losses(), _s_values),
                            _a2_consequence, examples=(150, 1500)),),
    planted=(Planted("p1", "(A2) gives |ℓ'(s)| ≤ s² (wrong power)",
                     sampling.forall("abs_derivative_le_s2", st.tuples(losses(), _s_values),
                                     _abs_d_le_s2, examples=(150, 1500))),
             near_miss("p2", "near miss: ℓ'(s)s <= 0.97 s² (constant 3% tighter)",
                       sampling.forall("consequence_0_97", st.tuples(losses(), _s_values),
                                       lambda a_: _a2_consequence(a_, factor=0.97), examples=(150, 1500)),
                       margin=_witness_margin("ratio_to_s2", 0.97, "ℓ'(s)s/s²"))),
)


def _ratio_le_1(args, bound=1):
    loss, sv = args
    if sv == 0:
        return sampling.SKIP  # s = 0 is outside the statement (s ≠ 0)
    with mpmath.workdps(40):
        one_minus = loss.deficit_mp(sv)
        return bool(one_minus >= 1 - bound), {"loss": str(loss), "ratio": float(1 - one_minus)}


DEF6_A2INF = Claim(
    id="ahn2023.def6.a2inf",
    source=PAPER.at("§2.1, assumption (A2) with β = ∞"),
    title="(A2) with β = +∞: ℓ'(s)/s ≤ 1",
    statement=r"\ell'(s)/s\le1\ \forall s\ne0",
    status="theorem", expect="supported",
    checks=(sampling.forall("catalogue_ratio_le_1", st.tuples(losses(), _s_values), _ratio_le_1,
                            examples=(150, 1500)),),
    planted=(Planted("p1", "(A1) alone implies (A2) with β = ∞; witness ℓ'(s) = tanh(s + 2s⁵), s = 1/2",
                     certify.constant("a1_loss_ratio_at_half", 2 * sp.tanh(sp.Rational(9, 16)), "<= 1",
                                      why="ℓ'(s) = tanh(s + 2s⁵) (convex, odd, 1-Lipschitz, ℓ''(0) = 1) at "
                                          "s = 1/2: ℓ'(1/2)/(1/2) = 2 tanh(9/16)")),
             near_miss("p2", "near miss: ℓ'(s)/s <= 0.97 on the catalogue (3% tighter than β = ∞)",
                       sampling.forall("ratio_le_0_97", st.tuples(losses(), _s_values),
                                       lambda a_: _ratio_le_1(a_, bound=0.97), examples=(150, 1500)),
                       margin=_witness_margin("ratio", 0.97, "ℓ'(s)/s"))),
)


def _a2p_margin(loss: Loss, R, sv, shrink=True):
    """1 − r(s) − c(R)|s|^β with c(R) = min{c, (c − ℓ'(c))/R^{β+1}} (fact4, valid when ℓ'' ≤ 1)."""
    c = loss.c_mp()
    cR = min(c, (c - loss.dloss_mp(c)) / _mp(R) ** (loss.beta + 1)) if shrink else c
    return loss.deficit_mp(sv) - cR * abs(_mp(sv)) ** loss.beta, cR


def a2plus_property(args, shrink=True):
    """(A2+) with the explicit c(R) of fact4 on one sampled (loss, R, s) with 0 < |s| <= R."""
    loss, R, u = args
    with mpmath.workdps(50):
        sv = _mp(R) * _mp(u)
        if sv == 0:
            return sampling.SKIP  # s = 0 is outside the statement (s ≠ 0)
        margin, cR = _a2p_margin(loss, R, sv, shrink)
        return bool(margin >= 0), {"loss": str(loss), "R": R, "s": mpmath.nstr(sv, 12),
                                   "c(R)": mpmath.nstr(cR, 10), "margin": mpmath.nstr(margin, 10)}


def _grid_sharp_cR(loss: Loss, R):
    """min of (1 − r(s))/|s|^β over a log grid of (0, R] that includes s = R: an upper bound on the
    sharp c(R) = inf_{0<|s|<=R} (1 − r(s))/|s|^β (the infimum sits at s = R for the catalogue)."""
    grid = [_mp(R) * mpmath.mpf(10) ** (-6 + mpmath.mpf(6) * i / 60) for i in range(61)]
    return min(loss.deficit_mp(sv) / sv ** loss.beta for sv in grid)


def a2plus_sharp_factor_property(args, factor=1.03):
    """Planted near miss: (A2+) holds with ``factor`` × the (grid) sharp constant c(R); false for any
    factor > 1, since the grid minimum is at least the infimum. Records the witness's local constant."""
    loss, R, u = args
    with mpmath.workdps(30):
        sv = _mp(R) * _mp(u)
        if sv == 0:
            return sampling.SKIP
        c_planted = factor * _grid_sharp_cR(loss, R)
        local = loss.deficit_mp(sv) / abs(sv) ** loss.beta
        return bool(local >= c_planted), {"loss": str(loss), "R": R, "s": mpmath.nstr(sv, 12),
                                          "c_planted": mpmath.nstr(c_planted, 10),
                                          "shortfall": float(1 - local / c_planted)}


def a2plus_sharp_margin(factor=1.03):
    """Margin of the near miss above: relative shortfall of (1 − r(s))/|s|^β below the planted constant."""
    def margin(data):
        if "shortfall" not in data:
            return None
        v = float(data["shortfall"])
        return v, (f"at the shrunk witness (1 − ℓ'(s)/s)/|s|^β is {v:.4g} (relative) below {factor}× the "
                   f"sharp c(R) (= {data['c_planted']})")
    return margin


A2P_LOSSES = st.one_of(st.sampled_from((RSYM, SQRT, beta_loss(1.5), beta_loss(2.0), beta_loss(4.0))),
                       st.floats(1.05, 20.0).map(beta_loss))
A2P_INPUTS = st.tuples(A2P_LOSSES, st.floats(0.5, 100.0), st.floats(1e-6, 1.0))

DEF6_A2P = Claim(
    id="ahn2023.def6.a2p",
    source=PAPER.at("App. C.4, assumption (A2+)"),
    title="(A2+): for every R, ℓ'(s)/s ≤ 1 − c(R)|s|^β on 0 < |s| ≤ R — the catalogue satisfies it",
    statement=r"\forall R>0\ \exists c(R)>0:\ \ell'(s)/s\le1-c(R)|s|^\beta\ (0<|s|\le R)",
    status="theorem", expect="supported",
    uses=(),  # a definition; fact4 relates (A2+) to (A2) and uses it
    checks=(sampling.forall("catalogue_with_explicit_cR", A2P_INPUTS, a2plus_property,
                            examples=(150, 1500)),),
    planted=(Planted("p1", "c(R) = c for all R (no shrinking)",
                     sampling.forall("constant_cR", A2P_INPUTS,
                                     lambda a_: a2plus_property(a_, shrink=False),
                                     examples=(150, 1500))),
             near_miss("p2", "near miss: c(R) = 1.03 × the sharp constant inf_{0<|s|<=R}(1 − r(s))/|s|^β",
                       sampling.forall("sharp_cR_times_1_03", A2P_INPUTS, a2plus_sharp_factor_property,
                                       examples=(150, 1500)),
                       margin=a2plus_sharp_margin())),
)


def _a3_property(args, factor=1.0):
    loss, sv = args
    if sv == 0:
        return sampling.SKIP  # s = 0 is outside the statement (s ≠ 0)
    # the sharp C makes the inequality tight as s -> 0 (relative margin ~ s²): raise the precision
    digits = 50 + int(2.5 * max(0.0, -math.log10(abs(sv))))
    with mpmath.workdps(digits):
        C = loss.C_mp() * factor
        lhs = loss.deficit_mp(sv)  # cancellation-free (def6 audit note)
        rhs = C * abs(_mp(sv)) ** loss.beta
        # the sharp C is attained exactly at |s| = r_β (ex1.beta_a3): equality there is decided only
        # up to the working precision, so allow a relative slack of 10^-(digits-10)
        slack = abs(rhs) * mpmath.mpf(10) ** (10 - digits)
        return bool(lhs <= rhs + slack), {"loss": str(loss), "C": mpmath.nstr(C, 10), "dps": digits,
                                  "1-r": mpmath.nstr(lhs, 10), "C|s|^beta": mpmath.nstr(rhs, 10),
                                  "lhs_over_rhs": float(lhs / rhs) if rhs != 0 else 0.0}


A3_LOSSES = st.one_of(st.sampled_from((RSYM, SQRT, beta_loss(1.5), beta_loss(2.0), beta_loss(10.0))),
                      st.floats(1.0, 20.0, exclude_min=True).map(beta_loss))

DEF6_A3 = Claim(
    id="ahn2023.def6.a3",
    source=PAPER.at("App. C.5, assumption (A3)"),
    title="(A3): ℓ'(s)/s ≥ 1 − C|s|^β — the catalogue satisfies it with its sharp C",
    statement=r"\exists C>0:\ \ell'(s)/s\ge1-C|s|^\beta\ \forall s\ne0",
    status="theorem", expect="supported",
    uses=(),  # a definition; the examples ex1.*_a3 instantiate it and use it
    checks=(sampling.forall("catalogue_sharp_C", st.tuples(A3_LOSSES, _s_values), _a3_property,
                            examples=(150, 1500)),),
    planted=(Planted("p1", "the catalogue satisfies (A3) with C/2",
                     sampling.forall("half_C", st.tuples(A3_LOSSES, _s_values),
                                     lambda a_: _a3_property(a_, 0.5), examples=(150, 1500))),
             near_miss("p2", "near miss: (A3) with 0.97·C (the sharp constant 3% too small)",
                       sampling.forall("C_0_97", st.tuples(A3_LOSSES, _s_values),
                                       lambda a_: _a3_property(a_, 0.97), examples=(150, 1500)),
                       margin=_witness_margin("lhs_over_rhs", 1.0, "(1 − ℓ'(s)/s)/(0.97·C|s|^β)"))),
    notes="1 − ℓ'(s)/s is evaluated from closed forms (ℓ_β, ℓ_sqrt) or at raised precision "
          "(tanh), never by a naive float subtraction (def6 audit note).",
)

# ---------------------------------------------------------------------------- def7

DEF7 = Claim(
    id="ahn2023.def7",
    source=PAPER.at("App. C.4, C.5"),
    title="Trajectory quantities and the exact rewriting of GD",
    statement=r"s_t=x_ty_t,\ r_t=\ell'(s_t)/s_t;\ x_{t+1}=(1-\eta r_ty_t^2)x_t,\ "
              r"y_{t+1}=(1-\eta r_tx_t^2)y_t",
    hypotheses=(r"s_t\ne0",),
    status="theorem", expect="proved",
    checks=(
        symbolic.identity("x_rewriting", lambda: _gd(g)[0], lambda: (1 - eta * _r_of(g, x * y) * y**2) * x),
        symbolic.identity("y_rewriting", lambda: _gd(g)[1], lambda: (1 - eta * _r_of(g, x * y) * x**2) * y),
    ),
    planted=(Planted("p1", "x_{t+1} = (1 − η r_t x_t²) x_t (ℓ' = tanh)",
                     symbolic.identity("x_rewriting", lambda: _gd(sp.tanh)[0],
                                       lambda: (1 - eta * _r_of(sp.tanh, x * y) * x**2) * x)),),
    notes="δ_t, ρ_t, t̄, t₀ are definitions; s_c for the operational t₀ is fixed by the dynamics claims.",
)
