"""The catalogue losses of Ahn et al. (2023), spec ``def5`` (§1.2, footnote 2; App. C, Example 1).

Each is a :class:`verify.loss.Loss` given by its exact sympy forms ℓ and ℓ'; the float64 (numba) and
double-double evaluators the GD paths use are generated from ℓ' (:mod:`verify.kernels`), so there is
one loss model and nothing written by hand per loss. ``beta`` is the exponent of (A2): 2 for ℓ_rsym
and ℓ_sqrt (Example 1), +∞ for ℓ_Hub, β for ℓ_β; unknown (None) for ℓ_logi, which is not even, and
for ℓ_sym, which is not normalised (ℓ_sym''(0) = 1/4).
"""
from __future__ import annotations

import dataclasses
import math
from functools import lru_cache

import sympy as sp

from verify.loss import S, Loss, LossFamily

s = S


# ---------------------------------------------------------------- the catalogue (def5)
RSYM = Loss(
    name="rsym", label=r"\ell_{\mathrm{rsym}}", beta=2.0, c=sp.Rational(1, 4), C=sp.Rational(1, 3),
    l=sp.log(2 * sp.cosh(s)), dl=sp.tanh(s),
    notes="def5.rsym: ℓ_rsym(s) = log(2 cosh s) = ℓ_sym(2s); ℓ' = tanh; (A2) with β = 2, c = 1/4",
)

SYM = Loss(
    name="sym", label=r"\ell_{\mathrm{sym}}", beta=None,
    l=sp.log(1 + sp.exp(-s)) / 2 + sp.log(1 + sp.exp(s)) / 2, dl=sp.tanh(s / 2) / 2,
    notes="def5.sym: ℓ_sym' = tanh(s/2)/2 and ℓ_sym''(0) = 1/4, so not normalised as (A1) requires",
)

SQRT = Loss(
    name="sqrt", label=r"\ell_{\mathrm{sqrt}}", beta=2.0, c=sp.Rational(2, 5), C=sp.Rational(1, 2),
    l=sp.sqrt(1 + s**2), dl=s / sp.sqrt(1 + s**2),
    notes="def5.sqrt: ℓ_sqrt(s) = sqrt(1 + s^2); (A2) with β = 2, c = 2/5",
)

HUBER = Loss(
    name="huber", label=r"\ell_{\mathrm{Hub}}", beta=math.inf,
    l=sp.Piecewise((s**2 / 2, sp.Abs(s) <= 1), (sp.Abs(s) - sp.Rational(1, 2), True)),
    dl=sp.Piecewise((s, sp.Abs(s) <= 1), (sp.sign(s), True)),
    notes="def5.hub: ℓ_Hub' = s on [-1, 1], sgn s outside; (A2) only with β = +∞",
)

LOGI = Loss(
    name="logi", label=r"\ell_{\mathrm{logi}}", beta=None,
    l=sp.log(1 + sp.exp(-s)), dl=-1 / (1 + sp.exp(s)),
    notes="def5.logi: logistic loss log(1 + e^{-s}); not even",
)


def c_beta(beta: sp.Expr) -> sp.Expr:
    """c_β = (1/(β+1)) (β/(β+1))^β (def5.beta)."""
    return (beta / (beta + 1)) ** beta / (beta + 1)


def r_beta(beta: sp.Expr) -> sp.Expr:
    """r_β = (β+1)/β, the point where ℓ_β' reaches 1 (def5.beta)."""
    return (beta + 1) / beta


THETA = sp.Symbol("beta", positive=True)
"""The parameter β of the family ℓ_β."""


