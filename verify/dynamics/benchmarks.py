"""Benchmarks of the GD paths (``python -m verify bench dynamics``)."""
from __future__ import annotations

import math
import time

import mpmath
import numpy as np
import sympy as sp

from ..bench import benchmark, best_of
from ..loss import S, Loss
from .ddpath import run_dd
from .highprec import naive_mpmath_gd, run_hp
from .lanes import normalised_start, run

def _bench_losses() -> tuple[Loss, Loss]:
    """The sqrt and log-cosh losses as sympy forms only: their kernels are generated."""
    return (Loss(name="sqrt", dl=S / sp.sqrt(1 + S**2), l=sp.sqrt(1 + S**2), beta=2.0),
            Loss(name="tanh-derivative", dl=sp.tanh(S), l=sp.log(2 * sp.cosh(S)), beta=2.0))


def _handwritten_sqrt() -> Loss:
    """The same sqrt loss with a hand-written kernel: the reference for "no loss of speed"."""
    import numba as _nb

    @_nb.njit(cache=True, error_model="numpy")  # as the generated kernels (no division branch)
    def k_sqrt(s, p):
        return s / math.sqrt(1.0 + s * s)

    return Loss(name="sqrt-hand", dl=S / sp.sqrt(1 + S**2), beta=2.0, kernel=k_sqrt)


@benchmark("dynamics.float64_lanes", target=5e7, unit="lane-steps/s",
           description="float64 numba engine (all first-class outputs tracked), 1000-lane step-size "
                       "sweep of GD on sqrt(1+(xy)^2) (fixed step count, one thread); ratio vs a plain "
                       "Python loop reported, and the same for log(2cosh(xy)); kernels generated from "
                       "the sympy forms (ratio to a hand-written sqrt kernel reported)")
def bench_float64() -> dict:
    loss, loss_tanh = _bench_losses()
    lanes, steps = 1000, 20000
    eta = np.geomspace(1e-3, 0.3, lanes)
    x0, y0 = normalised_start(eta, 3.0)

    def engine_rate(L, parallel=False):
        run(L, x0[:2], y0[:2], eta[:2], max_steps=10, rtol=0.0, parallel=parallel)  # compile
        t = time.perf_counter()
        r = run(L, x0, y0, eta, max_steps=steps, rtol=0.0, xtol=0.0, parallel=parallel)
        return int(r.steps.sum()) / (time.perf_counter() - t)

    def python_rate(f):
        py_steps, py_lanes = 2000, 10
        t = time.perf_counter()
        for i in range(py_lanes):
            x, y, e = float(x0[i]), float(y0[i]), float(eta[i])
            for _ in range(py_steps):
                g = f(x * y)
                x, y = x - e * g * y, y - e * g * x
        return py_steps * py_lanes / (time.perf_counter() - t)

    rate = engine_rate(loss)
    rate_hand = engine_rate(_handwritten_sqrt())
    rate = max(rate, engine_rate(loss))  # interleave the two measurements on a shared machine
    py = python_rate(lambda s: s / math.sqrt(1.0 + s * s))
    rate_tanh = engine_rate(loss_tanh)
    py_tanh = python_rate(math.tanh)
    return {"value": rate, "loss": "sqrt(1+s^2) (l' = s/sqrt(1+s^2)), one thread",
            "handwritten_kernel_rate": rate_hand, "generated_vs_handwritten": rate / rate_hand,
            "python_loop_rate": py, "speedup_vs_python": rate / py,
            "tanh_loss_rate": rate_tanh, "tanh_speedup_vs_python": rate_tanh / py_tanh,
            "lanes": lanes, "steps_per_lane": steps}


@benchmark("dynamics.high_precision", target=30.0, unit="x naive mpmath",
           description="compiled double-double GD path (106 bits, ~31.9 digits) vs a naive mpmath loop at "
                       "32 digits on log(2cosh(xy)), one whole EoS lane (eta = 0.01; step count reported); agreement "
                       "in digits reported; the arb "
                       "(>= 30-digit, 116-bit) path is reported alongside")
def bench_hp() -> dict:
    loss = _bench_losses()[1]
    eta = 0.01
    x0, y0 = normalised_start(eta, 3.0)
    x0, y0 = float(x0), float(y0)
    run_dd(loss, x0, y0, eta, max_steps=5)  # compile

    t_dd, d = best_of(5, lambda: run_dd(loss, x0, y0, eta)[0])  # a whole EoS lane
    steps = d.steps
    t_naive, (xr, yr) = best_of(2, lambda: naive_mpmath_gd(loss, x0, y0, eta, steps, dps=32))
    t_arb, a = best_of(2, lambda: run_hp(loss, x0, y0, eta, dps=30, max_steps=steps, rtol=0.0)[0])
    with mpmath.workdps(40):
        def digits(v):
            rel = abs(v - yr) / abs(yr)
            return float(-mpmath.log10(rel)) if rel > 0 else 40.0
        dd_digits, arb_digits = digits(d.y), digits(a.y)
    return {"value": t_naive / t_dd, "steps": steps, "eta": eta, "naive_dps": 32,
            "naive_seconds": t_naive, "dd_seconds": t_dd, "dd_agreement_digits": dd_digits,
            "arb_seconds": t_arb, "arb_speedup": t_naive / t_arb, "arb_agreement_digits": arb_digits,
            "timing": "best of 5 (dd) / 2 (mpmath, arb) runs"}



@benchmark("dynamics.generic_lanes", unit="lane-steps/s",
           description="generic GD engine (blocked SIMD kernel generated from the gradient of the sympy "
                       "objective sqrt(1+(xy)^2) in named parameters x, y; one thread) on the 1000-lane sweep "
                       "of dynamics.float64_lanes; ratio to the specialised ℓ(xy) engine reported (which "
                       "also tracks the first-class ℓ(xy) outputs: t-bar, bounces, D product, t0, ...)")
def bench_generic() -> dict:
    from .generic import Objective
    from .generic import run as run_generic

    x, y = sp.symbols("x y", real=True)
    objective = Objective(sp.sqrt(1 + (x * y) ** 2), (x, y), name="sqrt(1+(xy)^2)")
    lanes, steps = 1000, 5000
    eta = np.geomspace(1e-3, 0.3, lanes)
    x0, y0 = normalised_start(eta, 3.0)
    theta0 = np.c_[x0, y0]
    run_generic(objective, theta0[:2], eta[:2], max_steps=10, gtol=0.0)  # compile
    loss = _bench_losses()[0]
    run(loss, x0[:2], y0[:2], eta[:2], max_steps=10, rtol=0.0)
    best_generic = best_lanes = 0.0
    for _ in range(2):  # interleaved, best of two: the machine is shared
        t = time.perf_counter()
        r = run_generic(objective, theta0, eta, max_steps=steps, gtol=0.0, patience=10**9)
        best_generic = max(best_generic, int(r.steps.sum()) / (time.perf_counter() - t))
        t = time.perf_counter()
        s = run(loss, x0, y0, eta, max_steps=steps, rtol=0.0)
        best_lanes = max(best_lanes, int(s.steps.sum()) / (time.perf_counter() - t))
    return {"value": best_generic, "specialised_rate": best_lanes,
            "generic_vs_specialised": best_generic / best_lanes, "lanes": lanes, "steps_per_lane": steps}
