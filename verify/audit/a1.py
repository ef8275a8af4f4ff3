"""Assumption (A1) of ahn2023 (spec def6): ℓ even, convex, 1-Lipschitz, C² near 0, ℓ''(0) = 1.
"""
from __future__ import annotations

import mpmath
import sympy as sp
from typing import Any, Callable

from ..lossparse import S
from .common import DPS, INCONCLUSIVE, PROVED, Part, REFUTED, SUPPORTED, T, _is_zero, _limit, _mp, _num, _sign_symbolic
from .cells import Cell, _Exact
from . import clock
from .intervals import R_CERT, certify_on


# ============================================================================ (A1)
def _witness_point(p: Any) -> Any:
    if isinstance(p, sp.Basic):
        return _num(p)
    return float(mpmath.nstr(p, 17)) if isinstance(p, mpmath.mpf) else float(p)


def shown_beyond(v: Any, bound: Any = 1) -> str:
    """v printed with enough digits (8 at least) to read on the same side of ``bound`` as it is:
    1.0000014 is not "1.0 > 1"."""
    v = mpmath.mpf(v)
    for n in (8, 12, 16, 24, 32, 45):
        txt = mpmath.nstr(v, n)
        if (mpmath.mpf(txt) > bound) == (v > bound) and (mpmath.mpf(txt) < bound) == (v < bound):
            return txt
    return mpmath.nstr(v, 45)


def shown_point(w: Any) -> str:
    """A witness s with enough digits to tell it from its 8-digit rounding (1 + 1e-36 is not "1.0")."""
    w = _mp(w) if isinstance(w, sp.Basic) else mpmath.mpf(w)
    return shown_beyond(w, mpmath.mpf(mpmath.nstr(w, 8)))


WITNESS_DPS = 60   # digits at which every witness is re-evaluated before it is printed
_EPS = mpmath.mpf(10) ** -25


def reverify(L: _Exact, which: str, p: Any, bad: Callable[[mpmath.mpf], bool]) -> mpmath.mpf | None:
    """The value of ℓ/ℓ'/ℓ'' at the witness p, re-evaluated at WITNESS_DPS digits from the whole
    expression (the branch chosen at p itself, not from a cell); None unless it still violates."""
    v = L.pointwise(which, p, WITNESS_DPS)
    return v if v is not None and bad(v) else None


def _one_sided(L: _Exact, which: str, b: Any, left: Cell, right: Cell) -> tuple:
    """ℓ/ℓ' just left and right of the break point b, pointwise at WITNESS_DPS digits, at a
    distance far below both cells' widths (for re-verifying a jump found from the cell formulas)."""
    with mpmath.workdps(WITNESS_DPS):
        widths = [(_mp(c.hi) - _mp(c.lo)) if c.lo != -sp.oo and c.hi != sp.oo else mpmath.mpf(1)
                  for c in (left, right)]
        d = min(widths) * mpmath.mpf(10) ** -20
        bb = _mp(b)
    return L.pointwise(which, bb - d, WITNESS_DPS), L.pointwise(which, bb + d, WITNESS_DPS), d


def scan(L: _Exact, c: Cell, score: Callable[[Any], Any], n: int = 48) -> tuple[Any, Any, int]:
    """Adaptive sampling of one cell: the sample points of :meth:`_Exact.sample`, then two rounds of
    16 points around the lowest score. Returns (argmin point, min score, points evaluated)."""
    pts = L.sample(c, n)
    best, where, count = None, None, 0
    vals = []
    for p in pts:
        clock.check("sampling")
        v = score(p)
        count += 1
        if v is not None:
            vals.append((p, v))
            if best is None or v < best:
                best, where = v, p
    if where is None:
        return None, None, count
    with mpmath.workdps(DPS):
        for _ in range(2):
            ordered = sorted(_mp(p) if isinstance(p, sp.Basic) else p for p, _ in vals)
            x = _mp(where) if isinstance(where, sp.Basic) else where
            i = ordered.index(x) if x in ordered else None
            if i is None:
                break
            lo = ordered[i - 1] if i > 0 else x - (abs(x) + 1) * mpmath.mpf(10) ** -8
            hi = ordered[i + 1] if i + 1 < len(ordered) else x + (abs(x) + 1) * mpmath.mpf(10) ** -8
            vals = []
            for k in range(1, 17):
                q = lo + (hi - lo) * k / 17
                if not c.contains(q):
                    continue
                clock.check("sampling")
                v = score(q)
                count += 1
                if v is not None:
                    vals.append((q, v))
                    if v < best:
                        best, where = v, q
            vals.append((x, best if where is x else score(x)))
            if (where is x) or not vals:
                break
    return where, best, count


