"""even2023 §3: (S)GD as mirror descent with time-varying potentials, Theorem 1 (trajectory-
dependent implicit regularisation), Propositions 15 and 18, the driver of the deviation from
gradient flow (fact6), Theorem 2 (convergence, scaling structure) and Proposition 1 (local rate).

Spec: ``shared/spec/even2023.md`` §3; experiments E3 (Theorem 1 at high precision), E6 (small γ),
E8, E9. Precision and tolerances are stated in each check's evidence.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy as sp
from hypothesis import strategies as st

from verify import Claim, Figure, Planted, Status
from verify import asymptotic, sampling, symbolic
from verify.asymptotic import Series
from verify.claim import Check, outcome
from verify.nearmiss import near_miss
from verify.theta import theta_by_slopes

from . import PAPER, _dln, _implicit, _runs, _strategies

# --------------------------------------------------------------------------- symbols

x = sp.Symbol("x", real=True)
t_pos = sp.Symbol("t", positive=True)          # t = e^{2φ} > 0
a_pos = sp.Symbol("a", positive=True)
q_plus = -2 * x - sp.log((1 - x) ** 2)
q_minus = 2 * x - sp.log((1 + x) ** 2)
q_fn = -sp.log((1 - x ** 2) ** 2) / 2


# =========================================================================== fact5

def _fact5_runs(budget: str):
    """Runs that track the recursion at every step: GD with |s| > 1, SGD b = 1, random scalar γ_k."""
    return _fact5_cache(budget)


from functools import lru_cache  # noqa: E402


@lru_cache(maxsize=None)
def _fact5_cache(budget: str):
    p = _dln.e3_problem(0)
    dps = 40 if budget == "quick" else 60
    steps = 1500 if budget == "quick" else 6000
    runs = [
        ("GD γ=1.5", _dln.run_hp(p, _dln.Constant(1.5), dps=dps, max_steps=steps, tol_rel=0,
                                 track_fact5=True)),
        ("SGD b=1 γ=0.3", _dln.run_hp(p, _dln.Constant(0.3), b=1, seed=5, dps=dps, max_steps=steps,
                                      tol_rel=0, track_fact5=True)),
        ("random γ_k∈[0.05,1.7]", _dln.run_hp(p, _dln.RandomIID(0.05, 1.7, seed=3), dps=dps,
                                             max_steps=steps // 3, tol_rel=0, track_fact5=True)),
    ]
    return dps, runs


def _mirror_residual(snap, tilt_sign: int):
    """max_i |½ arcsinh(β_i/α_{k,i}²) − tilt_sign·φ_{k,i} + S_{k,i}| at a snapshot."""
    worst = mpmath.mpf(0)
    for b, la2, ph, S in zip(snap.beta, snap.ln_alpha2, snap.phi, snap.S):
        worst = max(worst, abs(mpmath.asinh(b / mpmath.exp(la2)) / 2 - tilt_sign * ph + S))
    return worst


def _fact5_check(tilt_sign: int, name: str, tilt_floors: float = 0):
    """``tilt_floors`` (planted near miss): the tilt φ_k scaled by 1 + tilt_floors·floor, i.e. off by a
    few times the precision floor of the check (resolution test)."""
    def run(ctx):
        dps, runs = _fact5_runs(ctx.budget)
        floor = 10.0 ** (-(dps - 12))
        rows = {}
        worst = 0.0
        with mpmath.workdps(dps):
            tilt = tilt_sign * (1 + tilt_floors * mpmath.mpf(10) ** (-(dps - 12)))
            for label, r in runs:
                end = float(_mirror_residual(r.final, tilt))
                per_step = r.fact5_residual if tilt_sign == 1 and not tilt_floors else end
                rows[label] = {"steps": r.steps, "max_abs_s": r.max_abs_s,
                               "steps_with_|s|>1": r.odd_steps_big,
                               "max_residual_over_steps": per_step, "residual_at_end": end}
                worst = max(worst, per_step, end)
        ok = worst <= floor
        status = Status.SUPPORTED if ok else Status.REFUTED
        what = "∇h_k(β_k) = −S_k" if tilt_sign == 1 else (
            "h_k = ψ_{α_k} (tilt dropped)" if tilt_sign == 0 else "tilt with the opposite sign")
        if tilt_floors:
            what = f"tilt scaled by 1 + {tilt_floors:g}·floor"
        return outcome(status, f"{what}: worst residual {worst:.2e} over {len(runs)} runs at {dps} "
                       f"digits (floor {floor:.0e})", runs=rows, dps=dps, floor=floor)
    return Check(name, run, "TRAJ")


def _fact5_span(ctx):
    """fact5.span: S_K lies in the row space of X (projection onto its complement ~ 0)."""
    dps, runs = _fact5_runs(ctx.budget)
    X = _dln.e3_problem(0).X
    with mpmath.workdps(dps):
        Xm = mpmath.matrix([[mpmath.mpf(float(v)) for v in row] for row in X])
        G = Xm * Xm.T
        worst = mpmath.mpf(0)
        for _, r in runs:
            S = mpmath.matrix(r.final.S)
            coef = mpmath.lu_solve(G, Xm * S)
            proj = S - Xm.T * coef
            worst = max(worst, max(abs(v) for v in proj) / max(abs(v) for v in S))
    floor = 10.0 ** (-(dps - 12))
    ok = float(worst) <= floor
    return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                   f"relative component of S_K orthogonal to span(x_i): {float(worst):.2e}",
                   worst=float(worst), dps=dps, floor=floor)


FACT5 = Claim(
    id="even2023.fact5",
    source=PAPER.at("§3.2, key proposition (number not printed; probably Proposition 2), eq. (8)"),
    title="(S)GD is mirror descent with time-varying potentials h_k",
    statement=r"\nabla h_{k+1}(\beta_{k+1}) = \nabla h_k(\beta_k) - \gamma_k \nabla L_{B_k}(\beta_k),\ "
              r"h_k = \psi_{\alpha_k} - \langle \phi_k, \cdot\rangle;\ equivalently "
              r"\beta_k = \alpha_k^2 \sinh(2\phi_k - 2S_k);\ .span: \nabla h_k(\beta_k) \in span(x_i)",
    hypotheses=("init (√2α, 0)", "any scalar stepsizes and batches", "s_l ≠ ±1 for l < k"),
    uses=("even2023.fact1", "even2023.def9", "even2023.def10", "even2023.def2"),
    expect="supported",
    status="theorem",
    trust="R",
    notes="Printed: α_{±,k}, potentials built from ψ_{α_k}, the name. Reconstructed: α_k, φ_k, the "
          "tilt and the exact recursion (forced by the dynamics). The high-precision path is "
          "python-flint arb rounded to midpoints (a P-digit floating-point model).",
    checks=(
        symbolic.identity(
            "closed_form_two_steps",
            # β_2 from the product form (fact1) equals α_2² sinh(2φ_2 − 2S_2) for generic s_0, s_1
            lambda: _two_step_closed_form(), 0),
        _fact5_check(1, "recursion_hp"),
        Check("span", _fact5_span, "TRAJ"),
    ),
    planted=(
        Planted("p1", "h_k = ψ_{α_k} (the tilt dropped)", _fact5_check(0, "p1_tilt_dropped")),
        Planted("p2", "φ_k with the opposite sign", _fact5_check(-1, "p2_tilt_sign")),
        near_miss("p3", "near miss: h_k = ψ_{α_k} − (1 + 3·floor)⟨φ_k, ·⟩ (the tilt off by three times the "
                  "precision floor; resolution test)", _fact5_check(1, "p3_tilt_scaled", tilt_floors=3),
                  margin=lambda d: (float(np.log10(max(r["residual_at_end"] for r in d["runs"].values()) / d["floor"])),
                                    f"worst end residual {max(r['residual_at_end'] for r in d['runs'].values()):.2e} "
                                    f"vs floor {d['floor']:.0e}") if "floor" in d else None),
    ),
)


def _two_step_closed_form():
    """β_2 − α_2² sinh(2φ_2 − 2S_2), all written with e^{±...} for 0 < s < 1 (sympy positivity)."""
    s0, s1, al = sp.symbols("s0 s1 alpha", positive=True)
    # take s_l ∈ (0, 1): write s_l = 1 − e_l with 0 < e_l < 1 is not needed; use explicit products
    ap2 = al ** 2 * (1 - s0) ** 2 * (1 - s1) ** 2 * sp.exp(2 * s0 + 2 * s1)   # α_{+,2}² e^{...}
    am2 = al ** 2 * (1 + s0) ** 2 * (1 + s1) ** 2 * sp.exp(-2 * s0 - 2 * s1)
    beta2 = (al ** 2 / 2) * ((1 - s0) ** 2 * (1 - s1) ** 2 - (1 + s0) ** 2 * (1 + s1) ** 2)
    # α_2² sinh(2φ − 2S) with α_2² = sqrt(ap2 am2), e^{2φ} = sqrt(ap2/am2), S = s0 + s1
    e2phi = sp.sqrt(ap2 / am2)
    a2 = sp.sqrt(ap2 * am2)
    S = s0 + s1
    pred = a2 * (e2phi * sp.exp(-2 * S) - sp.exp(2 * S) / e2phi) / 2
    return sp.simplify(sp.powsimp(sp.expand(beta2 - pred), force=True))


# =========================================================================== Theorem 1

RUN_LABELS = tuple(r[0] for r in _runs.E3_RUNS)


def _thm1_main(ctx):
    """Theorem 1 on E3 at high precision; .finite first-order formula; shrinking with tolerance."""
    rows = {}
    ok, undecided = True, False
    digits = []
    for label in RUN_LABELS:
        ctx.say(f"thm1: {label}")
        e = _runs.thm1_eval(label, ctx.budget)
        dps = e.run["dps"]
        floor = 10.0 ** (-(dps - 12))
        conv = e.run["outcome"] == "converged" and e.solver["solver_converged"]
        # .finite: β^pred_K − β_K = first-order formula + O(‖r_K‖²)
        fin_ok = all(r["first_order_error"] <= 100 * r["residual_rel"] ** 2 + floor for r in e.rows)
        ratios = [r["ratio_dist_over_residual"] for r in e.rows]
        # distance = Θ(‖r_K‖): the ratio's log-slope against the residual must be 0 ± 0.1 (not a band)
        theta = theta_by_slopes({"residual": ([r["residual_rel"] for r in e.rows], ratios)}, 0.1,
                                law="‖β_K − β^pred‖/‖r_K‖")
        undecided |= theta.status == Status.INCONCLUSIVE
        shrink_ok = theta.status == Status.SUPPORTED and e.rows[-1]["dist_to_pred_inf"] < \
            1e-6 * e.rows[0]["dist_to_pred_inf"]
        corrected = max(e.rows[-1]["first_order_error"], 10.0 ** -dps)
        digits.append(e.agreement_digits)
        good = conv and fin_ok and shrink_ok
        ok &= good
        rows[label] = {**e.run, "agreement_digits_at_K": round(e.agreement_digits, 2),
                       "first_order_corrected_digits": round(-math.log10(corrected), 2),
                       "checkpoints": e.rows, "solver": e.solver, "pass": good,
                       "distance_over_residual": dict(theta.data)}
    gd = [rows[k]["agreement_digits_at_K"] for k in rows if k.startswith("GD")]
    sgd = [rows[k]["agreement_digits_at_K"] for k in rows if k.startswith("SGD")]
    summary = (f"{len(rows)} runs (GD, SGD b=1,2, AdaGrad-norm, one with max|s|>1): β_K agrees with "
               f"argmin_S D_ψα∞(·, β̃0) to {min(digits):.1f}-{max(digits):.1f} digits (GD {min(gd):.1f}, "
               f"SGD {min(sgd):.1f}; limited by the stopping residual), distance ∝ ‖r_K‖ as the "
               f"tolerance is tightened, first-order (.finite) error at O(‖r_K‖²) + floor")
    status = Status.SUPPORTED if ok else (Status.INCONCLUSIVE if undecided else Status.REFUTED)
    return outcome(status, summary, runs=rows,
                   problem=_dln.e3_problem(0).describe(), gd_digits=min(gd), sgd_digits=min(sgd))


def _thm1_f64_gain_scaled(gain_factor: float):
    """Planted near miss: Theorem 1 with the gain ln(α²/α_∞²) = Σ_k q(γ_k g_k) scaled by ``gain_factor``
    (α_∞ read off the run; only its departure from α is rescaled)."""
    return lambda case: _thm1_f64_property(case, gain_factor)


def _thm1_gain_margin(data):
    if "miss_rel" not in data:
        return None
    v = math.log10(float(data["miss_rel"]) / 1e-6)
    return v, (f"at the shrunk witness the prediction misses the run's limit by {data['miss_rel']:.3g} "
               f"(relative), {v:.3g} orders above the tolerance 1e-6")


def _thm1_f64_property(case, gain_factor: float = 1.0):
    """Theorem 1 on a hypothesis-drawn problem, float64 GD; vacuous if the run does not converge."""
    problem, frac = case
    H = problem.X.T @ problem.X / problem.n
    scale = float(np.linalg.eigvalsh(H)[-1]) * (np.max(np.abs(problem.teacher)) + float(np.max(problem.alpha)) ** 2)
    gamma = frac / scale
    lanes = _dln.run_lanes(problem, [gamma], max_steps=200_000, tol_rel=1e-22)
    if lanes.status[0] != _dln.CONVERGED:
        return sampling.SKIP, {"outcome": lanes.outcome(0), "gamma": gamma}
    ln_alpha2 = lanes.ln_alpha2[0]
    if gain_factor != 1.0:   # planted: rescale only the gain, ln α² − ln α_∞²
        ln_a0 = 2 * np.log(np.asarray(problem.alpha, dtype=float))
        ln_alpha2 = ln_a0 + gain_factor * (ln_alpha2 - ln_a0)
    sol = _implicit.solve_f64(problem.X, problem.y, ln_alpha2, lanes.phi[0])
    solver = "float64"
    if not sol.converged:
        # the float64 Newton can stall on badly scaled duals: re-solve at 30 digits (the
        # prediction, not the run, is what would otherwise be wrong)
        sol = _implicit.solve(problem.X, problem.y, [float(v) for v in ln_alpha2],
                              [float(v) for v in lanes.phi[0]], dps=30, tol_rel=1e-16)
        solver = "mpmath-30"
        if not sol.converged:
            return None, {"solver": "did not converge", "gamma": gamma}
    predicted = np.array([float(v) for v in sol.beta])
    miss = float(np.linalg.norm(predicted - lanes.beta[0]) / np.linalg.norm(predicted))
    return miss < 1e-6, {"miss_rel": miss, "gamma": float(gamma), "solver": solver,
                         "max_abs_s": float(lanes.max_abs_s[0])}


def _thm1_planted(tag: str, what: str):
    def run(ctx):
        rows = {}
        refuted = True
        for label in RUN_LABELS:
            e = _runs.thm1_eval(label, ctx.budget)
            miss, truth = e.misses[tag], e.misses["truth"]
            miss_mid = e.misses_mid.get(tag, miss)
            orders = math.log10(miss / truth) if truth > 0 else float("inf")
            # refuted on a run iff it misses by ≥ 6 orders more than the truth and does not shrink
            rows[label] = {"miss_rel": miss, "truth_rel": truth, "orders_of_magnitude": round(orders, 1),
                           "miss_at_previous_tolerance": miss_mid, "max_abs_s": e.run["max_abs_s"]}
            refuted &= orders >= 6 and miss >= 0.5 * miss_mid
        worst = min(r["orders_of_magnitude"] for r in rows.values())
        if refuted:
            return outcome(Status.REFUTED, f"{what}: misses the run's limit on every run by ≥ "
                           f"{worst:.1f} orders of magnitude more than Theorem 1's prediction, and the "
                           f"miss does not shrink with the tolerance", runs=rows)
        return outcome(Status.SUPPORTED, f"{what}: not separated from the truth on every run",
                       runs=rows)
    return Check(f"{tag}_variant", run, "TRAJ")


THM1 = Claim(
    id="even2023.thm1",
    source=PAPER.at("Theorem 1, §3.1, eq. (5)"),
    title="Trajectory-dependent implicit regularisation of (S)GD",
    statement=r"\beta^*_\infty = \arg\min_{X\beta=y} D_{\psi_{\alpha_\infty}}(\beta, \tilde\beta_0),\ "
              r"\alpha_\infty = \alpha\, e^{-\frac12\sum_k q(\gamma_k g_k)},\ "
              r"\tilde\beta_0 = \tfrac12(\alpha_{+,\infty}^2 - \alpha_{-,\infty}^2)",
    hypotheses=("init (√2α, 0), α > 0", "any scalar stepsizes (constant, adaptive) and batches",
                "s_k ≠ ±1, series converge (F7)", "β_k → β*_∞ ∈ S (assumed; thm2 proves it)"),
    uses=("even2023.fact5", "even2023.def7", "even2023.def11", "even2023.eq4"),
    expect="supported",
    status="theorem",
    trust="R",
    notes="Printed: α_∞ trajectory-dependent, Bregman divergence of ψ_α∞, the name β̃_0, any scalar "
          "schedule. Reconstructed and verified: the exact formulas of def11. The main check covers "
          ".finite (first-order formula) and .adaptive (AdaGrad-norm run). α_∞, φ_∞ are read off "
          "the final log accumulators: the tail Σ_{k≥K} q(s_k) = O(‖r_K‖²) is below the floor.",
    checks=(
        Check("gd_sgd_adaptive_hp", _thm1_main, "TRAJ"),
        sampling.forall("f64_random_problems",
                        st.tuples(_strategies.problems(max_n=4, max_extra_d=5), st.floats(0.05, 1.0)),
                        _thm1_f64_property, examples=(25, 200), kind="TRAJ",
                        describe="float64 GD on hypothesis-drawn problems (Gaussian/correlated/"
                                 "Rademacher/spiked designs, sparse teachers, non-uniform α): the limit "
                                 "matches Theorem 1 to 1e-6 relative (non-converging runs are skipped and counted)"),
        symbolic.identity(
            "form",
            # d/dβ [D_ψa(β, β̃0) − h_∞(β)] = φ − ∇ψ_a(β̃0) with β̃0 = a² sinh 2φ, t = e^{2φ}
            lambda: sp.log(_b0() / a_pos ** 2 + sp.sqrt(sp.factor(_b0() ** 2 / a_pos ** 4 + 1))) / 2
            - sp.log(t_pos) / 2, 0),
        symbolic.identity(
            "consistency",
            # α_+² α_−² e-form: exp(−q_+) exp(−q_−) = exp(−2q)
            lambda: sp.exp(-q_plus) * sp.exp(-q_minus) - sp.exp(-2 * q_fn), 0),
    ),
    planted=(
        Planted("p1", "β̃_0 with its sign flipped (φ_∞ → −φ_∞)",
                _thm1_planted("p1", "β̃_0 sign flipped")),
        Planted("p2", "β̃_0 dropped (thm1.drop read as exact)", _thm1_planted("p2", "β̃_0 dropped")),
        Planted("p3", "q replaced by x² in α_∞", _thm1_planted("p3", "q → x²")),
        Planted("p4", "α instead of α_∞ (the gain ignored)", _thm1_planted("p4", "α instead of α_∞")),
        near_miss("p5", "near miss: α_∞ with the gain Σ_k q(γ_k g_k) 3% too large",
                  sampling.forall("p5_gain_1_03",
                                  st.tuples(_strategies.problems(max_n=4, max_extra_d=5), st.floats(0.05, 1.0)),
                                  _thm1_f64_gain_scaled(1.03), examples=(25, 200), kind="TRAJ"),
                  margin=_thm1_gain_margin),
    ),
    figures=(Figure("thm1_agreement", lambda ctx, path: _draw_thm1_agreement(ctx, path)),),
)


def _b0():
    return a_pos ** 2 * (t_pos - 1 / t_pos) / 2


def _draw_thm1_agreement(ctx, path):
    """Distance of β_k to Theorem 1's prediction against the residual, per high-precision run."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.8, 4.4))
    digits = []
    for label, *_ in _runs.E3_RUNS:
        e = _runs.thm1_eval(label, ctx.budget)  # the runs of the verdict row (cached)
        res = [r["residual_rel"] for r in e.rows]
        dist = [r["dist_to_pred_inf"] for r in e.rows]
        ax.loglog(res, dist, "o-", ms=4, label=f"{label}: {e.agreement_digits:.1f} digits")
        digits.append(e.agreement_digits)
    lim = ax.get_xlim()
    ax.loglog(lim, lim, "k:", lw=0.8, label="distance = residual")
    ax.set_xlabel(r"relative residual $\|X\beta_k - y\| / \|y\|$ at the checkpoint")
    ax.set_ylabel(r"$\|\beta_k - \beta^{pred}\| / \|\beta^{pred}\|$")
    ax.set_title("Theorem 1 at high precision: agreement with the predicted limit", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=80, metadata={"Software": None})
    plt.close(fig)
    return ("Theorem 1 predicts the limit of (S)GD as argmin over interpolators of the Bregman "
            "divergence of ψ_α∞ from β̃_0. Here, the high-precision runs of the verdict row above "
            "(GD, SGD b = 1, 2, AdaGrad-norm, one run with max|s_k| > 1): at each checkpoint the "
            "distance to the prediction falls in proportion to the residual, and at the end the "
            f"agreement is {min(digits):.1f} to {max(digits):.1f} digits, limited by the stopping "
            f"residual, not by the theorem. Budget {ctx.budget}.")


