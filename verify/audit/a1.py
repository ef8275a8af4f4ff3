"""Assumption (A1) of ahn2023 (spec def6): ℓ even, convex, 1-Lipschitz, C² near 0, ℓ''(0) = 1.
"""
from __future__ import annotations

import mpmath
import sympy as sp
from typing import Any

from ..lossparse import S
from .common import DPS, INCONCLUSIVE, PROVED, Part, REFUTED, SUPPORTED, T, _is_zero, _limit, _num, _sign_symbolic
from .cells import Cell, _Exact
from .intervals import _prove_nonneg


# ============================================================================ (A1)
def _witness_point(p: Any) -> Any:
    if isinstance(p, sp.Basic):
        return _num(p)
    return float(mpmath.nstr(p, 17)) if isinstance(p, mpmath.mpf) else float(p)


def _a1_even(L: _Exact) -> Part:
    what = "ℓ' odd (so the antiderivative with ℓ(0)=0 is even)" if L.derivative else "ℓ even"
    which = "dl" if L.derivative else "l"
    sgn = 1 if L.derivative else -1  # ℓ'(s) + ℓ'(-s) = 0, ℓ(s) - ℓ(-s) = 0
    all_proved = L.cells_complete
    for c in L.cells:
        if not (c.lo >= 0):
            continue
        mirror = L.cell_of(-c.mid)
        f, g = getattr(c, which), getattr(mirror, which)
        if _is_zero((f + sgn * g.subs(S, -S)).subs(S, T)) is not True:
            all_proved = False
    # numeric witness search (always: a proof never coexists with a witness, but check anyway)
    worst = None
    for c in L.cells:
        if not (c.lo >= 0):
            continue
        for p in L.sample(c, 24):
            a, b = L.value(which, p), L.value(which, -p)
            if a is None or b is None:
                continue
            d = a + sgn * b
            if abs(d) > mpmath.mpf(10) ** -25 * (1 + abs(a)) and (worst is None or (
                    abs(d) > worst[1] and not isinstance(worst[0], sp.Basic))):
                worst = (p, abs(d), a, b)
    if worst is not None:
        p, d, a, b = worst
        key = ("dl(s)+dl(-s)" if L.derivative else "l(s)-l(-s)")
        return Part(REFUTED, f"{what} fails at s = {mpmath.nstr(p, 8)}: {key} = {mpmath.nstr(a + sgn * b, 8)}",
                    {"witness": _witness_point(p), "value": _num(a + sgn * b), "check": key})
    if all_proved:
        return Part(PROVED, f"{what}: exact identity on every cell (sympy)", {"method": "exact"})
    return Part(SUPPORTED, f"{what}: no violation at {DPS}-digit sample points (sympy could not "
                "close the identity in its time budget)", {"method": "numeric", "dps": DPS})


def _cell_param(c: Cell) -> sp.Expr:
    """s as a function of t > 0 sweeping exactly the open cell (so sympy's sign rules apply)."""
    if c.lo == -sp.oo and c.hi == sp.oo:
        return None
    if c.lo == -sp.oo:
        return c.hi - T
    if c.hi == sp.oo:
        return c.lo + T
    return c.lo + (c.hi - c.lo) * T / (1 + T)


def _a1_convex(L: _Exact) -> Part:
    exact = L.cells_complete
    worst = None
    even = getattr(L, "_even_proved", False)
    for c in L.cells:
        ok = _sign_symbolic(c.d2l.subs(S, _cell_param(c)))
        if ok is not True and c.lo >= 0 and c.hi != sp.oo:
            # a bounded cell: arb certificate, with end points where ℓ'' = 0 exactly (ℓ_β at r_β)
            e = c.d2l.subs(S, T)
            zs = tuple(z for z in (c.lo, c.hi) if z > 0 and _is_zero(e.subs(T, z)) is True)
            ok = _prove_nonneg(e, c.lo, c.hi, zeros=zs)[0] or None
        if ok is not True and c.hi <= 0 and even:
            ok = True  # ℓ'' is even: the mirrored cell on the right decides
        if ok is not True:
            exact = False
        for p in L.sample(c):
            v = L.value("d2l", p)
            if v is not None and v < -mpmath.mpf(10) ** -25 and (worst is None or (
                    v < worst[1] and not isinstance(worst[0], sp.Basic))):
                worst = (p, v)
    if worst is not None:
        p, v = worst
        return Part(REFUTED, f"not convex: ℓ''({mpmath.nstr(p, 8)}) = {mpmath.nstr(v, 8)} < 0",
                    {"witness": _witness_point(p), "value": _num(v), "check": "l''(s) >= 0"})
    # break points: ℓ' may jump up (a kink) but never down; ℓ itself must be continuous
    for b in L.breakpoints:
        left, right = L.cell_of(b - sp.Rational(1, 10**9)), L.cell_of(b + sp.Rational(1, 10**9))
        if left is None or right is None:
            continue
        jl, jr = _limit(left.dl, S, b), _limit(right.dl, S, b)
        if jl is None or jr is None:
            exact = False
            continue
        jump = sp.N(jr - jl, DPS)
        if jump < -mpmath.mpf(10) ** -25:
            return Part(REFUTED, f"not convex: ℓ' jumps down by {sp.N(-jump, 8)} at s = {b}",
                        {"witness": _num(b), "value": _num(jump), "check": "jump of l' >= 0"})
        if L.l is not None:
            vl, vr = _limit(left.l, S, b), _limit(right.l, S, b)
            if vl is not None and vr is not None and abs(sp.N(vr - vl, DPS)) > 1e-25:
                return Part(REFUTED, f"not convex: ℓ is discontinuous at s = {b}",
                            {"witness": _num(b), "value": _num(vr - vl), "check": "continuity of l"})
    if exact:
        return Part(PROVED, "ℓ'' >= 0 on every cell (sympy) and ℓ' does not jump down at break points",
                    {"method": "exact"})
    return Part(SUPPORTED, f"ℓ'' >= 0 at every {DPS}-digit sample point of every cell "
                "(10⁻⁸ … 10⁸); no downward jump of ℓ'", {"method": "numeric", "dps": DPS})