def _density(count: int, cells: int) -> str:
    return (f"{count} {DPS}-digit points over {cells} cell(s) (short rationals, geometric toward each end "
            "from 10⁻⁸ to 10⁸, refined twice around the worst value)")


def _a1_even(L: _Exact) -> Part:
    what = "ℓ' odd (so the antiderivative with ℓ(0)=0 is even)" if L.derivative else "ℓ even"
    which = "dl" if L.derivative else "l"
    sgn = 1 if L.derivative else -1  # ℓ'(s) + ℓ'(-s) = 0, ℓ(s) - ℓ(-s) = 0
    all_proved = L.cells_complete
    for c in L.cells:
        if not (c.lo >= 0):
            continue
        mirror = L.mirror(c)
        f, g = getattr(c, which), getattr(mirror, which)
        if not (c.exact and mirror.exact) or _is_zero((f + sgn * g.subs(S, -S)).subs(S, T)) is not True:
            all_proved = False
    # the break points themselves (cells are open): ℓ(b) against ℓ(−b), the branch chosen at each
    # (given ℓ', a value at one point does not change ℓ)
    for b in ([] if L.derivative else L.breakpoints):
        if not b > 0:
            continue
        a, m = L.pointwise(which, b, WITNESS_DPS), L.pointwise(which, -b, WITNESS_DPS)
        if a is None or m is None:
            all_proved = False
            continue
        d = a + sgn * m
        if abs(d) <= mpmath.mpf(10) ** -30 * (1 + abs(a)):
            continue
        if not b.is_Rational:  # the branch at an irrational b is chosen numerically: no witness
            all_proved = False
            continue
        key = ("dl(s)+dl(-s)" if L.derivative else "l(s)-l(-s)")
        return Part(REFUTED, f"{what} fails at the break point s = {sp.sstr(b)}: {key} = {mpmath.nstr(d, 8)}",
                    {"witness": _num(b), "value": _num(d), "check": key, "witness_dps": WITNESS_DPS})
    # numeric witness search (always: a proof never coexists with a witness, but check anyway)
    worst, count = None, 0
    for c in L.cells:
        if not (c.lo >= 0):
            continue
        for p in L.sample(c, 24):
            clock.check("the evenness samples")
            count += 1
            a, b = L.value(which, p), L.value(which, -p)
            if a is None or b is None:
                continue
            d = a + sgn * b
            if abs(d) > _EPS * (1 + abs(a)) and (worst is None or (
                    abs(d) > worst[1] and not isinstance(worst[0], sp.Basic))):
                a2, b2 = L.pointwise(which, p, WITNESS_DPS), L.pointwise(which, -p, WITNESS_DPS)
                if a2 is not None and b2 is not None and abs(a2 + sgn * b2) > _EPS * (1 + abs(a2)):
                    worst = (p, abs(d), a2, b2)
    if worst is not None:
        p, d, a, b = worst
        key = ("dl(s)+dl(-s)" if L.derivative else "l(s)-l(-s)")
        return Part(REFUTED, f"{what} fails at s = {mpmath.nstr(p, 8)}: {key} = {mpmath.nstr(a + sgn * b, 8)}",
                    {"witness": _witness_point(p), "value": _num(a + sgn * b), "check": key,
                     "witness_dps": WITNESS_DPS})
    if all_proved:
        return Part(PROVED, f"{what}: exact identity on every cell (sympy)", {"method": "exact"})
    why = "sympy could not close the identity in its time budget" if L.cells_complete else \
        "the break points are not all known exactly"
    return Part(INCONCLUSIVE, f"{what} not proved ({why}); no violation at {count} {DPS}-digit sample "
                "points, which cannot exclude a narrow asymmetric bump",
                {"method": "numeric", "dps": DPS, "points": count, "sampled_only": True})


