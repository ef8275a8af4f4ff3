"""Appendix A figures of Ahn et al. (2023): single-neuron GD on ℓ(xy) (Figs. 9, 10, 11).

Settings follow spec §5 E5–E7. Figures are drawn with matplotlib (Agg) and saved without a
software/date stamp so the PNGs are byte-identical across runs with the same seed and budget.
"""
from __future__ import annotations

import math

import numpy as np

from verify import Claim, Figure, Planted, Status
from verify.asymptotic import rate
from verify.claim import Check, Context, Evidence, outcome
from verify.nearmiss import near_miss, relative
from verify import dynamics

from claims.ahn2023 import PAPER
from claims.ahn2023._losses import SQRT, combine, lanes
from claims.ahn2023._eos_sweeps import (EOS_M, FIT_SPAN, GAP, NOT_FITTED_NOTE, TAU, beta_of,
                                        fast_exponent, fitted, k_fit_min, ks_for, measure)
from claims.ahn2023.sec2_eos_regime import _rem3_law, _rem3_rate
from claims.ahn2023.sec2_thm2 import _thm2_rate

# its claims read the Theorem-2 sweeps (claims.ahn2023._eos_sweeps, cached per process): one
# worker task with the other modules declaring this label
SHARED_RUNS = "ahn2023.EOS"

FIG9_ETA = 0.25
# the bouncing phase of Fig. 9 (right) "tracks the envelope" η ℓ'(xy) y = 2x: median relative residual
# over the second half of the bouncing steps at most this
FIG9_ENVELOPE_TOL = 0.1
# fig9.gf's bound y_inf^2 <= 7 is exact (no tolerance): its near miss tightens it to just below the
# measured value (5.574, deterministic: no seed, no budget enters the run)
FIG9_GF_NEAR_MISS_BOUND = 5.5


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _save(fig, path: str) -> None:
    fig.savefig(path, dpi=80, metadata={"Software": None})
    _plt().close(fig)


# ============================================================================ Figure 9
def _fig9_run(x0: float, y0: float):
    r = dynamics.run(SQRT, [x0], [y0], [FIG9_ETA], max_steps=10**6, rtol=1e-15)
    xs, ys = dynamics.trajectory(SQRT, x0, y0, FIG9_ETA, int(r.steps[0]))
    return r, xs, ys


def _envelope_distance(xs, ys, eta):
    """Relative residual of the perfect-bouncing relation η ℓ'(xy) y = 2x (eq13) for ℓ_sqrt."""
    s = xs * ys
    lhs = eta * s / np.sqrt(1 + s * s) * ys
    return np.abs(lhs - 2 * xs) / np.maximum(np.abs(2 * xs), 1e-300)


def _fig9_gf(ctx: Context) -> Evidence:
    r, xs, ys = _fig9_run(3.0, 4.0)
    if r.outcome[0] != dynamics.Outcome.CONVERGED:
        return outcome(Status.INCONCLUSIVE, f"run ended {dynamics.Outcome(r.outcome[0])}")
    D = ys**2 - xs**2
    mono = bool(np.all(np.diff(D) <= 1e-12 * D[:-1]))
    y2 = float(r.D[0])
    ok = mono and y2 <= 7.0
    return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                   f"from (3, 4): D_t non-increasing ({mono}); y_inf^2 = {y2:.6f} <= y0^2 - x0^2 = 7 < 8 = 2/eta",
                   y_inf2=y2, steps=int(r.steps[0]), D_monotone=mono, eta=FIG9_ETA)


