"""Section 2.3 / App. C.3–C.5 of Ahn et al. (2023): GD on ℓ(xy) in the edge-of-stability regime
(Theorem 2 itself is in :mod:`claims.ahn2023.sec2_thm2`).

Every check simulates GD from the fixed normalised start √(m/η)(x̃, ỹ) with x̃ = 3/4, ỹ = 5/4
(spec E7) on the grid η = e^{-k}, with the compiled float64 engine of :mod:`verify.dynamics`. The
fits of Theorem 2, Remark 3 and Fig. 11 are guarded: the lanes with k ≤ 2 are re-run at 30 digits
(python-flint arb) and those with k ≤ 3 (quick) / 4 (full) in compiled double-double arithmetic
(~31.9 digits); a gap differing by more than 1e-4 (relative), or a different outcome or crossing
index, makes the check inconclusive. Rates and ratios are fitted on the last 3.5 units of k of each
sweep (1.52 decades nearest the limit; the engine refuses fits over less than 1.5 decades, with fewer
than 8 points, or whose local slope drifts too much): k ∈ [2.5, 6] by default, [4.5, 8] for β = 10
(its local slope settles slowly), and for ℓ_{4/3}, whose bouncing phase lasts ~η^{-4} steps, the
sweep stops at k = 4.5 (quick, k-step 1/4) / 5 (full): k ∈ [1, 4.5] / [1.5, 5].
Budgets: quick uses k-steps of 1/2, full k-steps of 1/4 — the evidence says so.
"""
from __future__ import annotations

import functools
import math

import numpy as np
import sympy as sp

from verify import Claim, Planted, Status
from verify.asymptotic import Series, bounded, fit_power, rate
from verify.claim import Check, Context, Evidence, outcome
from verify import dynamics, symbolic
from verify.nearmiss import near_miss

from claims.ahn2023 import PAPER
from claims.ahn2023._losses import HUBER, combine, guarded, lanes, loss_by_key
from claims.ahn2023._eos_sweeps import (
    _frozen_huber_witness, EOS_M, TAU, NOT_FITTED_NOTE, fitted, ks_for, k_fit_min,
    _require_converged, measure, beta_of, fast_exponent, qs_exponent, GAP, _all_runs,
    _excess_margin, _near_rates, _near_bounded)

# its claims read the Theorem-2 sweeps (claims.ahn2023._eos_sweeps, cached per process): one
# worker task with the other modules declaring this label
SHARED_RUNS = "ahn2023.EOS"


# ============================================================================ Lemma 7
def _lem7_frozen(ctx: Context) -> Evidence:
    ok, data = _frozen_huber_witness()
    r = dynamics.run(HUBER, [1.0], [4.0], [0.25], max_steps=100)
    data["float_engine_outcome"] = str(dynamics.Outcome(r.outcome[0]))
    if ok and r.outcome[0] == dynamics.Outcome.FROZEN:
        return outcome(Status.SUPPORTED, "first alternative realised: ℓ_Hub from (1, 4) at η = 1/4 "
                       "hits x_1 = 0 exactly (y_1² = 225/16 > 8) and the engine reports FROZEN", **data)
    return outcome(Status.INCONCLUSIVE, "frozen witness not reproduced", **data)


LEM7_KEYS = ("rsym", "sqrt", "huber", "beta=3/2", "beta=3")
LEM7_MS = (2.5, 3.0, 6.0)

LEM7 = Claim(
    id="ahn2023.lem7",
    source=PAPER.at("Lemma 7, App. C.4"),
    title="Threshold crossing: either some x_t = 0 or lim y_t^2 <= 2/eta",
    statement=r"\exists t: x_t = 0 \quad\text{or}\quad \lim_t y_t^2 \le 2/\eta",
    hypotheses=("(A1)", "normalised start with m = 2 + δ, δ > 0", "η ∈ (0, 1)"),
    assumes=("A1",),
    uses=("ahn2023.def6.a1", "ahn2023.def7", "ahn2023.fact1.pos"),
    expect="supported",
    checks=(
        _all_runs("dichotomy", LEM7_KEYS, LEM7_MS,
                  lambda r, m: (r.outcome == dynamics.Outcome.FROZEN)
                  | ((r.outcome == dynamics.Outcome.CONVERGED) & (r.D <= 2 / r.eta)),
                  "every run is frozen or converges with y_inf^2 <= 2/eta"),
        Check("frozen_alternative", _lem7_frozen, "TRAJ"),
        symbolic.truth("algebra", lambda: _lem7_algebra(),
                       why="(2+ε)(1−ε′) − 1 > 1 for ε > 0, ε′ = θε/(2+ε), θ ∈ (0,1)"),
    ),
    planted=(
        Planted("p1", "lim y_t^2 <= (2 - δ)/η",
                _all_runs("p1", LEM7_KEYS, LEM7_MS, lambda r, m: r.D <= (4.0 - m) / r.eta,
                          "y_inf^2 <= (2 - delta)/eta")),
        Planted("p2", "y_t^2 > 2/η for all t",
                _all_runs("p2", LEM7_KEYS, LEM7_MS, lambda r, m: r.t_bar < 0,
                          "y_t^2 > 2/eta for every t (no crossing)")),
        near_miss("p3", "near miss: lim y_t² <= 1.99/η (the bound 2/η tightened by 0.5%)",
                  _all_runs("p3", LEM7_KEYS, LEM7_MS,
                            lambda r, m: (r.outcome == dynamics.Outcome.FROZEN) | (r.D * r.eta <= 1.99),
                            "y_inf^2 <= 1.99/eta",
                            excess=lambda r, m: np.where(r.outcome == dynamics.Outcome.FROZEN, -np.inf,
                                                         r.D * r.eta - 1.99)),
                  margin=_excess_margin("eta*y_inf^2 - 1.99")),
    ),
)


