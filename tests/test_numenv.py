"""The pinned numerical environment (verify/numenv.py): OpenBLAS's kernels and threads and numpy's SIMD
dispatch are fixed before numpy is imported, a user's own setting is kept and reported, and a report
says when a worker ran with another environment."""
import json
import subprocess
import sys

import pytest
from _env import subprocess_env

from verify import numenv
from verify.report import _runtime_markdown, numeric_warnings

PINNABLE = bool(numenv.variables())
needs_v3 = pytest.mark.skipif(not PINNABLE, reason="no pinned environment for this CPU (x86-64-v3 needed)")

# a 64x64 matrix product's bytes: OpenBLAS's Haswell and Sandybridge kernels round it differently
_PROBE = """
import hashlib, json, sys
{first}
import verify, numpy as np
from verify import numenv
r = np.random.default_rng(0)
a, b = r.standard_normal((64, 64)), r.standard_normal((64, 64))
st = numenv.state()
print(json.dumps({{**st, "product": hashlib.sha256((a @ b).tobytes()).hexdigest(),
                  "numpy_first": numenv._numpy_first,
                  "environ": {{k: __import__("os").environ.get(k) for k in
                              ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "NPY_DISABLE_CPU_FEATURES")}}}}))
"""


_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "NPY_DISABLE_CPU_FEATURES",
              "NPY_ENABLE_CPU_FEATURES", numenv.SWITCH)


