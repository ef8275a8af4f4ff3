"""even2023 §2–§3 definitions: regression setting, loss, diagonal network, (S)GD, schedules,
effective scales α_{±,k}, α_k, tilt φ_k, the limits of Theorem 1, the gain, the constants of
Theorem 2 and the divergence threshold γ̃_max. (def6–def8 live in ``sec2_potentials``.)

Spec: ``shared/spec/even2023.md`` §1.
"""
from __future__ import annotations

from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp
from hypothesis import strategies as st

from verify import Claim, Planted, Status
from verify import sampling, symbolic
from verify.claim import Check, outcome
from verify.nearmiss import near_miss

from . import PAPER, _dln, _runs

# E1's thresholds and stepsize sweeps (claims.even2023._runs, cached per process) are shared with
# the other modules declaring this label: a parallel run keeps them on one worker
SHARED_RUNS = "even2023.E1"

# =========================================================================== def1


def _def1_check(variant: str):
    def run(ctx):
        from scipy.optimize import linprog
        rows = {}
        ok = True
        for label, p in (("E1 seed 0", _dln.e1_problem(0)), ("E1 seed 1", _dln.e1_problem(1)),
                         ("E3", _dln.e3_problem(0))):
            rank = int(np.linalg.matrix_rank(p.X))
            primal = _dln.l1_interpolator(p.X, p.y)
            # dual LP: max yᵀν s.t. ‖Xᵀν‖_∞ ≤ 1 (optimality certificate of the ℓ1 interpolator)
            n, d = p.X.shape
            res = linprog(-p.y, A_ub=np.vstack([p.X.T, -p.X.T]), b_ub=np.ones(2 * d),
                          bounds=[(None, None)] * n, method="highs")
            dual = -res.fun
            gap = abs(np.abs(primal).sum() - dual)
            l2 = np.linalg.pinv(p.X) @ p.y
            if variant == "truth":
                good = rank == p.n and gap < 1e-8 * max(1, dual) and \
                    np.max(np.abs(p.X.T @ res.x)) <= 1 + 1e-9
            elif variant == "near":   # planted: some interpolator has ‖β‖₁ <= 0.99·‖β*_ℓ1‖₁
                good = 0.99 * np.abs(primal).sum() >= dual   # the dual value bounds every β ∈ S below
            else:   # planted: X⁺y minimises ‖·‖₁ over S
                good = np.abs(l2).sum() <= np.abs(primal).sum() + 1e-9
            ok &= bool(good)
            rows[label] = {"rank": rank, "n": p.n, "l1_primal": float(np.abs(primal).sum()),
                           "dual_over_primal": float(dual / np.abs(primal).sum()),
                           "l1_dual": float(dual), "duality_gap": float(gap),
                           "l1_of_pinv_solution": float(np.abs(l2).sum())}
        what = {"truth": "rank X = n and LP duality certifies β*_ℓ1", "near": "min_S ‖β‖₁ <= 0.99‖β*_ℓ1‖₁"}.get(
            variant, "X⁺y minimises ‖·‖₁")
        return outcome(Status.SUPPORTED if ok else Status.REFUTED, f"{what}: {rows}", problems=rows)
    return Check(f"data_{variant}", run, "INT")


def _test_loss_identity():
    import sympy.stats as ss
    s = sp.Symbol("sigma", positive=True)
    e = sp.symbols("e1:3", real=True)   # β − β*
    xs = [ss.Normal(f"z{i}", 0, s) for i in range(2)]
    return sp.expand(ss.E(sp.expand((xs[0] * e[0] + xs[1] * e[1]) ** 2)) / 2 - s ** 2 / 2 * (e[0] ** 2 + e[1] ** 2))


