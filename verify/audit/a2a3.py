"""Assumptions (A2) and (A3) of ahn2023 (spec def6): the exponent β and constant c of
ℓ'(s)/s ≤ 1 − c|s|^β·1{|s| ≤ c}, the global part ℓ'(s)/s ≤ 1, and the sharp C of
ℓ'(s)/s ≥ 1 − C|s|^β.
"""
from __future__ import annotations

import math
import mpmath
import sympy as sp
from fractions import Fraction
from typing import Any

from ..lossparse import S
from ..symbolic import BudgetExceeded
from . import clock
from .common import DPS, INCONCLUSIVE, PROVED, Part, REFUTED, SUPPORTED, T, _cheap, _gave_up, _is_zero, _limit, _mp, _num, _sign_symbolic, _simplify
from .cells import _Exact
from .intervals import _certify_bound, _prove_nonneg
from .a1 import _EPS, _witness_point, reverify


# ============================================================================ (A2), (A3)
def _leading(g: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
    """(a, β) with g(t) = a t^β + o(t^β) as t → 0+, exactly (None if sympy cannot tell)."""
    try:
        with clock.step(4.0):
            lt = g.as_leading_term(T)
            a, b = lt.as_coeff_exponent(T)
            if a.has(T) or not a.is_number or not b.is_number or a == 0:
                ser = sp.series(g, T, 0, 8).removeO()
                lt = ser.as_leading_term(T)
                a, b = lt.as_coeff_exponent(T)
            if a.has(T) or not a.is_number or not b.is_number or a == 0:
                return None
            return sp.nsimplify(a) if a.is_Float else a, b
    except BudgetExceeded:
        _gave_up(f"leading term of {sp.sstr(g)[:60]}", 4.0)
        return None
    except Exception:
        return None


def _nice_below(x: float) -> sp.Rational:
    """A short rational <= x (for constants that should read well)."""
    if x <= 0:
        return sp.Integer(0)
    e = math.floor(math.log10(x))
    for digits in (1, 2, 3, 4):
        q = sp.Integer(10) ** (digits - 1 - e)
        r = sp.Rational(math.floor(x * q)) / q
        if r > 0 and float(r) >= 0.9 * x:
            return r
    return sp.Rational(math.floor(x * 10**(4 - e)), 10**(4 - e))


def _nice_above(x: float, slack: float = 1e-3) -> sp.Rational:
    """A short rational >= x and <= x(1 + slack)."""
    e = math.floor(math.log10(x)) if x > 0 else 0
    for digits in range(1, 12):
        q = sp.Integer(10) ** (digits - 1 - e)
        r = sp.Rational(math.ceil(x * q)) / q
        if float(r) <= x * (1 + slack):
            return r
    return sp.Rational(Fraction(x * (1 + slack)).limit_denominator(10**12))


class _Side:
    """The zero cell of one half-line, in the variable t > 0 (s = ±t)."""

    def __init__(self, L: _Exact, sign: int):
        self.sign = sign
        cell = L.zero_right if sign > 0 else L.zero_left
        self.cell = cell
        self.dl_t = cell.dl.subs(S, sign * T)           # ℓ'(±t)
        self.g = _simplify(1 - self.dl_t / (sign * T))   # 1 − ℓ'(s)/s
        self.u = _simplify(T - sign * self.dl_t)         # t·g = t − ℓ'(s)/sign
        self.radius = cell.hi if sign > 0 else -cell.lo  # the cell is 0 < t < radius


def _mp_g(L: _Exact, p: Any) -> mpmath.mpf | None:
    v = L.value("dl", p)
    if v is None:
        return None
    with mpmath.workdps(max(DPS, mpmath.mp.dps)):
        return 1 - v / (mpmath.mpf(sp.N(p, mpmath.mp.dps + 5)) if isinstance(p, sp.Basic) else p)


def _above_one(L: _Exact, p: Any) -> bool:
    """ℓ'(p)/p > 1 re-verified at 60 digits from the whole expression (a witness's last check)."""
    x = _mp(p) if isinstance(p, sp.Basic) else p
    return reverify(L, "dl", p, lambda d: d / x > 1) is not None


def _dps_for(beta: Any) -> int:
    """Digits that keep 1 − ℓ'(s)/s ~ |s|^β meaningful down to |s| = 10⁻⁸ (spec §7 N5)."""
    try:
        b = float(beta)
    except (TypeError, ValueError):
        b = 4.0
    return DPS + int(math.ceil(8 * min(max(b, 0.0), 40.0))) + 10


def _a2_local(L: _Exact, side: _Side) -> dict:
    """β and the certified c of one side, or the reason it fails."""
    out = _a2_local_raw(L, side)
    if out.get("numeric_beta") and out.get("verdict") == PROVED:
        out["verdict"] = SUPPORTED
        out["summary"] = (f"β = {sp.sstr(out['beta'])} identified numerically (estimate "
                          f"{out['beta_estimate']:.6f}; sympy could not find the leading term); "
                          + out.get("summary", ""))
    return out


def _a2_local_raw(L: _Exact, side: _Side) -> dict:
    out: dict = {}
    if _is_zero(side.g) is True:
        out.update(beta=sp.oo, a=sp.Integer(0), method="exact",
                   summary=f"ℓ'(s)/s ≡ 1 on 0 < |s| < {side.radius} (exact): β = ∞")
        return out
    lead = _leading(side.g)
    if lead is None:
        # numeric exponent estimate from 40-digit values (no cancellation at this precision)
        pts = [mpmath.mpf(10) ** -j for j in (3, 4, 5, 6)]
        vals = [_mp_g(L, side.sign * p) for p in pts]
        if any(v is None or v <= 0 for v in vals):
            out.update(beta=None, summary="sympy could not find the leading term of 1 − ℓ'(s)/s, "
                       "and it is not positive near 0 numerically", verdict=INCONCLUSIVE)
            return out
        slope = float((mpmath.log(vals[-1]) - mpmath.log(vals[0])) / (mpmath.log(pts[-1]) - mpmath.log(pts[0])))
        guess = sp.nsimplify(slope, rational=True, tolerance=1e-3)
        if not (guess.is_Rational and guess.q <= 12 and abs(float(guess) - slope) < 1e-4):
            a = float(vals[-1] / pts[-1] ** slope)
            out.update(beta=slope, a=a, method="numeric", verdict=INCONCLUSIVE,
                       summary=f"leading exponent ≈ {slope:.6f} from {DPS}-digit values (sympy could not "
                       "find the leading term, and the estimate is not a simple rational)")
            return out
        # a numerically identified exponent: continue, with every verdict capped at supported
        with mpmath.workdps(_dps_for(guess)):
            a_num = _mp_g(L, side.sign * pts[-1]) / pts[-1] ** _mp(guess)
        lead = (sp.Rational(_nice_below(float(a_num) * (1 - 1e-6))), guess)
        out["numeric_beta"] = True
        out["beta_estimate"] = slope
    a, beta = lead
    out.update(beta=beta, a=a)
    if beta <= 0:
        # ℓ'(s)/s does not tend to 1 (ℓ''(0) ≠ 1 or ℓ'(0) ≠ 0): no (A2) exponent
        out["beta"] = None
        if a < 0 or beta < 0:
            for j in range(1, 40):
                p = side.sign * mpmath.mpf(2) ** -j
                g = _mp_g(L, p)
                if g is not None and g < 0 and _above_one(L, p):
                    out.update(verdict=REFUTED, witness=float(p), value=_num(1 - g),
                               summary=f"ℓ'(s)/s does not tend to 1 at 0 and exceeds 1: ℓ'(s)/s = "
                               f"{mpmath.nstr(1 - g, 12)} at s = {mpmath.nstr(p, 6)}")
                    return out
        out.update(verdict=INCONCLUSIVE, summary="ℓ'(s)/s does not tend to 1 at 0: (A2) has no exponent")
        return out
    if a < 0:
        for j in range(1, 30):
            p = side.sign * mpmath.mpf(2) ** -j
            g = _mp_g(L, p)
            if g is not None and g < 0 and _above_one(L, p):
                out.update(verdict=REFUTED, witness=float(p), value=_num(1 - g),
                           summary=f"ℓ'(s)/s = 1 + {sp.sstr(-a)}|s|^{sp.sstr(beta)} + … > 1 near 0: "
                           f"ℓ'(s)/s = {mpmath.nstr(1 - g, 12)} at s = {mpmath.nstr(p, 6)}")
                return out
        out.update(verdict=REFUTED, witness=0.0, value=_num(a),
                   summary=f"1 − ℓ'(s)/s = {sp.sstr(a)}|s|^{sp.sstr(beta)} + … is negative near 0")
        return out
    # ---- certify c: (1 − ℓ'(s)/s)/|s|^β >= c on 0 < |s| <= c
    h = _cheap(side.g / T ** beta)
    if h.has(T) and sp.count_ops(h) < 30:
        h = _simplify(h)
    radius = side.radius
    if not h.has(T):
        c = sp.Min(h, radius) if radius != sp.oo else h
        c = sp.nsimplify(c) if c.is_Float else c
        out.update(c=c, method="exact", verdict=PROVED,
                   summary=f"1 − ℓ'(s)/s = {sp.sstr(h)}·|s|^{sp.sstr(beta)} exactly on 0 < |s| < "
                   f"{sp.sstr(radius)}, so c = {sp.sstr(c)}")
        return out
    af = float(a)
    cands = []
    for f in (1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.01):
        c = _nice_below(min(af * f, 1.0))
        if radius != sp.oo:
            c = min(c, _nice_below(float(radius) * 0.999))
        if c > 0 and c not in cands:
            cands.append(c)
    undecided = 0
    for c in cands:
        if undecided >= 3:
            break  # the Taylor form at 0 does not close (e.g. exp(-1/s²)): smaller c will not help
        ok, _ = _prove_nonneg(side.g - c * T ** beta, 0, c, max_boxes=1500)
        undecided += ok is None
        if ok:
            out.update(c=c, method="interval (verify.certify: arb, Taylor form at 0)", verdict=PROVED,
                       summary=f"1 − ℓ'(s)/s − {c}|s|^{sp.sstr(beta)} >= 0 on 0 < |s| <= {c}, "
                       "certified in arb (Taylor form with Lagrange remainder at 0)")
            return out
    if beta.is_Integer and beta > 0:
        n = int(beta)
        try:
            with clock.step(3.0):
                derivs_vanish = all(_limit(sp.diff(side.u, T, j), T, 0) == 0 for j in range(n + 1))
                D = sp.diff(side.u, T, n + 1) / sp.factorial(n + 1)
        except BudgetExceeded:
            derivs_vanish, D = False, None
        if derivs_vanish and D is not None:
            for c in cands:
                ok, _ = _certify_bound(D, T, 0, c, c, "lower", max_evals=800)
                for frac in (2, 4, 8):
                    if ok:
                        break
                    # Taylor bound near 0, direct enclosure of the quotient away from 0
                    d = c / frac
                    ok1, _ = _certify_bound(D, T, 0, d, c, "lower", max_evals=400)
                    ok = bool(ok1) and bool(_certify_bound(h, T, d, c, c, "lower", max_evals=1500)[0])
                if ok:
                    out.update(c=c, method="interval (arb) + Taylor remainder", verdict=PROVED,
                               summary=f"(1 − ℓ'(s)/s)/|s|^{n} = u^({n + 1})(ξ)/{n + 1}! with "
                               f"u = s − ℓ'(s); an arb enclosure on [0, {c}] gives >= {c}")
                    return out
    # numeric: 40-digit check of h >= c on a dense grid in (0, c]
    with mpmath.workdps(_dps_for(beta)):
        found = _numeric_c(L, side, beta, cands)
    if found is not None:
        c = found
        out.update(c=c, method="numeric", verdict=INCONCLUSIVE, sampled_only=True,
                   summary=f"(1 − ℓ'(s)/s)/|s|^{sp.sstr(beta)} >= {c} at 81 high-precision points of "
                   f"(0, {c}], not proved (no interval certificate; samples cannot exclude a narrow bump)")
        return out
    out.update(verdict=INCONCLUSIVE, summary=f"leading term {sp.sstr(a)}|s|^{sp.sstr(beta)} but no "
               "candidate c could be checked")
    return out


def _numeric_c(L: _Exact, side: "_Side", beta: Any, cands: list) -> Any:
    for c in cands:
        fine = True
        for j in range(0, 81):
            p = _mp(c) * mpmath.mpf(10) ** (-8 * mpmath.mpf(j) / 80)
            g = _mp_g(L, side.sign * p)
            if g is None or g / p ** _mp(beta) < _mp(c):
                fine = False
                break
        if fine:
            return c
    return None


def _ratio_global(L: _Exact, lip: Part, local_c: Any, local_verdict: str, beta_inf: bool) -> Part:
    """ℓ'(s)/s <= 1 for all s ≠ 0 (and whether it is strict: the (A2+) condition of fact4)."""
    worst, tight = None, None
    for c in L.cells:
        for p in L.sample(c):
            if p == 0:
                continue
            g = _mp_g(L, p)
            if g is None:
                continue
            if g < -mpmath.mpf(10) ** -25 and (worst is None or (
                    g < worst[1] and not isinstance(worst[0], sp.Basic))):
                # re-verified at 60 digits from the whole expression before it can be printed
                v = reverify(L, "dl", p, lambda d: d / (_mp(p) if isinstance(p, sp.Basic) else p) > 1 + _EPS)
                if v is not None:
                    worst = (p, g)
            if abs(g) <= mpmath.mpf(10) ** -25 and (tight is None or abs(p) > abs(tight)):
                tight = p
    if worst is not None:
        p, g = worst
        return Part(REFUTED, f"ℓ'(s)/s = {mpmath.nstr(1 - g, 12)} > 1 at s = {mpmath.nstr(p, 8)} "
                    "(the global part of (A2) fails; cf. spec §7 N1)",
                    {"witness": _witness_point(p), "value": _num(1 - g), "strict": False})
    # exact / certified route: per cell on the positive side (negative side by evenness or again)
    proved, strict, strict_unknown = True, True, False
    sides = (1,) if getattr(L, "_even_proved", False) else (1, -1)
    lo_cut = sp.Integer(0)  # the zero cell is closed by a Taylor form at 0 (or exactly)
    # 0 < |s| <= 1 is certified whatever (A1) says (a violation there is found by arb, not by
    # luck of the grid); beyond 1, ℓ'(s)/s <= 1/|s| <= 1 follows from |ℓ'| <= 1, proved or not
    hi_cut = sp.Integer(1)
    cert_ok = True  # every piece of 0 < |s| <= 1 closed by sympy or arb
    if True:
        for sgn in sides:
            for c in L.cells:
                a, b = (c.lo, c.hi) if sgn > 0 else (-c.hi, -c.lo)
                if not (a >= 0):
                    continue
                a, b = sp.Max(a, lo_cut), sp.Min(b, hi_cut)
                if not (b > a):
                    continue
                dl_t = c.dl.subs(S, sgn * T)
                g = _simplify(1 - dl_t / (sgn * T))
                nn = _sign_symbolic(g)
                if nn is not True and a > 0:
                    # sympy's sign rules on exactly this piece, t = a + (b − a)·r/(1 + r) with r > 0
                    # ((s − 1/2)³/s on (1/2, 1) is >= 0 there, not for every t > 0)
                    piece = g.subs(T, a + (b - a) * T / (1 + T))
                    if _sign_symbolic(piece) is True:
                        if _sign_symbolic(piece, strict=True) is not True:
                            strict = False
                        continue
                if nn is True:
                    if _sign_symbolic(g, strict=True) is not True:
                        strict = False
                    continue
                ends = tuple(z for z in (a, b) if z > 0 and z.is_finite and _is_zero(g.subs(T, z)) is True)
                ok2, w = _prove_nonneg(g, a, b, strict=False, zeros=ends)
                if ok2 is False and w is not None and a < w <= b and _above_one(L, sgn * w):
                    return Part(REFUTED, f"ℓ'(s)/s > 1 at s = {sp.sstr(sgn * w)} (arb certificate, re-evaluated "
                                "at 60 digits; the global part of (A2) fails; cf. spec §7 N1)",
                                {"witness": _num(sgn * w), "strict": False, "method": "interval"})
                if ok2:
                    # strictness away from 0 (at 0 itself g may vanish): from the local bound
                    # g >= c|s|^β > 0 below c when it is proved, and a strict certificate above
                    a_s = sp.Max(a, local_c) if (a == 0 and local_c is not None and local_verdict == PROVED) else a
                    if a == 0 and a_s == 0 and not beta_inf:
                        ok_s = _prove_nonneg(g, a, b, strict=True)[0]
                    elif b > a_s:
                        ok_s = _prove_nonneg(g, a_s, b, strict=True)[0]
                    else:
                        ok_s = True
                    if not ok_s:
                        strict_unknown = True
                    continue
                if a == 0:
                    cert_ok = False
                    continue
                u = T - sgn * dl_t
                ok, wit = _certify_bound(u, T, a, b, 0, "lower", strict=True, max_evals=3000)
                if ok:
                    continue
                ok2, _ = _certify_bound(u, T, a, b, 0, "lower", strict=False, max_evals=3000)
                if ok2:
                    strict = False
                    continue
                cert_ok = False
    proved = cert_ok and lip.verdict == PROVED
    for b in L.breakpoints:
        if b == 0:
            continue
        left = L.beside(b)[0]
        if _is_zero(1 - left.dl.subs(S, b) / b) is True and (tight is None or abs(b) > abs(_mp(tight))):
            tight = b
    if tight is not None and abs(_mp(tight)) > (float(local_c) if (local_c is not None and not beta_inf) else 0):
        strict = False
    if beta_inf:
        strict = False  # ℓ'(s)/s = 1 near 0
    strict_verdict = REFUTED if not strict else (SUPPORTED if (strict_unknown or not proved) else PROVED)
    data = {"strict": strict, "strict_verdict": strict_verdict,
            "strict_meaning": "ℓ'(s) < s for every s > 0 (needed for (A2+), spec fact4)"}
    if tight is not None:
        data["equality_at"] = _witness_point(tight)
    if proved:
        return Part(PROVED, "ℓ'(s)/s <= 1 for all s ≠ 0: exact or arb-certified on 0 < |s| <= 1 "
                    "(Taylor form at 0), and ℓ'(s)/s <= 1/|s| <= 1 beyond since |ℓ'| <= 1",
                    {**data, "method": "exact + interval"})
    if cert_ok and lip.verdict in (PROVED, SUPPORTED):
        return Part(SUPPORTED, "ℓ'(s)/s <= 1 exact or arb-certified on 0 < |s| <= 1; beyond, ℓ'(s)/s <= 1/|s| "
                    f"needs |ℓ'| <= 1, which is {lip.verdict} (and no violation at the {DPS}-digit sample points)",
                    {**data, "method": "interval + numeric", "dps": DPS})
    # samples alone cannot exclude a narrow bump of ℓ' above s
    where = ("no certificate on some cell of 0 < |s| <= 1" if not cert_ok else
             f"certified on 0 < |s| <= 1, but beyond it ℓ'(s)/s <= 1/|s| needs |ℓ'| <= 1, which is {lip.verdict}")
    return Part(INCONCLUSIVE, f"ℓ'(s)/s <= 1 not proved ({where}); no violation at the {DPS}-digit sample "
                "points (10⁻⁸ … 10⁸), which cannot exclude a narrow bump",
                {**data, "method": "numeric", "dps": DPS, "sampled_only": True})


def _a3(L: _Exact, beta: sp.Expr, sides: list, a1_sign_ok: bool) -> Part:
    """(A3): sup_{s≠0} (1 − ℓ'(s)/s)/|s|^β, numerically sharp and certified from above."""
    bm = _mp(beta)
    best, where = mpmath.mpf(0), None
    exact_sup = None
    for sd in sides:
        if sd.a is not None and sd.a > 0:
            if _mp(sd.a) > best:
                best, where = _mp(sd.a), 0.0
    with mpmath.workdps(_dps_for(beta)):
        for c in L.cells:
            for p in L.sample(c, 64):
                p = _mp(p) if isinstance(p, sp.Basic) else p
                g = _mp_g(L, p)
                if g is None:
                    continue
                h = g / abs(p) ** bm
                if h > best:
                    best, where = h, p
    if not mpmath.isfinite(best):
        return Part(REFUTED, "(1 − ℓ'(s)/s)/|s|^β is unbounded", {"witness": _witness_point(where)})
    # exact sup: h constant on the zero cells and h smaller elsewhere at sample points
    hs = [(_simplify(sd.side.g / T ** beta)) for sd in sides]
    if all(not h.has(T) for h in hs):
        cand = max(hs, key=lambda v: float(v))
        if _mp(cand) >= best - mpmath.mpf(10) ** -20:
            exact_sup = cand
    # exact sup over every cell (critical points by sympy): a sharp, proved constant
    sups = []
    if L.cells_complete:
        for sd in sides:
            for c in L.cells:
                a, b = (c.lo, c.hi) if sd.sign > 0 else (-c.hi, -c.lo)
                if not (a >= 0):
                    continue
                h = _simplify((1 - c.dl.subs(S, sd.sign * T) / (sd.sign * T)) / T ** beta)
                sups.append(_exact_sup(h, a, b))
    if sups and all(v is not None for v in sups):
        C = max(sups, key=lambda v: float(v))
        if _mp(C) >= best * (1 - mpmath.mpf(10) ** -12):
            return Part(PROVED, f"ℓ'(s)/s >= 1 − C|s|^{sp.sstr(beta)} for all s ≠ 0 with the sharp C = "
                        f"{sp.sstr(C)} (exact supremum of (1 − ℓ'(s)/s)/|s|^β over every cell: critical "
                        "points and one-sided limits by sympy)",
                        {"C": _num(C), "C_exact": sp.sstr(C), "sharp": True, "method": "exact"})
    data: dict = {"C_sharp_estimate": _num(best), "attained_near": _witness_point(where) if where is not None else None}
    if exact_sup is not None:
        data["C_sharp_exact_candidate"] = sp.sstr(exact_sup)
    # certification: C_try >= sup; tail |s| >= C^(-1/β) follows from 0 <= ℓ'(s)/s (A1: sgn ℓ' = sgn s)
    lead = [sd.a for sd in sides if sd.a is not None and sd.a > 0]
    if lead and best <= _mp(max(lead, key=float)) * (1 + mpmath.mpf(10) ** -12):
        exact_sup = max(lead, key=float)  # the supremum is the limit at 0: try it exactly
        data["C_sharp_exact_candidate"] = sp.sstr(exact_sup)
    tries = ([exact_sup] if exact_sup is not None else []) + \
        [_nice_above(float(best) * f, slack) for f, slack in ((1.000001, 1e-6), (1.0001, 1e-4),
                                                              (1.001, 1e-3), (1.01, 1e-2), (1.1, 0.05))]
    if a1_sign_ok and L.cells_complete:
        for C in tries:
            tail = sp.Pow(C, -sp.Integer(1) / beta)
            tail_q = _nice_above(float(tail) * (1 + 1e-9) + 1e-12)
            if sp.Rational(tail_q) >= tail:
                tail = sp.Rational(tail_q)  # a rational end point covering [.., C^(-1/β)]
            ok_all = True
            for sd in sides:
                for c in L.cells:
                    a, b = (c.lo, c.hi) if sd.sign > 0 else (-c.hi, -c.lo)
                    if not (a >= 0):
                        continue
                    b = sp.Min(b, tail)
                    if not (b > a):
                        continue
                    dl_t = c.dl.subs(S, sd.sign * T)
                    h = _simplify((1 - dl_t / (sd.sign * T)) / T ** beta)
                    if not h.has(T):
                        if h <= C:
                            continue
                        ok_all = False
                        break
                    ok, _ = _prove_nonneg(C * T ** beta - (1 - dl_t / (sd.sign * T)), a, b)
                    if ok:
                        continue
                    if a == 0:
                        if not (beta.is_Integer and sd.D is not None):
                            ok_all = False
                            break
                        ok, _ = _certify_bound(sd.D, T, 0, b, C, "upper", max_evals=4000)
                    else:
                        ok, _ = _certify_bound(h, T, a, b, C, "upper", max_evals=4000)
                    if not ok:
                        ok_all = False
                        break
                if not ok_all:
                    break
            if ok_all:
                sharp = exact_sup is not None and C == exact_sup
                return Part(PROVED, f"ℓ'(s)/s >= 1 − C|s|^{sp.sstr(beta)} for all s ≠ 0 with "
                            f"{'the sharp ' if sharp else ''}C = {sp.sstr(C)} (exact/arb on 0 < |s| <= "
                            f"C^(-1/β), and 0 <= ℓ'(s)/s beyond)",
                            {**data, "C": _num(C), "C_exact": sp.sstr(C), "sharp": sharp,
                             "method": "exact + interval"})
    C = _nice_above(float(best) * 1.000001)
    # samples cannot exclude a narrow dip of ℓ' that needs a larger C: an estimate, not a verdict
    why = ("the sign of ℓ' is not proved" if not a1_sign_ok else
           "the break points are not all exact" if not L.cells_complete else "no interval certificate")
    return Part(INCONCLUSIVE, f"ℓ'(s)/s >= 1 − C|s|^{sp.sstr(beta)} with C = {sp.sstr(C)} at every {DPS}-digit "
                f"sample point, not proved ({why}); samples cannot exclude a narrow dip needing a larger C",
                {**data, "C": _num(C), "C_exact": sp.sstr(C), "method": "numeric", "dps": DPS,
                 "sampled_only": True})


def _exact_sup(h: sp.Expr, a: sp.Expr, b: sp.Expr) -> sp.Expr | None:
    """sup of h(t) over a < t < b exactly (endpoint limits and critical points), or None."""
    try:
        with clock.step(3.0):
            if not h.has(T):
                return h
            crit = sp.solveset(sp.diff(h, T), T, sp.Interval.open(a, b))
            if crit == sp.EmptySet:
                crit = []
            elif isinstance(crit, sp.FiniteSet):
                crit = list(crit)
            else:
                return None
            vals = [_limit(h, T, a), _limit(h, T, b) if b != sp.oo else _limit(h, T, sp.oo)]
            vals += [h.subs(T, x) for x in crit]
            if any(v is None or not v.is_number or not v.is_finite for v in vals):
                return None
            return max(vals, key=lambda v: float(v))
    except (BudgetExceeded, Exception):
        return None
