"""Generated kernels compiled from several threads at once (``dynamics.run(parallel=2)`` on a cold
cache): CPython 3.11's ast.parse is not thread-safe (two threads parsing at once can raise
"SystemError: AST constructor recursion depth mismatch", CPython gh-106905; seen once in the suite
on a fresh clone), so printing, keying and importing generated source hold
``verify.kernelcache.COMPILE_LOCK``, and ``dynamics.run`` compiles its engine (numba's type-specialised
compile too) before it starts its threads; the compiled engines then run side by side."""
import sys
import threading
import time

import numpy as np

from verify import dynamics, kernelcache
from verify.dynamics import stepcompile
from verify.dynamics.lanes import compiled_dl
from verify.dynamics.lxy import LXY
from claims.ahn2023._losses import RSYM


def _slowed_parse(monkeypatch):
    """kernelcache's parse slowed down (a wider window for two threads to meet), with the most threads
    seen inside it at once."""
    inside, peak, guard = [0], [0], threading.Lock()
    parse = kernelcache._imported_names

    def slow_parse(text, package):
        with guard:
            inside[0] += 1
            peak[0] = max(peak[0], inside[0])
        time.sleep(0.05)
        try:
            return parse(text, package)
        finally:
            with guard:
                inside[0] -= 1

    monkeypatch.setattr(kernelcache, "_imported_names", slow_parse)
    monkeypatch.setattr(kernelcache, "_memo", {})          # as on a cold start: every engine is keyed
    monkeypatch.setattr(stepcompile, "_COMPILED", {})      # and imported again
    for name in [m for m in sys.modules if m.startswith(kernelcache._MODULE_PREFIX)]:
        monkeypatch.setitem(sys.modules, name, sys.modules[name])  # re-imported here; restored after
    return peak


def test_two_threads_compiling_one_engine_parse_one_at_a_time(monkeypatch):
    peak = _slowed_parse(monkeypatch)
    kernel, params = compiled_dl(RSYM)
    start = threading.Barrier(2)
    found = []

    def compile_it():
        start.wait()
        found.append(stepcompile.compile_source(stepcompile._source(LXY), LXY.label, {"dl": kernel}))

    threads = [threading.Thread(target=compile_it) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert peak[0] == 1, f"{peak[0]} threads parsed generated source at once"
    assert len(found) == 2 and found[0] is found[1]   # compiled once, the second thread took it


def test_parallel_lanes_compile_before_their_threads_and_match_the_serial_run(monkeypatch):
    peak = _slowed_parse(monkeypatch)
    compiling, compile_source, guard = set(), stepcompile.compile_source, threading.Lock()

    def counted(*args, **kwargs):
        with guard:
            compiling.add(threading.get_ident())
        return compile_source(*args, **kwargs)

    monkeypatch.setattr(stepcompile, "compile_source", counted)
    eta = np.geomspace(0.5, 60.0, 40)
    x0, y0 = np.full(40, 1e-3), np.linspace(2.0, 12.0, 40)
    threaded = dynamics.run(RSYM, x0, y0, eta, max_steps=200, parallel=2)
    assert threading.get_ident() in compiling and peak[0] == 1   # compiled here, before the threads
    serial = dynamics.run(RSYM, x0, y0, eta, max_steps=200, parallel=1)
    for name in ("x", "y", "steps", "outcome"):
        a, b = np.asarray(getattr(threaded, name)), np.asarray(getattr(serial, name))
        assert a.tobytes() == b.tobytes(), name