DEF1 = Claim(
    id="even2023.def1",
    source=PAPER.at("§2"),
    title="Overparametrised regression setting, interpolation set, reference interpolators",
    statement=r"X\in\mathbb R^{n\times d},\ d>n,\ S=\{\beta: X\beta=y\}\ne\emptyset;\ \beta^*_{\ell_1}=\arg\min_S\|\beta\|_1;"
              r"\ test\ loss\ (\sigma^2/2)\|\beta-\beta^*\|_2^2",
    uses=(),
    status="theorem",
    trust="R",
    expect="supported",
    checks=(_def1_check("truth"), symbolic.identity("test_loss", _test_loss_identity, 0)),
    planted=(Planted("p1", "X⁺y is the ℓ1 interpolator", _def1_check("p1")),
             near_miss("p2", "near miss: some interpolator has ‖β‖₁ <= 0.99‖β*_ℓ1‖₁ (the LP optimum 1% too high)",
                       _def1_check("near"),
                       margin=lambda d: (min(r["dual_over_primal"] for r in d["problems"].values()) - 0.99,
                                         "the LP dual certifies min_S ‖β‖₁ >= " + ", ".join(
                                             f"{r['dual_over_primal']:.6f}" for r in d["problems"].values())
                                         + " × ‖β*_ℓ1‖₁ > 0.99") if "problems" in d else None)),
)


# =========================================================================== def2–def4

def _sym_setting(n=2, d=3):
    X = sp.Matrix(n, d, sp.symbols(f"x0:{n * d}", real=True))
    y = sp.Matrix(sp.symbols(f"y0:{n}", real=True))
    u = sp.Matrix(sp.symbols(f"u0:{d}", real=True))
    v = sp.Matrix(sp.symbols(f"v0:{d}", real=True))
    return X, y, u, v


def _sumsq(M):
    return sum(sp.expand(e) ** 2 for e in M)


def _def2(scale):
    X, y, u, v = _sym_setting()
    beta = sp.Matrix(sp.symbols("b0:3", real=True))
    n = X.shape[0]
    L = ((X * beta - y).T * (X * beta - y))[0] / (2 * n)
    grad = sp.Matrix([sp.diff(L, b) for b in beta])
    return _sumsq(grad - scale * X.T * (X * beta - y))


DEF2 = Claim(
    id="even2023.def2",
    source=PAPER.at("eq. (1)"),
    title="Square loss and its gradient (in the row space of X)",
    statement=r"L(\beta)=\tfrac1{2n}\|X\beta-y\|^2,\ \nabla L(\beta)=\tfrac1nX^\top(X\beta-y)",
    uses=(),
    status="theorem",
    trust="R",
    expect="proved",
    checks=(symbolic.identity("gradient", lambda: _def2(sp.Rational(1, 2)), 0),),
    planted=(Planted("p1", "∇L = Xᵀ(Xβ − y) (the 1/n dropped)", symbolic.identity("p1_no_1_over_n", lambda: _def2(1), 0)),),
)


def _def3(swap: bool):
    X, y, u, v = _sym_setting()
    n = X.shape[0]
    beta = u.multiply_elementwise(v)
    F = ((X * beta - y).T * (X * beta - y))[0] / (2 * n)
    g = X.T * (X * beta - y) / n
    gu = sp.Matrix([sp.diff(F, ui) for ui in u])
    return _sumsq(gu - g.multiply_elementwise(u if swap else v))


DEF3 = Claim(
    id="even2023.def3",
    source=PAPER.at("eq. (2), §2 (init printed)"),
    title="Diagonal linear network β = u ⊙ v, initialisation (√2α, 0)",
    statement=r"\nabla_uF=\nabla L(\beta)\odot v,\ \nabla_vF=\nabla L(\beta)\odot u,\ u_0=\sqrt2\alpha,\ v_0=0",
    uses=(),
    status="theorem",
    trust="R",
    expect="proved",
    checks=(symbolic.identity("chain_rule", lambda: _def3(False), 0),),
    planted=(Planted("p1", "∇_u F = ∇L ⊙ u", symbolic.identity("p1_swapped", lambda: _def3(True), 0)),),
)