def _cell_param(c: Cell) -> sp.Expr:
    """s as a function of t > 0 sweeping exactly the open cell (so sympy's sign rules apply)."""
    if c.lo == -sp.oo and c.hi == sp.oo:
        return None
    if c.lo == -sp.oo:
        return c.hi - T
    if c.hi == sp.oo:
        return c.lo + T
    return c.lo + (c.hi - c.lo) * T / (1 + T)


def _cell_nonneg(L: _Exact, c: Cell, e: sp.Expr, what: str) -> tuple[str, Any]:
    """Decide e(s) >= 0 on an exact cell: sympy's sign rules on the whole cell ("proved"), else an
    arb certificate on its part within |s| <= R_CERT ("certified"; "refuted" with a certified
    witness inside the cell), else "undecided"."""
    if not c.exact:
        return "undecided", None
    par = _cell_param(c)
    if par is not None and _sign_symbolic(e.subs(S, par)) is True:
        return "proved", None
    # a cell of one sign: e >= 0 for every t > 0 covers it (1 − tanh(s)² on (3, ∞), where sympy
    # cannot sign 1 − tanh(3 + t)²)
    if (c.lo >= 0 and _sign_symbolic(e.subs(S, T)) is True) or \
            (c.hi <= 0 and _sign_symbolic(e.subs(S, -T)) is True):
        return "proved", None
    zs = tuple(z for z in (c.lo, c.hi) if z.is_finite and z.is_Rational and _is_zero(e.subs(S, z)) is True)
    ok, w = certify_on(e, S, c.lo, c.hi, zeros=zs)
    if ok is False:
        return "refuted", w
    if ok:
        bounded = c.lo != -sp.oo and c.hi != sp.oo and abs(_mp(c.lo)) <= R_CERT and abs(_mp(c.hi)) <= R_CERT
        return ("proved" if bounded else "certified"), None
    return "undecided", None


def _a1_convex(L: _Exact) -> Part:
    """ℓ'' >= 0 on every cell (sympy, else arb on |s| <= R_CERT, else adaptive samples) and ℓ' never
    jumps down at a break point (ℓ continuous there)."""
    even = getattr(L, "_even_proved", False)
    status: list[str] = []
    worst, count = None, 0
    for c in L.cells:
        if c.hi <= 0 and even and L.mirror(c).exact:
            continue  # ℓ'' is even: the mirrored cell on the right decides
        st, w = _cell_nonneg(L, c, c.d2l, "ℓ''")
        if st == "refuted":
            v = reverify(L, "d2l", w, lambda v: v < 0)
            if v is not None:
                return Part(REFUTED, f"not convex: ℓ''({shown_point(w)}) = {shown_beyond(v, 0)} < 0 "
                            "(arb certificate; re-evaluated at 60 digits)",
                            {"witness": _witness_point(w), "value": _num(v), "check": "l''(s) >= 0",
                             "method": "interval"})
            st = "undecided"
        status.append(st)
        if st == "proved":
            continue
        p, v, n = scan(L, c, lambda q: L.value("d2l", q))
        count += n
        if v is not None and v < -_EPS:
            v2 = reverify(L, "d2l", p, lambda x: x < -_EPS)
            if v2 is not None and (worst is None or v2 < worst[1]):
                worst = (p, v2)
    if worst is not None:
        p, v = worst
        return Part(REFUTED, f"not convex: ℓ''({mpmath.nstr(p, 8)}) = {shown_beyond(v, 0)} < 0",
                    {"witness": _witness_point(p), "value": _num(v), "check": "l''(s) >= 0",
                     "witness_dps": WITNESS_DPS})
    jumps = _jumps(L, "convex")
    if isinstance(jumps, Part):
        return jumps
    if all(s == "proved" for s in status) and L.cells_complete and jumps:
        return Part(PROVED, "ℓ'' >= 0 on every cell (sympy or arb certificate) and ℓ' does not jump "
                    "down at break points", {"method": "exact + interval"})
    # no proof on some stretch: samples cannot exclude a narrow dip of ℓ'' between them (a bump
    # of width 1e-6 at s = 100), so the part is inconclusive, with what was shown and what was not
    if "undecided" not in status and L.cells_complete and jumps:
        return Part(INCONCLUSIVE, f"ℓ'' >= 0 proved on |s| <= {R_CERT} (sympy / arb) but not beyond (no "
                    f"tail argument; no violation at {_density(count, len(status))}, which cannot exclude "
                    "a narrow dip)", {"method": "interval + numeric", "certified_range": R_CERT,
                                      "points": count, "sampled_only": True})
    why = ("the break points are not all known exactly" if not L.cells_complete else
           "no interval certificate on some cell (no rule, or out of budget)")
    return Part(INCONCLUSIVE, f"ℓ'' >= 0 not proved ({why}); no violation at {_density(count, len(status))}, "
                "which cannot exclude a narrow dip", {"method": "numeric", "dps": DPS, "points": count,
                                                      "sampled_only": True})


