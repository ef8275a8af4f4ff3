"""Section 2.2–2.3 / App. C.1–C.2 of Ahn et al. (2023): gradient flow, approximate conservation
along GD, and the gradient-flow regime y₀² − x₀² < 2/η.

Symbolic parts use ℓ' as an unspecified sympy function (the statements hold for every
differentiable ℓ); trajectory parts run the compiled GD engine from normalised starts
√(m/η)(3/4, 5/4) on η = e^{-k} (quick: k-steps of 1/2, full: 1/4), with the operational t₀ of
def7 (first t with x_t <= 0 or |s_t| <= s_c, s_c = 1/2).
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp
from scipy.integrate import solve_ivp

from verify import Claim, Planted, Status
from verify.asymptotic import Series, bounded, rate
from verify.claim import Check, Context, Evidence, outcome
from verify import symbolic
from verify.nearmiss import near_miss

from claims.ahn2023 import PAPER
from claims.ahn2023._losses import combine, k_grid, lanes, loss_by_key
from claims.ahn2023._eos_sweeps import _all_runs, ks_for, measure

# ============================================================================ Lemma 1
_t = sp.Symbol("t", real=True)
_X, _Y = sp.Function("x")(_t), sp.Function("y")(_t)
_DL = sp.Function("ell_prime")  # ℓ', unspecified


def _gf_rate_of(q):
    """d/dt q(x(t), y(t)) along the gradient flow ẋ = −ℓ'(xy) y, ẏ = −ℓ'(xy) x."""
    flow = {sp.Derivative(_X, _t): -_DL(_X * _Y) * _Y, sp.Derivative(_Y, _t): -_DL(_X * _Y) * _X}
    return sp.diff(q, _t).subs(flow)


def _frozen_symbols(expr):
    """Replace x(t), y(t) by plain symbols so numeric witnesses can be drawn for them."""
    x, y = sp.symbols("x y", real=True)
    return expr.subs({_X: x, _Y: y})


LEM1 = Claim(
    id="ahn2023.lem1",
    source=PAPER.at("Lemma 1, §2.2"),
    title="Gradient flow conserves y^2 - x^2",
    statement=r"\frac{d}{dt}\big(y(t)^2 - x(t)^2\big) = 0 \text{ along } \dot x = -\ell'(xy)y,\ \dot y = -\ell'(xy)x",
    hypotheses=("ℓ differentiable", "(x(t), y(t)) solves the gradient flow"),
    uses=("ahn2023.def4", "ahn2023.fact1.sharp"),
    expect="proved",
    checks=(symbolic.identity("conserved", lambda: _frozen_symbols(_gf_rate_of(_Y**2 - _X**2)), 0,
                              why="ℓ' an unspecified function"),),
    planted=(
        Planted("p1", "x² + y² is conserved",
                symbolic.identity("p1", lambda: _frozen_symbols(_gf_rate_of(_X**2 + _Y**2)), 0)),
        Planted("p2", "xy is conserved",
                symbolic.identity("p2", lambda: _frozen_symbols(_gf_rate_of(_X * _Y)), 0)),
    ),
)

GF_STARTS = ((3.0, 4.0), (1.0, 2.0), (0.5, 3.0))
GF_KEYS = ("sqrt", "rsym", "huber", "beta=3")


def _gf_endpoint(key: str, x0: float, y0: float) -> tuple[float, float, float]:
    """Integrate the GF (DOP853, rtol 1e-12) until x is negligible; returns (x_T, y_T, T)."""
    loss = loss_by_key(key)
    dl, p = loss.compiled_dl()

    def f(t, z):
        g = dl(z[0] * z[1], p)
        return [-g * z[1], -g * z[0]]

    D = y0 * y0 - x0 * x0
    T = 60.0 / D + 40.0  # ẋ ≈ −x y² near the axis: e^{-60} decay after the approach
    sol = solve_ivp(f, (0.0, T), [x0, y0], method="DOP853", rtol=1e-12, atol=1e-14)
    return float(sol.y[0, -1]), float(sol.y[1, -1]), T


def _endpoint_check(name: str, predicted, describe: str):
    def run(ctx: Context) -> Evidence:
        worst, rows = 0.0, []
        for key in GF_KEYS:
            for x0, y0 in GF_STARTS:
                xT, yT, T = _gf_endpoint(key, x0, y0)
                if abs(xT) > 1e-8:
                    return outcome(Status.INCONCLUSIVE, f"{key} from ({x0}, {y0}): x(T) = {xT:.2e} not "
                                   f"negligible at T = {T:.0f}; integrate longer")
                target = predicted(x0, y0)
                rel = abs(yT * yT - target) / target
                worst = max(worst, rel)
                rows.append([key, x0, y0, yT * yT, target, rel])
        ok = worst <= 1e-7
        return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                       f"{describe}: max relative error of y(T)^2 {worst:.2e} (tolerance 1e-7) over "
                       f"{len(rows)} flows", runs=rows, tolerance=1e-7, max_rel_error=worst,
                       ode="DOP853 rtol 1e-12 atol 1e-14")

    return Check(name, run, "TRAJ")


LEM1_ENDPOINT = Claim(
    id="ahn2023.lem1.endpoint",
    source=PAPER.at("Lemma 1 and §2.2"),
    title="The gradient flow from y0 > x0 > 0 ends at (0, sqrt(y0^2 - x0^2))",
    statement=r"(x(t), y(t)) \to (0, \sqrt{y_0^2 - x_0^2}),\ \lambda_{\max}(\nabla^2 f) \to y_0^2 - x_0^2",
    hypotheses=("(A1)", "y0 > x0 > 0"),
    assumes=("A1",),
    uses=("ahn2023.lem1", "ahn2023.fact1.sharp"),
    expect="supported",
    checks=(_endpoint_check("ode_endpoint", lambda x0, y0: y0 * y0 - x0 * x0, "y(T)^2 = y0^2 - x0^2"),),
    planted=(
        Planted("p1", "the endpoint is (0, sqrt(x0² + y0²)) (x² + y² conserved)",
                _endpoint_check("p1", lambda x0, y0: y0 * y0 + x0 * x0, "y(T)^2 = y0^2 + x0^2")),
        Planted("p2", "xy conserved: the flow ends at y² = y0² (no motion in y)",
                _endpoint_check("p2", lambda x0, y0: y0 * y0, "y(T)^2 = y0^2")),
        near_miss("p3", "near miss: y(T)² = (y0² − x0²)(1 + 3·10⁻⁷) (3 tolerances off)",
                  _endpoint_check("p3", lambda x0, y0: (y0 * y0 - x0 * x0) * (1 + 3e-7), "y(T)^2 = (1+3e-7) D0"),
                  margin=lambda d: (d["max_rel_error"] - d["tolerance"],
                                    f"max over flows of the relative error of y(T)² {d['max_rel_error']:.3g} vs "
                                    f"tolerance {d['tolerance']:.0e}") if "max_rel_error" in d else None),
    ),
)


# ============================================================================ Lemma 6
_x, _y, _eta = sp.symbols("x y eta", real=True)


def _D_next(power_eta: int):
    g = _DL(_x * _y)
    xn, yn = _x - _eta * g * _y, _y - _eta * g * _x
    return (yn**2 - xn**2) - (1 - _eta**power_eta * g**2) * (_y**2 - _x**2)


LEM6_IDENTITY = Claim(
    id="ahn2023.lem6.identity",
    source=PAPER.at("Lemma 6 (proof), App. C.1"),
    title="One GD step multiplies D = y^2 - x^2 by 1 - eta^2 l'(s)^2",
    statement=r"D_{t+1} = (1 - \eta^2\ell'(s_t)^2)\,D_t",
    hypotheses=("ℓ differentiable",),
    uses=("ahn2023.def4", "ahn2023.def7"),
    expect="proved",
    checks=(symbolic.identity("recursion", lambda: _D_next(2), 0, why="ℓ' unspecified"),),
    planted=(Planted("p1", "D_{t+1} = (1 − η ℓ'(s_t)²) D_t", symbolic.identity("p1", lambda: _D_next(1), 0)),),
)

GAMMAS = (0.25, 1.0, 4.0)
LEM6_KEYS = ("rsym", "sqrt", "huber", "beta=3")


def _lem6_quantities():
    def t0eta(r, eta):
        return r.t0 * eta

    def xsup(gamma):
        # sup_{t>=t0}|x_t| is ~|x_{t0}|, whose size depends on where the discrete t0 lands (noisy
        # in η); the O(.) bound is tested on its upper envelope (measure(..., envelope="max"))
        return lambda r, eta: r.x_max_after_t0 / np.sqrt(max(gamma, 1 / gamma) * eta)

    def deficit(r, eta):
        return (1 - r.D_t0 / (r.y0**2 - r.x0**2)) / eta

    return t0eta, xsup, deficit


def _gf_range(m: float) -> dict:
    """Fit windows of 3.5 units of k (1.52 decades; the engine refuses less than 1.5). GF-regime runs
    (m < 2) cost O(1/η) steps: extend to η = e^-8 and fit on k >= 4.5, since the asymptotic regime
    needs η << m; EoS runs (m > 2) bounce for ~η^-2 steps: k <= 6.5, fit k >= 3."""
    return {"hi": 8.0, "kmin": 4.5} if m < 2 else {"hi": 6.5, "kmin": 3.0}


def _lem6_check(name: str, quantity_of, label: str, keys=LEM6_KEYS, gammas=GAMMAS, tol: float = 0.15,
                envelope: str | None = None, gf_hi: float | None = None):
    """``gf_hi`` extends the GF-regime (γ < 2) sweeps to k = gf_hi (fit on k >= 4.5)."""
    parts = {}
    for key in keys:
        for g in gammas:
            span = _gf_range(g) if gf_hi is None or g >= 2 else {"hi": gf_hi, "kmin": 4.5}
            parts[f"{key} gamma={g}"] = bounded(f"{key} gamma={g}", measure(key, quantity_of(g), m=g, label=label,
                                                                            envelope=envelope, **span),
                                                tol, side="upper", toward="zero")
    return combine(name, parts, "RATE")


_T0ETA, _XSUP, _DEFICIT = _lem6_quantities()
EQ10_C0 = 0.5


def _eq10_measure(key: str, gamma: float, which: str):
    """min or max over the approach phase (x_t > 0, |s_t| >= c0) of (x_t − x_{t+1})/√(γη), per η."""

    def run(ctx: Context) -> Series:
        from verify import dynamics
        hi = _gf_range(gamma)["hi"]
        ks = ks_for(ctx, key, 1.0, hi)
        r = lanes(key, ks, gamma)
        vals = []
        for i, k in enumerate(ks):
            eta = float(r.eta[i])
            xs, ys = dynamics.trajectory(loss_by_key(key), float(r.x0[i]), float(r.y0[i]), eta,
                                         max(int(r.t0[i]), 1))
            dec = (xs[:-1] - xs[1:]) / math.sqrt(gamma * eta)
            use = (xs[:-1] > 0) & (np.abs(xs[:-1] * ys[:-1]) >= EQ10_C0)
            vals.append(float(dec[use].min() if which == "min" else dec[use].max()) if use.any() else np.nan)
        keep = np.asarray(ks) >= _gf_range(gamma)["kmin"] - 1e-9
        v = np.asarray(vals)
        # the extreme decrement depends on where the last approach step lands: test the envelope
        v = (np.fmax.accumulate(v) if which == "max" else np.fmin.accumulate(v))[keep]
        return Series(r.eta[keep], v, {"loss": key, "gamma": gamma, "c0": EQ10_C0,
                                       "quantity": f"running {which} of {which} (x_t - x_(t+1))/sqrt(gamma eta)"})

    return run


def _eq10_floor(key: str, gamma: float) -> Check:
    """Ω part: every approach-phase decrement is >= ℓ'(c0)/2 · √(γη), an η-free floor (the minimum
    approaches ~ℓ'(c0)√(γη) from above as the grid refines, so a slope test would be fragile).

    The floor is not fitted: the step gives x_t − x_{t+1} = ηℓ'(s_t)y_t >= ℓ'(c0)√(η D_t) (ℓ' is
    non-decreasing, y_t² >= D_t), and D_0 = γ/η for the normalised start (ỹ² − x̃² = 1), so the
    decrement over √(γη) is >= ℓ'(c0)√(D_t/D_0). The factor 1/2 is the slack D_t >= D_0/4, i.e. this
    half fails only if D loses 3/4 of its value before t0 (lem6's θ <= Cη is tested on its own)."""
    dl0 = float(loss_by_key(key).dloss(EQ10_C0))
    floor = 0.5 * dl0

    def run(ctx: Context) -> Evidence:
        s = _eq10_measure(key, gamma, "min")(ctx)
        v = s.y[np.isfinite(s.y)]
        if len(v) < 3:
            return outcome(Status.INCONCLUSIVE, f"only {len(v)} runs had an approach phase with |s| >= c0")
        ok = bool(np.all(v >= floor))
        return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                       f"min decrement/sqrt(gamma eta) = {v.min():.4f} vs floor l'(c0)/2 = {floor:.4f} over {len(v)} runs",
                       min_ratio=float(v.min()), floor=floor, min_ratio_over_dl_c0=float(v.min()) / dl0,
                       runs=len(v), **s.notes)

    return Check("min", run, "TRAJ")


