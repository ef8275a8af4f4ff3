"""``python -m verify list`` reads the catalogue from syntax trees; it must be the catalogue."""
import json
import subprocess
import sys
import textwrap

from verify.claim import Claim, catalogue
from verify.listing import ClaimSummary, summaries
from _env import subprocess_env


def _fields(c):
    return (c.id, str(c.source), c.title, tuple(c.uses), c.expect, tuple(c.assumes))


def test_listing_equals_the_imported_catalogue_in_order():
    listed = summaries()
    assert [_fields(c) for c in listed] == [_fields(c) for c in catalogue()]


def test_the_catalogue_is_listed_without_importing_a_claim_module():
    # a module falling back to import makes `list` slow again (seconds): keep declarations literal
    fallen_back = sorted({c.id for c in summaries() if not isinstance(c, ClaimSummary)})
    assert not fallen_back, f"not listable from the syntax tree: {fallen_back}"


TOY = textwrap.dedent('''
    from verify import Claim, Paper, Check
    from verify.claim import Status, outcome

    PAPER = Paper("toy", "toy")
    WHICH = "built"
    PLAIN = Claim(id="toy.lem1", source=PAPER.at("Lemma 1"), title="plain", statement="a=a",
                  checks=(Check("c", lambda ctx: outcome(Status.PROVED, "ok")),), uses=("toy.x",),
                  expect="proved")
    COMPUTED = Claim(id="toy.lem2", source=PAPER.at("Lemma 2"), title=f"title {WHICH}",
                     statement="a=a", checks=(Check("c", lambda ctx: outcome(Status.PROVED, "ok")),))
''')


def test_a_module_that_is_not_plain_data_is_imported(tmp_path):
    (tmp_path / "claims" / "toy").mkdir(parents=True)
    (tmp_path / "claims" / "__init__.py").write_text("")
    (tmp_path / "claims" / "toy" / "__init__.py").write_text("")
    (tmp_path / "claims" / "toy" / "sec1.py").write_text(TOY)
    out = subprocess.run([sys.executable, "-m", "verify", "list", "--json"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120, env=subprocess_env())
    rows = json.loads(out.stdout)
    assert [(r["id"], r["title"], r["source"], r["uses"]) for r in rows] == [
        ("toy.lem1", "plain", "toy, Lemma 1", ["toy.x"]), ("toy.lem2", "title built", "toy, Lemma 2", [])]


def test_claim_summary_reads_like_a_claim():
    c = summaries()[0]
    assert isinstance(c, (ClaimSummary, Claim)) and c.paper == c.id.split(".")[0]
