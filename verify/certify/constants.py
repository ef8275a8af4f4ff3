"""Certified constants and roots: decide ``value rel threshold`` in arb, enclose the unique root
of a function on a bracket (certified sign change + monotonicity), and the largest interval
on which an inequality holds (its endpoint enclosed, proved on one side, failing on the other).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import sympy as sp
from flint import arb

from ..claim import Check, Context, Evidence, outcome, Status
from .balls import _bounds, _box, _f, _q2arb, _qstr, ArbFn, ball, DEFAULT_PREC, exact, working_precision
from .bisection import _point_value, BoundResult, prove_nonnegative
from .inequality import _as_callable, _auto_taylor, _claim_text, _difference, _var_of
from .ops import derivative_enclosure, supports_series
from .taylor import Taylor0


# --------------------------------------------------------------------------- constants

_REL = re.compile(r"^\s*(<=|>=|<|>)\s*(.+?)\s*$")


def _parse_claim(claim: str) -> tuple[str, Fraction]:
    m = _REL.match(claim)
    if not m:
        raise ValueError(f"claim {claim!r} must look like '< -0.087' or '>= 1/200'")
    return m.group(1), exact(m.group(2))


def _decide(x: arb, rel: str, c: arb) -> bool | None:
    """True / False when certified, None when the ball straddles c."""
    yes = {"<": x < c, "<=": x <= c, ">": x > c, ">=": x >= c}[rel]
    no = {"<": x >= c, "<=": x > c, ">": x <= c, ">=": x < c}[rel]
    return True if yes else (False if no else None)


def decide_constant(value: Any, rel: str, threshold: Any, precs: Sequence[int] = (64, 128, 256, 1024)):
    """Decide ``value rel threshold`` at increasing precision; returns (verdict, ball, prec)."""
    x = None
    for p in precs:
        with working_precision(p):
            x = ball(value)
            c = ball(threshold)
            d = _decide(x, rel, c)
        if d is not None:
            return d, x, p
    return None, x, precs[-1]


def constant(name: str, value: Any, claim: str, *, kind: str = "CERT", why: str = "") -> Check:
    """A certified numeric fact about a closed-form constant, e.g. ``constant("g(-1)", g_expr, "> 0.08")``.

    ``value``: a closed sympy expression, a zero-argument arb callable, or a number.
    """
    rel, c = _parse_claim(claim)

    def run(ctx: Context) -> Evidence:
        d, x, p = decide_constant(value, rel, c)
        shown = sp.sstr(value) if isinstance(value, sp.Basic) else getattr(value, "__name__", str(value))
        with working_precision(p):
            margin = x - _q2arb(c)
        data = {"value": _bounds(x), "value_mid": _f(x), "width": float(2 * x.rad()),
                "threshold": _qstr(c), "relation": rel,
                "prec_bits": p, "margin_value_minus_threshold": _bounds(margin), "why": why}
        if d is True:
            return outcome(Status.PROVED, f"{shown} in [{_bounds(x)[0]:.10g}, {_bounds(x)[1]:.10g}] "
                           f"{rel} {c} (certified, {p} bits; margin {_f(margin):.3e})", **data)
        if d is False:
            return outcome(Status.REFUTED, f"{shown} in [{_bounds(x)[0]:.10g}, {_bounds(x)[1]:.10g}]: "
                           f"'{rel} {c}' is false (certified, {p} bits)", **data)
        return outcome(Status.INCONCLUSIVE, f"{shown} ~ {_f(x):.10g} too close to {c} to decide at {p} bits",
                       **data)

    return Check(name, run, kind)


# --------------------------------------------------------------------------- roots

@dataclass(frozen=True)
class RootResult:
    ok: bool
    reason: str
    lo: Fraction
    hi: Fraction
    enclosure: arb | None
    prec: int
    bisections: int
    monotone_boxes: int
    direction: int  # +1 increasing, -1 decreasing

    def data(self) -> dict:
        d = {"bracket": [_qstr(self.lo), _qstr(self.hi)], "prec_bits": self.prec,
             "bisections": self.bisections, "monotonicity_boxes": self.monotone_boxes,
             "direction": "increasing" if self.direction > 0 else "decreasing"}
        if self.enclosure is not None:
            d["root"] = _bounds(self.enclosure)
            d["root_mid"] = _f(self.enclosure)
            d["width"] = float(2 * self.enclosure.rad())
        if not self.ok:
            d["reason"] = self.reason
        return d


def enclose_root(f: ArbFn, lo: Any, hi: Any, *, derivative: ArbFn | None = None,
                 prec: int = DEFAULT_PREC, tol: float = 1e-30, max_bisections: int = 400) -> RootResult:
    """Enclose the unique root of ``f`` in [lo, hi].

    Certifies (1) opposite signs of f at the two exact endpoints and (2) a strict sign of f' on
    the whole bracket (adaptive bisection on f', derivative by arb_series or ``derivative=``), so the
    root exists and is unique; then bisects on exact dyadic points until the bracket is narrower
    than ``tol`` or the sign at the midpoint is undecidable at this precision.
    """
    a, b = exact(lo), exact(hi)
    with working_precision(prec):
        fa, fb = f(_q2arb(a)), f(_q2arb(b))
        if fa < 0 and fb > 0:
            direction = 1
        elif fa > 0 and fb < 0:
            direction = -1
        else:
            return RootResult(False, f"no certified sign change: f(lo) ~ {_f(fa):.3g}, f(hi) ~ {_f(fb):.3g}",
                              a, b, None, prec, 0, 0, 0)
        if derivative is None:
            if not supports_series(f):
                return RootResult(False, "f cannot be differentiated with arb_series; pass derivative=",
                                  a, b, None, prec, 0, 0, direction)
            def dfun(X: arb) -> arb:
                # no finite derivative enclosure on this box: an unbounded ball, so the box is
                # bisected further (or left unresolved) instead of crashing
                pair = derivative_enclosure(f, X)
                return arb(0, math.inf) if pair is None else pair[1]
        else:
            dfun = derivative
        mono = prove_nonnegative(lambda X: direction * dfun(X), a, b, strict=True, prec=prec,
                                 use_series=False)
        if mono.status != Status.PROVED:
            return RootResult(False, f"monotonicity not certified ({mono.status}) on the bracket",
                              a, b, None, prec, 0, mono.boxes, direction)
        l, r = a, b
        n = 0
        while n < max_bisections and float(r - l) > tol:
            m = _dyadic_between(l, r)  # short dyadic near the midpoint: exact in arb
            fm = f(_q2arb(m))
            if direction * fm < 0:
                l = m
            elif direction * fm > 0:
                r = m
            else:
                break
            n += 1
        enc = _box(l, r)
    return RootResult(True, "", a, b, enc, prec, n, mono.boxes, direction)


def _dyadic_between(l: Fraction, r: Fraction) -> Fraction:
    """A dyadic rational in (l, r) close to the midpoint (exact in arb, short to print)."""
    w = r - l
    k = max(0, -math.floor(math.log2(float(w))) + 2)
    m = (l + r) / 2
    d = Fraction(round(m * 2 ** k), 2 ** k)
    return d if l < d < r else m


def root_bound(name: str, f: Any, bracket: tuple[Any, Any], claim: str, *, var: sp.Symbol | None = None,
               derivative: ArbFn | None = None, prec: int = DEFAULT_PREC, kind: str = "CERT",
               why: str = "") -> Check:
    """The unique root of ``f`` in ``bracket`` satisfies ``claim`` (e.g. ``"< -0.087"``).

    ``f``: sympy expression in one variable or an arb callable. Evidence: the certified enclosure,
    its width, and the certified margin (threshold - root for '<', root - threshold for '>').
    """
    rel, c = _parse_claim(claim)

    def run(ctx: Context) -> Evidence:
        v = var if var is not None else _var_of(f)
        fn = _as_callable(f, v)
        res = enclose_root(fn, bracket[0], bracket[1], derivative=derivative, prec=prec)
        data = {**res.data(), "threshold": _qstr(c), "relation": rel, "why": why}
        if not res.ok:
            return outcome(Status.INCONCLUSIVE, f"root not certified: {res.reason}", **data)
        with working_precision(prec):
            cq = _q2arb(c)
            d = _decide(res.enclosure, rel, cq)
            margin = (cq - res.enclosure) if rel.startswith("<") else (res.enclosure - cq)
        data["margin"] = _bounds(margin)
        data["margin_mid"] = _f(margin)
        enc = _bounds(res.enclosure)
        shown = f"root in [{enc[0]:.12g}, {enc[1]:.12g}] (width {data['width']:.1e}, {prec} bits)"
        if d is True:
            return outcome(Status.PROVED, f"{shown} {rel} {c}; certified margin {_f(margin):.4e}", **data)
        if d is False:
            return outcome(Status.REFUTED, f"{shown}: '{rel} {c}' is false (certified enclosure "
                           f"is the witness; margin {_f(margin):.4e})", **data)
        return outcome(Status.INCONCLUSIVE, f"{shown} straddles {c}", **data)

    return Check(name, run, kind)


# --------------------------------------------------------------------------- largest valid interval

@dataclass(frozen=True)
class EndpointResult:
    status: Status
    start: Fraction
    lo: Fraction | None
    hi: Fraction | None
    bound: BoundResult | None
    fail_value: arb | None
    reason: str = ""

    def data(self) -> dict:
        d = {"start": _qstr(self.start), "reason": self.reason}
        if self.lo is not None:
            d["endpoint"] = [float(self.lo), float(self.hi)]
            d["endpoint_exact"] = [_qstr(self.lo), _qstr(self.hi)]
            d["width"] = float(self.hi - self.lo)
        if self.fail_value is not None:
            d["value_at_hi"] = _bounds(self.fail_value)
        if self.bound is not None:
            d["proof_on_[start,lo]"] = self.bound.data()
        return d


def validity_endpoint(h: ArbFn, start: Any, beyond: Any, *, taylor: Taylor0 | None = None,
                      prec: int = DEFAULT_PREC, tol: float = 1e-12, max_boxes: int = 20000) -> EndpointResult:
    """Enclose s* = sup{s : h >= 0 on [start, s]} (or inf when ``beyond < start``).

    Needs h(beyond) < 0 certified. Bisection on exact dyadic points between start and beyond finds
    lo (h(lo) > 0) and hi (h(hi) < 0, certified) with |hi - lo| <= tol; then h >= 0 is proved on
    [start, lo] with :func:`prove_nonnegative`. Result: s* in [lo, hi], both ends certified.
    """
    a, e = exact(start), exact(beyond)
    sgn = 1 if e > a else -1
    with working_precision(prec):
        fe = _point_value(h, e, taylor)
        if fe is None or not fe < 0:
            return EndpointResult(Status.INCONCLUSIVE, a, None, None, None, fe,
                                  f"h(beyond={e}) < 0 is not certified")
        l, r = a, e  # invariant: h(r) < 0 certified
        while abs(float(r - l)) > tol:
            m = _dyadic_between(min(l, r), max(l, r))
            v = _point_value(h, m, taylor)
            if v is not None and v < 0:
                r = m
            elif v is not None and v > 0:
                l = m
            else:
                break
        fr = _point_value(h, r, taylor)
    lo_, hi_ = (l, r)
    bound = prove_nonnegative(h, min(a, lo_), max(a, lo_), taylor=taylor, prec=prec, max_boxes=max_boxes)
    if bound.status != Status.PROVED:
        return EndpointResult(bound.status if bound.status == Status.REFUTED else Status.INCONCLUSIVE,
                              a, lo_, hi_, bound, fr, "h >= 0 not proved on [start, lo]")
    if sgn < 0:
        lo_, hi_ = hi_, lo_
    return EndpointResult(Status.PROVED, a, lo_, hi_, bound, fr)


def validity_range(name: str, lhs: Any, rhs: Any, start: Any, beyond: Any, *, var: sp.Symbol | None = None,
                   claim: str | None = None, prec: int = DEFAULT_PREC, tol: float = 1e-12,
                   taylor: Taylor0 | None = None, kind: str = "CERT", why: str = "") -> Check:
    """The largest interval from ``start`` towards ``beyond`` on which ``lhs <= rhs`` holds:
    its endpoint s* is enclosed in [lo, hi] (proved on [start, lo], certified to fail at hi).
    Optional ``claim`` about s* (e.g. ``">= 1/4"``) is decided on the enclosure.
    """

    def run(ctx: Context) -> Evidence:
        v = var if var is not None else _var_of(lhs, rhs)
        h, expr = _difference(lhs, rhs, v)
        a, e = exact(start), exact(beyond)
        t = taylor if taylor is not None else _auto_taylor(expr, v, min(a, e), max(a, e), prec, None, 8)
        res = validity_endpoint(h, a, e, taylor=t, prec=prec, tol=tol)
        stmt = _claim_text(lhs, rhs, "<=")
        data = {"statement": stmt, "prec_bits": prec, **res.data(), "why": why}
        if res.status != Status.PROVED:
            return outcome(res.status, f"endpoint of validity of {stmt} not certified: {res.reason}", **data)
        lo_, hi_ = sorted((res.lo, res.hi))
        summary = (f"{stmt} holds on [{a}, {float(res.lo):.12g}] and fails at {float(res.hi):.12g}: "
                   f"endpoint s* in [{float(lo_):.12g}, {float(hi_):.12g}] ({res.bound.boxes} boxes, {prec} bits)")
        if claim is None:
            return outcome(Status.PROVED, summary, **data)
        rel, c = _parse_claim(claim)
        with working_precision(prec):
            d = _decide(_box(lo_, hi_), rel, _q2arb(c))
        data["claim"] = claim
        if d is True:
            return outcome(Status.PROVED, summary + f"; s* {rel} {c}", **data)
        if d is False:
            return outcome(Status.REFUTED, summary + f"; 's* {rel} {c}' is false", **data)
        return outcome(Status.INCONCLUSIVE, summary + f"; undecided against {c}", **data)

    return Check(name, run, kind)


