"""ahn2023, Section 2 and Appendix C: the single-neuron model f(x, y) = ℓ(xy), its losses and
assumptions, and the exact one-step facts about gradient descent on it.

Definitions def4–def7, fact1 (basic properties), eq. (8) (Hessian), eq. (4) (exact core),
Lemma 4, eq. (13), Lemma 8 with eqs. (16) and (20), and fact3 (scaling, frozen start, genericity).
The Example-1 inequalities, Lemma 5, eq. (9) and (A2) vs (A2+) live in ``appC_losses.py``.
Ids and statements follow the claim spec (§1, §2, §7).
"""
from __future__ import annotations

import functools
import math

import mpmath
import sympy as sp
from hypothesis import strategies as st

from claims.ahn2023 import PAPER
from claims.ahn2023._sec2_common import HUBER, RSYM, SQRT, beta_loss, gd_run, losses
from verify import Claim, Planted, Status, certify, sampling, symbolic
from verify.claim import check, outcome
from verify.loss import S, Loss
from verify.nearmiss import near_miss

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

def _r_of(dl, u):
    return dl(u) / u


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

# ============================================================================ eq. (8)

def _grad(loss_of):
    return sp.Matrix([sp.diff(loss_of(x * y), x), sp.diff(loss_of(x * y), y)])


def _grad_formula(loss_of):
    return _prime(loss_of, x * y) * sp.Matrix([y, x])


def _hess(loss_of):
    return sp.hessian(loss_of(x * y), (x, y))


def _hess_formula(loss_of, off=1, with_prime=True):
    v = sp.Matrix([[y, x]])
    return _second(loss_of, x * y) * (v.T * v) + (off * _prime(loss_of, x * y) if with_prime else 0) \
        * sp.Matrix([[0, 1], [1, 0]])


EQ8 = Claim(
    id="ahn2023.eq8",
    source=PAPER.at("eq. (8), App. C"),
    title="Gradient and Hessian of f = ℓ(xy)",
    statement=r"\nabla f=\ell'(xy)(y,x)^T,\ \nabla^2f=\ell''(xy)(y,x)^T(y,x)+\ell'(xy)"
              r"\begin{pmatrix}0&1\\1&0\end{pmatrix}",
    status="theorem", expect="proved",
    uses=("ahn2023.def4",),
    checks=(
        symbolic.all_of("gradient", [symbolic.identity(f"grad_{i}", (lambda i=i: _grad(_undef_loss)[i]),
                                                       (lambda i=i: _grad_formula(_undef_loss)[i]))
                                     for i in range(2)]),
        symbolic.all_of("hessian", [symbolic.identity(f"hess_{i}{j}",
                                                      (lambda i=i, j=j: _hess(_undef_loss)[i, j]),
                                                      (lambda i=i, j=j: _hess_formula(_undef_loss)[i, j]))
                                    for i in range(2) for j in range(2)]),
    ),
    planted=(
        Planted("p1", "off-diagonal term 2ℓ'(xy) (witness ℓ = ℓ_rsym)",
                symbolic.identity("hess_01", lambda: _hess(_rsym_loss)[0, 1],
                                  lambda: _hess_formula(_rsym_loss, off=2)[0, 1])),
        Planted("p2", "the ℓ' term dropped (witness ℓ = ℓ_rsym)",
                symbolic.identity("hess_01", lambda: _hess(_rsym_loss)[0, 1],
                                  lambda: _hess_formula(_rsym_loss, with_prime=False)[0, 1])),
    ),
    notes="The positive checks use an undefined sympy Function ℓ; planted errors are refuted on the "
          "concrete ℓ_rsym, since an undefined function has no values to witness a failure.",
)

# ============================================================================ fact1

a0, a1, a2, a3 = sp.symbols("a0:4", real=True)


def _jet_loss(u):
    """A generic loss through its 3-jet at 0 plus an arbitrary remainder u⁴h(u)."""
    return a0 + a1 * u + a2 * u**2 / 2 + a3 * u**3 / 6 + u**4 * h(u)


def _hess_on_y_axis():
    return _hess(_jet_loss).subs(x, 0).doit()


def _lambda_max_y_axis():
    H = _hess_on_y_axis().subs({a1: 0, a2: 1})
    return sp.Max(*H.eigenvals().keys())


def _argmin_property(args):
    loss, xv, yv = args
    with mpmath.workdps(50):
        e = loss.excess_mp(_mp(xv) * _mp(yv))
        on_axes = xv == 0 or yv == 0
        ok = (e == 0) if on_axes else (e > 0)
        return bool(ok), {"loss": str(loss), "f-min": mpmath.nstr(e, 10)}


def _diagonal_minimiser(args):
    loss, xv = args
    with mpmath.workdps(50):
        e = loss.excess_mp(_mp(xv) ** 2)
        return bool(e == 0), {"loss": str(loss), "f(x,x)-min": mpmath.nstr(e, 10)}


def _band_minimiser(args):
    """Planted near miss: every point of the band |xy| <= 10^-24 around the axes minimises f. Records
    the excess f − min in units of its quadratic prediction ℓ''(0)(xy)²/2 (positive off the axes)."""
    loss, xv, yv = args
    with mpmath.workdps(50):
        sv = _mp(xv) * _mp(yv)
        e = loss.excess_mp(sv)
        return bool(e == 0), {"loss": str(loss), "xy": mpmath.nstr(sv, 6), "f-min": mpmath.nstr(e, 10),
                              "excess_over_quadratic": float(e / (sv * sv / 2)) if sv != 0 else 0.0}


def _band_margin(data):
    if not data.get("excess_over_quadratic"):
        return None
    v = float(data["excess_over_quadratic"])
    return v, (f"at the shrunk witness xy = {data['xy']}: f − min f = {data['f-min']} > 0, "
               f"{v:.4g} × (xy)²/2 (50-digit arithmetic)")


_coords = st.one_of(st.just(0.0), st.floats(-5, 5, allow_nan=False), st.floats(-1e-8, 1e-8))

FACT1_AXES = Claim(
    id="ahn2023.fact1.axes",
    source=PAPER.at("§2.1"),
    title="The minimisers of f = ℓ(xy) are the two axes",
    statement=r"\arg\min f=\{xy=0\}",
    hypotheses=("0 is the unique minimiser of ℓ (true under (A1))",),
    status="theorem", expect="supported",
    uses=("ahn2023.lem5.min", "ahn2023.def6.a1"),
    checks=(sampling.forall("argmin_is_axes", st.tuples(losses(), _coords, _coords), _argmin_property,
                            examples=(150, 1500)),),
    planted=(Planted("p1", "the minimisers are the diagonals y = ±x",
                     sampling.forall("diagonal_is_argmin",
                                     st.tuples(losses(), st.floats(1e-3, 5)), _diagonal_minimiser,
                                     examples=(50, 200))),
             near_miss("p2", "near miss: every point with |xy| <= 10^-24 is a minimiser (the axes thickened "
                       "by a band at the 50-digit resolution of the check)",
                       sampling.forall("band_is_argmin", st.tuples(losses(), st.floats(-1e-12, 1e-12),
                                                                   st.floats(-1e-12, 1e-12)),
                                       _band_minimiser, examples=(50, 200)),
                       margin=_band_margin)),
    notes="f(x, y) − min f = ℓ(xy) − ℓ(0) is evaluated at 50 digits from cancellation-free forms "
          "(e.g. log cosh s = log1p(2 sinh²(s/2))).",
)

