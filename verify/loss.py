"""Scalar losses ℓ: ℝ → ℝ as values: a sympy expression of ℓ' (always) and of ℓ (when known).

A :class:`Loss` carries everything the rest of the engine needs to evaluate it:

* exact forms (``dl``, ``l``) in the canonical real symbol :data:`S` (``s``), for symbolic checks;
* numpy and mpmath evaluators built by ``sympy.lambdify`` from the same expression;
* compiled evaluators of ℓ' generated from the same expression (:mod:`verify.kernels`): a numba
  float64 kernel ``kernel(s, params) -> ℓ'(s)``, which the GD engine in :mod:`verify.dynamics`
  calls in its inner loop, and a double-double kernel for the ~32-digit path
  (:meth:`Loss.compiled_dl`, :meth:`Loss.compiled_dl_dd`); a hand-written ``kernel``/``dd_kernel``
  passed in takes precedence (kept for callers that compile their own);
* :meth:`Loss.ratio` = ℓ'(s)/s and :meth:`Loss.deficit` = 1 − ℓ'(s)/s, evaluated without
  cancellation near s = 0: the exact quotient is simplified symbolically (piecewise branches
  folded), and where it is still 0/0 at the origin a Taylor polynomial is used for small |s|.

The module knows nothing about any paper; catalogues of named losses live under ``claims/``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable

import mpmath
import numpy as np
import sympy as sp

S = sp.Symbol("s", real=True)
"""The canonical argument of every loss expression."""

# below this |s| the Taylor polynomial of the quotient replaces the 0/0 closed form
_SERIES_RADIUS = 1e-3
_SERIES_ORDER = 12


def _canonical(expr: Any) -> sp.Expr:
    """Rebind any free symbol called ``s`` (whatever its assumptions) to :data:`S`."""
    expr = sp.sympify(expr)
    subs = {sym: S for sym in expr.free_symbols if sym.name == "s" and sym is not S}
    expr = expr.xreplace(subs)
    extra = expr.free_symbols - {S}
    if extra:
        raise ValueError(f"a loss expression may only depend on s; it also uses {sorted(map(str, extra))}")
    return expr


@dataclass(frozen=True, eq=False)
class Loss:
    """A scalar loss given by ℓ' (and optionally ℓ), with exact and numeric evaluators.

    ``beta``: the exponent of assumption (A2) if known (``math.inf`` for Huber-like losses that
    equal s²/2 near 0, ``None`` if unknown). The compiled evaluators of ℓ' are generated from
    ``dl`` (:meth:`compiled_dl`, :meth:`compiled_dl_dd`). ``kernel``/``params`` and
    ``dd_kernel``/``dd_params``: optional hand-written replacements (numba ``kernel(s, params)`` and
    ``dd_kernel(s_hi, s_lo, params) -> (hi, lo)``), used instead when given.
    """

    name: str
    dl: sp.Expr
    l: sp.Expr | None = None
    label: str = ""
    beta: float | None = None
    kernel: Callable | None = field(default=None, repr=False)
    params: tuple = ()
    notes: str = ""
    dd_kernel: Callable | None = field(default=None, repr=False)
    dd_params: tuple = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "dl", _canonical(self.dl))
        if self.l is not None:
            object.__setattr__(self, "l", _canonical(self.l))
        object.__setattr__(self, "params", tuple(float(p) for p in self.params))
        object.__setattr__(self, "dd_params", tuple(float(p) for p in self.dd_params))
        if not self.label:
            object.__setattr__(self, "label", self.name)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_expr(cls, expr_of_l: Any, name: str, **kw: Any) -> "Loss":
        """A loss from ℓ(s); ℓ' is its exact derivative."""
        l = _canonical(expr_of_l)
        return cls(name=name, dl=sp.diff(l, S), l=l, **kw)

    @classmethod
    def from_derivative(cls, expr_of_dl: Any, name: str, **kw: Any) -> "Loss":
        """A loss from ℓ'(s) alone (ℓ is then defined up to a constant; ``l`` stays unknown)."""
        return cls(name=name, dl=_canonical(expr_of_dl), **kw)

    # ------------------------------------------------------------------ exact forms
    @cached_property
    def ratio_expr(self) -> sp.Expr:
        """ℓ'(s)/s with piecewise branches folded and each branch simplified (may still be 0/0 at 0)."""
        q = sp.piecewise_fold(self.dl / S)
        if isinstance(q, sp.Piecewise):
            return sp.Piecewise(*[(sp.simplify(sp.cancel(e)), c) for e, c in q.args])
        return sp.simplify(sp.cancel(q))

    @cached_property
    def _series_poly(self) -> sp.Expr | None:
        """Taylor polynomial of ℓ'(s)/s at 0 when the quotient is analytic there (else None)."""
        if self._finite_at_zero:
            return None
        try:
            ser = sp.series(self.ratio_expr, S, 0, _SERIES_ORDER).removeO()
        except Exception:
            return None
        if ser.has(sp.Abs, sp.sign, sp.log, sp.Piecewise) or not ser.is_polynomial(S):
            return None
        return sp.expand(ser)

    @cached_property
    def _finite_at_zero(self) -> bool:
        """True when the simplified quotient can be evaluated at s = 0 directly."""
        try:
            v = self.ratio_expr.subs(S, 0)
        except Exception:
            return False
        return bool(v.is_finite) and not v.has(sp.nan, sp.zoo)

    @cached_property
    def ratio_at_zero(self) -> sp.Expr:
        """lim_{s→0} ℓ'(s)/s = ℓ''(0), exactly."""
        if self._finite_at_zero:
            return self.ratio_expr.subs(S, 0)
        return sp.limit(self.ratio_expr, S, 0)

    # ------------------------------------------------------------------ compiled evaluators
    @cached_property
    def _compiled(self) -> tuple | None:
        if self.kernel is not None:
            return self.kernel, np.array(self.params or (0.0,), dtype=np.float64)
        from .kernels import NotCompilable, float64_kernel
        try:
            return float64_kernel(self.dl, S)
        except NotCompilable:
            return None

    @cached_property
    def _compiled_dd(self) -> tuple | None:
        if self.dd_kernel is not None:
            return self.dd_kernel, np.array(self.dd_params or (0.0,), dtype=np.float64)
        from .kernels import NotCompilable, dd_kernel
        try:
            return dd_kernel(self.dl, S)
        except NotCompilable:
            return None

    def compiled_dl(self) -> tuple[Callable, np.ndarray] | None:
        """``(kernel, params)``: ℓ' in float64 as a numba function ``kernel(s, params)``, generated
        from ``dl`` (losses of one family share one kernel; see :mod:`verify.kernels`), or None
        when the expression cannot be compiled (the engine then falls back to numpy)."""
        return self._compiled

    def compiled_dl_dd(self) -> tuple[Callable, np.ndarray] | None:
        """``(kernel, params)``: ℓ' in double-double, ``kernel(s_hi, s_lo, params) -> (hi, lo)``, or
        None when the expression has no double-double translation."""
        return self._compiled_dd

    # ------------------------------------------------------------------ numeric evaluators
    @cached_property
    def _np_dl(self) -> Callable:
        return sp.lambdify(S, self.dl, modules="numpy")

    @cached_property
    def _mp_dl(self) -> Callable:
        return sp.lambdify(S, self.dl, modules="mpmath")

    @cached_property
    def _np_ratio(self) -> Callable:
        return sp.lambdify(S, self.ratio_expr, modules="numpy")

    @cached_property
    def _np_deficit(self) -> Callable:
        return sp.lambdify(S, sp.piecewise_fold(1 - self.ratio_expr), modules="numpy")

    @cached_property
    def _np_poly(self) -> np.ndarray | None:
        poly = self._series_poly
        if poly is None:
            return None
        coeffs = sp.Poly(poly, S).all_coeffs()[::-1]  # ascending
        return np.array([float(c) for c in coeffs])

    def dloss(self, s: Any) -> np.ndarray:
        """ℓ'(s) in float64 (numpy broadcasting)."""
        s = np.asarray(s, dtype=float)
        with np.errstate(all="ignore"):
            out = np.asarray(self._np_dl(s), dtype=float)
        return np.broadcast_to(out, s.shape).copy() if out.shape != s.shape else out

    def dloss_mp(self, s: Any) -> mpmath.mpf:
        """ℓ'(s) in mpmath at the current working precision."""
        return self._mp_dl(mpmath.mpf(s))

    def ratio(self, s: Any) -> np.ndarray:
        """ℓ'(s)/s in float64, exact value ℓ''(0) at s = 0, Taylor polynomial for |s| < 1e-3."""
        s = np.asarray(s, dtype=float)
        with np.errstate(all="ignore"):
            out = np.asarray(self._np_ratio(s), dtype=float) * np.ones_like(s)
            coeffs = self._np_poly
            if coeffs is not None:
                small = np.abs(s) < _SERIES_RADIUS
                if np.any(small):
                    out = np.where(small, np.polynomial.polynomial.polyval(s, coeffs), out)
            else:
                zero = s == 0
                if np.any(zero):
                    out = np.where(zero, float(self.ratio_at_zero), out)
        return out

    def deficit(self, s: Any) -> np.ndarray:
        """1 − ℓ'(s)/s without cancellation near 0 (series or the folded closed form)."""
        s = np.asarray(s, dtype=float)
        with np.errstate(all="ignore"):
            coeffs = self._np_poly
            if coeffs is not None:
                out = 1.0 - np.asarray(self._np_ratio(s), dtype=float) * np.ones_like(s)
                small = np.abs(s) < _SERIES_RADIUS
                if np.any(small):
                    c = coeffs.copy()
                    c[0] = 1.0 - c[0]
                    c[1:] = -c[1:]
                    out = np.where(small, np.polynomial.polynomial.polyval(s, c), out)
                return out
            out = np.asarray(self._np_deficit(s), dtype=float) * np.ones_like(s)
            zero = s == 0
            if np.any(zero):
                out = np.where(zero, 1.0 - float(self.ratio_at_zero), out)
            return out

    def __repr__(self) -> str:
        return f"Loss({self.name!r}, dl={self.dl}, beta={self.beta})"
