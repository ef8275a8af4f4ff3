"""Bounds on an interval: certify h(s) >= 0 (or > 0) on [a, b] by adaptive bisection.

Each box is enclosed by the natural extension, the centred (mean-value) form, a monotone
hull, or a :class:`~verify.certify.taylor.Taylor0` near 0; an undecided box is evaluated at
its exact midpoint, and a value ball on the wrong side is a certified counterexample.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

from flint import arb

from ..claim import Status
from .balls import _bounds, _box, _q2arb, _qstr, ArbFn, DEFAULT_PREC, exact, working_precision
from .ops import derivative_enclosure, supports_series
from .taylor import Taylor0


# --------------------------------------------------------------------------- bounds on an interval

@dataclass(frozen=True)
class BoundResult:
    status: Status
    lo: Fraction
    hi: Fraction
    prec: int
    boxes: int
    max_depth: int
    strict: bool
    witness: Fraction | None = None
    witness_value: arb | None = None
    unresolved: tuple = ()
    unresolved_count: int = 0
    taylor: Taylor0 | None = None
    boxes_by_method: dict = field(default_factory=dict)
    min_lower: float | None = None
    excluded_zero: bool = False

    def data(self) -> dict:
        d = {"interval": [_qstr(self.lo), _qstr(self.hi)], "prec_bits": self.prec,
             "boxes": self.boxes, "max_depth": self.max_depth, "strict": self.strict,
             "boxes_by_method": dict(self.boxes_by_method)}
        if self.witness is not None:
            d["witness"] = _qstr(self.witness)
            d["witness_float"] = float(self.witness)
            d["witness_value"] = _bounds(self.witness_value)
        if self.unresolved_count:
            d["unresolved"] = [[_qstr(a), _qstr(b)] for a, b in self.unresolved]
            d["unresolved_count"] = self.unresolved_count
        if self.taylor is not None:
            d["taylor_at_0"] = self.taylor.describe()
        if self.min_lower is not None:
            d["min_certified_lower_bound"] = self.min_lower
        if self.excluded_zero:
            d["excluded"] = "s = 0 (removable singularity: the statement is about s != 0)"
        return d


def _enclose(h: ArbFn, lo: Fraction, hi: Fraction, taylor: Taylor0 | None,
             derivative: ArbFn | None, use_series: bool,
             zeros: frozenset = frozenset()) -> tuple[arb | None, str, int, arb | None]:
    """Best enclosure of h on [lo, hi] and the method; also the power k of s divided out (Taylor).

    Returns (enclosure of h(s)/s^k, method, k, lower bound); k > 0 only for the Taylor form around
    0. The lower bound is exact (not rounded through a union) when h is certified monotone.
    """
    X = _box(lo, hi)
    if taylor is not None and -taylor.radius <= lo and hi <= taylor.radius:
        k = taylor.leading()
        if k % 2 == 1 and lo < 0 < hi:
            k = 0  # an odd power changes sign inside: use the plain Taylor enclosure
        q = taylor.quotient(X, k)
        if k % 2 == 1 and hi <= 0:
            q = -q  # s^k <= 0 on this box: the sign of h is that of -q
        return q, "taylor", k, q.lower()
    best = None
    exact_low = None
    method = "natural"
    try:
        nat = h(X)
        if isinstance(nat, arb) and nat.is_finite():
            best = nat
    except (ZeroDivisionError, ValueError):
        pass
    d = None
    if derivative is not None:
        try:
            d = derivative(X)
        except (ZeroDivisionError, ValueError):
            d = None
    elif use_series:
        pair = derivative_enclosure(h, X)
        d = pair[1] if pair is not None else None
    if d is not None and isinstance(d, arb) and d.is_finite():
        if d > 0 or d < 0:  # monotone on the box: the hull of the endpoint values is exact-ish
            # endpoint values; an endpoint where h is exactly 0 (sympy) contributes exactly 0
            a = arb(0) if lo in zeros else h(_q2arb(lo))
            b = arb(0) if hi in zeros else h(_q2arb(hi))
            mv = a.union(b)
            exact_low = a.lower().min(b.lower())
            method = "monotone"
        else:
            c = (lo + hi) / 2
            mv = h(_q2arb(c)) + d * (X - _q2arb(c))
            method = "mean-value"
        if mv.is_finite():
            best = mv if best is None else (best.intersection(mv) if best.overlaps(mv) else mv)
        elif exact_low is not None:
            exact_low = None
    if best is None:
        return None, method, 0, None
    low = exact_low if exact_low is not None else best.lower()
    return best, method, 0, low


def _point_value(h: ArbFn, s: Fraction, taylor: Taylor0 | None) -> arb | None:
    """h at an exact point, evaluated directly (never through the Taylor form: a witness must be a
    point where the statement itself is evaluated; None where h is undefined, e.g. 0/0)."""
    try:
        v = h(_q2arb(s))
    except (ZeroDivisionError, ValueError):
        return None
    return v if isinstance(v, arb) and v.is_finite() else None


def prove_nonnegative(h: ArbFn, lo: Any, hi: Any, *, strict: bool = False, taylor: Taylor0 | None = None,
                      derivative: ArbFn | None = None, prec: int = DEFAULT_PREC,
                      max_boxes: int = 20000, max_depth: int = 60,
                      use_series: bool | None = None, zeros: Sequence[Any] = ()) -> BoundResult:
    """Certify h(s) >= 0 (``strict``: > 0) for every s in [lo, hi] by adaptive bisection.

    Boxes are processed depth-first, left to right (deterministic). A box is closed when the
    enclosure's lower end is >= 0 (> 0 if strict). An undecided box is evaluated at its exact
    midpoint: a value ball strictly below 0 (<= 0 if strict) is a certified counterexample.
    ``zeros``: points where h is known to vanish exactly (e.g. by sympy); on a box where h is
    certified monotone, such an endpoint contributes the exact value 0 (touching endpoints).
    """
    zset = frozenset(exact(z) for z in zeros)
    a, b = exact(lo), exact(hi)
    if not a <= b:
        raise ValueError(f"empty interval [{a}, {b}]")
    with working_precision(prec):
        if strict:
            for z in sorted(zset):
                if a <= z <= b:  # h(z) = 0 exactly (sympy): the strict statement fails there
                    return BoundResult(Status.REFUTED, a, b, prec, 0, 0, strict, z, arb(0), taylor=taylor)
        if derivative is None and use_series is None:
            use_series = supports_series(h)
        stack = [(a, b, 0)]
        boxes = deepest = 0
        by_method: dict[str, int] = {}
        unresolved: list[tuple[Fraction, Fraction]] = []
        min_lower = None
        excluded_zero = False
        while stack:
            l, r, depth = stack.pop()
            boxes += 1
            deepest = max(deepest, depth)
            enc, method, k, low = _enclose(h, l, r, taylor, derivative, use_series, zset)
            ok = enc is not None and (low > 0 if (strict and (k == 0 or not (l <= 0 <= r))) else low >= 0)
            if strict and k > 0 and l <= 0 <= r and enc is not None:
                # h = s^k q with q > 0: h > 0 for s != 0; at s = 0 itself h is 0 or undefined
                ok = bool(low > 0)
                if ok:
                    v0 = _point_value(h, Fraction(0), None)
                    if v0 is not None and v0 <= 0:
                        return BoundResult(Status.REFUTED, a, b, prec, boxes, deepest, strict, Fraction(0), v0,
                                           taylor=taylor, boxes_by_method=by_method)
                    if v0 is None:
                        excluded_zero = True  # removable singularity: the statement is about s != 0
                    else:
                        ok = False
            if ok:
                by_method[method] = by_method.get(method, 0) + 1
                lowf = float(low) if k == 0 else None
                if lowf is not None:
                    min_lower = lowf if min_lower is None else min(min_lower, lowf)
                continue
            points = [(l + r) / 2] if l != r else [l]
            if enc is not None and (enc < 0 if not strict else enc <= 0):
                points = points + [l, r]  # the whole box is on the wrong side
            for p in points:
                if p in zset and not strict:
                    continue
                v = _point_value(h, p, taylor)
                if v is not None and (v < 0 if not strict else v <= 0):
                    return BoundResult(Status.REFUTED, a, b, prec, boxes, deepest, strict, p, v,
                                       taylor=taylor, boxes_by_method=by_method)
            if depth >= max_depth or boxes + len(stack) >= max_boxes:
                unresolved.append((l, r))
                if boxes + len(stack) >= max_boxes:
                    unresolved.extend((x, y) for x, y, _ in reversed(stack))
                    break
                continue
            m = (l + r) / 2
            stack.append((m, r, depth + 1))
            stack.append((l, m, depth + 1))
        if unresolved:
            return BoundResult(Status.INCONCLUSIVE, a, b, prec, boxes, deepest, strict,
                               unresolved=tuple(unresolved[:10]), unresolved_count=len(unresolved),
                               taylor=taylor, boxes_by_method=by_method)
        return BoundResult(Status.PROVED, a, b, prec, boxes, deepest, strict, taylor=taylor,
                           boxes_by_method=by_method, min_lower=min_lower, excluded_zero=excluded_zero)


