"""Which catalogue results apply to an audited loss: the claims' ``assumes`` tags (hypotheses with
their parameter ranges) against the audit's verdicts, and the laws ahn2023 predicts for β.
"""
from __future__ import annotations

import math
from typing import Any, Callable

from .common import INCONCLUSIVE, PROVED, SUPPORTED


# ============================================================================ predictions
# Applicability of catalogue claims comes from their ``assumes`` tags (Claim.assumes): loss tags
# "A1", "A2", "A2inf" (β = ∞), "A2+" (vacuous when β = ∞), "A3" are looked up in the audit's
# verdicts; the β tags below
# restrict the exponent found for (A2).
BETA_TAGS: dict[str, Callable[[bool, float], bool]] = {
    "beta<inf": lambda inf, b: not inf,
    "beta=2": lambda inf, b: not inf and abs(b - 2) < 1e-12,
}


_ASSUMES_CACHE: dict = {}


def catalogue_assumptions(package: str = "claims") -> dict[str, tuple[str, ...]]:
    """{claim id: assumes tags} for every catalogue claim that declares ``assumes``.

    Read through :func:`verify.listing.summaries` (the claim modules' syntax trees, the same reader
    ``verify list`` uses) instead of importing the catalogue: importing it costs seconds, an audit
    must not. ``tests/test_audit.py`` checks that this agrees with the imported catalogue.
    """
    if package not in _ASSUMES_CACHE:
        from ..listing import summaries
        _ASSUMES_CACHE[package] = {c.id: tuple(str(x) for x in c.assumes)
                                   for c in summaries(package) if c.assumes}
    return _ASSUMES_CACHE[package]


def _holds(verdict: str) -> bool:
    return verdict in (PROVED, SUPPORTED)


def _predictions(beta: Any, tags: dict[str, str]) -> dict:
    """Consequences for this loss: gap exponent, bouncing law and applicable catalogue claims."""
    inf = beta == "inf"
    out: dict = {}
    if beta is None:
        return {"applicable_claims": [], "note": "β unknown: no predictions"}
    bf = math.inf if inf else float(beta)
    if inf:
        out["gap_exponent"] = 0.0
        out["gap_law"] = "2/η − y_∞² = O(1) (thm2.huber)"
        out["bouncing_law"] = "η^-2 (extrapolated; rem3 assumes β < ∞)"
        out["bouncing_exponent"] = -2.0
    elif bf <= 1:
        out["gap_exponent"] = None
        out["gap_law"] = (f"not predicted: the leading exponent β = {beta} is outside the range 1 < β of "
                          "Theorem 2 and Remark 3")
        out["bouncing_law"] = "not covered"
    else:
        out["gap_exponent"] = 1.0 / (bf - 1.0)
        out["gap_law"] = f"2/η − y_∞² = O(η^(1/(β−1))) = O(η^{1.0 / (bf - 1.0):.6g}) (thm2)"
        if abs(bf - 2) < 1e-12:
            out["bouncing_law"] = "η^-2 log(1/η) (rem3, β = 2)"
            out["bouncing_exponent"] = -2.0
            out["bouncing_log_factor"] = True
        elif bf > 2:
            out["bouncing_law"] = "η^-2 (rem3, β > 2)"
            out["bouncing_exponent"] = -2.0
        else:
            out["bouncing_law"] = f"η^-β/(β−1) = η^{-bf / (bf - 1):.6g} (rem3, β < 2)"
            out["bouncing_exponent"] = -bf / (bf - 1)
    table: dict[str, tuple[str, ...]] = {}
    try:
        table = {cid: need for cid, need in catalogue_assumptions().items() if cid.startswith("ahn2023.")}
    except Exception as exc:  # a broken claim module must not break the audit
        out["catalogue_error"] = str(exc)[:200]
    applicable, blocked, unknown = [], [], set()
    for cid, need in table.items():
        ok = True
        for t in need:
            if t in BETA_TAGS:
                ok = ok and BETA_TAGS[t](inf, bf)
            else:
                unknown.update({t} - set(tags))
                ok = ok and _holds(tags.get(t, INCONCLUSIVE))
        (applicable if ok else blocked).append(cid)
    source = f"{len(table)} ahn2023 claims by their `assumes` tags in the catalogue"
    if unknown:
        source += f"; unknown tags {sorted(unknown)} count as not established"
    out["holds"] = _holds(tags.get("A1", INCONCLUSIVE)) and _holds(tags.get("A2", INCONCLUSIVE))
    if not out["holds"]:
        out["note"] = ("(A1) and (A2) with 1 < β <= ∞ do not both hold (proved or supported): the laws "
                       "above are what ahn2023 would predict for this β, not consequences")
    out["applicable_claims"] = sorted(set(applicable))
    out["not_applicable_claims"] = sorted(set(blocked) - set(applicable))
    out["claims_source"] = source
    return out