FACT1_SHARP = Claim(
    id="ahn2023.fact1.sharp",
    source=PAPER.at("§2.2"),
    title="Sharpness on the y-axis equals y²",
    statement=r"\nabla^2f(0,y)=\operatorname{diag}(\ell''(0)y^2,0),\ \lambda_{max}=y^2",
    hypotheses=("(A1)",),
    status="theorem", expect="proved",
    uses=("ahn2023.eq8", "ahn2023.lem5.min", "ahn2023.def6.a1"),
    checks=(
        symbolic.all_of("hessian_on_y_axis", [
            symbolic.identity(f"H{i}{j}", (lambda i=i, j=j: _hess_on_y_axis()[i, j]),
                              (lambda i=i, j=j: sp.Matrix([[a2 * y**2, a1], [a1, 0]])[i, j]))
            for i in range(2) for j in range(2)]),
        symbolic.identity("lambda_max", _lambda_max_y_axis, lambda: y**2),
    ),
    planted=(Planted("p2", "λ_max(∇²f(0, y)) = 2y²",
                     symbolic.identity("lambda_max", _lambda_max_y_axis, lambda: 2 * y**2)),),
    notes="The loss is a generic 3-jet a0 + a1 u + a2 u²/2 + a3 u³/6 + u⁴h(u) with h undefined; "
          "(A1) and lem5.min set a1 = ℓ'(0) = 0 and a2 = ℓ''(0) = 1.",
)


def _sym_residuals(dl, which):
    G = _gd(dl)
    if which == "swap":
        H_ = _gd(dl, X=y, Y=x)
        return (H_[0] - G[1], H_[1] - G[0])
    if which == "flip_x":
        H_ = _gd(dl, X=-x, Y=y)
        return (H_[0] + G[0], H_[1] - G[1])
    H_ = _gd(dl, X=x, Y=-y)
    return (H_[0] - G[0], H_[1] + G[1])


FACT1_SYM = Claim(
    id="ahn2023.fact1.sym",
    source=PAPER.at("§2.1"),
    title="GD commutes with the symmetries of f for even ℓ",
    statement=r"G_\eta\circ\sigma=\sigma\circ G_\eta,\ \sigma\in\{(x,y)\mapsto(y,x),(-x,y),(x,-y)\}",
    hypotheses=("ℓ even (ℓ' odd)",),
    status="theorem", expect="proved",
    checks=tuple(symbolic.all_of(name, [symbolic.identity(f"{name}_{k}",
                                                          (lambda name=name, k=k: _sym_residuals(_odd, name)[k]), 0)
                                        for k in range(2)])
                 for name in ("swap", "flip_x", "flip_y")),
    planted=(Planted("p5", "also for a non-even loss (ℓ_logi): G_η commutes with (−x, y)",
                     symbolic.identity("flip_x_0", lambda: _sym_residuals(_logi_prime, "flip_x")[0], 0)),),
    notes="ℓ' is the generic odd function h(u) − h(−u) with h undefined.",
)


# ---- trajectories (pos, dmono)

_TRAJ_DPS = 60


def _traj_inputs(eta_lo=1e-3, eta_hi=0.99, loss_strategy=None):
    return st.tuples(loss_strategy if loss_strategy is not None else losses(),
                     st.floats(eta_lo, eta_hi), st.floats(0.1, 20.0), st.floats(-0.999, 0.999))


def _positivity_property(args, steps=40):
    """y_t > |x_t|, y_t > 0 and y_{t+1} <= y_t along GD (60 digits); None if too close to decide."""
    loss, et, y0, u = args
    with mpmath.workdps(_TRAJ_DPS):
        traj = gd_run(loss, _mp(et), _mp(u) * _mp(y0), _mp(y0), steps, M=mpmath)
        floor = mpmath.mpf(10) ** (-_TRAJ_DPS + 12)
        for t, (xt, yt) in enumerate(traj):
            gap = yt - abs(xt)
            if abs(gap) < floor * (1 + abs(yt)):
                return None
            if not (gap > 0 and yt > 0):
                return False, {"t": t, "x_t": mpmath.nstr(xt, 10), "y_t": mpmath.nstr(yt, 10),
                               "loss": str(loss)}
            if t > 0 and yt > traj[t - 1][1]:
                return False, {"t": t, "y_increased": True, "loss": str(loss)}
        return True, {"steps": steps}


def _pos_p3_inputs():
    # Huber, η in (1, 2), starts with s0 = x0 y0 > 1 (spec's witness family)
    return st.tuples(st.just(HUBER), st.floats(1.01, 1.99), st.floats(1.5, 10.0), st.floats(0.7, 0.99))


def _pos_violation(args, steps=40):
    """Planted near miss: the positivity/monotonicity of fact1.pos for η slightly above 1. On a
    violation, records its size relative to y_0 (how far the trajectory leaves the claimed region)."""
    loss, et, y0, u = args
    res = _positivity_property(args, steps)
    if res is None or res[0] is not False:
        return res
    with mpmath.workdps(_TRAJ_DPS):
        traj = gd_run(loss, _mp(et), _mp(u) * _mp(y0), _mp(y0), steps, M=mpmath)
        worst = max(max(abs(xt) - yt, -yt, (yt - traj[t - 1][1]) if t else -yt) for t, (xt, yt) in enumerate(traj))
        return False, dict(res[1], violation=float(worst / _mp(y0)))


def _pos_margin(data):
    if "violation" not in data:
        return None
    v = float(data["violation"])
    return v, (f"at the shrunk witness (loss, η, y_0, x_0/y_0) = {data.get('witness', '?')} GD leaves "
               f"{{y > |x|, y > 0, y non-increasing}} by {v:.3g}·y_0")


def _d_recursion():
    X1, Y1 = _gd(g)
    return (Y1**2 - X1**2) - (1 - eta**2 * g(x * y) ** 2) * (y**2 - x**2)


