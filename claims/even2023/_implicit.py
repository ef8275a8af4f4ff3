"""The implicit-regularisation problem P(a, φ) of even2023 (spec §7).

    minimise  h(β) = ψ_a(β) − ⟨φ, β⟩   subject to   Xβ = y,

with the hypentropy ψ_a(β) = ½ Σ [β arcsinh(β/a²) − sqrt(β² + a⁴) + a²]. Theorem 1 uses
(a, φ) = (α_∞, φ_∞), gradient flow (α, 0), ``thm1.drop`` (α_∞, 0), ``thm1.finite`` (α_K, φ_K).

Method (KKT / dual): β(λ) = a² sinh(2φ + 2Xᵀλ), and λ maximises the smooth concave dual
Φ(λ) = ⟨λ, y⟩ − Σ (a²/2)(cosh(2φ + 2Xᵀλ) − 1), with ∇Φ = y − Xβ(λ), ∇²Φ = −X W Xᵀ,
W = diag(2a² cosh(2φ + 2Xᵀλ)). Damped Newton from λ = 0, or from the dual solution of a nearby
problem itself solved from 0 (``lam0``; never from a run's own variables, so the check stays
independent), Armijo backtracking, Cholesky on the n×n system.
Everything is evaluated in the log domain: the scale enters as ln a² (a² e^{±z} = e^{ln a² ± z}),
so large gains (α_∞ ≪ α) never underflow.

:func:`solve` works in mpmath at ``dps`` digits; :func:`solve_f64` is the float64 fast path.
Both report iterations, the relative primal residual, the Newton decrement, the duality gap and
the Fenchel–Young consistency error gap − ⟨λ, Xβ − y⟩.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import mpmath
import numpy as np


@dataclass
class Solution:
    beta: object              # list of mpf (solve) or np.ndarray (solve_f64)
    lam: object
    iterations: int
    residual_rel: float       # ‖Xβ − y‖ / ‖y‖
    decrement: float          # ⟨Δ, XWXᵀΔ⟩^{1/2} at the last Newton step
    gap: float                # h(β(λ)) − Φ(λ)
    fenchel_young: float      # |gap − ⟨λ, Xβ(λ) − y⟩| (should be at the precision floor)
    converged: bool
    dps: int | None = None
    warm_start: bool = False

    def data(self) -> dict:
        return {"newton_iterations": self.iterations, "primal_residual_rel": self.residual_rel,
                "newton_decrement": self.decrement, "duality_gap": self.gap,
                "fenchel_young_error": self.fenchel_young, "solver_converged": self.converged,
                "solver_dps": self.dps, "warm_start": self.warm_start}


def _hypentropy_mp(beta, ln_a2):
    """ψ_a(β) − with a² = exp(ln_a2) − in mpmath."""
    tot = mpmath.mpf(0)
    for b, la in zip(beta, ln_a2):
        a2 = mpmath.exp(la)
        tot += b * mpmath.asinh(b / a2) - mpmath.sqrt(b * b + a2 * a2) + a2
    return tot / 2


def solve(X: np.ndarray, y: np.ndarray, ln_a2: Sequence, phi: Sequence, *, dps: int = 50,
          max_iter: int = 400, tol_rel: float | None = None, lam0: Sequence | None = None) -> Solution:
    """argmin_{Xβ=y} ψ_a(β) − ⟨φ, β⟩ in mpmath at ``dps`` digits (``ln_a2`` = ln a²).

    ``lam0``: the dual point Newton starts from (default 0) — the dual solution of a nearby problem
    solved from 0, never a run's own variables; the stopping rule is the same either way."""
    with mpmath.workdps(dps):
        tol = mpmath.mpf(10) ** (-(dps - 10)) if tol_rel is None else mpmath.mpf(tol_rel)
        Xm = [[mpmath.mpf(float(x)) for x in row] for row in np.asarray(X)]
        XT = [list(c) for c in zip(*Xm)]
        ym = [mpmath.mpf(float(t)) for t in np.asarray(y)]
        la = [mpmath.mpf(t) for t in ln_a2]
        ph = [mpmath.mpf(t) for t in phi]
        a2 = [mpmath.exp(t) for t in la]
        n, d = len(Xm), len(XT)
        ynorm = mpmath.sqrt(mpmath.fdot(ym, ym))

        def at(lam):
            z = [2 * p + 2 * mpmath.fdot(col, lam) for p, col in zip(ph, XT)]
            ep = [mpmath.exp(l + t) for l, t in zip(la, z)]
            em = [mpmath.exp(l - t) for l, t in zip(la, z)]
            # |z| < 1: a² sinh z and a²(cosh z − 1)/2 = a² sinh²(z/2) directly (the differences of
            # the two exponentials cancel there); else the log-domain forms (no underflow)
            beta = [a * mpmath.sinh(t) if abs(t) < 1 else (p - m) / 2 for a, t, p, m in zip(a2, z, ep, em)]
            w = [p + m for p, m in zip(ep, em)]
            res = [yi - mpmath.fdot(row, beta) for row, yi in zip(Xm, ym)]
            excess = [a * mpmath.sinh(t / 2) ** 2 if abs(t) < 1 else ((p + m) / 2 - a) / 2
                      for a, t, p, m in zip(a2, z, ep, em)]
            dual = mpmath.fdot(lam, ym) - mpmath.fsum(excess)
            scale = mpmath.fsum(abs(l * t) for l, t in zip(lam, ym)) + mpmath.fsum(excess)
            return beta, w, res, dual, scale

        lam = [mpmath.mpf(0)] * n if lam0 is None else [mpmath.mpf(t) for t in lam0]
        beta, w, res, dual, scale = at(lam)
        dec = mpmath.inf
        it = 0
        converged = False
        while it < max_iter:
            rnorm = mpmath.sqrt(mpmath.fdot(res, res))
            if rnorm <= tol * ynorm and dec <= tol * max(ynorm, 1):
                converged = True
                break
            XW = [[x * wk for x, wk in zip(row, w)] for row in Xm]
            M = mpmath.matrix(n, n)
            for i in range(n):
                for j in range(i, n):
                    M[i, j] = M[j, i] = mpmath.fdot(XW[i], Xm[j])
            delta = list(mpmath.cholesky_solve(M, mpmath.matrix(res)))
            slope = mpmath.fdot(res, delta)          # ⟨∇Φ, Δ⟩ = Δᵀ M Δ ≥ 0
            dec = mpmath.sqrt(abs(slope))
            # cap the change of z = 2φ + 2Xᵀλ at 8 per step (cosh grows exponentially; far from
            # the solution a full Newton step overshoots by many orders of magnitude)
            dz = max(abs(2 * mpmath.fdot(col, delta)) for col in XT)
            t = t0 = min(mpmath.mpf(1), 8 / dz) if dz > 0 else mpmath.mpf(1)
            # as in solve_f64: below the dual's resolution the residual is the merit function
            unresolved = abs(slope) <= 64 * mpmath.eps * scale
            while True:
                trial = [l + t * dl for l, dl in zip(lam, delta)]
                tb, tw, tr, tdual, tscale = at(trial)
                if t < t0 * mpmath.mpf(2) ** -80:
                    break
                if unresolved:
                    if mpmath.fdot(tr, tr) < rnorm ** 2:
                        break
                elif tdual >= dual + mpmath.mpf("1e-4") * t * slope:
                    break
                t /= 2
            lam, beta, w, res, dual, scale = trial, tb, tw, tr, tdual, tscale
            it += 1
        h = _hypentropy_mp(beta, la) - mpmath.fdot(ph, beta)
        gap = h - dual
        fy = abs(gap + mpmath.fdot(lam, res))   # ⟨λ, Xβ − y⟩ = −⟨λ, res⟩
        rel = mpmath.sqrt(mpmath.fdot(res, res)) / ynorm
        return Solution(beta, lam, it, float(rel), float(dec), float(gap), float(fy), converged, dps,
                        lam0 is not None)