def _fig9_eos(ctx: Context) -> Evidence:
    r, xs, ys = _fig9_run(3.0, 6.0)
    if r.outcome[0] != dynamics.Outcome.CONVERGED:
        return outcome(Status.INCONCLUSIVE, f"run ended {dynamics.Outcome(r.outcome[0])}")
    y2 = float(r.D[0])
    t0, tb = int(r.t0[0]), int(r.t_bar[0])
    bouncing = slice(t0, tb)
    # while bouncing, x alternates in sign and the iterate tracks the envelope η ℓ'(xy) y = 2x
    sign_flips = int(np.sum(np.sign(xs[bouncing][1:]) != np.sign(xs[bouncing][:-1])))
    near = _envelope_distance(xs[bouncing], ys[bouncing], FIG9_ETA)
    late = near[len(near) // 2:]
    on_envelope = bool(late.size) and float(np.median(late)) <= FIG9_ENVELOPE_TOL
    ok = (0 < 8.0 - y2 <= 0.05 * 8.0 and tb > t0 >= 1 and sign_flips >= (tb - t0) // 2
          and on_envelope)
    return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                   f"from (3, 6): GF phase until t0 = {t0}, bouncing until t̄ = {tb} ({sign_flips} sign "
                   f"changes of x; median envelope residual in the second half "
                   f"{float(np.median(late)) if late.size else float('nan'):.3f}, tolerance "
                   f"{FIG9_ENVELOPE_TOL}), then convergence to y_inf^2 = {y2:.5f} "
                   f"(2/eta - y_inf^2 = {8 - y2:.4f}, tolerance 5% of 2/eta)",
                   y_inf2=y2, t0=t0, t_bar=tb, sign_changes=sign_flips,
                   envelope_residual_median=float(np.median(late)) if late.size else None,
                   envelope_tolerance=FIG9_ENVELOPE_TOL, tolerance=0.05)


def _fig9_close(name: str, start, target: float, rel: float) -> Check:
    def run(ctx: Context) -> Evidence:
        r, _, _ = _fig9_run(*start)
        y2 = float(r.D[0])
        ok = abs(y2 / target - 1) <= rel
        return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                       f"y_inf^2 = {y2:.4f} vs claimed {target} (relative tolerance {rel})",
                       y_inf2=y2, claimed=target, tolerance=rel)

    return Check(name, run, "TRAJ")


def _fig9_bound(name: str, start, bound: float) -> Check:
    """Planted 'y_inf^2 <= bound' from ``start`` (a near miss tightens fig9.gf's exact bound 7)."""
    def run(ctx: Context) -> Evidence:
        r, _, _ = _fig9_run(*start)
        y2 = float(r.D[0])
        return outcome(Status.SUPPORTED if y2 <= bound else Status.REFUTED,
                       f"y_inf^2 = {y2:.4f} vs the planted bound {bound}", y_inf2=y2, bound=bound)

    return Check(name, run, "TRAJ")


def _bound_excess(d):
    """Near-miss margin of a planted upper bound: relative excess of the measured y_inf^2."""
    if "bound" not in d:
        return None
    excess = d["y_inf2"] / d["bound"] - 1
    return excess, f"y_inf^2 = {d['y_inf2']:.4f} exceeds the planted bound {d['bound']} by {excess:.3g} (relative)"


def _fig9_panel(start: tuple[float, float], title: str, caption: str):
    """One panel of Fig. 9 (the (x, y) plane), drawn from the run the claim's checks use."""

    def draw(ctx: Context, path: str) -> str:
        plt = _plt()
        fig, ax = plt.subplots(1, 1, figsize=(5.6, 4.6))
        eta = FIG9_ETA
        r, xs, ys = _fig9_run(*start)
        D0 = start[1] ** 2 - start[0] ** 2
        xg = np.linspace(0, start[0], 200)
        ax.plot(xg, np.sqrt(xg**2 + D0), "k--", lw=1, label=r"GF path $y^2-x^2=y_0^2-x_0^2$")
        yv = np.linspace(math.sqrt(2 / eta) * 1.0001, max(start[1], 4) * 1.05, 300)
        xe = np.sqrt((eta * yv**2 / 2) ** 2 - 1) / yv
        ax.plot(xe, yv, color="tab:green", lw=1, label=r"envelope $\eta\ell'(xy)y=2x$")
        ax.plot(-xe, yv, color="tab:green", lw=1)
        ax.plot(xs, ys, "o-", ms=2.5, lw=0.6, color="tab:blue", label="GD, η = 1/4")
        ax.axhline(math.sqrt(2 / eta), color="tab:red", lw=0.8, ls=":", label=r"$\sqrt{2/\eta}$")
        ax.axhline(math.sqrt(D0), color="gray", lw=0.8, ls="-.", label=r"$\sqrt{y_0^2-x_0^2}$")
        ax.set_xlabel("x")
        ax.set_ylabel("y")
        ax.set_title(f"{title}: y∞² = {float(r.D[0]):.3f}", fontsize=9)
        ax.legend(fontsize=7, loc="upper left")
        fig.tight_layout()
        _save(fig, path)
        return caption + f" Here y∞² = {float(r.D[0]):.4f} (the run of the verdict rows above)."

    return draw


