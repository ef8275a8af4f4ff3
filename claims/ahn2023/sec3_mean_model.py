"""ahn2023 §3 and Appendix D: the mean model and its flow.

Claims: lem2, fact7, lem3, fact8 and rem4. The derivation of the mean model (fact6) is in
:mod:`claims.ahn2023.sec3_mean_model_derivation`, the step-size threshold in
:mod:`claims.ahn2023.sec3_threshold`; fact9, Theorems 3 and 4 in :mod:`claims.ahn2023.sec3_theorems`.

Exact statements are sympy identities with concrete g = φ + bΦ and ℓ_sym; trajectory statements
run (5) in compiled float64 lanes (cross-checked against mpmath in def10) and (6) with DOP853 at
rtol 1e-12. Every convergence-dependent verdict states the step budget, and a lane that runs out
of steps makes the check inconclusive.
"""
from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
from hypothesis import strategies as st

from verify import Claim, Planted, Status
from verify import asymptotic, certify, sampling, symbolic
from verify.claim import check, corroborate, outcome
from verify.nearmiss import near_miss
from claims.ahn2023 import PAPER
from claims.ahn2023 import _mean_model as mm
from claims.ahn2023._sec3_common import S, _excess_over_tol, _gauss_integral, _sp


# =========================================================================== lem2

def _lem2_sym(g_form=None, gp_form=None):
    def g_closed():
        s = S()
        return g_form() if g_form else s["g"]

    return symbolic.all_of("closed_form_and_derivatives", (
        symbolic.identity("integral", lambda: _gauss_integral(lambda z, b: z + b), g_closed),
        symbolic.identity("g_prime", lambda: _sp().diff(S()["g"], S()["b"]),
                          lambda: gp_form() if gp_form else S()["Phi"]),
        symbolic.identity("g_second", lambda: _sp().diff(S()["g"], S()["b"], 2),
                          lambda: S()["phi"]),
        symbolic.identity("g0_squared", lambda: S()["g"].subs(S()["b"], 0) ** 2,
                          lambda: 1 / (2 * _sp().pi)),
    ))


def _lem2_int_prop(b, k=1):
    """``k``: the planted constant in Φ² ≥ k·gφ (k = 1 is the statement)."""
    with mpmath.workdps(30):
        gb, gp, ph = mm.g_mp(b), mpmath.ncdf(b), mpmath.npdf(b)
        logconcave = gp ** 2 - k * gb * ph  # (g/g')' = (Φ² − gφ)/Φ² >= 0
        ok = gb > 0 and 0 < gp < 1 and logconcave >= 0
        return bool(ok), {"g": float(gb), "g_prime": float(gp), "Phi2_minus_g_phi": float(logconcave),
                          "Phi2_over_g_phi": float(gp ** 2 / (gb * ph))}


