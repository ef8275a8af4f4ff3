"""ahn2023 Figures 2, 4 and 8 reproduced on the ReLU network (2), checked, and drawn (Figure 1:
:mod:`claims.ahn2023.sec3_fig1`).

Setting (spec §5 E0): def1 data with d = 200, n = 300, λ = 3, ξ ~ N(0, I_d); the mean logistic
loss; a^± ~ N(0, 1/(2d)) as printed ("paper" initialisation) and b₀ = 0; float64 full-batch GD.
The training set, the initialisation and the test set are drawn from one seed per run, shared by
every check, planted error and figure of this module and of sec3_fig1 (so a figure shows the runs its verdict rows
describe); the evidence records it. Where a figure depends on the initialisation convention the
printed text leaves open (§7 F6), the theory's variance 1/(2d²) (A₀ = Θ(1)) is run as well.

Figures 3, 12 and 13 (a wide two-layer net and ResNet-18 on CIFAR-10) are out of scope on CPU.
"""
from __future__ import annotations

import functools

import numpy as np

from verify import Claim, Figure, Planted, Status
from verify.claim import check, outcome
from verify.nearmiss import near_miss
from claims.ahn2023 import PAPER
from claims.ahn2023 import _mean_model as mm
from claims.ahn2023 import _network as net

D, N = net.D, net.N


def _seed(ctx) -> int:
    """One E0 training set and initialisation per run seed (spec E0: "draw one fixed training set"),
    shared by every check, planted error and figure of this module and by the not-reproduced claims,
    so that they reuse the same cached runs."""
    return int(ctx.shared_seed("ahn2023.E0") % 2**32)


def _even_odd(ax, series, label: str, color: str, **kw) -> None:
    """Plot a period-2 oscillating series as two curves, even and odd iterates, so the envelope
    is readable (joined consecutive iterates fill a solid band)."""
    t = np.arange(len(series))
    ax.plot(t[0::2], series[0::2], color=color, label=f"{label}, even t", **kw)
    ax.plot(t[1::2], series[1::2], color=color, ls=":", label=f"{label}, odd t", **kw)


# =========================================================================== Figure 2

FIG2_ETAS = (2.5e-5, 2.5e-4, 2.5e-3)


@functools.lru_cache(maxsize=16)
def _fig2_runs(seed: int, init_var: str = "paper") -> dict:
    rng = np.random.default_rng(seed)
    data = net.sample(rng, N, D)
    a0 = net.init_params(rng, D, init_var)
    out = {}
    for eta in FIG2_ETAS:
        rec = net.gd_path(data, a0, eta, 100)
        A = D * (rec[:, 0] + rec[:, 1])
        out[eta] = {"loss": rec[:, 3], "b": rec[:, 2], "A": A,
                    "loss_increases": int(np.sum(np.diff(rec[:, 3]) > 0)),
                    "A_sign_changes": int(np.sum(A[1:] * A[:-1] < 0)),
                    "b100": float(rec[-1, 2])}
    return out


