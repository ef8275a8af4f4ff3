"""ahn2023, Section 2 and Appendix C: Lemma 8 with eqs. (16) and (20), and fact3 (scaling, frozen
start, genericity) for GD on f(x, y) = ℓ(xy). Ids and statements follow the claim spec (§1, §2, §7).
"""
from __future__ import annotations

import functools
import math

import mpmath
import sympy as sp
from hypothesis import strategies as st

from claims.ahn2023 import PAPER
from claims.ahn2023._sec2_common import HUBER, RSYM, SQRT, beta_loss, gd_run, losses
from verify import Claim, Planted, Status, certify, sampling, symbolic
from verify.claim import check, outcome
from verify.nearmiss import near_miss
from claims.ahn2023._sec2_symbols import x, y, eta, delta, m, a, g, _prime, _gd, _even_loss, _mp


# ============================================================================ Lemma 8, eqs. (16), (20)

LEM8_IDENTITY = Claim(
    id="ahn2023.lem8.identity",
    source=PAPER.at("Lemma 8, App. C.4"),
    title="One-step identity for y²",
    statement=r"y_{t+1}^2=y_t^2-2\eta\ell'(s_t)s_t+\eta^2\ell'(s_t)^2x_t^2",
    status="theorem", expect="proved",
    uses=("ahn2023.def7",),
    checks=(symbolic.identity("y_squared", lambda: _gd(g)[1] ** 2,
                              lambda: y**2 - 2 * eta * g(x * y) * x * y + eta**2 * g(x * y) ** 2 * x**2),),
    planted=(Planted("p3", "last term η²ℓ'(s_t)²y_t² (ℓ' = tanh)",
                     symbolic.identity("y_squared", lambda: _gd(sp.tanh)[1] ** 2,
                                       lambda: y**2 - 2 * eta * sp.tanh(x * y) * x * y
                                       + eta**2 * sp.tanh(x * y) ** 2 * y**2)),),
)

_TOL_DIGITS = 40


def _one_step(loss, et, xv, yv):
    """(x_{t+1}, y_{t+1}, s_t) at 50 digits."""
    e, X, Y = _mp(et), _mp(xv), _mp(yv)
    d = loss.dloss_mp(X * Y)
    return X - e * d * Y, Y - e * d * X, X * Y


def _ineq(lhs, rhs, scale, data):
    tol = mpmath.mpf(10) ** (-_TOL_DIGITS) * (1 + abs(scale))
    data.update(lhs=mpmath.nstr(lhs, 15), rhs=mpmath.nstr(rhs, 15), tol=mpmath.nstr(tol, 3))
    return bool(lhs >= rhs - tol), data


_states = st.tuples(losses(), st.floats(1e-3, 2.0), st.floats(-20, 20), st.floats(-20, 20))


def _lem8_main(args, coef=2):
    loss, et, xv, yv = args
    with mpmath.workdps(50):
        x1, y1, st_ = _one_step(loss, et, xv, yv)
        return _ineq(y1**2, _mp(yv) ** 2 - coef * _mp(et) * st_**2, _mp(yv) ** 2, {"loss": str(loss)})


def _ineq_margin(unit: str):
    """Margin of a refuted ``lhs >= rhs`` (``_ineq``) at the shrunk witness: rhs − lhs."""
    def margin(data):
        if "lhs" not in data or "rhs" not in data:
            return None
        lhs, rhs = float(data["lhs"]), float(data["rhs"])
        return rhs - lhs, f"at the shrunk witness {unit}: {lhs:.10g} < {rhs:.10g} (short by {rhs - lhs:.3g})"
    return margin


def _at_threshold(args, variant):
    """States with y_t² = 2/η and small s_t (planted refutations of lem8)."""
    loss, et, sv = args
    with mpmath.workdps(50):
        e = _mp(et)
        Y = mpmath.sqrt(2 / e)
        X = _mp(sv) / Y
        d = loss.dloss_mp(X * Y)
        y1 = Y - e * d * X
        rhs = 2 / e - 2 * e**2 * X**2 * Y**2 if variant == "p1" else 2 / e
        return _ineq(y1**2, rhs, 2 / e, {"loss": str(loss)})


_threshold_states = st.tuples(losses(), st.floats(0.01, 0.5), st.floats(1e-4, 0.1))


