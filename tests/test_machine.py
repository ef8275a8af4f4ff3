"""verify.machine describes the hardware beside every timing (bench, RUNTIME.md) and must never stop a
run: unreadable or odd /proc/cpuinfo fields and an unavailable load average are left out."""
import os

from verify import machine


def test_odd_cpuinfo_and_no_load_average_do_not_raise(monkeypatch):
    monkeypatch.setattr(machine, "_cpuinfo", lambda: {"model name": "", "cpu MHz": "n/a"})

    def no_load():
        raise OSError("no load average here")
    monkeypatch.setattr(os, "getloadavg", no_load)
    m = machine.describe()
    assert m["simd"] is None and "mhz" not in m and "load_average_1min" not in m
    assert "SIMD extensions unknown" in machine.one_line(m)


def test_flags_are_read_when_present(monkeypatch):
    monkeypatch.setattr(machine, "_cpuinfo", lambda: {"model name": "X", "cpu MHz": "2000.5",
                                                      "flags": "sse4_2 avx avx2 fma"})
    m = machine.describe()
    assert m["simd"] == ["sse4_2", "avx", "avx2", "fma"] and m["mhz"] == 2000
    assert machine.one_line(m).startswith("X, ") and "avx2+fma (no avx512f)" in machine.one_line(m)
