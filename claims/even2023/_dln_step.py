"""Full-batch GD on the diagonal linear network as a declared step kernel (verify.dynamics.stepkernel).

even2023 eqs. (1)-(3) with B_k = all rows: β = u ⊙ v, L(β) = ‖Xβ − y‖²/(2n),

    s_k = γ ∇L(β_k) = γ Xᵀ(Xβ_k − y)/n,   u_{k+1} = u_k − s_k ⊙ v_k,   v_{k+1} = v_k − s_k ⊙ u_k,

declared in named quantities (:mod:`verify.dynamics.stepitems`) with the operation order of the
hand-written :func:`claims.even2023._dln._lanes_kernel`, so that every field of :class:`._dln.Lanes` is
that kernel's bit for bit (``tests/test_dln_step.py``). u, v, ln α and the data columns x are
per-coordinate quantities (:class:`~verify.dynamics.stepitems.PerCoordinate`, printed once inside loops
over j by :mod:`verify.dynamics.coordloop`): d is the columns of the data array but one, read at run
time, so ONE compiled engine (~15 s cold) serves every dimension of the catalogue (2 … 40).
A call of fewer than ``LANEWISE_BELOW`` lanes runs the same declaration printed lane by lane
(:mod:`verify.dynamics.steplanewise`, the same bits, ~15 s compile cold), where the blocked engine
was ~3× slower than the hand-written kernel at one lane. Against the hand-written kernel
(``python -m verify bench even2023.dln_gd_step``, speed ratios): E1 (d = 30) 1.00 at one lane, 1.00 at
8, 0.97 at 128; E3 (d = 10) 1.36-1.44; on the catalogue's GD calls 0.987× its time (1.07× until the
log branch's RareUpdate declared ``absent_if``: the coordinate loop then runs without its selects at
the steps where no |s_j| reaches 0.05). So :func:`._dln.run_lanes` runs it by default (the
hand-written kernel on request, ``gd_engine="hand"``: the oracle of the tests):

* one pass over the data rows (:class:`~verify.dynamics.stepitems.RowMean`, plain sums from 0.0 in row
  order): the residual r_i = (…((−y_i + x_i1 β_1) + x_i2 β_2) …) + x_id β_d (``_residual``; a
  :class:`~verify.dynamics.stepitems.Reduce` over j), Σ_i r_i² and G_j = Σ_i r_i x_ij;
* L = (0.5 Σ r_i²)/n; in the prelude (so also at the step where the lane converges and does not step,
  but not at a non-finite L) the loss sum Σ_k L(β_k), the bounces #{k: L(β_k) > L(β_{k−1})} and the
  last ``window`` losses (:class:`~verify.dynamics.stepitems.Window`);
* g_j = G_j/n, s_j = γ g_j, the running max_j |s_j| and its sup over the steps, Σ_k s_k², and
  Σ_k 2γ²λ_min/max(XXᵀ/n) L(β_k) (``sum_grad_curv``);
* the log-gains ln α_{±,k+1} = ln α_{±,k} − q_±(s_k)/2 and Gain += (q_+ + q_−)/2 (spec §0.6, def8) by
  the series of ``_dln._series`` with 3, 5 or 7 terms, chosen per step from max_j s_j² as
  ``_lanes_kernel`` does (:class:`~verify.dynamics.stepseries.TruncatedSeries`: the skipped terms are
  below an eighth of an ulp of the sums, which changes no bit: tested), and for |s_j| ≥ 0.05 by
  ``_qpm``'s logs (a NaN s_j gives NaN either way), recomputed in the scalar pass
  (:class:`~verify.dynamics.stepitems.RareUpdate`, absent while max_j |s_j| < 0.05);
* Gain after the steps k = 2^j, j < ``n_snap`` (:class:`~verify.dynamics.stepitems.Doublings`);
* before a step: the budget (``stalled``), L not finite or > 1e250 (``blown_up``), L ≤ tol_rel·L(β₀)
  (``converged``); after it: some s_j = ±1 (``hit_pm1``), sup ‖s‖_∞ not finite or > 1e120 (``blown_up``).
  The final loss is the last L computed before the budget ran out (as ``_lanes_kernel``'s ``last_full``).

SGD (b < n: Fisher-Yates batches from per-lane seeds) runs on its own declared step kernel (``_dln_sgd_step``,
which shares :func:`observed_step` with this one), or on request in the lane pool of ``_sgd_lanes``.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import sympy as sp
from numba import njit

from verify.dynamics.stepkernel import (T, CountWhere, Doublings, IsFinite, LastWhere, Let, MaxOf, MaxWhere,
                                        PerCoordinate, RareUpdate, Reduce, RowMean, State, StepKernel, StopRule,
                                        Window, compiled_engine)
from verify.dynamics.stepseries import TruncatedSeries

from ._problems import BLOWN_UP, CONVERGED, HIT_PM1, STALLED, Problem, batch_curvatures

INT_FIELDS = ("outcome", "steps")
# the q_± series' term counts printed besides 7 (coordinate_update): GD's, as _lanes_kernel sums them
GD_SERIES_COUNTS = (3, 5)
# calls of fewer lanes run the kernel printed lane by lane (the same bits): the blocked engine is faster
# for lanes of one length side by side (bench even2023.dln_gd_step, 128 lanes), but the catalogue's
# widest calls, 40 or 120 lanes whose lengths differ by 10x, take 0.73x the blocked engine's time lane
# by lane (75 recorded calls of `check even2023 --budget full --planted`, replayed interleaved 3 times:
# 4.1 s against 5.7 s; its blocks empty as lanes finish)
LANEWISE_BELOW = 128


def _q_series(s, names: str) -> tuple[list, sp.Symbol, sp.Symbol, tuple]:
    """The halves q_±(s)/2 = ev ± od of _dln._series with up to 7 terms: ev = Σ_t s^{2t}·(1/2t), od = Σ_t
    (s^{2t}·s)·(1/(2t+1)), t = 1..7, summed in t order; and the partial sums (ev_1..ev_7, od_1..od_7),
    for a :class:`~verify.dynamics.stepseries.TruncatedSeries` (term t of either sum is at most
    s^{2(t−1)} times its first, all of one sign: the engine skips, as ``_lanes_kernel`` does, the terms
    that cannot move the sums' bits; tests/test_dln_step.py)."""
    sq, ep, em = sp.symbols(f"{names}sq {names}ep {names}em", real=True)
    lets, pw, ev, od, evs, ods = [Let(sq, s ** 2)], sq, None, None, [], []
    for t in range(1, 8):
        if t > 1:
            pw_t = sp.Symbol(f"{names}pw{t}", real=True)
            lets.append(Let(pw_t, pw * sq))
            pw = pw_t
        ps, e_t, o_t = sp.symbols(f"{names}ps{t} {names}ev{t} {names}od{t}", real=True)
        lets += [Let(ps, pw * s),
                 Let(e_t, pw * (1.0 / (2 * t)) if ev is None else ev + pw * (1.0 / (2 * t))),
                 Let(o_t, ps * (1.0 / (2 * t + 1)) if od is None else od + ps * (1.0 / (2 * t + 1)))]
        ev, od = e_t, o_t
        evs.append(ev)
        ods.append(od)
    lets += [Let(ep, ev + od), Let(em, ev - od)]
    return lets, ep, em, (tuple(evs), tuple(ods))


@lru_cache(maxsize=None)
def dln_gd_kernel(n_snap: int = 24, window: int = 64) -> StepKernel:
    """The declared GD step of the diagonal linear network for every dimension d (rows of Z: x_i1..x_id,
    y_i; d is the columns of Z but one, read at run time): u, v, ln α, x are per coordinate
    (:class:`~verify.dynamics.stepitems.PerCoordinate`). Constants: max_steps, the loss tolerance
    tol_rel·L(β₀), n, λ_min/max(XXᵀ/n); lane inputs: γ, ln α."""
    u, v, un, vn, x, ln_alpha, beta, G, g, s = sp.symbols("u v un vn x ln_alpha beta G g s", real=True)
    y, gamma, loss_tol, r = sp.symbols("y gamma loss_tol r", real=True)
    max_steps, n = sp.Symbol("max_steps", integer=True), sp.Symbol("n", integer=True)
    ss, half, loss, final_loss = sp.symbols("ss half loss final_loss", real=True)
    sum_loss, prev, lam_min, lam_max = sp.symbols("sum_loss prev_loss lam_min lam_max", real=True)
    bounces = sp.Symbol("bounces", integer=True)
    bad, rec = sp.symbols("bad rec")

    # one pass over the rows: r_i = (…((−y_i + x_i1 β_1) + x_i2 β_2) …) + x_id β_d, Σ_i r_i², G_j = Σ_i r_i x_ij
    sums = RowMean((ss, G), (r ** 2, r * x), (Reduce(r, -y, r + x * beta),), mean=False)
    prelude = (Let(half, 0.5 * ss), Let(loss, half / n),
               LastWhere(final_loss, loss, T < max_steps),  # _lanes_kernel's last_full
               Let(bad, sp.Not(IsFinite(loss)) | (loss > 1e250)),
               # every finite loss computed, also at the step where the lane converges (before-rule)
               Let(rec, (T < max_steps) & sp.Not(bad)),
               State(sum_loss, 0.0, sum_loss + loss, where=rec),
               CountWhere(bounces, rec & (loss > prev)),
               State(prev, math.inf, loss, where=rec),
               Window("loss_window", loss, window, rec))
    # s_j = γ G_j/n, then the step and its observers (shared with SGD); Σ_k 2γ² λ_min/max(XXᵀ/n) L(β_k)
    step = observed_step((Let(g, G / n), Let(s, gamma * g)), gamma=gamma, loss=loss,
                         lams=(lam_min, lam_max), params=(u, v), next_params=(un, vn), ln_alpha=ln_alpha,
                         n_snap=n_snap)
    return StepKernel(
        label="gd_dln", params=(u, v), next_params=(un, vn), lane_inputs=(gamma, ln_alpha),
        constants=(max_steps, loss_tol, n, lam_min, lam_max), calls=(), data=(x, y), row_means=(sums,),
        row_lets=(PerCoordinate((Let(beta, u * v),)),),  # β = u ⊙ v once per step
        coordinates=(u, v, ln_alpha, x), prelude=prelude, body=step.body,
        stop=StopRule(before=((T >= max_steps, STALLED), (bad, BLOWN_UP), (loss <= loss_tol, CONVERGED)),
                      after=step.after),
        int_outputs=(*INT_FIELDS, "bounces"),
        float_outputs=(*step.coordinate_outputs, final_loss.name, step.max_abs_s, sum_loss.name,
                       *step.curvature_sums, *(f"loss_window_{q}" for q in range(window)), *step.gain_snapshots))


class ObservedStep(NamedTuple):
    """The items :func:`observed_step` declares, and the names of the outputs they hold."""
    body: tuple
    after: tuple  # the after-rules: hit_pm1, blown_up
    coordinate_outputs: tuple  # u, v, ln α_+, ln α_−, Gain, Σ s² (per coordinate)
    max_abs_s: str  # sup_k ‖s_k‖_∞
    curvature_sums: tuple  # Σ_k 2γ² λ L_k for the pair of λ given
    gain_snapshots: tuple  # Gain^{(2^j)}, j < n_snap


def observed_step(s_lets, *, gamma, loss, lams, params, next_params, ln_alpha, n_snap,
                  series_counts=GD_SERIES_COUNTS) -> ObservedStep:
    """The step of GD and SGD alike once s_j is known, and its observers.

    ``s_lets``: the Lets computing s_j, the last one defining it (GD: g_j = G_j/n, s_j = γ g_j; SGD:
    s_j = γ G_j); ``gamma``: γ; ``loss``: the step's loss L_k (full or batch); ``lams``: the pair of λ
    in Σ_k 2γ² λ L_k (GD: λ_min/max(XXᵀ/n); SGD: the batch rows'); ``params``, ``next_params``: (u, v)
    and (u', v'); ``ln_alpha``: ln α; ``n_snap``: Gain^{(2^j)} for j < n_snap (obs1); ``series_counts``:
    the shorter term counts of the q_± series (:func:`coordinate_update`).

    Declares max_j |s_j| and "some s_j = ±1" (with the Lets, a PerCoordinate block before the vector
    loop; "some |s_j| = 1": the same truth value, NaN and ±inf included, with one comparison per
    coordinate instead of two, which made 8 lanes of SGD at E1 ~5% faster), sup_k ‖s_k‖_∞, the
    after-rules (hit_pm1 if some s_j = ±1, blown_up if sup ‖s‖_∞ is not finite or > 1e120), the
    curvature sums (multiplied left to right as the lane kernels' CURV), the update
    (:func:`coordinate_update`) and the gain snapshots. Its own symbols are named ma, max_abs_s,
    hit, hit_any, blown, two_gamma, two_gamma2, curv_c0/1, sum_curv_min/max (and coordinate_update's):
    a caller's symbol of one of these names would be the same sympy symbol."""
    if not s_lets or not isinstance(s_lets[-1], Let):
        raise ValueError("observed_step: the last of s_lets must be the Let defining s_j")
    s = s_lets[-1].name
    (u, v), (un, vn) = params, next_params
    ma, m_s, g2, g2g, c0, c1, curv0, curv1 = sp.symbols(
        "ma max_abs_s two_gamma two_gamma2 curv_c0 curv_c1 sum_curv_min sum_curv_max", real=True)
    hit, hit_any, blown = sp.symbols("hit hit_any blown")
    steps = PerCoordinate((*s_lets, Reduce(ma, 0.0, MaxOf(ma, sp.Abs(s))),
                           Reduce(hit, False, hit | sp.Eq(sp.Abs(s), 1))))
    update, (lp, lm, gain, s2) = coordinate_update(s, ma, u, v, un, vn, ln_alpha, series_counts)
    body = (steps, MaxWhere(m_s, ma), Let(hit_any, hit), Let(blown, sp.Not(IsFinite(m_s)) | (m_s > 1e120)),
            Let(g2, 2.0 * gamma), Let(g2g, g2 * gamma), Let(c0, g2g * lams[0]), Let(c1, g2g * lams[1]),
            State(curv0, 0.0, curv0 + c0 * loss), State(curv1, 0.0, curv1 + c1 * loss),
            update, Doublings("gain_snapshots", (gain,), n_snap))
    return ObservedStep(body, ((hit_any, HIT_PM1), (blown, BLOWN_UP)),
                        tuple(q.name for q in (u, v, lp, lm, gain, s2)), m_s.name, (curv0.name, curv1.name),
                        tuple(f"gain_snapshots_{p}_0" for p in range(n_snap)))


def coordinate_update(s, ma, u, v, un, vn, ln_alpha,
                      series_counts=GD_SERIES_COUNTS) -> tuple[PerCoordinate, tuple]:
    """The per-coordinate part of a step given s_j and ma = max_j |s_j| (GD and SGD alike): the log-gains
    ln α_± −= q_±(s)/2, Gain += (q_+ + q_−)/2, Σ s² += s² (spec §0.6, def8), by the series with as many
    terms as the step's max_j |s_j| needs (up to 7), or for |s_j| ≥ 0.05 by ``_qpm``'s logs (a
    RareUpdate), then u' = u − s v, v' = v − s u (eq. (3)). ``series_counts``: the term counts printed
    besides 7, each a copy of the update loop (GD: 3 and 5, as ``_lanes_kernel``; SGD: 1, 2, 3 and 5,
    as the pool, whose converging lanes reach steps with max_j |s_j| < 2^-28, one term); a step runs
    the least of them at or above what max_j s_j² needs, which gives the 7-term bits
    (:func:`._qseries.series_terms`). Returns the block and the States (ln α_+, ln α_−, Gain, Σ s²)."""
    s2, lp, lm, gain, qs = sp.symbols("sum_s2 ln_ap ln_am gain qs", real=True)
    lets, hp, hm, partial_sums = _q_series(s, "c_")
    a, b_, la, lb, qpl, qml, qsl = sp.symbols("c_a c_b c_la c_lb c_qpl c_qml c_qsl", real=True)
    update = PerCoordinate((  # ln α_± -= q_±(s)/2 and Gain += q(s) = (q_+ + q_−)/2 (spec §0.6)
        *lets, Let(qs, hp + hm),
        # series_counts or 7 terms per step: |s_j| <= max_j |s_j| = ma (bitwise the 7-term sums)
        TruncatedSeries(partial_sums, ma * ma, counts=series_counts),
        # by the halves q_±/2 = ev ± od: the bits of 0.5·q_± and 0.5·(q_+ + q_−), with fewer operations
        # (_qseries.q_halves' proof, for |s_j| < 0.05; where |s_j| >= 0.05 the RareUpdate rewrites these
        # States; a NaN s_j keeps the series, NaN either way)
        State(lp, ln_alpha, lp - hp), State(lm, ln_alpha, lm - hm),
        State(gain, 0.0, gain + qs), State(s2, 0.0, s2 + s ** 2),  # Σ_k s_k²
        # |s| >= 0.05: the logs of _qpm instead of the series, in the scalar pass (sympy prints the
        # condition as abs(s) >= 0.05, so a NaN s keeps the series: NaN either way, as in _qpm)
        RareUpdate(sp.Not(sp.Abs(s) < 0.05), (
            Let(a, -2.0 * s), Let(b_, 2.0 * s),
            Let(la, sp.log(sp.Abs(1.0 - s))), Let(lb, sp.log(sp.Abs(1.0 + s))),
            Let(qpl, a - 2.0 * la), Let(qml, b_ - 2.0 * lb), Let(qsl, qpl + qml),
            State(lp, ln_alpha, lp - 0.5 * qpl), State(lm, ln_alpha, lm - 0.5 * qml),
            State(gain, 0.0, gain + 0.5 * qsl)),
            absent_if=ma < 0.05),  # |s_j| <= ma for every s_j but a NaN, whose condition is false
        Let(un, u - s * v), Let(vn, v - s * u)))  # eq. (3)
    return update, (lp, lm, gain, s2)


@njit(cache=True)
def _first_loss(y, n):
    return 0.5 * np.sum(y * y) / n  # as _lanes_kernel computes L(β₀)


@njit(cache=True)
def log_alpha(alpha):
    """ln α as the compiled kernels take it (numba's log; numpy's own vector log may differ by an ulp on
    some CPUs)."""
    return np.log(alpha)


def run_gd_lanes(problem: Problem, gammas, *, max_steps: int = 100_000, tol_rel: float = 1e-20,
                 n_snap: int = 24, window: int = 64, lanewise_below: int = LANEWISE_BELOW) -> dict:
    """Full-batch GD lanes (one per constant γ) from (u₀, v₀) = (√2 α, 0) on the declared step kernel:
    every field of :class:`._dln.Lanes` but ``gammas`` and ``b``, as :func:`._dln._lanes_kernel` gives it.
    A call of fewer than ``lanewise_below`` lanes runs the declaration printed lane by lane (its rows
    64 coordinates long, or the next power of two for d > 64: one more compile; at d = 96, 3.9× the
    blocked engine's speed at one lane, 1.7× at 8), with the same bits
    (:func:`verify.dynamics.stepcompile.compiled_engine`)."""
    gammas = np.ascontiguousarray(gammas, float)
    n, d = problem.n, problem.d
    L = len(gammas)
    u0 = np.sqrt(2.0) * problem.alpha  # as _lanes_kernel: math.sqrt(2.0) * alpha
    ln_alpha = log_alpha(np.ascontiguousarray(problem.alpha, float))
    I = np.vstack([np.repeat(u0[:, None], L, 1), np.zeros((d, L)), gammas[None, :],
                   np.repeat(ln_alpha[:, None], L, 1)])
    Z = np.ascontiguousarray(np.c_[problem.X, problem.y])
    out_i, out_f = np.zeros((3, L), np.int64), np.zeros((6 * d + 5 + window + n_snap * d, L))
    first = float(_first_loss(np.ascontiguousarray(problem.y), n))
    lam_min, lam_max = batch_curvatures(problem.X, n)[0]
    compiled_engine(dln_gd_kernel(n_snap, window), lanewise_below)(np.arange(L), I, Z, int(max_steps), float(tol_rel) * first,
                                                      n, float(lam_min), float(lam_max), out_i, out_f)
    f = {name: out_f[j * d:(j + 1) * d].T.copy() for j, name in enumerate(("u", "v", "ln_ap", "ln_am", "gain",
                                                                            "sum_s2"))}
    k = 6 * d
    # no step allowed: no loss computed in the kernel; the last one is L(β₀), as in _lanes_kernel
    final_loss = out_f[k] if max_steps > 0 else np.full(L, first)
    f.update(final_loss=final_loss, max_abs_s=out_f[k + 1], sum_loss=out_f[k + 2],
             sum_grad_curv=out_f[k + 3:k + 5].T.copy(), loss_window=out_f[k + 5:k + 5 + window].T.copy(),
             gain_snapshots=out_f[k + 5 + window:].T.reshape(L, n_snap, d).copy())
    return {"status": out_i[0], "steps": out_i[1], "bounces": out_i[2], "first_loss": np.full(L, first), **f}