def _def4(wrong: bool):
    X, y, u, v = _sym_setting()
    n = X.shape[0]
    gam = sp.Symbol("gamma", positive=True)
    beta = u.multiply_elementwise(v)
    F = ((X * beta - y).T * (X * beta - y))[0] / (2 * n)
    s = gam * X.T * (X * beta - y) / n
    u_next = u - gam * sp.Matrix([sp.diff(F, ui) for ui in u])
    claimed = u - s.multiply_elementwise(u if wrong else v)
    return _sumsq(u_next - claimed)


DEF4 = Claim(
    id="even2023.def4",
    source=PAPER.at("eq. (3)"),
    title="Mini-batch (S)GD on (u, v)",
    statement=r"u_{k+1}=u_k-s_k\odot v_k,\ v_{k+1}=v_k-s_k\odot u_k,\ s_k=\gamma_k\nabla L_{B_k}(\beta_k)",
    hypotheses=("batches uniform among b-subsets, independent over k [M]",),
    uses=("even2023.def3",),
    status="theorem",
    trust="R",
    expect="proved",
    notes="Update [R]; sampling law [M] (used: uniform b-subsets, independent over k).",
    checks=(symbolic.identity("gradient_step", lambda: _def4(False), 0),),
    planted=(Planted("p1", "u_{k+1} = u_k − s_k ⊙ u_k", symbolic.identity("p1_wrong_factor", lambda: _def4(True), 0)),),
)


# =========================================================================== def5

@lru_cache(maxsize=None)
def _schedule_runs(budget: str):
    p = _dln.e3_problem(0)
    sch = [_dln.Constant(0.4), _dln.Decaying(0.8, 50.0), _dln.AdaGradNorm(1.0),
           _dln.AdaDeltaScalar(rho=0.95, eps=1e-2), _dln.RandomIID(0.1, 0.9, seed=1), _dln.DiagonalAdaGrad(0.5)]
    steps = 300 if budget == "quick" else 1500
    return [(s.name, s.scalar, _dln.run_hp(p, s, dps=40, max_steps=steps, tol_rel=1e-30, track_fact5=True))
            for s in sch]


def _span_offset(S):
    X = _dln.e3_problem(0).X
    with mpmath.workdps(40):
        Xm = mpmath.matrix([[mpmath.mpf(float(v)) for v in row] for row in X])
        Sv = mpmath.matrix(S)
        coef = mpmath.lu_solve(Xm * Xm.T, Xm * Sv)
        return float(max(abs(v) for v in Sv - Xm.T * coef) / max(abs(v) for v in Sv))


class NearlyScalar(_dln.Schedule):
    """Coordinate-wise Γ_{k,j} = γ(1 + ε·j/(d − 1)): scalar up to a relative ε (planted near miss)."""

    scalar = False
    name = "nearly-scalar"

    def __init__(self, value: float, rel: float):
        self.value, self.rel = value, rel

    def gamma(self, k, g, gnorm2):
        import flint
        d = len(g)
        return [flint.arb(self.value) * (1 + flint.arb(self.rel) * j / (d - 1)) for j in range(d)]


@lru_cache(maxsize=None)
def _nearly_scalar_run(budget: str, rel: float):
    steps = 300 if budget == "quick" else 1500
    return _dln.run_hp(_dln.e3_problem(0), NearlyScalar(0.4, rel), dps=40, max_steps=steps, tol_rel=1e-30)


def _def5_nearly_scalar(rel: float):
    """Planted near miss: coordinate steps scalar up to a relative ``rel`` keep S_K in span(x_i) to the
    1e-28 floor the scalar schedules meet."""
    def run(ctx):
        r = _nearly_scalar_run(ctx.budget, rel)
        off = _span_offset(r.final.S)
        return outcome(Status.REFUTED if off > 1e-28 else Status.SUPPORTED,
                       f"Γ_k = 0.4(1 + {rel:g}·j/(d − 1)): relative component of S_K off span(x_i) = {off:.3e} "
                       f"(floor 1e-28)", span_offset=off, floor=1e-28, steps=r.steps, outcome_=r.outcome)
    return run


