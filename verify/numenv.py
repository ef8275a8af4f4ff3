"""The numerical environment: what the last digits of a float64 result depend on besides the code.

The same float64 program rounds differently on two machines when a library picks its code by CPU:

- **OpenBLAS** chooses kernels for the CPU it finds (Haswell, SkylakeX, Zen, ...), whose blocking and
  use of FMA change the rounding of dot and matrix products; with several threads it may also split
  one reduction between them.
- **numpy** dispatches SIMD loops by CPU: on AVX-512 machines some float64 functions run other
  implementations (``X86_V4`` and later targets) than on AVX2 machines.

Reports print values that measure rounding itself (the difference of two float64 computations of the
same trajectory, an ODE error of 1e-13), so a report regenerated on an AVX2 VM differed in such digits
from the one written on an AVX-512 VM (2026-12-02: ahn2023.lem1.endpoint 1.898e-13 against 1.911e-13;
``OPENBLAS_CORETYPE=Sandybridge`` on the AVX2 VM gave the first value again).

:func:`pin` (run by ``import verify`` before anything imports numpy) fixes both where the machine
allows it: on x86-64 with AVX2 and FMA (x86-64-v3: Intel from Haswell, AMD from Zen) OpenBLAS runs its
Haswell kernels on one thread and numpy dispatches nothing beyond ``X86_V3``. Every such machine can
run that code, and the remaining CPU-dependent choice, glibc's libm, takes its FMA variants on all of
them alike (the C library's release is printed with the environment: another release may round some
of exp, log, pow differently); numba compiles without FMA contraction and without SVML (``verify/__init__``). A variable
the user has set is kept, and nothing is pinned when numpy was imported first (child processes would
then differ from this one). :func:`state` says what is in effect; ``python -m verify report`` prints
it in ``RUNTIME.md`` with each worker's, and warns when a worker's differs (``python -m verify
numenv`` prints the variables to give a Dask worker).
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import platform
import re
import sys
from functools import lru_cache
from importlib import metadata
from pathlib import Path

BLAS_CORE = "Haswell"          # OpenBLAS kernels every x86-64-v3 CPU runs
BLAS_THREADS = "1"             # one thread: no reduction split by the machine's core count
# numpy's dispatch targets beyond x86-64-v3, by the names numpy >= 2.4 uses and by the older ones
_NUMPY_AVX512 = ("X86_V4", "AVX512_ICL", "AVX512_SPR")
_NUMPY_AVX512_OLD = ("AVX512F", "AVX512CD", "AVX512_KNL", "AVX512_KNM", "AVX512_SKX", "AVX512_CLX",
                     "AVX512_CNL", "AVX512_ICL", "AVX512_SPR")

_numpy_first = False   # pin() found numpy imported already, and set nothing


def _cpu_flags() -> set[str] | None:
    """The x86 feature flags of /proc/cpuinfo (None where they cannot be read)."""
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return set(value.split())
    return None


def _numpy_version() -> str:
    """numpy's version without importing it: its version.py (importlib.metadata takes ~50 ms, which
    `python -m verify list` would pay)."""
    spec = importlib.util.find_spec("numpy")
    try:
        text = (Path(spec.origin).parent / "version.py").read_text()
        return re.search(r"""^(?:full_)?version\s*[:=][^'"]*['"]([^'"]+)""", text, re.M).group(1)
    except (AttributeError, OSError, TypeError):
        return metadata.version("numpy")


def _numpy_avx512_names() -> str:
    try:
        major, minor = (int(p) for p in _numpy_version().split(".")[:2])
    except (metadata.PackageNotFoundError, ValueError):
        return " ".join(_NUMPY_AVX512)
    return " ".join(_NUMPY_AVX512 if (major, minor) >= (2, 4) else _NUMPY_AVX512_OLD)


def variables() -> dict[str, str]:
    """The environment variables that pin this machine's numerical environment ({} where none do:
    not x86-64, or no AVX2 and FMA)."""
    flags = _cpu_flags()
    if platform.machine().lower() not in ("x86_64", "amd64") or not flags or not {"avx2", "fma"} <= flags:
        return {}
    return {"OPENBLAS_CORETYPE": BLAS_CORE, "OPENBLAS_NUM_THREADS": BLAS_THREADS,
            "NPY_DISABLE_CPU_FEATURES": _numpy_avx512_names()}


def pin() -> None:
    """Set :func:`variables` in ``os.environ`` (keeping any the user set) unless numpy is imported
    already: then nothing is set, so that child processes run the environment this one runs."""
    global _numpy_first
    if "numpy" in sys.modules:
        _numpy_first = True
        return
    for key, value in variables().items():
        os.environ.setdefault(key, value)


def _why_not(wanted: dict, dispatch: list, blas: list) -> str:
    """Why the environment in effect is not the pinned one ('' when it is)."""
    if not wanted:
        return f"no pinned environment for this CPU ({platform.machine()}; x86-64 with AVX2 and FMA needed)"
    own = {k: os.environ.get(k) for k in wanted if os.environ.get(k, wanted[k]) != wanted[k]}
    if own:
        return "set by the user: " + ", ".join(f"{k}={v}" for k, v in own.items())
    took = (blas and all(api == "openblas" and arch == BLAS_CORE and threads == int(BLAS_THREADS)
                         for api, arch, threads in blas)
            and not set(dispatch) & set(_NUMPY_AVX512 + _NUMPY_AVX512_OLD))
    if took:
        return ""
    if _numpy_first and any(k not in os.environ for k in wanted):
        return "numpy was imported before verify"
    return "the variables did not take effect (numpy imported before they were set?)"


@lru_cache(maxsize=None)
def state() -> dict:
    """What is in effect in this process: numpy's SIMD dispatch targets in use, each loaded BLAS
    (threadpoolctl: its kind, CPU kernels, threads), and whether that is the pinned environment (with
    the reason when not). Loads numpy's BLAS (numpy.linalg) so that it is listed."""
    importlib.import_module("numpy.linalg")  # loads numpy's BLAS, so that it is listed
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # pragma: no cover - numpy < 2
        from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    from threadpoolctl import threadpool_info

    blas = sorted({(i.get("internal_api", "?"), str(i.get("architecture", "?")), int(i.get("num_threads", 0)))
                   for i in threadpool_info() if i.get("user_api") == "blas"})
    dispatch = [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]
    why = _why_not(variables(), dispatch, blas)
    libc = " ".join(platform.libc_ver()).strip() or "unknown C library"
    return {"pinned": not why, "why": why or "x86-64-v3", "numpy_dispatch": dispatch,
            "blas": [list(b) for b in blas], "libc": libc}


def one_line(st: dict | None = None) -> str:
    """:func:`state` as one line, e.g. ``OpenBLAS Haswell kernels on 1 thread, numpy SIMD up to X86_V3,
    glibc 2.36's libm (pinned: x86-64-v3)``. The C library is named because numba's and numpy's exp,
    log, pow, ... are its functions: another release may round some of them differently."""
    st = st or state()
    blas = "; ".join(f"{'OpenBLAS' if api == 'openblas' else api} {arch} kernels on {threads} "
                     f"thread{'s' if threads != 1 else ''}" for api, arch, threads in st["blas"]) or "no BLAS loaded"
    dispatch = st["numpy_dispatch"]
    simd = f"numpy SIMD up to {dispatch[-1]}" if dispatch else "numpy SIMD baseline only"
    how = f"pinned: {st['why']}" if st["pinned"] else f"not pinned: {st['why']}"
    libm = f", {st['libc']}'s libm" if st.get("libc") else ""
    return f"{blas}, {simd}{libm} ({how})"
