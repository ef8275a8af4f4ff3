"""Hypothesis strategies for diagonal-linear-network problem instances (even2023), reusable in
users' own tests::

    from hypothesis import given
    from claims.even2023._strategies import problems

    @given(problems(max_n=4, max_d=8))
    def test_something(problem):          # problem: claims.even2023._dln.Problem
        assert problem.n < problem.d

What is drawn, and how it shrinks:

* ``designs(n, d, kind)`` — the data matrix X (n < d). ``kind`` is one of
  ``"gaussian"`` (i.i.d. N(0, σ²)), ``"correlated"`` (Gaussian rows with Toeplitz covariance
  ρ^{|i−j|}), ``"rademacher"`` (±1 entries) or ``"spiked"`` (Gaussian plus a rank-one spike
  along one direction). The numbers come from a numpy generator seeded by a drawn integer, so an
  example is reproducible from its printed seed; sizes, scale and kind shrink toward small/simple.
* ``sparse_teachers(d, max_s)`` — β* with s ≤ max_s non-zero entries, y = Xβ* (noiseless).
* ``alpha_scales()`` — the initialisation scale: a float on a log scale in [1e-4, 2].
* ``alpha_shapes(d)`` — a positive vector: uniform, geometric α_i = a·r^i, or two-level.
* ``problems(...)`` — a full :class:`~claims.even2023._dln.Problem` (X, y, α, teacher),
  with rank X = n guaranteed (draws are rejected otherwise; Gaussian designs have full rank a.s.).

All floats are float64 and are read exactly as dyadic rationals by the high-precision path.
"""
from __future__ import annotations

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from ._dln import Problem

DESIGN_KINDS = ("gaussian", "correlated", "rademacher", "spiked")


def _design(rng: np.random.Generator, n: int, d: int, kind: str, sigma: float) -> np.ndarray:
    if kind == "gaussian":
        return sigma * rng.standard_normal((n, d))
    if kind == "correlated":
        rho = 0.6
        idx = np.arange(d)
        cov = rho ** np.abs(idx[:, None] - idx[None, :])
        return sigma * rng.standard_normal((n, d)) @ np.linalg.cholesky(cov).T
    if kind == "rademacher":
        return sigma * rng.choice([-1.0, 1.0], size=(n, d))
    if kind == "spiked":
        spike = rng.standard_normal(d)
        spike /= np.linalg.norm(spike)
        return sigma * (rng.standard_normal((n, d)) + 2.0 * rng.standard_normal((n, 1)) * spike)
    raise ValueError(f"unknown design kind {kind!r}; expected one of {DESIGN_KINDS}")


@st.composite
def designs(draw, n: int, d: int, kind: str | None = None, sigma: float = 1.0) -> np.ndarray:
    """An n×d design of the given kind (drawn among DESIGN_KINDS when ``kind`` is None)."""
    kind = kind or draw(st.sampled_from(DESIGN_KINDS))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    return _design(np.random.default_rng(seed), n, d, kind, sigma)


@st.composite
def sparse_teachers(draw, d: int, max_s: int = 3) -> np.ndarray:
    """β* ∈ ℝ^d with 1 ≤ s ≤ max_s non-zero entries of magnitude in [0.1, 3]."""
    s = draw(st.integers(1, max(1, min(max_s, d))))
    supp = draw(st.lists(st.integers(0, d - 1), min_size=s, max_size=s, unique=True))
    vals = draw(st.lists(st.floats(0.1, 3.0), min_size=s, max_size=s))
    signs = draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=s, max_size=s))
    b = np.zeros(d)
    b[supp] = np.array(vals) * np.array(signs)
    return b


def alpha_scales(lo: float = 1e-4, hi: float = 2.0) -> st.SearchStrategy[float]:
    """Initialisation scales, log-uniform-ish in [lo, hi] (shrinks toward 10^0 = 1 clipped)."""
    return st.floats(np.log10(lo), np.log10(hi)).map(lambda e: float(10.0 ** e))


@st.composite
def alpha_shapes(draw, d: int, scale: float | None = None) -> np.ndarray:
    """A positive α ∈ ℝ^d: uniform, geometric (a·r^i, r ∈ [0.5, 2]) or two-level (a, a·c)."""
    a = scale if scale is not None else draw(alpha_scales())
    shape = draw(st.sampled_from(["uniform", "geometric", "two-level"]))
    if shape == "uniform":
        return np.full(d, a)
    if shape == "geometric":
        r = draw(st.floats(0.5, 2.0))
        return a * r ** (np.arange(d) / max(d - 1, 1))
    c = draw(st.floats(0.05, 20.0))
    k = draw(st.integers(1, d))
    out = np.full(d, a)
    out[k - 1:] *= c
    return out


@st.composite
def problems(draw, min_n: int = 1, max_n: int = 5, max_extra_d: int = 6, max_s: int = 3,
             kinds: tuple[str, ...] = DESIGN_KINDS, uniform_alpha: bool = False,
             alpha_lo: float = 1e-2, alpha_hi: float = 1.0) -> Problem:
    """A full problem instance with n < d, rank X = n, a sparse noiseless teacher and α."""
    n = draw(st.integers(min_n, max_n))
    d = n + draw(st.integers(1, max_extra_d))
    X = draw(designs(n, d, kind=draw(st.sampled_from(kinds))))
    assume(np.linalg.matrix_rank(X) == n)
    teacher = draw(sparse_teachers(d, max_s))
    y = X @ teacher
    assume(np.linalg.norm(y) > 1e-3)
    a = draw(alpha_scales(alpha_lo, alpha_hi))
    alpha = np.full(d, a) if uniform_alpha else draw(alpha_shapes(d, scale=a))
    return Problem(X, y, alpha, teacher, f"hypothesis(n={n}, d={d})")