def _crossing_run(loss, et, steps_max=200000):
    """Float64 EoS run from the normalised start x̃ = 3/4, ỹ = 5/4, m = 5/2 up to the crossing t̄."""
    k = math.sqrt(2.5 / et)
    xv, yv = 0.75 * k, 1.25 * k
    for t in range(steps_max):
        d = loss.dloss_scalar(xv * yv)
        x1, y1 = xv - et * d * yv, yv - et * d * xv
        if y1 * y1 < 2 / et:
            return {"t_bar": t + 1, "rho": 2 - et * y1 * y1, "bound": 2 * et**2 * (xv * yv) ** 2}
        xv, yv = x1, y1
    return None


@check("jump_at_crossing", kind="TRAJ")
def _lem8_traj(ctx):
    rows = []
    cases = [(RSYM, 0.1), (SQRT, 0.1), (beta_loss(4.0), 0.1), (RSYM, 0.05)]
    if ctx.full:
        cases += [(SQRT, 0.02), (beta_loss(1.5), 0.05), (HUBER, 0.05)]
    for loss, et in cases:
        r = _crossing_run(loss, et)
        if r is None:
            return outcome(Status.INCONCLUSIVE, f"{loss}, η={et}: no crossing within the step budget")
        r.update(loss=str(loss), eta=et, holds=bool(r["rho"] <= r["bound"] * (1 + 1e-9) + 1e-15))
        rows.append(r)
    bad = [r for r in rows if not r["holds"]]
    if bad:
        return outcome(Status.REFUTED, f"ρ_t̄ > 2η² s²_(t̄−1) for {bad[0]['loss']}, η={bad[0]['eta']}",
                       runs=rows)
    return outcome(Status.SUPPORTED, f"ρ_t̄ <= 2η² s_(t̄−1)² at the crossing in {len(rows)} float64 runs "
                   "(x̃=3/4, ỹ=5/4, m=5/2)", runs=rows)


_EOS_CASES_QUICK = (("rsym", 2.0, 0.1), ("sqrt", 2.0, 0.1), ("beta", 4.0, 0.1), ("rsym", 2.0, 0.05),
                    ("hub", math.inf, 0.1))
_EOS_CASES_FULL = _EOS_CASES_QUICK + (("sqrt", 2.0, 0.02), ("beta", 1.5, 0.05), ("beta", 10.0, 0.05))
_STEP_TOL = 1e-12


@functools.lru_cache(maxsize=None)
def _eos_trajectory(key: str, b: float, et: float, after: int = 2000):
    """Float64 GD from the normalised EoS start x̃ = 3/4, ỹ = 5/4, m = 5/2, run until ``after``
    steps past the crossing t̄ (first y_t² < 2/η). Returns (iterates, t̄ or None)."""
    loss = {"rsym": RSYM, "sqrt": SQRT, "hub": HUBER}.get(key) or beta_loss(b)
    k = math.sqrt(2.5 / et)
    xv, yv = 0.75 * k, 1.25 * k
    traj, t_bar = [(xv, yv)], None
    for t in range(400000):
        d = loss.dloss_scalar(xv * yv)
        xv, yv = xv - et * d * yv, yv - et * d * xv
        traj.append((xv, yv))
        if t_bar is None and yv * yv < 2 / et:
            t_bar = t + 1
        if t_bar is not None and t + 1 >= t_bar + after:
            break
    return tuple(traj), t_bar