# ---------------------------------------------------------------- thm1.tilt (derived)

def _tilt_bound(ctx, factor: float = 1.0):
    """|φ_∞| <= factor·m·Gain/(3(1−m²)) on the converged E6 GD runs (factor 1: the statement)."""
    sw = _runs.e6_sweep()
    lanes = sw["lanes"]
    worst = 0.0
    n = 0
    for i in range(len(sw["gammas"])):
        m = lanes.max_abs_s[i]
        if m >= 1 or lanes.status[i] != _dln.CONVERGED:
            continue
        bound = factor * m * lanes.gain[i] / (3 * (1 - m * m))
        ratio = np.max(np.abs(lanes.phi[i]) / np.maximum(bound, 1e-300))
        worst = max(worst, float(ratio))
        n += 1
    if n == 0:
        return outcome(Status.INCONCLUSIVE, "no converged E6 GD run with m < 1", runs=0)
    ok = worst <= 1.0
    return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                   f"|φ_∞| ≤ {factor:g}·m·Gain/(3(1−m²)) on {n} GD runs; worst ratio {worst:.3f}",
                   runs=n, worst_ratio=worst, factor=factor)


THM1_TILT = Claim(
    id="even2023.thm1.tilt",
    source=PAPER.at("Theorem 1 (derived)"),
    title="The tilt φ_∞ is small relative to the gain for small steps",
    statement=r"|s_k|<1:\ \phi_\infty = -\sum_k(\operatorname{atanh} s_k - s_k),\ "
              r"|\phi_\infty| \le m\,\mathrm{Gain}/(3(1-m^2))",
    uses=("even2023.thm1", "even2023.def10", "even2023.def8"),
    status="derived",
    trust="R",
    expect="supported",
    checks=(
        symbolic.identity("phi_series",
                          lambda: sp.exp(q_plus - q_minus) - sp.exp(4 * (sp.atanh(x) - x)).rewrite(sp.log),
                          0, domain={"x": (-0.9, 0.9)}),
        Check("bound_on_runs", _tilt_bound, "TRAJ"),
    ),
    planted=(Planted("p1", "φ_∞ = +Σ(atanh s − s) (sign)",
                     symbolic.identity("p1_sign", lambda: sp.exp(q_plus - q_minus)
                                       - sp.exp(-4 * (sp.atanh(x) - x)).rewrite(sp.log), 0,
                                       domain={"x": (-0.9, 0.9)})),
             near_miss("p2", "near miss: |φ_∞| <= 0.78·m·Gain/(3(1−m²)) (the bound 22% tighter, just below "
                       "the measured worst ratio)", Check("p2_tighter", lambda ctx: _tilt_bound(ctx, 0.78), "TRAJ"),
                       margin=lambda d: (d["worst_ratio"] - 1, f"worst |φ_∞|/bound = {d['worst_ratio']:.4f} > 1")
                       if "worst_ratio" in d else None)),
)