def solve_f64(X: np.ndarray, y: np.ndarray, ln_a2: np.ndarray, phi: np.ndarray | float = 0.0, *,
              max_iter: int = 500, tol_rel: float = 1e-12) -> Solution:
    """The same damped Newton in float64 (log domain)."""
    X = np.asarray(X, float)
    y = np.asarray(y, float)
    n, d = X.shape
    la = np.broadcast_to(np.asarray(ln_a2, float), (d,))
    ph = np.broadcast_to(np.asarray(phi, float), (d,))
    a2 = np.exp(la)
    ynorm = float(np.linalg.norm(y))

    def at(lam):
        z = 2 * ph + 2 * X.T @ lam
        with np.errstate(over="ignore", invalid="ignore"):
            ep = np.exp(la + z)
            em = np.exp(la - z)
            # |z| < 1: a² sinh z and a²(cosh z − 1)/2 = a² sinh²(z/2) directly (the differences of
            # the two exponentials cancel there: at a² = 1e5 the residual could not go below 1e-10);
            # else the log-domain forms, which never underflow
            small = np.abs(z) < 1
            beta = np.where(small, a2 * np.sinh(z), (ep - em) / 2)
            w = ep + em
            res = y - X @ beta
            excess = np.where(small, a2 * np.sinh(z / 2) ** 2, ((ep + em) / 2 - a2) / 2)
            dual = lam @ y - np.sum(excess)
            scale = np.abs(lam) @ np.abs(y) + np.sum(excess)  # what the dual's rounding is relative to
        if not np.isfinite(dual):
            dual = -np.inf
        return beta, w, res, dual, scale

    lam = np.zeros(n)
    beta, w, res, dual, scale = at(lam)
    dec = np.inf
    it = 0
    converged = False
    while it < max_iter:
        if np.linalg.norm(res) <= tol_rel * ynorm:
            converged = True
            break
        M = (X * w) @ X.T
        try:
            c = np.linalg.cholesky(M)
            delta = np.linalg.solve(c.T, np.linalg.solve(c, res))
        except np.linalg.LinAlgError:
            delta = np.linalg.lstsq(M, res, rcond=None)[0]
        slope = float(res @ delta)
        dec = np.sqrt(abs(slope))
        dz = float(np.max(np.abs(2 * X.T @ delta)))
        t = t0 = min(1.0, 8.0 / dz) if dz > 0 else 1.0
        # Near the solution the dual's increase (≈ slope/2) falls below the rounding of the dual's
        # value (eps times the size of what it sums, |λ||y| + Σ a²(cosh z − 1)/2): Armijo on Φ
        # then accepts or rejects steps by rounding noise and the residual stalls (seen at ‖r‖/‖y‖ ≈ 1e-10..1e-8, 500 iterations). There the residual
        # itself is the merit function: a step is taken iff it decreases ‖Xβ − y‖ (Newton for
        # Xβ(λ) = y, whose Jacobian is the same M).
        unresolved = abs(slope) <= 64 * np.finfo(float).eps * scale
        rnorm = np.linalg.norm(res)
        while True:
            trial = lam + t * delta
            tb, tw, tr, tdual, tscale = at(trial)
            if unresolved:
                if np.linalg.norm(tr) < rnorm or t < t0 * 2.0 ** -60:
                    break
            elif tdual >= dual + 1e-4 * t * slope or t < t0 * 2.0 ** -60:
                break
            t /= 2
        if t < t0 * 2.0 ** -60:
            break
        lam, beta, w, res, dual, scale = trial, tb, tw, tr, tdual, tscale
        it += 1
    with np.errstate(over="ignore", invalid="ignore"):
        h = 0.5 * np.sum(beta * np.arcsinh(beta / a2) - np.sqrt(beta ** 2 + a2 ** 2) + a2) - ph @ beta
    gap = float(h - dual)
    fy = abs(gap + float(lam @ res))
    return Solution(beta, lam, it, float(np.linalg.norm(res) / ynorm), float(dec), gap, fy,
                    converged, None)