def _per_step_check(name: str, form: str):
    """A one-step inequality at every step of EoS trajectories (float64, tolerance 1e-12·scale).

    form: "lem8" y_{t+1}² >= y_t² − 2ηs_t² (all t); "eq20" δ_{t+1} >= δ_t − 2η²s_t² (t < t̄);
    "eq16" ρ_{t+1} <= ρ_t + 2η²x_t²y_t² and <= ρ_t + 4ηx_t² (t >= t̄, where y_t² <= 2/η)."""

    def run(ctx):
        rows, steps = [], 0
        for key, b, et in ctx.pick(_EOS_CASES_QUICK, _EOS_CASES_FULL):
            traj, t_bar = _eos_trajectory(key, b, et)
            label = key if key != "beta" else f"beta({b:g})"
            if t_bar is None:
                return outcome(Status.INCONCLUSIVE, f"{label}, η={et}: no crossing within the step budget")
            worst = math.inf
            rng_ = {"lem8": range(len(traj) - 1), "eq20": range(t_bar), "eq16": range(t_bar, len(traj) - 1)}[form]
            for t in rng_:
                (xv, yv), (x1, y1) = traj[t], traj[t + 1]
                s2 = (xv * yv) ** 2
                if form == "lem8":
                    margin = (y1 * y1 - (yv * yv - 2 * et * s2)) / (1 + yv * yv)
                elif form == "eq20":
                    margin = (et * y1 * y1 - 2) - (et * yv * yv - 2 - 2 * et**2 * s2)
                else:
                    rho, rho1 = 2 - et * yv * yv, 2 - et * y1 * y1
                    margin = min(rho + 2 * et**2 * xv * xv * yv * yv - rho1, rho + 4 * et * xv * xv - rho1)
                worst = min(worst, margin)
                steps += 1
            rows.append({"loss": label, "eta": et, "t_bar": t_bar, "steps_checked": len(rng_),
                         "min_margin": worst})
            if worst < -_STEP_TOL:
                return outcome(Status.REFUTED, f"{label}, η={et}: per-step inequality fails "
                               f"(margin {worst:.3g} < −{_STEP_TOL:g})", runs=rows, tolerance=_STEP_TOL)
        return outcome(Status.SUPPORTED, f"holds at all {steps} checked steps of {len(rows)} float64 EoS "
                       f"runs (x̃=3/4, ỹ=5/4, m=5/2; tolerance {_STEP_TOL:g})", runs=rows,
                       tolerance=_STEP_TOL)

    return check(name, kind="TRAJ")(run)


LEM8 = Claim(
    id="ahn2023.lem8",
    source=PAPER.at("Lemma 8, App. C.4"),
    title="Size of the jump across 2/η",
    statement=r"y_{t+1}^2\ge y_t^2-2\eta s_t^2;\ y_t^2\ge2/\eta\Rightarrow\rho_{t+1}\le2\eta^2s_t^2",
    hypotheses=(r"0\le\ell'(s)s\le s^2\ \text{((A1)+(A2))}",),
    status="theorem", expect="supported",
    uses=("ahn2023.def6.a2", "ahn2023.def7", "ahn2023.lem8.identity"),
    checks=(
        sampling.forall("one_step_bound", _states, _lem8_main, examples=(200, 2000),
                        describe="y_{t+1}² >= y_t² − 2η s_t² (50 digits)"),
        _lem8_traj,
        _per_step_check("every_step_of_eos_runs", "lem8"),
    ),
    planted=(
        Planted("p1", "y_{t+1}² ≥ 2/η − 2η² s_t² at y_t² = 2/η",
                sampling.forall("threshold_eta_sq", _threshold_states, lambda a_: _at_threshold(a_, "p1"),
                                examples=(50, 300))),
        Planted("p2", "y_{t+1}² ≥ 2/η (no jump)",
                sampling.forall("no_jump", _threshold_states, lambda a_: _at_threshold(a_, "p2"),
                                examples=(50, 300))),
        near_miss("p3", "near miss: y_{t+1}² ≥ y_t² − 1.94η s_t² (the constant 2 tightened by 3%)",
                  sampling.forall("one_step_bound_1_94", _states, lambda a_: _lem8_main(a_, 1.94),
                                  examples=(200, 2000)), margin=_ineq_margin("y_{t+1}² vs y_t² − 1.94ηs_t²")),
    ),
    notes="Statement reconstructed (§7 F12); the text's 'Lemma 7' in the corollary is Lemma 8 (§7 F4). "
          f"Inequalities are decided at 50 digits with tolerance 1e-{_TOL_DIGITS}·(1 + y²).",
)


def _eq16(args, variant="main"):
    loss, et, xv, u = args
    with mpmath.workdps(50):
        e = _mp(et)
        yv = _mp(u) * mpmath.sqrt(2 / e)  # y² <= 2/η
        x1, y1, _ = _one_step(loss, et, xv, yv)
        rho, rho1 = 2 - e * yv**2, 2 - e * y1**2
        X = _mp(xv)
        if variant == "near":   # planted: the first bound with 1.94 in place of 2
            return _ineq(rho + mpmath.mpf("1.94") * e**2 * X**2 * yv**2, rho1, 2, {"loss": str(loss)})
        if variant == "main":
            ok1 = _ineq(rho + 2 * e**2 * X**2 * yv**2, rho1, 2, {})[0]
            ok2, data = _ineq(rho + 4 * e * X**2, rho1, 2, {"loss": str(loss)})
            return ok1 and ok2, data
        return _ineq(rho, rho1, 2, {"loss": str(loss)})


