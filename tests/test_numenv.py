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
                  "environ": {{k: __import__("os").environ.get(k) for k in numenv.variables()}}}}))
"""


def _probe(first: str = "", **env) -> dict:
    clean = {k: v for k, v in subprocess_env().items() if k not in numenv.variables()}
    out = subprocess.run([sys.executable, "-c", _PROBE.format(first=first)], env={**clean, **env},
                         capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout)


@needs_v3
def test_a_fresh_process_is_pinned():
    st = _probe()
    assert st["pinned"], st
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
def test_numpy_imported_first_is_reported_and_nothing_is_set():
    st = _probe(first="import numpy")
    assert not st["pinned"] and "numpy was imported before verify" in st["why"]
    # child processes started from here would otherwise run another environment than this one
    assert all(v is None for v in st["environ"].values())


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
    here = numenv.one_line()
    assert numeric_warnings({"a:1": here}) == ([] if numenv.state()["pinned"] else
                                               [f"the numerical environment is not pinned ({numenv.state()['why']})"])
    warned = numeric_warnings({"a:1": here, "b:2": line})
    assert warned[-1] == f"worker b:2 ran with {line}"
    text = _runtime_markdown([("x.y", 1.0, "b:2")], 0, "quick", 1.0, {"b:2": line})
    assert f"Numerical environment: {here}" in text and f"**Warning:** worker b:2 ran with {line}" in text


def test_cli_prints_the_variables():
    out = subprocess.run([sys.executable, "-m", "verify", "numenv"], capture_output=True, text=True,
                         timeout=60, check=True, env=subprocess_env()).stdout
    assert out.startswith("# in effect: ")
    for key, value in numenv.variables().items():
        assert f"export {key}=" in out and value.split()[0] in out
