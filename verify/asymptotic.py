"""Asymptotic rates and hidden constants: log-log fits on geometric grids, with standard errors.

A measurement is a :class:`Series` (control variable x, quantity y, plus notes on the runs).
``rate`` compares the fitted exponent with a prediction within a stated tolerance τ; ``bounded``
tests an O(.) / Ω(.) statement through the slope of the ratio R = X/Y. Points that are not finite
or positive (diverged runs, values under the precision floor) are dropped and counted; too few left
makes the check inconclusive, never a pass.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .claim import Check, Context, Evidence, Status, outcome


@dataclass(frozen=True)
class Series:
    x: np.ndarray
    y: np.ndarray
    notes: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "x", np.asarray(self.x, dtype=float))
        object.__setattr__(self, "y", np.asarray(self.y, dtype=float))
        if self.x.shape != self.y.shape:
            raise ValueError(f"Series: x has shape {self.x.shape} but y has {self.y.shape}")


@dataclass(frozen=True)
class Fit:
    """Least-squares fit of log y = slope * log x + intercept (after dividing out a log factor)."""

    slope: float
    stderr: float
    intercept: float
    r2: float
    n: int

    @property
    def constant(self) -> float:
        """The fitted leading constant C in y ~ C x^slope."""
        return math.exp(self.intercept)

    def as_data(self) -> dict:
        return {"slope": self.slope, "stderr": self.stderr, "constant": self.constant,
                "r2": self.r2, "points": self.n}


def fit_power(x: Any, y: Any) -> Fit:
    """Ordinary least squares on (log x, log y); stderr is the usual slope standard error."""
    lx, ly = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    n = len(lx)
    if n < 3:
        raise ValueError(f"a rate fit needs at least 3 points, got {n}")
    A = np.vstack([lx, np.ones(n)]).T
    coef, *_ = np.linalg.lstsq(A, ly, rcond=None)
    resid = ly - A @ coef
    sxx = float(np.sum((lx - lx.mean()) ** 2))
    dof = max(n - 2, 1)
    sigma2 = float(resid @ resid) / dof
    stderr = math.sqrt(sigma2 / sxx) if sxx > 0 else math.inf
    sst = float(np.sum((ly - ly.mean()) ** 2))
    r2 = 1.0 - float(resid @ resid) / sst if sst > 0 else 1.0
    return Fit(float(coef[0]), stderr, float(coef[1]), r2, n)


def geometric_grid(lo: float, hi: float, n: int) -> np.ndarray:
    """n points from lo to hi, equally spaced in log (ascending)."""
    return np.exp(np.linspace(math.log(lo), math.log(hi), n))


def _clean(series: Series, log_factor: Callable[[np.ndarray], np.ndarray] | None):
    y = series.y.copy()
    if log_factor is not None:
        y = y / log_factor(series.x)
    keep = np.isfinite(series.x) & np.isfinite(y) & (series.x > 0) & (y > 0)
    return series.x[keep], y[keep], int((~keep).sum())


def _points(x: np.ndarray, y: np.ndarray) -> list:
    return [[float(a), float(b)] for a, b in zip(x, y)]


def rate(name: str, measure: Callable[[Context], Series], exponent: float, tol: float, *,
         mode: str = "equal", log_factor: Callable[[np.ndarray], np.ndarray] | None = None,
         law: str = "", min_points: int = 5, kind: str = "RATE") -> Check:
    """Fit y ~ C x^p on the measured series and compare p with ``exponent``.

    ``mode``: ``"equal"`` (|p - exponent| <= tol), ``"at_least"`` (p >= exponent - tol) or
    ``"at_most"`` (p <= exponent + tol). ``log_factor(x)`` is divided out of y before fitting
    (e.g. ``lambda eta: np.log(1/eta)`` for a log(1/η)/η² law). A fit whose standard error exceeds
    tol/2 cannot separate the prediction from a planted exponent and is inconclusive.
    """
    if mode not in ("equal", "at_least", "at_most"):
        raise ValueError(f"mode must be equal, at_least or at_most; got {mode!r}")

    def run(ctx: Context) -> Evidence:
        series = measure(ctx)
        x, y, dropped = _clean(series, log_factor)
        data: dict = {"predicted": exponent, "tolerance": tol, "mode": mode, "dropped_points": dropped,
                      "seed": ctx.seed, **series.notes}
        if len(x) < min_points:
            return outcome(Status.INCONCLUSIVE,
                           f"only {len(x)} usable points (need {min_points}; {dropped} dropped as "
                           f"non-finite or below the precision floor): extend the grid or raise the "
                           f"step budget", **data, series=_points(series.x, series.y))
        fit = fit_power(x, y)
        data.update(fit.as_data(), series=_points(x, y))
        what = f"fitted exponent {fit.slope:.4f} ± {fit.stderr:.4f} (R² {fit.r2:.4f}, {fit.n} points)"
        target = {"equal": f"= {exponent:.4g} ± {tol}", "at_least": f">= {exponent:.4g} - {tol}",
                  "at_most": f"<= {exponent:.4g} + {tol}"}[mode]
        if law:
            what = f"{law}: {what}"
        if fit.stderr > tol / 2:
            return outcome(Status.INCONCLUSIVE, f"{what}; too noisy to test {target} "
                           f"(stderr > tol/2): use a longer grid or more precision", **data)
        ok = {"equal": abs(fit.slope - exponent) <= tol,
              "at_least": fit.slope >= exponent - tol,
              "at_most": fit.slope <= exponent + tol}[mode]
        status = Status.SUPPORTED if ok else Status.REFUTED
        return outcome(status, f"{what}; predicted {target}", **data)

    return Check(name, run, kind)


def bounded(name: str, measure: Callable[[Context], Series], tol: float, *, side: str = "upper",
            toward: str = "zero", law: str = "", min_points: int = 5, kind: str = "RATE") -> Check:
    """Hidden-constant statements on a ratio R(x) = X/Y measured on a grid.

    ``side="upper"``: X <= O(Y), i.e. R stays bounded as x -> ``toward`` (0 or ∞);
    ``side="lower"``: X >= Ω(Y), i.e. R stays bounded away from 0; ``"both"``: X ≍ Y.
    Tested through the slope of log R against log x with tolerance τ; max R (and min R) are
    reported as the empirical constants.
    """
    if side not in ("upper", "lower", "both") or toward not in ("zero", "infinity"):
        raise ValueError("side must be upper/lower/both and toward zero/infinity")

    def run(ctx: Context) -> Evidence:
        series = measure(ctx)
        x, r, dropped = _clean(series, None)
        data: dict = {"tolerance": tol, "side": side, "toward": toward, "dropped_points": dropped,
                      "seed": ctx.seed, **series.notes}
        if len(x) < min_points:
            return outcome(Status.INCONCLUSIVE, f"only {len(x)} usable points (need {min_points})",
                           **data, series=_points(series.x, series.y))
        fit = fit_power(x, r)
        # growth of R toward the limit: positive means R blows up there
        growth = -fit.slope if toward == "zero" else fit.slope
        data.update(fit.as_data(), growth_toward_limit=growth, max_ratio=float(r.max()),
                    min_ratio=float(r.min()), series=_points(x, r))
        if fit.stderr > tol / 2:
            return outcome(Status.INCONCLUSIVE, f"ratio slope {fit.slope:.4f} ± {fit.stderr:.4f}: too "
                           f"noisy for tolerance {tol}", **data)
        upper_ok = growth <= tol
        lower_ok = growth >= -tol
        ok = {"upper": upper_ok, "lower": lower_ok, "both": upper_ok and lower_ok}[side]
        prefix = f"{law}: " if law else ""
        summary = (f"{prefix}ratio R in [{r.min():.4g}, {r.max():.4g}] over {len(x)} points; "
                   f"log-slope toward the limit {growth:+.4f} ± {fit.stderr:.4f} (tolerance {tol})")
        return outcome(Status.SUPPORTED if ok else Status.REFUTED, summary, **data)

    return Check(name, run, kind)