def _lem7_algebra():
    eps, u = sp.symbols("epsilon u", positive=True)
    theta = 1 / (1 + u)  # θ ∈ (0, 1)
    expr = sp.factor(sp.simplify((2 + eps) * (1 - theta * eps / (2 + eps)) - 1 - 1))
    return expr > 0


# ============================================================================ Proposition 1, eq. (15)
PROP1_KEYS = ("rsym", "sqrt", "huber", "beta=3/2", "beta=3")

PROP1 = Claim(
    id="ahn2023.prop1",
    source=PAPER.at("Proposition 1, App. C.4 (outline eq. (12), C.3)"),
    title="Convergence phase: 2/eta - C|s_tbar| <= y_inf^2 <= 2/eta",
    statement=r"2/\eta - C|s_{\bar t}| \le y_\infty^2 < 2/\eta",
    hypotheses=("(A1), (A2)", "a run with crossing index t̄", "sup_t |s_t| <= S"),
    assumes=("A1", "A2"),
    uses=("ahn2023.lem8", "ahn2023.eq15", "ahn2023.eq16", "ahn2023.lem6"),
    expect="supported",
    checks=(combine("gap_over_s_cross_bounded", {
        k: bounded(k, measure(k, lambda r, eta: r.gap / r.s_cross, label="(2/eta - y_inf^2)/|s_tbar|"),
                   0.15, side="upper", toward="zero", law="(2/η − y_∞²)/|s_t̄| = O(1)")
        for k in PROP1_KEYS}, "TRAJ"),),
    planted=(
        Planted("p1", "2/η − O(|s_t̄|²)", combine("p1", {
            k: bounded(k, measure(k, lambda r, eta: r.gap / r.s_cross**2, label="gap/|s_tbar|^2"),
                       0.15, side="upper", toward="zero") for k in ("rsym", "sqrt")}, "TRAJ")),
        _near_bounded("p3", "near miss: 2/η − O(|s_t̄|^{1.375}) (the power of |s_t̄| raised by 2.5τ)",
                      PROP1_KEYS, lambda k: lambda r, eta: r.gap / r.s_cross**1.375, 0.15, "upper"),
        # equality read at float resolution (relative 1e-9), not `==`, which any rounding would refute
        Planted("p2", "y_∞² = 2/η", _all_runs("p2", PROP1_KEYS, (EOS_M,),
                                              lambda r, m: np.abs(r.D * r.eta / 2 - 1) <= 1e-9,
                                              "y_inf^2 = 2/eta to relative 1e-9")),
    ),
)

EQ15 = Claim(
    id="ahn2023.eq15",
    source=PAPER.at("eq. (15), App. C.4"),
    title="Contraction after the crossing: |x_{t+1}| <= |x_t| exp(-c rho_t)",
    statement=r"t \ge \bar t \implies |x_{t+1}| \le |x_t|\, e^{-c\rho_t}",
    hypotheses=("(A1), (A2)", "t >= t̄", "sup |s_t| <= S"),
    assumes=("A1", "A2"),
    uses=("ahn2023.def6.a2", "ahn2023.def7"),
    expect="supported",
    checks=(combine("contraction_constant", {
        k: bounded(k, measure(k, lambda r, eta: r.contraction_min, lanes_kw={"contraction": True},
                              label="min_{t>=tbar} log(|x_t|/|x_{t+1}|)/rho_t"),
                   0.1, side="lower", toward="zero", law="c = min log(|x_t|/|x_{t+1}|)/ρ_t > 0, η-free")
        for k in PROP1_KEYS}, "TRAJ"),),
    planted=(Planted("p1", "|x_{t+1}| <= |x_t| exp(−c ρ_t/η)", combine("p1", {
        k: bounded(k, measure(k, lambda r, eta: r.contraction_min * eta, lanes_kw={"contraction": True},
                              label="min log(|x_t|/|x_{t+1}|)/(rho_t/eta)"),
                   0.1, side="lower", toward="zero") for k in ("rsym", "beta=3")}, "TRAJ")),
        _near_bounded("p2", "near miss: |x_{t+1}| <= |x_t| exp(−c ρ_t/η^{1/4}) (the rate's η-power off by 2.5τ)",
                      PROP1_KEYS, lambda k: lambda r, eta: r.contraction_min * eta**0.25, 0.1, "lower",
                      lanes_kw={"contraction": True}),
    ),
)


