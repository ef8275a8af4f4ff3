"""even2023 §4 and App. G: Proposition 16 — the effect of stochasticity on the gain,
E‖Gain‖₁ = Θ(γσ²d/b · ln(1/α) · ‖β*_ℓ1‖₁), measured on the E5 grid (batch size, stepsize,
initialisation scale, dimension) with the compiled gain-only SGD lanes of ``_gain_lanes``.

Spec: ``shared/spec/even2023.md`` §4; experiment E5 (reduced in the quick budget).
"""
from __future__ import annotations

import math

import numpy as np

from verify import Claim, Planted, Status
from verify import asymptotic
from verify.asymptotic import Series
from verify.claim import Check, outcome
from verify.nearmiss import near_miss
from verify.theta import theta_by_slopes

from . import PAPER, _dln, _gain_lanes


# =========================================================================== Proposition 16 (E5)

E5_N = 32   # samples: b = 1..n must span >= 1.5 decades for the batch fit (n = 20 gives 1.3)
E5_C0 = tuple(round(0.4 * 2.0 ** (-k / 2), 6) for k in range(11))        # γσ²d: 0.0125 … 0.4
E5_BATCH = (2, 3, 4, 6, 8, 11, 16, 23, 32)                                # with b = 1: 10 sizes
E5_ALPHA_DIGITS = tuple(round(2.0 ** (k / 2), 4) for k in range(11))     # α = 10^{-m}, m = 1 … 32
# Runs stop at L(β_K) ≤ E5_TOL_REL·L(β_0) (it was 1e-5). The loss decays ever more slowly near the
# interpolators, so 1e-4 → 1e-5 took ~75% of the steps (~4e8 of 5.4e8 at the full budget) for
# 0.13-0.23% of ‖Gain‖₁ (gamma c0 = 0.4 / 0.1 / 0.0125: 0.23%; b = 8: 0.19%; b = 23: 0.13%; α = 1e-1:
# 0.06%; α = 1e-32: 0.003%), below the base setting's standard error (0.39%). Measured at the full
# budget, seed 0, 1e-5 → 1e-4: slopes γ 1.0020 ± 0.0004 → 1.0020 ± 0.0004, b −0.9085 ± 0.0138 →
# −0.9082 ± 0.0138, ln(1/α) 1.0343 ± 0.0097 → 1.0348 ± 0.0096, Θ-constant 0.9876 ± 0.014 → 0.9862 ±
# 0.014, LSR ratios 1.0135 / 1.0523 → 1.0136 / 1.0525 (every change ≤ 0.1 of its error bar), for
# 103 s → 25 s of CPU. Both levels truncate the K → ∞ gain; neither verdict depends on the choice.
E5_TOL_REL = 1e-4


def _e5_settings(budget: str):
    """One factor at a time around the base (b = 1, σ² = 1, α = 1e-2, c₀ = 0.1, γ = c₀ b/(σ²d)).

    Every fitted axis has >= 8 settings over >= 1.5 decades (the engine's fit rules): c₀ = γσ²d on
    0.4·2^{-k/2} (11 values, 0.0125 … 0.4: extended downward, the top stays spec E5's 0.4, below
    γ_max); b on a √2-geometric integer grid 1 … n = 32; ln(1/α) on 2^{k/2}·ln 10, α = 1e-1 … 1e-32.
    Quick budget: base d = 48, 1 dataset, 4 batch seeds; full: base d = 96, 2 datasets, 16 batch
    seeds (d/n = 1.5 and 3 as in spec E5's d = 30, 60 at n = 20). Each entry: (label, d, alpha, b,
    gamma·σ²d).
    """
    d0 = 48 if budget == "quick" else 96
    S = []
    for c0 in E5_C0:
        S.append((f"gamma c0={c0:g}", d0, 1e-2, 1, c0))
    for b in E5_BATCH:                          # fixed γ = 0.1/(σ²d) (admissible for b = 1)
        S.append((f"batch b={b}", d0, 1e-2, b, 0.1))
    for m in E5_ALPHA_DIGITS:
        if m != 2:                              # α = 1e-2 is the base (gamma c0=0.1)
            S.append((f"alpha=1e-{m:g}", d0, 10.0 ** -m, 1, 0.1))
    for d in ((96,) if budget == "quick" else (48, 192)):
        S.append((f"d={d}", d, 1e-2, 1, 0.1))
    S.append(("lsr t=5", d0, 1e-2, 5, 0.25))   # (5γ, 5b) from the base (γ = 0.05/d, b = 1)
    return S