def _lem2_positivity_chain(claimed_h=None):
    """g > 0, 0 < Φ < 1 and Φ² − gφ > 0 on the whole line, by one exact argument repeated:
    f(−∞) = 0 and f' > 0 imply f > 0 (for 1 − Φ: f(+∞) = 0 and f' < 0). The chain
    φ > 0 ⇒ Φ > 0 ⇒ g > 0 (g' = Φ) ⇒ u := (1 + b²)Φ + bφ > 0 (u' = 2g) ⇒ h := Φ² − gφ > 0
    (h' = φu), and h > 0 is (g/g')' = h/Φ² > 0. ``claimed_h`` plants a wrong last link."""
    @check("positivity_and_log_concavity_proof", "SYM")
    def run(ctx):
        s = S()
        sp, b, phi, Phi, g = s["sp"], s["b"], s["phi"], s["Phi"], s["g"]
        u = (1 + b ** 2) * Phi + b * phi
        h = claimed_h(s) if claimed_h else Phi ** 2 - g * phi
        # (name, f, where f vanishes, f' written with functions already shown positive); the
        # order matters: each f' is a product of φ and earlier links, with the sign that makes
        # f > 0 (f' > 0 from −∞, f' < 0 toward +∞)
        chain = (("Phi", Phi, -sp.oo, phi), ("1-Phi", 1 - Phi, sp.oo, -phi),
                 ("g", g, -sp.oo, Phi), ("u", u, -sp.oo, 2 * g), ("h", h, -sp.oo, phi * u))
        steps = {}
        with symbolic.time_budget(60):
            if phi.is_positive is not True:
                return outcome(Status.INCONCLUSIVE, "sympy cannot decide φ > 0")
            for name, f, at, fprime in chain:
                limit = sp.limit(f, b, at)
                derivative_ok = symbolic.is_zero(sp.diff(f, b) - fprime)
                steps[name] = {"limit": str(limit), "derivative_matches": str(derivative_ok)}
                if limit != 0 or derivative_ok is not True:
                    # a failed argument is not a refutation: look for a point where f <= 0
                    f_mp = sp.lambdify(b, f, "mpmath")
                    with mpmath.workdps(30):
                        bad = next((v for v in np.linspace(-12, 12, 481) if f_mp(mpmath.mpf(v)) <= 0),
                                   None)
                    summary = (f"{name}: the monotone-limit argument fails (limit {limit} at {at}, "
                               f"f' = {fprime}: {derivative_ok})")
                    if bad is None:
                        return outcome(Status.INCONCLUSIVE, summary + "; no point with f <= 0 on "
                                       "a 481-point grid of [-12, 12]", steps=steps)
                    return outcome(Status.REFUTED, f"{summary}; {name}({bad:g}) <= 0",
                                   steps=steps, witness=float(bad))
        return outcome(Status.PROVED, "exact chain: φ > 0 ⇒ Φ > 0, 1 − Φ > 0 ⇒ g > 0 (g' = Φ) ⇒ "
                       "(1+b²)Φ + bφ > 0 (its derivative is 2g) ⇒ Φ² − gφ > 0 (its derivative is "
                       "φ((1+b²)Φ + bφ)); each function vanishes at ∓∞ (sympy limits)",
                       steps=steps)
    return run


LEM2 = Claim(
    id="ahn2023.lem2",
    source=PAPER.at("Lemma 2, §3.2, proof App. E.1"),
    title="Smoothed ReLU: g = φ + bΦ, g' = Φ, g'' = φ",
    statement=r"g(b) = \varphi(b) + b\Phi(b),\ g' = \Phi,\ g'' = \varphi,\ g(0)^2 = 1/(2\pi);\ "
              r"g > 0,\ 0 < g' < 1,\ g/g' \text{ increasing}",
    uses=("ahn2023.def8",),
    expect="proved",
    checks=(_lem2_sym(),
            _lem2_positivity_chain(),
            corroborate(sampling.forall("positivity_and_log_concavity", st.floats(-8, 8),
                                        _lem2_int_prop, examples=(200, 2000)),
                        of="positivity_and_log_concavity_proof")),
    planted=(
        Planted("p1", "g(b) = φ(b) − bΦ(b)",
                _lem2_sym(g_form=lambda: S()["phi"] - S()["b"] * S()["Phi"])),
        Planted("p2", "g' = φ", _lem2_sym(gp_form=lambda: S()["phi"])),
        near_miss("p3", "near miss: Φ² ≥ 1.03·gφ on [-8, 8] (log-concavity with 3% to spare)",
                  sampling.forall("log_concavity_1_03", st.floats(-8, 8), lambda b: _lem2_int_prop(b, mpmath.mpf("1.03")),
                                  examples=(200, 2000)),
                  margin=lambda d: (1.03 - d["Phi2_over_g_phi"], f"at the shrunk witness Φ²/(gφ) = "
                                    f"{d['Phi2_over_g_phi']:.5f} < 1.03") if "Phi2_over_g_phi" in d else None),
        Planted("p4", "Φ² > 1.05·gφ (log-concavity with 5% to spare; false in the left tail)",
                _lem2_positivity_chain(lambda s: s["Phi"] ** 2 - 1.05 * s["g"] * s["phi"])),
    ),
    notes="The identities are exact (sympy). Positivity, g' ∈ (0, 1) and the log-concavity "
          "Φ² ≥ gφ (g/g' increasing) are proved on the whole line by a chain of exact "
          "monotone-limit arguments; 30-digit sampling on [-8, 8] corroborates them (a "
          "corroboration never demotes the proof, and a contradiction would make the claim "
          "inconsistent).",
)