# ============================================================================ Proposition 2
def _prop2_small_beta_bound(key: str):
    b = beta_of(key)

    def q(r, eta):
        s = r.s_cross
        if b < 2:
            E = eta * s ** (2 - b)
        else:
            E = eta * np.log(np.maximum(math.e, s / eta))
        return r.gap / (eta * s**2 + E)

    return q


PROP2 = Claim(
    id="ahn2023.prop2",
    source=PAPER.at("Proposition 2, App. C.4"),
    title="Refined convergence phase: gap <= C eta |s_tbar|^2 + E",
    statement=r"2/\eta - C\eta|s_{\bar t}|^2 - E \le y_\infty^2 \le 2/\eta,\ "
              r"E = C\eta^{1/(\beta-1)}\ (\beta>2),\ C\eta\log(e\vee|s_{\bar t}|/\eta)\ (\beta=2),\ "
              r"C\eta|s_{\bar t}|^{2-\beta}\ (\beta<2)",
    hypotheses=("(A1), (A2) with β < ∞ (via (A2+))", "crossing at t̄", "sup |s_t| <= S"),
    assumes=("A1", "A2", "A2+", "beta<inf"),
    uses=("ahn2023.prop1", "ahn2023.lem8", "ahn2023.fact4", "ahn2023.lem6"),
    expect="supported",
    checks=(
        combine("gap_rate_beta_gt_2", {
            k: rate(k, measure(k, GAP, label="2/eta - y_inf^2"), fast_exponent(beta_of(k)), TAU,
                    mode="at_least", law="gap ≲ η^{1/(β−1)}")
            for k in ("beta=3", "beta=4", "beta=10")}, "RATE"),
        combine("gap_bound_beta_le_2", {
            k: bounded(k, measure(k, _prop2_small_beta_bound(k), label="gap/(eta|s|^2 + E)"), 0.15,
                       side="upper", toward="zero", law="gap/(η|s_t̄|² + E) = O(1)")
            for k in ("beta=3/2", "beta=2", "rsym", "sqrt")}, "TRAJ"),
    ),
    planted=(
        Planted("p1", "exponent 1/(β − 2) for β > 2", combine("p1", {
            k: rate(k, measure(k, GAP), 1.0 / (beta_of(k) - 2), TAU, mode="at_least")
            for k in ("beta=3", "beta=4")}, "RATE")),
        Planted("p2", "exponent β/(β − 1) for β > 2", combine("p2", {
            k: rate(k, measure(k, GAP), qs_exponent(beta_of(k)), TAU, mode="at_least")
            for k in ("beta=3", "beta=4")}, "RATE")),
        _near_rates("p3", "near miss: gap ≲ η^{1/(β−1) + 2.5τ} for β > 2", ("beta=3", "beta=4", "beta=10"),
                    lambda k: fast_exponent(beta_of(k)) + 2.5 * TAU, TAU, mode="at_least"),
    ),
)


# ============================================================================ Proposition 3, eq. (14), Prop. 4, Thm 5
PROP3_KEYS = ("beta=4/3", "beta=3/2", "beta=2", "beta=3", "beta=4", "sqrt", "rsym")
C_STAR = 0.5


def _prop3_kw(key: str):
    b = beta_of(key)
    return {"qs": (0.0, qs_exponent(b), C_STAR * min(1.0, 1.0 / b), 1.0)}