def _eq10_check() -> Check:
    parts = {}
    for key in ("rsym", "sqrt", "huber"):
        for g in GAMMAS:
            parts[f"{key} gamma={g} max"] = bounded("max", _eq10_measure(key, g, "max"), 0.15, side="upper", toward="zero")
            parts[f"{key} gamma={g} min"] = _eq10_floor(key, g)
    return combine("eq10_step_theta_sqrt_gamma_eta", parts, "RATE")


LEM6 = Claim(
    id="ahn2023.lem6",
    source=PAPER.at("Lemma 6, App. C.1 (eq. (10))"),
    title="Approximate conservation: t0 <= C/eta, sup|x_t| <= C sqrt((1/gamma v gamma) eta), D_t0 = (1 - O(eta)) D_0",
    statement=r"\exists t_0 \le C/\eta:\ \sup_{t\ge t_0}|x_t| \le C\sqrt{(\gamma^{-1}\vee\gamma)\eta},\ "
              r"D_{t_0} = (1-\theta)D_0,\ 0 \le \theta \le C\eta",
    hypotheses=("(A1)", "normalised start with m = γ > 0", "η small"),
    assumes=("A1",),
    uses=("ahn2023.def6.a1", "ahn2023.fact1.pos", "ahn2023.lem6.identity"),
    expect="supported",
    notes="t₀ operational (def7, s_c = 1/2); γ ∈ {1/4, 1, 4}; each ratio must stay bounded as η → 0 "
          "(log-slope toward η → 0 at most 0.15); the per-γ maxima are the empirical constants. "
          "γ < 2: η = e^-k, k <= 8 (sup|x|: k <= 12), fitted on k >= 4.5 (the asymptotic regime needs η << γ); γ = 4: "
          "k <= 6.5, fitted on k >= 3 (3.5 units of k, 1.52 decades, each). sup|x| is tested through its running maximum over the grid. "
          "eq. (10): the decrement x_t − x_{t+1} over the approach phase (x_t > 0, |s_t| >= 1/2) "
          "divided by √(γη) stays within η-free bounds (its max bounded above as η → 0; its min above "
          "the floor ℓ'(1/2)/2 on every run). That floor is a priori, not fitted: one GD step gives "
          "decrement/√(γη) >= ℓ'(1/2)√(D_t/D_0), so the Ω half only asks D_t >= D_0/4 during the approach "
          "and is weak by construction; the measured minimum over ℓ'(1/2) is in the evidence.",
    checks=(
        _lem6_check("t0_times_eta", lambda g: _T0ETA, "t0*eta"),
        # sup|x|/√η oscillates with where the integer t0 lands (log-periodically in η): its running
        # maximum settles only over a long grid, so the GF-regime sweeps go to k = 12 (3.3 decades
        # of fit; O(1/η) steps, cheap); on k <= 8 the envelope still steps up inside the window
        _lem6_check("x_sup_after_t0", _XSUP, "sup_{t>=t0}|x_t|/sqrt((1/gamma v gamma) eta)", envelope="max",
                    gf_hi=12.0),
        _lem6_check("D_deficit_over_eta", lambda g: _DEFICIT, "(1 - D_t0/D_0)/eta"),
        _eq10_check(),
    ),
    planted=(
        Planted("p1", "D_{t+1} = (1 − η ℓ'(s_t)²) D_t", symbolic.identity("p1", lambda: _D_next(1), 0)),
        Planted("p2", "D_{t0} = (1 − O(η²)) D_0", _lem6_check(
            "p2", lambda g: (lambda r, eta: (1 - r.D_t0 / (r.y0**2 - r.x0**2)) / eta**2), "(1 - D_t0/D_0)/eta^2",
            keys=("rsym", "sqrt"))),
        Planted("p3", "sup_{t>=t0} |x_t| = O(η)", _lem6_check(
            "p3", lambda g: (lambda r, eta: r.x_max_after_t0 / eta), "sup|x|/eta", keys=("rsym", "sqrt"),
            envelope="max")),
        near_miss("p4", "near miss: t0 <= C η^{-5/8} (the power of 1/η lowered by 2.5τ)", _lem6_check(
            "p4", lambda g: (lambda r, eta: _T0ETA(r, eta) * eta**-0.375), "t0*eta^0.625", keys=("rsym", "sqrt")),
            wrong=tuple(f"{k} gamma={g}" for k in ("rsym", "sqrt") for g in GAMMAS)),
    ),
)


