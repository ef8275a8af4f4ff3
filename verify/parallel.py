"""Where claims run: in this process, in local worker processes, or on a Dask cluster.

Parallelism lives outside the thing computed (design: "a task is a pure function of its inputs
and seed"). A :class:`ClaimTask` names a claim by id with the run seed and budget; the worker looks
the claim up in its own catalogue, runs its checks, planted errors and figures with the seeds
:func:`verify.claim.derive_seed` gives them, and sends back values (evidence, PNG bytes). Nothing
depends on which worker runs what, so ``--workers 1``, ``--workers N`` and ``--scheduler ADDRESS``
write the same bytes (tested in ``tests/test_parallel.py``); only wall-clock times differ.

A :class:`Runner` maps a module-level function over picklable items and returns the results in
input order. Claims use the same runner for their own heavy sweeps through ``ctx.map`` (serial
unless the claim runs alone in the parent process while a pool is available).
"""
from __future__ import annotations

import importlib
import multiprocessing
import os
import pickle
import socket
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from . import costs, numenv
from .machine import cpus
from .claim import (Claim, Context, Evidence, Result, Status, _jsonable, catalogue, claims_in_module, combine,
                    derive_seed, run_claim, run_planted)


# --------------------------------------------------------------------------- runners

class Runner:
    """Maps ``fn`` over ``items``, yielding the results in input order (here: serially)."""

    workers = 1
    label = "serial"

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        return (fn(item) for item in items)

    def close(self) -> None:
        pass

    def __enter__(self) -> "Runner":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class ProcessRunner(Runner):
    """Local worker processes (``--workers N``). On POSIX the workers are forked, so they start with
    the parent's imports (the catalogue is not re-imported once per worker)."""

    def __init__(self, workers: int):
        self.workers = workers
        self.label = f"{workers} local processes"
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        self._pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method))
        # start every worker now, before this process runs a kernel: forking after numba's
        # threading layer has started threads is unsafe
        list(self._pool.map(_started, range(workers)))

    def map(self, fn, items):
        return self._pool.map(fn, list(items))  # submits everything now, yields in order

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class DaskRunner(Runner):
    """A ``dask.distributed`` cluster (``--scheduler ADDRESS``, or a ``Client`` made elsewhere).

    Tasks are submitted with ``pure=False`` and gathered in input order; a task whose worker dies
    is rescheduled by Dask on another worker and, carrying its own seed, gives the same result."""

    def __init__(self, address: Any):
        try:
            from distributed import Client
        except ImportError as exc:  # pragma: no cover - depends on the optional extra
            raise SystemExit("error: --scheduler needs dask.distributed: pip install -e '.[cluster]'"
                             ) from exc
        self._own = not hasattr(address, "submit")
        self._client = Client(address) if self._own else address
        self.workers = max(1, len(self._client.scheduler_info().get("workers", {})))
        self.label = f"dask scheduler {self._client.scheduler.address}"

    def map(self, fn, items):
        futures = self._client.map(fn, list(items), pure=False)
        return (f.result() for f in futures)

    def close(self) -> None:
        if self._own:
            self._client.close()


def _started(_: int) -> int:
    time.sleep(0.01)  # long enough that each warm-up task gets its own worker
    return os.getpid()


def make_runner(workers: int | None = None, scheduler: Any = None) -> Runner:
    """``scheduler`` (a Dask address) wins; else ``workers`` processes (None: the machine's cores)."""
    if scheduler:
        return DaskRunner(scheduler)
    n = default_workers() if workers is None else workers
    if n < 1:
        raise SystemExit(f"error: --workers must be >= 1, got {n}")
    return Runner() if n == 1 else ProcessRunner(n)


def default_workers() -> int:
    """One worker per CPU this process may run on."""
    return cpus()


def picklable(obj: Any) -> bool:
    try:
        pickle.dumps(obj)
        return True
    except Exception:
        return False


# --------------------------------------------------------------------------- claim tasks

