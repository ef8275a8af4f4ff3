"""Compiling a declared step kernel's generated source (:mod:`.stepkernel`): once per process per
(source, bound kernels), through numba's on-disk cache when it can (:mod:`verify.kernelcache`)."""
from __future__ import annotations

import functools
import math
from typing import Any, Callable

import numba
import numpy as np

from ..kernelcache import COMPILE_LOCK
from .coordloop import input_output_rows
from .stepitems import StepKernel
from .steplayout import STRIDE, stride_for
from .stepprint import select

_COMPILED: dict = {}


def compile_source(source: str, label: str, kernels: dict | None = None) -> Callable:
    """The numba ``engine`` of a generated source with the compiled calls ``kernels`` (``{name:
    function}``) bound as the module-level ``k_name``: one compile per (source, kernels) per process, and
    through :func:`verify.kernelcache.compiled_module` (numba's on-disk cache) whenever the kernels are
    importable by name — the generated loss kernels are —, so later processes load it instead of
    compiling. The single place where generated step-kernel source is compiled."""
    from ..kernelcache import compiled_module

    bound = {f"k_{name}": fn for name, fn in (kernels or {}).items()}
    key = (source, tuple(bound.items()))
    with COMPILE_LOCK:  # the threads of one call (dynamics.run(parallel=...)) compile it once, in turn
        if key not in _COMPILED:
            namespace: dict[str, Any] = {"math": math, "np": np, "numba": numba, "select": select, **bound}
            try:
                _COMPILED[key] = compiled_module(source, label, namespace).engine
            except ValueError:  # a kernel that is not importable by name (a closure): compile it in memory
                scope = dict(namespace)
                text = source.replace("cache=True, ", "").replace("numba.njit(cache=True)", "numba.njit")
                exec(compile(text, f"<verify.dynamics.stepkernel {label}>", "exec"), scope)  # generated from sympy
                _COMPILED[key] = scope["engine"]
        return _COMPILED[key]


@functools.lru_cache(maxsize=None)
def _source(k: StepKernel, lanewise: bool = False, stride: int | None = None) -> str:
    from .stepkernel import kernel_source

    return kernel_source(k, lanewise, stride)


def compiled_engine(k: StepKernel, lanewise_below: int = 0) -> Callable:
    """The compiled engine of a declared kernel, called as ``engine(<k_name, k_name_p for each kernel>,
    lanes, I, <constants>, out_i, out_f)``: the kernels are bound into a generated module per kernel
    (:func:`compile_source`; numba specialises on them anyway), the printing paid once per declaration.

    A call of fewer than ``lanewise_below`` lanes runs the same declaration printed lane by lane
    (:mod:`.steplanewise`, compiled on its first such call): the same bits, faster where few lanes are
    live; its rows hold 64 coordinates, or the next power of two at or above d (a source per row length,
    :func:`.steplayout.stride_for`), so it never declines a call made here (the blocked engine would
    run one it declined)."""
    names = list(dict.fromkeys(c.kernel for c in k.calls))
    with COMPILE_LOCK:
        source = _source(k)

    def engine(*args):
        kernels = dict(zip(names, args[0:2 * len(names):2]))
        params = args[1:2 * len(names):2]
        rest = args[2 * len(names):]
        d = _check_shapes(k, rest)
        if len(rest[0]) < lanewise_below:
            stride = stride_for(d or 0)
            label = k.label + "_lanewise" + (f"_{stride}" if stride != STRIDE else "")
            with COMPILE_LOCK:  # printing parses Python too (stepprint): one thread at a time
                lanewise = compile_source(_source(k, True, stride), label, kernels)
            if lanewise(*params, *rest) == 0:
                return 0
        return compile_source(source, k.label, kernels)(*params, *rest)

    return engine


