"""The robustness column of the report index (``report --seeds A-B``): per claim the seeds at which
it met its expectation and the seeds at which its planted errors were refuted, counted from runs
at each seed, and the same bytes whatever the worker count."""
from __future__ import annotations

from types import SimpleNamespace

from verify import Check, Claim, Paper, Planted, Status
from verify import cli
from verify.claim import outcome
from verify.robustness import format_seeds

PAPER = Paper("toy", "a toy paper")


def _toy_catalogue() -> list[Claim]:
    """Three toy claims: one robust, one refuted at odd seeds, one whose planted error survives
    seed 1 (the planted statement 'the seed is not 1')."""
    def at(verdict_of_seed):
        return lambda ctx: outcome(verdict_of_seed(ctx.run_seed), f"run seed {ctx.run_seed}")

    holds = Check("holds", at(lambda s: Status.SUPPORTED))
    odd = Check("odd_seeds_fail", at(lambda s: Status.REFUTED if s % 2 else Status.SUPPORTED))
    return [
        Claim(id="toy.lem1", source=PAPER.at("Lemma 1"), title="robust", statement="s",
              checks=(holds,), planted=(Planted("p1", "always wrong", Check("p1", at(
                  lambda s: Status.REFUTED))),)),
        Claim(id="toy.lem2", source=PAPER.at("Lemma 2"), title="flaky", statement="s",
              checks=(odd,), uses=("toy.lem1",)),
        Claim(id="toy.lem3", source=PAPER.at("Lemma 3"), title="weak planted", statement="s",
              checks=(holds,), planted=(
                  Planted("p1", "always wrong", Check("p1", at(lambda s: Status.REFUTED))),
                  Planted("p2", "survives seed 1", Check("p2", at(
                      lambda s: Status.SUPPORTED if s == 1 else Status.REFUTED))))),
    ]


def _report(tmp_path, monkeypatch, name: str, *extra: str) -> tuple[int, str]:
    monkeypatch.setattr(cli, "_discover", lambda: SimpleNamespace(claims=_toy_catalogue(),
                                                                  problems=[]))
    code = cli.main(["report", "--quiet", "--workers", "1", "--budget", "quick",
                     "--out", str(tmp_path / name), *extra])
    return code, (tmp_path / name / "README.md").read_text(encoding="utf-8")


def test_index_counts_seeds_met_and_planted_refuted(tmp_path, monkeypatch, capsys):
    code, index = _report(tmp_path, monkeypatch, "a", "--seeds", "0-3")
    assert code == 1  # a claim missed some seeds: the sweep is a requirement, not a statistic
    out = capsys.readouterr().out
    assert "toy.lem2 (missed at seeds 1, 3)" in out and "toy.lem3#p2 (not refuted at seeds 1)" in out
    rows = {line.split("`")[1]: line for line in index.splitlines() if line.startswith("| [`toy.")}
    assert rows["toy.lem1"].endswith("| 4/4 | 4/4 |")
    assert rows["toy.lem2"].endswith("| 2/4 ⚠ | — |")
    assert rows["toy.lem3"].endswith("| 4/4 | 3/4 ⚠ (`#p2` 3/4) |")
    assert "Robustness over run seeds 0-3 (budget `quick`" in index
    assert "every seed: **2 / 3**; planted" in index and "refuted at every seed: **2 / 3**" in index
    assert "met at 2 / 4 seeds; missed at 1 (refuted), 3 (refuted)" in index
    assert "`python -m verify report --seeds 0-3`" in index
    page = (tmp_path / "a" / "toy.md").read_text(encoding="utf-8")
    assert ("seeds 0-3 (budget `quick`): met at 4/4, planted errors all refuted at 3/4" in page)


def test_robustness_column_is_deterministic_and_absent_without_seeds(tmp_path, monkeypatch):
    _, first = _report(tmp_path, monkeypatch, "a", "--seeds", "0-1")
    _, again = _report(tmp_path, monkeypatch, "b", "--seeds", "0-1")
    assert first == again
    _, plain = _report(tmp_path, monkeypatch, "c")
    assert "seeds met" not in plain and "Robustness" not in plain
    assert "seeds met | planted refuted |" in first


def test_format_seeds_inverts_parse_seeds():
    for text in ("0-9", "3", "0-2,5,7-8"):
        assert format_seeds(cli.parse_seeds(text)).replace(", ", ",") == text


def test_real_claims_same_index_for_one_and_two_workers(tmp_path):
    """Two cheap claims at seeds 0-1: the index (and every data file) is the same for one and two
    worker processes, and it passes the markdown checks of every report."""
    from test_report_markdown import problems_in

    files = {}
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}"
        assert cli.main(["report", "ahn2023.def4", "ahn2023.def8", "--quiet", "--budget", "quick",
                         "--seeds", "0-1", "--workers", workers, "--out", str(out)]) == 0
        files[workers] = {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
                          if p.is_file() and p.name != "RUNTIME.md"}
        assert not problems_in(out)
    assert files["1"] == files["2"]
    assert "| 2/2 | 2/2 |" in files["1"]["README.md"].decode()