@dataclass(frozen=True)
class ClaimTask:
    """Run one claim by id: its checks, and (for reports) its planted errors and figures."""

    claim_id: str
    seed: int
    budget: str
    planted: bool = False
    figures: bool = False


@dataclass(frozen=True)
class ClaimOutcome:
    """What a worker sends back: values only (the parent holds the Claim objects)."""

    claim_id: str
    verdict: Status
    evidence: tuple[Evidence, ...]
    check_seconds: float
    planted: tuple[tuple[str, Evidence], ...]
    figures: tuple[tuple[str, str, bytes | None], ...]  # (file name, caption, PNG bytes)
    seconds: float
    worker: str
    numeric: str = ""   # the worker's numerical environment (verify.numenv.one_line)

    def result(self, claim: Claim) -> Result:
        if claim.expect == "unchecked":  # recorded, not checked: no parts to combine
            return Result(claim, self.verdict, self.evidence, self.check_seconds)
        verdict, parts = combine(self.evidence)  # the verdict is derived, as in run_claim
        return Result(claim, verdict, self.evidence, self.check_seconds, parts)


_CLAIMS: dict[str, Claim] = {}


def _claim(claim_id: str) -> Claim:
    """The claim with this id in this process: a fresh worker imports only the module declaring it
    (found by :mod:`verify.listing`), falling back to the whole catalogue."""
    if claim_id not in _CLAIMS:
        from .listing import summaries
        module = next((getattr(c, "module", "") for c in summaries() if c.id == claim_id), "")
        if module:
            _CLAIMS.update({c.id: c for c in claims_in_module(importlib.import_module(module))})
    if claim_id not in _CLAIMS:
        _CLAIMS.update({c.id: c for c in catalogue()})
    try:
        return _CLAIMS[claim_id]
    except KeyError:
        raise LookupError(f"claim {claim_id!r} is not in this worker's catalogue (is the same "
                          "version of the claims installed on every worker?)") from None


def figure_file_name(claim_id: str, figure_name: str) -> str:
    return f"{claim_id.replace('.', '_')}__{figure_name}.png"


def run_claim_task(task: ClaimTask, claim: Claim | None = None,
                   mapper: Callable | None = None) -> ClaimOutcome:
    """The pure unit of work: the same task gives the same outcome on any worker."""
    started = time.perf_counter()
    remote = claim is None  # a worker: the outcome travels back by pickle
    claim = claim or _claim(task.claim_id)
    result = run_claim(claim, seed=task.seed, budget=task.budget, mapper=mapper)
    planted = ()
    if task.planted and claim.expect != "unchecked":
        planted = tuple((p.tag, run_planted(claim, p, seed=task.seed, budget=task.budget, mapper=mapper))
                        for p in claim.planted)
    figures = []
    if task.figures:
        with tempfile.TemporaryDirectory() as tmp:
            for fig in claim.figures:
                name = figure_file_name(claim.id, fig.name)
                ctx = Context(derive_seed(task.seed, claim.id, "figure:" + fig.name), task.budget,
                              None, task.seed, mapper)
                try:
                    caption = fig.draw(ctx, str(Path(tmp) / name))
                    png = (Path(tmp) / name).read_bytes()
                except Exception as exc:  # a broken figure is reported, not hidden
                    caption, name, png = f"figure failed: {type(exc).__name__}: {exc}", "", None
                figures.append((name, caption, png))
    done = ClaimOutcome(claim.id, result.verdict, result.evidence, result.seconds, planted,
                        tuple(figures), time.perf_counter() - started,
                        f"{socket.gethostname()}:{os.getpid()}", numenv.one_line())
    if remote and not picklable(done):
        # evidence holding an object that cannot travel: send its JSON form (what reports show)
        done = ClaimOutcome(done.claim_id, done.verdict, tuple(map(_portable, done.evidence)),
                            done.check_seconds, tuple((t, _portable(e)) for t, e in done.planted),
                            done.figures, done.seconds, done.worker, done.numeric)
    return done


def _portable(ev: Evidence) -> Evidence:
    return Evidence(ev.check, ev.status, ev.summary, _jsonable(ev.data), ev.role, ev.of)


