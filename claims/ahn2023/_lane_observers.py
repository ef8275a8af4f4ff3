"""One GD trajectory on ℓ(xy), several quasi-static observers: the engine's declared step kernel
:data:`verify.dynamics.lxy.LXY` with its quasi-static ratio declared once per window (up to :data:`SLOTS`).

Why: Theorem 5, eq. (14), Propositions 3 and 4 and their planted errors read the same lanes through
different ratios |s_t|^p/(δ_t + shift) (another power p, δ-window or shift; App. C.5), and the
engine's kernel records one ratio per run, so each of them re-ran the same ~5·10^7-step lane of
ℓ_{3/2} (k = 6). Here the ratio is declared once per slot by substituting the slot's symbols into
LXY's own declaration (the same expression, so the same rounding), the rest of LXY unchanged:
every slot's count/min/max, and every other output, are those of a separate
:func:`verify.dynamics.run` with that window (``tests/test_ahn2023_lane_sharing.py``).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import sympy as sp

from verify import dynamics
from verify.dynamics import lxy
from verify.dynamics.lanes import compiled_dl
from verify.dynamics.stepkernel import RareReduction, StepKernel, compiled_engine

SLOTS = 8
"""Most ratios per run (a kernel is generated per number of ratios: an unused slot would still cost
its test on every step)."""


def _slot_symbols(j: int) -> dict:
    """LXY's quasi-static symbols for slot j (slot 0 is LXY's own)."""
    names = (lxy.qs_lo, lxy.qs_shift, lxy.beta, lxy.qs_hi, lxy.qs_count, lxy.qs_min, lxy.qs_max)
    if j == 0:
        return {s: s for s in names}
    return {s: sp.Symbol(f"{s.name}_{j}", **s.assumptions0) for s in names}


@lru_cache(maxsize=None)
def kernel(n: int) -> StepKernel:
    """LXY with its quasi-static RareReduction declared ``n`` times (slot 0 is LXY's own)."""
    (qs_item,) = [b for b in lxy.LXY.body if isinstance(b, RareReduction) and b.count == lxy.qs_count]
    slots = [_slot_symbols(j) for j in range(n)]
    reductions = tuple(RareReduction(sp.sympify(qs_item.value).xreplace(m), sp.sympify(qs_item.where).xreplace(m),
                                     count=m[lxy.qs_count], min=m[lxy.qs_min], max=m[lxy.qs_max],
                                     max_init=qs_item.max_init) for m in slots)
    i = lxy.LXY.body.index(qs_item)
    extra = slots[1:]
    return StepKernel(
        label=f"gd_lxy_qs{n}",
        params=lxy.LXY.params, next_params=lxy.LXY.next_params,
        lane_inputs=lxy.LXY.lane_inputs + tuple(s for m in extra for s in (m[lxy.qs_lo], m[lxy.qs_shift])),
        constants=lxy.LXY.constants + tuple(s for m in extra for s in (m[lxy.beta], m[lxy.qs_hi])),
        calls=lxy.LXY.calls, body=lxy.LXY.body[:i] + reductions + lxy.LXY.body[i + 1:],
        stop=lxy.LXY.stop, lane_constants=lxy.LXY.lane_constants, finals=lxy.LXY.finals,
        int_outputs=lxy.LXY.int_outputs + tuple(m[lxy.qs_count].name for m in extra),
        float_outputs=lxy.LXY.float_outputs + tuple(m[q].name for m in extra for q in (lxy.qs_min, lxy.qs_max)),
    )


def _power(loss, beta) -> float:
    """The ratio's exponent as :func:`verify.dynamics.run` resolves it (−1: ratio off)."""
    b = loss.beta if beta is None else beta
    return float(b) if (b is not None and math.isfinite(b)) else -1.0


def run_observed(loss, x0: float, y0: float, eta: float, windows: list, *, contraction: bool, max_steps: int,
                 xtol: float = 0.0, rtol: float = 1e-13, s_c: float = 0.5, s_eps: float = 0.0) -> list:
    """One lane, observed through every window ``(lo, hi, shift, beta)`` (at most SLOTS): one
    :class:`verify.dynamics.Lanes` per window, as ``dynamics.run(..., qs_window=(lo, hi),
    qs_shift=shift, beta=beta, contraction=contraction)`` would return it."""
    if not 0 < len(windows) <= SLOTS:
        raise ValueError(f"1..{SLOTS} windows per run, got {len(windows)}")
    compiled = compiled_dl(loss)
    if compiled is None:  # no compiled ℓ': the engine's own runs, one per window
        return [dynamics.run(loss, [x0], [y0], [eta], max_steps=max_steps, xtol=xtol, rtol=rtol, s_c=s_c,
                             s_eps=s_eps, qs_window=(lo, hi), qs_shift=sh, beta=b, contraction=contraction)
                for lo, hi, sh, b in windows]
    k = kernel(len(windows))
    slots = [(lo, hi, sh, _power(loss, b)) for lo, hi, sh, b in windows]
    inputs = np.array([[x0], [y0], [eta]] + [[v] for lo, _, sh, _ in slots for v in (lo, sh)], float)
    constants = (int(max_steps), float(xtol), float(rtol), float(s_c), float(s_eps), slots[0][3],
                 float(slots[0][1]), bool(contraction))
    constants += tuple(float(v) for _, hi, _, b in slots[1:] for v in (b, hi))
    out_i = np.zeros((len(k.int_outputs), 1), np.int64)
    out_f = np.zeros((len(k.float_outputs), 1), np.float64)
    dl, params = compiled
    compiled_engine(k)(dl, params, np.arange(1), inputs, *constants, out_i, out_f)
    fi = {name: out_i[j].copy() for j, name in enumerate(k.int_outputs)}
    ff = {name: out_f[j].copy() for j, name in enumerate(k.float_outputs)}
    common = {f: fi[f] for f in lxy.INT_FIELDS} | {f: ff[f] for f in lxy.FLOAT_FIELDS}
    common["outcome"] = common["outcome"].astype(np.int8)
    notes = {"engine": "numba", "max_steps": int(max_steps), "rtol": rtol, "xtol": xtol, "s_c": s_c}
    out = []
    for j in range(len(windows)):
        sfx = "" if j == 0 else f"_{j}"
        fields = {**common, "qs_count": fi["qs_count" + sfx], "qs_min": ff["qs_min" + sfx],
                  "qs_max": ff["qs_max" + sfx]}
        out.append(dynamics.Lanes(eta=np.array([eta]), x0=np.array([x0]), y0=np.array([y0]), notes=dict(notes),
                                  **{f: v.copy() for f, v in fields.items()}))
    return out
