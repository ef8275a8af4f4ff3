"""The numerical environment: what the last digits of a float64 result depend on besides the code.

The same float64 program rounds differently on two machines when a library picks its code by CPU:

- **OpenBLAS** chooses kernels for the CPU it finds (Haswell, SkylakeX, Zen, ...), whose blocking and
  use of FMA change the rounding of dot and matrix products; with several threads it may also split
  one reduction between them.
- **numpy** dispatches SIMD loops by CPU: on AVX-512 machines some float64 functions run other
  implementations (``X86_V4`` and later targets) than on AVX2 machines, and on CPUs without the whole
  x86-64-v3 set others again (``np.tanh`` rounds differently under ``X86_V2``-only dispatch).

Reports print values that measure rounding itself (the difference of two float64 computations of the
same trajectory, an ODE error of 1e-13), so a report regenerated on an AVX2 VM differed in such digits
from the one written on an AVX-512 VM (2026-12-02: ahn2023.lem1.endpoint 1.898e-13 against 1.911e-13;
``OPENBLAS_CORETYPE=Sandybridge`` on the AVX2 VM gave the first value again).

:func:`pin` (run by ``import verify`` before anything imports numpy) fixes both where the machine
allows it: on x86-64-v3 CPUs (AVX2, FMA, BMI1/2, F16C, MOVBE, LZCNT: Intel from Haswell, AMD from
Zen) OpenBLAS runs its Haswell kernels on one thread and numpy dispatches nothing beyond ``X86_V3``.
Every such machine can run that code. What still varies: glibc's libm (numba's and numpy's exp, log,
pow, ...) takes its FMA variants on all of them alike, but another release may round some functions
differently, so the release is printed with the environment; numba and LLVM contract no multiply-add
into an FMA unless asked (no ``fastmath`` in this project) and Intel SVML is off
(``verify/__init__``). A BLAS other than an OpenBLAS with run-time kernel selection (MKL, BLIS, a
distribution's OpenBLAS built for one CPU) is not pinned, and says so.

Variables the user set are kept (``NPY_ENABLE_CPU_FEATURES`` set: the numpy variable is left out,
numpy refuses both); nothing is set when numpy was imported first (child processes would then run
another environment than this one) or with ``EOS_VERIFY_NUMENV=off`` (e.g. for a numpy built with
AVX-512 in its baseline, which refuses to disable it). :func:`state` says what is in effect, judged
by what the libraries report, not by the variables; ``python -m verify report`` prints each
worker's in ``RUNTIME.md`` and warns when one is not pinned or they differ (``python -m verify
numenv`` prints the variables to give a Dask worker, whose ``distributed`` imports numpy first).
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import platform
import re
import sys
from functools import lru_cache
from pathlib import Path

BLAS_CORE = "Haswell"          # OpenBLAS kernels every x86-64-v3 CPU runs
BLAS_THREADS = "1"             # one thread: no reduction split by the machine's core count
SWITCH = "EOS_VERIFY_NUMENV"   # =off: pin nothing
# x86-64-v3 as /proc/cpuinfo names it (LZCNT is "abm")
V3_FLAGS = frozenset({"avx", "avx2", "fma", "bmi1", "bmi2", "f16c", "movbe", "abm"})
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
        from importlib import metadata
        return metadata.version("numpy")


def _numpy_new_names() -> bool:
    """numpy >= 2.4, which names its x86 dispatch targets X86_V3, X86_V4, ..."""
    try:
        return tuple(int(p) for p in _numpy_version().split(".")[:2]) >= (2, 4)
    except Exception:  # no numpy found, an odd version string: assume the current names
        return True


def _unpinnable() -> str:
    """Why this machine gets no pinned environment ('' when it does)."""
    if os.environ.get(SWITCH, "").strip().lower() == "off":
        return f"switched off ({SWITCH}=off)"
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return f"no pinned environment for {platform.machine() or 'this CPU'} (x86-64-v3 only)"
    flags = _cpu_flags()
    if flags is None:
        return "the CPU's features cannot be read here (no /proc/cpuinfo)"
    missing = sorted(V3_FLAGS - flags)
    if missing:
        return f"not an x86-64-v3 CPU (no {', '.join(missing)})"
    return ""


def variables() -> dict[str, str]:
    """The environment variables that pin this machine's numerical environment ({} where none do:
    see :func:`_unpinnable`). The numpy one is left out when the user set ``NPY_ENABLE_CPU_FEATURES``,
    which numpy refuses together with it."""
    if _unpinnable():
        return {}
    out = {"OPENBLAS_CORETYPE": BLAS_CORE, "OPENBLAS_NUM_THREADS": BLAS_THREADS}
    if "NPY_ENABLE_CPU_FEATURES" not in os.environ:
        out["NPY_DISABLE_CPU_FEATURES"] = " ".join(_NUMPY_AVX512 if _numpy_new_names() else _NUMPY_AVX512_OLD)
    return out


def pin() -> None:
    """Set :func:`variables` in ``os.environ`` (keeping any the user set) unless numpy is imported
    already: then nothing is set, so that child processes run the environment this one runs."""
    global _numpy_first
    if "numpy" in sys.modules:
        _numpy_first = True
        return
    for key, value in variables().items():
        os.environ.setdefault(key, value)


def _cause(key: str) -> str:
    """Why a pinned variable may not have acted: the user's own value, or numpy imported first."""
    wanted = variables().get(key)
    if key in os.environ and os.environ[key] != wanted:
        return f"set by the user: {key}={os.environ[key]}"
    if _numpy_first and key not in os.environ:
        return "numpy was imported before verify"
    return ""


