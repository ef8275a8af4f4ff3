"""Θ(·) statements by slopes: X = Θ(Y) means the ratio R = X/Y has log-slope 0 along every axis.

A band test ("max R / min R ≤ 10 over the settings") accepts R ∝ γ⁰, γ¹ and γ² alike over one
decade and never looks at the constant. :func:`theta_by_slopes` instead fits log R against log x
along each axis on which the settings vary (γ, batch size, ln(1/α), a residual norm, ...) under the
engine's fit rules (:func:`verify.asymptotic.assess`: at least 8 points over at least 1.5 decades,
R² ≥ 0.95 when a trend is claimed, the local-slope drift added to the uncertainty): every slope
must be 0 within the stated tolerance τ for the whole interval slope ± u, a slope whose interval
lies outside ±τ refutes, and anything else decides nothing (inconclusive, naming the knob to turn).
The constant of the Θ(·) — the level of R — is reported with its error bar (geometric mean of R
over all settings, with the standard error of the mean of log R), under the evidence keys
``leading_constant`` / ``leading_constant_stderr`` that reports read.
"""
from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np

from .asymptotic import _UNDECIDED, _decide, assess
from .claim import Evidence, Status, outcome


def leading_constant(ratios: Sequence[float]) -> tuple[float, float]:
    """Geometric mean of positive ratios and its standard error (delta method on mean log R)."""
    lr = np.log(np.asarray(ratios, float))
    c = float(math.exp(lr.mean()))
    se = float(c * lr.std(ddof=1) / math.sqrt(len(lr))) if len(lr) > 1 else math.inf
    return c, se


def _axis(x: np.ndarray, r: np.ndarray, tol: float, toward: str) -> tuple[dict, Status]:
    """One axis judged by the engine's fit rules: slope of log R on log x within 0 ± tol."""
    a = assess(x, r, toward)
    row: dict = {"points": int(len(x)), "decades": a.decades}
    if a.fit is not None:
        c_axis, se_axis = leading_constant(r)
        row.update(slope=a.fit.slope, stderr=a.fit.stderr, r2=a.fit.r2, estimate=a.estimate,
                   uncertainty=a.uncertainty, local_slope_drift=a.drift,
                   ratio_range=[float(r.min()), float(r.max())], constant=c_axis,
                   constant_stderr=se_axis)
    if a.refusal is not None:
        row.update(verdict=str(Status.INCONCLUSIVE), refusal=a.refusal)
        return row, Status.INCONCLUSIVE
    st = _decide(a.estimate - a.uncertainty, a.estimate + a.uncertainty, -tol, tol)
    row["verdict"] = str(st)
    if st == Status.INCONCLUSIVE:
        row["refusal"] = _UNDECIDED
    return row, st


def _shown(label: str, v: dict) -> str:
    if "slope" not in v:
        return f"{label}: {v['points']} points over {v['decades']:.2f} decades"
    return (f"{label}: slope {v['estimate']:+.3f} ± {v['uncertainty']:.3f} (fit {v['slope']:+.3f}, "
            f"drift {v['local_slope_drift']:+.3f}) over {v['points']} points, {v['decades']:.2f} decades")


def theta_by_slopes(axes: Mapping[str, tuple[Sequence[float], Sequence[float]]], tol: float, *,
                    law: str = "R = X/Y", pool: bool = True,
                    toward: Mapping[str, str] | None = None) -> Evidence:
    """``axes``: label -> (x, R) with R = X/Y measured along that axis (other parameters fixed).

    Each axis is judged by :func:`verify.asymptotic.assess` (module doc): supported iff on every
    axis the whole interval slope ± u lies within ±``tol``; refuted if on some axis it lies wholly
    outside; inconclusive otherwise (a grid, R² or uncertainty rule not met: the summary names the
    knob). ``toward``: label -> limit of x ("zero", the default, or "infinity"), which says which half
    of the grid the drift rule extrapolates toward. Each axis reports its own constant;
    ``pool=False`` when the axes measure different Θ-constants (e.g. GD and SGD), so that no pooled
    ``leading_constant`` is reported.
    """
    toward = dict(toward or {})
    rows, all_r, verdicts = {}, [], []
    for label, (x, r) in axes.items():
        x, r = np.asarray(x, float), np.asarray(r, float)
        keep = np.isfinite(x) & np.isfinite(r) & (x > 0) & (r > 0)
        x, r = x[keep], r[keep]
        all_r.extend(r.tolist())
        rows[label], st = _axis(x, r, tol, toward.get(label, "zero"))
        verdicts.append(st)
    status = min(verdicts) if verdicts else Status.INCONCLUSIVE
    c, se = leading_constant(all_r) if all_r else (math.nan, math.nan)
    worst = max((abs(v["estimate"]) for v in rows.values() if "estimate" in v), default=math.nan)
    shown = "; ".join(_shown(k, v) for k, v in rows.items())
    if pool:
        summary = f"{law} by slopes (Θ: every slope 0 ± {tol}): {shown}; constant {c:.4g} ± {se:.2g}"
    else:
        summary = f"{law} by slopes (Θ: every slope 0 ± {tol}): {shown}; constants " + ", ".join(
            f"{k} {v['constant']:.4g} ± {v['constant_stderr']:.2g}" for k, v in rows.items() if "constant" in v)
    if status == Status.INCONCLUSIVE:
        summary += " — undecided: " + "; ".join(f"{k}: {v['refusal']}" for k, v in rows.items()
                                               if v["verdict"] == str(Status.INCONCLUSIVE))
    extra = {"leading_constant": c, "leading_constant_stderr": se} if pool else {}
    return outcome(status, summary, axes=rows, tolerance=tol, max_abs_slope=worst, **extra)