def _prop3_p1(key: str) -> Check:
    """Drop the η-term: at t̄−1, δ <= 2η²s² (lem8), so |s|^β/δ >= L(η) := |s|^{β−2}/(2η²)."""
    b = beta_of(key)

    def run(ctx: Context) -> Evidence:
        ks = ks_for(ctx, key)
        r = lanes(key, ks, EOS_M)
        _require_converged(r, key)
        ratio = r.s_last_bounce**b / r.delta_last_bounce
        lower = r.s_last_bounce ** (b - 2) / (2 * r.eta**2)
        keep = np.asarray(ks) >= k_fit_min(ctx, key) - 1e-9
        holds = bool(np.all(ratio >= lower * (1 - 1e-9)))
        fit = fit_power(r.eta[keep], lower[keep])
        data = {"loss": key, "slope_of_lower_bound": fit.slope, "stderr": fit.stderr,
                "max_ratio": float(np.max(ratio)), "ratio_above_lower_bound_everywhere": holds,
                "series": [[float(a), float(c)] for a, c in zip(r.eta[keep], ratio[keep])]}
        if holds and -fit.slope > 0.5 and fit.stderr < 0.25:
            return outcome(Status.REFUTED, f"|s|^β/δ at t̄−1 is >= |s|^(β−2)/(2η²), which grows like "
                           f"η^{fit.slope:.2f} (± {fit.stderr:.2f}); max ratio {np.max(ratio):.3g}: no "
                           f"η-free C", **data)
        return outcome(Status.SUPPORTED, "ratio at t̄−1 stays bounded on this grid", **data)

    return Check(key, run, "TRAJ")


PROP3 = Claim(
    id="ahn2023.prop3",
    source=PAPER.at("Proposition 3, App. C.5"),
    title="Quasi-static upper bound |s_t|^beta <= C(delta_t + C' eta^{beta/(beta-1)})",
    statement=r"|s_t|^\beta \le C(\delta_t + C'\eta^{\beta/(\beta-1)}) \ \text{on bouncing steps with } "
              r"0 \le \delta_t \le c_*\min\{1, 1/\beta\};\quad |s_{\bar t}| \lesssim \eta^{1/(\beta-1)}",
    hypotheses=("(A1), (A2) with β < ∞ (via (A2+))", "a thm2-type run",
                f"bouncing t with 0 <= δ_t <= c_* min(1, 1/β), c_* = {C_STAR}"),
    assumes=("A1", "A2", "A2+", "beta<inf"),
    uses=("ahn2023.lem6", "ahn2023.fact4", "ahn2023.eq20", "ahn2023.def7"),
    expect="supported",
    notes=NOT_FITTED_NOTE + ". C' = 1 in the measured ratio |s_t|^β/(δ_t + η^{β/(β−1)}); sup over bouncing steps t >= t₀ "
          "(t₀ operational, s_c = 1/2) in the δ-window, per η.",
    checks=(
        combine("ratio_bounded", {
            k: bounded(k, measure(k, lambda r, eta: r.qs_max, lanes_kw=_prop3_kw(k),
                                  label="sup |s|^beta/(delta + eta^(beta/(beta-1)))"),
                       0.15, side="upper", toward="zero") for k in fitted(PROP3_KEYS)}, "TRAJ"),
        combine("s_cross_rate", {
            k: rate(k, measure(k, lambda r, eta: r.s_cross, label="|s_tbar|"), fast_exponent(beta_of(k)),
                    0.1, mode="at_least", law="|s_t̄| ≲ η^{1/(β−1)}") for k in fitted(PROP3_KEYS)}, "RATE"),
    ),
    planted=(
        Planted("p1", "drop the η-term: |s_t|^β <= C δ_t",
                combine("p1", {k: _prop3_p1(k) for k in ("beta=3/2", "beta=3", "sqrt")}, "TRAJ")),
        Planted("p2", "|s_t̄| ≍ η^{1/(β(β−1))}", combine("p2", {
            k: rate(k, measure(k, lambda r, eta: r.s_cross), 1.0 / (beta_of(k) * (beta_of(k) - 1)), 0.1)
            for k in ("beta=3/2", "beta=3")}, "RATE")),
        _near_rates("p3", "near miss: |s_t̄| ≲ η^{1/(β−1) + 2.5τ}", fitted(PROP3_KEYS),
                    lambda k: fast_exponent(beta_of(k)) + 0.25, 0.1, mode="at_least",
                    quantity=lambda r, eta: r.s_cross),
    ),
)

QS_K, QS_DMAX = 10.0, 0.5
THM5_KEYS = ("beta=4/3", "beta=3/2", "beta=3", "beta=4", "sqrt", "rsym")


def _thm5_kw(key: str, power: float | None = None):
    b = beta_of(key)
    return {"qs": (QS_K, qs_exponent(b), QS_DMAX, 0.0), "qs_beta": power}


def _two_sided(key: str, power_of=None) -> Check:
    """qs_max bounded above and qs_min bounded below across η (ratio in one compact set)."""
    power = None if power_of is None else power_of(beta_of(key))
    up = bounded("sup", measure(key, lambda r, eta: r.qs_max, lanes_kw=_thm5_kw(key, power),
                                label="sup |s|^p/delta"), 0.15, side="upper", toward="zero")
    lo = bounded("inf", measure(key, lambda r, eta: r.qs_min, lanes_kw=_thm5_kw(key, power),
                                label="inf |s|^p/delta"), 0.15, side="lower", toward="zero")
    return combine(key, {"sup": up, "inf": lo}, "TRAJ")


