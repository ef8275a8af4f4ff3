"""Full-batch GD on any sympy objective as a declared step kernel (:mod:`.stepkernel`).

The generic engine's GD (:func:`verify.dynamics.generic._engine`, one lane at a time) written as a
:class:`~.stepitems.StepKernel`, so that :func:`verify.dynamics.generic.run` advances its lanes in
the blocked SIMD loop the ℓ(xy) engine uses (:mod:`.lxy`) — one generator for every blocked kernel:

* prelude, at θ_t for every running lane: the gradient g = ∇f(θ_t) (the objective's own CSE'd sympy
  gradient, printed as the lane-by-lane engine prints it, so both round alike; for an objective that
  is a mean over data rows, a :class:`~.stepitems.RowMean` summing the rows in that engine's order),
  ‖g‖_∞ as the running NaN-sticky maximum of that engine, recorded as the lane's last gradient norm;
* before-rules in the lane engine's order: the previous step fell below the float64 floor
  (CONVERGED, ``at_floor``: the norm just recorded is that at the new point), ‖g‖ not finite
  (DIVERGED), ‖g‖_∞ ≤ gtol (CONVERGED), every ``check_every`` steps a :class:`~.stepitems.Checkpoint`
  — f(θ_t) (CSE'd, as the engine's ``value``) and the stall test, in the scalar pass: f not finite
  (DIVERGED), no progress for ``patience`` steps (STALLED) —, then the budget (BUDGET);
* the step θ' = θ − η g, and after it ‖θ'‖_∞ ≥ 1e150 (DIVERGED) or the float64 floor
  ‖θ' − θ‖_∞ ≤ 8ε‖θ‖_∞ (a :class:`~.stepitems.State` read by the next before-rule).

Every sum or product is printed as the lane engine prints it, every running maximum in its order, so
each lane's steps, outcome and final θ are those of :func:`~verify.dynamics.generic._engine` bit for bit
(``tests/test_generic_dynamics.py``).
"""
from __future__ import annotations

import sympy as sp

from .generic import _EPS, objective_cse as cse
from .outcomes import HUGE
from .stepitems import (T, Checkpoint, IsFinite, IsNaN, LastWhere, Let, MaxOf, MinOf, RowMean, State,
                        StepKernel, StopRule)

_s = sp.Symbol
eta, gtol = _s("_eta", real=True), _s("_gtol", real=True)
max_steps, patience, check_every = (_s(n, integer=True) for n in ("_max_steps", "_patience", "_check_every"))
gnorm_out = _s("_grad_norm", real=True)
at_floor, since = _s("_at_floor", integer=True), _s("_since_best", integer=True)
best, best_g = _s("_best", real=True), _s("_best_g", real=True)


def _running_max(name: str, terms) -> tuple[list, sp.Symbol]:
    """m = 0.0; m = max(m, term) for each term (the lane engine's loop, in its order)."""
    lets, m = [], sp.Float(0.0)
    for j, term in enumerate(terms):
        nxt = _s(f"_{name}{j}", real=True)
        lets.append(Let(nxt, MaxOf(m, term)))
        m = nxt
    return lets, m


def _nan_sticky_max(name: str, terms) -> tuple[list, sp.Symbol]:
    """m = 0.0; m = a if a > m or a is NaN else m, a = |term|, for each term — the lane engine's ‖∇f‖_∞:
    a NaN component makes the norm NaN (Python's ``max(m, nan)`` would drop it, and a NaN gradient
    would pass for a converged one)."""
    lets, m = [], sp.Float(0.0)
    for j, term in enumerate(terms):
        a, nxt = _s(f"_{name}a{j}", real=True), _s(f"_{name}{j}", real=True)
        lets += [Let(a, sp.Abs(term)), Let(nxt, sp.Piecewise((a, (a > m) | IsNaN(a)), (m, True)))]
        m = nxt
    return lets, m


def _mean(names, exprs, data) -> tuple:
    """``names = exprs`` at θ_t: straight-line Lets of the CSE'd expressions (no data: the engine calls
    the objective's generated function on its single row), else their mean over the data rows."""
    reps, reduced = cse(exprs)
    if not data:
        return (*(Let(c, e, printed_order=True) for c, e in reps),
                *(Let(q, e, printed_order=True) for q, e in zip(names, reduced)))
    return (RowMean(tuple(names), tuple(reduced), tuple(Let(c, e) for c, e in reps), printed_order=True),)


