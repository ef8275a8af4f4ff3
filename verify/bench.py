"""Performance benchmark registry: ``python -m verify bench [--json]``.

Speed and memory targets are measured here, never in timed tests. Any module (engine or claims)
registers an entry with ``@benchmark(name, target=..., unit=...)``; the function returns a dict
whose ``value`` key is compared with ``target`` (``higher_is_better`` says which way).
"""
from __future__ import annotations

import importlib
import time
from dataclasses import dataclass
from typing import Any, Callable

BENCHMARKS: dict[str, "Benchmark"] = {}

# modules that register entries; imported lazily by ``run_all`` so that ``import verify`` stays light
BENCH_MODULES = ["verify.dynamics", "verify.certify", "verify.audit", "verify.scaling", "verify.kernelcache"]


@dataclass(frozen=True)
class Benchmark:
    name: str
    fn: Callable[[], dict]
    target: float | None
    unit: str
    higher_is_better: bool
    description: str
    opt_in: bool = False  # long entries run only when asked for by their full name


def best_of(k: int, fn: Callable[[], Any], clock: Callable[[], float] = time.perf_counter) -> tuple[float, Any]:
    """(fastest of ``k`` timed calls of ``fn``, the last result): on a shared machine noise only ever
    adds time, so the minimum is the estimate of a run's cost."""
    times, out = [], None
    for _ in range(k):
        started = clock()
        out = fn()
        times.append(clock() - started)
    return min(times), out


def benchmark(name: str, *, target: float | None = None, unit: str = "",
              higher_is_better: bool = True, description: str = "", opt_in: bool = False):
    def wrap(fn: Callable[[], dict]) -> Callable[[], dict]:
        BENCHMARKS[name] = Benchmark(name, fn, target, unit, higher_is_better, description, opt_in)
        return fn
    return wrap


def _load_all() -> None:
    for mod in BENCH_MODULES:
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name != mod:
                raise
    # claim packages may register paper-specific entries (e.g. the Figure-1 sweep)
    from .claim import catalogue
    catalogue()


def run_all(names: list[str] | None = None, progress: Callable[[str], None] | None = None) -> list[dict]:
    """Every selected entry's row; each row carries ``machine`` (:func:`verify.machine.describe`,
    taken before the first entry): a timing says little without the hardware it ran on."""
    from .machine import describe

    _load_all()
    machine = describe()
    rows = []
    for name, b in BENCHMARKS.items():
        if names and not any(name.startswith(n) for n in names):
            continue
        if b.opt_in and name not in (names or ()):
            continue
        if progress:
            progress(f"bench: {name}")
        started = time.perf_counter()
        out = dict(b.fn())
        out.setdefault("seconds", time.perf_counter() - started)
        value = out.get("value")
        met = None
        if b.target is not None and value is not None:
            met = value >= b.target if b.higher_is_better else value <= b.target
        rows.append({"name": name, "unit": b.unit, "target": b.target,
                     "higher_is_better": b.higher_is_better, "met": met,
                     "description": b.description, **out, "machine": machine})
    return rows