# ---------------------------------------------------------------- thm1.drop (heuristic, RATE)

def _drop_series(which: str):
    def measure(ctx):
        sw = _runs.e6_sweep()
        ok = sw["status"] == _dln.CONVERGED
        if which == "drop":
            y = np.linalg.norm(sw["thm"] - sw["drop"], axis=1)
        else:
            y = np.linalg.norm(sw["thm"] - sw["gf"], axis=1)
        y = np.where(ok, y, np.nan)
        return Series(sw["gammas"], y, {"runs": int(ok.sum()), "problem": "E3 GD (E6)",
                                        "precision": "float64, solver tol 1e-14"})
    return measure


THM1_DROP = Claim(
    id="even2023.thm1.drop",
    source=PAPER.at("§3.1: 'β̃_0 can be ignored'"),
    title="Dropping β̃_0: β*_∞ ≈ argmin_S ψ_α∞, with O(γ²) error (vs O(γ) for GF)",
    statement=r"\|\beta^*_\infty - \arg\min_S \psi_{\alpha_\infty}\| = O(\gamma^2),\quad "
              r"\|\beta^*_\infty - \beta^*_\alpha\| = O(\gamma)",
    uses=("even2023.thm1", "even2023.prop18"),
    status="heuristic",
    trust="R",
    expect="supported",
    notes="Derived reading of the printed heuristic (F3). β*_∞ is Theorem 1's prediction from the "
          "run's own accumulators (thm1 checks it separately). No guarantee at large steps.",
    checks=(
        asymptotic.rate("dropped_tilt_order_2", _drop_series("drop"), 2.0, 0.3,
                        law="‖β*_∞ − argmin ψ_α∞‖ vs γ"),
        asymptotic.rate("gf_order_1", _drop_series("gf"), 1.0, 0.3, law="‖β*_∞ − β*_α‖ vs γ"),
    ),
    planted=(Planted("p1", "the dropped-tilt error is O(γ) like GF's",
                     asymptotic.rate("p1_order_1", _drop_series("drop"), 1.0, 0.3)),
             near_miss("p2", "near miss: the dropped-tilt error is O(γ^{2.6}) (exponent off by 2τ)",
                       asymptotic.rate("p2_order_2_6", _drop_series("drop"), 2.6, 0.3))),
)