FACT1_POS = Claim(
    id="ahn2023.fact1.pos",
    source=PAPER.at("§2.2, App. C"),
    title="GD keeps y_t > |x_t| > ... and y_t non-increasing for η < 1",
    statement=r"\eta<1,\ y_0>|x_0|\Rightarrow\forall t:\ y_t>|x_t|,\ y_t>0,\ y_{t+1}\le y_t",
    hypotheses=("(A1)", r"0<\eta<1", r"y_0>|x_0|"),
    status="theorem", expect="supported",
    uses=("ahn2023.def6.a1", "ahn2023.def4"),
    checks=(
        symbolic.identity("D_recursion", _d_recursion, 0),
        sampling.forall("trajectories", _traj_inputs(), _positivity_property, examples=(60, 400),
                        kind="TRAJ", describe="y_t > |x_t|, y_t > 0, y non-increasing over 40 GD steps "
                                              "(60 digits)"),
    ),
    planted=(Planted("p3", "the same holds for η ∈ (1, 2) (Huber, s₀ > 1)",
                     sampling.forall("trajectories_eta_gt_1", _pos_p3_inputs(), _positivity_property,
                                     examples=(60, 400), kind="TRAJ")),
             near_miss("p4", "near miss: the same holds for η ≤ 1.03 (the threshold η < 1 raised by 3%)",
                       sampling.forall("trajectories_eta_le_1_03", _traj_inputs(1.0, 1.03), _pos_violation,
                                       examples=(60, 400), kind="TRAJ"),
                       margin=_pos_margin)),
)


def _dmono_property(args, steps=40):
    loss, et, y0, u = args
    with mpmath.workdps(_TRAJ_DPS):
        e = _mp(et)
        traj = gd_run(loss, e, _mp(u) * _mp(y0), _mp(y0), steps, M=mpmath)
        D = [yt * yt - xt * xt for xt, yt in traj]
        floor = mpmath.mpf(10) ** (-_TRAJ_DPS + 15)
        for t in range(steps):
            xt, yt = traj[t]
            if D[t + 1] > D[t] + floor * (1 + yt * yt):
                return False, {"t": t, "D_t": mpmath.nstr(D[t], 15), "D_t+1": mpmath.nstr(D[t + 1], 15)}
            step_drop = (e * loss.dloss_mp(xt * yt)) ** 2 * abs(D[t])
            if step_drop > floor * 1e6 * (1 + yt * yt) and not D[t + 1] < D[t]:
                return False, {"t": t, "strict_decrease_failed": True}
        return True


def _final_sharpness(args):
    """y_T² vs D_0 after GD has converged to the y-axis (float64; |x_T| tiny)."""
    loss, et, x0, y0, steps = args
    traj = gd_run(loss, et, x0, y0, steps)
    xT, yT = traj[-1]
    D0 = y0 * y0 - x0 * x0
    if abs(xT) > 1e-10:
        return None
    return yT * yT <= D0 * (1 + 1e-12), {"y_T^2": yT * yT, "D0": D0, "x_T": xT, "steps": steps,
                                         "loss": str(loss)}


def _final_sharpness_below(factor):
    """Planted: y_∞² <= factor·D0 (a bound tightened below the measured y_∞²/D0)."""
    def prop(args):
        res = _final_sharpness(args)
        if res is None:
            return None
        _, data = res
        return data["y_T^2"] <= factor * data["D0"], dict(data, ratio=data["y_T^2"] / data["D0"])
    return prop


def _final_sharpness_ge(args):
    res = _final_sharpness(args)
    if res is None:
        return None
    _, data = res
    return data["y_T^2"] >= data["D0"], data


_DMONO_WITNESS = (RSYM, 0.1, 1.0, 3.0, 3000)  # GF regime: D0 = 8 < 2/η = 20

FACT1_DMONO = Claim(
    id="ahn2023.fact1.dmono",
    source=PAPER.at("App. C (derived)"),
    title="D_t = y_t² − x_t² is non-increasing; GD never ends sharper than GF",
    statement=r"D_{t+1}=(1-\eta^2\ell'(s_t)^2)D_t\le D_t;\ y_\infty^2=D_0\prod_t(1-\eta^2\ell'(s_t)^2)"
              r"\le y_0^2-x_0^2",
    hypotheses=("(A1)", r"0<\eta<1", r"y_0>|x_0|"),
    status="derived", expect="supported",
    uses=("ahn2023.fact1.pos", "ahn2023.lem6.identity"),
    checks=(
        symbolic.identity("D_recursion", _d_recursion, 0),
        sampling.forall("D_non_increasing", _traj_inputs(), _dmono_property, examples=(60, 400),
                        kind="TRAJ", describe="D_{t+1} <= D_t, strict while ℓ'(s_t) != 0 (40 steps, "
                                              "60 digits)"),
        sampling.witness("limit_below_D0", _DMONO_WITNESS, _final_sharpness, kind="TRAJ"),
    ),
    planted=(Planted("p4", "y_∞² ≥ y₀² − x₀²",
                     sampling.witness("limit_at_least_D0", _DMONO_WITNESS, _final_sharpness_ge,
                                      kind="TRAJ")),
             near_miss("p5", "near miss: y_∞² <= 0.95(y₀² − x₀²) (ℓ_rsym, η = 0.1 from (1, 3))",
                       sampling.witness("limit_below_0_95_D0", _DMONO_WITNESS, _final_sharpness_below(0.95),
                                        kind="TRAJ"),
                       margin=lambda d: (d["ratio"] - 0.95, f"y_∞²/D0 = {d['ratio']:.5f} > 0.95")
                       if "ratio" in d else None)),
)

# ============================================================================ eq. (4)

q = sp.Symbol("q", real=True)  # q = η r_t y_t², >= 0 under (A1)

EQ4 = Claim(
    id="ahn2023.eq4",
    source=PAPER.at("eq. (4), §2.2"),
    title="Linearisation near the y-axis (exact core)",
    statement=r"x_{t+1}=(1-\eta r_ty_t^2)x_t;\ \operatorname{sgn}x_{t+1}=-\operatorname{sgn}x_t"
              r"\iff\eta r_ty_t^2>1;\ |x_{t+1}|>|x_t|\iff\eta r_ty_t^2>2",
    hypotheses=(r"x_t\ne0", r"r_t\ge0\ \text{((A1))}"),
    status="heuristic", expect="proved",
    uses=("ahn2023.def7", "ahn2023.def6.a1"),
    checks=(
        symbolic.identity("x_rewriting", lambda: _gd(g)[0], lambda: (1 - eta * _r_of(g, x * y) * y**2) * x),
        symbolic.truth("sign_flip_iff_q_gt_1", lambda: sp.solveset(1 - q < 0, q, sp.Interval(0, sp.oo))
                       == sp.Interval.open(1, sp.oo)),
        symbolic.truth("growth_iff_q_gt_2", lambda: sp.solveset(sp.Abs(1 - q) > 1, q, sp.Interval(0, sp.oo))
                       == sp.Interval.open(2, sp.oo)),
    ),
    planted=(Planted("p1", "|x| grows iff η r y² > 1",
                     symbolic.truth("growth_iff_q_gt_1",
                                    lambda: sp.solveset(sp.Abs(1 - q) > 1, q, sp.Interval(0, sp.oo))
                                    == sp.Interval.open(1, sp.oo))),),
    notes="Only the exact core is checked here; the heuristic (|x| contracts iff y² < 2/η when |s| ≪ 1) "
          "is checked through fact2.",
)

# ============================================================================ Lemma 4

