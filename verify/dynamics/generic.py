"""GD and minibatch SGD on any objective given as a sympy expression in named parameters, many lanes.

An :class:`Objective` is f(θ) = e(θ) or, with data, the mean f(θ) = (1/n) Σᵢ e(θ, zᵢ) over the rows
zᵢ of a data array. Its gradient and Hessian are derived by sympy, common subexpressions shared
(``sympy.cse``), printed as Python on ``math`` and compiled with numba — nothing is hand-written per
objective. Full-batch GD (with or without data rows) without sharpness records runs in the blocked SIMD loop of
every declared step kernel (:mod:`.genericstep` declares it, :mod:`.stepkernel` generates it; same
results bit for bit, several times faster). :func:`run` advances many *lanes* (θ₀, η, seed), each
independently of the others:

    θ_{t+1} = θ_t − η ∇f_B(θ_t)      (B = all rows for GD; b rows drawn with replacement for SGD)

Outcomes (:class:`~verify.dynamics.Outcome`), explicit per lane, never silently a pass:

* ``CONVERGED`` — ‖∇f(θ_t)‖_∞ ≤ ``gtol``; or (GD) the step no longer moves θ by more than a few ulps
  (‖θ_{t+1} − θ_t‖_∞ ≤ 8 ε ‖θ_t‖_∞, ε = 2⁻⁵²): the float64 noise floor, below which a smaller
  tolerance would only measure rounding (flag ``at_floor``);
* ``STALLED`` — for ``patience`` steps neither has f dropped by more than its rounding (4ε|f|) nor
  has ‖∇f‖_∞ shrunk: a cycle (period-2 edge-of-stability orbits) or a plateau;
* ``DIVERGED`` — a non-finite value or ‖θ‖_∞ > 1e150; ``BUDGET`` — ``max_steps`` reached.

The sharpness λ_max(∇²f(θ_t)) is recorded every ``record_every`` steps and at the stop
(``Run.sharpness``, ``Run.final_sharpness``). :func:`cross_check` re-runs chosen lanes in mpmath
(≥ 30 digits) for exactly the float64 lane's step count and reports the relative disagreement of the
final θ; a check must treat a disagreement beyond its stated tolerance as INCONCLUSIVE.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Sequence

import mpmath
import numba
import numpy as np
import sympy as sp

from ..kernelcache import compiled_module, template_globals, template_source
from .outcomes import HUGE, Outcome
from .stepprint import SympyOrderPrinter

_EPS = 2.0**-52


def objective_cse(exprs: Sequence[sp.Expr]) -> tuple[list, list]:
    """sympy's common subexpressions of ``exprs`` named ``_c0, _c1, …``: the names enter sympy's operand
    order, hence the rounding, so the generated objective code and the step kernel of its GD
    (:mod:`.genericstep`) both take them from here."""
    return sp.cse(list(exprs), symbols=sp.numbered_symbols("_c"))


def _vector_source(exprs: Sequence[sp.Expr], params, data, label: str) -> str:
    """Source of the numba function ``label(w, z, out)`` writing exprs[k] into ``out[k]`` (CSE
    shared between the entries)."""
    names = {p: f"w[{i}]" for i, p in enumerate(params)}
    names.update({q: f"z[{j}]" for j, q in enumerate(data)})
    reps, reduced = objective_cse(exprs)
    printer = SympyOrderPrinter(names, strict=False)  # as a printed_order Let of a step kernel prints
    lines = ["@numba.njit(cache=True)", f"def {label}(w, z, out):"]
    lines += [f"    {sym} = {printer.doprint(e)}" for sym, e in reps]
    lines += [f"    out[{k}] = {printer.doprint(e)}" for k, e in enumerate(reduced)]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True, eq=False)
class Objective:
    """f(θ) given by a sympy expression in the parameters ``params`` (and, for a sum over data, the
    symbols ``data`` of one row; f is then the mean over the rows of :func:`run`'s ``data``)."""

    expr: sp.Expr
    params: tuple[sp.Symbol, ...]
    data: tuple[sp.Symbol, ...] = ()
    name: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "expr", sp.sympify(self.expr))
        object.__setattr__(self, "params", tuple(self.params))
        object.__setattr__(self, "data", tuple(self.data))
        extra = self.expr.free_symbols - set(self.params) - set(self.data)
        if extra:
            raise ValueError(f"objective {self.name or self.expr}: symbols {sorted(map(str, extra))} are "
                             "neither parameters nor data")

    @property
    def dim(self) -> int:
        return len(self.params)

    @cached_property
    def gradient(self) -> list[sp.Expr]:
        return [sp.diff(self.expr, p) for p in self.params]

    @cached_property
    def hessian(self) -> list[sp.Expr]:
        return [sp.diff(g, q) for g in self.gradient for q in self.params]

    @cached_property
    def module(self):
        """The generated module of this objective (:mod:`verify.kernelcache`, compiled once per
        machine): numba ``value``, ``gradient``, ``hessian`` (each ``fn(w, z, out)``) and the engine
        functions :func:`_engine`, :func:`_sharpness`, :func:`_finish` calling them as globals."""
        source = "\n\n".join([_vector_source([self.expr], self.params, self.data, "value"),
                               _vector_source(self.gradient, self.params, self.data, "gradient"),
                               _vector_source(self.hessian, self.params, self.data, "hessian"),
                               template_source(*_ENGINE_TEMPLATE)])
        namespace = {**template_globals(*_ENGINE_TEMPLATE), "numba": numba}
        return compiled_module(source, "objective", namespace)  # generated from sympy, not user text

    @property
    def compiled(self) -> tuple[Callable, Callable, Callable]:
        """numba (value, gradient, hessian), each ``fn(w, z, out)``."""
        m = self.module
        return m.value, m.gradient, m.hessian

    @cached_property
    def step_kernel(self):
        """Full-batch GD on this objective declared as a step kernel (:mod:`.genericstep`)."""
        from .genericstep import gd_kernel

        return gd_kernel(self.expr, self.params, self.gradient, self.data)

    @cached_property
    def blocked_kernel(self) -> Callable:
        """The blocked SIMD GD engine generated from :attr:`step_kernel` (:mod:`.stepkernel`)."""
        from .stepkernel import compiled_engine

        return compiled_engine(self.step_kernel)

    @cached_property
    def mpmath_functions(self) -> tuple[Callable, Callable]:
        args = (*self.params, *self.data)
        return (sp.lambdify(args, self.expr, "mpmath"), sp.lambdify(args, self.gradient, "mpmath"))


