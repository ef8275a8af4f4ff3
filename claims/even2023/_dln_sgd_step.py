"""Mini-batch SGD on the diagonal linear network as a declared step kernel (verify.dynamics.stepkernel).

even2023 eqs. (1)-(3) with |B_k| = b < n, the batch of step k drawn as in :mod:`._sgd_lanes` (a
partial Fisher-Yates shuffle per step from the lane's seed: :func:`._sgd_lanes.batch_table`, one table
slot per distinct seed, read by the engine as its batch table ``BT``):

    s_k = γ ∇L_{B_k}(β_k) = γ Σ_{i∈B_k} r_i x_i / b,   u_{k+1} = u_k − s_k ⊙ v_k,   v_{k+1} = v_k − s_k ⊙ u_k,

declared with the operation order of the lane pool :func:`._sgd_lanes.sgd_lanes_kernel`, so that every
field of :class:`._dln.Lanes` is the pool's bit for bit, up to which NaN the curvature sums hold for b > 1
(NaN by design there; the CPU picks the NaN operand) (tests/test_dln_sgd_step.py). It is
:func:`._dln.run_lanes`' SGD engine (the pool on request, ``sgd_engine="pool"``: the tests' oracle):

* one pass over the batch rows (:class:`~verify.dynamics.stepitems.RowMean` ``batch=True``, sums from
  0.0 in batch order): r_i = (…(−y_i + x_i1 β_1) …) + x_id β_d, the batch loss Σ ((0.5 r_i) r_i)/b and
  G_j = Σ (r_i x_ij)/b, each term divided by b as the pool does (for b = 1, (r x)/1 = r x: the pool's
  b = 1 bits), and the batch rows' λ columns (eq10.batch: for b = 1 the row's ‖x_i‖², NaN for b > 1);
* s_j = γ G_j, max_j |s_j| (the pool reads it off the widest column for b = 1: the same value,
  proved there), "some s_j = ±1", and the update, declared with GD's (:func:`._dln_step.observed_step`),
  the q_± series with 1, 2, 3, 5 or 7 terms as the pool (GD's 3, 5, 7 and two more copies of the
  update loop, which made E1, b = 1, 32 lanes 2% faster: converging lanes end with one term);
* Σ_k L_{B_k}(β_k), sup_k ‖s_k‖_∞, Σ_k 2γ²λ L_{B_k} (``sum_grad_curv``), Gain after the steps 2^j;
* every ``check_every`` steps and at the budget, a :class:`~verify.dynamics.stepitems.Checkpoint`, decided
  before the vector loop, computes the full loss L(β_k) = (0.5 Σ_i r_i²)/n over all rows (for every slot
  at once when at least a quarter of them check: lanes started together check together) and stops the lane:
  at the budget ``converged`` if L ≤ tol else ``stalled``; else ``blown_up`` if L is not finite or
  > 1e250, ``converged`` if L ≤ tol. After a step: ``hit_pm1`` if some s_j = ±1, ``blown_up`` if
  sup ‖s‖_∞ is not finite or > 1e120. The final loss is the last full loss computed.

The engine prints the batch pass blocked only (no lane-by-lane printing of batch rows yet).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import sympy as sp

from verify.dynamics.stepkernel import (T, Checkpoint, IsFinite, Let, PerCoordinate, Reduce, RowMean, State,
                                        StepKernel, StopRule, compiled_engine)
from verify.dynamics.stepitems import Quotient

from ._dln_step import INT_FIELDS, _first_loss, log_alpha, observed_step
from ._problems import BLOWN_UP, CONVERGED, STALLED
from ._sgd_lanes import table_groups


@lru_cache(maxsize=None)
def dln_sgd_kernel(n_snap: int = 24) -> StepKernel:
    """The declared SGD step of the diagonal linear network for every d and b (rows of Z: x_i1..x_id,
    y_i, λ_min,i, λ_max,i). Constants: max_steps, check_every, the loss tolerance tol_rel·L(β₀), L(β₀),
    n, b; lane inputs: γ, ln α, the lane's slot of the batch table."""
    u, v, un, vn, x, ln_alpha, beta, G, s = sp.symbols("u v un vn x ln_alpha beta G s", real=True)
    y, lam0, lam1, gamma, slot, r, hr, lt = sp.symbols("y lam0 lam1 gamma slot r hr lt", real=True)
    lb, lam_b0, lam_b1, loss_tol, first_loss = sp.symbols("lb lam_b0 lam_b1 loss_tol first_loss", real=True)
    max_steps, check_every, n, nb = sp.symbols("max_steps check_every n nb", integer=True)
    rf, ss, half, full, final_loss, sum_loss = sp.symbols("rf ss half full final_loss sum_loss", real=True)

    # the batch pass: r_i over j ascending, Σ ((0.5 r) r)/b, G_j = Σ (r x_j)/b, the rows' λ (b = 1: its own)
    batch = RowMean((lb, G, lam_b0, lam_b1), (Quotient(lt, nb), Quotient(r * x, nb), lam0, lam1),
                    (Reduce(r, -y, r + x * beta), Let(hr, 0.5 * r), Let(lt, hr * r)), mean=False, batch=True)
    # s_j = γ G_j, then the step and its observers as GD's (Σ_k 2γ² λ L_{B_k}, λ the batch rows'), and
    # Σ_k L_{B_k}(β_k)
    step = observed_step((Let(s, gamma * G),), gamma=gamma, loss=lb, lams=(lam_b0, lam_b1), params=(u, v),
                         next_params=(un, vn), ln_alpha=ln_alpha, n_snap=n_snap,
                         series_counts=(1, 2, 3, 5))
    body = (*step.body, State(sum_loss, 0.0, sum_loss + lb))
    at_budget = T >= max_steps
    check = Checkpoint(
        sp.Eq(sp.Mod(T, check_every), 0) | at_budget,
        (RowMean((ss,), (rf ** 2,), (Reduce(rf, -y, rf + x * beta),), mean=False),  # the full loss
         Let(half, 0.5 * ss), Let(full, half / n), State(final_loss, first_loss, full)),
        ((at_budget & (full <= loss_tol), CONVERGED), (at_budget, STALLED),
         (sp.Not(IsFinite(full)) | (full > 1e250), BLOWN_UP), (full <= loss_tol, CONVERGED)))
    return StepKernel(
        label="sgd_dln", params=(u, v), next_params=(un, vn), lane_inputs=(gamma, ln_alpha, slot),
        constants=(max_steps, check_every, loss_tol, first_loss, n, nb), calls=(), data=(x, y, lam0, lam1),
        row_means=(batch,), row_lets=(PerCoordinate((Let(beta, u * v),)),), batch_slot=slot,
        coordinates=(u, v, ln_alpha, x), body=body,
        stop=StopRule(before=(check,), after=step.after), int_outputs=INT_FIELDS,
        float_outputs=(*step.coordinate_outputs, final_loss.name, step.max_abs_s, sum_loss.name,
                       *step.curvature_sums, *step.gain_snapshots))


