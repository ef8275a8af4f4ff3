"""Generated numba source compiled into an importable module, so that numba's on-disk cache works.

Every compiled kernel here is generated from a sympy expression (:mod:`verify.kernels`,
:mod:`verify.dynamics.generic`). numba caches compiled code on disk only for functions defined in a
real ``.py`` file (source that is ``exec``'d has none), and its cache key contains the *types* of the
arguments, so a function taking another compiled function as an argument misses every time. This
module therefore writes the generated source to ``<cache dir>/<label>_<hash16>.py`` and imports it as
a module: functions in it carry ``@numba.njit(cache=True, ...)`` and call the other generated
functions as module globals, so a second process loads their machine code instead of compiling it.
An engine that calls a generated kernel is written once, as plain Python functions (a *template*)
whose free names — the kernel among them — the generated module binds (:func:`compiled_template`).

The key (the ``<hash16>`` of the file name, and of the module name) is the sha256 of the source, the
numba, numpy and Python versions and the text of every module of this project (or any other module
not installed) the source imports, transitively:
numba checks only the time stamp of the file a function is defined in, not of the functions it
calls, so a changed dependency must change the file. Results never depend on the cache: a cached
function is the machine code numba compiled for the very same source.

Directory: ``$EOS_VERIFY_KERNEL_CACHE`` (a path, or ``off``: a per-process temporary directory,
removed at exit, i.e. no persistence); default ``$XDG_CACHE_HOME/eos-verify/kernels``, else
``~/.cache/eos-verify/kernels``. A directory that cannot be created or written falls back to the
per-process temporary directory silently. Deleting the directory clears the cache.
"""
from __future__ import annotations

import ast
import atexit
import hashlib
import importlib.util
import inspect
import math
import os
import re
import shutil
import sys
import sysconfig
import tempfile
import textwrap
import threading
import types
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numba
import numpy as np

from .bench import benchmark

ENV = "EOS_VERIFY_KERNEL_CACHE"
_PROJECT_ROOT = Path(__file__).resolve().parent.parent  # holds the packages verify/, claims/, …
_INSTALLED = {Path(sysconfig.get_paths()[k]).resolve() for k in ("stdlib", "platstdlib", "purelib", "platlib")}
_MODULE_PREFIX = "eos_kernel_"
_memo: dict[str, types.ModuleType] = {}
# Held while generated source is printed, keyed and imported: CPython 3.11's ast.parse is not
# thread-safe ("AST constructor recursion depth mismatch" when two threads parse at once, CPython
# gh-106905), and two threads compiling one module would each import it. Re-entrant: printing and
# compiling nest. The compiled functions run outside it (numba releases the GIL). numba compiles a
# function at its first call, outside this lock, under its own (one of its passes parses Python
# too): so a caller that runs an engine from several threads calls it once first in its own thread
# (dynamics.run(parallel=...) does), and the threads then find it compiled.
COMPILE_LOCK = threading.RLock()
_process_dir: Path | None = None
_dirs: dict[str, Path] = {}  # by the value of $EOS_VERIFY_KERNEL_CACHE


def cache_dir() -> Path:
    """The directory generated modules are written to (created; writable, else a per-process one)."""
    setting = os.environ.get(ENV, "").strip()
    if setting not in _dirs:
        _dirs[setting] = _usable_dir(setting)
    return _dirs[setting]


def _usable_dir(setting: str) -> Path:
    if setting.lower() == "off":
        return _per_process_dir()
    if setting:
        path = Path(setting).expanduser()
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        path = Path(base) / "eos-verify" / "kernels"
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".probe-"):
            pass
        return path
    except OSError:  # read-only or missing parent: compile anyway, without persistence
        return _per_process_dir()


def _per_process_dir() -> Path:
    global _process_dir
    if _process_dir is None:
        _process_dir = Path(tempfile.mkdtemp(prefix="eos-verify-kernels-"))
        atexit.register(shutil.rmtree, _process_dir, True)
    return _process_dir


