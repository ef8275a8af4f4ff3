"""Near-miss planted errors: wrong statements a few tolerances from the truth, refuted with a margin.

A planted error far from the truth (an exponent off by 1, 27 in place of 8) is refuted by almost any
check, so it shows little about the check's resolution. A *near miss* sits within 2–3 tolerances of
the truth (an exponent off by 2τ, a constant off by a few percent, a transition shifted by a few
percent, a bound tightened just below the measured worst case). :func:`near_miss` builds one and
makes its evidence say by how much it was refuted:

- ``margin``: a number, positive when the planted statement is refuted (how far the measurement is
  outside the planted statement's acceptance region, in the unit of the statement, e.g. exponent
  units or a relative excess), and ``margin_text``: one line, e.g. ``"fitted 1.002 ± 0.004 vs
  claimed 1.10, tolerance 0.05"``. The line is appended to the summary, so reports show it.
- a refutation that cannot say its margin is not accepted: the planted error becomes inconclusive
  (and fails in pytest), so a near miss can never be "refuted" for an unrelated reason unnoticed.
- a planted error composed of parts (``all_checks``) names its ``wrong`` parts: it counts as refuted
  only if a wrong part refuted it; a correct part refuting it means the check is broken, and the
  planted error is inconclusive. The refuting part is reported (``refuted_by``).

The margin of the engine's standard fits (``asymptotic.rate`` / ``asymptotic.bounded``) is read from
their evidence; any other check passes ``margin=`` (a function of the evidence data).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from .claim import Check, Context, Evidence, Planted, Status

Margin = Callable[[Mapping[str, Any]], "tuple[float, str] | None"]


@dataclass(frozen=True)
class NearMiss(Planted):
    """A planted error within a few tolerances of the truth (see the module docstring)."""

    near_miss: bool = True


def is_near_miss(planted: Planted) -> bool:
    return bool(getattr(planted, "near_miss", False))


def fit_margin(data: Mapping[str, Any]) -> tuple[float, str] | None:
    """Margin of an ``asymptotic.rate`` (``slope`` vs ``predicted``) or ``asymptotic.bounded``
    (``growth_toward_limit`` vs ``tolerance``) evidence; None when the keys are missing."""
    # both fits decide on the whole interval estimate ± uncertainty (asymptotic.assess), so the
    # margin is how far that interval lies outside the acceptance band
    if "tolerance" not in data or "uncertainty" not in data:
        return None
    tol, err = float(data["tolerance"]), float(data["uncertainty"])
    if "inside_band" in data:  # asymptotic.rate: distance of the estimate inside the band
        excess = -float(data["inside_band"]) - err
        rel = {"equal": "=", "at_least": ">=", "at_most": "<="}[data.get("mode", "equal")]
        return excess, (f"fitted {float(data['estimate']):.4g} ± {err:.2g} vs claimed exponent {rel} "
                        f"{float(data['predicted']):.4g}, tolerance {tol:.3g}: outside by {excess:.3g}")
    if "growth_toward_limit" in data:  # asymptotic.bounded
        growth, side = float(data["growth_toward_limit"]), data.get("side")
        excess = {"upper": growth - tol, "lower": -growth - tol,
                  "both": abs(growth) - tol}.get(side, abs(growth) - tol) - err
        return excess, (f"log-slope of the ratio toward the limit {growth:+.4g} ± {err:.2g}, "
                        f"tolerance {tol:.3g} ({side} bound): outside by {excess:.3g}")
    return None


def relative(measured: float, claimed: float, tol: float, what: str = "value") -> tuple[float, str]:
    """Margin of a planted value ``claimed`` against a measurement accepted within relative ``tol``."""
    rel = abs(measured - claimed) / abs(claimed)
    return rel - tol, (f"{what} measured {measured:.6g} vs claimed {claimed:.6g}: relative distance "
                       f"{rel:.3g}, tolerance {tol:.3g}")


def limit_margin(data: Mapping[str, Any]) -> tuple[float, str] | None:
    """Margin of a claimed limit against an extrapolated one (``verify.extrapolate.Limit``): the
    distance |value − claimed| beyond the acceptance band ``tolerance_rel``·|claimed| + 2 error
    bars, relative to |claimed|. Reads ``claimed`` (or ``predicted``), ``tolerance_rel`` and
    ``leading_constant`` ± ``leading_constant_stderr``; None when a key is missing."""
    claimed = data.get("claimed", data.get("predicted"))
    keys = ("tolerance_rel", "leading_constant", "leading_constant_stderr")
    if claimed is None or any(k not in data for k in keys):
        return None
    claimed, rel = float(claimed), float(data["tolerance_rel"])
    value, err = float(data["leading_constant"]), float(data["leading_constant_stderr"])
    band = rel * abs(claimed) + 2 * err
    excess = (abs(value - claimed) - band) / abs(claimed)
    return excess, (f"limit {value:.7g} ± {err:.1g} vs claimed {claimed:.7g}, accepted within "
                    f"{rel:g}·|claimed| + 2 error bars: outside by {excess:.2g} (relative)")


def _parts_margin(data: Mapping[str, Any], margin: Margin | None, wrong: tuple[str, ...]) -> tuple:
    """(label of the refuting part, its margin) for an ``all_checks`` evidence; checks the rule that
    only a wrong part may refute."""
    parts = data.get("parts") or {}
    refuting = [lb for lb, p in parts.items() if p.get("verdict") == "refuted"]
    blamed = [lb for lb in refuting if lb not in wrong]
    if blamed:
        return None, blamed, None
    for lb in refuting:
        got = _deep_margin(parts[lb], margin or fit_margin)
        if got is not None:
            return lb, [], got
    return (refuting[0] if refuting else None), [], None


def _deep_margin(data: Mapping[str, Any], margin: Margin) -> tuple[float, str] | None:
    """The margin of ``data``, or of its first refuted sub-part (parts nest: loss -> sup/inf)."""
    got = margin(data)
    if got is not None:
        return got
    for lb, sub in (data.get("parts") or {}).items():
        if sub.get("verdict") == "refuted":
            got = _deep_margin(sub, margin)
            if got is not None:
                return got[0], f"{lb}: {got[1]}"
    return None


def near_miss(tag: str, description: str, check: Check, *, margin: Margin | None = None,
              wrong: Iterable[str] = ()) -> NearMiss:
    """A :class:`NearMiss` whose evidence carries ``margin`` / ``margin_text``.

    ``margin(data) -> (value, text)`` reads the planted check's evidence data (default: the fit
    margin of ``asymptotic.rate`` / ``bounded``). ``wrong``: for a check made of parts, the labels of
    the parts that state something wrong; only those may refute it.
    """
    wrong = tuple(wrong)

    def run(ctx: Context) -> Evidence:
        ev = check(ctx)
        data = dict(ev.data)
        data["near_miss"] = True
        if ev.status != Status.REFUTED:
            return Evidence(check.name, ev.status, ev.summary, data)
        if wrong:
            part, blamed, got = _parts_margin(data, margin, wrong)
            if blamed:
                return Evidence(check.name, Status.INCONCLUSIVE,
                                f"refuted by part(s) {blamed} that state the truth (only {list(wrong)} are "
                                f"wrong): the check is broken, not the planted statement. {ev.summary}", data)
            data["refuted_by"] = part
        else:
            got = (margin or fit_margin)(data)
        if got is None:
            return Evidence(check.name, Status.INCONCLUSIVE,
                            f"refuted, but no margin could be read from the evidence (a near miss must "
                            f"say by how much it was refuted): {ev.summary}", data)
        value, text = got
        data["margin"], data["margin_text"] = float(value), text
        if not value > 0:
            return Evidence(check.name, Status.INCONCLUSIVE,
                            f"refuted with a non-positive margin ({text}): the verdict and the margin "
                            f"disagree. {ev.summary}", data)
        where = f" (part {data['refuted_by']})" if wrong else ""
        return Evidence(check.name, Status.REFUTED, f"{ev.summary}; near-miss margin{where}: {text}", data)

    return NearMiss(tag, description, Check(check.name, run, check.kind))