def run_sgd_lanes_declared(X, y, alpha, gammas, b, seeds, max_steps, tol_rel, check_every, n_snap, window,
                           lam_batch) -> tuple:
    """:func:`._sgd_lanes.run_sgd_lanes` on the declared kernel: the same arguments (but the pool size)
    and the same tuple, bit for bit (up to NaN payloads, see the module docstring). The batch tables are
    drawn as the pool draws them (:func:`._sgd_lanes.table_groups`), one engine call per group of seeds;
    lanes are started by decreasing γ (the longest runs first)."""
    gammas = np.asarray(gammas, float)
    seeds = np.asarray(seeds, np.int64)
    L, (n, d) = len(gammas), X.shape
    if b > 1 and not np.isnan(lam_batch).all():
        # the pool reads the batch's first row's λ, this kernel sums the batch rows' (the same for b = 1,
        # and NaN either way for b > 1, where eq10.batch's curvature is not defined: batch_curvatures)
        raise ValueError("SGD lanes: the batch curvatures are defined for b = 1 only (NaN for b > 1)")
    n_snap = int(n_snap)
    first = float(_first_loss(np.ascontiguousarray(y), n))  # as the pool's L0
    Z = np.ascontiguousarray(np.c_[X, y, lam_batch])
    out_i, out_f = np.zeros((2, L), np.int64), np.zeros((6 * d + 5 + n_snap * d, L))
    engine = compiled_engine(dln_sgd_kernel(n_snap), 0)
    u0 = np.sqrt(2.0) * alpha
    ln_alpha = log_alpha(np.ascontiguousarray(alpha, float))
    for these, lanes, BT in table_groups(gammas, seeds, n, b, max_steps):
        I = np.vstack([np.repeat(u0[:, None], L, 1), np.zeros((d, L)), gammas[None, :],
                       np.repeat(ln_alpha[:, None], L, 1), np.zeros((1, L))])
        I[-1, lanes] = np.searchsorted(these, seeds[lanes])  # the lane's slot in this group's table
        engine(np.ascontiguousarray(lanes), I, Z, BT, int(max_steps), int(check_every), float(tol_rel) * first,
               first, n, int(b), out_i, out_f)
    f = {name: out_f[j * d:(j + 1) * d].T.copy() for j, name in enumerate(("u", "v", "ln_ap", "ln_am", "gain",
                                                                            "sum_s2"))}
    k = 6 * d
    snap = out_f[k + 5:].T.reshape(L, n_snap, d).copy()
    return (out_i[0], out_i[1], f["u"], f["v"], f["ln_ap"], f["ln_am"], f["gain"], f["sum_s2"], out_f[k + 1],
            out_f[k + 2], np.zeros(L, np.int64), out_f[k], np.full(L, first), snap,
            np.full((L, int(window)), np.nan), out_f[k + 3:k + 5].T.copy())
