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
  folded), and where it is still 0/0 at the origin a Taylor polynomial is used for small |s|;
* mpmath evaluators at the working precision: ℓ' (:meth:`Loss.dloss_mp`), ℓ'' (:meth:`Loss.d2loss_mp`),
  and the differences that cancel near 0, 1 − ℓ'(s)/s (:meth:`Loss.deficit_mp`) and ℓ(s) − ℓ(0)
  (:meth:`Loss.excess_mp`), computed at raised precision until the working precision is reached;
* a :class:`LossFamily` is a loss with a symbolic parameter θ (ℓ_β with β a Symbol):
  ``family.at(value)`` is a :class:`Loss`. An exact value gives the ordinary loss of the substituted
  expressions; a float value gives a member whose evaluators are the family's, generated once from
  the sympy forms with θ as an argument, so that drawing many θ (hypothesis) costs no sympy work.

The module knows nothing about any paper; catalogues of named losses live under ``claims/``.
"""
from __future__ import annotations

import math
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


def _canonical(expr: Any, params: tuple = ()) -> sp.Expr:
    """Rebind any free symbol called ``s`` (whatever its assumptions) to :data:`S`."""
    expr = sp.sympify(expr)
    subs = {sym: S for sym in expr.free_symbols if sym.name == "s" and sym is not S}
    expr = expr.xreplace(subs)
    extra = expr.free_symbols - {S, *params}
    if extra:
        raise ValueError(f"a loss expression may only depend on s; it also uses {sorted(map(str, extra))}")
    return expr


class Loss:
    """A scalar loss given by ℓ' (and optionally ℓ), with exact and numeric evaluators.

    ``beta``: the exponent of assumption (A2) if known (``math.inf`` for Huber-like losses that
    equal s²/2 near 0, ``None`` if unknown); ``c``/``C``: the (A2) constant c and the sharp (A3)
    constant C when known (exact sympy numbers). The compiled evaluators of ℓ' are generated from
    ``dl`` (:meth:`compiled_dl`, :meth:`compiled_dl_dd`). ``kernel``/``params`` and
    ``dd_kernel``/``dd_params``: optional hand-written replacements (numba ``kernel(s, params)`` and
    ``dd_kernel(s_hi, s_lo, params) -> (hi, lo)``), used instead when given. ``family``/``parameter``:
    set on the members of a :class:`LossFamily` (made by :meth:`LossFamily.at`).
    """

    def __init__(self, name: str, dl: Any = None, l: Any = None, label: str = "", beta: float | None = None,
                 kernel: Callable | None = None, params: tuple = (), notes: str = "",
                 dd_kernel: Callable | None = None, dd_params: tuple = (), c: Any = None, C: Any = None,
                 *, family: "LossFamily | None" = None, parameter: Any = None) -> None:
        put = self.__dict__.__setitem__  # immutable: attributes are set here only
        put("name", name)
        put("family", family)
        put("parameter", parameter)
        # a member with a float parameter takes its forms from the family lazily (see ``dl``)
        put("_lazy", family is not None and dl is None)
        if not self._lazy:
            if dl is None:
                raise TypeError("a Loss needs dl (ℓ')")
            put("dl", _canonical(dl))
            put("l", None if l is None else _canonical(l))
            put("c", None if c is None else sp.sympify(c))
            put("C", None if C is None else sp.sympify(C))
        put("label", label or name)
        put("beta", beta)
        put("kernel", kernel)
        put("params", tuple(float(p) for p in params))
        put("notes", notes)
        put("dd_kernel", dd_kernel)
        put("dd_params", tuple(float(p) for p in dd_params))

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError(f"Loss is immutable (cannot set {key})")

    def __getattr__(self, key: str) -> Any:
        # only reached for the lazy forms of a member with a float parameter: ℓ', ℓ, c, C are the
        # family's with θ replaced by the value (sympy work done on first use only, then kept)
        if key in ("dl", "l", "c", "C") and self.__dict__.get("_lazy"):
            form = getattr(self.family, key)
            value = None if form is None else form.subs(self.family.param, sp.Float(self.parameter, 17))
            if key in ("dl", "l") and value is not None:
                value = _canonical(value)
            self.__dict__[key] = value
            return value
        raise AttributeError(key)

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
    def d2(self) -> sp.Expr:
        """ℓ''(s), pointwise (the Dirac masses of sign' dropped), as a sympy expression; it may be 0/0
        at isolated points (|s|^β/s at s = 0), where ℓ'' is its limit."""
        return _form(self, "d2")

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

    def _evaluator(self, form: str, modules: str) -> Callable:
        """One of the forms ``dl``, ``d2``, ``deficit``, ``excess``, ``c``, ``C`` as a function of s
        (the constants take s too and ignore it), lambdified once: a member with a float parameter
        binds the family's evaluator of (s, θ) to its θ."""
        key = (form, modules)
        cache = self.__dict__.setdefault("_evaluators", {})
        if key not in cache:
            if self._lazy:
                f, theta = self.family._evaluator(form, modules), self.parameter
                if modules == "mpmath":
                    cache[key] = lambda s: f(mpmath.mpf(s), mpmath.mpf(theta))
                else:
                    cache[key] = lambda s: f(s, float(theta))
            else:
                cache[key] = sp.lambdify(S, _form(self, form), modules=modules)
        return cache[key]

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

    @property
    def dloss_mpmath(self) -> Callable:
        """ℓ' as an mpmath function of an mpf (no conversion of its argument: the high-precision GD loops call it per step)."""
        return self._evaluator("dl", "mpmath")

    def dloss_mp(self, s: Any) -> mpmath.mpf:
        """ℓ'(s) in mpmath at the current working precision."""
        return self._evaluator("dl", "mpmath")(mpmath.mpf(s))

    def dloss_scalar(self, s: float) -> float:
        """ℓ'(s) for one Python float, on the ``math`` module (fast in pure-Python loops)."""
        return self._evaluator("dl", "math")(s)

    def d2loss_mp(self, s: Any) -> mpmath.mpf:
        """ℓ''(s) in mpmath (pointwise: the Dirac masses of sign' are dropped), to the full working
        precision (1 − tanh² cancels for large s); where the closed form is 0/0 (|s|^β/s at s = 0)
        a numerical derivative of ℓ' (``mpmath.diff``) is used."""
        s = mpmath.mpf(s)
        try:
            value = cancellation_free(lambda: self._evaluator("d2", "mpmath")(s))
        except ZeroDivisionError:
            value = mpmath.nan
        return mpmath.diff(self.dloss_mp, s) if mpmath.isnan(value) else value

    def deficit_mp(self, s: Any) -> mpmath.mpf:
        """1 − ℓ'(s)/s in mpmath to the full working precision (raised internally where the
        subtraction cancels, as it does near 0); 1 − ℓ''(0) at s = 0."""
        s = mpmath.mpf(s)
        if s == 0:
            return 1 - mpmath.mpf(sp.N(self.ratio_at_zero, mpmath.mp.dps + 5))
        return cancellation_free(lambda: self._evaluator("deficit", "mpmath")(s))

    def ratio_mp(self, s: Any) -> mpmath.mpf:
        """ℓ'(s)/s in mpmath (ℓ''(0) at s = 0)."""
        return 1 - self.deficit_mp(s)

    def excess_mp(self, s: Any) -> mpmath.mpf:
        """ℓ(s) − ℓ(0) in mpmath to the full working precision (needs ``l``)."""
        s = mpmath.mpf(s)
        if s == 0:
            return mpmath.mpf(0)
        return cancellation_free(lambda: self._evaluator("excess", "mpmath")(s))

    def c_mp(self) -> mpmath.mpf:
        """The (A2) constant c at the working precision."""
        return self._evaluator("c", "mpmath")(0)

    def C_mp(self) -> mpmath.mpf:
        """The sharp (A3) constant C at the working precision."""
        return self._evaluator("C", "mpmath")(0)

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
        if self._lazy:
            return f"Loss({self.name!r}, {self.family.name} at {self.family.param} = {self.parameter!r})"
        return f"Loss({self.name!r}, dl={self.dl}, beta={self.beta})"

    def __str__(self) -> str:
        return self.name


# ---------------------------------------------------------------------- derived forms, shared
def _form(owner: "Loss | LossFamily", form: str) -> sp.Expr:
    """The sympy form ``form`` of a loss or a family (``dl``, ``l``, ``c``, ``C`` or derived)."""
    if form in ("dl", "l", "c", "C", "beta"):
        expr = getattr(owner, form)
        if expr is None:
            raise ValueError(f"{owner.name}: no {form} given")
        return expr
    dl = owner.dl
    if form == "d2":  # pointwise ℓ'': sign' = 2δ is 0 away from 0; sign(s) = s/|s| lets |s|² fold to s²
        return sp.diff(dl, S).replace(sp.DiracDelta, lambda *a: sp.S.Zero).subs(sp.sign(S), S / sp.Abs(S))
    if form == "deficit":
        return sp.piecewise_fold(1 - dl / S)
    if form == "excess":
        l = _form(owner, "l")
        return l - l.subs(S, 0)
    raise ValueError(f"unknown form {form!r}")


def cancellation_free(evaluate: Callable[[], mpmath.mpf], max_extra_bits: int = 8000) -> mpmath.mpf:
    """``evaluate()`` (an mpmath expression that may cancel) to the full working precision.

    mpmath's ``autoprec`` rule: evaluate at increasing precision until two successive values agree to
    the working precision; in addition a value 0 counts as total cancellation (not as agreement)
    until ``max_extra_bits`` extra bits, after which 0 is returned (an exact zero, e.g. 1 − s/s)."""
    prec = mpmath.mp.prec
    work = prec + 20
    try:
        mpmath.mp.prec = work
        v1 = evaluate()
        while True:
            work = int(work * 1.5)
            mpmath.mp.prec = work
            v2 = evaluate()
            if v2 != 0 and (v1 == v2 or mpmath.mag(v2 - v1) - mpmath.mag(v2) < -prec):
                break
            if v2 == 0 and v1 == 0 and work > prec + max_extra_bits:
                break
            v1 = v2
    finally:
        mpmath.mp.prec = prec
    return +v2


# ---------------------------------------------------------------------- families
class LossFamily:
    """A loss with a symbolic parameter θ, e.g. ℓ_β with β a sympy Symbol.

    ``dl``, ``l``, ``c``, ``C`` and ``beta`` are expressions in s (:data:`S`) and ``param``.
    :meth:`at` gives the member at one value: an exact value (int, str, sympy Rational) gives the
    ordinary :class:`Loss` of the substituted expressions (exact constants, generated kernels); a
    Python float gives a member whose mpmath/float evaluators are the family's, lambdified once with
    θ as an argument (drawing many θ costs no sympy work); its own sympy forms are substituted on first
    use only. ``name`` and ``label`` format the members' (``{value}``; LaTeX of an exact value in ``label``).
    """

    def __init__(self, name: str, param: sp.Symbol, dl: Any, l: Any = None, beta: Any = None,
                 c: Any = None, C: Any = None, label: str = "", notes: str = "") -> None:
        self.name, self.param, self.label, self.notes = name, param, label or name, notes
        self.dl = _canonical(dl, (param,))
        self.l = None if l is None else _canonical(l, (param,))
        self.beta = None if beta is None else sp.sympify(beta)
        self.c = None if c is None else sp.sympify(c)
        self.C = None if C is None else sp.sympify(C)
        self._evaluators: dict = {}
        self._exact_members: dict = {}

    def _evaluator(self, form: str, modules: str) -> Callable:
        key = (form, modules)
        if key not in self._evaluators:
            self._evaluators[key] = sp.lambdify((S, self.param), _form(self, form), modules=modules)
        return self._evaluators[key]

    def member_name(self, value: Any, template: str | None = None) -> str:
        """``name`` (or ``template``) with ``{value}`` filled in (floats as ``%g``)."""
        return (template or self.name).format(value=f"{value:g}" if isinstance(value, float) else value)

    def at(self, value: Any) -> Loss:
        """The member at θ = ``value`` (see the class docstring)."""
        if isinstance(value, float):
            beta = None if self.beta is None else float(self._evaluator("beta", "math")(0.0, value))
            return Loss(self.member_name(value), family=self, parameter=value, beta=beta,
                        label=self.member_name(value, self.label))
        exact = sp.Rational(value) if isinstance(value, (int, str)) else sp.sympify(value)
        if exact not in self._exact_members:
            sub = {self.param: exact}
            forms = {k: (None if getattr(self, k) is None else getattr(self, k).subs(sub))
                     for k in ("dl", "l", "c", "C", "beta")}
            beta = forms.pop("beta")
            self._exact_members[exact] = Loss(
                self.member_name(exact), label=self.member_name(sp.latex(exact), self.label), notes=self.notes,
                beta=None if beta is None else float(beta), family=self, parameter=exact, **forms)
        return self._exact_members[exact]

    def __repr__(self) -> str:
        return f"LossFamily({self.name!r}, {self.param}, dl={self.dl})"
