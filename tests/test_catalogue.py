"""Structural rules of the catalogue, for every paper found (spec §0.1, §7; docs/adding-a-paper.md).

Nothing here names a paper: the rules hold for whatever ``claims/<key>/`` packages and installed
plugins (entry points ``eos_verify.papers``) the catalogue discovers.
"""
import re

import pytest

from verify.claim import resolve_use
from verify.discovery import discover

FOUND = discover()
CLAIMS = FOUND.claims
BY_ID = {c.id: c for c in CLAIMS}
KINDS = "def|lem|thm|prop|rem|ex|eq|fig|fact|obs"
ID_PATTERN = re.compile(rf"^[a-z][a-z0-9_]*\.(({KINDS})\d+|threshold)(\.[a-z0-9_]+)*$")
ERRATA = [c.id for c in CLAIMS if c.status == "erratum"]


def test_catalogue_is_not_empty_and_loads_cleanly():
    assert len(CLAIMS) > 0
    assert not FOUND.problems, "catalogue problems:\n" + "\n".join(map(str, FOUND.problems))


def test_ids_are_well_formed_and_unique():
    bad = [c.id for c in CLAIMS if not ID_PATTERN.match(c.id)]
    assert not bad, (f"ids not of the form <paper key>.<kind><n>[.<part>] with kind one of {KINDS}: "
                     f"{bad}")
    assert len(BY_ID) == len(CLAIMS)


def test_every_claim_belongs_to_a_declared_paper():
    # the id's first part is the key of the Paper its source points to, and that paper declares
    # `PAPER = Paper(key, citation)` in its package (the citation goes into the reports)
    wrong = [(c.id, c.source.paper) for c in CLAIMS if c.paper != c.source.paper]
    assert not wrong, f"id prefix differs from the source's paper: {wrong}"
    undeclared = sorted({c.paper for c in CLAIMS} - set(FOUND.papers))
    assert not undeclared, f"papers without a `PAPER = Paper(...)` in their package: {undeclared}"
    assert all(p.citation.strip() for p in FOUND.papers.values())


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


@pytest.mark.parametrize("claim_id", ERRATA or ["(no erratum claims)"])
def test_errata_are_encoded_as_refuted_beside_the_corrected_claim(claim_id):
    if claim_id not in BY_ID:
        pytest.skip("no erratum claims in the catalogue")
    claim = BY_ID[claim_id]
    assert claim.expect == "refuted", f"{claim_id}: a printed misprint must be expected refuted"
    assert "erratum" in claim_id.rsplit(".", 1)[-1], f"{claim_id}: name the part `erratum[_what]`"
    base = claim_id.rsplit(".", 1)[0]
    beside = [i for i in BY_ID if i != claim_id and (i == base or i.startswith(base + "."))]
    assert beside, f"{claim_id}: no corrected claim next to it (under {base})"