def _e5_seeds(seed: int, ds: int, reps: int) -> tuple[int, np.ndarray]:
    """(data seed, batch seeds) of dataset ``ds`` under the run's E5 seed: the same for every setting
    (common random numbers: the factor-at-a-time axes compare settings on the same data and batches),
    different for every run seed (so ``--seeds`` tests E5 on other data and batches)."""
    rng = np.random.default_rng([seed, ds])
    return int(rng.integers(2**62)), rng.integers(0, 2**31 - 1, reps)


def _e5_entry(task) -> dict:
    """One E5 setting over its datasets × batch seeds (a task of ``ctx.map``: pure in its inputs)."""
    budget, seed, (label, d, a, b, c0) = task
    datasets = 1 if budget == "quick" else 2
    reps = 4 if budget == "quick" else 16
    gamma = c0 / d                                   # σ² = 1 (its effect is exact: .sigma)
    vals = []
    norms = []
    for ds in range(datasets):
        data_seed, batch_seeds = _e5_seeds(seed, ds, reps)
        p = _dln.sparse_problem(E5_N, d, 3, a, seed=data_seed, teacher=(1.0, -1.0, 1.0))
        lanes = _gain_lanes.run_gain_lanes(p, gamma, batch_seeds, b=b if b < E5_N else None,
                                           max_steps=10_000_000, tol_rel=E5_TOL_REL)
        if not (lanes.status == _dln.CONVERGED).all():
            vals.append(np.full(reps, np.nan))
        else:
            vals.append(lanes.gain_l1)
        norms.append(np.abs(_dln.l1_interpolator(p.X, p.y)).sum())
    v = np.concatenate(vals)
    mean = float(np.mean(v))
    se = float(np.std(v, ddof=1) / np.sqrt(len(v))) if len(v) > 1 else 0.0
    l1 = float(np.mean(norms))
    R = mean / (gamma * d / b * math.log(1 / a) * l1)
    return {"d": d, "alpha": a, "b": b, "gamma": gamma, "mean_gain_l1": mean, "stderr": se,
            "R": R, "datasets": datasets, "batch_seeds": reps, "l1_norm": l1}


_E5: dict = {}   # (budget, E5 seed) -> {label: entry}


def _e5(ctx) -> dict:
    """The E5 grid (:func:`_e5_settings`), its settings computed side by side when a pool is available
    (``ctx.map``); data and batch seeds derive from the run seed (``ctx.shared_seed``), cached per
    (budget, seed) and shared by every check and planted error of prop16."""
    key = (ctx.budget, ctx.shared_seed("even2023.E5"))
    if key not in _E5:
        settings = _e5_settings(ctx.budget)
        entries = ctx.map(_e5_entry, [(ctx.budget, key[1], st) for st in settings])
        _E5[key] = {st[0]: e for st, e in zip(settings, entries)}
    return _E5[key]


def _p16_axis(e: dict, kind: str) -> tuple[list, list]:
    """The settings of one factor-at-a-time axis (with the base where it belongs) and its control."""
    if kind == "gamma":
        keys = [k for k in e if k.startswith("gamma")]
        return keys, [e[k]["gamma"] for k in keys]
    if kind == "batch":
        keys = ["gamma c0=0.1"] + [k for k in e if k.startswith("batch")]
        return keys, [e[k]["b"] for k in keys]
    if kind == "alpha":
        keys = sorted(["gamma c0=0.1"] + [k for k in e if k.startswith("alpha")], key=lambda k: e[k]["alpha"])
        return keys, [math.log(1 / e[k]["alpha"]) for k in keys]
    keys = ["gamma c0=0.1"] + [k for k in e if k.startswith("d=")]
    return keys, [e[k]["d"] for k in keys]


# the limit each fitted axis is read toward (fixed from the statement's regime, not from data): the gain's
# linear law in γ is a small-γ statement; 1/b is the stochastic regime b ≪ n (near b = n the
# gain crosses over to GD's, .factor_n); ln(1/α) is the small-initialisation regime α → 0
P16_TOWARD = {"gamma": "zero", "batch": "zero", "alpha": "infinity"}


