"""The real line cut into cells at the exact break points of every Piecewise / Abs / sign / Min / Max.

On each open cell the loss is one smooth sympy expression; :class:`_Exact` holds the cells and
evaluates ℓ, ℓ', ℓ'' at high precision; :class:`_Numeric` wraps a pair of callables (float only).
"""
from __future__ import annotations

import math
import mpmath
import numpy as np
import sympy as sp
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

from ..lossparse import S
from ..symbolic import BudgetExceeded
from . import clock
from .common import AuditInputError, DPS, _TINY, _is_zero, _mp, _simplify


# ============================================================================ cells
@dataclass
class Cell:
    """An open interval (lo, hi) on which every Piecewise / Abs / sign / Min / Max is resolved."""

    lo: sp.Expr
    hi: sp.Expr
    mid: sp.Rational
    l: sp.Expr | None      # ℓ on the cell (None when given by its derivative)
    dl: sp.Expr            # ℓ' (smooth on the cell)
    d2l: sp.Expr           # ℓ''
    exact: bool = True     # the formula is proved to hold on the whole cell (exact break points)
    _f: dict = field(default_factory=dict, repr=False)

    def fn(self, which: str, float_path: bool = False) -> Callable:
        key = (which, float_path)
        if key not in self._f:
            expr = getattr(self, which)
            # lambdify only ever sees expressions built by the whitelist parser (or the caller's
            # own sympy object): printing and compiling them runs no user-supplied code
            self._f[key] = sp.lambdify(S, expr, modules="math" if float_path else "mpmath")
        return self._f[key]

    def contains(self, p: Any) -> bool:
        """p strictly inside the cell: decided on 80-digit values of the end points, exactly (sympy)
        only when p is closer to an end point than that precision can tell."""
        if "bounds" not in self._f:
            with mpmath.workdps(80):
                self._f["bounds"] = tuple(None if v in (-sp.oo, sp.oo) else mpmath.mpf(sp.N(v, 85))
                                          for v in (self.lo, self.hi))
        lo, hi = self._f["bounds"]
        with mpmath.workdps(80):
            x = mpmath.mpf(sp.N(p, 85)) if isinstance(p, sp.Basic) else mpmath.mpf(p)
            tol = mpmath.mpf(10) ** -70 * (1 + abs(x))
            for bound, exact_bound, above in ((lo, self.lo, True), (hi, self.hi, False)):
                if bound is None:
                    continue
                d = x - bound if above else bound - x
                if d < -tol:
                    return False
                if d <= tol and not bool(p > exact_bound if above else p < exact_bound):
                    return False
        return True


def _truth(cond: Any, m: sp.Expr) -> bool:
    if cond in (sp.true, True):
        return True
    if cond in (sp.false, False):
        return False
    if isinstance(cond, sp.And):
        return all(_truth(c, m) for c in cond.args)
    if isinstance(cond, sp.Or):
        return any(_truth(c, m) for c in cond.args)
    if isinstance(cond, sp.Not):
        return not _truth(cond.args[0], m)
    if isinstance(cond, sp.core.relational.Relational):
        d = sp.N(_resolve(cond.lhs - cond.rhs, m).subs(S, m), DPS)
        if not d.is_real:
            raise AuditInputError(f"condition {cond} is not real at s = {m}")
        ops = {"<": d < 0, "<=": d <= 0, ">": d > 0, ">=": d >= 0, "==": d == 0, "!=": d != 0}
        return bool(ops[cond.rel_op])
    v = cond.subs(S, m)
    if v in (sp.true, sp.false):
        return v == sp.true
    raise AuditInputError(f"cannot decide the condition {cond} at s = {m}")


def _sign_at(e: sp.Expr, m: sp.Expr) -> int:
    v = sp.N(e.subs(S, m), DPS)
    if not v.is_real:
        raise AuditInputError(f"{e} is not real at s = {m}")
    return int(bool(v > 0)) - int(bool(v < 0))