def _def5(planted: bool):
    def run(ctx):
        rows = {}
        ok = True
        for name, scalar, r in _schedule_runs(ctx.budget):
            off = _span_offset(r.final.S)
            rows[name] = {"scalar": scalar, "fact5_residual": r.fact5_residual, "span_offset": off,
                          "steps": r.steps, "outcome": r.outcome}
            if scalar:
                ok &= off < 1e-28 and r.outcome in ("converged", "stalled") and r.fact5_residual < 1e-28
        if planted:   # "coordinate-wise steps also keep Σ s_k in span(x_i)"
            off = rows["diagonal-adagrad"]["span_offset"]
            return outcome(Status.REFUTED if off > 1e-6 else Status.SUPPORTED,
                           f"diagonal AdaGrad: relative component of S_K off span(x_i) = {off:.3e}", runs=rows)
        return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                       f"scalar schedules (constant, decaying, AdaGrad-norm, AdaDelta-type, random i.i.d.) keep "
                       f"S_K in span(x_i) (off-span < 1e-28 at 40 digits): {rows}", runs=rows)
    return run


DEF5 = Claim(
    id="even2023.def5",
    source=PAPER.at("§3"),
    title="Stepsize schedules covered by Theorem 1: any scalar sequence (incl. adaptive)",
    statement=r"\gamma_k>0\ scalar:\ constant,\ decaying,\ AdaGrad-norm,\ AdaDelta-type,\ random;\ "
              r"not\ covered:\ coordinate-wise\ \Gamma_k\in\mathbb R^d",
    uses=("even2023.fact5",),
    status="theorem",
    trust="R",
    expect="supported",
    checks=(Check("scalar_schedules_keep_span", _def5(False), "TRAJ"),),
    planted=(Planted("p1", "coordinate-wise steps keep Σ s_k in span(x_i)", Check("p1_diagonal", _def5(True), "TRAJ")),
             near_miss("p2", "near miss: coordinate-wise steps scalar up to a relative 10⁻²⁶ keep Σ s_k in span(x_i) "
                       "(a few orders above the 1e-28 floor; resolution test)",
                       Check("p2_nearly_scalar", _def5_nearly_scalar(1e-26), "TRAJ"),
                       margin=lambda d: (float(np.log10(d["span_offset"] / d["floor"])),
                                         f"off-span component {d['span_offset']:.2e} vs floor {d['floor']:.0e}: "
                                         f"{np.log10(d['span_offset'] / d['floor']):.2f} orders above")
                       if "floor" in d else None)),
)


# =========================================================================== def9–def12

_ap, _am, _alpha = sp.symbols("alpha_p alpha_m alpha", positive=True)
_x = sp.Symbol("x", real=True)
_qp = -2 * _x - sp.log((1 - _x) ** 2)
_qm = 2 * _x - sp.log((1 + _x) ** 2)
_q = -sp.log((1 - _x ** 2) ** 2) / 2


DEF9 = Claim(
    id="even2023.def9",
    source=PAPER.at("§3.2"),
    title="Effective scales α_{±,k} and α_k",
    statement=r"\alpha_{\pm,k}=\alpha\odot e^{-\frac12\sum_{l<k}q_\pm(s_l)},\ \alpha_k=\sqrt{\alpha_{+,k}\alpha_{-,k}},"
              r"\ \alpha_k^2=\alpha^2e^{-\sum_{l<k}q(s_l)}",
    uses=("even2023.def8",),
    status="theorem",
    trust="R",
    expect="proved",
    notes="α_{±,k} printed (summation index misprinted, F12); α_k reconstructed [R].",
    checks=(symbolic.identity("one_step",
                              lambda: (_alpha * sp.exp(-_qp / 2)) ** 2 * (_alpha * sp.exp(-_qm / 2)) ** 2
                              - (_alpha ** 2 * sp.exp(-_q)) ** 2, 0),),
    planted=(Planted("p1", "α_k = (α_{+,k} + α_{−,k})/2",
                     symbolic.identity("p1_arithmetic_mean",
                                       lambda: ((_alpha * sp.exp(-_qp / 2) + _alpha * sp.exp(-_qm / 2)) / 2) ** 2
                                       - _alpha ** 2 * sp.exp(-_q), 0, domain={"x": (-0.9, 0.9)})),),
)

