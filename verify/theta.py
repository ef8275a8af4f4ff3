"""Θ(·) statements by slopes: X = Θ(Y) means the ratio R = X/Y has log-slope 0 along every axis.

A band test ("max R / min R ≤ 10 over the settings") accepts R ∝ γ⁰, γ¹ and γ² alike over one
decade and never looks at the constant. :func:`theta_by_slopes` instead fits log R against log x
along each axis on which the settings vary (γ, batch size, ln(1/α), a residual norm, ...): every
slope must be 0 within the stated tolerance τ, and a slope whose standard error exceeds τ/2 decides
nothing (inconclusive). The constant of the Θ(·) — the level of R — is reported with its error bar
(geometric mean of R over all settings, with the standard error of the mean of log R), under the
evidence keys ``leading_constant`` / ``leading_constant_stderr`` that reports read.
"""
from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np

from .asymptotic import fit_power
from .claim import Evidence, Status, outcome


def leading_constant(ratios: Sequence[float]) -> tuple[float, float]:
    """Geometric mean of positive ratios and its standard error (delta method on mean log R)."""
    lr = np.log(np.asarray(ratios, float))
    c = float(math.exp(lr.mean()))
    se = float(c * lr.std(ddof=1) / math.sqrt(len(lr))) if len(lr) > 1 else math.inf
    return c, se


def theta_by_slopes(axes: Mapping[str, tuple[Sequence[float], Sequence[float]]], tol: float, *,
                    law: str = "R = X/Y", min_points: int = 3, pool: bool = True) -> Evidence:
    """``axes``: label -> (x, R) with R = X/Y measured along that axis (other parameters fixed).

    Supported iff every axis has |slope| ≤ ``tol`` (with stderr ≤ tol/2); refuted if some slope is
    outside the tolerance; inconclusive if some axis has too few points or too noisy a fit. Each
    axis reports its own constant; ``pool=False`` when the axes measure different Θ-constants (e.g.
    GD and SGD), so that no pooled ``leading_constant`` is reported.
    """
    rows, all_r, verdicts = {}, [], []
    for label, (x, r) in axes.items():
        x, r = np.asarray(x, float), np.asarray(r, float)
        keep = np.isfinite(x) & np.isfinite(r) & (x > 0) & (r > 0)
        x, r = x[keep], r[keep]
        all_r.extend(r.tolist())
        if len(x) < min_points:
            rows[label] = {"points": int(len(x)), "verdict": "inconclusive"}
            verdicts.append(Status.INCONCLUSIVE)
            continue
        fit = fit_power(x, r)
        decades = float(math.log10(x.max() / x.min()))
        if fit.stderr > tol / 2:
            st = Status.INCONCLUSIVE
        else:
            st = Status.SUPPORTED if abs(fit.slope) <= tol else Status.REFUTED
        verdicts.append(st)
        c_axis, se_axis = leading_constant(r)
        rows[label] = {"slope": fit.slope, "stderr": fit.stderr, "r2": fit.r2, "points": fit.n,
                       "decades": decades, "ratio_range": [float(r.min()), float(r.max())],
                       "constant": c_axis, "constant_stderr": se_axis, "verdict": str(st)}
    status = min(verdicts) if verdicts else Status.INCONCLUSIVE
    c, se = leading_constant(all_r) if all_r else (math.nan, math.nan)
    worst = max((abs(v["slope"]) for v in rows.values() if "slope" in v), default=math.nan)
    shown = "; ".join(f"{k}: slope {v['slope']:+.3f} ± {v['stderr']:.3f} over {v['decades']:.2f} decades"
                      if "slope" in v else f"{k}: {v['points']} points" for k, v in rows.items())
    if pool:
        summary = f"{law} by slopes (Θ: every slope 0 ± {tol}): {shown}; constant {c:.4g} ± {se:.2g}"
    else:
        summary = f"{law} by slopes (Θ: every slope 0 ± {tol}): {shown}; constants " + ", ".join(
            f"{k} {v['constant']:.4g} ± {v['constant_stderr']:.2g}" for k, v in rows.items() if "constant" in v)
    if status == Status.INCONCLUSIVE:
        summary += " — too few points or too noisy a fit on some axis: add settings along it"
    extra = {"leading_constant": c, "leading_constant_stderr": se} if pool else {}
    return outcome(status, summary, axes=rows, tolerance=tol, max_abs_slope=worst, **extra)