_FIG9_LEFT = _fig9_panel((3.0, 4.0), "GF regime from (3, 4)",
                         "Paper (Fig. 9 left, paraphrased): GD on ℓ_sqrt(xy) with η = 1/4 from (3, 4) "
                         "stays close to the gradient-flow path and ends below y0² − x0² = 7 < 8 = 2/η.")
_FIG9_RIGHT = _fig9_panel((3.0, 6.0), "EoS regime from (3, 6)",
                          "Paper (Fig. 9 right, paraphrased): from (3, 6) GD first follows the "
                          "gradient flow, then bounces across the y-axis along the quasi-static "
                          "envelope ηℓ'(xy)y = 2x, and converges just below 2/η = 8.")


FIG9_GF = Claim(
    id="ahn2023.fig9.gf",
    source=PAPER.at("Fig. 9 (left), App. A"),
    title="GF regime from (3, 4): y_inf^2 <= 7 < 8",
    statement=r"\ell_{\mathrm{sqrt}},\ \eta = 1/4,\ (x_0, y_0) = (3, 4):\ y_\infty^2 \le y_0^2 - x_0^2 = 7 < 2/\eta",
    hypotheses=("ℓ = ℓ_sqrt", "η = 1/4"),
    uses=("ahn2023.thm1", "ahn2023.fact1"),
    expect="supported",
    status="empirical",
    notes="η = 1/4 is not small: the GF tracking is qualitative (spec §7 F22); the bound 7 is exact. "
          "This is the narrower statement; 'GD tracks the GF path' (within 5 %) is not reproduced "
          "(ahn2023.fig9.gf_printed: D_t leaves 7 by 20 %).",
    checks=(Check("y_inf_below_gf_value", _fig9_gf, "TRAJ"),),
    planted=(Planted("p1", "y_∞² ≈ 8 (within 2%)", _fig9_close("p1", (3.0, 4.0), 8.0, 0.02)),
             near_miss("p2", f"near miss: y_∞² <= {FIG9_GF_NEAR_MISS_BOUND} (the bound 7 tightened to just below "
                       "the measured y_∞²; the margin gives it)", _fig9_bound("p2", (3.0, 4.0), FIG9_GF_NEAR_MISS_BOUND),
                       margin=_bound_excess)),
    figures=(Figure("fig9_xy_plane", _FIG9_LEFT),),
)

FIG9_EOS = Claim(
    id="ahn2023.fig9.eos",
    source=PAPER.at("Fig. 9 (right), App. A"),
    title="EoS regime from (3, 6): GF phase, bouncing on the envelope, y_inf^2 just below 8",
    statement=r"\ell_{\mathrm{sqrt}},\ \eta = 1/4,\ (x_0, y_0) = (3, 6):\ y_\infty^2 \le 2/\eta = 8,\ y_\infty^2 \approx 8",
    hypotheses=("ℓ = ℓ_sqrt", "η = 1/4"),
    uses=("ahn2023.thm2", "ahn2023.eq13"),
    expect="supported",
    status="empirical",
    checks=(Check("three_phases", _fig9_eos, "TRAJ"),),
    planted=(Planted("p2", "y_∞² ≈ 27 = y0² − x0² (within 5%)", _fig9_close("p2", (3.0, 6.0), 27.0, 0.05)),
             near_miss("p3", "near miss: y_∞² ≈ 7.2 = 0.9·(2/η) (within 5%; two tolerances below 8)",
                       _fig9_close("p3", (3.0, 6.0), 7.2, 0.05),
                       margin=lambda d: relative(d["y_inf2"], d["claimed"], d["tolerance"], "y_inf^2"))),
    figures=(Figure("fig9_xy_plane_eos", _FIG9_RIGHT),),
)


