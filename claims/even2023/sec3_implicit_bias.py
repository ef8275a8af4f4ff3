"""even2023 §3: Propositions 15 and 18, the driver of the deviation from gradient flow (fact6),
Theorem 2 (convergence, scaling structure) and Proposition 1 (local rate). fact5 and Theorem 1 are in
``sec3_theorem1.py``.

Spec: ``shared/spec/even2023.md`` §3; experiments E6 (small γ), E8, E9. Precision and tolerances
are stated in each check's evidence.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from verify import Claim, Planted, Status
from verify import asymptotic
from verify.asymptotic import Series
from verify.claim import Check, outcome
from verify.nearmiss import near_miss
from . import PAPER, _dln, _implicit, _runs
from ._q_forms import q_nonneg_to_sqrt2_proved, q_pm_nonneg_proved, q_sandwich_proved

# E1's thresholds and stepsize sweeps (claims.even2023._runs, cached per process) are shared with
# the other modules declaring this label: a parallel run keeps them on one worker
SHARED_RUNS = "even2023.E1"


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
        q_pm_nonneg_proved("suff_q_nonneg"),
        Check("suff_stress_E9", _prop15_suff, "TRAJ"),
        # q(s) < 0 ⇒ |s| > √2 is the contrapositive of q ≥ 0 on |s| ≤ √2 (s ≠ ±1), proved for every s
        q_nonneg_to_sqrt2_proved("gt_q_negative_needs_sqrt2"),
        Check("need_witness_E9", _prop15_need(False), "TRAJ"),
    ),
    planted=(Planted("p1", "every converging run has |β̃_0| ≤ α², whatever its stepsizes",
                     Check("p1_no_condition", _prop15_need(True), "TRAJ")),
             near_miss("p2", "near miss: with m < 1, |β̃_0| < 0.27α² (just below the measured worst case)",
                       Check("p2_tighter", lambda ctx: _prop15_suff(ctx, 0.27), "TRAJ"),
                       margin=lambda d: (d["max_bt0_ratio"] - 0.27, f"max |β̃_0|/α² = {d['max_bt0_ratio']:.4f} "
                                         f">= 0.27") if "max_bt0_ratio" in d else None)),
)


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
        q_sandwich_proved("q_sandwich"),
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
                    sol = _implicit.solve_float(p.X, p.y, lanes.ln_alpha2[i], lanes.phi[i])
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