_eq16_states = st.tuples(losses(), st.floats(1e-3, 0.99), st.floats(-5, 5), st.floats(0.0, 1.0))
_eq16_states_nonzero_x = st.tuples(losses(), st.floats(1e-2, 0.99), st.floats(0.05, 5),
                                   st.floats(0.2, 1.0))

EQ16 = Claim(
    id="ahn2023.eq16",
    source=PAPER.at("eq. (16), App. C.4"),
    title="Growth of ρ after the crossing",
    statement=r"\rho_{t+1}\le\rho_t+2\eta^2x_t^2y_t^2;\ y_t^2\le2/\eta\Rightarrow\rho_{t+1}\le\rho_t+4\eta x_t^2",
    hypotheses=(r"0\le\ell'(s)s\le s^2", r"y_t^2\le2/\eta\ \text{(second part)}"),
    status="theorem", expect="supported",
    uses=("ahn2023.def6.a2", "ahn2023.lem8"),
    checks=(sampling.forall("rho_growth", _eq16_states, _eq16, examples=(200, 2000)),
            _per_step_check("after_crossing_of_eos_runs", "eq16")),
    planted=(Planted("p1", "ρ_{t+1} ≤ ρ_t (ρ non-increasing)",
                     sampling.forall("rho_non_increasing", _eq16_states_nonzero_x,
                                     lambda a_: _eq16(a_, "p1"), examples=(50, 300))),
             near_miss("p2", "near miss: ρ_{t+1} ≤ ρ_t + 1.94η²x_t²y_t² (the constant 2 tightened by 3%)",
                       sampling.forall("rho_growth_1_94", _eq16_states, lambda a_: _eq16(a_, "near"),
                                       examples=(200, 2000)), margin=_ineq_margin("ρ_t + 1.94η²x²y² vs ρ_{t+1}"))),
)


def _eq20(args, variant="main"):
    loss, et, xv, yv = args
    with mpmath.workdps(50):
        e = _mp(et)
        x1, y1, st_ = _one_step(loss, et, xv, yv)
        d0, d1 = e * _mp(yv) ** 2 - 2, e * y1**2 - 2
        rhs = {"main": d0 - 2 * e**2 * st_**2, "near": d0 - mpmath.mpf("1.94") * e**2 * st_**2}.get(variant, d0)
        return _ineq(d1, rhs, d0, {"loss": str(loss)})


_eq20_states_nonzero = st.tuples(losses(), st.floats(1e-2, 0.99), st.floats(0.05, 5), st.floats(1, 20))

EQ20 = Claim(
    id="ahn2023.eq20",
    source=PAPER.at("eq. (20), App. C.5"),
    title="Decrease of δ",
    statement=r"\delta_{t+1}\ge\delta_t-2\eta^2s_t^2",
    hypotheses=(r"0\le\ell'(s)s\le s^2",),
    status="theorem", expect="supported",
    uses=("ahn2023.lem8",),
    checks=(sampling.forall("delta_decrease", _states, _eq20, examples=(200, 2000)),
            _per_step_check("bouncing_phase_of_eos_runs", "eq20")),
    planted=(Planted("p1", "δ_{t+1} ≥ δ_t",
                     sampling.forall("delta_non_decreasing", _eq20_states_nonzero,
                                     lambda a_: _eq20(a_, "p1"), examples=(50, 300))),
             near_miss("p2", "near miss: δ_{t+1} ≥ δ_t − 1.94η²s_t² (the constant 2 tightened by 3%)",
                       sampling.forall("delta_decrease_1_94", _states, lambda a_: _eq20(a_, "near"),
                                       examples=(200, 2000)), margin=_ineq_margin("δ_{t+1} vs δ_t − 1.94η²s_t²"))),
)

# ============================================================================ fact3


def _normalised_start():
    xt, yt = sp.sinh(a), sp.cosh(a)  # ỹ > x̃ > 0, ỹ² − x̃² = 1 (a > 0)
    k = sp.sqrt(m / eta)
    return k * xt, k * yt


