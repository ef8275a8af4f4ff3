"""Structural rules of the catalogue: ids, references, planted errors, errata (spec §0.1, §7)."""
import re

import pytest

from verify import catalogue
from verify.claim import resolve_use

CLAIMS = catalogue()
BY_ID = {c.id: c for c in CLAIMS}
ID_PATTERN = re.compile(
    r"^(ahn2023|even2023)\.((def|lem|thm|prop|rem|ex|eq|fig|fact|obs)\d+|threshold)(\.[a-z0-9_]+)*$")

# printed misprints the spec asks to encode as erratum claims (expected refuted)
ERRATA = ["ahn2023.def3.erratum", "ahn2023.lem5.erratum_const", "ahn2023.lem5.erratum_global",
          "ahn2023.fact4.erratum", "even2023.fact3.erratum_large"]


def test_catalogue_is_not_empty():
    assert len(CLAIMS) > 0


def test_ids_are_well_formed_and_unique():
    bad = [c.id for c in CLAIMS if not ID_PATTERN.match(c.id)]
    assert not bad, f"ids not of the form <paper>.<kind><n>[.<part>]: {bad}"
    assert len(BY_ID) == len(CLAIMS)


def test_uses_resolve():
    missing = [(c.id, u) for c in CLAIMS for u in c.uses if not resolve_use(u, BY_ID)]
    assert not missing, f"`uses` entries naming no claim: {missing}"


def test_every_checked_claim_has_a_planted_error():
    lacking = [c.id for c in CLAIMS
               if c.expect in ("proved", "supported") and not c.planted]
    assert not lacking, f"checked claims without a planted error: {lacking}"


def test_planted_tags_are_spec_style():
    bad = [(c.id, p.tag) for c in CLAIMS for p in c.planted if not re.match(r"^p\d+$", p.tag)]
    assert not bad


@pytest.mark.parametrize("claim_id", ERRATA)
def test_errata_are_encoded_as_refuted(claim_id):
    if claim_id.split(".")[0] not in {c.paper for c in CLAIMS}:
        pytest.skip(f"{claim_id.split('.')[0]} not in the catalogue yet")
    assert claim_id in BY_ID, f"erratum {claim_id} missing"
    claim = BY_ID[claim_id]
    assert claim.expect == "refuted" and claim.status == "erratum"


def test_erratum_claims_are_marked():
    for c in CLAIMS:
        if c.status == "erratum":
            assert c.expect == "refuted", c.id
