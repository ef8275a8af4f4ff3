"""Benchmarks of how the checker scales (issue 14): start-up, threads, processes.

- ``scale.list_startup``: wall time of ``python -m verify list`` (target ≤ 1 s; the listing reads
  syntax trees, see :mod:`verify.listing`), with ``--help`` alongside.
- ``scale.lanes_two_threads``: the float64 lane engine (GD on √(1+(xy)²)) on 1 and 2 threads
  (target ≥ 2.5e8 lane-steps/s with 2 threads on an idle 2-core machine).
- ``scale.report_workers`` (opt-in: name it exactly, it runs the full-budget report twice, minutes):
  wall time of ``python -m verify report`` with ``--workers 1`` and ``--workers 2`` and their ratio
  (target ≤ 0.6).
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time

import numpy as np

from .bench import benchmark


def _wall(args: list[str], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "verify", *args], check=True, capture_output=True)
        best = min(best, time.perf_counter() - started)
    return best


@benchmark("scale.list_startup", target=1.0, unit="s", higher_is_better=False,
           description="wall time of `python -m verify list` (best of 3; a fresh interpreter each "
                       "time), `--help` reported alongside")
def bench_list_startup() -> dict:
    return {"value": _wall(["list"]), "help_seconds": _wall(["--help"])}


@benchmark("scale.lanes_two_threads", target=2.5e8, unit="lane-steps/s",
           description="float64 lane engine (blocked SIMD kernel), GD on sqrt(1+(xy)^2), 1000 lanes x "
                       "20000 steps (fixed step count): 2 threads (run(parallel=2)), best of 3; 1 thread, "
                       "the speed-up, lane-steps per CPU-second and the load average reported alongside "
                       "(on a shared machine the wall-clock rates fall with the load, the per-CPU-second "
                       "rates much less)")
def bench_lane_threads() -> dict:
    import os

    from .dynamics import normalised_start, run
    from .machine import cpus
    from .dynamics.benchmarks import _bench_losses

    loss = _bench_losses()[0]
    lanes, steps = 1000, 20000
    eta = np.geomspace(1e-3, 0.3, lanes)
    x0, y0 = normalised_start(eta, 3.0)

    def rate(threads: int) -> tuple[float, float]:
        run(loss, x0[:4], y0[:4], eta[:4], max_steps=10, rtol=0.0, parallel=threads)  # compile
        best = best_cpu = 0.0
        for _ in range(3):
            t, c = time.perf_counter(), time.process_time()
            r = run(loss, x0, y0, eta, max_steps=steps, rtol=0.0, xtol=0.0, parallel=threads)
            done = int(r.steps.sum())
            best = max(best, done / (time.perf_counter() - t))
            best_cpu = max(best_cpu, done / max(time.process_time() - c, 1e-9))
        return best, best_cpu

    load = os.getloadavg()[0]
    (one, one_cpu), (two, two_cpu) = rate(1), rate(2)
    return {"value": two, "one_thread": one, "speedup": two / one, "one_thread_per_cpu_second": one_cpu,
            "two_threads_per_cpu_second": two_cpu, "load_average_1min": round(load, 2),
            "cpus": cpus(),
            "lanes": lanes, "steps_per_lane": steps}


@benchmark("scale.report_workers", target=0.6, unit="x serial", higher_is_better=False, opt_in=True,
           description="full-budget `python -m verify report` wall time with --workers 2 over "
                       "--workers 1 (target <= 0.6 on 2 cores; the whole report <= 150 s with 2 "
                       "workers); both wall times reported")
def bench_report_workers() -> dict:
    out = {}
    for n in (1, 2):
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "verify", "report", "--budget", "full", "--quiet",
                            "--workers", str(n), "--out", tmp], capture_output=True)
            out[f"workers_{n}_seconds"] = time.perf_counter() - started
    out["value"] = out["workers_2_seconds"] / out["workers_1_seconds"]
    out["workers_2_target_seconds"] = 150.0
    return out