# inlined: a compiled function passed as an argument would be a run-time address ("dynamic global")
# in the caller, which numba cannot cache; inlined, ``fn`` is the caller's global and a static call
@numba.njit(inline="always")
def _mean_into(fn, w, Z, rows, nrows, out, acc):
    """acc = mean over Z[rows[:nrows]] of fn(w, z) (no allocation: this is the inner loop)."""
    if nrows == 1:
        fn(w, Z[rows[0]], acc)
        return
    for j in range(acc.shape[0]):
        acc[j] = 0.0
    for i in range(nrows):
        fn(w, Z[rows[i]], out)
        for j in range(acc.shape[0]):
            acc[j] += out[j]
    for j in range(acc.shape[0]):
        acc[j] /= nrows


# The engine, written once as a template: these three functions are compiled in each objective's
# generated module (:attr:`Objective.module`), where ``value``, ``gradient`` and
# ``hessian`` are that objective's functions. Passed as arguments instead, they would make numba's
# on-disk cache miss every time (a compiled function's type is part of its key).
def _sharpness(w, Z, all_rows, d, hbuf, hacc):
    _mean_into(hessian, w, Z, all_rows, all_rows.shape[0], hbuf, hacc)  # noqa: F821 (template)
    return np.linalg.eigvalsh(hacc.reshape((d, d)))[-1]


