"""ahn2023 §3: the step-size threshold of the mean model — its value η* = 8π/d², the linearisation,
both regimes (gradient flow below, edge of stability above), the located phase transition and the
headline statement.

Trajectories of (5) run in compiled float64 lanes (:mod:`claims.ahn2023._mean_model`); a lane that
runs out of steps makes its check inconclusive.
"""
from __future__ import annotations

import functools
import math

import numpy as np
import sympy

from verify import Claim, Figure, Planted, Status
from verify import asymptotic, certify, symbolic
from verify.extrapolate import compare_to_limit
from verify.claim import check, outcome
from verify.nearmiss import near_miss
from claims.ahn2023 import PAPER
from claims.ahn2023 import _mean_model as mm
from claims.ahn2023._sec3_common import S, _bound_margin, _excess_over_tol, _ginv_bound, _sp


# =========================================================================== threshold

def _eta_star_sym():
    sp = _sp()
    d, eta = sp.symbols("d eta", positive=True)
    g0 = S()["g"].subs(S()["b"], 0)
    return sp.solve(sp.Eq(d ** 2 * g0 ** 2 / 2, 2 / eta), eta)[0]


def _value(form):
    d = lambda: _sp().Symbol("d", positive=True)
    return symbolic.all_of("eta_star", (
        symbolic.identity("solve_half_d2_g0sq_eq_2_over_eta", _eta_star_sym, lambda: form(d())),
        symbolic.identity("d200", lambda: _eta_star_sym().subs(d(), 200), lambda: _sp().pi / 5000),
    ))


THRESHOLD_VALUE = Claim(
    id="ahn2023.threshold.value",
    source=PAPER.at("§1.2, §3.2"),
    title="η* = 8π/d²",
    statement=r"\tfrac12 d^2 g(0)^2 = 2/\eta \iff \eta = 8\pi/d^2\ (d = 200: \pi/5000)",
    uses=("ahn2023.lem2", "ahn2023.rem4"),
    expect="proved",
    checks=(_value(lambda d: 8 * _sp().pi / d ** 2),),
    planted=(Planted("p1", "η* = 4π/d²", _value(lambda d: 4 * _sp().pi / d ** 2)),
             Planted("p2", "η* = 8π/d", _value(lambda d: 8 * _sp().pi / d)),
             Planted("p3", "η* = 8π/(n d²), n = 300", _value(lambda d: 8 * _sp().pi / (300 * d ** 2)))),
)


def _linear(q_limit):
    def A_next_diff():
        s = S()
        sp, A, d, eta, b = s["sp"], s["A"], s["d"], s["eta"], s["b"]
        gb = s["g"]
        lp = s["ell_sym_prime_tanh"].subs(s["s"], A * gb)
        q = lp / (A * gb)
        return (A - 2 * d ** 2 * eta * lp * gb) - (1 - 2 * eta * d ** 2 * gb ** 2 * q) * A

    def q_lim():
        s = S()
        sp, x = s["sp"], s["s"]
        return sp.limit(s["ell_sym_prime_tanh"] / x, x, 0)

    # q(s) = tanh(s/2)/(2s) is even; on (0, 2] it lies in (0, 1/4] (arb certificates, the
    # removable point s = 0 closed by a Taylor form); for s >= 2, 0 < tanh(s/2) < 1 (exact, with
    # e^s = 1 + u, u > 0) gives 0 < q <= 1/(2s) <= 1/4
    sp = sympy
    x, u = sp.Symbol("s", real=True), sp.Symbol("u", positive=True)
    q_expr = sp.tanh(x / 2) / (2 * x)
    tanh_half_exp = lambda w: (w - 1) / (w + 1)  # tanh(s/2) with w = e^s
    return symbolic.all_of("linearisation", (
        symbolic.identity("A_step_factorises", A_next_diff, 0),
        symbolic.identity("q_limit_at_0", q_lim, q_limit),
        certify.inequality("q_le_quarter_on_0_2", q_expr, sp.Rational(1, 4), 0, 2, var=x),
        certify.inequality("q_positive_on_0_2", 0, q_expr, 0, 2, var=x, strict=True),
        symbolic.truth("tanh_half_in_0_1_for_s_positive",
                       lambda: sp.And(sp.simplify(tanh_half_exp(1 + u)) > 0,
                                      sp.simplify(tanh_half_exp(1 + u) - 1) < 0)),
        symbolic.identity("q_even", lambda: q_expr.subs(x, -x), lambda: q_expr),
    ))


