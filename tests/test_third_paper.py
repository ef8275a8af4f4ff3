"""A third paper drops in: copied into ``claims/`` or installed as a plugin (entry points).

The worked example ``examples/scalarnet`` (docs/adding-a-paper.md) is run in a scratch folder with
this checkout's engine on the path (a symlink), both ways; broken catalogues are reported with the
reason and nothing runs.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import verify

ROOT = Path(verify.__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "scalarnet"
IDS = {"scalarnet.eq1", "scalarnet.lem1", "scalarnet.thm1"}


@pytest.fixture()
def scratch(tmp_path):
    """A working folder plus an engine folder holding only ``verify`` (not this repo's claims)."""
    engine = tmp_path / "engine"
    engine.mkdir()
    (engine / "verify").symlink_to(ROOT / "verify", target_is_directory=True)
    work = tmp_path / "work"
    work.mkdir()
    return tmp_path, work, engine


def run(args, cwd, path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, path))}
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=env)


def test_copied_into_claims_is_listed_checked_and_collected(scratch):
    _, work, engine = scratch
    (work / "claims").mkdir()
    (work / "claims" / "__init__.py").write_text("")
    shutil.copytree(EXAMPLE, work / "claims" / "scalarnet", ignore=shutil.ignore_patterns("__pycache__"))
    # a stray folder without __init__.py: reported by list (warning) and check (error, nothing runs)
    (work / "claims" / "notes").mkdir()
    (work / "claims" / "notes" / "sec1.py").write_text("")
    listing = run(["-m", "verify", "list", "--json"], work, [engine])
    assert {c["id"] for c in json.loads(listing.stdout)} == IDS
    assert "claims/notes/" in listing.stderr and "no __init__.py" in listing.stderr
    refused = run(["-m", "verify", "check", "--quiet"], work, [engine])
    assert refused.returncode != 0 and "no __init__.py" in refused.stderr and "nothing was run" in refused.stderr
    shutil.rmtree(work / "claims" / "notes")

    checked = run(["-m", "verify", "check", "--planted", "--json", "--quiet"], work, [engine])
    rows = json.loads(checked.stdout)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert {r["id"]: r["verdict"] for r in rows} == {"scalarnet.eq1": "proved", "scalarnet.lem1": "proved",
                                                    "scalarnet.thm1": "supported"}
    assert all(p["verdict"] == "refuted" for r in rows for p in r["planted"])

    # pytest collects every claim and planted error (running them all again would only repeat `check`)
    listed = run(["-m", "pytest", "-p", "verify.plugin", "claims", "-q", "--co", "-p", "no:cacheprovider"],
                 work, [engine])
    assert {f"claims/scalarnet/{m}.py::{i}" for m, i in (("sec2_model", "scalarnet.eq1"),
                                                        ("sec2_model", "scalarnet.lem1#p1"),
                                                        ("sec3_gd", "scalarnet.thm1"),
                                                        ("sec3_gd", "scalarnet.thm1#p1"))} \
        <= set(listed.stdout.split()), listed.stdout
    tests = run(["-m", "pytest", "-p", "verify.plugin", "claims", "-q", "-p", "no:cacheprovider", "-k", "eq1"],
                work, [engine])
    assert tests.returncode == 0 and "2 passed" in tests.stdout, tests.stdout


def test_installed_plugin_is_listed_checked_reported_and_collected(scratch):
    tmp, work, engine = scratch
    site = tmp / "site"
    shutil.copytree(EXAMPLE, site / "scalarnet_paper", ignore=shutil.ignore_patterns("__pycache__"))
    dist = site / "scalarnet_paper-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: scalarnet-paper\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[eos_verify.papers]\nscalarnet = scalarnet_paper\n")
    path = [engine, site]
    # an empty local catalogue shadows any `claims` package installed with the engine
    (work / "claims").mkdir()
    (work / "claims" / "__init__.py").write_text("")

    listing = run(["-m", "verify", "list", "--json"], work, path)
    assert {c["id"] for c in json.loads(listing.stdout)} == IDS, listing.stderr
    checked = run(["-m", "verify", "check", "scalarnet.eq1", "scalarnet.lem1", "--planted", "--quiet"],
                  work, path)
    assert checked.returncode == 0 and checked.stdout.count("refuted") == 2, checked.stdout
    report = run(["-m", "verify", "report", "scalarnet.eq1", "--out", "r", "--budget", "quick", "--quiet"],
                 work, path)
    assert report.returncode == 0, report.stdout + report.stderr
    assert "Kreisler" in (work / "r" / "scalarnet.md").read_text()  # Paper.citation in the report
    tests = run(["-m", "pytest", "-p", "verify.plugin", "-q", "-p", "no:cacheprovider", "-k", "eq1"],
                work, path)
    assert tests.returncode == 0 and "2 passed" in tests.stdout, tests.stdout


def test_uses_naming_no_claim_stops_check_and_new_paper_writes_a_passing_skeleton(scratch):
    _, work, engine = scratch
    made = run(["-m", "verify", "new-paper", "smith2024", "J. Smith. A paper. 2024"], work, [engine])
    assert made.returncode == 0, made.stderr
    again = run(["-m", "verify", "new-paper", "smith2024", "J. Smith"], work, [engine])
    assert again.returncode == 2 and "already exists" in again.stderr
    ok = run(["-m", "verify", "check", "--planted", "--quiet"], work, [engine])
    assert ok.returncode == 0 and "smith2024.eq1" in ok.stdout, ok.stdout + ok.stderr
    section = work / "claims" / "smith2024" / "sec1.py"
    section.write_text(section.read_text().replace('expect="proved",', 'expect="proved", uses=("smith2024.lem9",),'))
    bad = run(["-m", "verify", "check", "--quiet"], work, [engine])
    assert bad.returncode != 0 and "smith2024.lem9" in bad.stderr and "nothing was run" in bad.stderr