def _fig2_check(name: str, planted: str | None = None):
    @check(name, "TRAJ")
    def run(ctx):
        runs = _fig2_runs(_seed(ctx))
        summary = {f"{eta:g}": {k: v for k, v in r.items() if k not in ("loss", "b", "A")}
                   for eta, r in runs.items()}
        theory = {f"{eta:g}": {k: v for k, v in r.items() if k not in ("loss", "b", "A")}
                  for eta, r in _fig2_runs(_seed(ctx), "theory").items()}
        info = {"runs": summary, "runs_theory_init": theory, "seed": _seed(ctx), "steps": 100}
        big, small = runs[2.5e-3], (runs[2.5e-5], runs[2.5e-4])
        if planted == "p1":
            ok = big["loss_increases"] == 0
            return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                           f"loss increases at η = 2.5e-3: {big['loss_increases']}", **info)
        if planted == "p2":
            ok = runs[2.5e-5]["A_sign_changes"] >= 10
            return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                           f"A sign changes at η = 2.5e-5: {runs[2.5e-5]['A_sign_changes']}", **info)
        if planted == "p3":   # near miss: b₁₀₀ <= −0.5 at η = 2.5e-3 (measured drop 0.43–0.48, seeds 0–9)
            return outcome(Status.SUPPORTED if big["b100"] <= -0.5 else Status.REFUTED,
                           f"b₁₀₀ at η = 2.5e-3: {big['b100']:.4f} (planted: <= −0.5)",
                           drop=-big["b100"], planted_drop=0.5, **info)
        ok = (all(r["loss_increases"] == 0 and abs(r["b100"]) <= 0.01 for r in small)
              and big["loss_increases"] >= 10 and big["A_sign_changes"] >= 10
              and abs(big["b100"]) >= 0.1)
        return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                       "below η*: " + ", ".join(f"η={e:g}: {r['loss_increases']} loss increases, "
                                                f"|b₁₀₀| = {abs(r['b100']):.2g}"
                                                for e, r in zip(FIG2_ETAS[:2], small))
                       + f"; η = 2.5e-3: {big['loss_increases']} loss increases, "
                       f"{big['A_sign_changes']} sign changes of A, b₁₀₀ = {big['b100']:.3f} "
                       "(required: 0 / ≤ 0.01 below; ≥ 10, ≥ 10, |b₁₀₀| ≥ 0.1 above)", **info)
    return run


def _draw_fig2(ctx, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    runs = _fig2_runs(_seed(ctx))
    fig, ax = plt.subplots(1, 3, figsize=(13, 3.6))
    for eta, r in runs.items():
        ax[0].plot(r["loss"], label=f"η={eta:g}")
        ax[1].plot(r["b"], label=f"η={eta:g}")
        ax[2].plot(r["A"], label=f"η={eta:g}", lw=0.8)
    for a, t in zip(ax, ("training loss", "bias b", r"$A_t = d(a^-_t + a^+_t)$")):
        a.set_title(t)
        a.set_xlabel("iteration")
        a.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=80, metadata={"Software": None})
    plt.close(fig)
    return ("Paper (Fig. 2, paraphrased): over 100 steps, for η = 2.5e-5 and 2.5e-4 (below "
            "η* = 8π/d² ≈ 6.28e-4) the loss decreases monotonically and b hardly moves; for "
            "η = 2.5e-3 the loss is non-monotone, A changes sign repeatedly with large amplitude "
            f"and b decreases noticeably. Here: the runs of the verdict rows (d = {D}, n = {N}, "
            f"seed {_seed(ctx)}); the counts of loss increases and sign changes that decide the "
            "verdict are in the evidence table above.")


FIG2 = Claim(
    id="ahn2023.fig2",
    source=PAPER.at("Figure 2, §1"),
    title="Below η* the loss decreases and b stays put; above, the loss oscillates and b drops",
    statement=r"\eta \in \{2.5\cdot10^{-5}, 2.5\cdot10^{-4}\}: L_t \downarrow,\ b_{100}\approx0;\ "
              r"\eta = 2.5\cdot10^{-3}: L_t \text{ non-monotone, } A_t \text{ flips sign, } b \downarrow",
    status="empirical",
    uses=("ahn2023.threshold", "ahn2023.fact6"),
    expect="supported",
    notes="Reading: the thresholds are the catalogue's, not the paper's. The paper says the bias "
          "'does not decrease noticeably' below η* and spec §4 fig2 says 'b hardly moves … compare "
          "|b₁₀₀|', neither with a number; 'hardly moves' is read as |b₁₀₀| <= 0.01 (a tenth of the "
          "smallest drop |b₁₀₀| >= 0.1 required above η*), 'oscillates' as >= 10 loss increases and >= 10 "
          "sign changes of A_t in 100 steps. The history does not record whether these numbers were set "
          "before the data were seen; the seed sweep (report --seeds) shows how far each seed is from them.",
    checks=(_fig2_check("loss_bias_and_sign_changes"),),
    planted=(Planted("p1", "monotone loss at η = 2.5e-3", _fig2_check("p1", "p1")),
             Planted("p2", "repeated sign changes of A at η = 2.5e-5", _fig2_check("p2", "p2")),
             near_miss("p3", "near miss: at η = 2.5e-3 the bias drops by at least 0.5 in 100 steps "
                       "(b₁₀₀ <= −0.5; just beyond the measured drop)", _fig2_check("p3", "p3"),
                       margin=lambda d: (1 - d["drop"] / d["planted_drop"],
                                         f"b₁₀₀ = {-d['drop']:.4f}: the drop {d['drop']:.4f} is "
                                         f"{1 - d['drop'] / d['planted_drop']:.3g} (relative) short of 0.5")
                       if "drop" in d else None)),
    figures=(Figure("fig2_three_step_sizes", _draw_fig2),),
)