def _p16_series(kind: str):
    def measure(ctx):
        e = _e5(ctx)
        keys, x = _p16_axis(e, kind)
        y = [e[k]["mean_gain_l1"] for k in keys]
        return Series(np.array(x), np.array(y), {"settings": keys, "stderr": [e[k]["stderr"] for k in keys],
                                                 "control": {"gamma": "γ", "batch": "b",
                                                             "alpha": "ln(1/α) (fit against ℓ_α)"}[kind]})
    return measure


def _p16_theta(ctx):
    """Θ by slopes: R = E‖Gain‖₁/(γσ²d/b·ln(1/α)‖β*_ℓ1‖₁) must be flat (log-slope 0 ± τ, the
    engine's fit rules) along the γ, batch and ln(1/α) axes of the E5 grid; the d axis (2–3
    settings, too few for a fit) is reported, not fitted. The pooled level of R is the Θ-constant
    (.const), with its error bar."""
    e = _e5(ctx)
    R = [v["R"] for v in e.values() if np.isfinite(v["R"])]
    axes = {}
    for kind in ("gamma", "batch", "alpha"):
        keys, x = _p16_axis(e, kind)
        axes[kind] = (x, [e[k]["R"] for k in keys])
    ev = theta_by_slopes(axes, 0.25, law="R = E‖Gain‖₁/(γσ²d/b·ln(1/α)‖β*_ℓ1‖₁)", toward=P16_TOWARD)
    if len(R) != len(e):
        ev = outcome(Status.INCONCLUSIVE, f"{len(e) - len(R)} E5 settings did not converge; " + ev.summary,
                     **dict(ev.data))
    d_keys, d_x = _p16_axis(e, "d")
    d_axis = {f"d={int(x)}": e[k]["R"] for k, x in zip(d_keys, d_x)}
    gd = e[f"batch b={E5_N}"]["mean_gain_l1"]
    sgd = e["gamma c0=0.1"]["mean_gain_l1"]
    d = e["gamma c0=0.1"]["d"]
    n = E5_N
    return outcome(ev.status,
                   ev.summary + " (d axis, too few settings to fit, reported: R = "
                   + ", ".join(f"{k}: {v:.4g}" for k, v in d_axis.items()) + ")"
                   + f"; .factor_n: GD/SGD gain ratio at equal γ = {gd / sgd:.4f} "
                   f"vs 1/n = {1 / n:.4f} (d/n = {d / n:.1f}; edges σ²(√d∓√n)²/(n·d) = "
                   f"[{(math.sqrt(d) - math.sqrt(n)) ** 2 / (n * d):.4f}, {(math.sqrt(d) + math.sqrt(n)) ** 2 / (n * d):.4f}])",
                   settings=e, R_min=min(R), R_max=max(R), gd_over_sgd=gd / sgd, d_axis_R=d_axis,
                   **dict(ev.data))


def _p16_lsr(ctx):
    e = _e5(ctx)
    base = e["gamma c0=0.05"]
    rows = {}
    ok = True
    for key, t in (("batch b=2", 2), ("lsr t=5", 5)):
        # base (γ, b) = (0.05/d, 1); (2γ, 2) is the b = 2 entry of the batch grid (γ = 0.1/d)
        v = e[key]
        ratio = v["mean_gain_l1"] / base["mean_gain_l1"]
        ci = 2 * math.hypot(v["stderr"] / v["mean_gain_l1"], base["stderr"] / base["mean_gain_l1"])
        good = abs(ratio - 1) <= ci + 0.25
        ok &= good
        rows[f"t={t}"] = {"ratio": ratio, "ci": ci, "gamma_over_b": v["gamma"] / v["b"],
                          "base_gamma_over_b": base["gamma"] / base["b"]}
    return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                   f"linear scaling rule: E‖Gain‖₁ at (tγ, tb) / at (γ, b): {rows} (|ratio − 1| ≤ CI + 0.25)",
                   runs=rows)


def _p16_sigma(ctx):
    p = _dln.sparse_problem(20, 30, 3, 1e-2, seed=5000, teacher=(1.0, -1.0, 1.0))
    g = np.array([0.002, 0.004])
    base = _dln.run_lanes(p, g, b=1, seeds=3, max_steps=20_000, tol_rel=0.0)
    same = True
    for s in (0.5, 2.0):
        q = _dln.Problem(s * p.X, s * p.y, p.alpha, None, f"sigma={s}")
        r = _dln.run_lanes(q, g / s ** 2, b=1, seeds=3, max_steps=20_000, tol_rel=0.0)
        same &= bool(np.array_equal(r.beta, base.beta) and np.array_equal(r.gain, base.gain))
    return outcome(Status.SUPPORTED if same else Status.REFUTED,
                   f"σ ∈ {{1/2, 2}} with γσ² fixed: 20000 SGD steps bitwise identical to σ = 1: {same}",
                   bitwise_identical=same)


