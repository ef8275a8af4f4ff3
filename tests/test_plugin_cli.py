"""The pytest plugin and the CLI contract, exercised on a toy catalogue in a scratch folder."""
import json
import subprocess
import sys
import textwrap

import pytest
from _env import subprocess_env

TOY = textwrap.dedent('''
    from verify import Claim, Paper, Planted, Status, Check
    from verify.claim import outcome

    PAPER = Paper("toy", "toy")

    def verdict(status):
        return Check("c", lambda ctx: outcome(status, f"always {status}", value=1.5))

    GOOD = Claim(id="toy.lem1", source=PAPER.at("Lemma 1"), title="good", statement="a=a",
                 checks=(verdict(Status.PROVED),), expect="proved",
                 planted=(Planted("p1", "a=b", verdict(Status.REFUTED)),))
    ERRATUM = Claim(id="toy.lem1.erratum", source=PAPER.at("Lemma 1"), title="printed", statement="a=b",
                    checks=(verdict(Status.REFUTED),), expect="refuted", status="erratum",
                    uses=("toy.lem1",))
    WEAK = Claim(id="toy.thm1", source=PAPER.at("Theorem 1"), title="weak", statement="?",
                 checks=(verdict(Status.INCONCLUSIVE),),
                 planted=(Planted("p1", "cannot fail", verdict(Status.SUPPORTED)),))
    CONJ = Claim(id="toy.fact1", source=PAPER.at("sec 1"), title="conjecture", statement="?",
                 expect="unchecked", status="conjecture")
''')


@pytest.fixture()
def toy(tmp_path):
    (tmp_path / "claims" / "toy").mkdir(parents=True)
    (tmp_path / "claims" / "__init__.py").write_text("")
    (tmp_path / "claims" / "toy" / "__init__.py").write_text("")
    (tmp_path / "claims" / "toy" / "sec1.py").write_text(TOY)
    return tmp_path


def run(args, cwd):
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=subprocess_env())


def test_pytest_collects_claims_and_planted_errors(toy):
    out = run(["-m", "pytest", "-p", "verify.plugin", "claims", "-q", "-rA", "-p", "no:cacheprovider"],
              toy)
    text = out.stdout
    assert "PASSED claims/toy/sec1.py::toy.lem1" in text
    assert "PASSED claims/toy/sec1.py::toy.lem1#p1" in text
    assert "PASSED claims/toy/sec1.py::toy.lem1.erratum" in text
    assert "FAILED claims/toy/sec1.py::toy.thm1 " in text  # inconclusive fails, naming the knob
    assert "FAILED claims/toy/sec1.py::toy.thm1#p1" in text  # a planted error that is not refuted
    assert "SKIPPED" in text
    assert "NOT refuted" in text and "--verify-budget full" in text
    assert out.returncode == 1


def test_cli_list_and_check_json(toy):
    listing = json.loads(run(["-m", "verify", "list", "--json"], toy).stdout)
    assert {c["id"] for c in listing} == {"toy.lem1", "toy.lem1.erratum", "toy.thm1", "toy.fact1"}
    assert set(listing[0]) == {"id", "source", "title", "uses", "expect"}
    ok = run(["-m", "verify", "check", "toy.lem1", "--json", "--quiet"], toy)
    rows = json.loads(ok.stdout)
    assert ok.returncode == 0 and [r["id"] for r in rows] == ["toy.lem1", "toy.lem1.erratum"]
    assert rows[0]["evidence"][0] == {"check": "c", "verdict": "proved", "summary": "always proved",
                                      "data": {"value": 1.5}}
    bad = run(["-m", "verify", "check", "toy.thm1", "--quiet"], toy)
    assert bad.returncode == 1
    missing = run(["-m", "verify", "check", "nope"], toy)
    assert missing.returncode != 0 and "no claim matches" in missing.stderr


def test_report_is_deterministic(toy):
    first = run(["-m", "verify", "report", "--out", "r1", "--budget", "quick", "--quiet"], toy)
    second = run(["-m", "verify", "report", "--out", "r2", "--budget", "quick", "--quiet"], toy)
    assert first.returncode == second.returncode == 1  # toy.thm1 is inconclusive on purpose
    for name in ("README.md", "toy.md"):
        assert (toy / "r1" / name).read_bytes() == (toy / "r2" / name).read_bytes()
    index = (toy / "r1" / "README.md").read_text()
    assert "Planted errors refuted: **1 / 2**" in index
