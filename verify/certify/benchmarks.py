"""Benchmarks of the interval engine (``python -m verify bench certify``).
"""
from __future__ import annotations

import time
from fractions import Fraction

import sympy as sp

from ..bench import benchmark
from ..claim import Context
from .inequality import inequality
from .losses import eos_start
from .sympy_arb import from_sympy
from .trajectory import _SHARPNESS_CACHE, enclose_limit_sharpness, limit_sharpness

_S = sp.Symbol("s", real=True)
_TANH_DLOSS, _TANH_D2LOSS = from_sympy(sp.tanh(_S), _S), from_sympy(sp.diff(sp.tanh(_S), _S), _S)  # l' = tanh


@benchmark("certify.ex1_rsym_seconds", target=1.0, unit="s", higher_is_better=False,
           description="certify tanh(s)/s <= 1 - s^2/4 on [-1/4, 1/4] (arb bisection + Taylor at 0)")
def _bench_ex1() -> dict:
    s = sp.Symbol("s")
    chk = inequality("bench", sp.tanh(s) / s, 1 - s**2 / 4, Fraction(-1, 4), Fraction(1, 4))
    started = time.perf_counter()
    ev = chk(Context(0))
    sec = time.perf_counter() - started
    return {"value": sec, "verdict": str(ev.status), "boxes": ev.data.get("boxes")}


@benchmark("certify.trajectory_steps_per_second", target=2.5e4, unit="steps/s",
           description="centred-form arb enclosure of GD on tanh loss, eta = 0.01 (64 bits); the target is "
                       "what the 2 s y_inf^2 certificate needs (its step count: certify.y_inf_sq_eta_0.01_seconds)")
def _bench_steps() -> dict:
    x0, y0 = eos_start(Fraction(1, 100), 3, Fraction(3, 4), Fraction(5, 4))
    steps = 20000
    started = time.perf_counter()
    res = enclose_limit_sharpness(_TANH_DLOSS, Fraction(1, 100), x0, y0, d2loss=_TANH_D2LOSS,
                                  max_steps=steps, check_every=steps + 1)
    sec = time.perf_counter() - started
    return {"value": steps / sec, "steps": steps, "max_radius": res.max_traj_width}


@benchmark("certify.y_inf_sq_eta_0.01_seconds", target=2.0, unit="s", higher_is_better=False,
           description="certified y_inf^2 and 2/eta - y_inf^2 > 0 for tanh loss, eta = 0.01, EoS start m = 3")
def _bench_limit() -> dict:
    x0, y0 = eos_start(Fraction(1, 100), 3, Fraction(3, 4), Fraction(5, 4))
    chk = limit_sharpness("bench", _TANH_DLOSS, Fraction(1, 100), x0, y0, d2loss=_TANH_D2LOSS)
    _SHARPNESS_CACHE.clear()  # time a cold run
    started = time.perf_counter()
    ev = chk(Context(0))
    sec = time.perf_counter() - started
    return {"value": sec, "verdict": str(ev.status), "width": ev.data.get("width"),
            "steps": ev.data.get("steps")}