def _beta_forms(beta: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """(ℓ_β', ℓ_β) of def5.beta; ℓ_β(0) = 0 and continuity at |s| = r_β fix the affine tail."""
    c, r = c_beta(beta), r_beta(beta)
    dl = sp.Piecewise((s * (1 - c * sp.Abs(s) ** beta), s**2 < r**2), (sp.sign(s), True))
    l_in = s**2 / 2 - c * sp.Abs(s) ** (beta + 2) / (beta + 2)
    l_out = sp.Abs(s) - r + (r**2 / 2 - c * r ** (beta + 2) / (beta + 2))
    return dl, sp.Piecewise((l_in, s**2 < r**2), (l_out, True))


BETA = LossFamily(
    "beta={value}", THETA, *_beta_forms(THETA), beta=THETA, c=c_beta(THETA), C=c_beta(THETA),
    label=r"\ell_{{\beta={value}}}",
    notes="def5.beta: ℓ_β' = s(1 − c_β|s|^β) for |s| < r_β, sgn s beyond; (A2) with β and c = c_β, "
          "(A3) with the sharp C = c_β (ex1.beta_a3)",
)
"""ℓ_β as one family: an exact β gives the loss of the substituted expressions (every non-integer β
compiles to the same kernel, c_β, β, r_β² being its parameters); a float β (a hypothesis draw) gives a
member evaluated from the family's forms with β as an argument."""


def beta_loss(beta) -> Loss:
    """ℓ_β (def5.beta): exact (a sympy Rational) for int/str/Rational β, a float member for a float β."""
    if not isinstance(beta, (float, sp.Basic)):
        beta = sp.Rational(beta)
    if not (beta > 1):
        raise ValueError(f"ℓ_β needs β > 1, got {beta}")
    return BETA.at(beta)


CATALOGUE = {"rsym": RSYM, "sym": SYM, "sqrt": SQRT, "huber": HUBER, "logi": LOGI}


def loss_by_key(key: str) -> Loss:
    """``rsym``, ``sym``, ``sqrt``, ``huber``, ``logi`` or ``beta=<p/q>``."""
    if key.startswith("beta="):
        return beta_loss(key.split("=", 1)[1])
    return CATALOGUE[key]


# ================================================================ shared runs for the §2 claims
# (helpers used by sec2_gf_regime, sec2_eos_regime and appA_figures; cached so that a claim's
# check and its planted errors reuse the same simulations)
import numpy as np  # noqa: E402

from verify import Check, Context, Evidence, Status  # noqa: E402
from verify import dynamics  # noqa: E402
from verify.asymptotic import Series  # noqa: E402
from verify.claim import all_checks, outcome  # noqa: E402

from claims.ahn2023._lane_observers import SLOTS, run_observed  # noqa: E402

XT, YT = 0.75, 1.25  # the fixed normalised start (x̃, ỹ) of spec E7; ỹ² − x̃² = 1
MAX_STEPS = 2 * 10**8


def k_grid(lo: float, hi: float, step: float) -> tuple[float, ...]:
    """k values of the grid η = e^{-k} (spec E7), lo..hi inclusive."""
    n = int(round((hi - lo) / step)) + 1
    return tuple(round(lo + i * step, 6) for i in range(n))


def _stop_rule(rtol: float = 1e-13, xtol: float = 0.0, s_c: float = 0.5, s_eps: float = 0.0) -> tuple:
    return (("max_steps", MAX_STEPS), ("rtol", rtol), ("s_c", s_c), ("s_eps", s_eps), ("xtol", xtol))


def _window(eta: np.ndarray, qs: tuple, qs_beta) -> tuple:
    """``lanes``' quasi-static window on the grid ``eta``: (lo per lane, hi, shift per lane, power)."""
    K, e, hi, shift = qs
    return K * eta**e, hi, shift * eta**e, qs_beta


_OBSERVED: dict = {}
"""(loss key, m, stop rule) → the observers ``(qs, qs_beta, contraction)`` that claims declared
(:func:`observe`): :func:`lanes` runs them all in one pass over a lane (:mod:`._lane_observers`)."""


def observe(key: str, m: float, qs: tuple | None = None, qs_beta: float | None = None,
            contraction: bool = False, **stop) -> None:
    """Declare that a claim will ask :func:`lanes` for these observers (a claim's construction
    declares them: see ``_eos_sweeps.measure``), so that the first claim that runs a lane records them
    for all; results do not depend on it (every observer's values are those of its own run)."""
    if qs is not None or contraction:
        _OBSERVED.setdefault((key, m, _stop_rule(**stop)), {})[(qs, qs_beta, contraction)] = None


@lru_cache(maxsize=None)
def lanes(key: str, ks: tuple, m: float, qs: tuple | None = None, qs_beta: float | None = None,
          rtol: float = 1e-13, xtol: float = 0.0, s_c: float = 0.5, s_eps: float = 0.0,
          contraction: bool = False) -> dynamics.Lanes:
    """GD from the normalised start √(m/η)(x̃, ỹ) for η = e^{-k}, k in ``ks`` (cached).

    ``qs = (K, e, hi, shift)`` asks for the quasi-static ratio |s|^b/(δ + shift·η^e) over
    bouncing steps with K·η^e ≤ δ ≤ hi (b = ``qs_beta``, default the loss's β)."""
    loss = loss_by_key(key)
    eta = np.exp(-np.asarray(ks, float))
    x0, y0 = dynamics.normalised_start(eta, m, XT, YT)
    kw = {}
    if qs is not None:
        lo, hi, shift, b = _window(eta, qs, qs_beta)
        kw.update(qs_window=(lo, hi), qs_shift=shift, beta=b)
    plain = (qs is None and qs_beta is None and rtol == 1e-13 and xtol == 0.0 and s_c == 0.5
             and s_eps == 0.0 and not contraction)
    if plain and (key, ks, m) in _PREFETCHED:
        return _PREFETCHED.pop((key, ks, m))
    if plain:
        _COMPUTED.add((key, ks, m))
    stop = _stop_rule(rtol, xtol, s_c, s_eps)
    also = [(None if q is None else _window(eta, q, qb), c) for q, qb, c in _OBSERVED.get((key, m, stop), ())]
    return run_by_lane(loss, x0, y0, eta, contraction=contraction, share=key, also=also, **dict(stop), **kw)


def run_by_lane(loss, x0, y0, eta, *, qs_window: tuple | None = None, qs_shift=0.0, beta=None,
                contraction: bool = False, share: str | None = None, also=(), **kw) -> dynamics.Lanes:
    """:func:`verify.dynamics.run` one lane at a time, the results joined in input order.

    Why lane by lane: the compiled engine steps a fixed set of slots (as many as lanes, up to 64)
    until the last lane stops, so a sweep over η = e^{-k} — each lane ~e^{k}–e^{4k} steps, the last
    one about half of the total — spends most of its time stepping empty slots behind its longest
    lane (the qs sweep of ℓ_{3/2} on k ∈ [1, 6]: 25 s in one call, 5.6 s lane by lane). A lane's
    arithmetic never depends on the other lanes (:mod:`verify.dynamics.lanes`): bit-identical results.

    ``share`` (the loss's catalogue key) keeps every lane in :data:`_LANE_RUNS`, so that claims asking
    for the same lane — the same start, η and stop rule, on another grid or with other observers —
    reuse it; ``also`` (``[((lo, hi, shift, power) or None, contraction), ...]``, lo and shift per
    lane) are observers to record in the same pass (see :func:`_one_lane`)."""
    x0, y0, eta = (np.atleast_1d(np.asarray(v, float)) for v in (x0, y0, eta))
    n = max(len(x0), len(y0), len(eta))
    x0, y0, eta = (np.broadcast_to(v, (n,)) for v in (x0, y0, eta))
    stop = tuple(sorted(kw.items()))

    def window(w, i):
        lo, hi, shift, b = w
        return (float(np.broadcast_to(lo, (n,))[i]), hi, float(np.broadcast_to(shift, (n,))[i]), b)

    want = None if qs_window is None else (qs_window[0], qs_window[1], qs_shift, beta)
    parts = []
    for i in range(n):
        others = [(None if w is None else window(w, i), bool(c)) for w, c in also]
        parts.append(_one_lane(loss, share, (float(x0[i]), float(y0[i]), float(eta[i])), stop,
                               None if want is None else window(want, i), bool(contraction), others))
    joined = {f.name: np.concatenate([getattr(p, f.name) for p in parts])
              for f in dataclasses.fields(dynamics.Lanes) if f.name != "notes"}
    return dynamics.Lanes(**joined, notes=dict(parts[0].notes))


_LANE_RUNS: dict = {}
"""(loss key, (x₀, y₀, η), stop rule) → {(qs window, contraction): one-lane Lanes}."""

# what a run without the optional observers records in their fields (verify.dynamics.lxy): no
# quasi-static steps counted (min/max NaN), no contraction step (min +inf)
_NO_QS = {"qs_count": 0, "qs_min": math.nan, "qs_max": math.nan}
_NO_CONTRACTION = {"contraction_min": math.inf}


def _without(r: dynamics.Lanes, fields: dict) -> dynamics.Lanes:
    return dataclasses.replace(r, **{f: np.full(1, v, getattr(r, f).dtype) for f, v in fields.items()})


def _one_lane(loss, share, start: tuple, stop: tuple, qs, contraction: bool, also=()) -> dynamics.Lanes:
    """One lane, from :data:`_LANE_RUNS` when this process has run it. The optional observers (the
    quasi-static ratio, the contraction minimum) only read the trajectory, so one pass records the
    asked one and those in ``also`` not yet recorded (:func:`._lane_observers.run_observed`), and a
    lane asked for without them is any recorded run with their fields reset to what a run without
    them records (``tests/test_ahn2023_lane_sharing.py`` checks both against fresh runs)."""
    x0, y0, eta = start
    runs = _LANE_RUNS.setdefault((share, start, stop), {}) if share is not None else {}
    hit = runs.get((qs, contraction))
    if hit is not None:
        return hit
    if qs is None and not contraction and runs:
        return _without(next(iter(runs.values())), {**_NO_QS, **_NO_CONTRACTION})
    wanted = [(qs, contraction)] + [o for o in also if o not in runs]
    windows = list(dict.fromkeys(w for w, _ in wanted if w is not None))[:SLOTS]
    if share is None or not windows:
        kw = {} if qs is None else {"qs_window": (np.array([qs[0]]), qs[1]), "qs_shift": np.array([qs[2]]),
                                    "beta": qs[3]}
        r = dynamics.run(loss, [x0], [y0], [eta], contraction=contraction, **dict(stop), **kw)
        runs[(qs, contraction)] = r
        return r
    track = any(c for _, c in wanted)
    for w, r in zip(windows, run_observed(loss, x0, y0, eta, windows, contraction=track, **dict(stop))):
        runs.setdefault((w, track), r)
        runs.setdefault((w, False), _without(r, _NO_CONTRACTION))
        runs.setdefault((None, track), _without(r, _NO_QS))
        runs.setdefault((None, False), _without(r, {**_NO_QS, **_NO_CONTRACTION}))
    return runs[(qs, contraction)]


_PREFETCHED: dict = {}   # sweeps computed by prefetch_lanes (possibly elsewhere), not yet asked for
_COMPUTED: set = set()   # plain sweeps computed in this process (lanes' lru_cache holds them)


def _lanes_task(run: tuple) -> dynamics.Lanes:
    """One (loss key, k grid, m) sweep: a task for ``ctx.map`` (module level, so it can travel)."""
    return lanes(*run)


def prefetch_lanes(ctx: Context, runs) -> None:
    """Compute the plain sweeps ``runs = [(key, ks, m), ...]`` that this process has not cached yet
    as independent tasks through ``ctx.map`` (in parallel when the claim runs with a pool); the
    results are those :func:`lanes` would compute here, and it returns them from now on."""
    todo = [r for r in dict.fromkeys(runs) if r not in _PREFETCHED and r not in _COMPUTED]
    if len(todo) > 1:
        for run, result in zip(todo, ctx.map(_lanes_task, todo)):
            _PREFETCHED[run] = result


def prefetched(check: Check, runs_of) -> Check:
    """``check`` after :func:`prefetch_lanes` of ``runs_of(ctx)``: the same evidence; a claim run
    alone with a pool (``check ID --workers N``) computes its loss sweeps side by side."""

    def run(ctx: Context) -> Evidence:
        prefetch_lanes(ctx, runs_of(ctx))
        return check.run(ctx)

    return Check(check.name, run, check.kind)


@lru_cache(maxsize=None)
def hp_agreement(key: str, ks: tuple, m: float, k_max_dd: float = 3.0, tol: float = 1e-4) -> dict:
    """Cross-check a sweep against high precision: the ≥30-digit arb path on the large-η lanes
    (k ≤ 2, short runs) and the compiled double-double path (~31.9 digits) on every lane with
    k ≤ ``k_max_dd``. Agreement is judged on the gap 2/η − y_∞² (the fitted quantity), relative
    tolerance ``tol`` (1e-4: the fits need ~1e-3; float64 rounding over ~1e6 steps gives ~1e-5).
    Returns evidence data; ``hp_agree`` False means the check is inconclusive."""
    loss = loss_by_key(key)
    out: dict = {}
    agree = True
    for label, sub, backend in (("arb", tuple(k for k in ks if k <= 2.0) or ks[:1], "auto"),
                                ("dd", tuple(k for k in ks if k <= k_max_dd), "dd")):
        if not sub or (backend == "dd" and loss.compiled_dl_dd() is None):
            continue
        eta = np.exp(-np.asarray(sub, float))
        x0, y0 = dynamics.normalised_start(eta, m, XT, YT)
        cc = dynamics.cross_check(loss, x0, y0, eta, tol=tol, dps=30, max_steps=MAX_STEPS, backend=backend,
                                  on="gap")
        agree &= cc.agree
        out[f"hp_{label}"] = {**cc.as_data(), "k_max": max(sub)}
    out["hp_agree"] = bool(agree)
    out["hp_tolerance"] = tol
    return out


def combine(name: str, checks: dict, kind: str) -> Check:
    """One check made of labelled sub-checks (e.g. one per loss); see :func:`verify.claim.all_checks`."""
    return all_checks(name, checks, kind)


def guarded(check: Check, key: str, ks_of: callable, m: float) -> Check:
    """Run the high-precision cross-checks on the sweep first (:func:`hp_agreement`; quick: dd on
    k ≤ 3, full: k ≤ 4); a disagreement makes the check INCONCLUSIVE; otherwise the agreement
    numbers are added to the evidence."""

    def run(ctx: Context) -> Evidence:
        hp = hp_agreement(key, ks_of(ctx), m, ctx.pick(3.0, 4.0))
        if not hp["hp_agree"]:
            return outcome(Status.INCONCLUSIVE, f"float64 and high-precision runs disagree beyond "
                           f"{hp['hp_tolerance']:.0e} (relative, y_inf^2) or in outcome/crossing", **hp)
        ev = check(ctx)
        return Evidence(ev.check, ev.status, ev.summary, {**dict(ev.data), **hp})

    return Check(check.name, run, check.kind)
