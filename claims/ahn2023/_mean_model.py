"""The mean model of Ahn et al. (2023), §3: smoothed ReLU g, κ, the iteration (5) and the flow (6).

Everything here is paper-agnostic numerics for the §3 claims:

* ``g`` (def8 / Lemma 2): g(b) = E ReLU(z + b) = φ(b) + bΦ(b), g' = Φ, g'' = φ.
* ``kappa`` (def9): κ(b) = ∫_0^b g(u)/g'(u) du, by adaptive quadrature (scipy) or mpmath.
* ``mean_model_final`` / ``mean_model_path`` (def10, eq. (5)): float64 lanes, compiled with numba,
  ℓ' being the catalogue loss's float64 kernel generated from its sympy form (``Loss.compiled_dl``);
  ``mean_model_mp`` is the same recursion in mpmath for cross-checks.
* ``flow`` (def11, eq. (6)): scipy ``solve_ivp`` (DOP853) at tight tolerances.
* ``g_inverse`` (root of g(b) = y, mpmath ``findroot`` at a scoped precision).
* ``transition_bisect``: the step size (in units c = ηd²/π) at which the mean model starts to learn
  a threshold, located by bisection on a monotone predicate.

Losses: ℓ_sym(s) = ½ log(1 + e^{-s}) + ½ log(1 + e^{s}), so ℓ_sym'(s) = ½ tanh(s/2) (fact9.ii). The
compiled loops take ℓ' as an argument (the generated kernel of ``claims.ahn2023._losses.SYM``, which
computes p0·tanh(p1·s) with p0 = p1 = ½: the same float64 numbers as ½·tanh(½·s), since scaling by ½
is exact); numba cannot cache a loop that takes a function argument on disk, so each process compiles
them once (~0.5 s each).
"""
from __future__ import annotations

import functools
import math

import mpmath
import numba
import numpy as np
from scipy import integrate, optimize, special

INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


# --------------------------------------------------------------------------- g, g', κ (float64)

def g(b):
    """Smoothed ReLU g(b) = φ(b) + bΦ(b) (Lemma 2); numpy-vectorised."""
    b = np.asarray(b, dtype=float)
    return np.exp(-0.5 * b * b) * INV_SQRT_2PI + b * special.ndtr(b)


def g_prime(b):
    """g'(b) = Φ(b)."""
    return special.ndtr(np.asarray(b, dtype=float))


def kappa(b: float) -> float:
    """κ(b) = ∫_0^b g(u)/g'(u) du (def9), adaptive quadrature to ~1e-13 relative."""
    value, _ = integrate.quad(lambda u: float(g(u) / g_prime(u)), 0.0, float(b),
                              epsabs=1e-15, epsrel=1e-13, limit=200)
    return value


def kappa_inverse(level: float) -> float:
    """The b <= 0 with κ(b) = level (level <= 0); κ is increasing with κ' = g/g' > 0."""
    if level == 0.0:
        return 0.0
    lo = -1.0
    while kappa(lo) > level:
        lo *= 2.0
    return optimize.brentq(lambda b: kappa(b) - level, lo, 0.0, xtol=1e-15, rtol=1e-14)


# --------------------------------------------------------------------------- high precision

def g_mp(b):
    b = mpmath.mpf(b)
    return mpmath.npdf(b) + b * mpmath.ncdf(b)


def kappa_mp(b):
    b = mpmath.mpf(b)
    return mpmath.quad(lambda u: g_mp(u) / mpmath.ncdf(u), [0, b])


def g_inverse(y, dps: int = 50):
    """The b with g(b) = y (y > 0), by mpmath findroot (Newton on g' = Φ) at ``dps`` digits.

    ``y`` may be a zero-argument callable, evaluated inside the working precision (pass
    ``lambda: 2 / mpmath.sqrt(10 * mpmath.pi)`` rather than a value rounded at 15 digits)."""
    with mpmath.workdps(dps):
        y = mpmath.mpf(y() if callable(y) else y)
        # g is increasing and convex with g(0) = 1/sqrt(2π); start from the tangent at 0
        b0 = 2 * (y - 1 / mpmath.sqrt(2 * mpmath.pi))
        root = mpmath.findroot(lambda b: g_mp(b) - y, b0, tol=mpmath.mpf(10) ** (-dps + 5))
        return +root