# =========================================================================== fact7

def _fact7_strategy():
    A = st.one_of(st.just(0.0), st.floats(1e-6, 50), st.floats(-50, -1e-6))
    return st.tuples(A, st.floats(-5, 1), st.floats(1e-6, 1.0), st.integers(1, 500))


def _fact7_sign_proof(strict_at_zero: bool = False):
    """b_{t+1} − b_t = −η ℓ_sym'(A g(b)) A Φ(b) (eq. (5); ℓ_sym' = tanh(·/2)/2, fact9.ii) is < 0 for
    A ≠ 0 and = 0 for A = 0, exactly, for every η > 0, b and d: with G = g(b) > 0 and P = Φ(b) > 0
    (lem2) as positive symbols, sympy decides the sign for A = a and for A = −a (a > 0).
    ``strict_at_zero`` (planted): b_{t+1} < b_t also at A = 0. A sign sympy decides false refutes,
    with the exact step at the witness (a = G = P = η = 1, or A = 0)."""
    @check("one_step_sign_proof", "SYM")
    def run(ctx):
        s = S()
        sp = s["sp"]
        a, G, P, eta = sp.symbols("a G P eta", positive=True)

        def step(A):
            return -eta * s["ell_sym_prime_tanh"].subs(s["s"], A * G) * A * P
        zero = step(sp.Integer(0))
        signs = {"A=a>0": (step(a).is_negative, a), "A=-a<0": (step(-a).is_negative, -a),
                 "A=0": ((zero < 0) if strict_at_zero else (zero == 0), sp.Integer(0))}
        data = {"delta_b_negative" if not strict_at_zero else "claimed_sign": {k: str(v) for k, (v, _) in signs.items()},
                "method": "sympy"}
        for case, (value, A) in signs.items():
            if value is False or value is sp.false:
                at = {a: 1, G: 1, P: 1, eta: 1}
                delta_b = step(A).subs(at)
                return outcome(Status.REFUTED, f"{case}: b_{{t+1}} − b_t = {sp.sstr(delta_b)} at A = {sp.sstr(A.subs(at))}, "
                               "g = Φ = η = 1 (exact), against the claimed sign", witness={"case": case,
                               "A": sp.sstr(A.subs(at)), "delta_b": sp.sstr(delta_b)}, **data)
        if not all(v is True or v is sp.true for v, _ in signs.values()):
            return outcome(Status.INCONCLUSIVE, "sympy did not decide the sign of b_{t+1} − b_t", **data)
        return outcome(Status.PROVED, "exact: b_{t+1} − b_t = −η tanh(Ag/2)AΦ/2 is negative for A > 0 and for "
                       "A < 0 (g, Φ > 0 by lem2) and 0 at A = 0 (sympy)", **data)
    return run


def _fact7_limit_proof(sign_proof):
    """b_∞^MM ∈ [−∞, 0] (fact7, def10), from the one-step sign: b₀ = 0 (def10), and
    b_{t+1} − b_t ≤ 0 at every state (``sign_proof``, run again here), so by induction (b_t) is
    non-increasing and b_t ≤ b₀ = 0; every iterate is real (b_{t+1} − b_t = −η tanh(Ag/2)AΦ/2 and
    A_{t+1} − A_t = −ηd² tanh(Ag/2) g are finite at finite (A, b)), and a non-increasing real sequence
    converges in [−∞, b₀]. The step sign is the only part that needs computing; a sign that is not
    proved leaves the limit undecided (a failed argument refutes nothing; the trajectories may)."""
    @check("limit_proof", "SYM")
    def run(ctx):
        sign = sign_proof(ctx)
        if sign.status != Status.PROVED:
            return outcome(Status.INCONCLUSIVE, f"the one-step sign is not proved ({sign.summary}), so "
                           "b_t ≤ 0 does not follow", one_step_sign=sign.data)
        return outcome(Status.PROVED, "b₀ = 0 (def10) and b_{t+1} − b_t ≤ 0 at every state (one-step sign, "
                       "sympy) give b_t ≤ 0 and (b_t) non-increasing by induction; a non-increasing real "
                       "sequence converges in [−∞, b₀] = [−∞, 0]",
                       steps=["b_0 = 0 (def10)", "b_{t+1} - b_t <= 0 for every (A_t, b_t), eta > 0 "
                              "(one_step_sign_proof)", "induction: b_{t+1} <= b_t <= 0",
                              "monotone convergence: lim b_t exists in [-inf, b_0]"],
                       one_step_sign=sign.data)
    return run