# ============================================================================ Theorem 1, Remark 1
DELTAS = (0.2, 1.0, 1.8)
THM1_KEYS = ("sqrt", "rsym", "huber", "beta=3")


def _thm1_ratio(delta: float):
    a = min(delta, 2 - delta)
    return lambda r, eta: ((2 - delta) / eta - r.D) / ((2 - delta) + eta / a)


def _thm1_bounded(name: str, quantity_of, label: str, keys=THM1_KEYS, tol=0.15):
    return combine(name, {f"{k} delta={d}": bounded(f"{k} delta={d}", measure(k, quantity_of(d), m=2 - d, label=label,
                                                                              **_gf_range(2 - d)),
                                                      tol, side="upper", toward="zero")
                          for k in keys for d in DELTAS}, "RATE")


def _thm1_all(name, predicate, describe):
    def run(ctx: Context) -> Evidence:
        parts = {}
        for d in DELTAS:
            parts[f"delta={d}"] = _all_runs(f"delta={d}", THM1_KEYS, (2 - d,), predicate(d), describe)(ctx)
        worst = min(p.status for p in parts.values())
        first = next(p for p in parts.values() if p.status == worst)
        return outcome(worst, first.summary, parts={k: {"verdict": str(p.status), "summary": p.summary,
                                                        **dict(p.data)} for k, p in parts.items()})

    return Check(name, run, "TRAJ")