_t = _ap / _am


def _asinh_log(z):
    return sp.log(z + sp.sqrt(sp.factor(z ** 2 + 1)))


DEF10 = Claim(
    id="even2023.def10",
    source=PAPER.at("§3.2 (reconstructed)"),
    title="Tilt φ_k and potentials h_k = ψ_{α_k} − ⟨φ_k, ·⟩",
    statement=r"\phi_k=\tfrac12\operatorname{arcsinh}\frac{\alpha_{+,k}^2-\alpha_{-,k}^2}{2\alpha_k^2}=\tfrac12\ln\frac{\alpha_{+,k}}{\alpha_{-,k}}",
    uses=("even2023.def9", "even2023.def6"),
    status="theorem",
    trust="R",
    expect="proved",
    notes="Reconstructed: fact5 forces the tilt and its exact form.",
    checks=(symbolic.identity("log_form", lambda: _asinh_log((_ap ** 2 - _am ** 2) / (2 * _ap * _am)) / 2,
                              lambda: sp.log(_ap / _am) / 2),),
    planted=(Planted("p1", "φ_k := ½ arcsinh((α_+² − α_−²)/α_k²) (factor 2 dropped)",
                     symbolic.identity("p1_factor2", lambda: sp.asinh((_ap ** 2 - _am ** 2) / (_ap * _am)) / 2,
                                       lambda: sp.log(_ap / _am) / 2)),),
)


def _bt0(scale=2):
    """α_∞² sinh(scale·φ_∞) − ½(α_+² − α_−²), with α_∞² = α_+α_−, e^{2φ_∞} = α_+/α_−."""
    a2 = _ap * _am
    e_phi = sp.sqrt(_ap / _am)          # e^{φ_∞}
    sinh = (e_phi ** scale - e_phi ** -scale) / 2
    return a2 * sinh - (_ap ** 2 - _am ** 2) / 2


DEF11 = Claim(
    id="even2023.def11",
    source=PAPER.at("Theorem 1"),
    title="The limits α_{±,∞}, α_∞, β̃_0 and φ_∞",
    statement=r"\tilde\beta_0=\tfrac12(\alpha_{+,\infty}^2-\alpha_{-,\infty}^2)=\alpha_\infty^2\sinh(2\phi_\infty),\ "
              r"\nabla\psi_{\alpha_\infty}(\tilde\beta_0)=\phi_\infty",
    uses=("even2023.def9", "even2023.def10", "even2023.def6"),
    status="theorem",
    trust="R",
    expect="proved",
    notes="Computed from the log accumulators (φ_∞ never from β̃_0, whose two terms can cancel).",
    checks=(symbolic.identity("sinh_form", lambda: _bt0(2), 0),
            symbolic.identity("mirror_of_bt0",
                              lambda: _asinh_log(((_ap ** 2 - _am ** 2) / 2) / (_ap * _am)) / 2,
                              lambda: sp.log(_ap / _am) / 2)),
    planted=(Planted("p1", "β̃_0 = α_∞² sinh(φ_∞)", symbolic.identity("p1_half_angle", lambda: _bt0(1), 0)),),
)


def _gain_nonneg(s):
    return bool(_dln.q_mp(s) >= 0)


DEF12_TOL = 1e-9