def _engine(W0, eta, Z, batch, seeds, max_steps, gtol, patience, record_every,
            check_every, W, out_i, out_f, sharp):
    L, d = W0.shape
    n = Z.shape[0]
    all_rows = np.arange(n)
    rows = np.empty(max(batch, 1), np.int64)
    sgd = 0 < batch < n
    g = np.empty(d)
    gacc = np.empty(d)
    fv = np.empty(1)
    facc = np.empty(1)
    hbuf = np.empty(d * d)
    hacc = np.empty(d * d)
    w = np.empty(d)
    n_rec = sharp.shape[1]
    for lane in range(L):
        for j in range(d):
            w[j] = W0[lane, j]
        e = eta[lane]
        if sgd:
            np.random.seed(seeds[lane])
        status, at_floor, t, k = 3, 0, 0, 0
        best, best_g, since_best = np.inf, np.inf, 0
        gnorm = np.nan
        while True:
            if t % record_every == 0 and k < n_rec:
                sharp[lane, k] = _sharpness(w, Z, all_rows, d, hbuf, hacc)
                k += 1
            full = (not sgd) or t % check_every == 0
            if full:
                _mean_into(gradient, w, Z, all_rows, n, g, gacc)  # noqa: F821 (template)
                gnorm = 0.0
                for j in range(d):  # NaN-sticky: max() would drop a NaN component and call it converged
                    a = abs(gacc[j])
                    if a > gnorm or a != a:
                        gnorm = a
                if not math.isfinite(gnorm):
                    status = 2
                    break
                if gnorm <= gtol:
                    status = 0
                    break
            if t % check_every == 0:
                _mean_into(value, w, Z, all_rows, n, fv, facc)  # noqa: F821 (template)
                f = facc[0]
                if not math.isfinite(f):
                    status = 2
                    break
                # progress: f drops by more than its rounding, or ‖∇f‖ shrinks
                if f < best - 4.0 * 2.0**-52 * abs(best) or gnorm < best_g * (1.0 - 1e-9):
                    best, since_best = min(f, best), 0
                    best_g = min(gnorm, best_g)
                else:
                    since_best += check_every
                    if since_best >= patience:
                        status = 4
                        break
            if t >= max_steps:
                status = 3
                break
            if sgd:
                for i in range(batch):
                    rows[i] = np.random.randint(0, n)
                _mean_into(gradient, w, Z, rows, batch, g, gacc)  # noqa: F821 (template)
            moved, scale, big = 0.0, 0.0, 0.0
            for j in range(d):
                wn = w[j] - e * gacc[j]
                moved = max(moved, abs(wn - w[j]))
                scale = max(scale, abs(w[j]))
                big = max(big, abs(wn))
                w[j] = wn
            t += 1
            if not (big < HUGE):
                status = 2
                break
            if not sgd and moved <= 8.0 * 2.0**-52 * scale:
                _mean_into(gradient, w, Z, all_rows, n, g, gacc)  # noqa: F821 (template)
                gnorm = 0.0
                for j in range(d):
                    a = abs(gacc[j])
                    if a > gnorm or a != a:
                        gnorm = a
                status, at_floor = 0, 1
                break
        for j in range(d):
            W[lane, j] = w[j]
        out_i[lane, 0] = status
        out_i[lane, 1] = t
        out_i[lane, 2] = at_floor
        _mean_into(value, w, Z, all_rows, n, fv, facc)  # noqa: F821 (template)
        out_f[lane, 0] = facc[0]
        out_f[lane, 1] = gnorm
        out_f[lane, 2] = _sharpness(w, Z, all_rows, d, hbuf, hacc) if status != 2 else np.nan
    return 0


def _finish(W, Z, out_i, out_f):
    """f and λ_max(∇²f) at every lane's final θ (as the lane-by-lane engine does at its stop)."""
    L, d = W.shape
    all_rows = np.arange(Z.shape[0])
    fv = np.empty(1)
    facc = np.empty(1)
    hbuf = np.empty(d * d)
    hacc = np.empty(d * d)
    for lane in range(L):
        w = W[lane].copy()
        _mean_into(value, w, Z, all_rows, Z.shape[0], fv, facc)  # noqa: F821 (template)
        out_f[lane, 0] = facc[0]
        out_f[lane, 2] = _sharpness(w, Z, all_rows, d, hbuf, hacc) if out_i[lane, 0] != 2 else np.nan


_ENGINE_TEMPLATE = (_sharpness, _engine, _finish)


@dataclass(frozen=True)
class Run:
    """Per-lane results of :func:`run` (rows in input order)."""

    objective: Objective
    theta0: np.ndarray           # (lanes, d)
    eta: np.ndarray              # (lanes,)
    theta: np.ndarray            # final iterates (lanes, d)
    outcome: np.ndarray          # Outcome codes
    steps: np.ndarray
    at_floor: np.ndarray         # converged because the step fell below float64 resolution
    value: np.ndarray            # f at the final iterate
    grad_norm: np.ndarray        # ‖∇f‖_∞ at the final iterate
    final_sharpness: np.ndarray  # λ_max(∇²f) at the final iterate (nan if diverged)
    sharpness: np.ndarray        # (lanes, records): λ_max every record_every steps, nan-padded
    notes: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.eta)

    def ok(self) -> np.ndarray:
        return self.outcome == Outcome.CONVERGED

    def counts(self) -> dict:
        return {str(o): int(np.sum(self.outcome == o)) for o in Outcome}