FACT3_SCALE = Claim(
    id="ahn2023.fact3.scale",
    source=PAPER.at("§2.3"),
    title="Normalised starts: y₀ ≍ η^{-1/2} and y₀ − x₀ ≍ η^{-1/2}",
    statement=r"(x_0,y_0)=\sqrt{m/\eta}(\tilde x,\tilde y):\ y_0^2-x_0^2=m/\eta,\ y_0\sqrt\eta=\sqrt m\tilde y,"
              r"\ (y_0-x_0)\sqrt\eta=\sqrt m(\tilde y-\tilde x)>0",
    status="theorem", expect="proved",
    checks=(
        symbolic.identity("gap_of_squares", lambda: (lambda p: p[1] ** 2 - p[0] ** 2)(_normalised_start()),
                          lambda: m / eta),
        symbolic.identity("y0_scale", lambda: _normalised_start()[1] * sp.sqrt(eta), lambda: sp.sqrt(m) * sp.cosh(a)),
        symbolic.identity("distance_to_diagonal",
                          lambda: (lambda p: (p[1] - p[0]) * sp.sqrt(eta))(_normalised_start()),
                          lambda: sp.sqrt(m) * sp.exp(-a)),
    ),
    planted=(Planted("p1", "y₀ − x₀ ≍ η^{1/2} (the start approaches the diagonal)",
                     symbolic.identity("distance_to_diagonal",
                                       lambda: (lambda p: (p[1] - p[0]) / sp.sqrt(eta))(_normalised_start()),
                                       lambda: sp.sqrt(m) * sp.exp(-a))),),
    notes="x̃ = sinh a, ỹ = cosh a parametrises all normalised directions; ỹ − x̃ = e^{−a} > 0.",
)

_FROZEN_CASES = ((RSYM, "1/2", "1/10"), (SQRT, "1/2", "1/10"), (beta_loss(2.0), "1", "1/5"),
                 (RSYM, "1", "3/10"))
_FROZEN_DPS = 60


def _phi(loss, dl_, et, u):
    """Φ(u) = u − η ℓ'((2 + δ)u/(η(1 − u²))); a root gives x₁ = y₀Φ(u) = 0."""
    return u - et * loss.dloss_mp((2 + dl_) * u / (et * (1 - u * u)))


def frozen_start(loss, dlt: str, et_: str, dps: int = _FROZEN_DPS):
    """Bracket the root u of Φ at ``dps`` digits (bisection on a verified sign change) and run one
    GD step from the normalised start with m = 2 + δ. Returns a dict of numbers."""
    with mpmath.workdps(dps):
        dl_, et = mpmath.mpf(sp.Rational(dlt).p) / sp.Rational(dlt).q, \
            mpmath.mpf(sp.Rational(et_).p) / sp.Rational(et_).q
        lo, hi = et * mpmath.mpf(10) ** -6, et
        if not (_phi(loss, dl_, et, lo) < 0 <= _phi(loss, dl_, et, hi)):
            return {"bracket_ok": False}
        for _ in range(int(dps * 3.4) + 10):
            mid = (lo + hi) / 2
            if _phi(loss, dl_, et, mid) < 0:
                lo = mid
            else:
                hi = mid
        u = hi
        k = mpmath.sqrt((2 + dl_) / et)
        x0, y0 = k * u / mpmath.sqrt(1 - u * u), k / mpmath.sqrt(1 - u * u)
        d = loss.dloss_mp(x0 * y0)
        x1, y1 = x0 - et * d * y0, y0 - et * d * x0
        x2 = x1 - et * loss.dloss_mp(x1 * y1) * y1
        return {"bracket_ok": True, "u_lo": mpmath.nstr(lo, 30), "u_hi": mpmath.nstr(hi, 30),
                "bracket_width": mpmath.nstr(hi - lo, 3), "x0": float(x0), "y0": float(y0),
                "abs_x1": mpmath.nstr(abs(x1), 3), "abs_x1_over_y0": abs(x1) / y0,
                "eta_y1sq_minus_2": mpmath.nstr(et * y1 * y1 - 2, 15),
                "eta_y1sq_minus_2_float": float(et * y1 * y1 - 2), "x2_over_x1": mpmath.nstr(x2 / x1, 6)
                if x1 != 0 else "0", "premise": bool(et * et < dl_ / (2 + dl_))}


# ---- certified frozen starts: the root u* of Φ(u) = u − ηℓ'((2+δ)u/(η(1 − u²))) enclosed in arb
_u, _v = sp.Symbol("u", real=True), sp.Symbol("v", real=True)