def _half_ell_sq_step(loss_of, factor=sp.Rational(1, 2), step=eta):
    """x − step · d/dx [factor · ℓ(x²)]."""
    return x - step * sp.diff(factor * loss_of(x**2), x)


LEM4_INVARIANT = Claim(
    id="ahn2023.lem4.invariant",
    source=PAPER.at("Lemma 4, App. C"),
    title="The diagonals y = ±x are invariant under G_η",
    statement=r"G_\eta(\{y=x\})\subseteq\{y=x\},\ G_\eta(\{y=-x\})\subseteq\{y=-x\}",
    hypotheses=("ℓ differentiable (evenness not needed, §7 N4)",),
    status="theorem", expect="proved",
    uses=("ahn2023.def4",),
    checks=(
        symbolic.identity("diagonal", lambda: (lambda G: G[0] - G[1])(_gd(lambda u: _prime(_undef_loss, u), Y=x)), 0),
        symbolic.identity("antidiagonal", lambda: (lambda G: G[0] + G[1])(_gd(lambda u: _prime(_undef_loss, u), Y=-x)), 0),
    ),
    planted=(Planted("p3", "the line y = 2x is invariant too (ℓ = ℓ_rsym)",
                     symbolic.identity("line_2x", lambda: (lambda G: 2 * G[0] - G[1])(
                         _gd(lambda u: _prime(_rsym_loss, u), Y=2 * x)), 0)),),
    notes="Invariance holds for every differentiable ℓ (§7 N4).",
)

LEM4_REDUCTION = Claim(
    id="ahn2023.lem4.reduction",
    source=PAPER.at("Lemma 4, App. C"),
    title="On y = ±x, GD is GD with step η on x ↦ ½ℓ(x²)",
    statement=r"G_\eta(x,\pm x)_1=x-\eta\ell'(x^2)x=x-\eta\tfrac{d}{dx}\tfrac12\ell(x^2)",
    hypotheses=("ℓ even and differentiable",),
    status="theorem", expect="proved",
    uses=("ahn2023.def4",),
    checks=(
        symbolic.identity("on_diagonal", lambda: _gd(lambda u: _prime(_even_loss, u), Y=x)[0],
                          lambda: _half_ell_sq_step(_even_loss)),
        symbolic.identity("on_antidiagonal", lambda: _gd(lambda u: _prime(_even_loss, u), Y=-x)[0],
                          lambda: _half_ell_sq_step(_even_loss)),
    ),
    planted=(
        Planted("p1", "reduction to GD on x ↦ ℓ(x²) (factor 2 off; ℓ = ℓ_rsym)",
                symbolic.identity("on_diagonal", lambda: _gd(lambda u: _prime(_rsym_loss, u), Y=x)[0],
                                  lambda: _half_ell_sq_step(_rsym_loss, factor=1))),
        Planted("p2", "step 2η (ℓ = ℓ_rsym)",
                symbolic.identity("on_diagonal", lambda: _gd(lambda u: _prime(_rsym_loss, u), Y=x)[0],
                                  lambda: _half_ell_sq_step(_rsym_loss, step=2 * eta))),
    ),
    notes="ℓ is the generic even function h(u) + h(−u) with h undefined; evenness is only used on y = −x.",
)

# ============================================================================ eq. (13)


def _sqrt_envelope_residual():
    yy = sp.Symbol("Y", positive=True)
    ss = sp.sqrt((eta * yy**2 / 2) ** 2 - 1)  # the envelope (xy)² = (ηy²/2)² − 1, in the EoS region
    return eta * yy**2 / sp.sqrt(1 + ss**2) - 2


EQ13 = Claim(
    id="ahn2023.eq13",
    source=PAPER.at("eqs. (13), (18), App. C.3, C.5"),
    title="Perfect bouncing",
    statement=r"x_{t+1}=-x_t\iff\eta\ell'(s_t)y_t=2x_t\iff\eta r_ty_t^2=2\iff(2+\delta_t)r_t=2;"
              r"\ \text{for }\ell_{sqrt}:\ (xy)^2=(\eta y^2/2)^2-1",
    hypotheses=(r"x_t\ne0",),
    status="theorem", expect="proved",
    uses=("ahn2023.def7",),
    checks=(
        symbolic.identity("bounce_iff_eta_l_y_eq_2x", lambda: _gd(g)[0] + x, lambda: 2 * x - eta * g(x * y) * y),
        symbolic.identity("eta_l_y_minus_2x", lambda: eta * g(x * y) * y - 2 * x,
                          lambda: x * (eta * _r_of(g, x * y) * y**2 - 2)),
        symbolic.identity("in_delta", lambda: (eta * q * y**2 - 2).subs(y, sp.sqrt((2 + delta) / eta)),
                          lambda: (2 + delta) * q - 2),
        symbolic.identity("sqrt_envelope", _sqrt_envelope_residual, 0,
                          domain={"Y": (1.5, 5.0), "eta": (0.5, 0.9)}),
    ),
    planted=(Planted("p1", "x_{t+1} = −x_t ⇔ η r_t y_t² = 1",
                     symbolic.identity("bounce_at_q_1", lambda: ((1 - q) * x).subs(q, 1), lambda: -x)),),
    notes="Each identity turns one equivalence into a product with the non-zero factor x_t.",
)

# ============================================================================ Lemma 8, eqs. (16), (20)

LEM8_IDENTITY = Claim(
    id="ahn2023.lem8.identity",
    source=PAPER.at("Lemma 8, App. C.4"),
    title="One-step identity for y²",
    statement=r"y_{t+1}^2=y_t^2-2\eta\ell'(s_t)s_t+\eta^2\ell'(s_t)^2x_t^2",
    status="theorem", expect="proved",
    uses=("ahn2023.def7",),
    checks=(symbolic.identity("y_squared", lambda: _gd(g)[1] ** 2,
                              lambda: y**2 - 2 * eta * g(x * y) * x * y + eta**2 * g(x * y) ** 2 * x**2),),
    planted=(Planted("p3", "last term η²ℓ'(s_t)²y_t² (ℓ' = tanh)",
                     symbolic.identity("y_squared", lambda: _gd(sp.tanh)[1] ** 2,
                                       lambda: y**2 - 2 * eta * sp.tanh(x * y) * x * y
                                       + eta**2 * sp.tanh(x * y) ** 2 * y**2)),),
)

_TOL_DIGITS = 40


def _one_step(loss, et, xv, yv):
    """(x_{t+1}, y_{t+1}, s_t) at 50 digits."""
    e, X, Y = _mp(et), _mp(xv), _mp(yv)
    d = loss.dloss_mp(X * Y)
    return X - e * d * Y, Y - e * d * X, X * Y


def _ineq(lhs, rhs, scale, data):
    tol = mpmath.mpf(10) ** (-_TOL_DIGITS) * (1 + abs(scale))
    data.update(lhs=mpmath.nstr(lhs, 15), rhs=mpmath.nstr(rhs, 15), tol=mpmath.nstr(tol, 3))
    return bool(lhs >= rhs - tol), data