@lru_cache(maxsize=None)
def _def12_reference(steps: int = 150, dps: int = 30):
    """GD on E3 written from the definitions at ``dps`` digits (no _dln code): per coordinate
    Σ_k q(s_k) with q(s) = −ln|1 − s²| (def8) and Σ_k s_k², s_k = γ ∇L(β_k); plus the float64 lanes
    (the helper every even2023 run uses) on the same problem and steps."""
    p = _dln.e3_problem(0)
    lam = float(np.linalg.eigvalsh(p.X.T @ p.X / p.n)[-1])
    gammas = (0.5 / lam, 1.5 / lam)
    lanes = _dln.run_lanes(p, gammas, max_steps=steps, tol_rel=0.0)
    rows = []
    with mpmath.workdps(dps):
        X = [[mpmath.mpf(float(x)) for x in row] for row in p.X]
        y = [mpmath.mpf(float(v)) for v in p.y]
        for i, gamma in enumerate(gammas):
            g_ = mpmath.mpf(gamma)
            u = [mpmath.sqrt(2) * mpmath.mpf(float(a)) for a in p.alpha]
            v = [mpmath.mpf(0)] * p.d
            sq, s2, smax = [mpmath.mpf(0)] * p.d, [mpmath.mpf(0)] * p.d, mpmath.mpf(0)
            for _ in range(int(lanes.steps[i])):
                beta = [a * c for a, c in zip(u, v)]
                r = [mpmath.fdot(row, beta) - yi for row, yi in zip(X, y)]
                s = [g_ * mpmath.fsum(X[m][j] * r[m] for m in range(p.n)) / p.n for j in range(p.d)]
                sq = [sq[j] - mpmath.log(abs(1 - s[j] ** 2)) for j in range(p.d)]
                s2 = [s2[j] + s[j] ** 2 for j in range(p.d)]
                smax = max(smax, max(abs(x) for x in s))
                u, v = [u[j] - s[j] * v[j] for j in range(p.d)], [v[j] - s[j] * u[j] for j in range(p.d)]
            rows.append({"gamma": gamma, "steps": int(lanes.steps[i]), "max_abs_s": float(smax),
                         "sum_q": [float(x) for x in sq], "sum_s2": [float(x) for x in s2]})
    return p, lanes, rows


def _def12_helper_tie(name: str, reference: str = "sum_q"):
    """Ties def12 to the code the catalogue uses: the float64 lanes' Gain (accumulated in
    ``_dln._lanes_kernel``) must equal Σ_k q(s_k) of an independent 30-digit GD written from the
    definitions, and ln(α²/α_K²) from the lanes' own α_{±,K} accumulators must equal the same sum
    (relative tolerance 1e-9 of ‖Gain‖_∞). ``reference="sum_s2"`` compares with Σ_k s_k² instead
    (q truncated at second order: a planted near miss)."""
    def run(ctx):
        p, lanes, rows = _def12_reference()
        worst_helper, worst_log = 0.0, 0.0
        for i, row in enumerate(rows):
            ref = np.array(row[reference])
            scale = float(np.max(np.abs(ref)))
            worst_helper = max(worst_helper, float(np.max(np.abs(lanes.gain[i] - ref))) / scale)
            log_ratio = 2 * np.log(p.alpha) - lanes.ln_alpha2[i]   # ln(α²/α_K²)
            worst_log = max(worst_log, float(np.max(np.abs(log_ratio - ref))) / scale)
        worst = max(worst_helper, worst_log)
        data = {"problem": p.describe(), "runs": [{k: r[k] for k in ("gamma", "steps", "max_abs_s")} for r in rows],
                "reference": reference, "helper_vs_reference": worst_helper,
                "log_ratio_vs_reference": worst_log, "max_rel_diff": worst, "tolerance": DEF12_TOL}
        ok = worst <= DEF12_TOL
        what = "Σ_k q(s_k) (30-digit GD from the definitions)" if reference == "sum_q" else "Σ_k s_k²"
        return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                       f"run helper (_dln lanes): Gain vs {what}: {worst_helper:.2e}, ln(α²/α_K²) from its "
                       f"α_± accumulators vs the same: {worst_log:.2e} (relative; tolerance {DEF12_TOL:.0e}) "
                       f"on {len(rows)} E3 runs, max |s_k| {max(r['max_abs_s'] for r in rows):.3f}", **data)
    return Check(name, run, "INT")


def _def12_margin(data):
    if "max_rel_diff" not in data:
        return None
    m = data["max_rel_diff"] - data["tolerance"]
    return m, f"helper Gain vs the planted formula: relative difference {data['max_rel_diff']:.3g}, tolerance {data['tolerance']:.0e}"