def _near_power(b: float) -> float:
    """A power p of |s| near β: |s|^p/δ then drifts like η^{-0.375} at the window's small-δ end
    (δ ≈ Kη^{β/(β−1)}), i.e. by 2.5τ (τ = 0.15) in log-slope — a near miss of |s| ≍ δ^{1/β}."""
    return b + 0.375 * (b - 1)


def _near_qs(tag: str, description: str, keys) -> Check:
    return near_miss(tag, description, combine(tag, {k: _two_sided(k, _near_power) for k in keys}, "TRAJ"),
                     wrong=tuple(keys))


THM5_STATEMENT = (r"c_3\delta_t^{1/\beta} \le |s_t| \le C_3\delta_t^{1/\beta} \ \text{for bouncing } t "
                  r"\text{ with } K\eta^{\beta/(\beta-1)} \le \delta_t \le \delta_{\max}")

THM5 = Claim(
    id="ahn2023.thm5",
    source=PAPER.at("Theorem 5, App. C.5"),
    title="Quasi-static principle |s_t| ~ delta_t^{1/beta}",
    statement=THM5_STATEMENT,
    hypotheses=("(A1), (A2), (A3), β < ∞; (A2+) through prop3 (spec fact4)",
                "δ_{t0} <= c_2 and c_1 δ^{1/β} <= |s_{t0}| <= C_1 δ^{1/β}"),
    assumes=("A1", "A2", "A2+", "A3", "beta<inf"),
    uses=("ahn2023.prop3", "ahn2023.prop4", "ahn2023.eq13", "ahn2023.eq14", "ahn2023.rem2",
          "ahn2023.ex1.rsym_a3", "ahn2023.ex1.sqrt_a3", "ahn2023.ex1.beta_a3"),
    expect="supported",
    notes=f"Window K η^(β/(β−1)) <= δ_t <= δ_max with K = {QS_K}, δ_max = {QS_DMAX}; bouncing steps "
          "after the operational t₀ (s_c = 1/2). " + NOT_FITTED_NOTE + ".",
    checks=(combine("ratio_in_compact", {k: _two_sided(k) for k in fitted(THM5_KEYS)}, "TRAJ"),),
    planted=(
        Planted("p1", "|s_t| ≍ δ_t^{1/2} for every β", combine("p1", {
            k: _two_sided(k, lambda b: 2.0) for k in ("beta=3/2", "beta=4")}, "TRAJ")),
        Planted("p2", "|s_t| ≍ δ_t", combine("p2", {
            k: _two_sided(k, lambda b: 1.0) for k in ("beta=3/2", "beta=3")}, "TRAJ")),
        _near_qs("p3", "near miss: |s_t| ≍ δ_t^{1/p}, p = β + 0.375(β − 1) (a 2.5τ drift of the ratio)",
                 ("beta=3/2", "beta=3")),
    ),
)

EQ14 = Claim(
    id="ahn2023.eq14",
    source=PAPER.at("eqs. (14), (19), App. C.3, C.5"),
    title="Quasi-static prediction |s_t| ~ delta_t^{1/beta} during bouncing",
    statement=r"|s_t| \asymp \delta_t^{1/\beta} \quad (\delta_t \text{ small}, \ \delta_t \gg \eta^{\beta/(\beta-1)})",
    hypotheses=("(A1), (A2), (A3) with β < ∞: r = 1 − Θ(|s|^β) takes (A2) for the upper and (A3) for "
                "the lower side", "bouncing phase"),
    assumes=("A1", "A2", "A3", "beta<inf"),
    uses=("ahn2023.eq13", "ahn2023.def6.a2"),
    expect="supported",
    status="heuristic",
    notes="Checked through the same runs and window as thm5.",
    checks=(combine("ratio_in_compact", {k: _two_sided(k) for k in ("beta=3/2", "beta=3", "sqrt")}, "TRAJ"),),
    planted=(Planted("p1", "|s_t| ≍ δ_t^{1/2} for every β", combine("p1", {
        k: _two_sided(k, lambda b: 2.0) for k in ("beta=3/2", "beta=3")}, "TRAJ")),
             _near_qs("p2", "near miss: |s_t| ≍ δ_t^{1/p}, p = β + 0.375(β − 1) (a 2.5τ drift of the ratio)",
                      ("beta=3/2", "beta=3"))),
)