# ---------------------------------------------------------------- thm1.scalar (derived)

@lru_cache(maxsize=None)
def _diag_run(budget: str):
    p = _dln.e3_problem(0)
    dps = 40 if budget == "quick" else 60
    r = _dln.run_hp(p, _dln.DiagonalAdaGrad(0.5), dps=dps, tol_rel=10.0 ** -(dps - 10))
    with mpmath.workdps(dps):
        sol = _implicit.solve(p.X, p.y, r.final.ln_alpha2, r.final.phi, dps=dps)
        bn = mpmath.sqrt(mpmath.fsum(b * b for b in sol.beta))
        miss = float(_implicit.distance(sol.beta, r.final.beta) / bn)
    return r, miss, sol


@lru_cache(maxsize=None)
def _nearly_scalar_thm1(budget: str, rel: float):
    """Theorem 1's miss on a constant-γ run whose steps are scalar up to a relative ``rel``."""
    from .sec1_setting import NearlyScalar
    p = _dln.e3_problem(0)
    dps = 40 if budget == "quick" else 60
    r = _dln.run_hp(p, NearlyScalar(0.4, rel), dps=dps, tol_rel=10.0 ** -(dps - 10))
    with mpmath.workdps(dps):
        sol = _implicit.solve(p.X, p.y, r.final.ln_alpha2, r.final.phi, dps=dps)
        bn = mpmath.sqrt(mpmath.fsum(b * b for b in sol.beta))
        miss = float(_implicit.distance(sol.beta, r.final.beta) / bn)
    return r, miss


def _nearly_scalar_formula_holds(rel: float):
    """Planted near miss: Theorem 1's formula holds for steps scalar up to a relative ``rel``; refuted
    by the main check's criterion (the miss exceeds 10⁶ × the run's residual)."""
    def run(ctx):
        r, miss = _nearly_scalar_thm1(ctx.budget, rel)
        resid = float(r.final.rnorm / r.ynorm)
        found = r.outcome == "converged" and miss > 1e6 * resid
        return outcome(Status.REFUTED if found else Status.SUPPORTED,
                       f"Γ_k = 0.4(1 + {rel:g}·j/(d − 1)): def11 formula misses the limit by {miss:.3e} "
                       f"(residual {resid:.1e}; separated above {1e6 * resid:.1e})",
                       formula_miss_rel=miss, separation=1e6 * resid, steps=r.steps, outcome_=r.outcome)
    return run


def _scalar_witness(expect_formula_holds: bool):
    def run(ctx):
        r, miss, sol = _diag_run(ctx.budget)
        resid = float(r.final.rnorm / r.ynorm)
        found = r.outcome == "converged" and miss > 1e6 * resid
        data = dict(run=r.data(), formula_miss_rel=miss, solver=sol.data())
        if expect_formula_holds:   # planted: "the conclusion holds for coordinate-wise steps"
            st_ = Status.REFUTED if found else Status.SUPPORTED
            return outcome(st_, f"diagonal AdaGrad: def11 formula misses the limit by {miss:.3e} "
                           f"(residual {resid:.1e})", **data)
        st_ = Status.SUPPORTED if found else Status.INCONCLUSIVE
        return outcome(st_, f"witness: diagonal-AdaGrad limit is {miss:.3e} (relative) away from the "
                       f"def11 formula on its own trajectory (run residual {resid:.1e})", **data)
    return run


THM1_SCALAR = Claim(
    id="even2023.thm1.scalar",
    source=PAPER.at("§3.1 ('adaptive stepsize schedules which keep the stepsize scalar')"),
    title="Scalarity of the stepsize is necessary: coordinate-wise steps break Theorem 1",
    statement=r"s_k = \Gamma_k \odot g_k \Rightarrow \nabla h_\infty(\beta_\infty) = "
              r"-\sum_k \Gamma_k\odot g_k \notin span(x_i)\ in general",
    uses=("even2023.thm1", "even2023.def5"),
    status="derived",
    trust="R",
    expect="supported",
    checks=(Check("diagonal_adagrad_witness", _scalar_witness(False), "TRAJ"),),
    planted=(Planted("p1", "the conclusion holds for coordinate-wise steps",
                     Check("p1_coordinatewise", _scalar_witness(True), "TRAJ")),
             near_miss("p2", "near miss: the conclusion holds for coordinate-wise steps scalar up to a relative "
                       "10⁻²³ (about 3× the check's separation at 40 digits)",
                       Check("p2_nearly_scalar", _nearly_scalar_formula_holds(1e-23), "TRAJ"),
                       margin=lambda d: (float(np.log10(d["formula_miss_rel"] / d["separation"])),
                                         f"formula miss {d['formula_miss_rel']:.2e} vs separation threshold "
                                         f"{d['separation']:.1e}: {np.log10(d['formula_miss_rel'] / d['separation']):.2f} "
                                         f"orders above") if "separation" in d else None)),
)