def mean_model_mp(A0, eta, d, steps: int, dps: int = 40):
    """The recursion (5) in mpmath; returns lists (A_t), (b_t) for t = 0..steps (ℓ_sym' evaluated
    from the catalogue's sympy form, ``SYM.dloss_mpmath``)."""
    from claims.ahn2023._losses import SYM

    dl = SYM.dloss_mpmath
    with mpmath.workdps(dps):
        A, b = mpmath.mpf(A0), mpmath.mpf(0)
        eta = mpmath.mpf(eta)
        d2 = mpmath.mpf(d) ** 2
        As, bs = [A], [b]
        for _ in range(steps):
            gb, gp = g_mp(b), mpmath.ncdf(b)
            lp = dl(A * gb)
            A, b = A - 2 * d2 * eta * lp * gb, b - eta * lp * A * gp
            As.append(+A)
            bs.append(+b)
        return As, bs


# --------------------------------------------------------------------------- compiled lanes

@numba.njit(cache=True)
def _g1(b):
    return math.exp(-0.5 * b * b) * 0.3989422804014327 + b * 0.5 * math.erfc(-b / 1.4142135623730951)


@numba.njit(cache=True)
def _gp1(b):
    return 0.5 * math.erfc(-b / 1.4142135623730951)


_LOOPS: dict = {}


def _loops(kernel):
    """The compiled loops of (5) (:func:`_mm_final`, :func:`_mm_envelope`, written once as plain
    Python) with ℓ' = ``kernel`` bound as a module global of a generated module, compiled through
    :func:`verify.kernelcache.compiled_template`: numba's on-disk cache keeps them across processes (a
    kernel passed as an argument would defeat it)."""
    if kernel not in _LOOPS:
        from verify.kernelcache import compiled_template

        _LOOPS[kernel] = compiled_template((_mm_final, _mm_envelope), "mean_model_loops", {"dl": kernel})
    return _LOOPS[kernel]


def _dl_kernel(loss: str = "sym"):
    """(kernel, params): ℓ' of the catalogue loss ``loss`` as its generated float64 numba kernel."""
    from claims.ahn2023._losses import loss_by_key

    compiled = loss_by_key(loss).compiled_dl()
    if compiled is None:
        raise ValueError(f"loss {loss!r} has no compiled float64 kernel")
    return compiled


def _mm_final(A0, eta, d, max_steps, a_tol, a_mult, p):
    """Run (5) per lane until |A_t| <= a_tol (converged) or max_steps; ℓ'(s) = ``dl(s, p)``, ``dl``
    bound by the generated module (a template, :func:`_loops`).

    ``a_mult`` multiplies the A-step (2 in the paper's 2d²η; planted variants change it).
    Returns final A, b, steps used, number of sign changes of A, min over t of b.
    """
    n = A0.shape[0]
    A_out = np.empty(n)
    b_out = np.empty(n)
    steps = np.empty(n, dtype=np.int64)
    flips = np.empty(n, dtype=np.int64)
    for k in range(n):
        A = A0[k]
        b = 0.0
        e = eta[k]
        dd = d[k] * d[k]
        t = 0
        nf = 0
        while t < max_steps and abs(A) > a_tol:
            gb = _g1(b)
            lp = dl(A * gb, p)  # noqa: F821 (bound by the generated module)
            A_new = A - a_mult * dd * e * lp * gb
            b = b - e * lp * A * _gp1(b)
            if A_new * A < 0.0:
                nf += 1
            A = A_new
            t += 1
            if not (abs(A) < 1e300 and abs(b) < 1e300):
                break
        A_out[k] = A
        b_out[k] = b
        steps[k] = t
        flips[k] = nf
    return A_out, b_out, steps, flips