def _a1_lipschitz(L: _Exact, convex: Part, even: Part) -> tuple[Part, sp.Expr | None]:
    """|ℓ'| <= 1. With ℓ' odd and non-decreasing, sup|ℓ'| = lim_{s→∞} ℓ'(s) exactly."""
    worst = None
    for c in L.cells:
        for p in L.sample(c):
            v = L.value("dl", p)
            if v is not None and abs(v) > 1 + mpmath.mpf(10) ** -25 and (worst is None or (
                    abs(v) > abs(worst[1]) and not isinstance(worst[0], sp.Basic))):
                worst = (p, v)
    top = _limit(L.cells[-1].dl, S, sp.oo)
    bottom = _limit(L.cells[0].dl, S, -sp.oo)
    sup = None
    if top is not None and bottom is not None:
        sup = sp.Max(sp.Abs(top), sp.Abs(bottom))
    if worst is not None:
        p, v = worst
        return Part(REFUTED, f"|ℓ'({mpmath.nstr(p, 8)})| = {mpmath.nstr(abs(v), 8)} > 1",
                    {"witness": _witness_point(p), "value": _num(v), "sup_abs_slope": _num(sup),
                     "check": "|l'(s)| <= 1"}), sup
    if sup is not None and sup.is_number and sup > 1:
        # the limit exceeds 1 but the grid missed it (far tail): walk out to find a witness
        for k in range(1, 400):
            p = sp.Integer(2) ** k
            v = L.value("dl", p)
            if v is not None and abs(v) > 1:
                return Part(REFUTED, f"|ℓ'({p})| = {mpmath.nstr(abs(v), 8)} > 1 (lim |ℓ'| = {sup})",
                            {"witness": _num(p), "value": _num(v), "sup_abs_slope": _num(sup),
                             "check": "|l'(s)| <= 1"}), sup
        return Part(REFUTED, f"lim |ℓ'(s)| = {sup} > 1 as |s| → ∞",
                    {"witness": "inf", "value": _num(sup), "sup_abs_slope": _num(sup)}), sup
    if sup is not None and convex.verdict == PROVED and even.verdict == PROVED and sup <= 1:
        return Part(PROVED, f"ℓ' is odd and non-decreasing, so sup|ℓ'| = lim_(s→∞) ℓ'(s) = {sup} <= 1",
                    {"method": "exact", "sup_abs_slope": _num(sup), "sup_exact": sp.sstr(sup)}), sup
    return Part(SUPPORTED, f"|ℓ'| <= 1 at every {DPS}-digit sample point"
                + (f"; lim |ℓ'| = {sup}" if sup is not None else ""),
                {"method": "numeric", "dps": DPS, "sup_abs_slope": _num(sup)}), sup


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
    if _is_zero(dp - dm) is not True:
        c2 = Part(REFUTED, f"ℓ' jumps at 0: ℓ'(0+) = {dp}, ℓ'(0-) = {dm}",
                  {**data, "witness": 0.0, "value": _num(dp - dm)})
        return c2, Part(REFUTED, "ℓ''(0) does not exist (ℓ' jumps)", {**data, "witness": 0.0,
                                                                        "value": "undefined"}), None
    if _is_zero(d2p - d2m) is not True:
        c2 = Part(REFUTED, f"ℓ'' jumps at 0: ℓ''(0+) = {d2p}, ℓ''(0-) = {d2m}",
                  {**data, "witness": 0.0, "value": _num(d2p - d2m)})
        return c2, Part(REFUTED, "ℓ''(0) does not exist (ℓ'' jumps)", {**data, "witness": 0.0,
                                                                         "value": "undefined"}), None
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