def import_lines(namespace: Mapping[str, Any]) -> str:
    """Python import statements that bind each name of ``namespace`` as an ``exec`` namespace would:
    modules (``import numpy as np``), importable functions or compiled functions (``from m import f
    as name``, also from a module made here), and numbers or strings (``name = <repr>``, exact for
    floats)."""
    lines = []
    for name, obj in namespace.items():
        if isinstance(obj, types.ModuleType):
            lines.append(f"import {obj.__name__}" if obj.__name__ == name else f"import {obj.__name__} as {name}")
        elif isinstance(obj, float) and not math.isfinite(obj):
            lines.append(f"{name} = float({str(obj)!r})")
        elif isinstance(obj, (bool, int, float, str)):
            lines.append(f"{name} = {obj!r}")
        else:
            func = getattr(obj, "py_func", obj)  # a numba dispatcher: where its Python function lives
            module, qualname = getattr(func, "__module__", None), getattr(func, "__qualname__", "")
            if module in (None, "__main__") or "." in qualname or "<" in qualname:
                raise ValueError(f"{name}: {qualname or obj!r} is not a module-level name of an importable module")
            lines.append(f"from {module} import {qualname}" + ("" if qualname == name else f" as {name}"))
    return "\n".join(lines) + "\n"


def template_source(*functions: Callable, **jit_options: Any) -> str:
    """The source of plain Python functions (an engine written once), each decorated
    ``@numba.njit(cache=True, **jit_options)``, for a generated module that binds their free names."""
    options = ", ".join(["cache=True", *(f"{k}={v!r}" for k, v in jit_options.items())])
    return "\n\n".join(f"@numba.njit({options})\n" + textwrap.dedent(inspect.getsource(f)) for f in functions)


def template_globals(*functions: Callable) -> dict[str, Any]:
    """The globals of the functions' own modules that their code uses (other than themselves)."""
    own = {f.__name__ for f in functions}
    found: dict[str, Any] = {}
    for f in functions:
        codes = [f.__code__]
        while codes:
            code = codes.pop()
            codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
            found.update({n: f.__globals__[n] for n in code.co_names if n in f.__globals__ and n not in own})
    return found


def compiled_template(functions: Sequence[Callable], label: str, namespace: Mapping[str, Any],
                      **jit_options: Any) -> Any:
    """The functions (plain Python, written once) compiled with numba, their free names bound by
    ``namespace`` (e.g. the kernel an engine calls) and else by their own module: in a generated,
    disk-cached module (:func:`compiled_module`) when every bound object is importable, else (a
    closure, say) per process. Returns an object with the compiled functions as attributes."""
    bound = {**template_globals(*functions), "numba": numba, **namespace}
    try:
        imports = import_lines(bound)
    except ValueError:  # something is not importable by name: bind it in memory (no disk cache)
        scope = {**functions[0].__globals__, **bound}
        compiled = types.SimpleNamespace()
        for f in functions:
            jitted = numba.njit(**jit_options)(types.FunctionType(f.__code__, scope, f.__name__, f.__defaults__))
            scope[f.__name__] = jitted
            setattr(compiled, f.__name__, jitted)
        return compiled
    return compiled_module(imports + template_source(*functions, **jit_options), label)


def compiled_module(source: str, label: str, namespace: Mapping[str, Any] | None = None) -> types.ModuleType:
    """The module made of ``source`` (preceded by :func:`import_lines` of ``namespace``, if given),
    written to the cache directory and imported under a name unique to its key; memoised in-process.

    ``source`` is generated by our printers from sympy, never user text. Its numba functions should
    be ``@numba.njit(cache=True, ...)``; they then compile once per cache directory, not per process.
    """
    with COMPILE_LOCK:
        return _compiled_module(source, label, namespace)


