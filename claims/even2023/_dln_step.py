"""Full-batch GD on the diagonal linear network as a declared step kernel (verify.dynamics.stepkernel).

even2023 eqs. (1)-(3) with B_k = all rows: β = u ⊙ v, L(β) = ‖Xβ − y‖²/(2n),

    s_k = γ ∇L(β_k) = γ Xᵀ(Xβ_k − y)/n,   u_{k+1} = u_k − s_k ⊙ v_k,   v_{k+1} = v_k − s_k ⊙ u_k,

declared in named quantities (:mod:`verify.dynamics.stepitems`) with the operation order of the GD path
of :func:`claims.even2023._dln._lanes_kernel`, so that u, v, the step count, the outcome, the final
loss, m = sup_k ‖s_k‖_∞, Σ_k s_k² and the curvature sums are that kernel's bit for bit
(``tests/test_dln_step.py``):

* one pass over the data rows (:class:`~verify.dynamics.stepitems.RowMean`, plain sums from 0.0 in row
  order): the residual r_i = (…((−y_i + x_i1 β_1) + x_i2 β_2) …) + x_id β_d (``_residual``), Σ_i r_i²
  and G_j = Σ_i r_i x_ij;
* L = (0.5 Σ r_i²)/n, g_j = G_j/n, s_j = γ g_j, the running max_j |s_j| and its sup over the steps;
* per coordinate Σ_k s_k², and Σ_k 2γ²λ_min/max(XXᵀ/n) L(β_k) (``sum_grad_curv``);
* before a step: the budget (``stalled``), L not finite or > 1e250 (``blown_up``), L ≤ tol_rel·L(β₀)
  (``converged``); after it: some s_j = ±1 (``hit_pm1``), sup ‖s‖_∞ not finite or > 1e120 (``blown_up``).
  The final loss is the last L computed before the budget ran out (as ``_lanes_kernel``'s ``last_full``).

Not declared here (what ``run_lanes`` also accumulates): the log-gains ln α_± through the q_± series
or logs, Gain, the loss sum and bounces (accumulated also at the step where the lane converges,
which does not step), the loss window and the gain snapshots (per-lane arrays), SGD batches.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import sympy as sp
from numba import njit

from verify.dynamics.stepkernel import (T, IsFinite, LastWhere, Let, MaxOf, MaxWhere, RowMean, State,
                                        StepKernel, StopRule, compiled_engine)

from ._dln import BLOWN_UP, CONVERGED, HIT_PM1, STALLED, Problem, batch_curvatures

INT_FIELDS = ("outcome", "steps")


@lru_cache(maxsize=None)
def dln_gd_kernel(d: int) -> StepKernel:
    """The declared GD step of a d-coordinate diagonal linear network (rows of Z: x_i1..x_id, y_i);
    constants: max_steps, the loss tolerance tol_rel·L(β₀), n; lane input: γ."""
    u = sp.symbols(f"u0:{d}", real=True)
    v = sp.symbols(f"v0:{d}", real=True)
    un = sp.symbols(f"un0:{d}", real=True)
    vn = sp.symbols(f"vn0:{d}", real=True)
    x = sp.symbols(f"x0:{d}", real=True)
    y, gamma, loss_tol = sp.symbols("y gamma loss_tol", real=True)
    max_steps, n = sp.Symbol("max_steps", integer=True), sp.Symbol("n", integer=True)
    beta = sp.symbols(f"beta0:{d}", real=True)
    r = sp.symbols(f"r0:{d}", real=True)  # partial sums of the residual of one row
    ss, half, loss, final_loss, m_s = sp.symbols("ss half loss final_loss max_abs_s", real=True)
    G = sp.symbols(f"G0:{d}", real=True)
    g = sp.symbols(f"g0:{d}", real=True)
    s = sp.symbols(f"s0:{d}", real=True)
    ma = sp.symbols(f"ma0:{d}", real=True)
    hit = sp.symbols(f"hit0:{d}")
    bad, hit_any, blown = sp.symbols("bad hit_any blown")
    s2 = sp.symbols(f"sum_s2_0:{d}", real=True)
    lam_min, lam_max, g2, g2g, c0, c1, curv0, curv1 = sp.symbols(
        "lam_min lam_max two_gamma two_gamma2 curv_c0 curv_c1 sum_curv_min sum_curv_max", real=True)

    row = [Let(beta[j], u[j] * v[j]) for j in range(d)]
    row += [Let(r[0], -y + x[0] * beta[0])] + [Let(r[j], r[j - 1] + x[j] * beta[j]) for j in range(1, d)]
    sums = RowMean((ss, *G), (r[-1] ** 2, *(r[-1] * x[j] for j in range(d))), tuple(row), mean=False)
    prelude = (Let(half, 0.5 * ss), Let(loss, half / n),
               LastWhere(final_loss, loss, T < max_steps),  # _lanes_kernel's last_full
               Let(bad, sp.Not(IsFinite(loss)) | (loss > 1e250)))
    body = [Let(g[j], G[j] / n) for j in range(d)]
    body += [Let(s[j], gamma * g[j]) for j in range(d)]
    body += [Let(ma[0], MaxOf(0.0, sp.Abs(s[0])))] + [Let(ma[j], MaxOf(ma[j - 1], sp.Abs(s[j])))
                                                       for j in range(1, d)]
    body += [Let(hit[0], sp.Eq(s[0], 1) | sp.Eq(s[0], -1))]
    body += [Let(hit[j], hit[j - 1] | sp.Eq(s[j], 1) | sp.Eq(s[j], -1)) for j in range(1, d)]
    body += [MaxWhere(m_s, ma[-1]), Let(hit_any, hit[-1]),
             Let(blown, sp.Not(IsFinite(m_s)) | (m_s > 1e120))]
    body += [State(s2[j], 0.0, s2[j] + s[j] ** 2) for j in range(d)]  # Σ_k s_k²
    # Σ_k 2γ² λ_min/max(XXᵀ/n) L(β_k), multiplied left to right as _lanes_kernel's CURV
    body += [Let(g2, 2.0 * gamma), Let(g2g, g2 * gamma), Let(c0, g2g * lam_min), Let(c1, g2g * lam_max),
             State(curv0, 0.0, curv0 + c0 * loss), State(curv1, 0.0, curv1 + c1 * loss)]
    body += [Let(un[j], u[j] - s[j] * v[j]) for j in range(d)]  # eq. (3)
    body += [Let(vn[j], v[j] - s[j] * u[j]) for j in range(d)]
    return StepKernel(
        label="gd_dln", params=(*u, *v), next_params=(*un, *vn), lane_inputs=(gamma,),
        constants=(max_steps, loss_tol, n, lam_min, lam_max), calls=(), data=(*x, y), row_means=(sums,),
        prelude=prelude, body=tuple(body),
        stop=StopRule(before=((T >= max_steps, STALLED), (bad, BLOWN_UP), (loss <= loss_tol, CONVERGED)),
                      after=((hit_any, HIT_PM1), (blown, BLOWN_UP))),
        int_outputs=INT_FIELDS,
        float_outputs=(*(q.name for q in u), *(q.name for q in v), final_loss.name, m_s.name,
                       *(q.name for q in s2), curv0.name, curv1.name))


@njit(cache=True)
def _first_loss(y, n):
    return 0.5 * np.sum(y * y) / n  # as _lanes_kernel computes L(β₀)


def run_gd_lanes(problem: Problem, gammas, *, max_steps: int = 100_000, tol_rel: float = 1e-20) -> dict:
    """Full-batch GD lanes (one per constant γ) from (u₀, v₀) = (√2 α, 0) on the blocked step kernel:
    ``status``, ``steps``, ``u``, ``v`` (L × d), ``final_loss``, ``max_abs_s`` as :func:`._dln.run_lanes`."""
    gammas = np.ascontiguousarray(gammas, float)
    n, d = problem.n, problem.d
    L = len(gammas)
    u0 = np.sqrt(2.0) * problem.alpha  # as _lanes_kernel: math.sqrt(2.0) * alpha
    I = np.vstack([np.repeat(u0[:, None], L, 1), np.zeros((d, L)), gammas[None, :]])
    Z = np.ascontiguousarray(np.c_[problem.X, problem.y])
    out_i, out_f = np.zeros((2, L), np.int64), np.zeros((3 * d + 4, L))
    loss_tol = float(tol_rel) * float(_first_loss(np.ascontiguousarray(problem.y), n))
    lam_min, lam_max = batch_curvatures(problem.X, n)[0]
    compiled_engine(dln_gd_kernel(d))(np.arange(L), I, Z, int(max_steps), loss_tol, n, float(lam_min),
                                      float(lam_max), out_i, out_f)
    return {"status": out_i[0], "steps": out_i[1], "u": out_f[:d].T.copy(), "v": out_f[d:2 * d].T.copy(),
            "final_loss": out_f[2 * d], "max_abs_s": out_f[2 * d + 1],
            "sum_s2": out_f[2 * d + 2:3 * d + 2].T.copy(), "sum_grad_curv": out_f[3 * d + 2:].T.copy()}