def _jumps(L: _Exact, part: str) -> Part | bool:
    """Break points: ℓ' may jump up (a kink) but never down; ℓ must be continuous. A jump found from
    the cell formulas is re-verified pointwise at 60 digits. Returns a refuting Part, or whether
    every break point was decided exactly."""
    decided = True
    for b in L.breakpoints:
        clock.check("the break points")
        left, right = L.beside(b)
        if not (left.exact and right.exact):
            decided = False
        if L.l is not None:
            vl, vr = _limit(left.l, S, b), _limit(right.l, S, b)
            if vl is None or vr is None:
                decided = False
            elif abs(sp.N(vr - vl, DPS)) > 1e-25:
                a, c, d = _one_sided(L, "l", b, left, right)
                if a is not None and c is not None and abs(c - a) > mpmath.mpf(10) ** -20:
                    what = "not convex" if part == "convex" else "not Lipschitz"
                    return Part(REFUTED, f"{what}: ℓ is discontinuous at s = {sp.sstr(b)} (ℓ jumps by "
                                f"{mpmath.nstr(c - a, 8)})",
                                {"witness": _num(b), "value": _num(c - a), "check": "continuity of l"})
                decided = False
            elif _is_zero(vr - vl) is not True:
                # equal to 40 digits but not provably: a jump of 5e-401 (a break point at
                # 1 − 10⁻²⁰⁰) is still a jump, refuted from the exact limits of exact cells
                if _is_zero(vr - vl) is False and left.exact and right.exact:
                    what = "not convex" if part == "convex" else "not Lipschitz"
                    gap = vr - vl
                    return Part(REFUTED, f"{what}: ℓ is discontinuous at s = {sp.sstr(b)}: the exact one-sided "
                                f"limits differ by {sp.sstr(gap) if sp.count_ops(gap) < 20 else sp.N(gap, 8)} "
                                "(sympy)", {"witness": _num(b), "value": _num(gap), "check": "continuity of l",
                                            "method": "exact"})
                decided = False
            else:
                # the value at b itself (a branch that holds at the single point b, such as
                # `Abs(s) <= 3` after `Abs(s) < 3`): cells are open, so b is checked on its own
                point = _at_break_point(L, b, vl, part)
                if isinstance(point, Part):
                    return point
                decided = decided and point
        if part != "convex":
            continue
        jl, jr = _limit(left.dl, S, b), _limit(right.dl, S, b)
        if jl is None or jr is None:
            decided = False
            continue
        jump = sp.N(jr - jl, DPS)
        if jump < -_EPS:
            a, c, d = _one_sided(L, "dl", b, left, right)
            if a is not None and c is not None and c - a < -mpmath.mpf(10) ** -20:
                return Part(REFUTED, f"not convex: ℓ' jumps down by {sp.N(-jump, 8)} at s = {sp.sstr(b)}",
                            {"witness": _num(b), "value": _num(jump), "check": "jump of l' >= 0"})
            decided = False
        elif jump <= _EPS and _is_zero(jr - jl) is not True:
            # a jump within 1e-25 of 0: its sign decides, exactly or not at all
            neg = (jr - jl).is_negative
            if neg is True and left.exact and right.exact:
                return Part(REFUTED, f"not convex: ℓ' jumps down at s = {sp.sstr(b)} by the exact one-sided "
                            f"limits (by {sp.N(jl - jr, 8)}, sympy)",
                            {"witness": _num(b), "value": _num(jr - jl), "check": "jump of l' >= 0",
                             "method": "exact"})
            if neg is not False:
                decided = False
    return decided