def _why_not(dispatch: list, blas: list) -> str:
    """Why the environment in effect, as the libraries report it, is not the pinned one ('' when it is)."""
    reason = _unpinnable()
    if reason:
        return reason
    if not blas:
        return "the BLAS is unknown (threadpoolctl is missing, or numpy's BLAS is not loaded)"
    for api, arch, threads in blas:
        if api != "openblas":
            return f"the BLAS is {api}, whose kernels are not pinned"
        if arch != BLAS_CORE:
            return (f"OpenBLAS runs its {arch} kernels, not {BLAS_CORE}: "
                    + (_cause("OPENBLAS_CORETYPE") or "built without run-time kernel selection?"))
        if threads != int(BLAS_THREADS):
            return (f"OpenBLAS runs on {threads} threads: "
                    + (_cause("OPENBLAS_NUM_THREADS") or "another library set its threads"))
    avx512 = sorted(set(dispatch) & set(_NUMPY_AVX512 + _NUMPY_AVX512_OLD))
    v3 = "X86_V3" in dispatch or {"AVX2", "FMA3"} <= set(dispatch)
    if avx512 or not v3:
        what = f"numpy dispatches {', '.join(avx512)}" if avx512 else "numpy does not dispatch X86_V3"
        cause = (_cause("NPY_DISABLE_CPU_FEATURES")
                 or ("set by the user: NPY_ENABLE_CPU_FEATURES=" + os.environ["NPY_ENABLE_CPU_FEATURES"]
                     if "NPY_ENABLE_CPU_FEATURES" in os.environ else ""))
        return f"{what}" + (f": {cause}" if cause else "")
    return ""


@lru_cache(maxsize=None)
def state() -> dict:
    """What is in effect in this process: numpy's SIMD dispatch targets in use, each loaded BLAS
    (threadpoolctl: its kind, CPU kernels, threads), the C library, and whether that is the pinned
    environment (with the reason when not). Loads numpy's BLAS (numpy.linalg) so that it is listed."""
    importlib.import_module("numpy.linalg")  # loads numpy's BLAS, so that it is listed
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # pragma: no cover - numpy < 2
        from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    try:
        from threadpoolctl import threadpool_info
        found = threadpool_info()
    except ImportError:  # a dependency, but an old editable install may lack it: say so, run on
        found = []
    blas = sorted({(i.get("internal_api", "?"), str(i.get("architecture", "?")), int(i.get("num_threads", 0)))
                   for i in found if i.get("user_api") == "blas"})
    dispatch = [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]
    why = _why_not(dispatch, blas)
    libc = " ".join(platform.libc_ver()).strip() or "unknown C library"
    return {"pinned": not why, "why": why or "x86-64-v3", "numpy_dispatch": dispatch,
            "blas": [list(b) for b in blas], "libc": libc}


def is_pinned(line: str) -> bool:
    """Whether a :func:`one_line` description is of a pinned environment."""
    return "(pinned: " in line


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