THM1 = Claim(
    id="ahn2023.thm1",
    source=PAPER.at("Theorem 1, §2.3; proof App. C.2"),
    title="GF regime: y_inf^2 = (2 - delta)/eta - O(2 - delta) - O(eta/min(delta, 2 - delta))",
    statement=r"\frac{2-\delta}{\eta} - C(2-\delta) - \frac{C\eta}{\min\{\delta,2-\delta\}} \le y_\infty^2 "
              r"\le \frac{2-\delta}{\eta} + \frac{C\eta}{2-\delta}",
    hypotheses=("(A1), (A2) with β ∈ (1, ∞]", "normalised start with m = 2 − δ, δ ∈ (0, 2)",
                "η <= c1 δ^{1/2}(2 − δ)"),
    assumes=("A1", "A2"),
    uses=("ahn2023.lem6", "ahn2023.def6.a1", "ahn2023.def6.a2", "ahn2023.fact1.pos", "ahn2023.fact1.dmono"),
    expect="supported",
    notes="δ ∈ {0.2, 1, 1.8}; η = e^{-k}, k <= 8, fits on k ∈ [4.5, 8] (η <= e^-4.5 <= 0.05 δ^{1/2}(2 − δ)). "
          "By fact1.dmono the upper error term is not needed: y_∞² <= (2 − δ)/η exactly.",
    checks=(
        _thm1_all("converges", lambda d: (lambda r, m: r.ok()), "every run converges"),
        _thm1_bounded("lower_error_bounded", _thm1_ratio,
                      "((2-delta)/eta - y_inf^2)/((2-delta) + eta/min(delta,2-delta))"),
        _thm1_all("below_gf_value", lambda d: (lambda r, m: r.D < m / r.eta), "y_inf^2 < (2 - delta)/eta"),
    ),
    planted=(
        Planted("p1", "y_∞² >= (2 − δ)/η", _thm1_all("p1", lambda d: (lambda r, m: r.D >= m / r.eta),
                                                     "y_inf^2 >= (2 - delta)/eta")),
        Planted("p2", "y_∞² >= 2/η − C (the EoS value)", _thm1_bounded(
            "p2", lambda d: (lambda r, eta: 2 / eta - r.D), "2/eta - y_inf^2", keys=("sqrt", "rsym"))),
        near_miss("p3", "near miss: the O(2 − δ) error term is O((2 − δ)η^{3/8}) (vanishes; power off by 2.5τ)",
                  _thm1_bounded("p3", lambda d: (lambda r, eta: _thm1_ratio(d)(r, eta) / eta**0.375),
                                "error/((2-delta) + eta/a)/eta^0.375", keys=("sqrt", "rsym")),
                  wrong=tuple(f"{k} delta={d}" for k in ("sqrt", "rsym") for d in DELTAS)),
    ),
)