PROP4 = Claim(
    id="ahn2023.prop4",
    source=PAPER.at("Proposition 4, App. C.5"),
    title="Quasi-static lower bound |s_t| >= c delta_t^{1/beta}",
    statement=r"|s_t| \ge c\,\delta_t^{1/\beta} \ \text{for } t \ge t_0 \text{ with } \delta_t \ge K\eta^{\beta/(\beta-1)}",
    hypotheses=("(A1), (A2), (A3), β < ∞", "δ_{t0} <= c_2, |s_{t0}| >= c δ_{t0}^{1/β}"),
    assumes=("A1", "A2", "A3", "beta<inf"),
    uses=("ahn2023.prop3", "ahn2023.def6.a3", "ahn2023.ex1.rsym_a3", "ahn2023.ex1.sqrt_a3",
          "ahn2023.ex1.beta_a3"),
    expect="supported",
    notes=f"inf over bouncing steps with K η^(β/(β−1)) <= δ_t <= {QS_DMAX}, K = {QS_K}.",
    checks=(combine("inf_bounded_below", {
        k: bounded(k, measure(k, lambda r, eta: r.qs_min, lanes_kw=_thm5_kw(k), label="inf |s|^beta/delta"),
                   0.15, side="lower", toward="zero") for k in THM5_KEYS}, "TRAJ"),),
    planted=(Planted("p1", "|s_t| >= c δ_t^{1/(2β)}", combine("p1", {
        k: bounded(k, measure(k, lambda r, eta: r.qs_min, lanes_kw=_thm5_kw(k, 2 * beta_of(k)),
                              label="inf |s|^(2 beta)/delta"), 0.15, side="lower", toward="zero")
        for k in ("beta=3/2", "beta=3", "sqrt")}, "TRAJ")),
        near_miss("p2", "near miss: |s_t| >= c δ_t^{1/p}, p = β + 0.375(β − 1) (a 2.5τ drift of the ratio)",
                  combine("p2", {k: bounded(k, measure(k, lambda r, eta: r.qs_min,
                                                       lanes_kw=_thm5_kw(k, _near_power(beta_of(k)))),
                                            0.15, side="lower", toward="zero")
                                 for k in ("beta=3/2", "beta=3")}, "TRAJ"), wrong=("beta=3/2", "beta=3"))),
)


# ============================================================================ Remark 2
@functools.lru_cache(maxsize=None)
def _rem2_counts(key: str = "rsym", eta: float = math.exp(-3), s_c: float = 0.5, lo: float = 1e-300,
                 n: int = 12):
    """Steps until |s_t| >= s_c from y0² = (2 + δ)/η (δ = 1) with tiny |s0|. |s0| reaches 1e-300
    (float64 represents it exactly enough: x0 = s0/y0 is a normal number), so log(1/|s0|) spans
    two decades and a power of the log can be fitted under the engine's grid rules."""
    s0 = np.geomspace(lo, 1e-3, n)
    y0 = math.sqrt(3.0 / eta)
    counts = []
    for s in s0:
        xs, ys = dynamics.trajectory(loss_by_key(key), s / y0, y0, eta, 2000)
        hit = np.nonzero(np.abs(xs * ys) >= s_c)[0]
        counts.append(int(hit[0]) if len(hit) else -1)
    return s0, np.array(counts, float)


def _rem2_affine(ctx: Context) -> Evidence:
    s0, counts = _rem2_counts()
    if np.any(counts < 0):
        return outcome(Status.INCONCLUSIVE, "some runs never reached |s| >= s_c within 2000 steps")
    L = np.log(1 / s0)
    A = np.vstack([L, np.ones_like(L)]).T
    coef, *_ = np.linalg.lstsq(A, counts, rcond=None)
    resid = counts - A @ coef
    r2 = 1 - float(resid @ resid) / float(np.sum((counts - counts.mean()) ** 2))
    ok = r2 >= 0.99 and coef[0] > 0
    return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                   f"count = {coef[0]:.3f} log(1/|s0|) + {coef[1]:.2f} (R² {r2:.4f}) over |s0| ∈ [1e-300, 1e-3]",
                   slope_per_log=float(coef[0]), intercept=float(coef[1]), r2=r2, eta="e^-3", delta=1.0,
                   s_c=0.5, counts=counts.tolist(), s0=s0.tolist(), loss="rsym")


def _rem2_log_series() -> Series:
    s0, counts = _rem2_counts()
    return Series(np.log(1 / s0), counts, {"loss": "rsym", "x": "log(1/|s0|)", "y": "steps to |s| >= 1/2"})


REM2 = Claim(
    id="ahn2023.rem2",
    source=PAPER.at("Remark 2, App. C.5"),
    title="From tiny |s_{t0}|, |s| reaches order 1 in O(log(1/|s_{t0}|)) steps",
    statement=r"|s_{t_0+1}| \ge (1+c)|s_{t_0}| \implies \#\{t: |s_t| < s_c\} = O(\log(1/|s_{t_0}|))",
    hypotheses=("(A3)", "δ_{t0} ≍ 1", "|s_{t0}| << 1"),
    assumes=("A3",),
    uses=("ahn2023.prop4",),
    expect="supported",
    checks=(Check("affine_in_log", _rem2_affine, "RATE"),),
    planted=(Planted("p1", "the count is ∝ 1/|s0|",
                     # on |s0| >= 1e-12 (9 decades), where count(s0) is close enough to a power law
                     # (R² 0.97) for the engine to fit one; over 1e-300 it is visibly logarithmic
                     rate("p1", lambda ctx: Series(*_rem2_counts(lo=1e-12, n=10), {"loss": "rsym"}), -1.0, 0.2)),
             near_miss("p2", "near miss: the count grows like log(1/|s0|)^{1.25} (power of the log off by "
                       "2.5 × 0.1)", rate("p2", lambda ctx: _rem2_log_series(), 1.25, 0.1)),),
)