# =========================================================================== Proposition 15

@lru_cache(maxsize=None)
def _e9(budget: str):
    """E9: random problems n ≤ 3, d ≤ 5, α ∈ {0.05, 0.2, 0.5}, stepsizes up to γ̃_max."""
    rng = np.random.default_rng(909)
    problems = 6 if budget == "quick" else 24
    per = 40
    rows = []
    for j in range(problems):
        n = int(rng.integers(1, 4))
        d = int(rng.integers(n + 1, 6))
        X = rng.standard_normal((n, d))
        y = rng.standard_normal(n)
        for a in (0.05, 0.2, 0.5):
            p = _dln.Problem(X, y, np.full(d, a), None, f"E9[{j}] n={n} d={d} α={a}")
            lhat = float(np.linalg.eigvalsh(X.T @ X / n)[-1])
            br = _dln.locate_threshold(p, lo=0.05 / lhat, hi=50.0 / lhat, rel=3e-2, lanes=8, max_steps=20_000,
                                       tol_rel=1e-20)
            g = np.linspace(br.lo / per, br.lo, per)
            lanes = _dln.run_lanes(p, g, max_steps=40_000, tol_rel=1e-20)
            for i in range(per):
                if lanes.status[i] != _dln.CONVERGED:
                    continue
                la2 = lanes.ln_alpha2[i]
                bt0 = np.exp(la2) * np.sinh(2 * lanes.phi[i])
                rows.append({"problem": p.label, "gamma": float(g[i]), "m": float(lanes.max_abs_s[i]),
                             "alpha_inf_over_alpha": float(np.max(np.exp(la2 / 2) / a)),
                             "bt0_over_alpha2": float(np.max(np.abs(bt0)) / a ** 2)})
    return rows


def _prop15_suff(ctx, bt0_bound: float = 0.5):
    rows = [r for r in _e9(ctx.budget) if r["m"] < 1]
    worst_a = max(r["alpha_inf_over_alpha"] for r in rows)
    worst_b = max(r["bt0_over_alpha2"] for r in rows)
    ok = worst_a <= 1 + 1e-12 and worst_b < bt0_bound
    return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                   f"{len(rows)} converged E9 runs with m < 1: max α_∞/α = {worst_a:.6f}, "
                   f"max |β̃_0|/α² = {worst_b:.4f} (< {bt0_bound:g} required)",
                   runs=len(rows), max_alpha_ratio=worst_a, max_bt0_ratio=worst_b)


def _prop15_need(planted: bool):
    def run(ctx):
        rows = _e9(ctx.budget)
        wit = [r for r in rows if r["bt0_over_alpha2"] > 1]
        best = max(rows, key=lambda r: r["bt0_over_alpha2"])
        data = {"runs": len(rows), "witnesses": len(wit), "best": best}
        if planted:  # "every converging run has |β̃_0| ≤ α²"
            return outcome(Status.REFUTED if wit else Status.SUPPORTED,
                           f"{len(wit)} converged runs violate |β̃_0| ≤ α²; worst {best}", **data)
        return outcome(Status.SUPPORTED if wit else Status.INCONCLUSIVE,
                       f"witness search: {len(wit)} of {len(rows)} converged runs (all with m ≥ 1) "
                       f"have |β̃_0,i| > α_i²; worst {best}", **data)
    return run


PROP15 = Claim(
    id="even2023.prop15",
    source=PAPER.at("Proposition 15 (appendix; cited in §3.1)"),
    title="β̃_0 is small and α_∞ ≤ α (under a stepsize condition)",
    statement=r"|\tilde\beta_0| \le \alpha^2,\ \alpha_\infty \le \alpha;\ "
              r".suff: |s_k|<1 \Rightarrow \alpha_\infty\le\alpha,\ |\tilde\beta_0|<\alpha^2/2;\ "
              r".gt: \alpha_{\infty,i}>\alpha_i \Rightarrow \exists k: |s_{k,i}|>\sqrt2;\ "
              r".need: the condition cannot be dropped",
    hypotheses=("'reasonable assumptions on the stepsizes' (not recovered; read as |s_k| < 1, F2)",),
    uses=("even2023.def8", "even2023.def11", "even2023.thm2"),
    status="theorem",
    trust="M",
    expect="supported",
    notes="Hypotheses [M] (not recovered). The .suff/.gt/.need parts are derived.",
    checks=(
        sampling.forall("suff_q_nonneg", st.floats(-0.999999, 0.999999),
                        lambda s: (min(_dln.q_plus_minus_mp(s)) >= 0,
                                   {"s": s}), examples=(300, 3000)),
        Check("suff_stress_E9", _prop15_suff, "TRAJ"),
        sampling.forall("gt_q_negative_needs_sqrt2", st.floats(-5, 5).filter(lambda s: abs(abs(s) - 1) > 1e-9),
                        lambda s: (not (_dln.q_mp(s) < 0) or _exceeds_sqrt2(s), {"s": s}),
                        examples=(300, 3000)),
        Check("need_witness_E9", _prop15_need(False), "TRAJ"),
    ),
    planted=(Planted("p1", "every converging run has |β̃_0| ≤ α², whatever its stepsizes",
                     Check("p1_no_condition", _prop15_need(True), "TRAJ")),
             near_miss("p2", "near miss: with m < 1, |β̃_0| < 0.27α² (just below the measured worst case)",
                       Check("p2_tighter", lambda ctx: _prop15_suff(ctx, 0.27), "TRAJ"),
                       margin=lambda d: (d["max_bt0_ratio"] - 0.27, f"max |β̃_0|/α² = {d['max_bt0_ratio']:.4f} "
                                         f">= 0.27") if "max_bt0_ratio" in d else None)),
)


def _exceeds_sqrt2(s) -> bool:
    """|s| > √2 decided exactly (s is a float, i.e. a dyadic rational: compare s² with 2)."""
    from fractions import Fraction
    return Fraction(s) ** 2 > 2


# =========================================================================== Proposition 18

def _prop18_series(which: str):
    def measure(ctx):
        sw = _runs.e6_sweep()
        ok = sw["status"] == _dln.CONVERGED
        if which == "gain":
            y = sw["half_gain_inf"]
        elif which == "bt0":
            y = np.linalg.norm(sw["beta_tilde0"], axis=1)
        else:
            y = np.linalg.norm(sw["thm"] - sw["gf"], axis=1)
        return Series(sw["gammas"], np.where(ok, y, np.nan),
                      {"runs": int(ok.sum()), "problem": "E3 GD (E6)"})
    return measure


