"""Generated kernels compiled from several threads at once (``dynamics.run(parallel=2)`` on a cold
cache): CPython 3.11's ast.parse is not thread-safe (two threads parsing at once can raise
"SystemError: AST constructor recursion depth mismatch", CPython gh-106905; seen once in the suite
on a fresh clone), so printing, keying and importing generated source hold
``verify.kernelcache.COMPILE_LOCK``; the compiled engines then run side by side."""
import sys
import threading
import time

import numpy as np

from verify import dynamics, kernelcache
from verify.dynamics import stepcompile
from claims.ahn2023._losses import RSYM


def test_generated_source_is_parsed_and_compiled_by_one_thread_at_a_time(monkeypatch):
    inside, peak, guard = [0], [0], threading.Lock()
    parse = kernelcache._imported_names

    def slow_parse(text, package):  # widens the window in which two threads would meet
        with guard:
            inside[0] += 1
            peak[0] = max(peak[0], inside[0])
        time.sleep(0.05)
        try:
            return parse(text, package)
        finally:
            with guard:
                inside[0] -= 1

    compiling, compile_source = set(), stepcompile.compile_source

    def counted(*args, **kwargs):  # which threads reach the compilation (both must: the race exists)
        with guard:
            compiling.add(threading.get_ident())
        return compile_source(*args, **kwargs)

    monkeypatch.setattr(kernelcache, "_imported_names", slow_parse)
    monkeypatch.setattr(stepcompile, "compile_source", counted)
    monkeypatch.setattr(kernelcache, "_memo", {})          # as on a cold start: every engine is keyed
    monkeypatch.setattr(stepcompile, "_COMPILED", {})      # and imported again, from the threads
    for name in [m for m in sys.modules if m.startswith(kernelcache._MODULE_PREFIX)]:
        monkeypatch.setitem(sys.modules, name, sys.modules[name])  # re-imported here; restored after
    eta = np.geomspace(0.5, 60.0, 40)
    x0, y0 = np.full(40, 1e-3), np.linspace(2.0, 12.0, 40)
    threaded = dynamics.run(RSYM, x0, y0, eta, max_steps=200, parallel=2)
    assert len(compiling) == 2, "the run did not compile from two threads"
    assert peak[0] == 1, f"{peak[0]} threads parsed generated source at once"
    serial = dynamics.run(RSYM, x0, y0, eta, max_steps=200, parallel=1)
    for name in ("x", "y", "steps", "outcome"):
        a, b = np.asarray(getattr(threaded, name)), np.asarray(getattr(serial, name))
        assert a.tobytes() == b.tobytes(), name