def _resolve(e: sp.Expr, m: sp.Expr) -> sp.Expr:
    """The smooth expression that ``e`` equals near s = m (m not a break point)."""
    if not e.has(sp.Piecewise, sp.Abs, sp.sign, sp.Min, sp.Max):
        return e
    if isinstance(e, sp.Piecewise):
        for ex, c in e.args:
            if _truth(c, m):
                return _resolve(ex, m)
        raise AuditInputError(f"the Piecewise {sp.sstr(e)[:80]} is undefined at s = {m} "
                              "(add a final (expr, True) branch)")
    if isinstance(e, sp.Abs):
        a = _resolve(e.args[0], m)
        return a if _sign_at(a, m) >= 0 else -a
    if isinstance(e, sp.sign):
        a = _resolve(e.args[0], m)
        return sp.Integer(_sign_at(a, m))
    if isinstance(e, (sp.Min, sp.Max)):
        args = [_resolve(a, m) for a in e.args]
        vals = [sp.N(a.subs(S, m), DPS) for a in args]
        k = (min if isinstance(e, sp.Min) else max)(range(len(args)), key=lambda i: vals[i])
        return args[k]
    return e.func(*[_resolve(a, m) for a in e.args])


WINDOW = 16  # when a condition has infinitely many or unsolved crossings, cells are exact on |s| < WINDOW


def _zeros(f: sp.Expr) -> tuple[list, str]:
    """Real zeros of f(s), exactly: (points, "all"), or only those in (-WINDOW, WINDOW) ("window",
    e.g. cos(s) = c), or ("unknown", []) when sympy cannot solve (s⁵ + s·eˢ = 3)."""
    if not f.has(S):
        return [], "all"
    for domain, scope in ((sp.Reals, "all"), (sp.Interval.open(-WINDOW, WINDOW), "window")):
        try:
            with clock.step(3.0):
                sol = sp.solveset(f, S, domain)
        except (BudgetExceeded, Exception):
            continue
        pts = _points_of(sol)
        if pts is not None:
            return pts, scope
    return [], "unknown"


def _points_of(sol: Any) -> list | None:
    """The finite end points of a solution set (None if it is not a finite union)."""
    if sol == sp.EmptySet:
        return []
    if isinstance(sol, sp.FiniteSet):
        return [z for z in sol if z.is_real]
    if isinstance(sol, sp.Interval):  # f vanishes on an interval: its end points matter
        return [p for p in (sol.start, sol.end) if p.is_finite]
    if isinstance(sol, sp.Union):
        pts: list = []
        for a in sol.args:
            sub = _points_of(a)
            if sub is None:
                return None
            pts += sub
        return pts
    return None


def _poles(f: sp.Expr) -> tuple[list, str]:
    """Real points where a condition's function is not continuous (1/s, tan s): its sign may
    change there without a zero."""
    den = sp.denom(sp.together(f))
    pts, scope = _zeros(den) if den.has(S) else ([], "all")
    if f.has(sp.tan, sp.cot, sp.sec, sp.csc, sp.log):
        for node in sp.preorder_traversal(f):
            if isinstance(node, (sp.tan, sp.sec)):
                z, sc = _zeros(sp.cos(node.args[0]))
            elif isinstance(node, (sp.cot, sp.csc)):
                z, sc = _zeros(sp.sin(node.args[0]))
            elif isinstance(node, sp.log):
                z, sc = _zeros(node.args[0])
            else:
                continue
            pts += z
            scope = _worse(scope, sc)
    return pts, scope


def _worse(a: str, b: str) -> str:
    order = ("all", "window", "unknown")
    return order[max(order.index(a), order.index(b))]


def _breakpoints(e: sp.Expr) -> tuple[list, str]:
    """Exact break points (sorted, symmetric about 0, 0 included) and their scope: "all", "window"
    (exact on |s| < WINDOW only) or "unknown"."""
    pts: list = [sp.Integer(0)]
    scope = "all"

    def add(f):
        nonlocal scope
        for finder in (_zeros, _poles):
            clock.check("the break points")
            z, sc = finder(f)
            pts.extend(z)
            scope = _worse(scope, sc)

    for node in sp.preorder_traversal(e):
        if isinstance(node, sp.core.relational.Relational):
            add(node.lhs - node.rhs)
        elif isinstance(node, (sp.Abs, sp.sign)):
            add(node.args[0])
        elif isinstance(node, (sp.Min, sp.Max)):
            a = node.args
            for i in range(len(a)):
                for j in range(i + 1, len(a)):
                    add(a[i] - a[j])
    pts = [p for p in pts if p.is_real and p.is_finite]
    if scope == "window":
        pts = [p for p in pts if abs(_mp(p)) < WINDOW] + [sp.Integer(WINDOW)]
    pts += [-p for p in pts]  # symmetric cells, so that ℓ(s) and ℓ(-s) are compared cell by cell
    uniq: list = []
    with mpmath.workdps(DPS):
        for p in sorted(pts, key=lambda q: _mp(q)):
            if uniq and sp.N(p - uniq[-1], DPS) == 0:
                same = _is_zero(p - uniq[-1])
                if same is True:
                    continue
                if same is None:  # equal to 40 digits but not provably: the order is unknown
                    scope = "unknown"
                    continue
            uniq.append(p)
    if len(uniq) > 41:
        raise AuditInputError(f"too many break points ({len(uniq)}); at most 41 are supported")
    return uniq, scope


