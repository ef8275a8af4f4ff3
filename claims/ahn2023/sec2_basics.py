"""ahn2023, Section 2 and Appendix C: the exact one-step facts about gradient descent on f(x, y) = ℓ(xy).

eq. (8) (Hessian), fact1 (basic properties), eq. (4) (exact core), Lemma 4 and eq. (13). The
definitions are in ``sec2_definitions.py``, Lemma 8 with eqs. (16), (20) and fact3 in
``sec2_lemma8_fact3.py``; the Example-1 inequalities, Lemma 5, eq. (9) and (A2) vs (A2+) in
``appC_losses.py``. Ids and statements follow the claim spec (§1, §2, §7).
"""
from __future__ import annotations

import mpmath
import sympy as sp
from hypothesis import strategies as st

from claims.ahn2023 import PAPER
from claims.ahn2023._sec2_common import HUBER, RSYM, gd_run, losses
from verify import Claim, Planted, sampling, symbolic
from verify.nearmiss import near_miss
from claims.ahn2023._sec2_symbols import (
    x, y, eta, delta, g, h, _prime, _second, _gd, _undef_loss, _rsym_loss, _odd, _even_loss,
    _logi_prime, _mp, _r_of)


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