def _fact7_step_bound(factor: float):
    """Planted near miss: |b_{t+1} − b_t| <= factor·η A² g(b)Φ(b)/4. Since ℓ'(u) = tanh(u/2)/2 <= u/4
    with equality as u → 0, the sharp factor is 1; records |Δb| over η A² g(b)Φ(b)/4."""
    def prop(args):
        A, b, eta, d = args
        if A == 0:
            return sampling.SKIP
        with mpmath.workdps(30):
            A_, b_ = mpmath.mpf(A), mpmath.mpf(b)
            gb = mm.g_mp(b_)
            db = -mpmath.mpf(eta) * mpmath.tanh(A_ * gb / 2) / 2 * A_ * mpmath.ncdf(b_)
            ratio = abs(db) / (mpmath.mpf(eta) * A_ ** 2 * gb * mpmath.ncdf(b_) / 4)
            return bool(ratio <= factor), {"delta_b": float(db), "ratio": float(ratio)}
    return prop


def _fact7_step_margin(factor: float):
    def margin(data):
        if "ratio" not in data:
            return None
        v = float(data["ratio"])
        return v / factor - 1, (f"at the shrunk witness |Δb|/(ηA²g(b)Φ(b)/4) = {v:.6g} > {factor}: "
                                f"{v / factor - 1:.3g} (relative) above the planted bound")
    return margin


@functools.lru_cache(maxsize=8)
def _trajectories(full: bool):
    out = []
    for c in (4.0, 7.0, 10.0, 14.0):
        for d in (50, 200):
            A, b = mm.mean_model_path(1.0, c * math.pi / d ** 2, d, 3000 if full else 800)
            out.append((c, d, A, b))
    return out


def _b_monotone_traj(what: str):
    @check(f"{what}_monotone_along_trajectories", "TRAJ")
    def run(ctx):
        worst = None
        rows = {}
        for c, d, A, b in _trajectories(ctx.full):
            x = b if what == "b" else A
            inc = int(np.sum(np.diff(x) > 0))
            dec = int(np.sum(np.diff(x) < 0))
            rows[f"c={c},d={d}"] = {"increases": inc, "decreases": dec}
            bad = inc if what == "b" else min(inc, dec)
            if bad and worst is None:
                worst = f"c={c}, d={d}"
        info = {"runs": rows, "steps": len(_trajectories(ctx.full)[0][2]) - 1, "A0": 1.0}
        if worst:
            return outcome(Status.REFUTED, f"{what}_t is not monotone at {worst}", witness=worst,
                           **info)
        return outcome(Status.SUPPORTED, f"{what}_t monotone along {len(rows)} trajectories "
                       f"(ηd²/π ∈ {{4, 7, 10, 14}}, d ∈ {{50, 200}})", **info)
    return run