# ============================================================================ Remark 3, Fact 5
def _rem3_law(b: float) -> tuple[float, object, str]:
    if b > 2:
        return -2.0, None, "T ≍ η^{-2}"
    if b == 2:
        return -2.0, (lambda eta: np.log(1 / eta)), "T ≍ η^{-2} log(1/η)"
    return -qs_exponent(b), None, "T ≍ η^{-β/(β−1)}"


def _rem3_rate(key: str, exponent=None, name=None, tol=0.1) -> Check:
    """Rate of T = #{t: y_t² > 2/η}; the prediction is hp-guarded (crossing indices must agree)."""
    b = beta_of(key)
    p, lf, law = _rem3_law(b)
    c = rate(name or key, measure(key, lambda r, eta: r.bounce.astype(float), label="T = #{t: y_t^2 > 2/eta}"),
             p if exponent is None else exponent, tol, log_factor=lf if exponent is None else None, law=law)
    return guarded(c, key, lambda ctx, key=key: ks_for(ctx, key), EOS_M) if exponent is None else c


def _rem3_agree(ctx: Context) -> Evidence:
    worst, rows = 0.0, {}
    for key in REM3_KEYS:
        ks = ks_for(ctx, key)
        r = lanes(key, ks, EOS_M)
        keep = np.asarray(ks) >= 4.0 - 1e-9
        dev = float(np.max(np.abs(1 - r.bounce_from_t0[keep] / r.bounce[keep])))
        rows[key] = dev
        worst = max(worst, dev)
    ok = worst <= 0.05
    return outcome(Status.SUPPORTED if ok else Status.INCONCLUSIVE,
                   f"T counted from t=0 and from the operational t0 (s_c = 1/2) differ by at most "
                   f"{100 * worst:.2f}% for η <= e^-4", per_loss=rows, tolerance=0.05)


_B = sp.Symbol("beta", positive=True)


def _rem3_sum_exponent():
    """Exponent of η in η^{-2} · 2^{K(2/β − 1)} when 2^{-K} = η^{β/(β−1)} (the last phase dominates)."""
    return -2 - (2 / _B - 1) * _B / (_B - 1)


def _rem3_sum_converges():
    """For β > 2 the phase lengths 2^{k(2/β−1)}/η² sum to O(η^-2): the ratio 2^{2/β−1} < 1."""
    u = sp.Symbol("u", positive=True)  # β = 2 + u
    return sp.simplify(2 / (2 + u) - 1) < 0


REM3_KEYS = ("beta=4/3", "beta=3/2", "beta=2", "beta=3", "beta=4", "beta=10", "rsym", "sqrt")

REM3 = Claim(
    id="ahn2023.rem3",
    source=PAPER.at("Remark 3, App. C.5"),
    title="Length of the bouncing phase",
    statement=r"T_{\mathrm{bounce}} \asymp \eta^{-2}\ (\beta>2),\ \eta^{-2}\log(1/\eta)\ (\beta=2),\ "
              r"\eta^{-\beta/(\beta-1)}\ (\beta<2)",
    hypotheses=("quasi-static behaviour on the bouncing phase (supplied by thm5: (A1), (A2), (A2+), (A3), "
                "β < ∞)",),
    assumes=("A1", "A2", "A2+", "A3", "beta<inf"),
    uses=("ahn2023.thm5", "ahn2023.eq20"),
    expect="supported",
    notes=NOT_FITTED_NOTE + ". "
          "T := #{t : y_t² > 2/η} (spec §7 F15), fitted on η = e^{-k} over the sweep's last 3.5 units of k (1.52 decades); tolerance 0.1. The "
          "count from the operational t₀ is compared in `t0_count_agrees`.",
    checks=(combine("bounce_length_rate", {k: _rem3_rate(k) for k in fitted(REM3_KEYS)}, "RATE"),
            Check("t0_count_agrees", _rem3_agree, "TRAJ"),
            symbolic.identity("phase_sum_exponent", lambda: _rem3_sum_exponent(), lambda: -_B / (_B - 1),
                              why="β < 2: η^-2 · 2^{K(2/β−1)} with 2^{-K} = η^{β/(β−1)} is η^{-β/(β−1)}"),
            symbolic.truth("phase_sum_bounded_beta_gt_2", lambda: _rem3_sum_converges(),
                           why="β > 2: Σ_k 2^{k(2/β−1)} is a convergent geometric series, so T ≍ η^-2")),
    planted=(
        Planted("p1", "T ≍ η^{-1}", combine("p1", {k: _rem3_rate(k, -1.0) for k in ("beta=3", "rsym")}, "RATE")),
        Planted("p2", "T ≍ η^{-1/(β−1)} for β < 2", combine("p2", {
            k: _rem3_rate(k, -1.0 / (beta_of(k) - 1)) for k in fitted(("beta=4/3", "beta=3/2"))}, "RATE")),
        near_miss("p3", "near miss: T ≍ η^{p + 1/4} (the predicted exponent p made shallower by 2.5τ)",
                  combine("p3", {k: _rem3_rate(k, _rem3_law(beta_of(k))[0] + 0.25)
                                 for k in ("beta=3/2", "beta=3", "beta=4")}, "RATE"),
                  wrong=("beta=3/2", "beta=3", "beta=4")),
    ),
)

