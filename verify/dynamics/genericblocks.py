"""The blocked (SIMD) GD kernel of the generic engine, generated from the sympy gradient.

For full-batch GD on an objective without data rows and without sharpness records along the path,
:func:`verify.dynamics.generic.run` advances lanes in blocks of ``_WIDTH`` slots held as structure of
arrays, like the ℓ(xy) engine (:mod:`.stepkernel`, :mod:`.lxy`): the gradient (CSE'd sympy expressions printed as
straight-line Python on ``math``, nothing hand-written), the gradient checks and the step are one
branch-free loop over the slots, which LLVM vectorises when the gradient has no libm call. The steps
that need more — the value check every ``check_every`` steps (stall detection), the gradient at a
new point when the step falls below the float64 floor — are flagged and finished in a scalar pass
with the very code of the lane-by-lane engine, so every lane's step count, outcome and final θ are
bit-identical to :func:`verify.dynamics.generic._engine` (tested).
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

import numba
import numpy as np
import sympy as sp

from .outcomes import _HUGE

_WIDTH = 64
_CHUNK = 32
_EPS = 2.0**-52


def _printer(names: dict):
    from .generic import _VectorPrinter

    return _VectorPrinter(names)


def blocked_source(gradient: Sequence[sp.Expr], params: Sequence[sp.Symbol]) -> str:
    """Python source of ``gd_blocks(...)`` for this gradient (see :func:`blocked_engine`)."""
    d = len(params)
    names = {p: f"w{j}" for j, p in enumerate(params)}
    reps, reduced = sp.cse(list(gradient), symbols=sp.numbered_symbols("_c"))
    pr = _printer(names)
    G, E, GN, BEST, BESTG = d, 2 * d, 2 * d + 1, 2 * d + 2, 2 * d + 3
    nf = 2 * d + 4
    ind = " " * 16
    body = [f"{ind}w{j} = F[{j}, b]" for j in range(d)]
    body += [f"{ind}{s} = {pr.doprint(e)}" for s, e in reps]
    body += [f"{ind}g{j} = {pr.doprint(e)}" for j, e in enumerate(reduced)]
    body += [f"{ind}gnorm = 0.0"] + [f"{ind}gnorm = max(gnorm, abs(g{j}))" for j in range(d)]
    body += [f"{ind}F[{G + j}, b] = g{j}" for j in range(d)]
    lines = f'''
@numba.njit(cache=True, nogil=True, error_model="numpy")
def gd_blocks(lanes, W0, eta, Z, rows, max_steps, gtol, patience, check_every, W, out_i, out_f):
    n = lanes.shape[0]
    w = min({_WIDTH}, n)
    F = np.zeros(({nf}, {_WIDTH}))
    N = np.zeros((5, {_WIDTH}), np.int64)  # lane, status (-2 empty, -1 running, -3 deferred), t, at_floor, since_best
    N[1, :] = -2
    wv = np.empty({d})
    g = np.empty({d})
    gacc = np.empty({d})
    fv = np.empty(1)
    facc = np.empty(1)
    nxt = 0
    live = 0
    for b in range(w):
        _load(F, N, b, lanes[nxt], W0, eta)
        nxt += 1
        live += 1
    while live > 0:
        for _ in range({_CHUNK}):
            extra = 0
            for b in range(w):
{chr(10).join(body)}
                t = N[2, b]
                act = N[1, b] == -1
                finite = abs(gnorm) < math.inf
                small = finite & (gnorm <= gtol)
                check = (t % check_every) == 0
                defer = act & finite & (not small) & check
                budget = act & finite & (not small) & (not check) & (t >= max_steps)
                go = act & finite & (not small) & (not check) & (not budget)
                e = F[{E}, b]
                moved = 0.0
                scale = 0.0
                big = 0.0
'''
    step = []
    for j in range(d):
        step += [f"{ind}n{j} = w{j} - e * g{j}",
                 f"{ind}moved = max(moved, abs(n{j} - w{j}))",
                 f"{ind}scale = max(scale, abs(w{j}))",
                 f"{ind}big = max(big, abs(n{j}))"]
    step += [f"{ind}F[{j}, b] = n{j} if go else w{j}" for j in range(d)]
    lines += "\n".join(step) + f'''
                diverged = not (big < _HUGE)
                floor = go & (not diverged) & (moved <= 8.0 * {_EPS!r} * scale)
                F[{GN}, b] = gnorm if act else F[{GN}, b]
                N[2, b] = t + 1 if go else t
                status = (2 if not finite else 0 if small else -3 if defer else 3 if budget
                          else 2 if diverged else -3 if floor else -1)
                N[1, b] = status if act else N[1, b]
                N[3, b] = 1 if floor else N[3, b]
                extra |= 1 if (defer | floor) else 0
            if extra:
                for b in range(w):
                    if N[1, b] == -3:
                        _scalar_step(F, N, b, Z, rows, max_steps, patience, check_every,
                                     wv, g, gacc, fv, facc)
        for b in range(w):
            if N[1, b] >= 0:
                _store(F, N, b, W, out_i, out_f)
                if nxt < n:
                    _load(F, N, b, lanes[nxt], W0, eta)
                    nxt += 1
                else:
                    N[1, b] = -2
                    live -= 1
    return 0


@numba.njit
def _load(F, N, b, i, W0, eta):
    for j in range({d}):
        F[j, b] = W0[i, j]
        F[{G} + j, b] = 0.0
    F[{E}, b] = eta[i]
    F[{GN}, b] = np.nan
    F[{BEST}, b] = np.inf
    F[{BESTG}, b] = np.inf
    N[0, b] = i
    N[1, b] = -1
    N[2, b] = 0
    N[3, b] = 0
    N[4, b] = 0


@numba.njit
def _store(F, N, b, W, out_i, out_f):
    i = N[0, b]
    for j in range({d}):
        W[i, j] = F[j, b]
    out_i[i, 0] = N[1, b]
    out_i[i, 1] = N[2, b]
    out_i[i, 2] = N[3, b]
    out_f[i, 1] = F[{GN}, b]


@numba.njit
def _scalar_step(F, N, b, Z, rows, max_steps, patience, check_every, wv, g, gacc, fv, facc):
    """Finish slot b's step with the code of the lane-by-lane engine: the value check (the gradient,
    its checks and gnorm are already done for this t), or the gradient at a below-floor step."""
    for j in range({d}):
        wv[j] = F[j, b]
    if N[3, b] == 1:  # the step fell below the float64 floor: gradient at the new point, converged
        _mean_into(grad, wv, Z, rows, 1, g, gacc)
        gnorm = 0.0
        for j in range({d}):
            gnorm = max(gnorm, abs(gacc[j]))
        F[{GN}, b] = gnorm
        N[1, b] = 0
        return
    t = N[2, b]
    gnorm = F[{GN}, b]
    _mean_into(value, wv, Z, rows, 1, fv, facc)
    f = facc[0]
    if not math.isfinite(f):
        N[1, b] = 2
        return
    best = F[{BEST}, b]
    best_g = F[{BESTG}, b]
    if f < best - 4.0 * 2.0**-52 * abs(best) or gnorm < best_g * (1.0 - 1e-9):
        F[{BEST}, b] = min(f, best)
        N[4, b] = 0
        F[{BESTG}, b] = min(gnorm, best_g)
    else:
        N[4, b] += check_every
        if N[4, b] >= patience:
            N[1, b] = 4
            return
    if t >= max_steps:
        N[1, b] = 3
        return
    e = F[{E}, b]
    moved, scale, big = 0.0, 0.0, 0.0
    for j in range({d}):
        wn = wv[j] - e * F[{G} + j, b]
        moved = max(moved, abs(wn - wv[j]))
        scale = max(scale, abs(wv[j]))
        big = max(big, abs(wn))
        F[j, b] = wn
        wv[j] = wn
    N[2, b] = t + 1
    if not (big < _HUGE):
        N[1, b] = 2
        return
    if moved <= 8.0 * 2.0**-52 * scale:
        _mean_into(grad, wv, Z, rows, 1, g, gacc)
        gnorm = 0.0
        for j in range({d}):
            gnorm = max(gnorm, abs(gacc[j]))
        F[{GN}, b] = gnorm
        N[3, b] = 1
        N[1, b] = 0
        return
    N[1, b] = -1
'''
    return lines


def blocked_engine(gradient: Sequence[sp.Expr], params: Sequence[sp.Symbol], module) -> Callable:
    """numba ``gd_blocks(lanes, W0, eta, Z, rows, max_steps, gtol, patience, check_every, W, out_i,
    out_f)`` for this gradient, with the objective's compiled ``value``/``gradient`` (``module``, see
    :attr:`verify.dynamics.generic.Objective.module`) bound as module globals and compiled through
    :func:`verify.kernelcache.compiled_module` (numba's on-disk cache); writes the final θ into ``W``
    and, per lane, (status, steps, at_floor) into ``out_i`` and the last ‖∇f‖_∞ into ``out_f[:, 1]``."""
    from ..kernelcache import compiled_module
    from .generic import _mean_into

    namespace = {"math": math, "np": np, "numba": numba, "_HUGE": _HUGE, "_mean_into": _mean_into,
                 "value": module.value, "grad": module.gradient}
    return compiled_module(blocked_source(gradient, params), "gd_blocks", namespace).gd_blocks