FACT7 = Claim(
    id="ahn2023.fact7",
    source=PAPER.at("§3.2"),
    title="The bias is non-increasing along (5)",
    statement=r"b_{t+1} \le b_t,\ \text{equality iff } A_t = 0;\ b_\infty^{MM} \in [-\infty, 0]",
    hypotheses=(r"\eta > 0", "d >= 1"),
    uses=("ahn2023.lem2", "ahn2023.def10", "ahn2023.fact9"),
    expect="proved",
    # the one-step sign is proved for every A, b, η > 0, d (it used to be sampled: 3000 inputs with
    # |A| ≤ 50, b ∈ [−5, 1]), and b_∞ ∈ [−∞, 0] follows from it and b₀ = 0; the trajectories
    # corroborate the limit part
    checks=(_fact7_sign_proof(), _fact7_limit_proof(_fact7_sign_proof()),
            corroborate(_b_monotone_traj("b"), of="limit_proof")),
    planted=(
        Planted("p1", "A_t is monotone", _b_monotone_traj("A")),
        Planted("p2", "b_{t+1} < b_t even when A_t = 0", _fact7_sign_proof(strict_at_zero=True)),
        near_miss("p3", "near miss: |b_{t+1} − b_t| <= 0.97·ηA_t²g(b_t)Φ(b_t)/4 (the small-A rate of the "
                  "decrease, which is sharp, tightened by 3%)",
                  sampling.forall("p3_step_bound", _fact7_strategy(), _fact7_step_bound(0.97),
                                  examples=(300, 3000)),
                  margin=_fact7_step_margin(0.97)),
    ),
)


# =========================================================================== lem3

def _lem3_sym(coef, sign):
    """d/dt(½A² + sign·coef·d²κ(b)) along (6), with κ' = g/g' (def9)."""
    def build():
        s = S()
        A, d = s["A"], s["d"]
        g_b, Phi = s["g"], s["Phi"]
        lp = s["ell_sym_prime_tanh"].subs(s["s"], A * g_b)
        Adot = -2 * d ** 2 * lp * g_b
        bdot = -lp * A * Phi
        return A * Adot + sign * coef * d ** 2 * (g_b / Phi) * bdot
    return symbolic.identity("invariant_derivative_zero", build, 0)


def _lem3_traj_check(name: str, coef: float = 2.0):
    """½A² − coef·d²κ(b) along DOP853 solutions of (6); conserved for coef = 2 (lem3)."""
    @check(name, "TRAJ")
    def run(ctx):
        return _lem3_traj_run(ctx, coef)
    return run


def _lem3_traj_run(ctx, coef: float = 2.0):
    rows = {}
    worst = 0.0
    for A0, d in ((1.0, 10.0), (-2.0, 30.0), (5.0, 100.0)):
        sol = mm.flow(A0, d, dense=True)
        ts = np.linspace(0, sol.t[-1], ctx.pick(25, 100))
        A, b = sol.sol(ts)
        inv = 0.5 * A ** 2 - coef * d * d * np.array([mm.kappa(v) for v in b])
        drift = float(np.max(np.abs(inv - inv[0])) / abs(inv[0]))
        worst = max(worst, drift)
        rows[f"A0={A0},d={d}"] = {"I0": float(inv[0]), "max_rel_drift": drift,
                                  "b_end": float(b[-1]), "A_end": float(A[-1])}
    tol = 1e-8
    return outcome(Status.SUPPORTED if worst <= tol else Status.REFUTED,
                   f"½A² − {coef:g}d²κ(b) drifts by at most {worst:.1e} (relative) along DOP853 solutions "
                   f"(rtol 1e-12), tolerance {tol}", runs=rows, tolerance=tol, max_rel_drift=worst)


_lem3_traj = _lem3_traj_check("invariant_along_solve_ivp")


LEM3 = Claim(
    id="ahn2023.lem3",
    source=PAPER.at("Lemma 3, §3.2, proof App. E.1"),
    title="½A² − 2d²κ(b) is conserved along the flow (6)",
    statement=r"\tfrac12 A(t)^2 - 2d^2\kappa(b(t)) = \text{const}",
    uses=("ahn2023.def9", "ahn2023.def11"),
    expect="proved",
    checks=(_lem3_sym(2, -1), corroborate(_lem3_traj, of="invariant_derivative_zero")),
    planted=(Planted("p1", "½A² − d²κ(b)", _lem3_sym(1, -1)),
             Planted("p2", "½A² + 2d²κ(b)", _lem3_sym(2, +1)),
             near_miss("p3", "near miss: ½A² − 2.02·d²κ(b) is conserved (constant 1% off)",
                       _lem3_traj_check("p3", 2.02), margin=_excess_over_tol("max_rel_drift", "max relative drift"))),
    notes="The derivative identity is exact (proved); the DOP853 solutions corroborate it "
          "numerically (a corroboration, so it cannot demote the proof).",
)