def _probe(first: str = "", python_flags=(), **env) -> dict:
    clean = {k: v for k, v in subprocess_env().items() if k not in _VARIABLES}
    out = subprocess.run([sys.executable, *python_flags, "-c", _PROBE.format(first=first)],
                         env={**clean, **env}, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@needs_v3
def test_a_fresh_process_is_pinned():
    st = _probe()
    assert st["pinned"], st
    # the variables are set (OpenBLAS would pick Haswell on this VM by itself: the effect alone
    # cannot show that the pin asks for it)
    assert st["environ"] == {"OPENBLAS_CORETYPE": numenv.BLAS_CORE, "OPENBLAS_NUM_THREADS": "1",
                             "NPY_DISABLE_CPU_FEATURES": numenv.variables()["NPY_DISABLE_CPU_FEATURES"]}
    assert st["blas"] and all(arch == numenv.BLAS_CORE and threads == 1 for _, arch, threads in st["blas"])
    assert not {"X86_V4", "AVX512F", "AVX512_SKX", "AVX512_ICL", "AVX512_SPR"} & set(st["numpy_dispatch"])


@needs_v3
def test_the_pin_decides_the_bits_of_a_matrix_product():
    """The kernels matter (Sandybridge's product differs), and the pinned run is the Haswell one
    whatever OpenBLAS would have detected."""
    pinned = _probe()
    assert pinned["product"] == _probe(OPENBLAS_CORETYPE="Haswell")["product"]
    other = _probe(OPENBLAS_CORETYPE="Sandybridge")
    assert other["product"] != pinned["product"]
    assert not other["pinned"] and "OPENBLAS_CORETYPE=Sandybridge" in other["why"]
    assert other["environ"]["OPENBLAS_CORETYPE"] == "Sandybridge"   # the user's setting is kept


@needs_v3
def test_numpy_imported_first_sets_nothing():
    """Child processes started from here would otherwise run another environment than this one.
    (Whether the result is then pinned depends on the machine: with one CPU OpenBLAS picks Haswell
    kernels on one thread by itself, and state() judges by what the libraries report.)"""
    st = _probe(first="import numpy")
    assert all(v is None for v in st["environ"].values())
    assert st["numpy_first"]
    if not st["pinned"]:
        assert "numpy was imported before verify" in st["why"], st


@needs_v3
def test_the_numpy_variable_names_what_this_numpy_dispatches():
    """A name numpy does not dispatch is ignored with an ImportWarning (an error under -W error), so
    the pin would silently not act; each must be a dispatch target of the installed numpy."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__
    except ImportError:  # pragma: no cover - numpy < 2
        from numpy.core._multiarray_umath import __cpu_dispatch__
    names = numenv.variables()["NPY_DISABLE_CPU_FEATURES"].split()
    assert names and set(names) <= set(__cpu_dispatch__), (names, __cpu_dispatch__)
    st = _probe(python_flags=["-W", "error::ImportWarning"])
    assert st["pinned"], st
    assert "X86_V3" in st["numpy_dispatch"] or {"AVX2", "FMA3"} <= set(st["numpy_dispatch"])


@needs_v3
def test_each_variable_acts():
    """Without the pin numpy and OpenBLAS choose by themselves; each variable, given alone, moves
    state() to what the pin asks (the BLAS one can only be seen where OpenBLAS would pick another
    core type or thread count, so this checks that state() reads the effect, not the variables)."""
    off = _probe(EOS_VERIFY_NUMENV="off")
    assert not off["pinned"] and "switched off" in off["why"]
    assert all(v is None for v in off["environ"].values()) or off["environ"] == {}
    alone = _probe(EOS_VERIFY_NUMENV="off", OPENBLAS_CORETYPE="Sandybridge", OPENBLAS_NUM_THREADS="1")
    assert all(arch == "Sandybridge" for _, arch, _ in alone["blas"])


@needs_v3
def test_npy_enable_cpu_features_of_the_user_is_respected():
    """numpy refuses NPY_ENABLE_ and NPY_DISABLE_CPU_FEATURES together: the pin leaves numpy's out."""
    st = _probe(NPY_ENABLE_CPU_FEATURES="X86_V3")
    assert "NPY_DISABLE_CPU_FEATURES" not in st["environ"] or st["environ"]["NPY_DISABLE_CPU_FEATURES"] is None
    assert st["pinned"], st                      # X86_V3 enabled, nothing beyond: what the pin asks
    low = _probe(NPY_ENABLE_CPU_FEATURES="X86_V2")
    assert not low["pinned"] and "does not dispatch X86_V3" in low["why"] and "NPY_ENABLE_CPU_FEATURES" in low["why"]


def test_without_threadpoolctl_the_blas_is_unknown_and_nothing_crashes():
    st = _probe(first="import sys; sys.modules['threadpoolctl'] = None")
    assert st["blas"] == [] and not st["pinned"] and "threadpoolctl" in st["why"]


@needs_v3
def test_this_test_session_is_pinned():
    """`-p verify.plugin` imports verify before any test module imports numpy."""
    assert numenv.state()["pinned"], numenv.state()


def test_one_line_and_report_warnings():
    st = {"pinned": False, "why": "numpy was imported before verify", "numpy_dispatch": ["X86_V3", "X86_V4"],
          "blas": [["openblas", "SkylakeX", 2]]}
    line = numenv.one_line(st)
    assert line == ("OpenBLAS SkylakeX kernels on 2 threads, numpy SIMD up to X86_V4 "
                    "(not pinned: numpy was imported before verify)")
    assert not numenv.is_pinned(line)
    pinned = line.replace("(not pinned: numpy was imported before verify)", "(pinned: x86-64-v3)")
    assert numenv.is_pinned(pinned)
    assert numeric_warnings({"a:1": pinned, "a:2": pinned}) == []
    assert numeric_warnings({"a:1": pinned, "b:2": line}) == [
        f"b:2 ran an environment that is not pinned: {line}", "the workers ran 2 different numerical environments"]
    # judged by the processes that ran the claims, not by this one (a Dask client)
    here = numenv.one_line()
    text = _runtime_markdown([("x.y", 1.0, "b:2")], 0, "quick", 1.0, {"b:2": line})
    assert f"Numerical environment of this process: {here}" in text
    assert f"| `b:2` | {line} |" in text and f"**Warning:** b:2 ran an environment that is not pinned" in text


def test_cli_prints_the_variables():
    out = subprocess.run([sys.executable, "-m", "verify", "numenv"], capture_output=True, text=True,
                         timeout=60, check=True, env=subprocess_env()).stdout
    assert out.startswith("# in this command's own process")
    for key, value in numenv.variables().items():
        assert f"export {key}=" in out and value.split()[0] in out
