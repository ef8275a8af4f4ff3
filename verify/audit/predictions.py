"""Papers' predictions for an audited loss: the plugin hook ``Paper(..., audit_predictions=(fn, ...))``.

The audit knows no paper's formulas. A paper that can predict a quantity for a user's loss (for
instance a conjectured closed form for a constant, discovered and tested in its claims) registers a
callable on its :class:`~verify.Paper`; the audit calls it with :class:`AuditFacts` (the exact data
the audit established) and renders what it returns, with the claim id and status, as a prediction
of that claim, never as a verdict of the audit.

A hook returns :class:`Prediction` rows, :class:`NotCovered` rows (the claim exists but does not
cover this loss, and why), either alone or in a list, or None. A hook that raises does not break the
audit: its error becomes a :class:`NotCovered` row.
"""
from __future__ import annotations

import traceback
from dataclasses import asdict, dataclass
from typing import Any

import sympy as sp


@dataclass(frozen=True)
class AuditFacts:
    """What the audit established about ℓ, exactly (sympy), for the papers' hooks.

    ``beta`` and ``leading_coefficient``: 1 − ℓ'(s)/s = c·|s|^β + o(|s|^β) at 0 (None when the audit
    found no such term; ``beta`` is ``sp.oo`` when ℓ'(s)/s = 1 near 0); ``ratio_near_0``: the
    expression of 1 − ℓ'(s)/s on the cell (0, r) next to 0, in ``s``; ``curvature_at_0`` = ℓ''(0),
    ``sup_slope`` = sup|ℓ'| (None if unknown); ``verdicts``: {"A1", "A2", "A3", "even"} → verdict.
    ``normalised``: when ℓ is not normalised (ℓ''(0) ≠ 1 or sup|ℓ'| > 1), the facts of its
    normalisation ℓ̃(s) = a·ℓ(b s) with a = ``rescale_a``, b = ``rescale_b`` (see the audit's
    rescaling), whose exponents the results are read from.
    """

    expression: str
    derivative: bool
    l: sp.Expr | None
    dl: sp.Expr
    beta: Any
    leading_coefficient: Any
    ratio_near_0: sp.Expr | None
    curvature_at_0: Any
    sup_slope: Any
    verdicts: dict
    normalised: "AuditFacts | None" = None
    rescale_a: Any = None
    rescale_b: Any = None

    def holds(self, *parts: str) -> bool:
        """Every named part (A1, A2, A3, even) proved or supported."""
        return all(self.verdicts.get(p) in ("proved", "supported") for p in parts)


@dataclass(frozen=True)
class Prediction:
    """A value a paper's claim predicts for this loss.

    ``claim``: the id of the claim that states the law; ``status``: that claim's status (e.g.
    ``conjecture``); ``tested``: how far the claim was tested (e.g. "4 significant digits on the
    held-out losses …"); ``how``: how the value was computed from the audit's facts."""

    claim: str
    quantity: str
    value: float
    exact: str
    how: str
    status: str
    tested: str

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class NotCovered:
    """A claim that could predict something but does not cover this loss, and why."""

    claim: str
    reason: str

    def to_json(self) -> dict:
        return asdict(self)


def _rows(out: Any) -> list:
    if out is None:
        return []
    if isinstance(out, (Prediction, NotCovered)):
        return [out]
    return [r for r in out if isinstance(r, (Prediction, NotCovered))]


def paper_predictions(facts: AuditFacts, papers: dict | None = None) -> dict:
    """{"predicted": [row…], "not_covered": [row…]} from every paper's ``audit_predictions`` hooks
    (papers in key order; ``papers`` defaults to :func:`verify.discovery.papers`)."""
    if papers is None:
        from ..discovery import papers as find_papers
        papers = find_papers()
    predicted, not_covered = [], []
    for key in sorted(papers):
        for hook in papers[key].audit_predictions:
            try:
                rows = _rows(hook(facts))
            except Exception as exc:  # a paper's bug must not break the audit
                tb = traceback.format_exception_only(type(exc), exc)[-1].strip()
                rows = [NotCovered(f"{key} ({getattr(hook, '__name__', 'hook')})", f"the hook failed: {tb}")]
            for r in rows:
                row = {"paper": key, **r.to_json()}
                (predicted if isinstance(r, Prediction) else not_covered).append(row)
    return {"predicted": predicted, "not_covered": not_covered}


def label(row: dict) -> str:
    """One line for the text summary and the markdown report."""
    return (f"{row['quantity']} = {row['exact']} ≈ {row['value']:.10g} — prediction of the {row['status']} "
            f"`{row['claim']}` ({row['tested']}); {row['how']}")