def _at_break_point(L: _Exact, b: Any, limit: sp.Expr, part: str) -> Part | bool:
    """ℓ(b) against its one-sided limit: a refuting Part when they differ (b rational, so the branch
    chosen at b is decided exactly), True when they agree, False when it cannot be decided."""
    v = L.pointwise("l", b, WITNESS_DPS)
    if v is None:
        return False
    with mpmath.workdps(WITNESS_DPS):
        gap = v - _mp(limit)
    if abs(gap) <= mpmath.mpf(10) ** -30 * (1 + abs(v)):
        return True
    if not (isinstance(b, sp.Basic) and b.is_Rational):
        return False  # the conditions at an irrational b are decided numerically: not a witness
    what = "not convex" if part == "convex" else "not Lipschitz"
    return Part(REFUTED, f"{what}: ℓ is discontinuous at s = {sp.sstr(b)}: ℓ({sp.sstr(b)}) = {mpmath.nstr(v, 12)}, "
                f"its limit there is {mpmath.nstr(_mp(limit), 12)}",
                {"witness": _num(b), "value": _num(gap), "check": "continuity of l"})


def _a1_lipschitz(L: _Exact, convex: Part, even: Part) -> tuple[Part, sp.Expr | None]:
    """|ℓ'| <= 1 and ℓ continuous. With ℓ' odd and non-decreasing, sup|ℓ'| = lim_{s→∞} ℓ'(s) exactly;
    otherwise 1 ∓ ℓ' >= 0 is certified cell by cell on |s| <= R_CERT, then sampled."""
    top = _limit(L.cells[-1].dl, S, sp.oo) if L.cells[-1].exact else None
    bottom = _limit(L.cells[0].dl, S, -sp.oo) if L.cells[0].exact else None
    sup = None
    if top is not None and bottom is not None:
        sup = sp.Max(sp.Abs(top), sp.Abs(bottom))
    jumps = _jumps(L, "lipschitz")
    if isinstance(jumps, Part):
        jumps.data["sup_abs_slope"] = _num(sup)
        return jumps, sup
    monotone = sup is not None and convex.verdict == PROVED and even.verdict == PROVED and jumps
    status: list[str] = []
    worst, count = None, 0
    for c in L.cells:
        if monotone:
            break
        if c.hi <= 0 and getattr(L, "_even_proved", False) and L.mirror(c).exact:
            continue
        for sign in (1, -1):
            st, w = _cell_nonneg(L, c, 1 - sign * c.dl, "1 ∓ ℓ'")
            if st == "refuted":
                v = reverify(L, "dl", w, lambda v: abs(v) > 1)
                if v is not None:
                    return Part(REFUTED, f"|ℓ'({shown_point(w)})| = {shown_beyond(abs(v))} > 1 "
                                "(arb certificate; re-evaluated at 60 digits)",
                                {"witness": _witness_point(w), "value": _num(v), "sup_abs_slope": _num(sup),
                                 "check": "|l'(s)| <= 1", "method": "interval"}), sup
                st = "undecided"
            status.append(st)
        if all(s == "proved" for s in status[-2:]):
            continue
        p, v, n = scan(L, c, lambda q: (lambda d: None if d is None else 1 - abs(d))(L.value("dl", q)))
        count += n
        if v is not None and v < -_EPS:
            v2 = reverify(L, "dl", p, lambda x: abs(x) > 1 + _EPS)
            if v2 is not None and (worst is None or abs(v2) > abs(worst[1])):
                worst = (p, v2)
    if worst is not None:
        p, v = worst
        return Part(REFUTED, f"|ℓ'({mpmath.nstr(p, 8)})| = {shown_beyond(abs(v))} > 1",
                    {"witness": _witness_point(p), "value": _num(v), "sup_abs_slope": _num(sup),
                     "check": "|l'(s)| <= 1", "witness_dps": WITNESS_DPS}), sup
    if sup is not None and sup.is_number and sup > 1:
        # the limit exceeds 1 but the grid missed it (far tail): walk out to find a witness
        for k in range(1, 400):
            p = sp.Integer(2) ** k
            v = reverify(L, "dl", p, lambda x: abs(x) > 1)
            if v is not None:
                return Part(REFUTED, f"|ℓ'({p})| = {shown_beyond(abs(v))} > 1 (lim |ℓ'| = {sup})",
                            {"witness": _num(p), "value": _num(v), "sup_abs_slope": _num(sup),
                             "check": "|l'(s)| <= 1"}), sup
        return Part(REFUTED, f"lim |ℓ'(s)| = {sup} > 1 as |s| → ∞",
                    {"witness": "inf", "value": _num(sup), "sup_abs_slope": _num(sup)}), sup
    if monotone and sup <= 1:
        return Part(PROVED, f"ℓ' is odd and non-decreasing, so sup|ℓ'| = lim_(s→∞) ℓ'(s) = {sup} <= 1",
                    {"method": "exact", "sup_abs_slope": _num(sup), "sup_exact": sp.sstr(sup)}), sup
    if status and all(s == "proved" for s in status) and jumps and L.cells_complete:
        return Part(PROVED, "|ℓ'| <= 1 on every cell (sympy / arb certificate) and ℓ is continuous",
                    {"method": "exact + interval", "sup_abs_slope": _num(sup)}), sup
    lim = f"; lim |ℓ'| = {sup}" if sup is not None else ""
    if status and "undecided" not in status and jumps and L.cells_complete:
        return Part(INCONCLUSIVE, f"|ℓ'| <= 1 proved on |s| <= {R_CERT} (sympy / arb) but not beyond (no "
                    f"tail argument; no violation at {_density(count, len(status) // 2)}, which cannot "
                    f"exclude a narrow bump){lim}",
                    {"method": "interval + numeric", "certified_range": R_CERT, "points": count,
                     "sup_abs_slope": _num(sup), "sampled_only": True}), sup
    why = ("the break points are not all known exactly" if not L.cells_complete else
           "no interval certificate on some cell (no rule, or out of budget)")
    return Part(INCONCLUSIVE, f"|ℓ'| <= 1 not proved ({why}); no violation at "
                f"{_density(count, max(len(status) // 2, 1))}, which cannot exclude a narrow bump{lim}",
                {"method": "numeric", "dps": DPS, "points": count, "sup_abs_slope": _num(sup),
                 "sampled_only": True}), sup