def _compiled_module(source: str, label: str, namespace: Mapping[str, Any] | None) -> types.ModuleType:
    text = (import_lines(namespace) if namespace else "") + source
    key = source_key(text)
    if key in _memo:
        return _memo[key]
    if numba.config.USING_SVML:
        raise RuntimeError("numba is using Intel SVML (vector exp/log that round differently from "
                           "libm): results would depend on the machine. Set NUMBA_DISABLE_INTEL_SVML=1 "
                           "before numba is imported (importing verify first does it).")
    stem = f"{re.sub(r'[^0-9A-Za-z_]', '_', label)}_{key[:16]}"
    name = _MODULE_PREFIX + stem
    path = cache_dir() / f"{stem}.py"
    if not _holds(path, text):
        _write_atomically(path, text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # so that another generated module can import its functions
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    _memo[key] = module
    return module


def source_key(text: str) -> str:
    """sha256 (hex) of the source, the numba, numpy and Python versions and the text of the
    (not installed) modules it imports."""
    h = hashlib.sha256()
    for part in (text, numba.__version__, np.__version__, sys.version):
        h.update(part.encode())
        h.update(b"\0")
    for name, dep in sorted(_dependencies(text).items()):
        h.update(name.encode() + b"\0" + dep + b"\0")
    return h.hexdigest()


def _dependencies(text: str) -> dict[str, bytes]:
    """{module name: file bytes} of the modules ``text`` imports that are this project's or not
    installed (see :func:`_source_file`), followed transitively."""
    found: dict[str, bytes] = {}
    todo = _imported_names(text, package=None)
    while todo:
        name = todo.pop()
        if name in found:
            continue
        if name.startswith(_MODULE_PREFIX):  # a generated module: its name holds its own key
            found[name] = b""
            continue
        path = _source_file(name)
        if path is None:
            continue
        found[name] = path.read_bytes()
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        todo.extend(_imported_names(found[name].decode(), package=package))
    return found


def _imported_names(text: str, package: str | None) -> list[str]:
    """Modules an import statement of ``text`` may load (``from a import b``: ``a`` and ``a.b``)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if package is None:
                    continue
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            names.append(module)
            names += [f"{module}.{alias.name}" for alias in node.names]
    return names  # (a package's __init__ is followed only where it is named: it rarely holds kernels)


def _source_file(name: str) -> Path | None:
    """The source file of module ``name`` if it is this project's or not installed; None for the
    standard library, numpy, … (their versions are in the key)."""
    module = sys.modules.get(name)
    origin = getattr(module, "__file__", None) if module is not None else None
    if origin is None and module is None:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
        origin = spec.origin if spec is not None else None
    if not origin or not origin.endswith(".py"):
        return None
    path = Path(origin).resolve()
    if _PROJECT_ROOT in path.parents or not any(root in path.parents for root in _INSTALLED):
        return path
    return None


def _holds(path: Path, text: str) -> bool:
    try:
        return path.read_text(encoding="utf-8") == text
    except OSError:
        return False


def _write_atomically(path: Path, text: str) -> None:
    """Write via a temporary file, so that a concurrent reader sees no file or the whole file. The
    first writer wins (a hard link fails if the file exists): the file, hence its time stamp, which
    numba's index records, is not replaced under another process that has just compiled from it."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        try:
            os.link(tmp, path)
        except FileExistsError:
            if not _holds(path, text):  # not what this key names (a truncated file, say): replace it
                os.replace(tmp, path)
        except OSError:  # no hard links on this file system
            os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


# ----------------------------------------------------------------------------- benchmark
_BENCH_CHILD = """
import time
import sympy as sp
from verify.dynamics.ddarith import two_sum
from verify.dynamics.generic import Objective, run
x, y = sp.symbols("x y", real=True)
started = time.perf_counter()
two_sum(1.0, 2.0)  # numba's start-up (its registries, BLAS), paid once by any process that compiles
up = time.perf_counter()
run(Objective(sp.sqrt(1 + (x * y) ** 2), (x, y)), [[0.5, 1.5]], [0.1], max_steps=10, blocked=False)
print(up - started, time.perf_counter() - up)
"""


@benchmark("scale.compile_cold_vs_warm", target=0.5, unit="s", higher_is_better=False,
           description="a generic-engine objective (sqrt(1+(xy)^2): value, gradient, Hessian and the "
                       "lane-by-lane engine) made and run for 10 steps in a fresh process after numba's "
                       "start-up, with a warm kernel cache (value, best of 2) and an empty one "
                       "(cold_seconds); numba's one-off start-up per process alongside")
def bench_compile_cold_vs_warm() -> dict:
    import subprocess

    def child(directory: str) -> tuple[float, float]:
        env = {**os.environ, ENV: directory}
        done = subprocess.run([sys.executable, "-c", _BENCH_CHILD], cwd=_PROJECT_ROOT, env=env, check=True,
                              capture_output=True, text=True)
        startup, seconds = map(float, done.stdout.split()[-2:])
        return seconds, startup

    with tempfile.TemporaryDirectory(prefix="eos-verify-bench-") as directory:
        cold, _ = child(directory)
        warm, startup = min(child(directory) for _ in range(2))
    return {"value": warm, "cold_seconds": cold, "numba_startup_seconds": startup}
