"""Asymptotic rates and hidden constants: log-log fits on geometric grids, with standard errors.

A measurement is a :class:`Series` (control variable x, quantity y, plus notes on the runs).
``rate`` compares the fitted exponent with a prediction within a stated tolerance τ; ``bounded``
tests an O(.) / Ω(.) statement through the slope of the ratio R = X/Y. Points that are not finite
or positive (diverged runs, values under the precision floor) are dropped and counted.

Rules every fit obeys (issue 10); a fit that breaks one is ``inconclusive`` and the summary names
the knob to turn, never a pass:

- grid: at least ``MIN_POINTS`` = 8 usable points spanning at least ``MIN_DECADES`` = 1.5 decades
  of x (``log10(max x / min x)``);
- linearity: ``R² >= MIN_R2`` = 0.95 whenever the fit claims a trend, i.e. the fitted change across
  the grid ``|slope|·ln(max x / min x)`` is at least 1 (for a flat series R² measures only noise,
  and the standard-error rule below decides);
- bias: the fit's own bias is estimated from the data as the drift of the local slope, the
  difference ``d`` between the slopes fitted on the half of the grid nearest the limit and on the
  far half. A drift within noise (``|d| <= 2·sqrt(se_near² + se_far²)``) is noise: the exponent is
  the whole-grid slope with uncertainty ``u = 2·stderr``. A larger drift is bias: the exponent is
  extrapolated toward the limit by taking the near half's slope, with
  ``u = 2·stderr_near + |d|/2`` (what is left of the bias beyond the near half is taken as at most
  half the change seen between the halves: true for corrections ∝ x^ω with ω >= 0.4 on 1.5
  decades; a slower correction shows up as a drift too large to decide);
- tolerance: a stated τ is read at the scale of an exponent of order 1 and becomes relative where
  the exponent is small, ``τ_eff = τ·min(1, |p|)`` (τ itself for p = 0, where only an absolute
  tolerance makes sense): an absolute 0.05 cannot tell 1/9 from 1/10 (β = 10), 0.05/9 can;
- decision with the uncertainty: supported iff the whole interval p̂ ± u satisfies the statement
  within τ_eff, refuted iff the whole interval violates it, inconclusive otherwise (extend the grid
  toward the limit, add points, or raise the precision).
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


MIN_POINTS = 8
MIN_DECADES = 1.5
MIN_R2 = 0.95


def effective_tolerance(exponent: float, tol: float) -> float:
    """τ·min(1, |p|): relative below exponent 1, absolute for p = 0 (module doc)."""
    return tol * min(1.0, abs(exponent)) if exponent else tol


@dataclass(frozen=True)
class Assessment:
    """A fit judged by the module's rules: the fit, its local-slope drift and uncertainty, and the
    reason it cannot decide (``None`` when it can)."""

    fit: Fit | None
    decades: float
    drift: float
    uncertainty: float
    near_slope: float
    far_slope: float
    refusal: str | None
    estimate: float = float("nan")  # the exponent decided on: whole-grid or near-half slope

    def as_data(self) -> dict:
        out = {} if self.fit is None else self.fit.as_data()
        out.update(decades=self.decades, local_slope_near_limit=self.near_slope,
                   local_slope_far=self.far_slope, local_slope_drift=self.drift,
                   estimate=self.estimate, uncertainty=self.uncertainty)
        return out


def assess(x: np.ndarray, y: np.ndarray, toward: str, min_points: int = MIN_POINTS) -> Assessment:
    """Fit log y on log x and apply the grid, R² and bias rules (module doc). ``toward`` is the
    limit of x ("zero" or "infinity"): it says which half of the grid is nearest the limit."""
    n = len(x)
    need = max(min_points, MIN_POINTS)
    decades = float(np.log10(x.max() / x.min())) if n else 0.0
    nan = float("nan")
    if n < need:
        return Assessment(None, decades, nan, nan, nan, nan,
                          f"only {n} usable points (need {need}): add points to the grid")
    if decades < MIN_DECADES:
        return Assessment(None, decades, nan, nan, nan, nan,
                          f"the grid spans {decades:.2f} decades (need {MIN_DECADES}): extend the grid")
    order = np.argsort(x)
    xs, ys = x[order], y[order]
    half = (n + 1) // 2  # the halves share the middle point when n is odd
    low, high = fit_power(xs[:half], ys[:half]), fit_power(xs[n - half:], ys[n - half:])
    near, far = (low, high) if toward == "zero" else (high, low)
    fit = fit_power(xs, ys)
    drift = near.slope - far.slope
    if abs(drift) <= 2 * math.hypot(near.stderr, far.stderr):  # noise, not bias
        estimate, u = fit.slope, 2 * fit.stderr
    else:  # bias: extrapolate toward the limit with the near half
        estimate, u = near.slope, 2 * near.stderr + abs(drift) / 2
    refusal = None
    if abs(fit.slope) * math.log(xs[-1] / xs[0]) >= 1 and fit.r2 < MIN_R2:
        refusal = (f"R² {fit.r2:.3f} < {MIN_R2}: the points do not lie on a power law; "
                   "fit closer to the limit or with a log factor")
    return Assessment(fit, decades, float(drift), float(u), near.slope, far.slope, refusal,
                      float(estimate))


def _decide(lo: float, hi: float, ok_lo: float, ok_hi: float) -> Status:
    """The interval [lo, hi] against the accepted interval [ok_lo, ok_hi]."""
    if ok_lo <= lo and hi <= ok_hi:
        return Status.SUPPORTED
    if hi < ok_lo or lo > ok_hi:
        return Status.REFUTED
    return Status.INCONCLUSIVE


_UNDECIDED = ("the fit's uncertainty (2·stderr + local-slope drift) straddles the tolerance: extend "
              "the grid toward the limit, add points or raise the precision")


def rate(name: str, measure: Callable[[Context], Series], exponent: float, tol: float, *,
         mode: str = "equal", log_factor: Callable[[np.ndarray], np.ndarray] | None = None,
         law: str = "", min_points: int = MIN_POINTS, toward: str = "zero", kind: str = "RATE") -> Check:
    """Fit y ~ C x^p on the measured series and compare p with ``exponent`` (module-doc rules).

    ``mode``: ``"equal"`` (|p - exponent| <= τ), ``"at_least"`` (p >= exponent - τ) or
    ``"at_most"`` (p <= exponent + τ), with τ = :func:`effective_tolerance` (exponent, tol). ``log_factor(x)`` is divided out of y before fitting (e.g. ``lambda eta:
    np.log(1/eta)`` for a log(1/η)/η² law). ``toward``: the limit of x (for the drift estimate).
    """
    if mode not in ("equal", "at_least", "at_most"):
        raise ValueError(f"mode must be equal, at_least or at_most; got {mode!r}")
    if toward not in ("zero", "infinity"):
        raise ValueError(f"toward must be zero or infinity; got {toward!r}")
    tau = effective_tolerance(exponent, tol)

    def run(ctx: Context) -> Evidence:
        series = measure(ctx)
        x, y, dropped = _clean(series, log_factor)
        data: dict = {"predicted": exponent, "tolerance": tau, "tolerance_stated": tol,
                      "mode": mode, "dropped_points": dropped, "seed": ctx.seed, **series.notes}
        a = assess(x, y, toward, min_points)
        data.update(a.as_data())
        target = {"equal": f"= {exponent:.4g} ± {tau:.3g}", "at_least": f">= {exponent:.4g} - {tau:.3g}",
                  "at_most": f"<= {exponent:.4g} + {tau:.3g}"}[mode]
        if a.fit is None:
            note = f"{dropped} dropped as non-finite or below the precision floor; " if dropped else ""
            return outcome(Status.INCONCLUSIVE, f"{law + ': ' if law else ''}{note}{a.refusal}",
                           **data, series=_points(series.x, series.y))
        fit = a.fit
        data["series"] = _points(x, y)
        what = (f"fitted exponent {fit.slope:.4f} ± {fit.stderr:.4f}, local-slope drift "
                f"{a.drift:+.4f} (R² {fit.r2:.4f}, {fit.n} points over {a.decades:.2f} decades)")
        if law:
            what = f"{law}: {what}"
        if a.refusal:
            return outcome(Status.INCONCLUSIVE, f"{what}; {a.refusal}", **data)
        p = a.estimate
        bounds = {"equal": (exponent - tau, exponent + tau), "at_least": (exponent - tau, math.inf),
                  "at_most": (-math.inf, exponent + tau)}[mode]
        status = _decide(p - a.uncertainty, p + a.uncertainty, *bounds)
        # how far the estimate lies inside the acceptance band (negative: outside); named apart from
        # a near-miss planted error's ``margin``, which is positive when the statement is refuted
        inside = {"equal": tau - abs(p - exponent), "at_least": p - (exponent - tau),
                  "at_most": exponent + tau - p}[mode]
        data.update(inside_band=inside)
        est = f"exponent {p:.4f} ± {a.uncertainty:.4f}" + (" (near-limit half)" if p != fit.slope else "")
        if status == Status.INCONCLUSIVE:
            return outcome(status, f"{what}; {est} cannot decide {target}: {_UNDECIDED}", **data)
        return outcome(status, f"{what}; {est}; predicted {target}", **data)

    return Check(name, run, kind)


def bounded(name: str, measure: Callable[[Context], Series], tol: float, *, side: str = "upper",
            toward: str = "zero", law: str = "", min_points: int = MIN_POINTS,
            kind: str = "RATE") -> Check:
    """Hidden-constant statements on a ratio R(x) = X/Y measured on a grid.

    ``side="upper"``: X <= O(Y), i.e. R stays bounded as x -> ``toward`` (0 or ∞);
    ``side="lower"``: X >= Ω(Y), i.e. R stays bounded away from 0; ``"both"``: X ≍ Y.
    Tested through the slope of log R against log x (its growth toward the limit must be <= τ,
    >= −τ, or both, for the whole interval growth ± u; module-doc rules); max R (and min R) are
    reported as the empirical constants.
    """
    if side not in ("upper", "lower", "both") or toward not in ("zero", "infinity"):
        raise ValueError("side must be upper/lower/both and toward zero/infinity")

    def run(ctx: Context) -> Evidence:
        series = measure(ctx)
        x, r, dropped = _clean(series, None)
        data: dict = {"tolerance": tol, "side": side, "toward": toward, "dropped_points": dropped,
                      "seed": ctx.seed, **series.notes}
        a = assess(x, r, toward, min_points)
        data.update(a.as_data())
        prefix = f"{law}: " if law else ""
        if a.fit is None:
            return outcome(Status.INCONCLUSIVE, f"{prefix}{a.refusal}", **data,
                           series=_points(series.x, series.y))
        fit = a.fit
        # growth of R toward the limit: positive means R blows up there
        growth = -a.estimate if toward == "zero" else a.estimate
        data.update(growth_toward_limit=growth, max_ratio=float(r.max()), min_ratio=float(r.min()),
                    series=_points(x, r))
        summary = (f"{prefix}ratio R in [{r.min():.4g}, {r.max():.4g}] over {len(x)} points "
                   f"({a.decades:.2f} decades); log-slope toward the limit {growth:+.4f} ± "
                   f"{a.uncertainty:.4f} (local-slope drift {a.drift:+.4f}; tolerance {tol})")
        if a.refusal:
            return outcome(Status.INCONCLUSIVE, f"{summary}; {a.refusal}", **data)
        bounds = {"upper": (-math.inf, tol), "lower": (-tol, math.inf), "both": (-tol, tol)}[side]
        status = _decide(growth - a.uncertainty, growth + a.uncertainty, *bounds)
        if status == Status.INCONCLUSIVE:
            summary += f"; cannot decide within ± {a.uncertainty:.4f}: {_UNDECIDED}"
        return outcome(status, summary, **data)

    return Check(name, run, kind)