_states = st.tuples(losses(), st.floats(1e-3, 2.0), st.floats(-20, 20), st.floats(-20, 20))


def _lem8_main(args, coef=2):
    loss, et, xv, yv = args
    with mpmath.workdps(50):
        x1, y1, st_ = _one_step(loss, et, xv, yv)
        return _ineq(y1**2, _mp(yv) ** 2 - coef * _mp(et) * st_**2, _mp(yv) ** 2, {"loss": str(loss)})


def _ineq_margin(unit: str):
    """Margin of a refuted ``lhs >= rhs`` (``_ineq``) at the shrunk witness: rhs − lhs."""
    def margin(data):
        if "lhs" not in data or "rhs" not in data:
            return None
        lhs, rhs = float(data["lhs"]), float(data["rhs"])
        return rhs - lhs, f"at the shrunk witness {unit}: {lhs:.10g} < {rhs:.10g} (short by {rhs - lhs:.3g})"
    return margin


def _at_threshold(args, variant):
    """States with y_t² = 2/η and small s_t (planted refutations of lem8)."""
    loss, et, sv = args
    with mpmath.workdps(50):
        e = _mp(et)
        Y = mpmath.sqrt(2 / e)
        X = _mp(sv) / Y
        d = loss.dloss_mp(X * Y)
        y1 = Y - e * d * X
        rhs = 2 / e - 2 * e**2 * X**2 * Y**2 if variant == "p1" else 2 / e
        return _ineq(y1**2, rhs, 2 / e, {"loss": str(loss)})


_threshold_states = st.tuples(losses(), st.floats(0.01, 0.5), st.floats(1e-4, 0.1))


def _crossing_run(loss, et, steps_max=200000):
    """Float64 EoS run from the normalised start x̃ = 3/4, ỹ = 5/4, m = 5/2 up to the crossing t̄."""
    k = math.sqrt(2.5 / et)
    xv, yv = 0.75 * k, 1.25 * k
    for t in range(steps_max):
        d = loss.dloss_scalar(xv * yv)
        x1, y1 = xv - et * d * yv, yv - et * d * xv
        if y1 * y1 < 2 / et:
            return {"t_bar": t + 1, "rho": 2 - et * y1 * y1, "bound": 2 * et**2 * (xv * yv) ** 2}
        xv, yv = x1, y1
    return None


@check("jump_at_crossing", kind="TRAJ")
def _lem8_traj(ctx):
    rows = []
    cases = [(RSYM, 0.1), (SQRT, 0.1), (beta_loss(4.0), 0.1), (RSYM, 0.05)]
    if ctx.full:
        cases += [(SQRT, 0.02), (beta_loss(1.5), 0.05), (HUBER, 0.05)]
    for loss, et in cases:
        r = _crossing_run(loss, et)
        if r is None:
            return outcome(Status.INCONCLUSIVE, f"{loss}, η={et}: no crossing within the step budget")
        r.update(loss=str(loss), eta=et, holds=bool(r["rho"] <= r["bound"] * (1 + 1e-9) + 1e-15))
        rows.append(r)
    bad = [r for r in rows if not r["holds"]]
    if bad:
        return outcome(Status.REFUTED, f"ρ_t̄ > 2η² s²_(t̄−1) for {bad[0]['loss']}, η={bad[0]['eta']}",
                       runs=rows)
    return outcome(Status.SUPPORTED, f"ρ_t̄ <= 2η² s_(t̄−1)² at the crossing in {len(rows)} float64 runs "
                   "(x̃=3/4, ỹ=5/4, m=5/2)", runs=rows)


_EOS_CASES_QUICK = (("rsym", 2.0, 0.1), ("sqrt", 2.0, 0.1), ("beta", 4.0, 0.1), ("rsym", 2.0, 0.05),
                    ("hub", math.inf, 0.1))
_EOS_CASES_FULL = _EOS_CASES_QUICK + (("sqrt", 2.0, 0.02), ("beta", 1.5, 0.05), ("beta", 10.0, 0.05))
_STEP_TOL = 1e-12


@functools.lru_cache(maxsize=None)
def _eos_trajectory(key: str, b: float, et: float, after: int = 2000):
    """Float64 GD from the normalised EoS start x̃ = 3/4, ỹ = 5/4, m = 5/2, run until ``after``
    steps past the crossing t̄ (first y_t² < 2/η). Returns (iterates, t̄ or None)."""
    loss = {"rsym": RSYM, "sqrt": SQRT, "hub": HUBER}.get(key) or beta_loss(b)
    k = math.sqrt(2.5 / et)
    xv, yv = 0.75 * k, 1.25 * k
    traj, t_bar = [(xv, yv)], None
    for t in range(400000):
        d = loss.dloss_scalar(xv * yv)
        xv, yv = xv - et * d * yv, yv - et * d * xv
        traj.append((xv, yv))
        if t_bar is None and yv * yv < 2 / et:
            t_bar = t + 1
        if t_bar is not None and t + 1 >= t_bar + after:
            break
    return tuple(traj), t_bar


def _per_step_check(name: str, form: str):
    """A one-step inequality at every step of EoS trajectories (float64, tolerance 1e-12·scale).

    form: "lem8" y_{t+1}² >= y_t² − 2ηs_t² (all t); "eq20" δ_{t+1} >= δ_t − 2η²s_t² (t < t̄);
    "eq16" ρ_{t+1} <= ρ_t + 2η²x_t²y_t² and <= ρ_t + 4ηx_t² (t >= t̄, where y_t² <= 2/η)."""

    def run(ctx):
        rows, steps = [], 0
        for key, b, et in ctx.pick(_EOS_CASES_QUICK, _EOS_CASES_FULL):
            traj, t_bar = _eos_trajectory(key, b, et)
            label = key if key != "beta" else f"beta({b:g})"
            if t_bar is None:
                return outcome(Status.INCONCLUSIVE, f"{label}, η={et}: no crossing within the step budget")
            worst = math.inf
            rng_ = {"lem8": range(len(traj) - 1), "eq20": range(t_bar), "eq16": range(t_bar, len(traj) - 1)}[form]
            for t in rng_:
                (xv, yv), (x1, y1) = traj[t], traj[t + 1]
                s2 = (xv * yv) ** 2
                if form == "lem8":
                    margin = (y1 * y1 - (yv * yv - 2 * et * s2)) / (1 + yv * yv)
                elif form == "eq20":
                    margin = (et * y1 * y1 - 2) - (et * yv * yv - 2 - 2 * et**2 * s2)
                else:
                    rho, rho1 = 2 - et * yv * yv, 2 - et * y1 * y1
                    margin = min(rho + 2 * et**2 * xv * xv * yv * yv - rho1, rho + 4 * et * xv * xv - rho1)
                worst = min(worst, margin)
                steps += 1
            rows.append({"loss": label, "eta": et, "t_bar": t_bar, "steps_checked": len(rng_),
                         "min_margin": worst})
            if worst < -_STEP_TOL:
                return outcome(Status.REFUTED, f"{label}, η={et}: per-step inequality fails "
                               f"(margin {worst:.3g} < −{_STEP_TOL:g})", runs=rows, tolerance=_STEP_TOL)
        return outcome(Status.SUPPORTED, f"holds at all {steps} checked steps of {len(rows)} float64 EoS "
                       f"runs (x̃=3/4, ỹ=5/4, m=5/2; tolerance {_STEP_TOL:g})", runs=rows,
                       tolerance=_STEP_TOL)

    return check(name, kind="TRAJ")(run)


