"""Results never depend on how work was scheduled: ``--workers N``, a Dask cluster and
``pytest -n`` give the serial output byte for byte (design: CLI contract; issue 14)."""
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from verify.claim import Context, catalogue, select
from verify.cli import main
from verify.parallel import ProcessRunner, Runner, make_runner
from verify.report import write_reports
from _env import subprocess_env

# small but varied: symbolic, sampled, trajectory and figure-drawing claims of both papers
SELECTION = ["ahn2023.lem1", "ahn2023.def5.sqrt", "ahn2023.fig2", "even2023.def1", "even2023.fig2"]


def _claims():
    return select(catalogue(), SELECTION)


def _files(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != "RUNTIME.md"}


@pytest.fixture(scope="module")
def serial_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("serial")
    write_reports(_claims(), out, budget="quick", runner=Runner())
    files = _files(out)
    assert any(name.startswith("figures/") for name in files)  # figures are part of the comparison
    return files


def test_two_worker_processes_write_the_serial_report(serial_report, tmp_path):
    with ProcessRunner(2) as runner:
        write_reports(_claims(), tmp_path, budget="quick", runner=runner)
    assert _files(tmp_path) == serial_report
    assert "| worker | claims | seconds |" in (tmp_path / "RUNTIME.md").read_text()


def test_check_json_does_not_depend_on_workers(capsys):
    args = ["check", *SELECTION[:2], "--json", "--quiet", "--planted"]
    assert main([*args, "--workers", "1"]) == 0
    serial = capsys.readouterr().out
    assert main([*args, "--workers", "2"]) == 0
    assert capsys.readouterr().out == serial
    assert {r["id"] for r in json.loads(serial)} >= set(SELECTION[:2])


def _square(item):
    seed, x = item
    return seed * 1000 + x * x


def test_ctx_map_runs_tasks_in_the_pool_in_input_order():
    items = [(7, x) for x in range(12)]
    serial = Context(1).map(_square, items)
    with ProcessRunner(2) as runner:
        assert Context(1, mapper=runner.map).map(_square, items) == serial
        # a closure cannot travel to another process: it runs here, same results
        assert Context(1, mapper=runner.map).map(lambda it: _square(it), items) == serial


def test_runner_choice():
    assert make_runner(1).workers == 1
    with pytest.raises(SystemExit):
        make_runner(0)


# ------------------------------------------------------------------ dask.distributed
# A LocalCluster spawns fresh interpreters that import the claim modules (and one more after the
# kill): ~40 s each on 2 cores. Dask is in the test extra, so CI runs the report test; the
# killed-worker test also runs with `--verify-budget full` (it keeps the default run under 10 min).


@pytest.fixture(scope="module")
def cluster():
    pytest.importorskip("distributed")
    from distributed import LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=40) as c:
        yield c


def test_dask_local_cluster_writes_the_serial_report(cluster, serial_report, tmp_path):
    with make_runner(scheduler=cluster.scheduler_address) as runner:
        assert runner.workers == 2
        write_reports(_claims(), tmp_path, budget="quick", runner=runner)
    assert _files(tmp_path) == serial_report


def test_a_worker_killed_mid_run_changes_nothing(cluster, serial_report, tmp_path, request):
    """Dask reschedules the lost worker's tasks; they carry their seeds, so the bytes are the same."""
    if request.config.getoption("--verify-budget") != "full":
        pytest.skip("the killed-worker run starts a third interpreter (~40 s): --verify-budget full")
    from distributed import Client

    with Client(cluster.scheduler_address) as client:
        pids = list(client.run(os.getpid).values())
        killed = threading.Event()

        def kill_one_once_busy():
            # wait until some task is running, then kill that worker's process
            while not killed.is_set():
                busy = [w for w, tasks in client.processing().items() if tasks]
                if busy:
                    pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
                    os.kill(pid, signal.SIGKILL)
                    killed.set()
                    return
                threading.Event().wait(0.05)

        killer = threading.Thread(target=kill_one_once_busy, daemon=True)
        killer.start()
        with make_runner(scheduler=client) as runner:
            write_reports(_claims(), tmp_path, budget="quick", runner=runner)
        killed.set()
    assert len(pids) == 2
    assert _files(tmp_path) == serial_report


# ------------------------------------------------------------------ pytest-xdist

TOY = '''
from verify import Claim, Paper, Planted, Status, Check
from verify.claim import outcome

PAPER = Paper("toy", "toy")

def _draw(ctx):
    return outcome(Status.SUPPORTED if ctx.rng().random() < 2 else Status.REFUTED, "drawn",
                   value=float(ctx.rng().random()))

def _fixed(status):
    return Check("c", lambda ctx: outcome(status, str(status)))

CLAIMS = [Claim(id=f"toy.lem{i}", source=PAPER.at(f"Lemma {i}"), title="t", statement="s",
                checks=(Check("draw", _draw), _fixed(Status.INCONCLUSIVE if i == 3 else Status.PROVED)),
                planted=(Planted("p1", "wrong", _fixed(Status.REFUTED if i != 2 else Status.SUPPORTED)),))
          for i in range(1, 6)]
LEM1, LEM2, LEM3, LEM4, LEM5 = CLAIMS
'''