# =========================================================================== Figure 4

FIG4_ETA, FIG4_STEPS, FIG4_EPS, FIG4_PLATEAU = 2e-3, 500, 0.1, 20


@functools.lru_cache(maxsize=8)
def _fig4_run(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    data = net.sample(rng, N, D)
    a0 = net.init_params(rng, D, "paper")
    rec = net.gd_path(data, a0, FIG4_ETA, FIG4_STEPS)
    sharp = np.array([net.sharpness(data, *row[:3]) for row in rec])
    # the centre of the period-2 bounce: midpoint of consecutive iterates
    centre = np.array([net.sharpness(data, *(0.5 * (rec[t, :3] + rec[t + 1, :3])))
                       for t in range(FIG4_STEPS)])
    return {"sharp": sharp, "centre": centre, "b": rec[:, 2], "loss": rec[:, 3], "a0": a0}


def _fig4_check(name: str, planted: str | None = None):
    @check(name, "TRAJ")
    def run(ctx):
        r = _fig4_run(_seed(ctx))
        sharp, centre, b, loss = r["sharp"], r["centre"], r["b"], r["loss"]
        two_over_eta = 2 / FIG4_ETA
        if planted == "p1":
            ok = bool(np.all(sharp <= 1 / FIG4_ETA))
            return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                           f"max sharpness {sharp.max():.1f} vs 1/η = {1 / FIG4_ETA:.0f}",
                           sharpness_max=float(sharp.max()), seed=_seed(ctx))
        if planted == "p2":
            tail = float(np.median(sharp[-50:]))
            ok = abs(tail - 2 * two_over_eta) <= FIG4_EPS * 2 * two_over_eta
            return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                           f"median sharpness over the last 50 steps {tail:.1f} vs 4/η = "
                           f"{2 * two_over_eta:.0f}", tail_median=tail, epsilon=FIG4_EPS, seed=_seed(ctx))
        if planted == "p3":   # near miss: the end bound ≤ 2/η tightened by two tolerances, to (1 − 2ε)·2/η
            bound = (1 - 2 * FIG4_EPS) * two_over_eta
            return outcome(Status.SUPPORTED if sharp[-1] <= bound else Status.REFUTED,
                           f"final sharpness {sharp[-1]:.1f} vs the planted bound (1 − 2ε)·2/η = {bound:.0f}",
                           sharpness_final=float(sharp[-1]), planted_bound=bound, seed=_seed(ctx))
        t_half = int(np.argmax(b <= 0.5 * b[-1]))    # b has made half of its 500-step drop
        t_90 = int(np.argmax(b <= 0.9 * b[-1]))
        inside = np.abs(sharp / two_over_eta - 1) <= FIG4_EPS
        t_plateau, run_ = None, 0
        for t, v in enumerate(inside):
            run_ = run_ + 1 if v else 0
            if run_ >= FIG4_PLATEAU:
                t_plateau = t - FIG4_PLATEAU + 1
                break
        centre_drop = float(np.median(centre[:t_half]) / two_over_eta)
        envelope_drop = float(np.median(np.maximum(sharp[:t_half], sharp[1:t_half + 1]))
                              / two_over_eta)
        loss_up = int(np.sum(np.diff(loss[:t_90 + 1]) > 0))
        still_dropping = (float(b[t_plateau] - b[-1]) / abs(b[-1])) if t_plateau is not None else 0.0
        info = {"eta": FIG4_ETA, "two_over_eta": two_over_eta, "epsilon": FIG4_EPS,
                "plateau_min_length": FIG4_PLATEAU, "t_half_drop": t_half, "t_90_drop": t_90,
                "t_plateau": t_plateau, "b_at_plateau": float(b[t_plateau]) if t_plateau else None,
                "b_500": float(b[-1]), "drop_after_plateau_fraction": still_dropping,
                "centre_sharpness_median_first_half_over_2_eta": centre_drop,
                "iterate_envelope_median_first_half_over_2_eta": envelope_drop,
                "sharpness_final": float(sharp[-1]), "sharpness_max": float(sharp.max()),
                "loss_increases_during_drop": loss_up, "seed": _seed(ctx)}
        ok = (t_plateau is not None and still_dropping > 0 and sharp[-1] <= two_over_eta
              and centre_drop >= 1 - FIG4_EPS and loss_up >= 3)
        return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                       f"sharpness at the iterates enters ±{FIG4_EPS:.0%} of 2/η at t = {t_plateau} "
                       f"and stays ≥ {FIG4_PLATEAU} steps (b still falls by "
                       f"{still_dropping:.0%} of its drop afterwards), ends at {sharp[-1]:.0f} ≤ 2/η; "
                       f"during the first half of the drop (t < {t_half}) the sharpness at the "
                       f"centre of the 2-cycle is {centre_drop:.2f}·2/η while at the iterates it is "
                       f"only {envelope_drop:.2f}·2/η (upper envelope); {loss_up} loss increases",
                       **info)
    return run