THRESHOLD_LINEAR = Claim(
    id="ahn2023.threshold.linear",
    source=PAPER.at("§3.2"),
    title="A_{t+1} = (1 − 2ηd²g(b_t)²q_t)A_t with q_t ∈ (0, ¼], q_t → ¼",
    statement=r"A_{t+1} = (1 - 2\eta d^2 g(b_t)^2 q_t)A_t,\ q_t = \frac{\ell_{sym}'(A_tg(b_t))}"
              r"{A_tg(b_t)} \in (0, \tfrac14],\ q_t \to \tfrac14",
    uses=("ahn2023.def10", "ahn2023.fact9"),
    expect="proved",
    checks=(_linear(lambda: _sp().Rational(1, 4)),),
    planted=(Planted("p1", "q_t → ½ as A_t → 0", _linear(lambda: _sp().Rational(1, 2))),),
    notes="The factorisation and the limit are exact; q ∈ (0, ¼] is certified on (0, 2] in arb "
          "and follows from 0 < tanh(s/2) < 1 beyond (exact); q is even.",
)


@functools.lru_cache(maxsize=64)
def _b_inf_table(cs: tuple, ds: tuple, A0: float) -> dict:
    """b_∞^MM for every (c = ηd²/π, d); unconverged lanes marked with steps == budget."""
    out = {}
    for c in cs:
        for d in ds:
            out[(c, d)] = mm.b_inf(c, d, A0)
    return out


def _ratio_check(name: str, cs, expect_ratio, tol, A0=1.0):
    """At fixed ηd²/π the ratio b_∞(2d)/b_∞(d): ≈ ¼ below the threshold, ≈ 1 above."""
    @check(name, "PHASE")
    def run(ctx):
        ds = (50, 100, 200, 400) if ctx.full else (50, 100, 200)
        tab = _b_inf_table(tuple(cs), ds, A0)
        if any(v[1] >= 4_000_000 for v in tab.values()):
            return outcome(Status.INCONCLUSIVE, "a mean-model run hit the 4e6-step budget")
        rows, worst = {}, 0.0
        for c in cs:
            for d1, d2 in zip(ds, ds[1:]):
                r = tab[(c, d2)][0] / tab[(c, d1)][0]
                rows[f"c={c},d={d1}->{d2}"] = r
                worst = max(worst, abs(r - expect_ratio))
        b_vals = {f"c={c},d={d}": v[0] for (c, d), v in tab.items()}
        info = {"ratios": rows, "b_inf": b_vals, "expected_ratio": expect_ratio, "tolerance": tol,
                "A0": A0, "max_deviation": worst}
        ok = worst <= tol
        return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                       f"b_∞(2d)/b_∞(d) within {worst:.3f} of {expect_ratio} at ηd²/π ∈ {list(cs)} "
                       f"(tolerance {tol})", **info)
    return run


THRESHOLD_GF = Claim(
    id="ahn2023.threshold.gf",
    source=PAPER.at("§3.2 (i)"),
    title="Below 8π/d² the mean model keeps b_∞ = O(1/d²)",
    statement=r"\eta < 8\pi/d^2 \Rightarrow b^{MM}_\infty \approx b^{GF}_\infty \approx 0\ "
              r"(b^{MM}_\infty(2d)/b^{MM}_\infty(d) \approx 1/4)",
    status="heuristic",
    uses=("ahn2023.thm3", "ahn2023.fact8"),
    expect="supported",
    checks=(_ratio_check("quarter_ratio_below", (2.0, 4.0, 6.0, 7.0), 0.25, 0.03),),
    planted=(Planted("p1", "the same O(1/d²) scaling above the threshold (ηd²/π = 10, 12)",
                     _ratio_check("p1", (10.0, 12.0), 0.25, 0.03)),
             near_miss("p2", "near miss: below the threshold b_∞ = O(d^{-7/4}) (ratio 2^{-7/4} = 0.297, "
                       "1.6τ from ¼)", _ratio_check("p2", (2.0, 4.0, 6.0, 7.0), 2 ** -1.75, 0.03),
                       margin=_excess_over_tol("max_deviation", "largest |b_∞(2d)/b_∞(d) − 2^{-7/4}|"))),
)