def run(objective: Objective, theta0: Any, eta: Any, *, data: Any = None, batch: int = 0,
        seeds: Any = 0, max_steps: int = 10**5, gtol: float = 1e-12, patience: int = 10**4,
        record_every: int = 0, records: int = 0, check_every: int = 100, blocked: bool | None = None) -> Run:
    """GD (``batch`` = 0 or ≥ n) or minibatch SGD on every lane (rows of ``theta0`` × ``eta``).

    ``theta0``: (lanes, d) or (d,) broadcast against ``eta``; ``data``: (n, k) rows for an objective
    with data symbols; ``seeds``: per-lane SGD seeds (derive them from the check's seed).
    ``record_every``/``records``: the sharpness is recorded at t = 0, record_every, … (``records``
    values at most). ``check_every``: SGD evaluates the full f and ∇f every that many steps.
    ``blocked``: use the blocked SIMD kernel (:mod:`.genericstep`; default: whenever it applies,
    full-batch GD without sharpness records; results bit-identical to the lane-by-lane engine).
    """
    theta0 = np.atleast_2d(np.asarray(theta0, float))
    eta = np.atleast_1d(np.asarray(eta, float))
    lanes = max(len(theta0), len(eta))
    theta0 = np.ascontiguousarray(np.broadcast_to(theta0, (lanes, objective.dim)))
    eta = np.ascontiguousarray(np.broadcast_to(eta, (lanes,)))
    if objective.data:
        if data is None:
            raise ValueError(f"objective {objective.name!r} sums over data rows: pass data=(n, k) array")
        Z = np.ascontiguousarray(np.asarray(data, float).reshape(-1, len(objective.data)))
    else:
        Z = np.zeros((1, 1))
    seeds = np.ascontiguousarray(np.broadcast_to(np.asarray(seeds, np.int64), (lanes,)))
    # bad run parameters are errors here, not outcomes: with check_every = 0 the compiled kernels'
    # t % 0 is 0 under numpy's error model (a stall check every step that never stalls), and a NaN
    # or infinite step size would "converge" at the float64 floor (max() drops NaN)
    if int(check_every) < 1:
        raise ValueError(f"check_every must be >= 1, got {check_every}")
    if not np.all(np.isfinite(eta)) or np.any(eta <= 0):
        raise ValueError("step sizes eta must be finite and > 0")
    n_rec = records if record_every > 0 else 0
    W = np.empty_like(theta0)
    out_i = np.zeros((lanes, 3), np.int64)
    out_f = np.zeros((lanes, 3))
    sharp = np.full((lanes, max(n_rec, 1)), np.nan)
    m = objective.module
    if blocked is None:  # the blocked SIMD kernel covers full-batch GD without sharpness records
        blocked = not (0 < batch < len(Z)) and n_rec == 0
    if blocked:
        ints, floats = np.zeros((3, lanes), np.int64), np.zeros((objective.dim + 1, lanes))
        rows = (Z,) if objective.data else ()
        objective.blocked_kernel(np.arange(lanes), np.vstack([theta0.T, eta]), *rows, int(max_steps),
                                 float(gtol), int(patience), int(check_every), ints, floats)
        W[:] = floats[:-1].T
        out_i[:] = ints.T
        out_f[:, 1] = floats[-1]
        m._finish(W, Z, out_i, out_f)
    else:
        m._engine(theta0, eta, Z, int(batch), seeds, int(max_steps), float(gtol),
                int(patience), int(record_every) if record_every > 0 else max_steps + 1, int(check_every),
                W, out_i, out_f, sharp)
    return Run(objective, theta0, eta, W, out_i[:, 0].astype(np.int8), out_i[:, 1], out_i[:, 2].astype(bool),
               out_f[:, 0], out_f[:, 1], out_f[:, 2], sharp[:, :n_rec],
               {"max_steps": int(max_steps), "gtol": gtol, "batch": int(batch), "patience": int(patience)})


def cross_check(result: Run, lanes: Sequence[int], *, data: Any = None, dps: int = 30,
                tol: float = 1e-9) -> dict:
    """Re-run ``lanes`` of a GD ``result`` in mpmath at ``dps`` digits for the same step counts;
    relative disagreement of the final θ (max over lanes). ``agree`` False ⇒ INCONCLUSIVE."""
    if result.notes.get("batch", 0):
        raise ValueError("the high-precision cross-check replays GD lanes (SGD batches are not replayed)")
    obj = result.objective
    _, grad = obj.mpmath_functions
    rows = [()] if not obj.data else [tuple(r) for r in np.asarray(data, float).reshape(-1, len(obj.data))]
    worst = 0.0
    with mpmath.workdps(dps):
        for i in lanes:
            w = [mpmath.mpf(float(v)) for v in result.theta0[i]]
            e = mpmath.mpf(float(result.eta[i]))
            zs = [[mpmath.mpf(float(v)) for v in r] for r in rows]
            for _ in range(int(result.steps[i])):
                acc = [mpmath.mpf(0)] * obj.dim
                for z in zs:
                    acc = [a + gi for a, gi in zip(acc, grad(*w, *z))]
                w = [wi - e * a / len(zs) for wi, a in zip(w, acc)]
            scale = max(abs(v) for v in w) or mpmath.mpf(1)
            diff = max(abs(v - mpmath.mpf(float(f))) for v, f in zip(w, result.theta[i])) / scale
            worst = max(worst, float(diff))
    return {"hp_agree": bool(worst <= tol), "hp_max_rel_diff": worst, "hp_tolerance": tol,
            "hp_lanes": len(list(lanes)), "hp_digits": dps, "hp_backend": "mpmath"}