def _draw_fig4(ctx, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    r = _fig4_run(_seed(ctx))
    ev = _fig4_check("figure")(ctx)  # the verdict's own computation, on the same (cached) run
    d = ev.data
    fig, ax = plt.subplots(1, 3, figsize=(13, 3.8))
    _even_odd(ax[0], r["sharp"], "at the iterates", "C0", lw=0.8)
    ax[0].plot(r["centre"], color="C1", lw=0.8, label="at the 2-cycle centre")
    ax[0].axhline(2 / FIG4_ETA, color="r", ls="--", label="2/η = 1000")
    ax[0].axhspan((1 - FIG4_EPS) * 2 / FIG4_ETA, (1 + FIG4_EPS) * 2 / FIG4_ETA, color="r",
                  alpha=0.08, label=f"2/η ± {FIG4_EPS:.0%} (tolerance)")
    if d.get("t_plateau") is not None:
        ax[0].axvline(d["t_plateau"], color="k", lw=0.6, ls="-.", label="plateau starts")
    ax[0].set_title(r"sharpness $\lambda_{max}(\nabla^2 L)$")
    ax[0].legend(fontsize=6)
    ax[1].plot(r["b"], color="C0")
    ax[1].axvline(d["t_half_drop"], color="k", lw=0.6, ls="-.", label="half of the drop of b")
    ax[1].set_title("bias b")
    ax[1].legend(fontsize=7)
    _even_odd(ax[2], r["loss"], "loss", "C0", lw=0.8)
    ax[2].set_title("training loss")
    ax[2].legend(fontsize=7)
    for a in ax:
        a.set_xlabel("iteration")
    fig.suptitle(f"Fig. 4 reproduced: η = {FIG4_ETA:g}, d = {D}, n = {N}, seed {_seed(ctx)} "
                 f"(verdict: {ev.status})", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=80, metadata={"Software": None})
    plt.close(fig)
    centre, env = d["centre_sharpness_median_first_half_over_2_eta"], \
        d["iterate_envelope_median_first_half_over_2_eta"]
    return ("Paper (Fig. 4, paraphrased): with η = 2e-3, while b drops fast the sharpness rises to "
            "about 2/η and oscillates around it, and the loss is non-monotone. "
            f"Here, same run and seed as the verdict rows ({_seed(ctx)}): "
            f"matches — the loss rises {d['loss_increases_during_drop']} times during the drop; "
            f"the sharpness at the iterates enters ±{FIG4_EPS:.0%} of 2/η at t = {d['t_plateau']}, "
            f"stays there and ends at {d['sharpness_final']:.0f}. Differs — during the first half "
            f"of the drop the sharpness is {env:.2f}·2/η at the iterates and {centre:.2f}·2/η at "
            "the centre of the 2-cycle, neither at 2/η as in the paper's curve; b keeps falling by "
            f"{d['drop_after_plateau_fraction']:.0%} of its drop after the plateau begins.")


FIG4 = Claim(
    id="ahn2023.fig4",
    source=PAPER.at("Figure 4, §1.1; §7 F14"),
    title="During the bias drop the sharpness at the 2-cycle centre is ≥ (1−ε)·2/η; at the iterates "
          "it reaches a ±ε plateau at 2/η before b stops falling",
    statement=r"\eta = 2\cdot10^{-3}: \operatorname{median}_{t < t_{1/2}} \lambda_{max}(\nabla^2L("
              r"\tfrac{\theta_t+\theta_{t+1}}{2})) \ge (1-\varepsilon)\,2/\eta;\ "
              r"\lambda_{max}(\nabla^2L(\theta_t)) \in (1\pm\varepsilon)\,2/\eta \text{ for } "
              r"\ge 20 \text{ steps while } b_t \text{ still falls, ending} \le 2/\eta;\ "
              r"L_t \text{ rises} \ge 3 \text{ times during the drop}",
    status="empirical",
    uses=("ahn2023.rem4", "ahn2023.threshold"),
    expect="supported",
    checks=(_fig4_check("sharpness_at_2_over_eta"),),
    planted=(Planted("p1", "sharpness ≤ 1/η throughout", _fig4_check("p1", "p1")),
             Planted("p2", "sharpness settles near 4/η", _fig4_check("p2", "p2")),
             near_miss("p3", "near miss: the sharpness at the iterates ends at most (1 − 2ε)·2/η = 800 (the "
                       "end bound ≤ 2/η tightened by two tolerances: one tolerance would sit within the "
                       "seed-to-seed spread of the end value; the margin gives this seed's)", _fig4_check("p3", "p3"),
                       margin=lambda d: (d["sharpness_final"] / d["planted_bound"] - 1,
                                         f"final sharpness {d['sharpness_final']:.1f} exceeds the planted "
                                         f"bound {d['planted_bound']:.0f} by {d['sharpness_final'] / d['planted_bound'] - 1:.3g} "
                                         "(relative)") if "planted_bound" in d else None)),
    figures=(Figure("fig4_sharpness", _draw_fig4),),
    notes="Recast reading: the iterates bounce across the valley (period 2), so the check "
          "measures the sharpness at the centre of the 2-cycle during the first half of the drop "
          "(t_{1/2}: b has made half of its 500-step drop) and, at the iterates, a plateau within "
          "±ε = 10 % of 2/η lasting ≥ 20 steps while b still falls. The spec's wording (a ±ε window "
          "at the iterates overlapping the steepest decrease) is not what is tested: the evidence "
          "reports the iterates' median over the same half (iterate_envelope_median_...). The printed "
          "reading is the not-reproduced finding ahn2023.fig4.printed.",
)


# =========================================================================== Figure 8

FIG8_EPS = 0.2
# near miss: the factor 2d² of the A-step of (5) off by 25 %, which moves the gap to about 1.2–1.45
# tolerances (a tightened tolerance, e.g. 0.03, is no near miss: the true gap ranges over 0.027–0.085
# at seeds 0–9, so it is refuted at some seeds only)
FIG8_NEAR_MISS_A_MULT = 1.5


@functools.lru_cache(maxsize=8)
def _fig8_runs(seed: int, init_var: str = "paper") -> dict:
    rng = np.random.default_rng(seed)
    data = net.sample(rng, N, D)
    a0 = net.init_params(rng, D, init_var)
    A0 = D * (a0[0] + a0[1])
    out = {"A0": A0}
    for eta in (2e-3, 2.5e-4):
        rec = net.gd_path(data, a0, eta, 500)
        out[eta] = {"net_b": rec[:, 2], "net_A": D * (rec[:, 0] + rec[:, 1])}
        for key, kw in (("mm", {}), ("mm_d2", {"a_mult": 1.0}), ("mm_logi", {"loss": "logi"}),
                        ("mm_near", {"a_mult": FIG8_NEAR_MISS_A_MULT})):
            A, b = mm.mean_model_path(A0, eta, D, 500, **kw)
            out[eta][key + "_b"], out[eta][key + "_A"] = b, A
    return out


def _fig8_check(name: str, variant: str = "mm"):
    @check(name, "TRAJ")
    def run(ctx):
        runs = _fig8_runs(_seed(ctx))
        rows, ok = {}, True
        hi = runs[2e-3]
        for T1 in (50, 500):
            scale = abs(hi["mm_b"][T1])
            for eta in (2e-3, 2.5e-4):
                r = runs[eta]
                err = float(np.max(np.abs(r["net_b"][:T1 + 1] - r[variant + "_b"][:T1 + 1])))
                flips_net = int(np.sum(r["net_A"][1:51] * r["net_A"][:50] < 0))
                flips_mm = int(np.sum(r[variant + "_A"][1:51] * r[variant + "_A"][:50] < 0))
                good = err <= FIG8_EPS * scale
                if eta == 2e-3:
                    good &= 0.5 * flips_mm <= flips_net <= 2 * flips_mm + 1
                ok &= good
                rows[f"eta={eta:g},T1={T1}"] = {"max_abs_b_gap": err, "scale_b_mm_2e-3": scale,
                                                "ratio": err / scale, "A_flips_first50_net": flips_net,
                                                "A_flips_first50_model": flips_mm,
                                                "b_net_T1": float(r["net_b"][T1]),
                                                "b_model_T1": float(r[variant + "_b"][T1])}
        info = {"runs": rows, "epsilon": FIG8_EPS, "A0": runs["A0"], "seed": _seed(ctx),
                "variant": variant, "max_ratio": max(r["ratio"] for r in rows.values())}
        return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                       f"{variant}: max_t≤T₁ |b_net − b_model| / |b_MM(T₁)| at η = 2e-3: "
                       + ", ".join(f"T₁={T}: {rows[f'eta=0.002,T1={T}']['ratio']:.3f}"
                                   for T in (50, 500))
                       + f" (tolerance {FIG8_EPS}); below η* the gap stays under the same scale",
                       **info)
    return run