def gd_kernel(expr: sp.Expr, params: tuple, gradient: list, data: tuple = ()) -> StepKernel:
    """The declared GD kernel of the objective f = ``expr`` in ``params`` (with ``data``: the mean over
    data rows of ``expr``): the engine is called ``engine(lanes, I, [Z,] max_steps, gtol, patience,
    check_every, out_i, out_f)`` with ``I`` rows θ₀ (one per parameter) then η, ``Z`` the data rows;
    outputs ``out_i`` rows (outcome, steps, at_floor), ``out_f`` rows the final θ then the last ‖∇f‖_∞."""
    d = len(params)
    g = [_s(f"_g{j}", real=True) for j in range(d)]
    nxt = [_s(f"_n{j}", real=True) for j in range(d)]
    step = [_s(f"_e{j}", real=True) for j in range(d)]
    grad = _mean(g, gradient, data)
    norm_lets, gnorm = _nan_sticky_max("gn", g)
    finite, small, check = _s("_finite"), _s("_small"), _s("_check")
    prelude = (*(grad if not data else ()),
               *norm_lets, LastWhere(gnorm_out, gnorm),
               Let(finite, IsFinite(gnorm)), Let(small, finite & (gnorm <= gtol)),
               Let(check, sp.Eq(sp.Mod(T, check_every), 0)))

    # every check_every steps: f(θ_t) and the stall test (progress: f drops by more than its rounding,
    # or ‖∇f‖ shrinks), as the lane engine does them
    f, drop, f_thr, g_thr = (_s(n, real=True) for n in ("_f", "_drop", "_f_thr", "_g_thr"))
    f_bad, progress, since_next = _s("_f_bad"), _s("_progress"), _s("_since_next", integer=True)
    stall_check = Checkpoint(
        where=check,
        items=(*_mean([f], [expr], data),
               Let(f_bad, sp.Not(IsFinite(f))),
               Let(drop, sp.Float(4.0 * _EPS) * sp.Abs(best)), Let(f_thr, best - drop),
               Let(g_thr, best_g * sp.Float(1.0 - 1e-9)),
               Let(progress, (f < f_thr) | (gnorm < g_thr)),
               Let(since_next, sp.Piecewise((0, progress), (since + check_every, True))),
               State(best, float("inf"), sp.Piecewise((MinOf(f, best), progress), (best, True))),
               State(best_g, float("inf"), sp.Piecewise((MinOf(gnorm, best_g), progress), (best_g, True))),
               State(since, 0, since_next)),
        stop=((f_bad, 2), (sp.Not(progress) & (since_next >= patience), 4)))

    moved, m_mv = _running_max("mv", [sp.Abs(n - p) for n, p in zip(nxt, params)])
    scale, m_sc = _running_max("sc", [sp.Abs(p) for p in params])
    big, m_bg = _running_max("bg", [sp.Abs(n) for n in nxt])
    bounded, diverged, floor = _s("_bounded"), _s("_diverged"), _s("_floor")
    body = (*(Let(e, eta * gj) for e, gj in zip(step, g)),
            *(Let(n, p - e) for n, p, e in zip(nxt, params, step)),  # θ − η∇f(θ)
            *moved, *scale, *big,
            Let(bounded, m_bg < HUGE), Let(diverged, sp.Not(bounded)),  # named: sympy would turn
            # not(‖θ'‖ < H) into ‖θ'‖ ≥ H, which a NaN does not satisfy
            Let(floor, sp.Not(diverged) & (m_mv <= sp.Float(8.0 * _EPS) * m_sc)),  # 8ε‖θ‖: the float64 floor
            State(at_floor, 0, sp.Piecewise((1, floor), (0, True))))
    return StepKernel(
        label="gd_generic", params=tuple(params), next_params=tuple(nxt), lane_inputs=(eta,),
        constants=(max_steps, gtol, patience, check_every), calls=(), prelude=prelude, body=body,
        data=tuple(data), row_means=grad if data else (),
        stop=StopRule(before=((at_floor > 0, 0), (sp.Not(finite), 2), (small, 0), stall_check,
                              (T >= max_steps, 3)),
                      after=((diverged, 2),)),
        int_outputs=("outcome", "steps", at_floor.name),
        float_outputs=(*(p.name for p in params), gnorm_out.name))