def _eos_bound_check(name: str, bound_fn, cs=(8.5, 9.0, 10.0, 12.0, 16.0)):
    @check(name, "TRAJ")
    def run(ctx):
        ds = (50, 100, 200, 400)
        A0s = (1.0, -0.3, 4.0) if ctx.full else (1.0, -0.3)
        rows, worst, unconv = {}, -math.inf, 0
        for A0 in A0s:
            tab = _b_inf_table(cs, ds, A0)
            for (c, d), (b, steps) in tab.items():
                if steps >= 4_000_000:
                    unconv += 1
                    continue
                bound = bound_fn(c)
                worst = max(worst, b - bound)
                rows[f"c={c},d={d},A0={A0}"] = {"b_inf": b, "bound": bound, "steps": steps}
        info = {"runs": rows, "max_b_minus_bound": worst, "unconverged": unconv}
        if unconv:
            return outcome(Status.INCONCLUSIVE, f"{unconv} runs hit the step budget", **info)
        ok = worst <= 0
        return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                       f"b_∞^MM − bound ≤ {worst:.3g} over {len(rows)} runs above the threshold",
                       **info)
    return run




THRESHOLD_EOS = Claim(
    id="ahn2023.threshold.eos",
    source=PAPER.at("§3.2 (ii); §7 F17"),
    title="Above 8π/d² the limiting sharpness is at most 2/η",
    statement=r"\eta > 8\pi/d^2 \Rightarrow \tfrac12 d^2 g(b^{MM}_\infty)^2 \le 2/\eta,\ "
              r"b^{MM}_\infty \le g^{-1}(2/\sqrt{\eta d^2}) < 0",
    status="heuristic",
    uses=("ahn2023.thm4", "ahn2023.threshold.linear"),
    expect="supported",
    checks=(_eos_bound_check("bound_above_threshold", _ginv_bound),),
    planted=(Planted("p1", "b_∞ ≤ g⁻¹(1/√(ηd²))",
                     _eos_bound_check("p1", lambda c: _ginv_bound(c, numerator=1.0))),
             near_miss("p2", "near miss: b_∞ ≤ g⁻¹(1.99/√(ηd²)) (the bound 0.5% tighter in g)",
                       _eos_bound_check("p2", lambda c: _ginv_bound(c, numerator=1.99)),
                       margin=_bound_margin)),
)


# ----- .mm: locate the transition

MM_DS = (50, 100, 200, 400)
# the limit d -> inf is extrapolated from the four largest sizes: at d = 50 the start A0 = 3 is not
# yet in the asymptotic regime (c*(50) < c*(100)), which the extrapolation would reject
MM_LIMIT_DS = (100, 200, 400, 800)
MM_TAU = 0.3


@functools.lru_cache(maxsize=8)
def _transitions(A0s: tuple, ds: tuple = MM_DS) -> dict:
    return {(d, A0): mm.transition_bisect(d, A0) for d in ds for A0 in A0s}