def _frozen_point():
    """(x₀, y₀) = √((2+δ)/η)(u, 1)/√(1 − u²) and the argument A = (2+δ)u/(η(1 − u²)) of ℓ'."""
    k = sp.sqrt((2 + delta) / eta)
    return k * _u / sp.sqrt(1 - _u**2), k / sp.sqrt(1 - _u**2), (2 + delta) * _u / (eta * (1 - _u**2))


def _frozen_step_at_root():
    """One GD step with ηℓ'(x₀y₀) = u (the root equation), written with G := ℓ'(x₀y₀) = u/η."""
    x0, y0, _ = _frozen_point()
    G = _u / eta
    return x0 - eta * G * y0, y0 - eta * G * x0


_R = sp.Rational
# (name, ℓ' as a sympy expression in v (None: use the arb enclosure of ℓ_2), δ, η, bracket on which Φ
# changes sign and is certified monotone); the same cases as _FROZEN_CASES, in exact rationals
_FROZEN_ROOTS = (
    ("rsym", sp.tanh(_v), _R(1, 2), _R(1, 10), (_R(1, 20), _R(1, 10))),
    ("sqrt", _v / sp.sqrt(1 + _v**2), _R(1, 2), _R(1, 10), (_R(1, 20), _R(1, 10))),
    ("beta(2)", None, _R(1), _R(1, 5), (_R(1, 10), _R(3, 10))),
    ("rsym", sp.tanh(_v), _R(1), _R(3, 10), (_R(1, 5), _R(3, 10))),
)


def _phi_beta2(dlt, et):
    """Φ and Φ' for ℓ_2 as arb callables (ℓ_2', ℓ_2'' compiled from the catalogue's sympy Piecewise,
    rigorous across the breakpoint r_2 = 3/2, where it has no series derivative)."""
    d1, d2 = certify.loss_derivatives(beta_loss(2))
    D, E = (lambda: certify.ball(dlt)), (lambda: certify.ball(et))

    def K(U):
        return (2 + D()) * U / (E() * (1 - U * U))

    def phi(U):
        return U - E() * d1(K(U))

    def dphi(U):
        return 1 - E() * d2(K(U)) * (2 + D()) * (1 + U * U) / (E() * (1 - U * U) ** 2)

    phi.__name__ = f"Phi[beta(2), delta={dlt}, eta={et}]"
    return phi, dphi


def _frozen_root_check(name, dl, dlt, et, bracket):
    why = (f"{name}, δ = {dlt}, η = {et}: a unique root u* of Φ in {bracket[0]}..{bracket[1]} (sign change at the "
           "exact ends, Φ' > 0 certified on the bracket); u* > 0, so the start is off the y-axis")
    tag = f"root_{name}_delta_{dlt}_eta_{et}".replace("/", "_").replace("(", "").replace(")", "")
    if dl is None:
        phi, dphi = _phi_beta2(dlt, et)
        return certify.root_bound(tag, phi, bracket, "> 0", derivative=dphi, why=why)
    expr = _u - et * dl.subs(_v, (2 + dlt) * _u / (et * (1 - _u**2)))
    return certify.root_bound(tag, expr, bracket, "> 0", why=why)


def _frozen_premises():
    rows = {f"{n}, delta={d}, eta={e}": bool(e**2 < d / (2 + d)) for n, _, d, e, _ in _FROZEN_ROOTS}
    return all(rows.values()), {"eta^2 < delta/(2+delta)": rows}


def _huber_frozen_exact():
    """Huber: the root is exactly u = η (s₀ = (2+δ)/(1 − η²) > 1), so x₁ = y₀(η − η·1) = 0 exactly."""
    de, et = sp.Rational(1, 2), sp.Rational(1, 10)
    s0 = (2 + de) / (1 - et**2)
    x1 = sp.sqrt((2 + de) / et) / sp.sqrt(1 - et**2) * (et - et * (1 if s0 > 1 else s0))
    eta_y1sq = (2 + de) * (1 - et**2)
    return bool(x1 == 0 and eta_y1sq > 2), {"delta": "1/2", "eta": "1/10", "u": "1/10", "x1": str(x1),
                                           "eta*y1^2": str(eta_y1sq)}