def mean_model_final(A0, eta, d, *, max_steps: int = 2_000_000, a_tol: float = 1e-12,
                     a_mult: float = 2.0, loss: str = "sym"):
    """Final (A, b) of (5) for broadcast lanes (A0, η, d), plus steps used and A sign changes
    (``loss``: a key of the loss catalogue, ℓ_sym in the paper).

    Stops a lane when |A_t| <= a_tol: from there b moves by at most η·|A|²/... per step, a total
    below ~η·a_tol²/(1 - contraction), negligible. A lane that hits ``max_steps`` is reported
    through ``steps == max_steps`` (the caller treats it as unconverged, never as a pass).
    """
    A0, eta, d = np.broadcast_arrays(np.asarray(A0, float), np.asarray(eta, float),
                                     np.asarray(d, float))
    shape = A0.shape
    kernel, params = _dl_kernel(loss)
    A, b, steps, flips = _loops(kernel)._mm_final(A0.ravel().copy(), eta.ravel().copy(), d.ravel().copy(),
                                                  int(max_steps), float(a_tol), float(a_mult), params)
    return (A.reshape(shape), b.reshape(shape), steps.reshape(shape), flips.reshape(shape))


def mean_model_path(A0: float, eta: float, d: float, steps: int, a_mult: float = 2.0,
                    loss: str = "sym"):
    """Trajectory (A_t, b_t), t = 0..steps, of (5) in float64.

    ``a_mult`` is the factor in the A-step a_mult·d²η (2 in the paper); ``loss`` is a key of the loss
    catalogue (:func:`claims.ahn2023._losses.loss_by_key`): ``"logi"`` replaces ℓ_sym' by
    ℓ_logi'(s) = -1/(1 + e^s) (both are planted variants for fig8)."""
    from claims.ahn2023._losses import loss_by_key

    dl = loss_by_key(loss).dloss_scalar
    A = np.empty(steps + 1)
    b = np.empty(steps + 1)
    A[0], b[0] = A0, 0.0
    for t in range(steps):
        gb = float(g(b[t]))
        s = A[t] * gb
        lp = dl(s)
        A[t + 1] = A[t] - a_mult * d * d * eta * lp * gb
        b[t + 1] = b[t] - eta * lp * A[t] * float(g_prime(b[t]))
    return A, b


def _mm_envelope(A0, eta, d, gamma, max_steps, p):
    """Theorem 3's proof invariant along (5): worst ratios |A_t|/(|A0|e^{-γt}) and b_t/(-η|A0|/γ)
    over t <= steps, and max_t b_t; stops once |A_t| <= 1e-13|A0| (converged) or at max_steps."""
    A = A0
    b = 0.0
    dd = d * d
    b_floor = eta * abs(A0) / gamma
    worst_env = 0.0
    worst_b = 0.0
    b_max = 0.0
    t = 0
    while t < max_steps and abs(A) > 1e-13 * abs(A0):
        gb = _g1(b)
        lp = dl(A * gb, p)  # noqa: F821 (bound by the generated module)
        A, b = A - 2.0 * dd * eta * lp * gb, b - eta * lp * A * _gp1(b)
        t += 1
        env = abs(A0) * math.exp(-gamma * t)
        r = abs(A) / env if env > 0 else math.inf
        if r > worst_env:
            worst_env = r
        if -b / b_floor > worst_b:
            worst_b = -b / b_floor
        if b > b_max:
            b_max = b
    return worst_env, worst_b, b_max, b, t


def envelope(A0: float, eta: float, d: float, gamma: float, max_steps: int = 5_000_000) -> dict:
    """Run :func:`_mm_envelope`; ``converged`` is False if the step budget ran out."""
    kernel, params = _dl_kernel("sym")
    env, wb, bmax, b, t = _loops(kernel)._mm_envelope(float(A0), float(eta), float(d), float(gamma),
                                                      int(max_steps), params)
    return {"env_ratio": float(env), "b_ratio": float(wb), "b_max": float(bmax),
            "b_final": float(b), "steps": int(t),
            "converged": bool(t < max_steps)}


# --------------------------------------------------------------------------- gradient flow (6)

def flow_rhs(d: float):
    """Right-hand side of (6) with ℓ = ℓ_sym (ℓ' from the catalogue's sympy form, ``SYM.dloss_scalar``)."""
    from claims.ahn2023._losses import SYM

    dl = SYM.dloss_scalar
    d2 = float(d) ** 2

    def rhs(t, z):
        A, b = z
        gb = float(g(b))
        lp = dl(A * gb)
        return [-2.0 * d2 * lp * gb, -lp * A * float(g_prime(b))]
    return rhs