PROP18 = Claim(
    id="even2023.prop18",
    source=PAPER.at("Proposition 18 (appendix; cited in §3.1)"),
    title="Small stepsizes recover gradient flow: α_∞ → α, β̃_0 → 0",
    statement=r"\|\ln(\alpha/\alpha_\infty)\|_\infty = O(\gamma),\ \|\tilde\beta_0\| = O(\gamma^2),\ "
              r"\|\beta^*_\infty - \beta^*_\alpha\| = O(\gamma)",
    hypotheses=("constant γ → 0, fixed data and α",),
    uses=("even2023.thm1", "even2023.fact2", "even2023.def11", "even2023.def12"),
    status="theorem",
    trust="M",
    expect="supported",
    notes="Statement [M] (display not recovered), orders [R] (derived). τ = 0.25. β̃_0 is computed "
          "from the sinh form with φ_∞ from the series-based accumulators.",
    checks=(
        asymptotic.rate("gain_order_1", _prop18_series("gain"), 1.0, 0.25, law="½‖Gain‖_∞ vs γ"),
        asymptotic.rate("beta_tilde0_order_2", _prop18_series("bt0"), 2.0, 0.25, law="‖β̃_0‖ vs γ"),
        asymptotic.rate("distance_to_gf_order_1", _prop18_series("dist"), 1.0, 0.25,
                        law="‖β*_∞ − β*_α‖ vs γ"),
    ),
    planted=(
        Planted("p1", "‖β̃_0‖ = Θ(γ)", asymptotic.rate("p1_bt0_order_1", _prop18_series("bt0"), 1.0, 0.25)),
        Planted("p2", "‖β*_∞ − β*_α‖ = Θ(γ²)",
                asymptotic.rate("p2_dist_order_2", _prop18_series("dist"), 2.0, 0.25)),
        near_miss("p3", "near miss: ‖β̃_0‖ = Θ(γ^{2.5}) (exponent off by 2τ)",
                  asymptotic.rate("p3_bt0_order_2_5", _prop18_series("bt0"), 2.5, 0.25)),
    ),
)


# =========================================================================== fact6

def _fact6(reverse: bool, lower: float = 1.0):
    def run(ctx):
        _runs.prefetch_e1_sweeps(ctx, [(seed, b, ctx.budget) for seed in range(ctx.pick(1, 3))
                                       for b in (20, 1)])
        rows = []
        for seed in range(ctx.pick(1, 3)):
            for b in (20, 1):
                sw = _runs.e1_sweep(seed, b, ctx.budget)
                lanes = sw.lanes
                for i in range(len(lanes.gammas)):
                    m = lanes.max_abs_s[i]
                    if m >= 1 or lanes.status[i] != _dln.CONVERGED:
                        continue
                    ratio = lanes.gain[i].sum() / lanes.sum_s2[i].sum()
                    rows.append((float(lanes.gammas[i]), b, float(ratio), float(1 / (1 - m * m))))
        if reverse:  # planted: Gain ≤ Σ s²
            bad = [r for r in rows if r[2] > 1 + 1e-12]
            return outcome(Status.REFUTED if bad else Status.SUPPORTED,
                           f"{len(bad)} of {len(rows)} runs have ‖Gain‖₁/Σ‖s_k‖² > 1 "
                           f"(max {max(r[2] for r in rows):.4f})", runs=len(rows))
        ok = all(lower - 1e-12 <= r[2] <= r[3] * (1 + 1e-12) for r in rows)
        small = min(rows, key=lambda r: r[0])
        return outcome(Status.SUPPORTED if ok and rows else Status.REFUTED,
                       f"{len(rows)} E1 runs (m < 1): ‖Gain‖₁/Σ_kγ²‖g_k‖² ∈ [1, 1/(1−m²)]; at the "
                       f"smallest γ = {small[0]:.3g} the ratio is {small[2]:.5f}",
                       runs=len(rows), ratio_range=[min(r[2] for r in rows), max(r[2] for r in rows)],
                       smallest_gamma_ratio=small[2])
    return run


FACT6 = Claim(
    id="even2023.fact6",
    source=PAPER.at("§3.1 (prose)"),
    title="The deviation from gradient flow is driven by Σ_k q(γ_k g_k) ≈ Σ_k γ_k² g_k²",
    statement=r"|s_k|<1:\ \sum_k s_k^2 \le \mathrm{Gain} \le \sum_k s_k^2/(1-m^2)",
    uses=("even2023.def8", "even2023.def12", "even2023.thm1"),
    status="heuristic",
    trust="R",
    expect="supported",
    checks=(
        sampling.forall("q_sandwich", st.floats(-0.999, 0.999),
                        lambda s: (_dln.q_sandwich(s), {"s": s}),
                        examples=(300, 3000)),
        Check("ratio_on_runs", _fact6(False), "TRAJ"),
    ),
    planted=(Planted("p1", "Gain ≤ Σ_k s_k² (reversed)", Check("p1_reversed", _fact6(True), "TRAJ")),
             near_miss("p2", "near miss: ‖Gain‖₁ ≥ 1.005·Σ_k‖s_k‖² (the lower sandwich constant 0.5% larger)",
                       Check("p2_lower_1_005", _fact6(False, lower=1.005), "TRAJ"),
                       margin=lambda d: (1.005 - d["ratio_range"][0], f"smallest ‖Gain‖₁/Σ‖s_k‖² = "
                                         f"{d['ratio_range'][0]:.5f} < 1.005") if "ratio_range" in d else None)),
)


# =========================================================================== Theorem 2

def _lhat_bhat(p: _dln.Problem, b: int):
    H = p.X.T @ p.X / p.n
    L = float(np.linalg.eigvalsh(H)[-1]) if b >= p.n else float(np.max(np.sum(p.X ** 2, 1)))
    bl1 = _dln.l1_interpolator(p.X, p.y)
    from scipy.optimize import linprog
    n, d = p.X.shape
    # B̂ = inf_S ‖β‖_∞: minimise t s.t. Xβ = y, −t ≤ β ≤ t
    c = np.zeros(d + 1)
    c[-1] = 1
    A_ub = np.vstack([np.hstack([np.eye(d), -np.ones((d, 1))]), np.hstack([-np.eye(d), -np.ones((d, 1))])])
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(2 * d), A_eq=np.hstack([p.X, np.zeros((n, 1))]),
                  b_eq=p.y, bounds=[(None, None)] * d + [(0, None)], method="highs")
    return L, float(res.x[-1]), bl1


# the stepsize condition of Theorem 2, γ ≤ c/(LB), read with a universal c: every problem is run at
# γ = c₀/(L̂B̂) for these c₀, fixed before any run (never derived from a measured threshold, which would
# make convergence hold by construction). The family: E1 data sets (GD and SGD b = 1) and Gaussian
# problems of other sizes.
THM2_C0 = (1.0, 0.5, 0.25)


def _thm2_problems(budget: str):
    e1 = [_dln.e1_problem(s) for s in range(2 if budget == "quick" else 3)]
    other = [_dln.sparse_problem(10, 25, 2, 0.1, seed=7001), _dln.sparse_problem(30, 40, 4, 0.1, seed=7002)]
    return e1 + other[: 1 if budget == "quick" else 2]


@lru_cache(maxsize=None)
def thm2_stepsize_runs(budget: str) -> dict:
    """Runs at γ = c₀/(L̂B̂), c₀ ∈ THM2_C0, for every problem of the family and b ∈ {n, 1} (shared by
    thm2 and prop3.finite): outcome, Σ_k L and the distance to Theorem 1's limit per run."""
    rows = {}
    for j, p in enumerate(_thm2_problems(budget)):
        for b in (p.n, 1):
            L, B, _ = _lhat_bhat(p, b)
            c0 = np.array(THM2_C0)
            lanes = _dln.run_lanes(p, c0 / (L * B), b=None if b == p.n else b, seeds=j,
                                   max_steps=300_000 if budget == "quick" else 5_000_000, tol_rel=1e-16)
            runs = []
            for i in range(len(c0)):
                miss = None
                if lanes.status[i] == _dln.CONVERGED:
                    sol = _implicit.solve_f64(p.X, p.y, lanes.ln_alpha2[i], lanes.phi[i])
                    miss = float(np.linalg.norm(sol.beta - lanes.beta[i]) / np.linalg.norm(sol.beta))
                runs.append({"c0": float(c0[i]), "gamma": float(c0[i] / (L * B)), "outcome": lanes.outcome(i),
                             "steps": int(lanes.steps[i]), "sum_loss": float(lanes.sum_loss[i]),
                             "thm1_miss": miss})
            rows[f"{p.label} b={b}"] = {"L_hat": L, "B_hat": B, "runs": runs}
    return rows


