"""even2023 §4 and App. G: the gain grows with the stepsize (eq. 11), and the heterogeneity of the
initial gradients (eqs. 25–26, Observation 1). The gain's definition, its weighted-ℓ1 reading and
its link with the sum of losses (eqs. 9–10, Prop. 3, fact7) are in ``sec4_gain``; the effect of
stochasticity (Prop. 16) in ``sec4_prop16``.

Spec: ``shared/spec/even2023.md`` §4; experiments E1, E6, E7.
Most displays of this section were not recovered ([U]): the checks test the derived content.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import sympy as sp
from scipy.stats import spearmanr

from verify import Claim, Planted, Status
from verify import asymptotic, symbolic
from verify.asymptotic import Series
from verify.claim import Check, outcome
from verify.nearmiss import near_miss
from verify.theta import theta_by_slopes

from . import PAPER, _dln, _implicit, _runs
from .sec4_gain import NOT_RECOVERED

# E1's thresholds and stepsize sweeps (claims.even2023._runs, cached per process) are shared with
# the other modules declaring this label: a parallel run keeps them on one worker
SHARED_RUNS = "even2023.E1"

# =========================================================================== eq11

@lru_cache(maxsize=None)
def _sgd_small_gamma(budget: str):
    """SGD b = 1 on E3 at γ = 0.05·2^{−3j/4}, j = 0..7 (8 points over 1.58 decades: the fit
    rules), mean ‖Gain‖₁ over batch seeds."""
    p = _dln.e3_problem(0)
    g = 0.05 * 2.0 ** (-0.75 * np.arange(0, 8))
    reps = 16 if budget == "quick" else 32
    lanes = _dln.run_lanes(p, np.repeat(g, reps), b=1, seeds=np.tile(np.arange(reps), len(g)),
                           max_steps=2_000_000, tol_rel=1e-20)
    gl = lanes.gain.sum(1).reshape(len(g), reps)
    ok = (lanes.status == _dln.CONVERGED).reshape(len(g), reps).all(1)
    return g, gl, ok, reps


def _eq11_series(which: str):
    def measure(ctx):
        if which == "gd":
            sw = _runs.e6_sweep()
            lanes = sw["lanes"]
            y = np.where(lanes.status == _dln.CONVERGED, lanes.gain.sum(1), np.nan)
            return Series(lanes.gammas, y, {"algorithm": "GD", "problem": "E3 (E6 grid)"})
        g, gl, ok, reps = _sgd_small_gamma(ctx.budget)
        m = gl.mean(1)
        se = gl.std(1, ddof=1) / np.sqrt(reps)
        return Series(g, np.where(ok, m, np.nan), {"algorithm": "SGD b=1", "batch_seeds": reps,
                                                   "stderr_of_mean": se.tolist(), "problem": "E3"})
    return measure


def _eq11_monotone(planted: bool):
    def run(ctx):
        data = {}
        inc = True
        for b in (20, 1):
            sw = _runs.e1_sweep(0, b, ctx.budget)
            c = sw.status == _dln.CONVERGED
            gl = sw.gain_l1[c]
            rho = float(spearmanr(sw.gammas[c], gl)[0])
            strictly = bool(np.all(np.diff(gl) > 0))
            data["GD" if b == 20 else "SGD b=1 (mean over seeds)"] = {
                "spearman": rho, "strictly_increasing": strictly, "gain_l1": gl, "gammas": sw.gammas[c]}
            inc &= strictly if b == 20 else rho > 0.9
        if planted:   # "‖Gain_γ‖₁ decreasing in γ"
            return outcome(Status.REFUTED if inc else Status.SUPPORTED,
                           "gain increases along the E1 grid (GD strictly, SGD in mean)", runs=data)
        return outcome(Status.SUPPORTED if inc else Status.REFUTED,
                       "‖Gain_γ‖₁ increases along E1's γ-grid up to γ̃_max: GD strictly, SGD in mean "
                       "(Spearman > 0.9)", runs=data)
    return run


EQ11_KAPPA = 0.5   # Θ parameter: the statement is read on γ ≤ κ·γ̃_max


@lru_cache(maxsize=None)
def _eq11_theta_runs(b: int, budget: str):
    """E1, GD (b = n) or SGD b = 1, at γ = κ·γ̃_max·32^{−j/7}, j = 0..7: 8 stepsizes over 1.5
    decades below κ·γ̃_max (the fit rules; E1's figure grid has only 4–5 points below κ·γ̃_max).
    Runs stop at L ≤ 1e−10 L_0 (the gain no longer moves: same gains as at 1e−16 to the digit);
    SGD: mean over 3 (quick) or 8 (full) batch seeds. Returns (γ, mean ‖Gain‖₁, all converged)."""
    p = _dln.e1_problem(0)
    br = _runs.e1_threshold(0, b, budget)
    g = EQ11_KAPPA * br.lo * 32.0 ** (-np.arange(8) / 7)
    reps = 1 if b >= p.n else (8 if budget == "full" else 3)
    lanes = _dln.run_lanes(p, np.repeat(g, reps), b=b if b < p.n else None,
                           seeds=np.tile(np.arange(reps), len(g)), max_steps=2_000_000, tol_rel=1e-10)
    gl = lanes.gain.sum(1).reshape(len(g), reps).mean(1)
    ok = (lanes.status == _dln.CONVERGED).reshape(len(g), reps).all(1)
    return g, gl, ok, reps, br.lo


def _eq11_theta(ctx):
    """Θ(γ ℓ ψ_α(β*_α)) by slopes: R = ‖Gain‖₁/(γ ℓ̂ ψ_α(β*_α)) must have log-slope 0 ± τ in γ for
    γ ≤ κ·γ̃_max (engine fit rules, read toward γ → 0), separately for GD and SGD (their
    Θ-constants differ: ℓ̂ is λ_max or mean ‖x_i‖²)."""
    out, axes = {}, {}
    p = _dln.e1_problem(0)
    psi = _psi_gf(p)
    for b in (20, 1):
        g, gl, ok, reps, gmax = _eq11_theta_runs(b, ctx.budget)
        ell = (np.linalg.eigvalsh(p.X.T @ p.X / p.n)[-1] if b == 20 else np.mean(np.sum(p.X ** 2, 1)))
        R = np.where(ok, gl / (g * ell * psi), np.nan)
        name = "GD" if b == 20 else "SGD b=1"
        axes[name] = (g, R)
        out[name] = {"R": R, "gammas": g, "ell_hat": float(ell), "gamma_tilde_max": gmax,
                     "batch_seeds": reps, "converged": ok}
    ev = theta_by_slopes(axes, 0.25, law=f"R = ‖Gain‖₁/(γ ℓ̂ ψ_α(β*_α)), γ ≤ {EQ11_KAPPA}·γ̃_max", pool=False)
    return outcome(ev.status, ev.summary, kappa=EQ11_KAPPA, runs=out, **dict(ev.data))


def _psi_gf(p):
    sol = _implicit.gf_solution(p)
    a2 = p.alpha ** 2
    b = sol.beta
    return float(0.5 * np.sum(b * np.arcsinh(b / a2) - np.sqrt(b ** 2 + a2 ** 2) + a2))


EQ11 = Claim(
    id="even2023.eq11",
    source=PAPER.at("eq. (11), §4.1, App. G.1"),
    title="The gain grows (linearly) with the stepsize",
    statement=r"\|\mathrm{Gain}_\gamma\|_1=\Theta(\gamma\,\ell\,\ln(1/\alpha)\|\beta^*_{\ell_1}\|_1),\ increasing\ in\ \gamma",
    hypotheses=("0 < γ ≤ γ_max = c/(BL) as in Theorem 2",),
    uses=("even2023.eq10", "even2023.fact7", "even2023.thm2", "even2023.def12"),
    status="theorem",
    trust="U",
    expect="supported",
    notes=f"[U] {NOT_RECOVERED}: reconstructed Θ form; scaling [R]. Slope τ = 0.25; Θ parameter κ = 0.5: "
          "the ratio's slope is fitted on E1 at 8 stepsizes over 1.5 decades below κ·γ̃_max (GD, and SGD b = 1 "
          "averaged over batch seeds), the engine's fit rules.",
    checks=(
        asymptotic.rate("gd_slope_1", _eq11_series("gd"), 1.0, 0.25, law="‖Gain‖₁ vs γ (GD)"),
        asymptotic.rate("sgd_slope_1", _eq11_series("sgd"), 1.0, 0.25, law="E‖Gain‖₁ vs γ (SGD b=1)"),
        Check("increasing_on_E1", _eq11_monotone(False), "TRAJ"),
        Check("theta_ratio", _eq11_theta, "RATE"),
    ),
    planted=(Planted("p1", "‖Gain_γ‖₁ ∝ γ²", asymptotic.rate("p1_slope_2", _eq11_series("gd"), 2.0, 0.25)),
             near_miss("p3", "near miss: ‖Gain_γ‖₁ ∝ γ^{1.5} (exponent off by 2τ)",
                       asymptotic.rate("p3_slope_1_5", _eq11_series("gd"), 1.5, 0.25)),
             Planted("p2", "‖Gain_γ‖₁ decreasing in γ", Check("p2_decreasing", _eq11_monotone(True), "TRAJ"))),
)


# =========================================================================== eq25 / eq26

_sig = sp.Symbol("sigma", positive=True)
def _isserlis(j_on: bool, variant: str = "truth"):
    """E[x_j²⟨x, β⟩²] for x ∼ N(0, σ²I_3) (sympy.stats), compared with σ⁴(‖β‖² + 2β_j²)."""
    import sympy.stats as ss
    b = sp.symbols("b1:4", real=True)
    xs = [ss.Normal(f"x{i}", 0, _sig) for i in range(3)]
    e = ss.E(sp.expand(xs[0] ** 2 * sum(bi * xi for bi, xi in zip(b, xs)) ** 2))
    norm2 = sum(bi ** 2 for bi in b)
    if variant == "gd_var":     # Var of one term: σ⁴(‖β‖² + β_j²)
        return sp.expand(e - _sig ** 4 * b[0] ** 2 - _sig ** 4 * (norm2 + b[0] ** 2))
    if variant == "gd_var_p1":  # planted: the β_j² term dropped
        return sp.expand(e - _sig ** 4 * b[0] ** 2 - _sig ** 4 * norm2)
    return sp.expand(e - _sig ** 4 * (norm2 + 2 * b[0] ** 2))


@lru_cache(maxsize=None)
def _e7(budget: str):
    rng = np.random.default_rng(7007)
    n, d = 20, 30
    beta = np.zeros(d)
    beta[:3] = [2.0, -1.0, 0.5]
    N = 4000 if budget == "quick" else 16000
    gd = np.empty((N, d))
    sgd2 = np.zeros(d)
    sgd2_sq = np.zeros(d)
    for start in range(0, N, 500):
        X = rng.standard_normal((min(500, N - start), n, d))
        proj = X @ beta                                      # (m, n)
        gi = -X * proj[..., None]                            # ∇L_i(0) = −x_i⟨x_i, β*⟩
        gd[start:start + len(X)] = gi.mean(1)
        sq = (gi ** 2).reshape(-1, d)
        sgd2 += sq.sum(0)
        sgd2_sq += (sq ** 2).sum(0)
    M = N * n
    sgd_mean = sgd2 / M
    sgd_se = np.sqrt(np.maximum(sgd2_sq / M - sgd_mean ** 2, 0) / M)
    return n, d, beta, N, gd, sgd_mean, sgd_se


def _eq25_mc(variant: str, coef: float = 1.0):
    """``coef``: the coefficient of β_j² in the variance (1 in eq. (25)); a near miss changes it."""
    def run(ctx):
        n, d, beta, N, gd, _, _ = _e7(ctx.budget)
        nb2 = beta @ beta
        var = gd.var(0, ddof=1)
        mean = gd.mean(0)
        var_pred = (nb2 + coef * beta ** 2) / n if variant == "truth" else np.full(d, nb2 / n)
        # standard error of the sample variance (normal approximation with the sample kurtosis)
        m4 = ((gd - mean) ** 4).mean(0)
        se_var = np.sqrt(np.maximum(m4 - var ** 2, 0) / N)
        z_var = (var - var_pred) / se_var
        z_mean = (mean + beta) / (gd.std(0, ddof=1) / np.sqrt(N))
        ok = np.max(np.abs(z_var)) < 5 and np.max(np.abs(z_mean)) < 5
        m2_pred = (1 + 1 / n) * beta ** 2 + nb2 / n
        ratio = m2_pred[0] / m2_pred[-1]
        return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                       f"{N} datasets (n={n}, d={d}, σ=1): max |z| of Var((∇L(β_0))_j) vs prediction = "
                       f"{np.max(np.abs(z_var)):.2f}, of the mean = {np.max(np.abs(z_mean)):.2f} (< 5 required); "
                       f"support/off-support ratio of E(∇L)_j² = {ratio:.2f} (predicted 1 + (n+1)β_j²/‖β‖²)",
                       datasets=N, z_var_max=float(np.max(np.abs(z_var))), z_mean_max=float(np.max(np.abs(z_mean))),
                       heterogeneity_ratio=float(ratio), seed=7007)
    return Check(f"monte_carlo_{variant}", run, "INT")


def _mc_margin(data):
    """Margin of a Monte Carlo refutation: standard errors beyond the 5-sigma band."""
    z = max(data.get(k, -np.inf) for k in ("z_var_max", "z_mean_max", "z_max"))
    if not np.isfinite(z):
        return None
    return z - 5.0, f"largest |z| {z:.1f} vs the 5-sigma band"


EQ25 = Claim(
    id="even2023.eq25",
    source=PAPER.at("eq. (25), App. G.4"),
    title="GD's initial gradient is heterogeneous (large on the support)",
    statement=r"\nabla L(\beta_0)=-H\beta^*,\ E\nabla L(\beta_0)=-\sigma^2\beta^*,\ Var((\nabla L(\beta_0))_j)=\sigma^4(\|\beta^*\|^2+\beta_j^{*2})/n",
    hypotheses=("noiseless y = Xβ*_sparse, x_i ∼ N(0, σ²I_d) i.i.d., β_0 = 0",),
    uses=("even2023.def1", "even2023.def2"),
    status="theorem",
    trust="U",
    expect="supported",
    notes=f"[U] {NOT_RECOVERED} (the high-probability display); exact moments [R] derived.",
    checks=(symbolic.identity("isserlis_variance", lambda: _isserlis(True, "gd_var"), 0),
            _eq25_mc("truth")),
    planted=(Planted("p1", "Var((∇L(β_0))_j) = σ⁴‖β*‖²/n for every j (β_j² term dropped)",
                     _eq25_mc("p1")),
             near_miss("p2", "near miss: Var((∇L(β_0))_j) = σ⁴(‖β*‖² + 1.5β_j*²)/n (about 2× the 5-sigma "
                       "resolution on the largest coordinate)", _eq25_mc("truth", coef=1.5), margin=_mc_margin)),
)


def _eq26_mc(variant: str, coef: float = 2.0):
    """``coef``: the coefficient of β_j² in the second moment (2 in eq. (26)); a near miss changes it."""
    def run(ctx):
        n, d, beta, N, _, m, se = _e7(ctx.budget)
        nb2 = beta @ beta
        pred = nb2 + coef * beta ** 2 if variant == "truth" else (1 + 1 / n) * beta ** 2 + nb2 / n
        z = (m - pred) / se
        ok = np.max(np.abs(z)) < 5
        spread = float(pred.max() / pred.min())
        return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                       f"{N}×{n} samples: max |z| of E(∇L_i(β_0))_j² vs prediction = {np.max(np.abs(z)):.2f} "
                       f"(< 5 required); predicted spread max/min = {spread:.2f} (≤ 3: homogeneous)",
                       samples=N * n, z_max=float(np.max(np.abs(z))), spread=spread, seed=7007)
    return Check(f"monte_carlo_{variant}", run, "INT")


EQ26 = Claim(
    id="even2023.eq26",
    source=PAPER.at("eq. (26), App. G.4"),
    title="SGD's initial stochastic gradients are homogeneous (within a factor 3)",
    statement=r"\nabla L_i(\beta_0)=-x_i\langle x_i,\beta^*\rangle,\ E(\nabla L_i(\beta_0))_j^2=\sigma^4(\|\beta^*\|^2+2\beta_j^{*2})",
    hypotheses=("as eq25, b = 1",),
    uses=("even2023.def1", "even2023.def2"),
    status="theorem",
    trust="U",
    expect="supported",
    notes=f"[U] {NOT_RECOVERED}; exact moments [R] derived.",
    checks=(symbolic.identity("isserlis_second_moment", lambda: _isserlis(True), 0), _eq26_mc("truth")),
    planted=(Planted("p1", "E(∇L_i(β_0))_j² equals GD's moment from eq25", _eq26_mc("p1")),
             near_miss("p2", "near miss: E(∇L_i(β_0))_j² = σ⁴(‖β*‖² + 2.5β_j*²)", _eq26_mc("truth", coef=2.5),
                       margin=_mc_margin)),
)


# =========================================================================== obs1

C_OBS = 0.85        # the project's threshold (no value printed; the display was not recovered)
C_OBS_STRICT = 0.95  # a stricter reading, reported (not tested) alongside
C_OBS_NEAR_MISS = 0.9  # near miss: c_obs raised to just above the measured worst run (≈ 0.865, quick budget)


def _cos(a, b):
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def _obs1(planted: bool, c_obs: float = C_OBS):
    """``c_obs``: the cosine the shape must reach by 1 % of the run (C_OBS; a near miss raises it)."""
    def run(ctx):
        rows = []
        ok = True
        late_max = -1.0
        for b in (20, 1):
            p = _dln.e1_problem(0)
            sw = _runs.e1_sweep(0, b, ctx.budget)
            lanes = sw.lanes
            g0 = p.X.T @ p.y / p.n if b == 20 else None
            if b == 20:
                init = g0 ** 2
            else:
                init = np.mean((p.X * p.y[:, None]) ** 2, 0)
            idx = [i for i in range(len(lanes.gammas)) if lanes.status[i] == _dln.CONVERGED
                   and lanes.gammas[i] >= 0.5 * sw.bracket.lo]
            for i in idx:
                K = int(lanes.steps[i])
                G = lanes.gain[i]
                snaps = lanes.gain_snapshots[i]
                js = [j for j in range(snaps.shape[0]) if 2 ** j <= K]
                cos_k = {2 ** j: _cos(G, snaps[j]) for j in js}
                early = [k for k, c in cos_k.items() if c >= c_obs and k <= max(1, K // 100)]
                best_early = max(c for k, c in cos_k.items() if k <= max(1, K // 100))
                strict = [k for k in early if cos_k[k] >= C_OBS_STRICT]
                jl = max(j for j in js if 2 ** j <= K // 2)
                late = G - snaps[jl]
                c_late = _cos(G, late) if np.linalg.norm(late) > 0 else 0.0
                late_max = max(late_max, c_late)
                good = bool(early)
                ok &= good
                rows.append({"algorithm": "GD" if b == 20 else "SGD b=1", "gamma": float(lanes.gammas[i]),
                             "steps": K, "first_K0_reaching_c_obs": min(early) if early else None,
                             "first_K0_reaching_strict": min(strict) if strict else None,
                             "cos_at_1pct": cos_k[max(k for k in cos_k if k <= max(1, K // 100))],
                             "best_cos_by_1pct": best_early,
                             "cos_late_half": c_late, "cos_with_initial_gradient_sq": _cos(G, init)})
        if planted:   # "the late iterates set the shape" (on every run)
            late_min = min(r["cos_late_half"] for r in rows)
            bad = sum(r["cos_late_half"] < C_OBS for r in rows)
            return outcome(Status.SUPPORTED if late_min >= C_OBS else Status.REFUTED,
                           f"{bad} of {len(rows)} runs have cos(Gain, gain from the last half of the run) "
                           f"< c_obs = {C_OBS} (min {late_min:.3f}, max {late_max:.3f})", runs=rows,
                           c_obs=C_OBS)
        strict = {a: f"{sum(r['first_K0_reaching_strict'] is not None for r in rows if r['algorithm'] == a)}"
                     f"/{sum(r['algorithm'] == a for r in rows)}" for a in ("GD", "SGD b=1")}
        worst = min((r["best_cos_by_1pct"] for r in rows), default=float("nan"))
        whose = " (project's threshold)" if c_obs == C_OBS else " (planted)"
        return outcome(Status.SUPPORTED if ok and rows else Status.REFUTED,
                       f"{len(rows)} E1 runs (γ ≥ γ̃_max/2, GD and SGD): cos(Gain, Gain^(K0)) ≥ c_obs = "
                       f"{c_obs}{whose} at some K0 ≤ 1% "
                       f"of the run (worst run's best cosine by 1 %: {worst:.4f}): "
                       f"{'all' if ok else 'not all'}; at the stricter {C_OBS_STRICT} (reported, not "
                       f"tested): {strict} runs", runs=rows, c_obs=c_obs, c_strict=C_OBS_STRICT,
                       runs_reaching_strict=strict, worst_best_cos_by_1pct=worst)
    return run


OBS1 = Claim(
    id="even2023.obs1",
    source=PAPER.at("Observation 1, §4.2"),
    title="The shape of the gain is fixed within the first 1 % of iterations, up to cos ≥ 0.85",
    statement=r"\cos(\mathrm{Gain}_\gamma,\mathrm{Gain}^{(K_0)})\ge c_{obs}\ for\ K_0\le1\%\ of\ the\ run",
    uses=("even2023.def12", "even2023.eq25", "even2023.eq26", "even2023.fig2"),
    status="empirical",
    trust="U",
    expect="supported",
    notes=f"[U] wording ({NOT_RECOVERED}). c_obs = {C_OBS} is the project's choice, not the paper's: "
          f"the evidence also reports how many runs reach the stricter {C_OBS_STRICT} by 1% of the run "
          "(per algorithm; GD's gain can be reshaped by the bouncing phase inside the EoS window). "
          "Runs: the upper half (γ ≥ γ̃_max/2) of the E1 grids, GD and SGD b = 1; partial gains "
          "recorded at K0 = 2^j; per-run cosines at 1% and of the last half's gain are in the evidence. "
          "Read at 0.95 ('largely fixed') the observation is not reproduced (even2023.obs1.printed).",
    checks=(Check("early_shape", _obs1(False), "TRAJ"),),
    planted=(Planted("p1", "the late iterates set the shape", Check("p1_late", _obs1(True), "TRAJ")),
             near_miss("p2", f"near miss: the shape is fixed by 1 % of the run up to cos ≥ {C_OBS_NEAR_MISS} (c_obs "
                       "raised to just above the measured worst run; the margin gives it)",
                       Check("p2_c_obs_0_9", _obs1(False, C_OBS_NEAR_MISS), "TRAJ"),
                       margin=lambda d: (d["c_obs"] - d["worst_best_cos_by_1pct"],
                                         f"worst run's best cosine by 1 % of the run "
                                         f"{d['worst_best_cos_by_1pct']:.4f} < planted c_obs = {d['c_obs']:g}: "
                                         f"short by {d['c_obs'] - d['worst_best_cos_by_1pct']:.3g}")
                       if "worst_best_cos_by_1pct" in d else None)),
)