DEF12 = Claim(
    id="even2023.def12",
    source=PAPER.at("§4.1, eq. (9)"),
    title="Gain_γ = ln(α²/α_∞²) = Σ_k q(γ_k g_k)",
    statement=r"\mathrm{Gain}_\gamma=\ln(\alpha^2/\alpha_\infty^2)=\sum_kq(\gamma_kg_k)\ge0\ if\ all\ |s_k|\le\sqrt2",
    uses=("even2023.def11", "even2023.def8"),
    status="theorem",
    trust="M",
    expect="supported",
    notes="[M] normalisation (F4): the paper may define Gain = ln(α/α_∞).",
    checks=(symbolic.identity("log_ratio", lambda: sp.expand_log(
                sp.log(_alpha ** 2 / (_alpha * sp.exp(-sp.Symbol("Q", real=True) / 2)) ** 2), force=True),
                lambda: sp.Symbol("Q", real=True)),
            sampling.forall("q_nonneg_up_to_sqrt2",
                            st.floats(-1.4142135, 1.4142135).filter(lambda s: abs(abs(s) - 1) > 1e-12),
                            lambda s: (_gain_nonneg(s), {"s": s})),
            _def12_helper_tie("run_helper_matches_definition")),
    planted=(Planted("p1", "Gain ≥ 0 whatever the steps (witness s = 3/2)",
                     sampling.witness("p1_any_steps", 1.5, lambda s: (_gain_nonneg(s), {"q": float(_dln.q_mp(s))}),
                                      exact=True)),
             near_miss("p2", "near miss: Gain_γ = Σ_k s_k² (q truncated at second order; the run helper "
                       "must tell it from q)", _def12_helper_tie("p2_second_order", "sum_s2"),
                       margin=_def12_margin)),
)


# =========================================================================== def13

def _def13_prop(case, factor=1.0):
    seed, b = case
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((8, 12))
    B = rng.choice(8, size=b, replace=False)
    lam = np.linalg.eigvalsh(X[B].T @ X[B] / b)[-1]
    mx = np.max(np.sum(X ** 2, 1))
    return lam <= factor * mx * (1 + 1e-12), {"lam_max_HB": float(lam), "ratio_to_max_row": float(lam / mx)}


def _def13_planted(ctx):
    p = _dln.e1_problem(0)
    lam = float(np.linalg.eigvalsh(p.X.T @ p.X / p.n)[-1])
    mx = float(np.max(np.sum(p.X ** 2, 1)))
    return outcome(Status.REFUTED if lam < mx else Status.SUPPORTED,
                   f"E1: λ_max(H) = {lam:.4g} < max_i ‖x_i‖² = {mx:.4g}", lam_max_H=lam, max_row_norm2=mx)


DEF13 = Claim(
    id="even2023.def13",
    source=PAPER.at("§3.1, §4.1"),
    title="γ_max = c/(BL) and the checker proxies L̂, B̂, λ̂_b",
    statement=r"\gamma_{max}=c/(BL);\ \hat L=\lambda_{max}(H)\ (b=n),\ \max_i\|x_i\|^2\ (b=1)\ \ge\lambda_{max}(H_B);"
              r"\ \hat B=\inf_S\|\beta\|_\infty",
    uses=(),
    status="theorem",
    trust="U",
    expect="supported",
    notes="c hidden; B [M]; L and λ_b [U] (display not recovered). Only the proxies are checked.",
    checks=(sampling.forall("max_row_norm_bounds_batches", st.tuples(st.integers(0, 10 ** 6), st.integers(1, 8)),
                            _def13_prop, examples=(100, 1000)),),
    planted=(Planted("p1", "λ_max(H) ≥ max_i ‖x_i‖² (the full-batch constant bounds every batch)",
                     Check("p1_full_batch", _def13_planted, "INT")),
             near_miss("p2", "near miss: λ_max(H_B) <= 0.97·max_i ‖x_i‖² (the proxy L̂ 3% tighter)",
                       sampling.forall("p2_0_97", st.tuples(st.integers(0, 10 ** 6), st.integers(1, 8)),
                                       lambda c_: _def13_prop(c_, 0.97), examples=(100, 1000)),
                       margin=lambda d: (d["ratio_to_max_row"] - 0.97, f"at the shrunk witness λ_max(H_B)/max‖x_i‖² = "
                                         f"{d['ratio_to_max_row']:.4f} > 0.97") if "ratio_to_max_row" in d else None)),
)