def _thm2_family(ctx):
    rows = thm2_stepsize_runs(ctx.budget)
    runs = [(k, r) for k, v in rows.items() for r in v["runs"]]
    blown = [(k, r) for k, r in runs if r["outcome"] == "blown_up"]
    open_ = [(k, r) for k, r in runs if r["outcome"] not in ("converged", "blown_up")]
    off = [(k, r) for k, r in runs if r["thm1_miss"] is not None and r["thm1_miss"] >= 1e-5]
    data = {"problems": rows, "c0_grid": list(THM2_C0), "runs": len(runs)}
    if blown or off:
        k, r = (blown or off)[0]
        return outcome(Status.REFUTED, f"{len(blown)} run(s) blow up and {len(off)} miss Theorem 1's limit at "
                       f"γ = c₀/(L̂B̂), c₀ ∈ {list(THM2_C0)}; first witness {k}, c₀ = {r['c0']:g}: "
                       f"{r['outcome']}", witness={"problem": k, **r}, **data)
    if open_:
        k, r = open_[0]
        return outcome(Status.INCONCLUSIVE, f"{len(open_)} run(s) ended {r['outcome']} (first {k}, c₀ = "
                       f"{r['c0']:g}); raise max_steps", **data)
    worst = max(r["thm1_miss"] for _, r in runs)
    return outcome(Status.SUPPORTED, f"{len(rows)} problems × c₀ ∈ {list(THM2_C0)} (fixed, not derived from a "
                   f"measured threshold): every run at γ = c₀/(L̂B̂) converged to Theorem 1's limit (worst "
                   f"relative miss {worst:.1e})", thm1_miss_max=worst, **data)


def _thm2_c_too_large(c0: float):
    """Planted: 'c = c₀ is admissible' — refuted by a run at γ = c₀/(L̂B̂) that does not converge."""
    def run(ctx):
        for j, p in enumerate(_thm2_problems(ctx.budget)):
            for b in (p.n, 1):
                L, B, _ = _lhat_bhat(p, b)
                r = _dln.run_lanes(p, [c0 / (L * B)], b=None if b == p.n else b, seeds=j, max_steps=100_000,
                                   tol_rel=1e-16)
                if r.outcome(0) in ("blown_up", "hit_pm1"):
                    # the witness's own divergence step, bracketed below c₀ (the margin of a near miss:
                    # how far c₀ lies above the smallest non-convergent c found, hi of the bracket)
                    br = _dln.locate_threshold(p, b=None if b == p.n else b, seed=j, lo=0.5 / (L * B),
                                               hi=c0 / (L * B), rel=1e-2, lanes=8, max_steps=100_000,
                                               tol_rel=1e-16)
                    return outcome(Status.REFUTED, f"witness: {p.label} b={b} at γ = {c0:g}/(L̂B̂) = "
                                   f"{c0 / (L * B):.4g}: {r.outcome(0)}; this problem stops converging at "
                                   f"c ∈ [{br.lo * L * B:.4g}, {br.hi * L * B:.4g}]", c0=c0, problem=p.label,
                                   b=b, outcome=r.outcome(0), witness_c_lo=br.lo * L * B,
                                   witness_c_hi=br.hi * L * B)
        return outcome(Status.SUPPORTED, f"every problem converges at c₀ = {c0:g}", c0=c0)
    return run


# near miss of thm2.family / prop3.finite: the largest c₀ of the tested grid, 1, raised to just above the
# smallest measured γ̃_max·L̂·B̂ (≈ 1.85, GD on gauss(10, 25, 2) and E1 seed 1; at c₀ = 2 and 2.05 those
# runs stall rather than diverge, at 2.1–2.2 the Gaussian one blows up)
THM2_NEAR_MISS_C0 = 2.2


def thm2_c_margin(d):
    """Near-miss margin of a planted admissible c₀: relative excess of c₀ over the witness's own
    divergence step (the bracket's upper end, so the margin is not overstated)."""
    if "witness_c_hi" not in d:
        return None
    excess = d["c0"] / d["witness_c_hi"] - 1
    return excess, (f"c₀ = {d['c0']:g} lies {excess:.3g} (relative) above the stepsize at which {d['problem']} "
                    f"b={d['b']} stops converging, c ∈ [{d['witness_c_lo']:.4g}, {d['witness_c_hi']:.4g}]")


def thm2_c_near_miss(tag: str, what: str):
    return near_miss(tag, f"near miss: {what} at γ = c₀/(L̂B̂) with c₀ = {THM2_NEAR_MISS_C0:g} (the grid's largest "
                     f"c₀ = 1 raised to just above the smallest measured γ̃_max·L̂·B̂; the margin gives the bracket)",
                     Check(f"{tag}_c_equals_{THM2_NEAR_MISS_C0:g}", _thm2_c_too_large(THM2_NEAR_MISS_C0), "TRAJ"),
                     margin=thm2_c_margin)


def _thm2_bitwise(ctx):
    """thm2.scaling: rescaling by powers of 2 gives bitwise-identical float64 runs."""
    p = _dln.e1_problem(0)
    g = np.array([0.1, 0.5, 1.0])
    base = _dln.run_lanes(p, g, max_steps=3000, tol_rel=0.0)
    t = 4.0
    p1 = _dln.Problem(p.X, t * p.y, np.sqrt(t) * p.alpha, None, "(X, 4y, 2α)")
    r1 = _dln.run_lanes(p1, g / t, max_steps=3000, tol_rel=0.0)
    s = 0.5
    p2 = _dln.Problem(s * p.X, s * p.y, p.alpha, None, "(X/2, y/2, α)")
    r2 = _dln.run_lanes(p2, g / s ** 2, max_steps=3000, tol_rel=0.0)
    same1 = bool(np.array_equal(r1.beta, t * base.beta) and np.array_equal(r1.gain, base.gain))
    same2 = bool(np.array_equal(r2.beta, base.beta) and np.array_equal(r2.gain, base.gain))
    return outcome(Status.SUPPORTED if same1 and same2 else Status.REFUTED,
                   f"3000 GD steps at γ ∈ {list(g)}: (X, 4y, 2α, γ/4) ↦ 4β bitwise: {same1}; "
                   f"(X/2, y/2, α, 4γ) ↦ β bitwise: {same2}", family_i=same1, family_ii=same2)


def _thm2_planted(which: str):
    def run(ctx):
        p = _dln.e1_problem(0)
        br = _runs.e1_threshold(0, p.n, ctx.budget)
        L, B, _ = _lhat_bhat(p, p.n)
        if which == "p1":   # γ ≤ c/L̂ with c := γ̃_lo L̂ (true at t = 1); family (i), t = 4
            c = br.lo * L
            t = 4.0
            q = _dln.Problem(p.X, t * p.y, np.sqrt(t) * p.alpha, None, "t=4")
            gam = c / L        # L̂ unchanged under (i)
        else:               # γ ≤ c/(B̂ L̂²) with c := γ̃_lo B̂ L̂²; family (ii), s = 1/2
            c = br.lo * B * L ** 2
            s = 0.5
            q = _dln.Problem(s * p.X, s * p.y, p.alpha, None, "s=1/2")
            gam = c / (B * (s * s * L) ** 2)
        r = _dln.run_lanes(q, [gam], max_steps=300_000, tol_rel=1e-16)
        conv = r.status[0] == _dln.CONVERGED
        return outcome(Status.SUPPORTED if conv else Status.REFUTED,
                       f"witness: admissible γ' = {gam:.4g} on the rescaled problem ({q.label}) "
                       f"{'converges' if conv else 'does not converge: ' + r.outcome(0)}",
                       gamma=gam, c=c, outcome=r.outcome(0), steps=int(r.steps[0]))
    return run