def run_claims(claims: Sequence[Claim], runner: Runner, *, seed: int, budget: str,
               planted: bool = False, figures: bool = False,
               progress: Callable[[str], None] | None = None) -> Iterator[ClaimOutcome]:
    """Outcomes of ``claims``, yielded in order as they are ready. A lone claim runs here with the
    runner as its ``ctx.map`` (its sweeps spread over the workers); several claims are spread over
    the workers, one task per claim module."""
    tasks = [ClaimTask(c.id, seed, budget, planted, figures) for c in claims]
    if runner.workers == 1 or len(claims) == 1:
        mapper = runner.map if runner.workers > 1 else None
        seconds = {}
        for i, (claim, task) in enumerate(zip(claims, tasks), 1):
            if progress:
                progress(f"[{i}/{len(claims)}] {claim.id}")
            outcome = run_claim_task(task, claim, mapper)
            seconds[claim.id] = outcome.seconds
            yield outcome
        costs.remember(budget, seconds)
        return
    # one task per claim module, or per set of modules declaring the same SHARED_RUNS (largest
    # first): their claims share cached runs, which a per-claim split would compute once per
    # worker; the outcomes are the same either way
    groups = _module_groups(tasks, runner.workers, costs.load(budget))
    if progress:
        progress(f"{len(tasks)} claims in {len(groups)} module tasks on {runner.label}")
    ready: dict[str, ClaimOutcome] = {}
    seconds: dict[str, float] = {}
    pending = runner.map(run_claim_tasks, groups)
    for i, task in enumerate(tasks, 1):
        while task.claim_id not in ready:
            for outcome in next(pending):
                ready[outcome.claim_id] = outcome
                seconds[outcome.claim_id] = outcome.seconds
                if progress:
                    progress(f"{outcome.claim_id} done ({outcome.seconds:.1f} s on {outcome.worker})")
        yield ready.pop(task.claim_id)
    costs.remember(budget, seconds)


def run_claim_tasks(tasks: Sequence[ClaimTask]) -> list[ClaimOutcome]:
    """Several claims in one worker, in order (they share the worker's cached runs)."""
    return [run_claim_task(t) for t in tasks]


def _module_groups(tasks: list[ClaimTask], workers: int,
                   seconds: dict[str, float] | None = None) -> list[tuple[ClaimTask, ...]]:
    """Tasks grouped by declaring module — modules that declare the same ``SHARED_RUNS`` label
    (:func:`verify.listing.shared_runs`) form one group — costliest group first (``seconds``: each
    claim's time in an earlier run, :mod:`verify.costs`; a claim without one counts as the mean of the
    known ones, or 1; with none known, the group with most claims first), so the workers, which take the
    groups in this order, do not end on a long one; groups are halved while there are fewer groups than
    workers (``check ahn2023.thm2`` selects claims of one module)."""
    from .listing import shared_runs, summaries

    declared_in = {c.id: getattr(c, "module", "") for c in summaries()}
    labels = {m: shared_runs(m) for m in {declared_in.get(t.claim_id, "") for t in tasks} if m}
    group_of = {cid: ("shared:" + labels[m] if labels.get(m) else m) or cid
                for cid, m in declared_in.items()}
    by_module: dict[str, list[ClaimTask]] = {}
    for t in tasks:
        by_module.setdefault(group_of.get(t.claim_id, t.claim_id), []).append(t)
    known = [v for v in (seconds or {}).values() if v >= 0]
    default = sum(known) / len(known) if known else 1.0

    def cost(group: tuple[ClaimTask, ...]) -> tuple[float, int]:
        return sum((seconds or {}).get(t.claim_id, default) for t in group), len(group)

    groups = sorted((tuple(g) for g in by_module.values()), key=cost, reverse=True)
    while len(groups) < workers and len(groups[0]) > 1:
        big = groups.pop(0)
        half = (len(big) + 1) // 2
        groups = sorted(groups + [big[:half], big[half:]], key=cost, reverse=True)
    return groups