@check("float64_from_rounded_u_stays_frozen", kind="TRAJ")
def _frozen_float_planted(ctx):
    loss, dlt, et = _FROZEN_CASES[0]
    r = frozen_start(loss, dlt, et)
    etf = float(sp.Rational(et))
    traj = gd_run(loss, etf, r["x0"], r["y0"], 3000)
    xs = [abs(p[0]) for p in traj[1:]]
    biggest = max(xs)
    t_big = xs.index(biggest) + 1
    frozen = biggest <= 1e-10
    return outcome(Status.PROVED if frozen else Status.REFUTED,
                   f"float64 GD from the rounded start: max |x_t| = {biggest:.3g} at t = {t_big} "
                   f"(the bouncing resumes)" if not frozen else "float64 run stayed frozen",
                   witness={"loss": str(loss), "delta": dlt, "eta": et, "x0": r["x0"], "y0": r["y0"]},
                   max_abs_x=biggest, t_at_max=t_big, abs_x1_float=xs[0])


FACT3_FROZEN = Claim(
    id="ahn2023.fact3.frozen",
    source=PAPER.at("§2.3 (remark after Theorem 2)"),
    title="A frozen start: without genericity the iterate sticks at (0, y₁) with y₁² > 2/η",
    statement=r"u=\eta\ell'\big((2+\delta)u/(\eta(1-u^2))\big),\ (\tilde x,\tilde y)=(u,1)/\sqrt{1-u^2}"
              r"\Rightarrow x_1=0,\ y_1^2=(2+\delta)(1-u^2)/\eta>2/\eta,\ (x_t,y_t)=(0,y_1)\ \forall t\ge1",
    hypotheses=("(A1)", r"\delta>0", r"\eta^2<\delta/(2+\delta)"),
    status="theorem", expect="proved",
    uses=("ahn2023.lem7", "ahn2023.def4"),
    checks=(
        symbolic.identity("argument_of_l_prime", lambda: _frozen_point()[0] * _frozen_point()[1],
                          lambda: _frozen_point()[2], why="x₀y₀ = (2+δ)u/(η(1 − u²))"),
        symbolic.identity("x1_vanishes_at_the_root", lambda: _frozen_step_at_root()[0], 0,
                          why="ηℓ'(x₀y₀) = u gives x₁ = x₀ − u y₀ = 0"),
        symbolic.identity("y1_squared", lambda: _frozen_step_at_root()[1] ** 2,
                          lambda: (2 + delta) * (1 - _u**2) / eta),
        symbolic.identity("jump_margin", lambda: (2 + delta) * (1 - _u**2) - 2,
                          lambda: (2 + delta) * (delta / (2 + delta) - _u**2),
                          why="ηy₁² − 2 = (2+δ)(δ/(2+δ) − u²) > 0, as u² = η²ℓ'² <= η² < δ/(2+δ) by (A1)"),
        symbolic.identity("y_axis_fixed_point", lambda: _gd(lambda u: _prime(_even_loss, u), X=0)[1] - y
                          + _gd(lambda u: _prime(_even_loss, u), X=0)[0], 0),
        symbolic.exact_rational("premise_eta_sq_lt_delta_ratio", _frozen_premises,
                                why="η² < δ/(2+δ) for every certified case"),
        *(_frozen_root_check(*case) for case in _FROZEN_ROOTS),
        symbolic.exact_rational("huber_root_is_eta", _huber_frozen_exact,
                                why="Huber, δ = 1/2, η = 1/10: u = η, x₁ = 0 and ηy₁² = 2.475 > 2"),
    ),
    planted=(Planted("p1", "the frozen start is robust: float64 GD from the rounded u stays on the y-axis",
                     _frozen_float_planted),),
    notes="The implication is exact (sympy, ℓ' arbitrary: only ηℓ'(x₀y₀) = u is used). Existence of a "
          "frozen start is certified for ℓ_rsym (δ, η) = (1/2, 1/10), (1, 3/10), ℓ_sqrt (1/2, 1/10) and "
          "ℓ_2 (1, 1/5): the root u* of Φ is enclosed in arb (unique in its bracket, Φ' > 0 "
          "certified); Huber is exact (u* = η). The 60/90-digit bisection (frozen_start) is kept for the "
          "planted float64 run, which shows the frozen start is not robust to rounding.",
)

FACT3_GENERIC = Claim(
    id="ahn2023.fact3.generic",
    source=PAPER.at("§2.3"),
    title="Genericity holds outside a null set of starts (conjecture)",
    statement=r"\text{for each }\eta,\ x_t\ne0\ \forall t\text{ for all starts outside a null set; also under "
              r"vanishing continuous noise}",
    status="conjecture", expect="unchecked",
    uses=("ahn2023.fact3.frozen",),
)