def _check_shapes(k: StepKernel, args) -> int | None:
    """A clear ValueError for arguments of the wrong shape (the generated engine indexes without bounds
    checks): ``lanes`` columns of ``I``, ``out_i`` and ``out_f``; the rows of ``I`` and ``out_i``, the
    columns of ``Z`` (but a per-coordinate data symbol's d), the rows of ``out_f`` without
    per-coordinate quantities; with them, d from ``Z`` or ``I`` must leave no rows over, and the
    engine checks ``out_f`` against d). Returns d (None without per-coordinate quantities)."""
    lanes, I, out_i, out_f = args[0], args[1], args[-2], args[-1]
    where = f"step kernel {k.label!r}"
    for name, a, ndim in (("lanes", lanes, 1), ("I", I, 2), ("out_i", out_i, 2), ("out_f", out_f, 2)):
        if getattr(a, "ndim", None) != ndim:
            raise ValueError(f"{where}: {name} must be a {ndim}-d array, got {type(a).__name__} "
                             f"of shape {getattr(a, 'shape', None)}")
    if len(lanes) and (lanes.min() < 0 or lanes.max() >= min(I.shape[1], out_i.shape[1], out_f.shape[1])):
        raise ValueError(f"{where}: lanes must be column indices of I, out_i and out_f "
                         f"(columns {I.shape[1]}, {out_i.shape[1]}, {out_f.shape[1]}; lanes in "
                         f"[{lanes.min()}, {lanes.max()}])")
    if out_i.shape[0] != len(k.int_outputs):
        raise ValueError(f"{where}: out_i has {out_i.shape[0]} rows, one per int output: {len(k.int_outputs)}")
    inputs = (*k.params, *k.lane_inputs)
    per = [q in k.coordinates for q in inputs]
    if k.data and getattr(args[2], "ndim", None) != 2:
        raise ValueError(f"{where}: Z must be a 2-d array of data rows")
    if k.data and not any(z in k.coordinates for z in k.data) and args[2].shape[1] != len(k.data):
        raise ValueError(f"{where}: Z columns: {args[2].shape[1]}, expected {len(k.data)}")
    if not k.coordinates:
        rows = {"I": (I.shape[0], len(inputs)), "out_f": (out_f.shape[0], len(k.float_outputs))}
        for name, (got, want) in rows.items():
            if got != want:
                raise ValueError(f"{where}: {name}: {got}, expected {want}")
        _check_batch_table(k, args, inputs, 0, where)
        return None
    fixed = len(inputs) - sum(per)
    if any(z in k.coordinates for z in k.data):
        d = args[2].shape[1] - sum(z not in k.coordinates for z in k.data)
        ok = I.shape[0] == sum(per) * d + fixed
    else:
        d = (I.shape[0] - fixed) // max(sum(per), 1)
        ok = I.shape[0] >= fixed and (I.shape[0] - fixed) % max(sum(per), 1) == 0
    # out_f's rows (per-coordinate outputs take d each) are checked by the engine itself, which
    # knows which outputs are per coordinate (coordloop.coord_buffer)
    if not ok or d < 0:
        raise ValueError(f"{where}: I has {I.shape[0]} rows, expected {sum(per)}·d + {fixed} (d = {d})")
    _check_batch_table(k, args, inputs, d, where)
    return d


def _check_batch_table(k: StepKernel, args, inputs, d: int, where: str) -> None:
    """The batch table (a kernel with a ``batch_slot``): int32 BT[slot, t, q] of data rows, at least one
    step and one row per batch; the slots of the lanes run (the ``batch_slot`` input's row of ``I`` in
    the ``lanes`` columns, d its per-coordinate rows' count) whole numbers indexing it."""
    if k.batch_slot is None:
        return
    BT, n_rows = args[3], args[2].shape[0]
    a, c = input_output_rows(inputs, lambda q: q in k.coordinates)[k.batch_slot]
    slots = args[1][a * d + c][args[0]]  # the lanes' columns only: the other columns are not run
    if getattr(BT, "ndim", None) != 3 or BT.dtype != np.int32 or 0 in BT.shape:
        raise ValueError(f"{where}: BT must be a non-empty 3-d int32 array BT[slot, step, q] of data rows, got "
                         f"{getattr(BT, 'dtype', type(BT).__name__)} of shape {getattr(BT, 'shape', None)}")
    if BT.min() < 0 or BT.max() >= n_rows:
        raise ValueError(f"{where}: BT holds rows outside Z's 0..{n_rows - 1}")
    if not np.all((slots == np.floor(slots)) & (slots >= 0) & (slots < BT.shape[0])):
        raise ValueError(f"{where}: the lanes' {k.batch_slot} must be whole numbers in 0..{BT.shape[0] - 1} "
                         "(rows of the batch table)")
