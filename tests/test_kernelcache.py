"""The kernel cache (verify/kernelcache.py): a second process loads compiled kernels from disk, the
cache can be switched off or be unwritable without changing anything but speed, and a changed
dependency gives a new key."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from verify import kernelcache

ROOT = Path(__file__).resolve().parents[1]

_CHILD = """
import json
import sympy as sp
from verify.kernels import float64_kernel
from verify.loss import S
kernel, params = float64_kernel(sp.tanh(S) * sp.Rational(5, 11), S)
print(json.dumps({"value": kernel(0.3, params), "hits": sum(kernel.stats.cache_hits.values()),
                  "misses": sum(kernel.stats.cache_misses.values())}))
"""


def _child(directory: Path) -> dict:
    env = {**os.environ, kernelcache.ENV: str(directory), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", _CHILD], cwd=ROOT, env=env, check=True, capture_output=True,
                          text=True)
    return json.loads(done.stdout.splitlines()[-1])


def test_a_second_process_loads_the_kernel_from_the_disk_cache(tmp_path):
    first, second = _child(tmp_path), _child(tmp_path)
    assert (first["hits"], first["misses"]) == (0, 1)  # compiled, and written to the cache
    assert (second["hits"], second["misses"]) == (1, 0)  # loaded, not compiled
    assert first["value"] == second["value"]  # the very same machine code
    assert abs(first["value"] - np.tanh(0.3) * 5 / 11) <= 1e-16
    assert len(list(tmp_path.glob("float64_kernel_*.py"))) == 1


def _tiny(tag: str) -> str:  # a source no other test compiles (the in-process memo is keyed by it)
    return f"@numba.njit(cache=True)\ndef twice(v):\n    return 2.0 * v  # {tag}\n"


def test_off_compiles_in_a_per_process_directory(monkeypatch):
    monkeypatch.setenv(kernelcache.ENV, "off")
    module = kernelcache.compiled_module(_tiny("off"), "tiny", {"numba": __import__("numba")})
    assert module.twice(1.5) == 3.0
    assert Path(module.__file__).parent == kernelcache._per_process_dir()


def test_an_unwritable_directory_falls_back_silently(monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv(kernelcache.ENV, str(blocker / "kernels"))  # cannot be created (even as root)
    assert kernelcache.cache_dir() == kernelcache._per_process_dir()
    module = kernelcache.compiled_module(_tiny("unwritable"), "tiny", {"numba": __import__("numba")})
    assert module.twice(2.0) == 4.0


def test_a_changed_dependency_changes_the_key(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(tmp_path))  # modules that are not installed are hashed
    (tmp_path / "kc_dep_top.py").write_text("from kc_dep_base import C\n\ndef f(v):\n    return C * v\n")
    (tmp_path / "kc_dep_base.py").write_text("C = 2.0\n")
    source = "from kc_dep_top import f\n"
    key = kernelcache.source_key(source)
    assert kernelcache.source_key(source) == key
    (tmp_path / "kc_dep_base.py").write_text("C = 3.0\n")  # a module the imported one imports
    changed = kernelcache.source_key(source)
    assert changed != key
    (tmp_path / "kc_dep_top.py").write_text("from kc_dep_base import C\n\ndef f(v):\n    return C + v\n")
    assert kernelcache.source_key(source) not in (key, changed)
    # modules outside the project (numpy here) are not hashed: only their version matters via numba's
    assert kernelcache._dependencies("import numpy\n") == {}


def test_import_lines_bind_a_namespace_as_exec_would():
    import math

    from verify.dynamics.generic import _mean_into

    text = kernelcache.import_lines({"math": math, "np": np, "_mean_into": _mean_into, "HUGE": 1e150 / 3,
                                     "INF": -math.inf})
    assert text.splitlines() == ["import math", "import numpy as np",
                                 "from verify.dynamics.generic import _mean_into", f"HUGE = {1e150 / 3!r}",
                                 "INF = float('-inf')"]
    scope: dict = {}
    exec(text, scope)  # our own generated imports
    assert scope["HUGE"] == 1e150 / 3 and scope["INF"] == -math.inf and scope["_mean_into"] is _mean_into


def test_a_generated_module_can_call_another_ones_functions(monkeypatch, tmp_path):
    import numba

    monkeypatch.setenv(kernelcache.ENV, str(tmp_path))
    first = kernelcache.compiled_module(_tiny("callee"), "tiny", {"numba": numba})
    caller = kernelcache.compiled_module("@numba.njit(cache=True)\ndef four_times(v):\n    return twice(twice(v))\n",
                                         "caller", {"numba": numba, "twice": first.twice})
    assert caller.four_times(1.25) == 5.0
    assert first.__name__ in Path(caller.__file__).read_text()


def _scaled(v):  # a template: ``kernel`` is bound by compiled_template
    return 3.0 * kernel(v)  # noqa: F821


def test_a_template_binds_an_importable_kernel_on_disk_and_a_closure_in_memory(monkeypatch, tmp_path):
    import numba

    monkeypatch.setenv(kernelcache.ENV, str(tmp_path))
    callee = kernelcache.compiled_module(_tiny("template"), "tiny", {"numba": numba}).twice
    cached = kernelcache.compiled_template((_scaled,), "scaled", {"kernel": callee})
    assert cached._scaled(1.0) == 6.0 and Path(cached.__file__).parent == tmp_path
    k = 5.0

    @numba.njit
    def closure(v):  # not importable by name: compiled per process, same code
        return k * v

    assert kernelcache.compiled_template((_scaled,), "scaled", {"kernel": closure})._scaled(1.0) == 15.0


def test_svml_is_off_and_refused(monkeypatch):
    """Intel SVML's vector exp/log round differently from libm: importing verify switches it off,
    and a generated kernel is not compiled if numba uses it anyway (results would depend on the machine)."""
    import numba

    assert os.environ.get("NUMBA_DISABLE_INTEL_SVML") == "1" and not numba.config.USING_SVML
    monkeypatch.setattr(numba.config, "USING_SVML", True)
    with pytest.raises(RuntimeError, match="SVML"):
        kernelcache.compiled_module("X = 1  # svml probe\n", "svml_probe")
