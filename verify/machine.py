"""What machine a timing was taken on: the CPU, its vector extensions, the cores and the load.

Timings are only comparable on like hardware: the same code ran 3–5× slower on one of this project's
2-core VMs than on another (the README's "How long things take" gives the measurements). ``verify
bench`` and ``reports/RUNTIME.md`` print this beside their numbers, so a reader can tell a regression
from a different machine; :func:`cpus` is also the default number of workers and threads.
"""
from __future__ import annotations

import os
import platform
from pathlib import Path

# the vector extensions that decide how wide numba's loops over lanes are
SIMD_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx512f")


def _cpuinfo() -> dict[str, str]:
    """First processor's fields of /proc/cpuinfo (Linux); empty where it cannot be read."""
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return {}
    fields: dict[str, str] = {}
    for line in text.split("\n\n", 1)[0].splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields


def cpus() -> int:
    """Logical CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def describe() -> dict:
    """CPU model, logical CPUs, clock, vector extensions (None: unknown here, e.g. no /proc/cpuinfo or
    no x86 ``flags``), 1-minute load average, Python and numba. Never raises: a field that cannot be
    read is left out."""
    info = _cpuinfo()
    flags = set(info.get("flags", "").split())
    out = {"cpu": info.get("model name") or platform.processor() or platform.machine() or "unknown CPU",
           "cpus": cpus(), "simd": [f for f in SIMD_FLAGS if f in flags] if flags else None}
    try:
        out["mhz"] = round(float(info["cpu MHz"]))
    except (KeyError, ValueError):
        pass
    try:
        out["load_average_1min"] = round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        pass
    out["python"] = platform.python_version()
    try:
        import numba
        out["numba"] = numba.__version__
    except ImportError:  # pragma: no cover - numba is a dependency
        pass
    return out


def one_line(m: dict | None = None) -> str:
    """``describe()`` as one line, e.g. ``AMD EPYC, 2 CPUs at 1996 MHz, avx2+fma (no avx512f), load 1.02``
    (the load when this is called: after a report's claims ran, mostly the report's own workers)."""
    m = m or describe()
    simd = m.get("simd")
    if simd is None:
        vector = "SIMD extensions unknown"
    else:
        vector = "+".join(f for f in simd if f in ("avx2", "fma", "avx512f")) or "no avx2"
        if "avx512f" not in simd and simd:
            vector += " (no avx512f)"
    clock = f" at {m['mhz']} MHz" if "mhz" in m else ""
    load = f", load {m['load_average_1min']:.2f}" if "load_average_1min" in m else ""
    return (f"{m.get('cpu', 'unknown CPU')}, {m.get('cpus', '?')} CPUs{clock}, {vector}{load}, "
            f"Python {m.get('python', '?')}, numba {m.get('numba', '?')}")