def _a1_c2(L: _Exact) -> tuple[Part, Part, sp.Expr | None]:
    """C² near 0 (one-sided limits of ℓ', ℓ'' agree and are finite) and ℓ''(0) = 1."""
    R, Lc = L.zero_right, L.zero_left
    dp, dm = _limit(R.dl.subs(S, T), T, 0), _limit(Lc.dl.subs(S, -T), T, 0)
    d2p, d2m = _limit(R.d2l.subs(S, T), T, 0), _limit(Lc.d2l.subs(S, -T), T, 0)
    data: dict = {"l1_right": _num(dp), "l1_left": _num(dm), "l2_right": _num(d2p), "l2_left": _num(d2m)}
    k = None
    if None in (dp, dm, d2p, d2m):
        # numeric: ℓ'' at ±10^-k must settle
        vals = [(L.value("d2l", mpmath.mpf(10) ** -j), L.value("d2l", -mpmath.mpf(10) ** -j))
                for j in (4, 6, 8, 10)]
        if any(v is None for pair in vals for v in pair):
            c2 = Part(INCONCLUSIVE, "sympy could not take the limits at 0 and ℓ'' is not finite "
                      "near 0 numerically", data)
            return c2, Part(INCONCLUSIVE, "ℓ''(0) unknown", data), None
        spread = max(abs(a - b) for a, b in vals[-2:]) + abs(vals[-1][0] - vals[-2][0])
        big = max(abs(a) for pair in vals for a in pair)
        if spread < mpmath.mpf(10) ** -6 and big < 10**6:
            kk = (vals[-1][0] + vals[-1][1]) / 2
            data["l2_at_0_estimate"] = _num(kk)
            c2 = Part(SUPPORTED, "ℓ'' settles at ±10⁻ᵏ (k = 4…10); sympy could not take the limits", data)
            ok = abs(kk - 1) < mpmath.mpf(10) ** -6
            cur = Part(SUPPORTED if ok else REFUTED,
                       f"ℓ''(0) ≈ {mpmath.nstr(kk, 10)}" + ("" if ok else " ≠ 1"),
                       {"value": _num(kk), **({} if ok else {"witness": 0.0})})
            return c2, cur, None
        j = 4
        c2 = Part(REFUTED, "ℓ'' does not settle near 0", {**data, "witness": float(10.0 ** -j),
                                                         "value": _num(vals[0][0])})
        return c2, Part(INCONCLUSIVE, "ℓ''(0) does not exist", data), None
    finite = all(v.is_finite for v in (dp, dm, d2p, d2m))
    if not finite:
        # unbounded second derivative: find s where |ℓ''| is large
        for j in range(2, 40):
            p = mpmath.mpf(10) ** -j
            v = L.value("d2l", p)
            if v is not None and abs(v) > 1e3:
                c2 = Part(REFUTED, f"ℓ'' is unbounded at 0: ℓ''({mpmath.nstr(p, 3)}) = {mpmath.nstr(v, 8)}",
                          {**data, "witness": float(p), "value": _num(v)})
                break
        else:
            c2 = Part(REFUTED, "ℓ' or ℓ'' has an infinite one-sided limit at 0",
                      {**data, "witness": 0.0, "value": _num(d2p)})
        return c2, Part(REFUTED, "ℓ''(0) does not exist (infinite)", {**data, "witness": 0.0,
                                                                        "value": _num(d2p)}), None
    for which, a, b, name in (("dl", dp, dm, "ℓ'"), ("d2l", d2p, d2m, "ℓ''")):
        same = _is_zero(a - b)
        if same is True:
            continue
        differs = same is False or abs(sp.N(a - b, DPS)) > mpmath.mpf(10) ** -30
        # re-verified from the whole expression just beside 0 (the zero cells may not be exact)
        eps = mpmath.mpf(10) ** -30
        vr, vl = L.pointwise(which, eps, WITNESS_DPS), L.pointwise(which, -eps, WITNESS_DPS)
        seen = vr is not None and vl is not None and abs(vr - vl) > mpmath.mpf(10) ** -20
        if differs and seen:
            c2 = Part(REFUTED, f"{name} jumps at 0: {name}(0+) = {a}, {name}(0-) = {b}",
                      {**data, "witness": 0.0, "value": _num(a - b)})
            return c2, Part(REFUTED, f"ℓ''(0) does not exist ({name} jumps)", {**data, "witness": 0.0,
                                                                              "value": "undefined"}), None
        why = (f"the one-sided limits of {name} at 0 ({a}, {b}) could not be compared exactly"
               if not differs else f"{name} seems to jump at 0 by the cell formulas, but not pointwise")
        return Part(INCONCLUSIVE, why, data), Part(INCONCLUSIVE, "ℓ''(0) unknown: " + why, data), None
    if L.l is not None and 0 in L.breakpoints:
        lim0 = _limit(R.l.subs(S, T), T, 0)
        point = _at_break_point(L, sp.Integer(0), lim0, "c2") if lim0 is not None else False
        if isinstance(point, Part):  # ℓ(0) differs from its limit: not even continuous at 0
            why = point.summary.split(": ", 1)[1]
            return (Part(REFUTED, f"ℓ is not C² near 0: {why}", {**data, **point.data}),
                    Part(REFUTED, f"ℓ''(0) does not exist: {why}", {**data, **point.data}), None)
        if point is not True:
            why = "ℓ(0) could not be compared with its limit at 0"
            return Part(INCONCLUSIVE, why, data), Part(INCONCLUSIVE, "ℓ''(0) unknown: " + why, data), None
    k = d2p
    c2 = Part(PROVED if L.cells_complete else SUPPORTED,
              "ℓ' and ℓ'' have equal finite one-sided limits at 0 (sympy), so ℓ is C² near 0",
              {**data, "method": "exact"})
    data_k = {"value": _num(k), "exact": sp.sstr(k)}
    if k == 1:
        cur = Part(PROVED, "ℓ''(0) = 1 exactly", data_k)
    else:
        cur = Part(REFUTED, f"ℓ''(0) = {sp.sstr(k)} ≠ 1", {**data_k, "witness": 0.0})
    return c2, cur, k
