"""even2023 §3: the mirror-descent identity behind Theorem 1 (fact5) and Theorem 1 itself —
trajectory-dependent implicit regularisation, with its tilt, the drop of the potential and the
scalar-stepsize form.

Spec: ``shared/spec/even2023.md`` §3; experiment E3 (Theorem 1 at high precision). Precision and
tolerances are stated in each check's evidence.
"""
from __future__ import annotations

import math
from functools import lru_cache

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
from ._q_forms import q_fn, q_minus, q_plus, x

t_pos = sp.Symbol("t", positive=True)          # t = e^{2φ} > 0
a_pos = sp.Symbol("a", positive=True)


# =========================================================================== fact5

def _fact5_runs(budget: str):
    """Runs that track the recursion at every step: GD with |s| > 1, SGD b = 1, random scalar γ_k."""
    return _fact5_cache(budget)




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
    try:  # float64, re-solved at 30 digits where the float64 Newton stops short (_implicit.solve_float)
        sol = _implicit.solve_float(problem.X, problem.y, ln_alpha2, lanes.phi[0])
    except RuntimeError:  # the prediction, not the run, would be wrong: undecided here
        return None, {"solver": "did not converge", "gamma": gamma}
    solver = "float64" if sol.dps is None else f"mpmath-{sol.dps}"
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