LEM8 = Claim(
    id="ahn2023.lem8",
    source=PAPER.at("Lemma 8, App. C.4"),
    title="Size of the jump across 2/η",
    statement=r"y_{t+1}^2\ge y_t^2-2\eta s_t^2;\ y_t^2\ge2/\eta\Rightarrow\rho_{t+1}\le2\eta^2s_t^2",
    hypotheses=(r"0\le\ell'(s)s\le s^2\ \text{((A1)+(A2))}",),
    status="theorem", expect="supported",
    uses=("ahn2023.def6.a2", "ahn2023.def7", "ahn2023.lem8.identity"),
    checks=(
        sampling.forall("one_step_bound", _states, _lem8_main, examples=(200, 2000),
                        describe="y_{t+1}² >= y_t² − 2η s_t² (50 digits)"),
        _lem8_traj,
        _per_step_check("every_step_of_eos_runs", "lem8"),
    ),
    planted=(
        Planted("p1", "y_{t+1}² ≥ 2/η − 2η² s_t² at y_t² = 2/η",
                sampling.forall("threshold_eta_sq", _threshold_states, lambda a_: _at_threshold(a_, "p1"),
                                examples=(50, 300))),
        Planted("p2", "y_{t+1}² ≥ 2/η (no jump)",
                sampling.forall("no_jump", _threshold_states, lambda a_: _at_threshold(a_, "p2"),
                                examples=(50, 300))),
        near_miss("p3", "near miss: y_{t+1}² ≥ y_t² − 1.94η s_t² (the constant 2 tightened by 3%)",
                  sampling.forall("one_step_bound_1_94", _states, lambda a_: _lem8_main(a_, 1.94),
                                  examples=(200, 2000)), margin=_ineq_margin("y_{t+1}² vs y_t² − 1.94ηs_t²")),
    ),
    notes="Statement reconstructed (§7 F12); the text's 'Lemma 7' in the corollary is Lemma 8 (§7 F4). "
          f"Inequalities are decided at 50 digits with tolerance 1e-{_TOL_DIGITS}·(1 + y²).",
)


def _eq16(args, variant="main"):
    loss, et, xv, u = args
    with mpmath.workdps(50):
        e = _mp(et)
        yv = _mp(u) * mpmath.sqrt(2 / e)  # y² <= 2/η
        x1, y1, _ = _one_step(loss, et, xv, yv)
        rho, rho1 = 2 - e * yv**2, 2 - e * y1**2
        X = _mp(xv)
        if variant == "near":   # planted: the first bound with 1.94 in place of 2
            return _ineq(rho + mpmath.mpf("1.94") * e**2 * X**2 * yv**2, rho1, 2, {"loss": str(loss)})
        if variant == "main":
            ok1 = _ineq(rho + 2 * e**2 * X**2 * yv**2, rho1, 2, {})[0]
            ok2, data = _ineq(rho + 4 * e * X**2, rho1, 2, {"loss": str(loss)})
            return ok1 and ok2, data
        return _ineq(rho, rho1, 2, {"loss": str(loss)})


_eq16_states = st.tuples(losses(), st.floats(1e-3, 0.99), st.floats(-5, 5), st.floats(0.0, 1.0))
_eq16_states_nonzero_x = st.tuples(losses(), st.floats(1e-2, 0.99), st.floats(0.05, 5),
                                   st.floats(0.2, 1.0))

EQ16 = Claim(
    id="ahn2023.eq16",
    source=PAPER.at("eq. (16), App. C.4"),
    title="Growth of ρ after the crossing",
    statement=r"\rho_{t+1}\le\rho_t+2\eta^2x_t^2y_t^2;\ y_t^2\le2/\eta\Rightarrow\rho_{t+1}\le\rho_t+4\eta x_t^2",
    hypotheses=(r"0\le\ell'(s)s\le s^2", r"y_t^2\le2/\eta\ \text{(second part)}"),
    status="theorem", expect="supported",
    uses=("ahn2023.def6.a2", "ahn2023.lem8"),
    checks=(sampling.forall("rho_growth", _eq16_states, _eq16, examples=(200, 2000)),
            _per_step_check("after_crossing_of_eos_runs", "eq16")),
    planted=(Planted("p1", "ρ_{t+1} ≤ ρ_t (ρ non-increasing)",
                     sampling.forall("rho_non_increasing", _eq16_states_nonzero_x,
                                     lambda a_: _eq16(a_, "p1"), examples=(50, 300))),
             near_miss("p2", "near miss: ρ_{t+1} ≤ ρ_t + 1.94η²x_t²y_t² (the constant 2 tightened by 3%)",
                       sampling.forall("rho_growth_1_94", _eq16_states, lambda a_: _eq16(a_, "near"),
                                       examples=(200, 2000)), margin=_ineq_margin("ρ_t + 1.94η²x²y² vs ρ_{t+1}"))),
)


def _eq20(args, variant="main"):
    loss, et, xv, yv = args
    with mpmath.workdps(50):
        e = _mp(et)
        x1, y1, st_ = _one_step(loss, et, xv, yv)
        d0, d1 = e * _mp(yv) ** 2 - 2, e * y1**2 - 2
        rhs = {"main": d0 - 2 * e**2 * st_**2, "near": d0 - mpmath.mpf("1.94") * e**2 * st_**2}.get(variant, d0)
        return _ineq(d1, rhs, d0, {"loss": str(loss)})


_eq20_states_nonzero = st.tuples(losses(), st.floats(1e-2, 0.99), st.floats(0.05, 5), st.floats(1, 20))

EQ20 = Claim(
    id="ahn2023.eq20",
    source=PAPER.at("eq. (20), App. C.5"),
    title="Decrease of δ",
    statement=r"\delta_{t+1}\ge\delta_t-2\eta^2s_t^2",
    hypotheses=(r"0\le\ell'(s)s\le s^2",),
    status="theorem", expect="supported",
    uses=("ahn2023.lem8",),
    checks=(sampling.forall("delta_decrease", _states, _eq20, examples=(200, 2000)),
            _per_step_check("bouncing_phase_of_eos_runs", "eq20")),
    planted=(Planted("p1", "δ_{t+1} ≥ δ_t",
                     sampling.forall("delta_non_decreasing", _eq20_states_nonzero,
                                     lambda a_: _eq20(a_, "p1"), examples=(50, 300))),
             near_miss("p2", "near miss: δ_{t+1} ≥ δ_t − 1.94η²s_t² (the constant 2 tightened by 3%)",
                       sampling.forall("delta_decrease_1_94", _states, lambda a_: _eq20(a_, "near"),
                                       examples=(200, 2000)), margin=_ineq_margin("δ_{t+1} vs δ_t − 1.94η²s_t²"))),
)