def _mm_phase(name: str, claimed: float, what: str):
    """The claimed location ``claimed`` of the transition (in c = ηd²/π, as d → ∞) against the
    bisected transitions c*(d), d = 50…400, extrapolated to d → ∞ (:func:`verify.extrapolate.aitken_limit`: Aitken on
    the geometric d grid, error bar = last change of the estimate + the amplified bisection
    half-width). Every start A₀ must extrapolate to a limit whose error bar holds the claimed value;
    one that excludes it refutes; data not yet in the asymptotic regime are inconclusive."""
    @check(name, "PHASE")
    def run(ctx):
        A0s = (1.0, -0.5, 3.0) if ctx.full else (1.0, -0.5)
        tr = _transitions(A0s, MM_LIMIT_DS)
        rows, failed = {}, []
        for (d, A0), r in tr.items():
            if not r["ok"]:
                failed.append(f"d={d},A0={A0}")
                continue
            rows[f"d={d},A0={A0}"] = {"c_star": r["c_star"], "bracket": [r["lo"], r["hi"]],
                                      "eta_star_measured": r["c_star"] * math.pi / d ** 2,
                                      "bisection_evals": r["evals"]}
        info = {"claimed": what, "claimed_limit": claimed, "criterion": "|b_∞^MM| > 1/d (between the "
                "O(1/d²) and Ω(1) branches)", "runs": rows, "search_range": [6.0, 12.0],
                "bisection_tol": 1e-3, "limit_rule": "Aitken extrapolation in d -> inf (verify.extrapolate.aitken_limit)"}
        if failed:
            return outcome(Status.INCONCLUSIVE, f"bisection not bracketed or unconverged: {failed}",
                           **info)
        tests = {}
        for A0 in A0s:
            cs = [tr[(d, A0)]["c_star"] for d in MM_LIMIT_DS]
            half = max(tr[(d, A0)]["hi"] - tr[(d, A0)]["lo"] for d in MM_LIMIT_DS) / 2
            tests[A0] = compare_to_limit(MM_LIMIT_DS, cs, claimed, noise=half)
        info["limits"] = {f"A0={A0}": {**t.limit.as_data(), "distance": t.distance, "margin": t.margin}
                          for A0, t in tests.items()}
        worst_A0 = max(tests, key=lambda a: tests[a].margin if tests[a].consistent is not None else -math.inf)
        worst = tests[worst_A0]
        info["worst_margin"], info["worst_text"] = worst.margin, f"A0={worst_A0}: {worst.text()}"
        shown = ", ".join(f"{tr[(d, 1.0)]['c_star']:.3f} (d={d})" for d in MM_LIMIT_DS)
        if any(t.consistent is None for t in tests.values()):
            bad = [f"A0={a}: {t.limit.why}" for a, t in tests.items() if t.consistent is None]
            return outcome(Status.INCONCLUSIVE, f"transitions {shown} not in the asymptotic regime "
                           f"({'; '.join(bad)}): add larger d", **info)
        ok = all(t.consistent for t in tests.values())
        return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                       f"mean-model transition at ηd²/π = {shown}; "
                       + "; ".join(f"A0={a}: {t.text()}" for a, t in tests.items())
                       + (" (within the error bar)" if ok else " (outside the error bar)"), **info)
    return run


def _mm_margin(data):
    return data["worst_margin"], data["worst_text"]