# =========================================================================== fact8

def _fact8_exact_sym(denominator):
    def build():
        sp = _sp()
        A0, dd = sp.symbols("A_0 d", positive=True)
        kinf = sp.Symbol("kappa_inf", real=True)
        # invariant at t = 0 (A0, b = 0, κ(0) = 0) equals its value at the limit (0, b_∞)
        sol = sp.solve(sp.Eq(A0 ** 2 / 2 - 2 * dd ** 2 * 0, 0 - 2 * dd ** 2 * kinf), kinf)
        return sol[0]
    return symbolic.identity("kappa_of_b_inf", build,
                             lambda: -_sp().Symbol("A_0", positive=True) ** 2
                             / (denominator * _sp().Symbol("d", positive=True) ** 2))


def _fact8_exact_traj(denominator):
    @check("flow_limit_vs_kappa_root", "TRAJ")
    def run(ctx):
        rows, worst = {}, 0.0
        for A0, d in ((1.0, 10.0), (-2.0, 30.0), (0.5, 100.0), (3.0, 20.0)):
            b_gf, a_end = mm.flow_b_inf(A0, d)
            root = mm.kappa_inverse(-A0 ** 2 / (denominator * d * d))
            rel = abs(b_gf - root) / abs(root)
            worst = max(worst, rel)
            rows[f"A0={A0},d={d}"] = {"b_inf_flow": b_gf, "kappa_root": root, "rel_diff": rel,
                                      "A_end": a_end}
        tol = 1e-7
        return outcome(Status.SUPPORTED if worst <= tol else Status.REFUTED,
                       f"b_∞^GF from DOP853 matches the root of κ(b) = −A₀²/({denominator}d²) to "
                       f"{worst:.1e} (tolerance {tol})", runs=rows, tolerance=tol, max_rel_diff=worst)
    return run


FACT8_EXACT = Claim(
    id="ahn2023.fact8.exact",
    source=PAPER.at("§3.2"),
    title="κ(b_∞^GF) = −A₀²/(4d²)",
    statement=r"\kappa(b^{GF}_\infty) = -A_0^2/(4d^2)",
    hypotheses=(r"(6) from (A_0, 0), A_0 \ne 0, A(t) \to 0",),
    uses=("ahn2023.lem3", "ahn2023.def9"),
    expect="supported",
    checks=(_fact8_exact_sym(4), _fact8_exact_traj(4)),
    planted=(Planted("p1", "κ(b_∞^GF) = −A₀²/(2d²)", _fact8_exact_traj(2)),
             near_miss("p2", "near miss: κ(b_∞^GF) = −A₀²/(4.04d²) (constant 1% off)", _fact8_exact_traj(4.04),
                       margin=_excess_over_tol("max_rel_diff", "largest relative distance of b_∞ to the root"))),
)


def _kappa_sandwich(swapped: bool):
    def prop(b):
        with mpmath.workdps(30):
            M = mpmath.sqrt(2 / mpmath.pi)
            m = mm.g_mp(-1) / mpmath.ncdf(-1)
            k = mm.kappa_mp(b)
            lo, hi = (m * b, M * b) if swapped else (M * b, m * b)
            return bool(lo <= k <= hi), {"kappa": float(k), "M": float(M), "m": float(m)}
    return prop