FACT5_EPS = 1e-8


def _fact5_measure(key: str, m: float):
    return measure(key, lambda r, eta: r.steps.astype(float), m=m,
                   lanes_kw={"rtol": 0.0, "xtol": FACT5_EPS}, label=f"steps until |x_t| <= {FACT5_EPS}")


def _fact5_eos_vs_bounce(ctx: Context) -> Evidence:
    rows, ok = {}, True
    for key in FACT5_KEYS:
        ks = ks_for(ctx, key)
        r = lanes(key, ks, EOS_M, rtol=0.0, xtol=FACT5_EPS)
        _require_converged(r, key)
        holds = bool(np.all(r.steps >= r.bounce))
        ok &= holds
        rows[key] = {"N_over_T_min": float(np.min(r.steps / r.bounce)), "N_ge_T": holds}
    return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                   "N_EoS >= T_bounce on every run (the bouncing phase is part of the run)", per_loss=rows)


FACT5_KEYS = ("rsym", "beta=3")

FACT5 = Claim(
    id="ahn2023.fact5",
    source=PAPER.at("App. C.5, paragraph after Proposition 4"),
    title="GD converges in O(1/eta) steps in the GF regime but needs Omega(eta^-2) in the EoS regime",
    statement=r"N_{GF} = O(1/\eta),\quad N_{EoS} \ge T_{\mathrm{bounce}} = \Omega(\eta^{-(\beta/(\beta-1))\vee 2})",
    hypotheses=("(A1), (A2) (GF count, rem1); the Ω(·) bouncing count via rem3/thm5: (A2+), (A3), β < ∞",
                "GF start m = 1, EoS start m = 3"),
    assumes=("A1", "A2", "A2+", "A3", "beta<inf"),
    uses=("ahn2023.rem1", "ahn2023.rem3"),
    expect="supported",
    notes=f"N = number of steps until |x_t| <= {FACT5_EPS}. On η ∈ [e^-5, e^-2] the EoS count still "
          "carries the approach and convergence phases, so the Ω(η^-2) part is tested through "
          "N >= T and the lower bound T η² >= c (T η²/log(1/η) for β = 2).",
    checks=(
        combine("gf_count", {k: rate(k, _fact5_measure(k, 1.0), -1.0, 0.15, mode="at_least",
                                     law="N_GF = O(1/η)") for k in FACT5_KEYS}, "RATE"),
        Check("eos_count_includes_bounce", _fact5_eos_vs_bounce, "TRAJ"),
        combine("bounce_lower_bound", {k: bounded(k, measure(
            # k bound now (k=k): a late-bound k would read the loop's last key for every loss
            k, lambda r, eta, k=k: r.bounce * eta**2 / (np.log(1 / eta) if k == "rsym" else 1.0),
            label="T eta^2 (/log(1/eta) for beta=2)"), 0.1, side="lower", toward="zero")
            for k in FACT5_KEYS}, "RATE"),
    ),
    planted=(Planted("p1", "EoS also converges in O(1/η) iterations", combine("p1", {
        k: bounded(k, measure(k, lambda r, eta: r.steps * eta, lanes_kw={"rtol": 0.0, "xtol": FACT5_EPS},
                              label="N_EoS eta"), 0.15, side="upper", toward="zero")
        for k in FACT5_KEYS}, "RATE")),
        near_miss("p2", "near miss: N_GF = O(η^{-1/2}) (fitted −0.745 on this range; 1.7τ above it)",
                  combine("p2", {k: rate(k, _fact5_measure(k, 1.0), -0.5, 0.15, mode="at_least")
                                 for k in FACT5_KEYS}, "RATE"), wrong=FACT5_KEYS)),
)