THM2 = Claim(
    id="even2023.thm2",
    source=PAPER.at("Theorem 2, §3.1"),
    title="Convergence for macroscopic stepsizes γ_k ≤ c/(LB)",
    statement=r"\exists B = O(\inf_S\|\beta\|_\infty), c>0:\ \gamma_k \le c/(LB) \Rightarrow "
              r"\beta_k \to \beta^*_\infty\ a.s.;\ .scaling: (X,ty,\sqrt t\alpha,\gamma/t)\mapsto t\beta,"
              r"\ (sX,sy,\alpha,\gamma/s^2)\mapsto\beta",
    # not prop3: Proposition 3 (§4.1) is stated under Theorem 2's stepsizes, so it uses thm2
    uses=("even2023.thm1", "even2023.fact5", "even2023.def13", "even2023.def14"),
    status="theorem",
    trust="M",
    expect="supported",
    notes="Statement [M] (display not recovered); c, B, L hidden (F5): proxies L̂, B̂ of def13. The "
          "stepsize condition is tested as printed: γ = c₀/(L̂B̂) with c₀ ∈ {1, 1/2, 1/4} fixed in "
          "advance (the family used to run at fractions of the measured divergence step, which converge "
          "by construction); a blow-up or a miss of Theorem 1's limit refutes. .scaling is derived and exact.",
    checks=(Check("family_convergence", _thm2_family, "TRAJ"),
            Check("scaling_bitwise", _thm2_bitwise, "TRAJ")),
    planted=(Planted("p1", "γ_k ≤ c/L suffices with c independent of the data",
                     Check("p1_c_over_L", _thm2_planted("p1"), "TRAJ")),
             Planted("p2", "γ_k ≤ c/(B̂L̂²) suffices", Check("p2_c_over_BL2", _thm2_planted("p2"), "TRAJ")),
             Planted("p3", "c = 4 is admissible",
                     Check("p3_c_equals_4", _thm2_c_too_large(4.0), "TRAJ")),
             thm2_c_near_miss("p4", "every problem converges to Theorem 1's limit")),
)


# =========================================================================== Proposition 1

@lru_cache(maxsize=None)
def _e8(budget: str):
    """E8: GD on the E1 data at α ∈ {0.3, 0.1, 0.03}, γ ∈ {0.2, 0.5, 1.5}; late-window loss ratios."""
    rows = []
    base = _dln.e1_problem(0)
    lam_b = float(np.linalg.eigvalsh(base.X @ base.X.T / base.n)[0])
    for a in (0.3, 0.1, 0.03):
        p = base.with_alpha(a)
        g = np.array([0.2, 0.5, 1.5])     # γ = 1.5: a non-negligible gain (for #p1)
        lanes = _dln.run_lanes(p, g, max_steps=3_000_000, tol_rel=1e-14, window=64)
        for i in range(len(g)):
            if lanes.status[i] != _dln.CONVERGED:
                rows.append({"alpha": a, "gamma": float(g[i]), "outcome": lanes.outcome(i)})
                continue
            w = lanes.loss_window[i]
            ratio = float(np.median(w[1:] / w[:-1]))
            u, v, beta = lanes.u[i], lanes.v[i], lanes.beta[i]

            def rho_of(D, squared=True):
                mu = np.linalg.eigvalsh((p.X * D) @ p.X.T / p.n)
                r = np.max(np.abs(1 - g[i] * mu))
                return float(r ** 2 if squared else 1 - g[i] * mu.min())
            D_true = u * u + v * v
            D_alpha = 2 * np.sqrt(beta ** 2 + a ** 4)               # planted: α in place of α_∞
            rows.append({"alpha": a, "gamma": float(g[i]), "outcome": "converged",
                         "steps": int(lanes.steps[i]), "ratio": ratio, "rho": rho_of(D_true),
                         "rho_p1_alpha": rho_of(D_alpha), "rho_p2_unsquared": rho_of(D_true, False),
                         "gain_l1": float(lanes.gain[i].sum()),
                         "R_paper_form": -math.log(ratio) / (g[i] * a * a * lam_b)})
    return rows, lam_b


def _prop1_local(which: str, power: float = 1.0):
    """``power``: the planted rate ρ^power (a near miss scales the local rate −ln ρ)."""
    key = {"truth": "rho", "p1": "rho_p1_alpha", "p2": "rho_p2_unsquared"}[which]

    def run(ctx):
        rows, lam_b = _e8(ctx.budget)
        conv = [r for r in rows if r["outcome"] == "converged"]
        # compare the rates −ln(ratio) and −ln ρ (relative tolerance 5%)
        errs = [abs(math.log(r["ratio"]) / (power * math.log(r[key])) - 1) for r in conv]
        if len(conv) < 4:
            return outcome(Status.INCONCLUSIVE, f"only {len(conv)} converged GD runs on E1 (4 needed)",
                           runs=rows)
        ok = max(errs) <= 0.05
        return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                       f"{len(conv)} converged GD runs on E1 (α ∈ {{0.3, 0.1, 0.03}}, γ ∈ {{0.2, 0.5, 1.5}}): late "
                       f"loss ratio vs ρ{'' if which == 'truth' else ' (' + which + ')'}: worst relative "
                       f"rate error {max(errs):.3g} (tolerance 0.05)",
                       runs=rows, worst_rate_error=max(errs), tolerance=0.05)
    return Check(f"local_rate_{which}", run, "TRAJ")


def _prop1_paper(ctx):
    rows, lam_b = _e8(ctx.budget)
    R = [r["R_paper_form"] for r in rows if r["outcome"] == "converged"]
    ok = min(R) > 0.05
    return outcome(Status.SUPPORTED if ok else Status.INCONCLUSIVE,
                   f"Ω-type paper form: R = −ln(ratio)/(γα²λ̂_b) ∈ [{min(R):.3g}, {max(R):.3g}] "
                   f"(λ̂_b = λ_min(XXᵀ/n) = {lam_b:.4g}); bounded away from 0 on this grid"
                   + ("" if ok else " — not bounded away from 0 (F6): the rate involves α_∞², not α²"),
                   R_min=min(R), R_max=max(R), lambda_b_hat=lam_b)


PROP1 = Claim(
    id="even2023.prop1",
    source=PAPER.at("Proposition 1, §3.1 (number inferred, §10 F14)"),
    title="Exponential rates for the loss (and the iterates)",
    statement=r"E L(\beta_k)\le(1-c\gamma\alpha^2\lambda_b)^kL(\beta_0);\ .local: L(\beta_{k+1})/L(\beta_k)\to"
              r"\rho=\max_j(1-\gamma\mu_j)^2,\ \mu=spec(XDX^\top/n),\ D=diag(u_\infty^2+v_\infty^2)",
    hypotheses=("Theorem 2's assumptions (constants not recovered)",),
    # not fact9: fact9 identifies the sharpness with the μ_max of prop1.local, so it uses prop1
    uses=("even2023.thm2", "even2023.fact1", "even2023.def13"),
    status="theorem",
    trust="U",
    expect="supported",
    notes="[U] display not recovered; the recalled form has α² where the local rate has α_∞² (F6). "
          ".local is derived [R]. The Ω-type paper form is reported with R = −ln(ratio)/(γα²λ̂_b); it "
          "is never refuted (hypotheses not recovered).",
    checks=(_prop1_local("truth"), Check("paper_form_omega", _prop1_paper, "RATE")),
    planted=(Planted("p1", "ρ computed with α in place of α_∞", _prop1_local("p1")),
             Planted("p2", "ρ := 1 − γμ_min (not squared)", _prop1_local("p2")),
             near_miss("p3", "near miss: the local rate is ρ^{1.15} (−ln ρ 15% too large; 3 tolerances)",
                       _prop1_local("truth", power=1.15),
                       margin=lambda d: (d["worst_rate_error"] - d["tolerance"], f"worst relative rate error "
                                         f"{d['worst_rate_error']:.3g} vs tolerance {d['tolerance']}")
                       if "worst_rate_error" in d else None)),
)