# ============================================================================ Figure 10
FIG10_ETAS = (2 / 9, 2 / 7, 2 / 5, 2 / 3)
FIG10_START = (3.0, 6.0)
# "close to 2/η": ℓ_sqrt has β = 2, for which thm2 gives 2/η − y_∞² = O(η) (fig11.left slope 1); the
# check uses that law with a stated constant, 2/η − λ_T <= FIG10_GAP_CONST·η, i.e. a relative gap
# <= (FIG10_GAP_CONST/2)·η² — a per-η tolerance that tightens as η decreases, instead of one fraction
# of 2/η sized for the largest step.
FIG10_GAP_CONST = 2.0
# near miss: the constant tightened to just below the measured worst gap/η (1.34 at 2/η = 3; the runs
# are deterministic)
FIG10_NEAR_MISS_C = 1.25


def _sharpness(xs, ys):
    """λ_max(∇²f) for ℓ_sqrt from eq. (8): ℓ''(s)(y, x)ᵀ(y, x) + ℓ'(s)[[0, 1], [1, 0]]."""
    s = xs * ys
    l2 = (1 + s * s) ** -1.5
    l1 = s / np.sqrt(1 + s * s)
    a, c, b = l2 * ys**2, l2 * xs**2, l2 * s + l1
    return (a + c) / 2 + np.sqrt(((a - c) / 2) ** 2 + b * b)


def _fig10_runs():
    out = []
    for eta in FIG10_ETAS:
        T = int(15 / eta)
        xs, ys = dynamics.trajectory(SQRT, *FIG10_START, eta, T)
        out.append((eta, T, xs, ys, _sharpness(xs, ys)))
    return out


def _fig10_check(name: str, predicate, describe: str) -> Check:
    def run(ctx: Context) -> Evidence:
        rows, ok = [], True
        for eta, T, xs, ys, lam in _fig10_runs():
            final = float(lam[-1])
            good = bool(predicate(eta, final))
            ok &= good
            rows.append({"eta": eta, "steps": T, "final_sharpness": final, "2/eta": 2 / eta,
                         "relative_gap": (2 / eta - final) / (2 / eta), "gap_over_eta": (2 / eta - final) / eta,
                         "relative_tolerance": FIG10_GAP_CONST * eta / (2 / eta), "holds": good})
        return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                       f"{describe}: " + ", ".join(f"η={r['eta']:.3f}: {r['final_sharpness']:.3f}/{r['2/eta']:.3f}"
                                                   for r in rows), runs=rows, start=list(FIG10_START))

    return Check(name, run, "TRAJ")


def _fig10_const_margin(d):
    """Near-miss margin of a planted gap constant C: relative excess of the largest measured gap/η."""
    if "runs" not in d:
        return None
    worst = max(r["gap_over_eta"] for r in d["runs"])
    excess = worst / FIG10_NEAR_MISS_C - 1
    return excess, (f"largest (2/η − λ_T)/η = {worst:.4f} exceeds the planted C = {FIG10_NEAR_MISS_C:g} by "
                    f"{excess:.3g} (relative)")


def _fig10_monotone(ctx: Context) -> Evidence:
    gaps = [(2 / eta - float(lam[-1])) / (2 / eta) for eta, T, xs, ys, lam in _fig10_runs()]
    ok = all(a < b for a, b in zip(gaps, gaps[1:]))
    return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                   f"relative gap grows with η (as the gap law of thm2 predicts): {[round(g, 4) for g in gaps]}",
                   relative_gaps=gaps, etas=list(FIG10_ETAS))