def distance(a: Sequence, b: Sequence) -> mpmath.mpf:
    """Euclidean distance of two high-precision vectors (at the caller's precision)."""
    return mpmath.sqrt(mpmath.fsum((x - y) ** 2 for x, y in zip(a, b)))


def solve_float(X: np.ndarray, y: np.ndarray, ln_a2, phi=0.0, *, tol_rel: float = 1e-12) -> Solution:
    """A float64 solution a check may use: :func:`solve_f64`, and if its Newton does not reach
    ``tol_rel`` the same problem at 30 digits (β, λ returned as float64); an error if neither
    converges — a prediction that did not converge is not evidence, and a caller reading ``.beta``
    must not receive one silently."""
    sol = solve_f64(X, y, ln_a2, phi, tol_rel=tol_rel)
    if sol.converged:
        return sol
    d = np.asarray(X).shape[1]
    la = np.broadcast_to(np.asarray(ln_a2, float), (d,))
    ph = np.broadcast_to(np.asarray(phi, float), (d,))
    hp = solve(X, y, [float(v) for v in la], [float(v) for v in ph], dps=30, tol_rel=min(tol_rel, 1e-16))
    if not hp.converged:
        raise RuntimeError(f"implicit problem: neither the float64 Newton (residual {sol.residual_rel:.3g}) "
                           f"nor the 30-digit one (residual {hp.residual_rel:.3g}) reached {tol_rel:g}")
    return replace(hp, beta=np.array([float(b) for b in hp.beta]), lam=np.array([float(v) for v in hp.lam]))


def gf_solution(problem, dps: int | None = None):
    """β*_α = argmin_S ψ_α (gradient flow, eq4/fact2), float64 or at ``dps`` digits."""
    la = 2 * np.log(problem.alpha)
    if dps is None:
        return solve_float(problem.X, problem.y, la, 0.0)
    with mpmath.workdps(dps):
        return solve(problem.X, problem.y, [2 * mpmath.log(mpmath.mpf(float(a))) for a in problem.alpha],
                     [0] * problem.d, dps=dps)