REM1_M = (0.5, 1.5)   # δ = 1.5 and 0.5: |1 − η y²| ≈ 1/2, a contraction away from 0


def _rem1_eta_measure(key: str, m: float, eps: float = 1e-8):
    return measure(key, lambda r, eta: (r.t_small - r.t0).astype(float), m=m, **_gf_range(m),
                   lanes_kw={"rtol": 0.0, "xtol": 1e-15, "s_eps": eps},
                   label=f"steps from t0 to |s_t| <= {eps}")


def _rem1_eps_counts(key: str, m: float, eta: float = math.exp(-4)):
    eps = np.geomspace(1e-3, 1e-12, 10)
    counts = []
    for e in eps:
        r = lanes(key, (4.0,), m, rtol=0.0, xtol=1e-15, s_eps=float(e))
        counts.append(float(r.t_small[0] - r.t0[0]) if r.t_small[0] >= 0 else np.nan)
    return eps, np.array(counts)


def _rem1_affine(ctx: Context) -> Evidence:
    rows, ok = {}, True
    for key in ("rsym", "sqrt"):
        for m in REM1_M:
            eps, c = _rem1_eps_counts(key, m)
            if np.isnan(c).any():
                return outcome(Status.INCONCLUSIVE, f"{key} m={m}: |s_t| never reached the smallest ε")
            L = np.log(1 / eps)
            A = np.vstack([L, np.ones_like(L)]).T
            coef, *_ = np.linalg.lstsq(A, c, rcond=None)
            resid = c - A @ coef
            r2 = 1 - float(resid @ resid) / float(np.sum((c - c.mean()) ** 2))
            rows[f"{key} m={m}"] = {"slope_per_log": float(coef[0]), "r2": r2, "counts": c.tolist()}
            ok &= bool(r2 >= 0.98 and coef[0] > 0)
    worst = min(v["r2"] for v in rows.values())
    return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                   f"count from t0 to |s| <= ε is affine in log(1/ε) (min R² {worst:.4f}) at η = e^-4",
                   per_run=rows, eps_range=[1e-3, 1e-12])