def _kappa_certificate():
    """κ(b) = −∫_b^0 h(u) du with h = g/g' = g/Φ. If h is non-decreasing on [−1, 0], then
    h(−1) ≤ h(u) ≤ h(0) there, so h(0)·b ≤ κ(b) ≤ h(−1)·b for b ∈ [−1, 0], with h(0) = M = √(2/π)
    and h(−1) = m. The premises: h' = (Φ² − gφ)/Φ² (exact, sympy), Φ² − gφ ≥ 0 on [−1, 0]
    (certified in arb), and h(0) = √(2/π) (exact)."""
    s = S()
    sp, b = s["sp"], s["b"]
    g_b, Phi, phi = s["g"], s["Phi"], s["phi"]
    return symbolic.all_of("sandwich_certificate", (
        symbolic.identity("h_prime", lambda: sp.diff(g_b / Phi, b), lambda: (Phi ** 2 - g_b * phi)
                          / Phi ** 2),
        certify.nonnegative("h_prime_numerator_nonnegative_on_minus1_0", Phi ** 2 - g_b * phi,
                            -1, 0, var=b,
                            why="g/g' is non-decreasing on [-1, 0] (log-concavity of g)"),
        symbolic.identity("h_at_0_is_M", lambda: (g_b / Phi).subs(b, 0),
                          lambda: sp.sqrt(2 / sp.pi)),
    ))


FACT8_KAPPA = Claim(
    id="ahn2023.fact8.kappa",
    source=PAPER.at("§3.2; §7 F18"),
    title="κ'(0) = √(2/π) and M b ≤ κ(b) ≤ m b on [−1, 0]",
    statement=r"\kappa'(0) = \sqrt{2/\pi};\ Mb \le \kappa(b) \le mb,\ b\in[-1,0],\ M = \sqrt{2/\pi},"
              r"\ m = g(-1)/\Phi(-1)",
    uses=("ahn2023.lem2", "ahn2023.def9"),
    expect="proved",
    checks=(
        symbolic.identity("kappa_prime_at_0",
                          lambda: (S()["g"] / S()["Phi"]).subs(S()["b"], 0),
                          lambda: _sp().sqrt(2 / _sp().pi)),
        _kappa_certificate(),
    ),
    planted=(Planted("p2", "constants swapped: m b ≤ κ(b) ≤ M b",
                     sampling.forall("p2", st.floats(-1.0, -1e-4), _kappa_sandwich(True),
                                     examples=(60, 400))),),
    notes="Proved from the monotonicity of g/g' on [−1, 0] (an arb certificate of Φ² − gφ ≥ 0 "
          "there plus exact sympy identities) and the elementary bound of an integral of a "
          "monotone function; the planted swap is refuted by 30-digit quadrature of κ.",
)


def _scale_series_d(ctx) -> asymptotic.Series:
    ds = asymptotic.geometric_grid(10, 640, ctx.pick(8, 10))
    b = np.array([mm.flow_b_inf(1.0, float(d))[0] for d in ds])
    roots = np.array([mm.kappa_inverse(-1.0 / (4 * d * d)) for d in ds])
    return asymptotic.Series(ds, np.abs(b), {"A0": 1.0, "max_rel_diff_to_kappa_root":
                                             float(np.max(np.abs(b - roots) / np.abs(roots)))})


def _scale_series_A(ctx) -> asymptotic.Series:
    A0s = asymptotic.geometric_grid(0.05, 2.0, ctx.pick(8, 10))
    b = np.array([mm.flow_b_inf(float(a), 100.0)[0] for a in A0s])
    return asymptotic.Series(A0s, np.abs(b), {"d": 100.0})


@check("sandwich_constants", "TRAJ")
def _scale_sandwich(ctx):
    m = float(mm.g(-1.0) / mm.g_prime(-1.0))
    M = math.sqrt(2 / math.pi)
    rows, ok = {}, True
    for A0, d in ((1.0, 10.0), (2.0, 10.0), (1.0, 100.0), (0.3, 40.0), (-1.5, 25.0)):
        if A0 ** 2 / (4 * d * d * m) > 1:
            continue
        b, _ = mm.flow_b_inf(A0, d)
        lo, hi = -A0 ** 2 / (4 * d * d * m), -A0 ** 2 / (4 * d * d * M)
        ok &= lo <= b <= hi
        rows[f"A0={A0},d={d}"] = {"lower": lo, "b_inf": b, "upper": hi,
                                  "b_times_d2_over_A0sq": b * d * d / A0 ** 2}
    return outcome(Status.SUPPORTED if ok else Status.REFUTED,
                   "−A₀²/(4d²m) ≤ b_∞^GF ≤ −A₀²/(4d²M) " + ("holds" if ok else "fails")
                   + f" at {len(rows)} flow runs (m = {m:.6f}, M = {M:.6f})", runs=rows)