def _draw_fig8(ctx, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    runs = _fig8_runs(_seed(ctx))
    ev = _fig8_check("figure")(ctx)  # the verdict's own computation, on the same (cached) runs
    fig, ax = plt.subplots(2, 3, figsize=(13, 6.8))
    for col, (eta, T) in enumerate(((2e-3, 50), (2e-3, 500), (2.5e-4, 500))):
        r = runs[eta]
        ax[0, col].plot(r["net_b"][:T + 1], label="network")
        ax[0, col].plot(r["mm_b"][:T + 1], "--", label="mean model (5)")
        ax[0, col].set_title(f"b, η = {eta:g}, {T} steps")
        _even_odd(ax[1, col], r["net_A"][:T + 1], "network", "C0", lw=0.8)
        _even_odd(ax[1, col], r["mm_A"][:T + 1], "mean model (5)", "C1", lw=0.8)
        ax[1, col].set_title(f"A = d(a⁻ + a⁺), η = {eta:g}, {T} steps")
        for a in ax[:, col]:
            a.legend(fontsize=6)
            a.set_xlabel("iteration")
    fig.suptitle(f"Fig. 8 reproduced: d = {D}, n = {N}, seed {_seed(ctx)} (verdict: {ev.status})",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=80, metadata={"Software": None})
    plt.close(fig)
    rows = ev.data["runs"]
    hi = [rows[f"eta=0.002,T1={T}"]["ratio"] for T in (50, 500)]
    lo = rows["eta=0.00025,T1=500"]
    return ("Paper (Fig. 8, paraphrased): the mean model (5), started from the network's A₀ and "
            "b₀ = 0, tracks b_t and A_t of GD on the network during the initial phase (50 and 500 "
            f"steps). Here, same runs and seed as the verdict rows ({_seed(ctx)}), "
            f"A₀ = {runs['A0']:.2f}: matches — at η = 2e-3 the largest gap in b is "
            f"{hi[0]:.3f} (50 steps) and {hi[1]:.3f} (500 steps) of |b_MM(T₁)| (tolerance "
            f"{FIG8_EPS}), and A changes sign as often in both ({rows['eta=0.002,T1=50']['A_flips_first50_net']} "
            f"vs {rows['eta=0.002,T1=50']['A_flips_first50_model']} times in 50 steps). Differs — "
            f"below η* (η = 2.5e-4, a step size the paper does not state) the network's b drifts to "
            f"{lo['b_net_T1']:.2g} while the mean model's stays at {lo['b_model_T1']:.2g}, and after "
            "the oscillation of A dies out the network's b keeps decreasing slowly while the "
            "model's is flat.")


FIG8 = Claim(
    id="ahn2023.fig8",
    source=PAPER.at("Figure 8, §3.1"),
    title="Above 8π/d² the mean model tracks the network's b_t within 20 %; below it both b_t stay within "
          "20 % of the above-threshold drop",
    statement=r"\max_{t\le T_1}|b^{net}_t - b^{MM}_t| \ll |b^{MM}_{T_1}|,\ T_1 \in \{50, 500\}",
    status="empirical",
    # the exact parts of the derivation; fact6.approx is the heuristic this figure validates
    uses=("ahn2023.fact6.noise", "ahn2023.fact6.signal", "ahn2023.fact6.gd"),
    expect="supported",
    checks=(_fig8_check("tracking"),),
    planted=(Planted("p1", "a mean model with d² in place of 2d² tracks equally well",
                     _fig8_check("p1", "mm_d2")),
             Planted("p2", "a mean model with ℓ_logi in place of ℓ_sym tracks equally well",
                     _fig8_check("p2", "mm_logi")),
             near_miss("p3", f"near miss: a mean model with {FIG8_NEAR_MISS_A_MULT:g}d² in place of 2d² (25 % off) "
                       "tracks within the same tolerance", _fig8_check("p3", "mm_near"),
                       margin=lambda d: (d["max_ratio"] / d["epsilon"] - 1,
                                         f"largest gap {d['max_ratio']:.4f}·|b_MM(T₁)| vs the tolerance "
                                         f"{d['epsilon']:g}: over by {d['max_ratio'] / d['epsilon'] - 1:.3g} "
                                         "(relative)") if "max_ratio" in d else None)),
    figures=(Figure("fig8_mean_model_vs_network", _draw_fig8),),
    notes="Step sizes 2e-3 (above η*) and 2.5e-4 (below; the paper does not state η). Paper "
          "initialisation (A₀ ~ N(0, d)). Below η* the gap is compared with the η = 2e-3 scale (a narrower "
          "statement: both biases stay small); tracking below η* at its own scale is not reproduced "
          "(ahn2023.fig8.printed_below).",
)


# =========================================================================== out of scope

_OUT = "a wide two-layer net (m = 2000, n = 20000) and ResNet-18 on CIFAR-10: out of scope on CPU"

FIG3 = Claim(id="ahn2023.fig3", source=PAPER.at("Figure 3"),
             title="Larger learning rates give more negative median biases (net (7), ResNet-18)",
             statement=r"\text{median bias decreases with the learning rate}",
             expect="unchecked", status="out-of-scope", notes=_OUT)
FIG12 = Claim(id="ahn2023.fig12", source=PAPER.at("Figure 12, App. A"),
              title="Average second-layer weight / logit oscillates",
              statement=r"\text{the average output weight oscillates during training}",
              expect="unchecked", status="out-of-scope", notes=_OUT)
FIG13 = Claim(id="ahn2023.fig13", source=PAPER.at("Figure 13, App. A"),
              title="ResNet-18 with SGD: larger learning rates, more negative median bias",
              statement=r"\text{median bias and average activation decrease with the learning rate}",
              expect="unchecked", status="out-of-scope", notes=_OUT)
