"""Shared vocabulary of the audit: verdicts, :class:`Part`, JSON numbers, and sympy steps run under
time budgets (three-valued: ``None`` means unknown or out of time, never false).
"""
from __future__ import annotations

import math
import mpmath
import sympy as sp
from dataclasses import dataclass, field
from typing import Any

from ..symbolic import BudgetExceeded
from . import clock


T = sp.Symbol("t", positive=True)  # s = t (right half-line) or s = -t (left)

PROVED, SUPPORTED, REFUTED, INCONCLUSIVE, NA = ("proved", "supported", "refuted", "inconclusive",
                                                "not_applicable")
_RANK = {REFUTED: 0, INCONCLUSIVE: 1, SUPPORTED: 2, PROVED: 3}
DPS = 40                 # working digits of every numeric evaluation
SYM_SECONDS = 1.5        # budget of one sympy simplification / limit
_TINY = mpmath.mpf(10) ** -30


class AuditInputError(ValueError):
    """The loss cannot be audited (rejected input); the CLI exits with status 2."""


def weakest(*verdicts: str) -> str:
    vs = [v for v in verdicts if v != NA]
    if not vs:
        return NA
    return min(vs, key=lambda v: _RANK[v])


def _num(x: Any) -> Any:
    """A JSON-friendly number: int/float, or a string for ±inf / exact non-floats."""
    if x is None:
        return None
    if isinstance(x, str):
        return x
    try:
        if isinstance(x, sp.Basic):
            if x in (sp.oo, -sp.oo) or x == sp.zoo:
                return "inf" if x != -sp.oo else "-inf"
            if x.is_Integer:
                return int(x)
            x = float(sp.N(x, 20))
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if math.isnan(v):
        return "nan"
    return v


@dataclass
class Part:
    """One audited statement: a verdict, a one-line reason, numbers (and a witness if refuted)."""

    verdict: str
    summary: str
    data: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"verdict": self.verdict, "summary": self.summary, **self.data}


# ============================================================================ sympy helpers
_SIMPLIFIED: dict = {}
_GAVE_UP: list = []  # what ran out of its sympy / interval time budget during the current audit


def _gave_up(what: str, seconds: float) -> None:
    _GAVE_UP.append(f"{what} (after {seconds:g} s)")


def _simplify(e: sp.Expr, seconds: float = SYM_SECONDS) -> sp.Expr:
    """sympy.simplify under a time budget (the input comes back unchanged when it runs out)."""
    if e in _SIMPLIFIED:
        return _SIMPLIFIED[e]
    try:
        with clock.step(seconds):
            out = sp.simplify(e)
    except BudgetExceeded:
        _gave_up(f"simplify {sp.sstr(e)[:60]}", seconds)
        return e
    except Exception:
        return e
    if len(_SIMPLIFIED) > 2000:
        _SIMPLIFIED.clear()
    _SIMPLIFIED[e] = out
    return out


def _cheap(e: sp.Expr, seconds: float = 1.0) -> sp.Expr:
    """A fast normal form (cancel / powsimp) under a time budget."""
    try:
        with clock.step(seconds):
            return sp.powsimp(sp.cancel(e))
    except (BudgetExceeded, Exception):
        return e


def _is_zero(e: sp.Expr, seconds: float = SYM_SECONDS) -> bool | None:
    """Three-valued exact zero test under a time budget (None: unknown or out of time)."""
    try:
        with clock.step(seconds):
            e = sp.sympify(e)
            if e.is_zero is not None:
                return e.is_zero
            for f in (sp.expand, sp.cancel, sp.simplify, lambda z: sp.simplify(z.rewrite(sp.exp))):
                z = f(e)
                if z == 0:
                    return True
                if z.is_zero is False and z.is_number:
                    return False
    except BudgetExceeded:
        _gave_up(f"zero test of {sp.sstr(e)[:60]}", seconds)
        return None
    except Exception:
        return None
    return None


def _sign_symbolic(e: sp.Expr, strict: bool = False, seconds: float = SYM_SECONDS) -> bool | None:
    """True if sympy shows e >= 0 (e > 0 when ``strict``) for every positive t; else None."""
    try:
        with clock.step(seconds):
            cands = (lambda: e, lambda: sp.factor(e), lambda: _simplify(e, seconds))
            for make in cands:
                cand = make()
                v = cand.is_positive if strict else cand.is_nonnegative
                if v is not None:
                    return v
    except BudgetExceeded:
        return None
    except Exception:
        return None
    return None


_LIMITS: dict = {}


def _limit(e: sp.Expr, x: sp.Symbol, at: Any, seconds: float = 3.0) -> sp.Expr | None:
    """A one-sided limit (from the right at a finite point) under a time budget; None if unknown."""
    key = (e, x, at)
    if key not in _LIMITS:
        v = _limit_run(e, x, at, seconds)
        if len(_LIMITS) > 4000:
            _LIMITS.clear()
        _LIMITS[key] = v
    return _LIMITS[key]


def _limit_run(e: sp.Expr, x: sp.Symbol, at: Any, seconds: float) -> sp.Expr | None:
    try:
        with clock.step(seconds):
            v = e.subs(x, at) if at not in (sp.oo, -sp.oo) else None
            if v is not None and v.is_finite and not v.has(sp.nan, sp.zoo):
                return v
            d = "+" if at != sp.oo else "-"
            r = sp.limit(e, x, at, d) if at not in (sp.oo, -sp.oo) else sp.limit(e, x, at)
            if isinstance(r, sp.Limit) or r.has(sp.Limit) or r.has(sp.AccumBounds):
                return None
            return r
    except BudgetExceeded:
        _gave_up(f"limit of {sp.sstr(e)[:60]} at {at}", seconds)
        return None
    except Exception:
        return None


def _mp(v: Any) -> mpmath.mpf:
    return mpmath.mpf(v) if not isinstance(v, sp.Basic) else mpmath.mpf(sp.N(v, DPS + 5))