REM1 = Claim(
    id="ahn2023.rem1",
    source=PAPER.at("Remark 1, App. C.2"),
    title="GF regime: O(1/eta) approach, then O(log(1/eps)) steps independent of eta",
    statement=r"\#\{t \ge t_0: |s_t| > \varepsilon\} = O(\alpha^{-1}\log(1/\varepsilon)),\ \text{independent of } \eta",
    hypotheses=("as in thm1",),
    assumes=("A1", "A2"),
    uses=("ahn2023.thm1", "ahn2023.lem6"),
    expect="supported",
    notes="Count from the operational t₀ (s_c = 1/2) to the first |s_t| <= ε; starts with m ∈ {1/2, 3/2}.",
    checks=(
        combine("eta_independent", {f"{k} m={m}": rate(f"{k} m={m}", _rem1_eta_measure(k, m), 0.0, 0.15,
                                                        law="count ≍ η^0")
                                    for k in ("rsym", "sqrt") for m in REM1_M}, "RATE"),
        Check("affine_in_log_eps", _rem1_affine, "RATE"),
    ),
    planted=(
        Planted("p1", "the convergence-phase count grows like 1/η", combine("p1", {
            f"rsym m={m}": rate(f"rsym m={m}", _rem1_eta_measure("rsym", m), -1.0, 0.15) for m in REM1_M}, "RATE")),
        Planted("p2", "the count is ≍ 1/ε", rate("p2", lambda ctx: Series(*_rem1_eps_counts("rsym", 0.5),
                                                                          {"loss": "rsym", "m": 0.5}), -1.0, 0.2)),
        near_miss("p3", "near miss: the convergence-phase count grows like η^{-3/8} (2.5τ from η^0)",
                  combine("p3", {f"{k} m=0.5": rate(f"{k} m=0.5", _rem1_eta_measure(k, 0.5), -0.375, 0.15)
                                 for k in ("rsym", "sqrt")}, "RATE"), wrong=("rsym m=0.5", "sqrt m=0.5")),
    ),
)


