"""Audit of a loss given only by callables (ℓ', ℓ''): float evidence, verdicts at most ``supported``.
"""
from __future__ import annotations

import numpy as np
from typing import Callable

from .common import INCONCLUSIVE, NA, Part, REFUTED, SUPPORTED, weakest
from .cells import _Numeric
from .a2a3 import _nice_above, _nice_below
from .applicability import _holds, _predictions
from .confirmation import _callable_loss, _confirmation
from .rendering import AuditResult


# ============================================================================ numeric-only audits
def _audit_numeric(dl: Callable, d2l: Callable, text: str, confirm: bool, seed: int) -> AuditResult:
    N = _Numeric(dl, d2l, text)
    grid = N.grid()
    pos = grid[grid > 0]
    tol = 1e-12
    parts: dict = {}

    def first_bad(pred, pts, which="dl"):
        for p in pts:
            v = N.f(which, p)
            if v is None:
                continue
            bad = pred(p, v)
            if bad is not None:
                return p, bad
        return None

    w = first_bad(lambda p, v: (v + N.f("dl", -p)) if abs(v + (N.f("dl", -p) or 0.0)) > tol * (1 + abs(v)) else None, pos)
    parts["even"] = Part(REFUTED, f"ℓ'(s) + ℓ'(−s) = {w[1]:.3g} at s = {w[0]:.6g}", {"witness": w[0], "value": w[1]}) \
        if w else Part(SUPPORTED, f"ℓ' odd at {len(pos)} float points", {"method": "numeric (float64)"})
    w = first_bad(lambda p, v: v if v < -tol else None, grid, "d2l")
    parts["convex"] = Part(REFUTED, f"ℓ''({w[0]:.6g}) = {w[1]:.3g} < 0", {"witness": w[0], "value": w[1]}) \
        if w else Part(SUPPORTED, "ℓ'' >= 0 at float points", {"method": "numeric (float64)"})
    w = first_bad(lambda p, v: v if abs(v) > 1 + tol else None, grid)
    parts["lipschitz_1"] = Part(REFUTED, f"|ℓ'({w[0]:.6g})| = {abs(w[1]):.6g} > 1", {"witness": w[0], "value": w[1]}) \
        if w else Part(SUPPORTED, "|ℓ'| <= 1 at float points", {"method": "numeric (float64)"})
    near = [N.f("d2l", sg * 10.0 ** -j) for j in (4, 6, 8) for sg in (1, -1)]
    k = N.f("d2l", 0.0)
    if k is None or any(v is None for v in near) or max(abs(v - k) for v in near) > 1e-3 * (1 + abs(k)):
        parts["c2_near_0"] = Part(REFUTED, "ℓ'' does not settle at 0 (float)", {"witness": 0.0, "value": k})
    else:
        parts["c2_near_0"] = Part(SUPPORTED, "ℓ''(±10⁻ᵏ) → ℓ''(0) (float)", {"method": "numeric (float64)"})
    if k is not None and abs(k - 1) <= 1e-9:
        parts["curvature_at_0_is_1"] = Part(SUPPORTED, f"ℓ''(0) = {k:.12g}", {"value": k})
    else:
        parts["curvature_at_0_is_1"] = Part(REFUTED, f"ℓ''(0) = {k} ≠ 1", {"witness": 0.0, "value": k})
    a1 = weakest(*(p.verdict for p in parts.values()))
    A1 = {"verdict": a1, "parts": {n: p.to_json() for n, p in parts.items()}}
    # A2: exponent from a log-log fit of 1 − ℓ'(s)/s on small s (float: s >= 1e-3 keeps cancellation low)
    s_small = np.geomspace(2e-3, 5e-2, 12)
    g = np.array([1.0 - (N.f("dl", p) or np.nan) / p for p in s_small])
    notes = ["numeric-only audit (callables): verdicts are at most supported; β comes from a float fit"]
    if np.all(np.abs(g) < 1e-13):
        beta_json, c = "inf", None
        local = Part(SUPPORTED, "1 − ℓ'(s)/s vanishes on [2e-3, 5e-2] (float): β = ∞", {})
    elif np.all(g > 0):
        from ..asymptotic import fit_power
        fit = fit_power(s_small, g)
        beta_json = round(fit.slope, 3)
        a = fit.constant
        c = _nice_below(min(a / 2, 0.5))
        pts = np.geomspace(1e-3, float(c), 40)
        ok = all((1 - (N.f("dl", p) or np.inf) / p) >= float(c) * p ** fit.slope * (1 - 1e-6) for p in pts)
        local = Part(SUPPORTED if ok else INCONCLUSIVE,
                     f"β ≈ {fit.slope:.4f} ± {fit.stderr:.4f} (float fit), c = {c}",
                     {"beta_fit": fit.slope, "stderr": fit.stderr})
        c = float(c)
    else:
        j = int(np.argmin(g))
        beta_json, c = None, None
        local = Part(REFUTED, f"ℓ'(s)/s = {1 - g[j]:.12g} > 1 at s = {s_small[j]:.4g}",
                     {"witness": float(s_small[j]), "value": float(1 - g[j])})
    gg = [(p, 1 - N.f("dl", p) / p) for p in pos if N.f("dl", p) is not None]
    bad = [(p, v) for p, v in gg if v < -1e-12]
    glob = Part(REFUTED, f"ℓ'(s)/s = {1 - bad[0][1]:.12g} > 1 at s = {bad[0][0]:.6g}", {"witness": bad[0][0]}) \
        if bad else Part(SUPPORTED, "ℓ'(s)/s <= 1 at float points", {})
    A2 = {"verdict": weakest(local.verdict, glob.verdict), "summary": local.summary, "beta": beta_json, "c": c,
          "ratio_le_1_everywhere": glob.verdict,
          "parts": {"local": local.to_json(), "ratio_le_1_everywhere": glob.to_json()}}
    if beta_json in (None, "inf"):
        A3 = {"verdict": NA if beta_json == "inf" else INCONCLUSIVE, "summary": "β = ∞" if beta_json else "β unknown",
              "C": None}
    else:
        hs = [v / p ** beta_json for p, v in gg if p >= 1e-3]
        C = max(hs)
        A3 = {"verdict": SUPPORTED, "summary": f"sup (1 − ℓ'(s)/s)/|s|^β ≈ {C:.6g} on float points",
              "C": float(_nice_above(C * 1.001))}
    tags = {"A1": a1, "A2": A2["verdict"], "A2inf": A2["verdict"] if beta_json == "inf" else REFUTED,
            "A2+": A2["verdict"], "A3": A3["verdict"]}  # numeric audits cannot see strictness
    preds = _predictions(beta_json, tags)
    conf = None
    if confirm:
        if _holds(a1) and _holds(A2["verdict"]) and beta_json is not None:

            conf = _confirmation(_callable_loss(dl, text), beta_json, seed)
        else:
            conf = {"verdict": NA, "summary": "Theorem 2 needs (A1) and (A2)"}
    return AuditResult({"expression": text, "derivative": True, "mode": "numeric (callables)"},
                       A1, A2, A3, preds, conf, None, notes)