def _outcomes(args, cwd):
    out = subprocess.run([sys.executable, "-m", "pytest", "-p", "verify.plugin", "claims", "-q", "-rA",
                          "-p", "no:cacheprovider", *args], cwd=cwd, capture_output=True, text=True,
                         timeout=300, env=subprocess_env())
    rows = sorted(line.split(" ")[0] + " " + line.split(" ")[1] for line in out.stdout.splitlines()
                  if line.startswith(("PASSED ", "FAILED ", "SKIPPED ")))
    return rows, out


def test_pytest_xdist_gives_the_serial_verdicts(tmp_path):
    pytest.importorskip("xdist")
    (tmp_path / "claims" / "toy").mkdir(parents=True)
    (tmp_path / "claims" / "__init__.py").write_text("")
    (tmp_path / "claims" / "toy" / "__init__.py").write_text("")
    (tmp_path / "claims" / "toy" / "sec1.py").write_text(TOY)
    serial, serial_run = _outcomes([], tmp_path)
    parallel, run = _outcomes(["-n", "2"], tmp_path)
    # xdist ran (its "created: 2/2 workers" line is not printed in every output mode; this one is)
    assert "bringing up nodes" in run.stdout
    assert serial == parallel and len(serial) == 10
    assert "FAILED claims/toy/sec1.py::toy.lem3" in serial
    assert "FAILED claims/toy/sec1.py::toy.lem2#p1" in serial
    # the verdict tally is counted from the reports, so the xdist controller prints it too
    for out in (serial_run, run):
        tally = [line for line in out.stdout.splitlines() if line.startswith("claim verdicts:")]
        assert tally == ["claim verdicts: 4 supported, 1 inconclusive"], out.stdout[-2000:]


def test_evidence_that_cannot_be_pickled_travels_as_json():
    from verify.claim import Evidence, Status
    from verify.parallel import _portable, picklable

    ev = Evidence("c", Status.SUPPORTED, "s", {"f": lambda: 1, "x": 1.5})
    assert not picklable(ev)
    moved = _portable(ev)
    assert picklable(moved) and moved.data["x"] == 1.5 and moved.to_json() == ev.to_json()


def test_modules_declaring_the_same_shared_runs_are_one_worker_task(tmp_path, monkeypatch):
    """``SHARED_RUNS = "label"`` in a claim module keeps its claims in one task with the other
    modules of that label (their cached runs are computed once), other modules stay apart; a
    label that is not a string literal is an error, not silently ignored."""
    from verify.listing import shared_runs
    from verify.parallel import ClaimTask, _module_groups

    ids = ["even2023.fact6", "even2023.fig2", "even2023.prop15", "even2023.prop16", "ahn2023.lem1"]
    groups = _module_groups([ClaimTask(i, 0, "quick") for i in ids], workers=2)
    together = next(g for g in groups if any(t.claim_id == "even2023.fact6" for t in g))
    assert {t.claim_id for t in together} == {"even2023.fact6", "even2023.fig2", "even2023.prop15"}
    assert sorted(len(g) for g in groups) == [1, 1, 3]
    assert shared_runs("claims.even2023.sec5_eos") == "even2023.E1"
    assert shared_runs("claims.even2023.sec4_prop16") == ""

    pkg = tmp_path / "sharedruns_probe"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    bad = {"name": "LABEL = 'x'\nSHARED_RUNS = LABEL\n", "annotated": "SHARED_RUNS: str = 'x'\n",
           "two": "SHARED_RUNS = 'x'; X = 1\n", "empty": "SHARED_RUNS = ''\n", "twice": "SHARED_RUNS = 'x'\nSHARED_RUNS = 'y'\n"}
    for name, text in bad.items():
        (pkg / f"{name}.py").write_text(text)
    (pkg / "good.py").write_text("SHARED_RUNS = (\n    'x'\n)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in bad:
        with pytest.raises(ValueError, match="string literal"):
            shared_runs(f"sharedruns_probe.{name}")
    assert shared_runs("sharedruns_probe.good") == "x"


def test_the_costliest_module_task_is_submitted_first(tmp_path, monkeypatch):
    """Costs remembered from an earlier run order the module tasks, longest first (so no worker starts
    a long claim last); without costs, the group with most claims comes first; the costs file
    round-trips and a broken one counts as empty."""
    from verify import costs
    from verify.parallel import ClaimTask, _module_groups

    monkeypatch.setenv("EOS_VERIFY_KERNEL_CACHE", str(tmp_path / "cache"))
    ids = ["even2023.fact6", "even2023.fig2", "even2023.prop15", "even2023.prop16", "ahn2023.lem1"]
    tasks = [ClaimTask(i, 0, "full") for i in ids]
    assert len(_module_groups(tasks, workers=2)[0]) == 3
    seconds = {"even2023.fact6": 1.0, "even2023.fig2": 1.0, "even2023.prop15": 1.0, "even2023.prop16": 20.0,
               "ahn2023.lem1": 0.5}
    first = _module_groups(tasks, workers=2, seconds=seconds)[0]
    assert [t.claim_id for t in first] == ["even2023.prop16"]
    costs.remember("full", seconds)
    assert costs.load("full") == seconds and costs.load("quick") == {}
    costs.costs_file().write_text("not json")
    assert costs.load("full") == {}