def _draw_mm_phase(ctx, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    cs = tuple(np.round(np.concatenate([np.linspace(6, 7.8, 10), np.linspace(7.85, 8.4, 12),
                                        np.linspace(8.5, 12, 8)]), 4))
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    for d in MM_DS:
        tab = _b_inf_table(cs, (d,), 1.0)
        b = np.array([tab[(c, d)][0] for c in cs])
        ax[0].plot(cs, b, ".-", label=f"d={d}")
        ax[1].semilogy(cs, np.abs(b) * d * d, ".-", label=f"d={d}")
    bound = [_ginv_bound(c) if c > 8 else np.nan for c in cs]
    ax[0].plot(cs, bound, "k:", label=r"Theorem 4 bound $g^{-1}(2/\sqrt{\eta d^2})$")
    for a in ax:
        a.axvline(8, color="k", ls="--", lw=0.8, label=r"$\eta d^2/\pi = 8$ (η* = 8π/d²)")
        a.set_xlabel(r"$\eta d^2/\pi$")
        a.legend(fontsize=8)
    ax[0].set_ylabel(r"$b_\infty^{MM}$")
    ax[1].set_ylabel(r"$d^2 |b_\infty^{MM}|$")
    fig.suptitle(r"Mean model (5) from $A_0=1$: limiting bias against $\eta d^2/\pi$")
    fig.tight_layout()
    fig.savefig(path, dpi=90, metadata={"Software": None})
    plt.close(fig)
    tr = _transitions((1.0, -0.5))
    return ("Mean model (5), A₀ = 1: b_∞ against ηd²/π for d ∈ {50, 100, 200, 400}; right: d²|b_∞| "
            "(flat below 8 = O(1/d²), growing like d² above). Bisected transitions: "
            + ", ".join(f"d={d}: {tr[(d, 1.0)]['c_star']:.3f}" for d in MM_DS) + ".")


THRESHOLD_MM = Claim(
    id="ahn2023.threshold.mm",
    source=PAPER.at("§3.2, Fig. 1"),
    title="The mean model's transition sits at ηd²/π = 8",
    statement=r"b^{MM}_\infty(\eta) \text{ changes from } O(d^{-2}) \text{ to } -\Omega(1) "
              r"\text{ at } \eta d^2/\pi = 8",
    status="heuristic",
    uses=("ahn2023.threshold.value", "ahn2023.thm3", "ahn2023.thm4"),
    expect="supported",
    checks=(
        _mm_phase("bisected_transition", 8.0, "8"),
        _ratio_check("quarter_ratio_below", (6.0, 7.0), 0.25, 0.03),
        _ratio_check("unit_ratio_above", (10.0, 12.0), 1.0, 0.15),
    ),
    planted=(
        Planted("p1", "η* = 4π/d² (transition at ηd²/π = 4)", _mm_phase("p1", 4.0, "4")),
        Planted("p2", "η* = 8π/d (ηd²/π = 8d → ∞)", _mm_phase("p2", math.inf, "8d")),
        Planted("p3", "η* = 8π/(nd²), n = 300", _mm_phase("p3", 8.0 / 300, "8/n")),
        near_miss("p4", "near miss: the transition at ηd²/π = 8.2 (2.5% above 8, inside the range of the "
                  "finite-d values 8.16 … 8.02)", _mm_phase("p4", 8.2, "8.2"), margin=_mm_margin),
        near_miss("p5", "near miss: the transition at ηd²/π = 7.9 (1.25% below 8)",
                  _mm_phase("p5", 7.9, "7.9"), margin=_mm_margin),
    ),
    figures=(Figure("threshold_mm_phase", _draw_mm_phase),),
    notes="Transition per (d, A₀) by bisection (tolerance 1e-3 in ηd²/π) on the predicate "
          "|b_∞^MM| > 1/d, a chosen level between the O(1/d²) and Ω(1) branches (recorded as "
          "'criterion' in the evidence); runs stop when |A_t| ≤ 1e-12 (budget 4e6 steps). The "
          "statement is about d → ∞: c*(d) for d = 100, 200, 400, 800 is extrapolated (Aitken, "
          "verify.extrapolate.aitken_limit) and the claimed 8 must lie within the error bar of the limit, for every "
          "start A₀. The search range is [6, 12]: a run whose predicate is not False at 6 and True "
          "at 12 is inconclusive.",
)


def _headline(name: str, above_scaling: float):
    """Slope of log|b_∞| against log d at c = 8 − δ (−2 expected) and c = 8 + δ (0 expected)."""
    @check(name, "PHASE")
    def run(ctx):
        ds = (50, 100, 200, 400, 800) if ctx.full else (50, 100, 200, 400)
        rows, ok = {}, True
        for delta in (1.0, 2.0):
            for side, c, expected in (("below", 8 - delta, -2.0), ("above", 8 + delta, above_scaling)):
                tab = _b_inf_table((c,), ds, 1.0)
                b = np.array([tab[(c, d)][0] for d in ds])
                fit = asymptotic.fit_power(np.array(ds, float), np.abs(b))
                good = abs(fit.slope - expected) <= 0.25
                if side == "above" and above_scaling == 0.0:
                    good &= bool(np.all(b <= _ginv_bound(c)))
                ok &= good
                rows[f"delta={delta},{side}"] = {"c": c, "slope": fit.slope, "stderr": fit.stderr,
                                                 "expected": expected, "b_inf": b.tolist()}
        dev = max(abs(v["slope"] - v["expected"]) for v in rows.values())
        return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                       "log-log slope of |b_∞^MM| in d: " + "; ".join(
                           f"{k}: {v['slope']:.3f} (expected {v['expected']})" for k, v in rows.items()),
                       runs=rows, tolerance=0.25, ds=list(ds), A0=1.0, max_slope_deviation=dev)
    return run


THRESHOLD_HEADLINE = Claim(
    id="ahn2023.threshold.headline",
    source=PAPER.at("§1.2"),
    title="Headline: (8 − δ)π/d² gives O(1/d²) bias, (8 + δ)π/d² gives −Ω(1)",
    statement=r"\eta \le (8-\delta)\pi/d^2 \Rightarrow |b^{MM}_\infty| = O_{\delta,A_0}(d^{-2});\ "
              r"\eta \ge (8+\delta)\pi/d^2 \Rightarrow b^{MM}_\infty \le -\Omega_\delta(1)",
    uses=("ahn2023.thm3", "ahn2023.thm4"),
    expect="supported",
    checks=(_headline("d_scaling_both_sides", 0.0),),
    planted=(Planted("p1", "above the threshold too, |b_∞| = O(1/d²)", _headline("p1", -2.0)),
             near_miss("p2", "near miss: above the threshold |b_∞| ≍ d^{-0.6} (slope 2.4τ from 0)",
                       _headline("p2", -0.6),
                       margin=_excess_over_tol("max_slope_deviation", "largest |slope − expected|"))),
)
