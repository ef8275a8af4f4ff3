"""The slowest-claims benchmark (issue 14: each claim < 30 s at the full budget) picks the claims from
the costs remembered on this machine and times each alone in a fresh process; without remembered
costs it says what to run instead of inventing a value."""
from verify import scaling


def test_slowest_claims_times_the_remembered_slowest(monkeypatch):
    monkeypatch.setattr(scaling, "speed_vs_reference", lambda: {"speed_vs_reference": 1.0})
    # the cheapest claims, remembered as if slow: the bench re-times them (seed 0, full budget)
    monkeypatch.setattr("verify.costs.load", lambda budget: {"even2023.def6": 50.0, "ahn2023.def1": 40.0,
                                                             "even2023.def7": 1.0})
    out = scaling.bench_slowest_claims(count=2)
    assert set(out["claims"]) == {"even2023.def6", "ahn2023.def1"}
    for row in out["claims"].values():
        assert row["verdict"] in ("proved", "supported") and 0 < row["seconds"] < row["wall_seconds"]
    assert out["value"] == max(row["seconds"] for row in out["claims"].values())
    assert out["over_target"] == [] and out["speed_vs_reference"] == 1.0


def test_slowest_claims_without_remembered_costs(monkeypatch):
    monkeypatch.setattr("verify.costs.load", lambda budget: {})
    out = scaling.bench_slowest_claims()
    assert out["value"] is None and "--budget full" in out["why"]


def test_runtime_page_prints_the_measured_machine_speed_and_nothing_when_none_was_measured():
    from verify.report import _runtime_markdown

    speed = {"lane_rate": 5.4e7, "reference_lane_rate": scaling.REFERENCE_LANE_RATE,
             "speed_vs_reference": 5.4e7 / scaling.REFERENCE_LANE_RATE}
    text = _runtime_markdown([("x.y", 1.0, "w")], 0, "quick", 1.0, speed=speed)
    assert "54 million lane-steps/s" in text and "0.42× the 130 million" in text
    assert "Speed:" not in _runtime_markdown([("x.y", 1.0, "w")], 0, "quick", 1.0)


def test_the_report_command_measures_the_machine_after_the_claims(monkeypatch, tmp_path):
    from verify import cli

    done = []  # at the measurement: were the claims' pages already written (the claims run)?
    monkeypatch.setattr(scaling, "speed_vs_reference",
                        lambda: done.append((tmp_path / "ahn2023.md").exists()) or {
                            "lane_rate": 1.3e8, "reference_lane_rate": 1.3e8, "speed_vs_reference": 1.0})
    assert cli.main(["report", "ahn2023.def4", "--quiet", "--workers", "1", "--budget", "quick",
                     "--out", str(tmp_path)]) == 0
    assert done == [True] and "1.00× the 130 million" in (tmp_path / "RUNTIME.md").read_text()


def test_a_failed_speed_measurement_still_writes_the_runtime_page(monkeypatch, tmp_path):
    from verify import cli

    def broken():
        raise RuntimeError("no lane engine here")

    monkeypatch.setattr(scaling, "speed_vs_reference", broken)
    assert cli.main(["report", "ahn2023.def4", "--quiet", "--workers", "1", "--budget", "quick",
                     "--out", str(tmp_path)]) == 0
    assert "Speed: not measured (RuntimeError: no lane engine here)." in (tmp_path / "RUNTIME.md").read_text()