# ============================================================================ fact3


def _normalised_start():
    xt, yt = sp.sinh(a), sp.cosh(a)  # ỹ > x̃ > 0, ỹ² − x̃² = 1 (a > 0)
    k = sp.sqrt(m / eta)
    return k * xt, k * yt


FACT3_SCALE = Claim(
    id="ahn2023.fact3.scale",
    source=PAPER.at("§2.3"),
    title="Normalised starts: y₀ ≍ η^{-1/2} and y₀ − x₀ ≍ η^{-1/2}",
    statement=r"(x_0,y_0)=\sqrt{m/\eta}(\tilde x,\tilde y):\ y_0^2-x_0^2=m/\eta,\ y_0\sqrt\eta=\sqrt m\tilde y,"
              r"\ (y_0-x_0)\sqrt\eta=\sqrt m(\tilde y-\tilde x)>0",
    status="theorem", expect="proved",
    checks=(
        symbolic.identity("gap_of_squares", lambda: (lambda p: p[1] ** 2 - p[0] ** 2)(_normalised_start()),
                          lambda: m / eta),
        symbolic.identity("y0_scale", lambda: _normalised_start()[1] * sp.sqrt(eta), lambda: sp.sqrt(m) * sp.cosh(a)),
        symbolic.identity("distance_to_diagonal",
                          lambda: (lambda p: (p[1] - p[0]) * sp.sqrt(eta))(_normalised_start()),
                          lambda: sp.sqrt(m) * sp.exp(-a)),
    ),
    planted=(Planted("p1", "y₀ − x₀ ≍ η^{1/2} (the start approaches the diagonal)",
                     symbolic.identity("distance_to_diagonal",
                                       lambda: (lambda p: (p[1] - p[0]) / sp.sqrt(eta))(_normalised_start()),
                                       lambda: sp.sqrt(m) * sp.exp(-a))),),
    notes="x̃ = sinh a, ỹ = cosh a parametrises all normalised directions; ỹ − x̃ = e^{−a} > 0.",
)

_FROZEN_CASES = ((RSYM, "1/2", "1/10"), (SQRT, "1/2", "1/10"), (beta_loss(2.0), "1", "1/5"),
                 (RSYM, "1", "3/10"))
_FROZEN_DPS = 60


def _phi(loss, dl_, et, u):
    """Φ(u) = u − η ℓ'((2 + δ)u/(η(1 − u²))); a root gives x₁ = y₀Φ(u) = 0."""
    return u - et * loss.dloss_mp((2 + dl_) * u / (et * (1 - u * u)))


def frozen_start(loss, dlt: str, et_: str, dps: int = _FROZEN_DPS):
    """Bracket the root u of Φ at ``dps`` digits (bisection on a verified sign change) and run one
    GD step from the normalised start with m = 2 + δ. Returns a dict of numbers."""
    with mpmath.workdps(dps):
        dl_, et = mpmath.mpf(sp.Rational(dlt).p) / sp.Rational(dlt).q, \
            mpmath.mpf(sp.Rational(et_).p) / sp.Rational(et_).q
        lo, hi = et * mpmath.mpf(10) ** -6, et
        if not (_phi(loss, dl_, et, lo) < 0 <= _phi(loss, dl_, et, hi)):
            return {"bracket_ok": False}
        for _ in range(int(dps * 3.4) + 10):
            mid = (lo + hi) / 2
            if _phi(loss, dl_, et, mid) < 0:
                lo = mid
            else:
                hi = mid
        u = hi
        k = mpmath.sqrt((2 + dl_) / et)
        x0, y0 = k * u / mpmath.sqrt(1 - u * u), k / mpmath.sqrt(1 - u * u)
        d = loss.dloss_mp(x0 * y0)
        x1, y1 = x0 - et * d * y0, y0 - et * d * x0
        x2 = x1 - et * loss.dloss_mp(x1 * y1) * y1
        return {"bracket_ok": True, "u_lo": mpmath.nstr(lo, 30), "u_hi": mpmath.nstr(hi, 30),
                "bracket_width": mpmath.nstr(hi - lo, 3), "x0": float(x0), "y0": float(y0),
                "abs_x1": mpmath.nstr(abs(x1), 3), "abs_x1_over_y0": abs(x1) / y0,
                "eta_y1sq_minus_2": mpmath.nstr(et * y1 * y1 - 2, 15),
                "eta_y1sq_minus_2_float": float(et * y1 * y1 - 2), "x2_over_x1": mpmath.nstr(x2 / x1, 6)
                if x1 != 0 else "0", "premise": bool(et * et < dl_ / (2 + dl_))}


# ---- certified frozen starts: the root u* of Φ(u) = u − ηℓ'((2+δ)u/(η(1 − u²))) enclosed in arb
_u, _v = sp.Symbol("u", real=True), sp.Symbol("v", real=True)


def _frozen_point():
    """(x₀, y₀) = √((2+δ)/η)(u, 1)/√(1 − u²) and the argument A = (2+δ)u/(η(1 − u²)) of ℓ'."""
    k = sp.sqrt((2 + delta) / eta)
    return k * _u / sp.sqrt(1 - _u**2), k / sp.sqrt(1 - _u**2), (2 + delta) * _u / (eta * (1 - _u**2))


def _frozen_step_at_root():
    """One GD step with ηℓ'(x₀y₀) = u (the root equation), written with G := ℓ'(x₀y₀) = u/η."""
    x0, y0, _ = _frozen_point()
    G = _u / eta
    return x0 - eta * G * y0, y0 - eta * G * x0


_R = sp.Rational
# (name, ℓ' as a sympy expression in v (None: use the arb enclosure of ℓ_2), δ, η, bracket on which Φ
# changes sign and is certified monotone); the same cases as _FROZEN_CASES, in exact rationals
_FROZEN_ROOTS = (
    ("rsym", sp.tanh(_v), _R(1, 2), _R(1, 10), (_R(1, 20), _R(1, 10))),
    ("sqrt", _v / sp.sqrt(1 + _v**2), _R(1, 2), _R(1, 10), (_R(1, 20), _R(1, 10))),
    ("beta(2)", None, _R(1), _R(1, 5), (_R(1, 10), _R(3, 10))),
    ("rsym", sp.tanh(_v), _R(1), _R(3, 10), (_R(1, 5), _R(3, 10))),
)