def _draw_fig10(ctx: Context, path: str) -> str:
    plt = _plt()
    runs = _fig10_runs()
    fig, axes = plt.subplots(1, 1 + len(runs), figsize=(4.2 * (1 + len(runs)), 4.0),
                             gridspec_kw={"width_ratios": [2] + [1] * len(runs)})
    ax = axes[0]
    colours = ("tab:blue", "tab:orange", "tab:green", "tab:red")
    gaps = []
    for (eta, T, xs, ys, lam), col, tax in zip(runs, colours, axes[1:]):
        t = eta * np.arange(len(lam))
        ax.plot(t, lam, color=col, lw=1, label=f"2/η = {2 / eta:g}")
        ax.axhline(2 / eta, color=col, ls=":", lw=0.8)
        gaps.append((2 / eta - float(lam[-1])) / (2 / eta))
        tax.plot(xs, ys, "o-", ms=1.5, lw=0.5, color=col)
        tax.axhline(math.sqrt(2 / eta), color="k", ls=":", lw=0.8, label=r"$y=\sqrt{2/\eta}$")
        tax.set_title(f"trajectory, 2/η = {2 / eta:g}", fontsize=9)
        tax.set_xlabel("x")
        tax.set_ylabel("y")
        tax.legend(fontsize=7)
    ax.set_yscale("log")
    ax.set_xlabel("time ηt")
    ax.set_ylabel(r"sharpness $\lambda_{\max}(\nabla^2 f(x_t, y_t))$")
    ax.set_title("Fig. 10: ℓ_sqrt from (3, 6); dotted lines at 2/η", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    _save(fig, path)
    shown = ", ".join(f"2/η = {2 / eta:g}: {g:.1%}" for (eta, *_), g in zip(runs, gaps))
    return ("Paper (Fig. 10, paraphrased): GD on ℓ_sqrt(xy) from (3, 6) for 2/η ∈ {9, 7, 5, 3}: the "
            "sharpness rises and settles just below 2/η; the trajectories bounce across the y-axis "
            "before converging. Here, the runs of the verdict rows above: each run settles below "
            f"its 2/η, with relative gaps {shown}. Matches: below 2/η, and the gap grows with η. "
            "Differs: for the largest η (2/η = 3) the gap is a large fraction of 2/η, not 'just "
            "below'.")


FIG10 = Claim(
    id="ahn2023.fig10",
    source=PAPER.at("Fig. 10, App. A"),
    title="EoS: final sharpness close to and below 2/eta for 2/eta in {9, 7, 5, 3}",
    statement=r"0 < 2/\eta - \lambda_{\max}(\nabla^2 f(x_T, y_T)) \le C\eta\ (C = 2),\ T = \lfloor 15/\eta\rfloor",
    hypotheses=("ℓ = ℓ_sqrt", "start (3, 6): y0² − x0² = 27 > 9 (spec §7 F23)"),
    uses=("ahn2023.thm2",),
    expect="supported",
    status="empirical",
    notes=f"'Close' is read through thm2's β = 2 gap law with the constant fixed at {FIG10_GAP_CONST:g}: "
          f"0 < 2/η − λ_T <= {FIG10_GAP_CONST:g}η, i.e. relative tolerance ({FIG10_GAP_CONST:g}/2)η² per step "
          "size (η = 2/3 is not small, so its gap is a large fraction of 2/η); the relative gap must also "
          "grow with η. Measured gaps/η are in the evidence. C = 2 is a choice (the narrower statement); "
          "Theorem 2's limit constant for ℓ_sqrt is measured in ahn2023.thm2.constant (1.0000), and the "
          "printed 'close to 2/η' (relative gap <= 5 %) is not reproduced at 2/η ∈ {5, 3} "
          "(ahn2023.fig10.printed).",
    checks=(
        _fig10_check("below_and_close", lambda eta, lam: 0 < 2 / eta - lam <= FIG10_GAP_CONST * eta,
                     f"0 < 2/eta - sharpness <= {FIG10_GAP_CONST:g}*eta"),
        Check("gap_grows_with_eta", _fig10_monotone, "TRAJ"),
    ),
    planted=(
        Planted("p1", "final sharpness above 2/η", _fig10_check("p1", lambda eta, lam: lam > 2 / eta,
                                                                 "sharpness > 2/eta")),
        Planted("p2", "final sharpness = y0² − x0² = 27 (within 5%)",
                _fig10_check("p2", lambda eta, lam: abs(lam / 27 - 1) <= 0.05, "sharpness ≈ 27")),
        near_miss("p3", f"near miss: 0 < 2/η − λ_T <= {FIG10_NEAR_MISS_C:g}η (C tightened to just below the "
                  "measured worst gap/η; the margin gives it)",
                  _fig10_check("p3", lambda eta, lam: 0 < 2 / eta - lam <= FIG10_NEAR_MISS_C * eta,
                               f"0 < 2/eta - sharpness <= {FIG10_NEAR_MISS_C:g}*eta"),
                  margin=_fig10_const_margin),
    ),
    figures=(Figure("fig10_sharpness_vs_time", _draw_fig10),),
)


# ============================================================================ Figure 11
LEFT_KEYS = ("beta=3/2", "beta=2", "beta=3", "beta=10")
RIGHT_KEYS = ("beta=4/3", "beta=3/2", "beta=2", "beta=4")


def _draw_fig11_left(ctx: Context, path: str) -> str:
    plt = _plt()
    fig, ax = plt.subplots(1, 1, figsize=(6, 4.4))
    for key in LEFT_KEYS:
        ks = ks_for(ctx, key)
        r = lanes(key, ks, EOS_M)
        p = fast_exponent(beta_of(key))
        line, = ax.loglog(r.eta, r.gap, "o-", ms=3, lw=1, label=f"{key}: slope 1/(β−1) = {p:.3g}")
        ref = r.gap[-1] * (r.eta / r.eta[-1]) ** p
        ax.loglog(r.eta, ref, ls="--", lw=0.8, color=line.get_color())
        # each loss's fit window starts at its own k (the last FIT_SPAN units of its sweep)
        ax.axvline(np.exp(-k_fit_min(ctx, key)), color=line.get_color(), lw=0.6, ls=":")
    ax.plot([], [], color="k", lw=0.6, ls=":", label="start of each loss's fit window")
    ax.set_xlabel("η")
    ax.set_ylabel(r"$2/\eta - y_\infty^2$")
    ax.set_title("Fig. 11 left: sharpness gap (dashed: predicted slopes)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    _save(fig, path)
    return ("Paper (Fig. 11 left, paraphrased): for ℓ_β, the gap 2/η − y∞² between 2/η and the "
            "limiting sharpness decays like η^{1/(β−1)}, as Theorem 2 predicts. Here: ℓ_β for "
            "β ∈ {3/2, 2, 3, 10} from the normalised start √(3/η)(3/4, 5/4), η = e^{-k}, the same "
            "cached runs as the slope rows above; dashed lines have the predicted slopes. The "
            "fitted slopes and their tolerance are in the evidence table.")


def _draw_fig11_right(ctx: Context, path: str) -> str:
    plt = _plt()
    fig, ax = plt.subplots(1, 1, figsize=(6, 4.4))
    for key in RIGHT_KEYS:
        r = lanes(key, ks_for(ctx, key), EOS_M)
        keep = np.asarray(ks_for(ctx, key)) >= 2.0 - 1e-9
        eta, T = r.eta[keep], r.bounce[keep].astype(float)
        p, lf, law = _rem3_law(beta_of(key))
        line, = ax.loglog(eta, T, "o-", ms=3, lw=1, label=f"{key}: {law}")
        pred = eta**p * (np.log(1 / eta) if lf is not None else 1.0)
        ax.loglog(eta, T[-1] * pred / pred[-1], ls="--", lw=0.8, color=line.get_color())
    ax.set_xlabel("η")
    ax.set_ylabel(r"bouncing length $T = \#\{t: y_t^2 > 2/\eta\}$")
    ax.set_title("Fig. 11 right: bouncing-phase length (dashed: predicted laws)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    _save(fig, path)
    note = " Quick budget: ℓ_{4/3} only to η = e^-4." if not ctx.full else ""
    return ("Paper (Fig. 11 right, paraphrased): the number of bouncing steps grows like "
            "η^{-β/(β−1)} for β < 2, η^-2 log(1/η) for β = 2 and η^-2 for β > 2 (Remark 3). Here: "
            "ℓ_β for β ∈ {4/3, 3/2, 2, 4}, same cached runs as the slope rows above, η ≤ e^-2; "
            f"dashed lines follow the predicted laws.{note}")


FIG11_LEFT = Claim(
    id="ahn2023.fig11.left",
    source=PAPER.at("Fig. 11 (left), App. A"),
    title="Sharpness gap slopes 1/(beta-1) for beta in {3/2, 2, 3, 10}",
    statement=r"\log(2/\eta - y_\infty^2) \sim \tfrac{1}{\beta-1}\log\eta,\ \eta\in[e^{-5}, e^{-1}]",
    hypotheses=("ℓ = ℓ_β", "normalised EoS start δ = 1"),
    uses=("ahn2023.thm2", "ahn2023.prop2", "ahn2023.prop3"),
    expect="supported",
    status="empirical",
    notes=f"Fit on the last {FIT_SPAN:g} units of k = ln(1/η) of each sweep (1.52 decades; k step 1/2 quick, 1/4 full); tolerance {TAU}.",
    checks=(combine("slopes", {k: _thm2_rate(k, fast_exponent(beta_of(k)), "equal") for k in LEFT_KEYS}, "RATE"),),
    planted=(Planted("p1", "slope 1/β", combine("p1", {
        k: rate(k, measure(k, GAP), 1.0 / beta_of(k), TAU) for k in LEFT_KEYS}, "RATE")),
             near_miss("p2", "near miss: slope 1/(β − 1) + 2.5τ", combine("p2", {
                 k: rate(k, measure(k, GAP), fast_exponent(beta_of(k)) + 2.5 * TAU, TAU) for k in LEFT_KEYS},
                 "RATE"), wrong=LEFT_KEYS)),
    figures=(Figure("fig11_gap", _draw_fig11_left),),
)

FIG11_RIGHT = Claim(
    id="ahn2023.fig11.right",
    source=PAPER.at("Fig. 11 (right), App. A"),
    title="Bouncing length: eta^{-beta/(beta-1)} (beta < 2), eta^-2 log(1/eta) (beta = 2), eta^-2 (beta = 4)",
    statement=r"T \asymp \eta^{-\beta/(\beta-1)}\ (\beta\in\{4/3, 3/2\}),\ \eta^{-2}\log(1/\eta)\ (\beta=2),\ \eta^{-2}\ (\beta=4)",
    hypotheses=("ℓ = ℓ_β", "normalised EoS start δ = 1"),
    uses=("ahn2023.thm2", "ahn2023.rem3"),
    expect="supported",
    status="empirical",
    notes="T := #{t : y_t² > 2/η}, fitted on the last 3.5 units of k of each sweep (1.52 decades); "
          "tolerance 0.1. " + NOT_FITTED_NOTE + " (it is still drawn).",
    checks=(combine("slopes", {k: _rem3_rate(k) for k in fitted(RIGHT_KEYS)}, "RATE"),),
    planted=(Planted("p2", "slope −2 for β < 2", combine("p2", {
        k: _rem3_rate(k, -2.0) for k in fitted(("beta=4/3", "beta=3/2"))}, "RATE")),
             near_miss("p3", "near miss: slope p + 1/4 (2.5τ shallower than predicted)", combine("p3", {
                 k: _rem3_rate(k, _rem3_law(beta_of(k))[0] + 0.25) for k in fitted(("beta=4/3", "beta=3/2", "beta=4"))},
                 "RATE"), wrong=fitted(("beta=4/3", "beta=3/2", "beta=4")))),
    figures=(Figure("fig11_bounce_length", _draw_fig11_right),),
)