def _simplest_between(lo: Fraction, hi: Fraction) -> Fraction:
    """The rational with the smallest denominator in the open interval (lo, hi) (Stern–Brocot)."""
    fl = math.floor(lo)
    if fl + 1 < hi:
        return Fraction(fl + 1)
    if lo == fl:  # (lo, hi) = (fl, fl + f): the simplest is fl + 1/n with n the first integer > 1/f
        return fl + Fraction(1, math.floor(1 / (hi - fl)) + 1)
    # (lo, hi) inside (fl, fl + 1): recurse on the reciprocals of the fractional parts
    return fl + 1 / _simplest_between(1 / (hi - fl), 1 / (lo - fl))


def _rational_between(a: sp.Expr, b: sp.Expr) -> sp.Rational | None:
    """A short rational strictly inside the open cell (a, b), checked exactly by sympy; None if
    sympy cannot confirm it (the cell is then not handled exactly)."""
    if a == -sp.oo:
        return sp.Integer(math.floor(_mp(b))) - 1
    if b == sp.oo:
        return sp.Integer(math.ceil(_mp(a))) + 1
    for dps in (DPS, 4 * DPS):
        with mpmath.workdps(dps):
            fa, fb = _mp(a), _mp(b)
            w = (fb - fa) / 4
            if not w > 0:
                continue
            lo, hi = _frac_of(fa + w), _frac_of(fb - w)
        m = _simplest_between(lo, hi)
        q = sp.Rational(m.numerator, m.denominator)
        gt, lt = (q - a).is_positive, (b - q).is_positive
        if gt is None or lt is None:
            try:
                gt, lt = bool(sp.N(q - a, 3 * dps) > 0), bool(sp.N(b - q, 3 * dps) > 0)
            except TypeError:
                return None
        if gt and lt:
            return q
    return None


def _frac_of(x: mpmath.mpf) -> Fraction:
    sign, man, exp, _ = mpmath.mpf(x)._mpf_  # exact binary value (sign kept apart by mpmath)
    return (-1 if sign else 1) * Fraction(int(man)) * (Fraction(2) ** int(exp))


# ============================================================================ subjects
_NICE = [sp.Rational(v) * sg for v in ("1/2", "1", "2", "3/2", "1/4", "3", "5", "10", "1/10", "100")
         for sg in (1, -1)]