def _phi_beta2(dlt, et):
    """Φ and Φ' for ℓ_2 as arb callables (ℓ_2', ℓ_2'' compiled from the catalogue's sympy Piecewise,
    rigorous across the breakpoint r_2 = 3/2, where it has no series derivative)."""
    d1, d2 = certify.loss_derivatives(beta_loss(2))
    D, E = (lambda: certify.ball(dlt)), (lambda: certify.ball(et))

    def K(U):
        return (2 + D()) * U / (E() * (1 - U * U))

    def phi(U):
        return U - E() * d1(K(U))

    def dphi(U):
        return 1 - E() * d2(K(U)) * (2 + D()) * (1 + U * U) / (E() * (1 - U * U) ** 2)

    phi.__name__ = f"Phi[beta(2), delta={dlt}, eta={et}]"
    return phi, dphi


def _frozen_root_check(name, dl, dlt, et, bracket):
    why = (f"{name}, δ = {dlt}, η = {et}: a unique root u* of Φ in {bracket[0]}..{bracket[1]} (sign change at the "
           "exact ends, Φ' > 0 certified on the bracket); u* > 0, so the start is off the y-axis")
    tag = f"root_{name}_delta_{dlt}_eta_{et}".replace("/", "_").replace("(", "").replace(")", "")
    if dl is None:
        phi, dphi = _phi_beta2(dlt, et)
        return certify.root_bound(tag, phi, bracket, "> 0", derivative=dphi, why=why)
    expr = _u - et * dl.subs(_v, (2 + dlt) * _u / (et * (1 - _u**2)))
    return certify.root_bound(tag, expr, bracket, "> 0", why=why)


def _frozen_premises():
    rows = {f"{n}, delta={d}, eta={e}": bool(e**2 < d / (2 + d)) for n, _, d, e, _ in _FROZEN_ROOTS}
    return all(rows.values()), {"eta^2 < delta/(2+delta)": rows}


def _huber_frozen_exact():
    """Huber: the root is exactly u = η (s₀ = (2+δ)/(1 − η²) > 1), so x₁ = y₀(η − η·1) = 0 exactly."""
    de, et = sp.Rational(1, 2), sp.Rational(1, 10)
    s0 = (2 + de) / (1 - et**2)
    x1 = sp.sqrt((2 + de) / et) / sp.sqrt(1 - et**2) * (et - et * (1 if s0 > 1 else s0))
    eta_y1sq = (2 + de) * (1 - et**2)
    return bool(x1 == 0 and eta_y1sq > 2), {"delta": "1/2", "eta": "1/10", "u": "1/10", "x1": str(x1),
                                           "eta*y1^2": str(eta_y1sq)}


@check("float64_from_rounded_u_stays_frozen", kind="TRAJ")
def _frozen_float_planted(ctx):
    loss, dlt, et = _FROZEN_CASES[0]
    r = frozen_start(loss, dlt, et)
    etf = float(sp.Rational(et))
    traj = gd_run(loss, etf, r["x0"], r["y0"], 3000)
    xs = [abs(p[0]) for p in traj[1:]]
    biggest = max(xs)
    t_big = xs.index(biggest) + 1
    frozen = biggest <= 1e-10
    return outcome(Status.PROVED if frozen else Status.REFUTED,
                   f"float64 GD from the rounded start: max |x_t| = {biggest:.3g} at t = {t_big} "
                   f"(the bouncing resumes)" if not frozen else "float64 run stayed frozen",
                   witness={"loss": str(loss), "delta": dlt, "eta": et, "x0": r["x0"], "y0": r["y0"]},
                   max_abs_x=biggest, t_at_max=t_big, abs_x1_float=xs[0])


FACT3_FROZEN = Claim(
    id="ahn2023.fact3.frozen",
    source=PAPER.at("§2.3 (remark after Theorem 2)"),
    title="A frozen start: without genericity the iterate sticks at (0, y₁) with y₁² > 2/η",
    statement=r"u=\eta\ell'\big((2+\delta)u/(\eta(1-u^2))\big),\ (\tilde x,\tilde y)=(u,1)/\sqrt{1-u^2}"
              r"\Rightarrow x_1=0,\ y_1^2=(2+\delta)(1-u^2)/\eta>2/\eta,\ (x_t,y_t)=(0,y_1)\ \forall t\ge1",
    hypotheses=("(A1)", r"\delta>0", r"\eta^2<\delta/(2+\delta)"),
    status="theorem", expect="proved",
    uses=("ahn2023.lem7", "ahn2023.def4"),
    checks=(
        symbolic.identity("argument_of_l_prime", lambda: _frozen_point()[0] * _frozen_point()[1],
                          lambda: _frozen_point()[2], why="x₀y₀ = (2+δ)u/(η(1 − u²))"),
        symbolic.identity("x1_vanishes_at_the_root", lambda: _frozen_step_at_root()[0], 0,
                          why="ηℓ'(x₀y₀) = u gives x₁ = x₀ − u y₀ = 0"),
        symbolic.identity("y1_squared", lambda: _frozen_step_at_root()[1] ** 2,
                          lambda: (2 + delta) * (1 - _u**2) / eta),
        symbolic.identity("jump_margin", lambda: (2 + delta) * (1 - _u**2) - 2,
                          lambda: (2 + delta) * (delta / (2 + delta) - _u**2),
                          why="ηy₁² − 2 = (2+δ)(δ/(2+δ) − u²) > 0, as u² = η²ℓ'² <= η² < δ/(2+δ) by (A1)"),
        symbolic.identity("y_axis_fixed_point", lambda: _gd(lambda u: _prime(_even_loss, u), X=0)[1] - y
                          + _gd(lambda u: _prime(_even_loss, u), X=0)[0], 0),
        symbolic.exact_rational("premise_eta_sq_lt_delta_ratio", _frozen_premises,
                                why="η² < δ/(2+δ) for every certified case"),
        *(_frozen_root_check(*case) for case in _FROZEN_ROOTS),
        symbolic.exact_rational("huber_root_is_eta", _huber_frozen_exact,
                                why="Huber, δ = 1/2, η = 1/10: u = η, x₁ = 0 and ηy₁² = 2.475 > 2"),
    ),
    planted=(Planted("p1", "the frozen start is robust: float64 GD from the rounded u stays on the y-axis",
                     _frozen_float_planted),),
    notes="The implication is exact (sympy, ℓ' arbitrary: only ηℓ'(x₀y₀) = u is used). Existence of a "
          "frozen start is certified for ℓ_rsym (δ, η) = (1/2, 1/10), (1, 3/10), ℓ_sqrt (1/2, 1/10) and "
          "ℓ_2 (1, 1/5): the root u* of Φ is enclosed in arb (unique in its bracket, Φ' > 0 "
          "certified); Huber is exact (u* = η). The 60/90-digit bisection (frozen_start) is kept for the "
          "planted float64 run, which shows the frozen start is not robust to rounding.",
)

FACT3_GENERIC = Claim(
    id="ahn2023.fact3.generic",
    source=PAPER.at("§2.3"),
    title="Genericity holds outside a null set of starts (conjecture)",
    statement=r"\text{for each }\eta,\ x_t\ne0\ \forall t\text{ for all starts outside a null set; also under "
              r"vanishing continuous noise}",
    status="conjecture", expect="unchecked",
    uses=("ahn2023.fact3.frozen",),
)