# ============================================================================ §2.2 two-regime prediction
FACT2_KEYS = ("rsym", "sqrt")
FACT2_M = (1.0, 3.0)


def _fact2_rel(kind: str):
    def q_of(m):
        def q(r, eta):
            D0 = r.y0**2 - r.x0**2
            ref = {"min": np.minimum(D0, 2 / eta), "max": np.maximum(D0, 2 / eta), "eos": 2 / eta}[kind]
            return np.abs(r.D / ref - 1)
        return q
    return q_of


def _fact2_rate(name, kind, exponent, keys=FACT2_KEYS):
    return combine(name, {f"{k} m={m}": rate(f"{k} m={m}", measure(k, _fact2_rel(kind)(m), m=m,
                                                                   label=f"|y_inf^2/{kind}(...) - 1|"),
                                             exponent, 0.1, mode="at_least")
                          for k in keys for m in FACT2_M}, "RATE")


FACT2 = Claim(
    id="ahn2023.fact2",
    source=PAPER.at("§2.2"),
    title="Two regimes: limiting sharpness ~ min{y0^2 - x0^2, 2/eta}",
    statement=r"\lambda_{\max}(\nabla^2 f(0, y_\infty)) \approx \min\{y_0^2 - x_0^2,\ 2/\eta\}",
    hypotheses=("(A1), (A2)", "m = η(y0² − x0²) ∉ {2}"),
    assumes=("A1", "A2"),
    uses=("ahn2023.lem1", "ahn2023.eq4", "ahn2023.thm1", "ahn2023.thm2"),
    expect="supported",
    status="heuristic",
    notes="Relative error |y_∞²/min{y0² − x0², 2/η} − 1| must vanish at least like η^{1/2} (fitted "
          "exponent >= 0.5 − 0.1) for m = 1 (GF regime) and m = 3 (EoS regime).",
    checks=(_fact2_rate("relative_error_vanishes", "min", 0.5),),
    planted=(
        Planted("p1", "max instead of min", _fact2_rate("p1", "max", 0.5)),
        Planted("p2", "y_∞² ≈ 2/η for every start", _fact2_rate("p2", "eos", 0.5)),
        near_miss("p3", "near miss: in the GF regime (m = 1) the relative error vanishes like η^{1.25} "
                  "(thm1 gives η¹; 2.5τ above)", combine("p3", {
                      f"{k} m=1.0": rate(f"{k} m=1.0", measure(k, _fact2_rel("min")(1.0), m=1.0), 1.25, 0.1,
                                         mode="at_least") for k in FACT2_KEYS}, "RATE"),
                  wrong=tuple(f"{k} m=1.0" for k in FACT2_KEYS)),
    ),
)