FACT8_SCALE = Claim(
    id="ahn2023.fact8.scale",
    source=PAPER.at("§3.2"),
    title="Gradient flow fails to learn a threshold: b_∞^GF = −Θ(A₀²/d²)",
    statement=r"-\frac{A_0^2}{4d^2m} \le b^{GF}_\infty \le -\frac{A_0^2}{4d^2M}",
    hypotheses=(r"A_0^2/(4d^2m) \le 1",),
    uses=("ahn2023.fact8.exact", "ahn2023.fact8.kappa"),
    expect="supported",
    checks=(
        asymptotic.rate("exponent_in_d", _scale_series_d, exponent=-2.0, tol=0.1,
                        law="|b_∞^GF| ~ d^p at A₀ = 1", toward="infinity"),
        asymptotic.rate("exponent_in_A0", _scale_series_A, exponent=2.0, tol=0.1,
                        law="|b_∞^GF| ~ A₀^p at d = 100"),
        _scale_sandwich,
    ),
    planted=(Planted("p1", "b_∞^GF = −Θ(A₀²/d) (exponent −1 in d)",
                     asymptotic.rate("p1", _scale_series_d, exponent=-1.0, tol=0.1)),
             near_miss("p2", "near miss: b_∞^GF = −Θ(A₀²/d^{7/4}) (exponent in d off by 2.5τ)",
                       asymptotic.rate("p2", _scale_series_d, exponent=-1.75, tol=0.1))),
)


# =========================================================================== rem4

def _rem4(lam_form):
    """Hessian of F = ℓ_sym(d(a⁻+a⁺)g(b)) at a⁻ = −a⁺ equals v vᵀ with v = (dg/2)(1, 1, 0), so its
    only nonzero eigenvalue is |v|² = d²g²/2."""
    def parts():
        s = S()
        sp, d, b = s["sp"], s["d"], s["b"]
        am, ap = sp.symbols("a_m a_p", real=True)
        F = s["ell_sym"].subs(s["s"], d * (am + ap) * s["g"])
        H = sp.hessian(F, (am, ap, b)).subs(am, -ap)
        v = sp.Matrix([1, 1, 0]) * d * s["g"] / 2
        return H, v

    return symbolic.all_of("hessian_at_minimisers", (
        symbolic.identity("H_equals_vvT", lambda: sum(e ** 2 for e in (parts()[0] - parts()[1] *
                                                                       parts()[1].T)), 0),
        symbolic.identity("lambda_max", lambda: (parts()[1].T * parts()[1])[0, 0],
                          lambda: lam_form()),
        symbolic.identity("at_b0", lambda: (S()["d"] ** 2 * S()["g"] ** 2 / 2).subs(S()["b"], 0),
                          lambda: S()["d"] ** 2 / (4 * _sp().pi)),
    ))


REM4 = Claim(
    id="ahn2023.rem4",
    source=PAPER.at("Remark 4, App. E.3"),
    title="Sharpness at the global minimisers is ½d²g(b)²",
    statement=r"\nabla^2F = \frac{d^2g(b)^2}{4}\begin{pmatrix}1&1&0\\1&1&0\\0&0&0\end{pmatrix},"
              r"\ \lambda_{max} = \tfrac12 d^2g(b)^2 \ (= d^2/(4\pi) \text{ at } b = 0)",
    hypotheses=(r"a^- + a^+ = 0",),
    uses=("ahn2023.fact9", "ahn2023.lem2", "ahn2023.fact6.gd"),
    expect="proved",
    checks=(_rem4(lambda: S()["d"] ** 2 * S()["g"] ** 2 / 2),),
    planted=(Planted("p1", "λ_max = ¼d²g(b)²", _rem4(lambda: S()["d"] ** 2 * S()["g"] ** 2 / 4)),
             Planted("p2", "λ_max = ½d g(b)²", _rem4(lambda: S()["d"] * S()["g"] ** 2 / 2))),
)