PROP16 = Claim(
    id="even2023.prop16",
    source=PAPER.at("Proposition 16, §4.1, App. G.3"),
    title="Stochasticity and the linear scaling rule: E‖Gain‖₁ = Θ(γ σ²d/b · ln(1/α) ‖β*_ℓ1‖₁)",
    statement=r"E\|\mathrm{Gain}_\gamma\|_1=\Theta(\gamma\,\sigma^2d/b\,\ln(1/\alpha)\|\beta^*_{\ell_1}\|_1);\ .batch;\ .lsr;"
              r"\ .sigma\ (exact);\ .factor_n;\ .const",
    hypotheses=("x_i ∼ N(0, σ²I_d)", "uniform α", "γ ≤ γ_max", "further conditions not recovered [M]"),
    uses=("even2023.eq10", "even2023.eq11", "even2023.fact7", "even2023.thm2"),
    status="theorem",
    trust="M",
    expect="supported",
    notes="Printed conclusion; hypotheses [M]. E5 with n = 32, s = 3, β* = (1, −1, 1, 0, …). n is 32, not "
          "spec E5's 20: the batch axis b = 1..n must span 1.5 decades for the engine's fit rules (20 gives "
          "1.3); d scales with n to keep spec E5's d/n. Quick budget: base d = 48, 1 dataset × 4 batch "
          "seeds (full: d = 96, 2 datasets × 16 seeds). Fitted axes (≥ 8 settings over ≥ 1.5 decades): "
          "γσ²d = 0.4·2^{−k/2}, k = 0..10; b on a √2-geometric integer grid 1..32; α = 10^{−m}, "
          "m = 2^{k/2}, k = 0..10 (ln(1/α) from 2.3 to 74); the d axis (2–3 values) is reported, not "
          "fitted. Fits are read toward γ → 0, small b (the stochastic regime; near b = n the gain crosses "
          "over to GD's) and α → 0. Runs "
          "stop at L ≤ 1e−4 L_0 (the project's stopping rule, 1e−5 until the speed-up of issue 14; the two were "
          "compared once, at that change, not in this run: see E5_TOL_REL's comment; the gain accrued "
          "after the stop is not counted). Slopes τ = 0.25; linear scaling rule: |ratio − 1| ≤ 2-standard-error band + 0.25.",
    checks=(
        Check("theta_ratio", _p16_theta, "RATE"),
        asymptotic.rate("gamma_slope_1", _p16_series("gamma"), 1.0, 0.25, law="E‖Gain‖₁ vs γ (b = 1)",
                        toward=P16_TOWARD["gamma"]),
        asymptotic.rate("batch_slope_minus_1", _p16_series("batch"), -1.0, 0.25, law="E‖Gain‖₁ vs b (fixed γ)",
                        toward=P16_TOWARD["batch"]),
        asymptotic.rate("log_alpha_slope_1", _p16_series("alpha"), 1.0, 0.25, law="E‖Gain‖₁ vs ln(1/α)",
                        toward=P16_TOWARD["alpha"]),
        Check("linear_scaling_rule", _p16_lsr, "TRAJ"),
        Check("sigma_exact", _p16_sigma, "TRAJ"),
    ),
    planted=(
        Planted("p1", "E‖Gain‖₁ ∝ γ/b² (batch exponent −2)",
                asymptotic.rate("p1_batch_minus_2", _p16_series("batch"), -2.0, 0.25,
                                toward=P16_TOWARD["batch"])),
        Planted("p2", "the factor ln(1/α) missing (exponent 0 in ln(1/α))",
                asymptotic.rate("p2_no_log", _p16_series("alpha"), 0.0, 0.25, toward=P16_TOWARD["alpha"])),
        near_miss("p3", "near miss: E‖Gain‖₁ ∝ b^{-3/2} (batch exponent off by 2τ)",
                  asymptotic.rate("p3_batch_minus_1_5", _p16_series("batch"), -1.5, 0.25,
                                  toward=P16_TOWARD["batch"])),
    ),
)
