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


def _toy_paper(tmp_path, modules: dict) -> None:
    (tmp_path / "claims" / "toy").mkdir(parents=True)
    (tmp_path / "claims" / "__init__.py").write_text("")
    (tmp_path / "claims" / "toy" / "__init__.py").write_text('from verify import Paper\nPAPER = Paper("toy", "toy")\n')
    for name, text in modules.items():
        (tmp_path / "claims" / "toy" / f"{name}.py").write_text(textwrap.dedent(text))


PLAIN = '''
    from verify import Claim, Check
    from verify.claim import Status, outcome
    from claims.toy import PAPER
    {name} = Claim(id="toy.{name}", source=PAPER.at("{name}"), title="{name}", statement="a=a",
                   checks=(Check("c", lambda ctx: outcome(Status.PROVED, "ok")),), uses={uses},
                   expect="proved")
'''


def test_check_of_some_ids_imports_only_their_modules_and_still_sees_a_dangling_use(tmp_path):
    """`check ID` reads ids and `uses` from the syntax trees and imports only the modules of the
    selected claims: a module that would fail to import is not touched, a claim elsewhere whose
    `uses` names no claim still stops the run (nothing executed), as with the whole catalogue."""
    _toy_paper(tmp_path, {"lem1": PLAIN.format(name="lem1", uses="()"),
                          "lem2": PLAIN.format(name="lem2", uses='("toy.lem1",)'),
                          "broken": "raise RuntimeError('imported')\n"})
    run = lambda *ids: subprocess.run([sys.executable, "-m", "verify", "check", *ids, "--quiet", "--workers", "1"],
                                      cwd=tmp_path, capture_output=True, text=True, timeout=120, env=subprocess_env())
    out = run("toy.lem2")
    assert out.returncode == 0 and "ok  toy.lem2" in out.stdout and "imported" not in out.stderr
    assert "RuntimeError: imported" in run().stderr  # the whole catalogue imports every module
    (tmp_path / "claims" / "toy" / "lem1.py").write_text(textwrap.dedent(PLAIN.format(name="lem1", uses='("toy.gone",)')))
    out = run("toy.lem2")
    assert out.returncode != 0 and "'toy.gone'" in out.stderr and "nothing was run" in out.stderr
    assert "ok  toy" not in out.stdout


def test_check_of_an_unknown_id_names_the_papers_without_importing_them(tmp_path):
    _toy_paper(tmp_path, {"lem1": PLAIN.format(name="lem1", uses="()"), "broken": "raise RuntimeError('imported')\n"})
    out = subprocess.run([sys.executable, "-m", "verify", "check", "toy.nope"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120, env=subprocess_env())
    assert out.returncode != 0 and "no claim matches 'toy.nope' (papers: toy" in out.stderr
    assert "imported" not in out.stderr


def test_check_of_some_ids_sees_what_the_whole_catalogue_sees(tmp_path):
    """The lazy path of `check ID` reads the modules the whole catalogue reads: a private sub-package's
    claims are not the catalogue's, and an id declared in two modules stops the run either way."""
    _toy_paper(tmp_path, {"lem1": PLAIN.format(name="lem1", uses="()")})
    (tmp_path / "claims" / "toy" / "_sub").mkdir()
    (tmp_path / "claims" / "toy" / "_sub" / "__init__.py").write_text("")
    (tmp_path / "claims" / "toy" / "_sub" / "hidden.py").write_text(textwrap.dedent(PLAIN.format(name="hidden", uses="()")))
    run = lambda *ids: subprocess.run([sys.executable, "-m", "verify", "check", *ids, "--quiet", "--workers", "1"],
                                      cwd=tmp_path, capture_output=True, text=True, timeout=120, env=subprocess_env())
    assert "toy.hidden" not in run("toy").stdout and "ok  toy.lem1" in run("toy").stdout
    (tmp_path / "claims" / "toy" / "again.py").write_text(textwrap.dedent(PLAIN.format(name="lem1", uses="()")))
    for ids in ((), ("toy.lem1",)):
        out = run(*ids)
        assert out.returncode != 0 and "duplicate claim id 'toy.lem1'" in out.stderr and "ok  toy" not in out.stdout


def test_list_warns_of_what_check_would_refuse(tmp_path):
    """`list` and `check ID` read the same syntax-tree catalogue (cli._listed): a `uses` naming no
    claim is a warning for `list`, which still lists, and stops `check` (non-zero exit, naming it)."""
    _toy_paper(tmp_path, {"lem1": PLAIN.format(name="lem1", uses='("toy.gone",)')})
    run = lambda *args: subprocess.run([sys.executable, "-m", "verify", *args], cwd=tmp_path, capture_output=True,
                                       text=True, timeout=120, env=subprocess_env())
    out = run("list")
    assert out.returncode == 0 and "toy.lem1" in out.stdout and "warning: toy.lem1: `uses` names 'toy.gone'" in out.stderr
    out = run("check", "toy.lem1", "--quiet", "--workers", "1")
    assert out.returncode != 0 and "toy.gone" in out.stderr and "ok  toy.lem1" not in out.stdout


def test_a_claims_package_that_does_not_load_is_an_error_not_an_empty_catalogue(tmp_path):
    """claims/__init__.py importing a missing module: `list`, `check ID` and `check` say so, without a
    traceback, and fail; a claim module that does not import or parse: `check` names the file and
    line (a missing ``claims`` package itself lists nothing)."""
    _toy_paper(tmp_path, {"lem1": PLAIN.format(name="lem1", uses="()")})
    (tmp_path / "claims" / "__init__.py").write_text("import no_such_module_here\n")
    run = lambda *args: subprocess.run([sys.executable, "-m", "verify", *args], cwd=tmp_path, capture_output=True,
                                       text=True, timeout=120, env=subprocess_env())
    for args in (("list",), ("check", "toy.lem1", "--quiet", "--workers", "1"), ("check", "--quiet", "--workers", "1")):
        out = run(*args)
        assert out.returncode != 0 and "does not import" in out.stderr and "no_such_module_here" in out.stderr, args
        assert "Traceback" not in out.stderr, args
    # a claim module importing a missing module: `check` names its file and line
    (tmp_path / "claims" / "__init__.py").write_text("")
    (tmp_path / "claims" / "toy" / "broken.py").write_text("import numpy\nimport no_such_module_either\n")
    out = run("check", "--quiet", "--workers", "1")
    assert out.returncode != 0 and "broken.py, line 2" in out.stderr and "no_such_module_either" in out.stderr
    # a name its import does not find, and a module that does not parse: the same, file and line
    (tmp_path / "claims" / "toy" / "broken.py").write_text("from os import no_such_name\n")
    out = run("check", "--quiet", "--workers", "1")
    assert out.returncode != 0 and "broken.py, line 1" in out.stderr and "no_such_name" in out.stderr
    (tmp_path / "claims" / "toy" / "broken.py").write_text("x = 1\ny = (\n")
    out = run("check", "--quiet", "--workers", "1")
    assert out.returncode != 0 and "does not parse" in out.stderr and "broken.py, line 2" in out.stderr
    assert "Traceback" not in out.stderr