class _Exact:
    """A loss given exactly (ℓ or ℓ' as a sympy expression), cut into smooth cells."""

    exact = True

    def __init__(self, expr: sp.Expr, derivative: bool, text: str):
        self.text = text
        self.derivative = derivative
        self.expr = expr
        bps, self.scope = _breakpoints(expr)
        self.breakpoints = bps
        edges = [-sp.oo, *bps, sp.oo]
        self.cells: list[Cell] = []
        self._pointwise: dict = {}
        for lo, hi in zip(edges[:-1], edges[1:]):
            m = _rational_between(lo, hi)
            exact = m is not None and (self.scope == "all" or (
                self.scope == "window" and lo != -sp.oo and hi != sp.oo))
            if not exact and (lo == 0 or hi == 0):
                # the formula that holds just beside 0 (limits and leading terms at 0 use it);
                # not exact: verdicts resting on it are capped and witnesses re-checked pointwise
                m = _rational_between(lo, sp.Rational(1, 10**12)) if lo == 0 else \
                    _rational_between(-sp.Rational(1, 10**12), hi)
            if m is None:
                with mpmath.workdps(DPS):
                    m = sp.Rational(_frac_of((_mp(lo) + _mp(hi)) / 2))
            r = _resolve(expr, m)
            if derivative:
                l, dl = None, r
            else:
                l, dl = r, sp.diff(r, S)
            if dl.has(S) and sp.count_ops(dl) < 80:
                dl = _simplify(dl)  # e.g. sinh/cosh -> tanh: fewer overflows, tighter enclosures
            self.cells.append(Cell(lo, hi, m, l, dl, sp.diff(dl, S), exact))
        self.cells_complete = all(c.exact for c in self.cells)
        self.zero_right = next(c for c in self.cells if c.lo == 0)
        self.zero_left = next(c for c in self.cells if c.hi == 0)
        self.l = None if derivative else expr
        self.dl = expr if derivative else sp.diff(expr, S)
        self._probe()

    def mirror(self, c: Cell) -> Cell:
        """The cell (−hi, −lo) (break points are symmetric, so it is a cell)."""
        return self.cells[len(self.cells) - 1 - self.cells.index(c)]

    def beside(self, b: Any) -> tuple[Cell, Cell]:
        """The cells left and right of the break point b (by position, not by a nearby point)."""
        i = next(k for k, p in enumerate(self.breakpoints) if p is b or p == b)
        return self.cells[i], self.cells[i + 1]

    def pointwise(self, which: str, p: Any, dps: int = DPS) -> mpmath.mpf | None:
        """ℓ / ℓ' / ℓ'' at p from the *whole* expression, the branch chosen at p itself (not from a
        cell): how witnesses are re-verified, and how non-exact cells are evaluated."""
        with mpmath.workdps(dps):
            try:
                r = _resolve(self.expr, sp.Float(p, dps) if not isinstance(p, sp.Basic) else p)
            except AuditInputError:
                return None
            key = (r, which)
            if key not in self._pointwise:
                if self.derivative:
                    f = {"l": None, "dl": r, "d2l": sp.diff(r, S)}[which]
                else:
                    f = {"l": r, "dl": sp.diff(r, S), "d2l": sp.diff(r, S, 2)}[which]
                self._pointwise[key] = None if f is None else (sp.lambdify(S, f, modules="mpmath"),
                                                              sp.lambdify(S, f, modules="math"))
            fns = self._pointwise[key]
            if fns is None:
                return None
            fn, ffloat = fns
            try:  # float pre-check, as in value(): a value beyond 1e300 is not computed exactly
                fv = ffloat(float(p))
                fv = abs(complex(fv)) if isinstance(fv, complex) else abs(float(fv))
                if not math.isfinite(fv) or fv > 1e300:
                    return None
            except OverflowError:
                return None
            except (ZeroDivisionError, ValueError, TypeError):
                pass
            try:
                v = fn(_mp(p) if isinstance(p, sp.Basic) else mpmath.mpf(p))
                if isinstance(v, mpmath.mpc):
                    if abs(v.imag) > _TINY:
                        return None
                    v = v.real
                v = mpmath.mpf(v)
            except (ZeroDivisionError, ValueError, OverflowError, TypeError):
                return None
            return v if mpmath.isfinite(v) else None

    def _probe(self) -> None:
        """Reject losses that are not real-valued on the probe grid (ℓ must map ℝ to ℝ)."""
        for p in ("-7/3", "-1", "-1/3", "1/3", "1", "7/3"):
            p = sp.Rational(p)
            if self.cell_of(p) is None:  # a break point: probe beside it
                p += sp.Rational(1, 1000)
            for which, name in (("dl", "ℓ'"), ("l", "ℓ")):
                if which == "l" and self.derivative:
                    continue
                if self.value(which, p) is None:
                    raise AuditInputError(self._probe_failure(which, name, p))

    def _probe_failure(self, which: str, name: str, p: sp.Rational) -> str:
        """Why ℓ / ℓ' could not be evaluated at the probe point p: too large (exp(exp(exp(s)))),
        or not a finite real number (log(s), sqrt(s))."""
        c = self.cell_of(p)
        try:
            with mpmath.workdps(20):
                v = c.fn(which)(_mp(p)) if c is not None else None
            big = v is not None and mpmath.isfinite(v) and abs(mpmath.im(v)) <= _TINY * (1 + abs(v)) \
                and abs(v) > 1e300
        except Exception:
            big = False
        if big:
            return (f"{name}({p}) has magnitude beyond 1e300: the audit evaluates ℓ and ℓ' in numbers of "
                    "at most that size and cannot audit a loss that grows this fast")
        return (f"{name} is not a finite real number at s = {p}: the loss must be real-valued and "
                "differentiable on the whole real line")

    def cell_of(self, p: Any) -> Cell | None:
        for c in self.cells:
            if c.contains(p):
                return c
        return None

    def value(self, which: str, p: Any) -> mpmath.mpf | None:
        """ℓ / ℓ' / ℓ'' at p (a rational or mpf not equal to a break point), at DPS digits."""
        c = self.cell_of(p)
        if c is None:
            return None
        if which == "l" and c.l is None:
            return None
        if not c.exact:
            if abs(_mp(p) if isinstance(p, sp.Basic) else p) > 1e300:
                return None
            return self.pointwise(which, p)
        # float pre-check: a value beyond 1e300 (exp(exp(s)) at s = 1e8 ...) is skipped instead of
        # being computed exactly, which could take unbounded time and memory
        try:
            fv = c.fn(which, True)(float(p))
            if isinstance(fv, complex):
                fv = fv.real if abs(fv.imag) < 1e-300 else math.nan
            fv = float(fv)
        except OverflowError:
            return None
        except (ZeroDivisionError, ValueError, TypeError):
            fv = 0.0  # let the exact path decide (a removable 0/0, a complex value ...)
        if math.isinf(fv) or math.isnan(fv) or abs(fv) > 1e300:
            return None
        with mpmath.workdps(max(DPS, mpmath.mp.dps)):
            try:
                v = c.fn(which)(_mp(p) if isinstance(p, sp.Basic) else mpmath.mpf(p))
            except (ZeroDivisionError, ValueError, OverflowError, TypeError):
                return None
            if isinstance(v, mpmath.mpc):
                if abs(v.imag) > _TINY:
                    return None
                v = v.real
            try:
                v = mpmath.mpf(v)
            except (TypeError, ValueError):
                return None
            if not mpmath.isfinite(v):
                return None
            return v

    def sample(self, cell: Cell, n: int = 48) -> list:
        """Points strictly inside ``cell``: short rationals first (readable witnesses), then a
        geometric grid toward both ends, from 10⁻⁸ to 10⁸."""
        nice = [p for p in _NICE if cell.contains(p)]
        return nice + [p for p in self._grid(cell, n)]

    def _grid(self, cell: Cell, n: int) -> list:
        with mpmath.workdps(DPS):
            lo = None if cell.lo == -sp.oo else _mp(cell.lo)
            hi = None if cell.hi == sp.oo else _mp(cell.hi)
            out = []
            if lo is not None and hi is not None:
                w = hi - lo
                for k in range(n // 2):
                    f = mpmath.mpf(10) ** (-8 + 8 * mpmath.mpf(k) / (n // 2 - 1))
                    out += [lo + w * f / 2, hi - w * f / 2]
                out += [lo + w * mpmath.mpf(j) / 16 for j in range(1, 16)]
            elif lo is not None:
                for k in range(n):
                    out.append(lo + mpmath.mpf(10) ** (-8 + 16 * mpmath.mpf(k) / (n - 1)))
            elif hi is not None:
                for k in range(n):
                    out.append(hi - mpmath.mpf(10) ** (-8 + 16 * mpmath.mpf(k) / (n - 1)))
            return sorted(out)


class _Numeric:
    """A loss given by two callables (ℓ', ℓ''): float evaluation only, verdicts at most supported."""

    exact = False

    def __init__(self, dl: Callable, d2l: Callable, name: str):
        self.dl_fn, self.d2l_fn, self.text = dl, d2l, name
        self.derivative = True

    def f(self, which: str, s: float) -> float | None:
        try:
            v = float((self.dl_fn if which == "dl" else self.d2l_fn)(float(s)))
        except Exception:
            return None
        return v if math.isfinite(v) else None

    def grid(self) -> np.ndarray:
        g = np.geomspace(1e-6, 1e6, 241)
        nice = np.array([0.5, 1.0, 2.0, 1.5, 0.25, 3.0, 5.0, 10.0])
        return np.concatenate([nice, -nice, -g[::-1], g])