# =========================================================================== def14

def _def14(planted: bool, factor: float = 2.0):
    def run(ctx):
        rows = {}
        ok = True
        refuted = False
        for b in (20, 1):
            p = _dln.e1_problem(0)
            br = _runs.e1_threshold(0, b, ctx.budget)
            budget_steps = _runs.threshold_steps(ctx.budget)
            chk = _dln.run_lanes(p, [br.lo, br.hi, br.hi], b=None if b == 20 else b, seeds=17,
                                 max_steps=budget_steps, tol_rel=1e-16)
            # the same hi with 4x the budget: tells whether the bracket is budget-limited
            longer = _dln.run_lanes(p, [br.hi], b=None if b == 20 else b, seeds=17,
                                    max_steps=4 * budget_steps, tol_rel=1e-16)
            lo_ok = chk.status[0] == _dln.CONVERGED
            hi_bad = chk.status[1] != _dln.CONVERGED
            ok &= bool(lo_ok and hi_bad)
            refuted |= bool(hi_bad and br.hi <= factor * br.lo)
            rows["GD" if b == 20 else "SGD b=1 (batch seed 17)"] = {
                **br.data(), "step_budget": budget_steps, "recheck_lo": chk.outcome(0),
                "recheck_hi": chk.outcome(1), "steps_lo": int(chk.steps[0]),
                "hi_with_4x_budget": longer.outcome(0), "hi_steps_with_4x_budget": int(longer.steps[0])}
        if planted:   # "every γ ≤ factor·γ_lo converges"
            ratio = min(v["gamma_hi"] / v["gamma_lo"] for v in rows.values())
            return outcome(Status.REFUTED if refuted else Status.SUPPORTED,
                           f"a run at γ_hi ≤ {factor:g}γ_lo does not converge: {rows}", brackets=rows,
                           factor=factor, min_hi_over_lo=ratio)
        return outcome(Status.SUPPORTED if ok else Status.INCONCLUSIVE,
                       f"γ̃_max bracketed by multi-section on E1 (reproduced under the same step budget; "
                       f"'hi_with_4x_budget' = converged means the bracket is budget-limited, i.e. a lower "
                       f"estimate): {rows}", brackets=rows)
    return run


DEF14 = Claim(
    id="even2023.def14",
    source=PAPER.at("§5"),
    title="γ̃_max, the divergence (non-convergence) threshold",
    statement=r"\tilde\gamma_{max}=\sup\{\gamma\ge0:\sum_kL(\beta_k^{\gamma'})<\infty\ \forall\gamma'\in(0,\gamma)\}",
    uses=(),
    status="theorem",
    trust="R",
    expect="supported",
    notes="Operational: converged (L ≤ 1e−16 L_0) / stalled (budget) / blown up; 'not converged' covers "
          "persistent oscillation (F8). SGD policy: per batch seed. Relative bracket width 1e−2 (quick) / "
          "1e−3 (full).",
    checks=(Check("bisection", _def14(False), "PHASE"),),
    planted=(Planted("p1", "every γ ≤ 2γ_lo converges", Check("p1_double", _def14(True), "PHASE")),
             near_miss("p2", "near miss: every γ ≤ 1.05γ_lo converges (the threshold 5% higher)",
                       Check("p2_5_percent", _def14(True, 1.05), "PHASE"),
                       margin=lambda d: (d["factor"] - d["min_hi_over_lo"], f"a non-converging γ_hi = "
                                         f"{d['min_hi_over_lo']:.4f}·γ_lo lies below the claimed {d['factor']}·γ_lo")
                       if "min_hi_over_lo" in d else None)),
)