def flow(A0: float, d: float, t_end: float | None = None, rtol: float = 1e-12,
         atol: float = 1e-14, dense: bool = False):
    """Integrate (6) from (A0, 0) with DOP853. The A-rate near the b-axis is ~ d² g(0)²/2, so the
    default horizon 60/(d² g(0)²) ≈ 380/d² brings |A| down by ~e^{-30}."""
    if t_end is None:
        t_end = 60.0 / (d * d * INV_SQRT_2PI ** 2)
    return integrate.solve_ivp(flow_rhs(d), (0.0, t_end), [float(A0), 0.0], method="DOP853",
                               rtol=rtol, atol=atol, dense_output=dense)


@functools.lru_cache(maxsize=256)
def flow_b_inf(A0: float, d: float) -> tuple[float, float]:
    """(b_∞^GF, |A(T)|) for (6) from (A0, 0)."""
    sol = flow(A0, d)
    return float(sol.y[1, -1]), float(abs(sol.y[0, -1]))


# --------------------------------------------------------------------------- the transition

@functools.lru_cache(maxsize=4096)
def b_inf(c: float, d: int, A0: float, max_steps: int = 4_000_000) -> tuple[float, int]:
    """b_∞^MM at η = cπ/d² from (A0, 0); returns (b_final, steps) (steps == max_steps: unconverged)."""
    eta = c * math.pi / d ** 2
    _, b, steps, _ = mean_model_final(np.array([A0]), np.array([eta]), np.array([float(d)]),
                                      max_steps=max_steps)
    return float(b[0]), int(steps[0])


def learns_threshold(c: float, d: int, A0: float) -> bool | None:
    """The mean model "learns a threshold" at c = ηd²/π when |b_∞| > 1/d, i.e. b_∞ is closer (on a
    log scale) to the Ω(1) branch than to the O(1/d²) branch. None if the run did not converge."""
    b, steps = b_inf(c, d, A0)
    if steps >= 4_000_000 or not math.isfinite(b):
        return None
    return abs(b) > 1.0 / d


def transition_bisect(d: int, A0: float, lo: float = 6.0, hi: float = 12.0,
                      tol: float = 1e-3) -> dict:
    """Bisection in c = ηd²/π on the monotone predicate ``learns_threshold``.

    Returns the bracket and the number of evaluations; ``ok`` is False if the predicate is not
    False at ``lo`` and True at ``hi`` or a run did not converge."""
    p_lo, p_hi = learns_threshold(lo, d, A0), learns_threshold(hi, d, A0)
    evals = 2
    if p_lo is not False or p_hi is not True:
        return {"ok": False, "lo": lo, "hi": hi, "p_lo": p_lo, "p_hi": p_hi, "evals": evals}
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        p = learns_threshold(mid, d, A0)
        evals += 1
        if p is None:
            return {"ok": False, "lo": lo, "hi": hi, "p_mid": None, "evals": evals}
        if p:
            hi = mid
        else:
            lo = mid
    return {"ok": True, "lo": lo, "hi": hi, "c_star": 0.5 * (lo + hi), "evals": evals}


# --------------------------------------------------------------------------- symbolic forms (sympy)

def sym():
    """Sympy building blocks for §3: symbols, φ, Φ, g, ℓ_sym, ℓ_logi (ℓ_sym in its log form, its
    derivative also in the tanh form ½ tanh(s/2))."""
    import sympy as sp
    b, z, s, A, d, eta = sp.symbols("b z s A d eta", real=True)
    dpos = sp.Symbol("d", positive=True)
    phi = sp.exp(-b ** 2 / 2) / sp.sqrt(2 * sp.pi)
    Phi = (1 + sp.erf(b / sp.sqrt(2))) / 2
    g_expr = phi + b * Phi
    ell_sym = sp.log(1 + sp.exp(-s)) / 2 + sp.log(1 + sp.exp(s)) / 2
    ell_logi = sp.log(1 + sp.exp(-s))
    return {"sp": sp, "b": b, "z": z, "s": s, "A": A, "d": d, "dpos": dpos, "eta": eta,
            "phi": phi, "Phi": Phi, "g": g_expr, "ell_sym": ell_sym, "ell_logi": ell_logi,
            "ell_sym_prime_tanh": sp.tanh(s / 2) / 2}
