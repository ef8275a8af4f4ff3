"""The audit itself: input → cells → (A1) → rescaling → (A2)/(A3) → predictions → confirmation.
"""
from __future__ import annotations

import math
from dataclasses import replace as _replace

import mpmath
import sympy as sp
from typing import Any, Callable

from ..lossparse import S, LossSyntaxError, parse_loss
from ..symbolic import BudgetExceeded
from . import clock
from .common import AuditInputError, DPS, INCONCLUSIVE, NA, PROVED, Part, REFUTED, SUPPORTED, T, _GAVE_UP, _num, _simplify, weakest
from .cells import WINDOW, _Exact
from .intervals import _PROVE_CLOCK
from .a1 import _a1_c2, _a1_convex, _a1_even, _a1_lipschitz
from .a2a3 import _Side, _a2_local, _a3, _ratio_global
from .applicability import _holds, _predictions
from .predictions import AuditFacts, paper_predictions
from .confirmation import _confirmation, _gd_loss
from .rendering import AuditResult
from .numeric import _audit_numeric


# ============================================================================ main entry
def _to_subject(loss_or_expr: Any, derivative: bool) -> tuple[Any, str]:
    if isinstance(loss_or_expr, str):
        try:
            expr = parse_loss(loss_or_expr)
        except LossSyntaxError as exc:
            raise AuditInputError(str(exc)) from None
        return expr, loss_or_expr.strip()
    if isinstance(loss_or_expr, tuple) and len(loss_or_expr) == 2 and all(callable(f) for f in loss_or_expr):
        return loss_or_expr, "numeric (ℓ′, ℓ″) callables"
    if isinstance(loss_or_expr, sp.Basic):
        expr = sp.sympify(loss_or_expr)
        syms = expr.free_symbols
        if any(s.name != "s" for s in syms):
            raise AuditInputError(f"the expression may only use the symbol s, got {sorted(map(str, syms))}")
        text = sp.sstr(expr.xreplace({s: S for s in syms}))
        try:  # the same whitelist as text input (no undefined functions, no unsupported nodes)
            return parse_loss(text), text
        except LossSyntaxError as exc:
            raise AuditInputError(f"the sympy expression is outside the supported set: {exc}") from None
    raise AuditInputError("audit() takes a string, a sympy expression in s, or a pair of callables (ℓ′, ℓ″)")


def audit(loss_or_expr: Any, derivative: bool = False, confirm: bool = True, seed: int = 0,
          _rescale: bool = True, budget: float | None = clock.DEFAULT_SECONDS) -> AuditResult:
    """Audit a loss against (A1)–(A3) of ahn2023 (see the package docstring).

    ``budget``: overall seconds for the whole audit (None: unlimited). Each step gets its own
    share, never beyond the deadline; what is not finished by then is ``inconclusive`` and says
    what ran out. Input errors raise :class:`AuditInputError` before anything runs.
    """
    subject, text = _to_subject(loss_or_expr, derivative)
    if isinstance(subject, tuple):
        return _audit_numeric(subject[0], subject[1], text, confirm, seed)
    _GAVE_UP.clear()
    _PROVE_CLOCK[:] = [0.0, False]
    with clock.overall(budget), mpmath.workdps(DPS):
        try:
            with clock.interruptible():
                L = _Exact(subject, derivative, text)
        except clock.OutOfTime:
            return _ran_out_result(text, derivative, clock.ran_out("the break points and cells"))
        result = _audit_exact(L, confirm, seed, _rescale)
        ran = clock.ran_out_list()
        if ran:
            result.notes.append(f"time budget: {budget:g} s (--budget); ran out during: "
                                + "; ".join(dict.fromkeys(ran)) + " (those parts are inconclusive)")
        result.loss["budget_seconds"] = budget
    if _GAVE_UP:
        shown = "; ".join(sorted(set(_GAVE_UP))[:4])
        result.notes.append(f"sympy gave up on {len(_GAVE_UP)} step(s) within their time budgets "
                            f"({shown}{' …' if len(set(_GAVE_UP)) > 4 else ''}); the parts concerned "
                            "fell back to interval or numeric evidence")
    return result


def _ran_out_result(text: str, derivative: bool, why: str) -> AuditResult:
    """Nothing could be audited within the budget: every assumption inconclusive, with the reason."""
    part = {"verdict": INCONCLUSIVE, "summary": why}
    a1 = dict(part, parts={k: dict(part) for k in ("even", "convex", "lipschitz_1", "c2_near_0",
                                                    "curvature_at_0_is_1")})
    return AuditResult({"expression": text, "derivative": derivative, "mode": "exact (sympy)"},
                       a1, dict(part, beta=None, c=None), dict(part, C=None),
                       {"applicable_claims": [], "note": "no verdicts: no predictions"},
                       {"verdict": INCONCLUSIVE, "summary": "not run: " + why}, None, [why])


SHARES = {"the evenness check": 0.1, "the convexity check": 0.2, "the Lipschitz check": 0.2,
          "the limits at 0": 0.15, "the (A2) exponent": 0.2, "the (A2) exponent and constant c": 0.2,
          "the global part ℓ'(s)/s <= 1": 0.2, "(A3)": 0.2, "the normalising rescaling": 0.5,
          "the papers' predictions": 0.1}


def _guarded(what: str, fallback: Callable[[str], Any], fn: Callable, *args: Any) -> Any:
    """fn(*args) within its share of the budget (SHARES), or fallback(reason) when that share or the
    overall budget has run out (before or during)."""
    if clock.expired():
        return fallback("not run: " + clock.ran_out(what))
    try:
        with clock.interruptible(), clock.share(SHARES.get(what)):
            return fn(*args)
    except clock.OutOfTime:
        return fallback(clock.ran_out(what))


def _inc(reason: str) -> Part:
    return Part(INCONCLUSIVE, reason, {"ran_out": True})


def _cap(part: Part, exact_cells: bool) -> Part:
    """A verdict resting on the cells is inconclusive when the break points are not all exact: the
    cells then come from points sympy could not solve, so a branch may hold on an interval that no
    sample point meets (cos(s²) > -0.999 selects slivers near s² = π, 3π, …); refutations stand
    (their witnesses are re-verified pointwise from the whole expression)."""
    if exact_cells or part.verdict not in (PROVED, SUPPORTED):
        return part
    return Part(INCONCLUSIVE, part.summary + " [inconclusive: " + NOT_EXACT + "]",
                {**part.data, "capped": True, "capped_from": part.verdict})


NOT_EXACT = ("the break points are not all known exactly, so a branch of the expression may hold on "
             "intervals that no sample point meets")


def _audit_exact(L: _Exact, confirm: bool, seed: int, rescale: bool) -> AuditResult:
    notes: list = []
    if not L.cells_complete:
        notes.append("some break points could not be solved exactly (" + {
            "window": f"infinitely many or unsolved beyond |s| < {WINDOW}",
            "unknown": "sympy cannot solve a condition"}.get(L.scope, "a rational point inside a cell "
                                                             "could not be confirmed") +
                     "): those cells are evaluated pointwise from the whole expression, which can "
                     "refute but not establish: no verdict is `proved` or `supported`")
    loss_info = {"expression": L.text, "derivative": L.derivative, "mode": "exact (sympy)",
                 "l": sp.sstr(L.l) if L.l is not None else None, "dl": sp.sstr(L.dl)[:400],
                 "breakpoints": [sp.sstr(b) for b in L.breakpoints]}
    # ---------------- A1
    ex = L.cells_complete
    even = _cap(_guarded("the evenness check", _inc, _a1_even, L), ex)
    L._even_proved = even.verdict == PROVED
    convex = _cap(_guarded("the convexity check", _inc, _a1_convex, L), ex)
    lip, sup = _guarded("the Lipschitz check", lambda r: (_inc(r), None), _a1_lipschitz, L, convex, even)
    lip = _cap(lip, ex)
    c2, cur, k = _guarded("the limits at 0", lambda r: (_inc(r), _inc(r), None), _a1_c2, L)
    c2, cur = _cap(c2, ex), _cap(cur, ex)
    L.facts_seen = {"curvature_at_0": k, "sup_slope": sup, "even": even.verdict}  # for the papers' hooks
    parts = {"even": even, "convex": convex, "lipschitz_1": lip, "c2_near_0": c2,
             "curvature_at_0_is_1": cur}
    a1_verdict = weakest(*(p.verdict for p in parts.values()))
    A1 = {"verdict": a1_verdict, "parts": {k_: p.to_json() for k_, p in parts.items()}}
    # ---------------- rescaling
    rescaling = None
    resc_sub = resc_expr = None
    if (k is not None and sup is not None and k.is_number and sup.is_number and k > 0 and sup > 0
            and sup.is_finite and all(p.verdict in (PROVED, SUPPORTED) for p in (even, convex, c2))
            and (k != 1 or sup > 1)):
        rescaling = _guarded("the normalising rescaling", lambda r: {"summary": r, "rescaled": "?",
                                                                      "checked": {"ok": False}},
                             _rescaling, L, k, sup, rescale)
        resc_sub, resc_expr = rescaling.pop("_sub", None), rescaling.pop("_expr", None)
        wrong = ([f"ℓ''(0) = {sp.sstr(k)} ≠ 1"] if k != 1 else []) + \
            ([f"sup|ℓ'| = {sp.sstr(sup)} > 1"] if sup > 1 else [])
        rest = "the rest of (A1) holds" if lip.verdict in (PROVED, SUPPORTED) or sup > 1 else \
            "ℓ is even, convex and C² near 0"
        notes.append(f"{' and '.join(wrong)} but {rest}: the rescaled loss {rescaling['rescaled']} is "
                     "normalised (see rescaling)")
    # ---------------- A2
    sides_info = []
    if cur.verdict != REFUTED:
        for sgn in ((1,) if even.verdict == PROVED else (1, -1)):
            sd = _guarded("the (A2) exponent", lambda r: None, _Side, L, sgn)
            if sd is None:
                A2 = {"verdict": INCONCLUSIVE, "summary": clock.ran_out("the (A2) exponent"), "beta": None,
                      "c": None}
                A3 = {"verdict": INCONCLUSIVE, "summary": "(A2) not finished", "C": None}
                return _finish(L, loss_info, A1, A2, A3, None, confirm, rescaling, notes, a1_verdict)
            info = _guarded("the (A2) exponent and constant c",
                            lambda r: {"beta": None, "verdict": INCONCLUSIVE, "summary": r}, _a2_local, L, sd)
            if not ex and info.get("verdict") in (PROVED, SUPPORTED):
                info = dict(info, verdict=INCONCLUSIVE, summary=info.get("summary", "") + " [inconclusive: "
                            + NOT_EXACT + "]")
            sides_info.append((sd, info))
    betas = [i.get("beta") for _, i in sides_info]
    if cur.verdict == REFUTED:
        why = (f"(A2) and (A3) compare ℓ'(s)/s with 1, which presumes ℓ''(0) = 1; here ℓ'(s)/s → "
               f"{cur.data.get('exact', cur.data.get('value'))}"
               + ("; see the audit of the rescaled loss" if rescaling else ""))
        A2 = {"verdict": NA, "summary": why, "beta": None, "c": None}
        A3 = {"verdict": NA, "summary": why, "C": None}
        if rescaling and "rescaled_beta" in rescaling:
            A2["beta_after_rescaling"] = rescaling["rescaled_beta"]
        result = _finish(L, loss_info, A1, A2, A3, None, confirm, rescaling, notes, a1_verdict)
        return _adopt_rescaled(result, L, rescaling, resc_sub, resc_expr, confirm)
    local_verdicts = [i.get("verdict", PROVED if i.get("beta") == sp.oo else INCONCLUSIVE) for _, i in sides_info]
    A2: dict
    beta_json: Any = None
    a2_parts: dict = {}
    if any(b is None for b in betas):
        vs = [i.get("verdict", INCONCLUSIVE) for _, i in sides_info]
        bad = next((i for _, i in sides_info if i.get("verdict") == REFUTED),
                   next((i for _, i in sides_info if i.get("beta") is None), sides_info[0][1]))
        A2 = {"verdict": weakest(*vs), "summary": bad.get("summary", ""), "beta": None, "c": None,
              **{k_: bad[k_] for k_ in ("witness", "value") if k_ in bad}}
        beta = None
    else:
        beta = min(betas, key=lambda b: float(b) if b != sp.oo else math.inf)
        lead = next(((sd, i) for sd, i in sides_info if i.get("beta") == beta), sides_info[0])
        L.facts_seen.update(beta=beta, leading_coefficient=lead[1].get("a"),
                            ratio_near_0=lead[0].g.subs(T, S) if lead[0].sign > 0 else None)
        beta_inf = beta == sp.oo
        beta_json = "inf" if beta_inf else (_num(beta))
        local = weakest(*local_verdicts)
        cs = [i.get("c") for _, i in sides_info]
        c_val = None if beta_inf else (min(cs, key=lambda v: float(v)) if all(v is not None for v in cs) else None)
        local_part = Part(local, "; ".join(i.get("summary", "") for _, i in sides_info),
                          {"beta": beta_json, "beta_exact": sp.sstr(beta) if isinstance(beta, sp.Basic) else beta,
                           "leading_coefficient": _num(sides_info[0][1].get("a")),
                           **({k_: v for k_, v in sides_info[0][1].items() if k_ in ("witness", "value")})})
        glob = _cap(_guarded("the global part ℓ'(s)/s <= 1", _inc, _ratio_global, L, lip, c_val, local,
                             beta_inf), ex) if local != REFUTED else Part(NA, "local part refuted", {})
        a2_parts = {"local": local_part.to_json(), "ratio_le_1_everywhere": glob.to_json()}
        verdict = weakest(local, glob.verdict)
        if not beta_inf and isinstance(beta, sp.Basic) and beta <= 1 and verdict != REFUTED:
            notes.append(f"the leading exponent of 1 − ℓ'(s)/s is {beta} <= 1, so (A2) holds for every β > 1 "
                         "(no smallest β; A2 as stated needs 1 < β)")
        A2 = {"verdict": verdict,
              "summary": ("β = ∞: ℓ'(s)/s = 1 near 0" if beta_inf else
                          f"β = {sp.sstr(beta)}, c = {sp.sstr(c_val) if c_val is not None else '?'}"
                          + ("" if beta > 1 else " (β <= 1 is outside the range 1 < β of (A2): it holds for "
                             "every β > 1 with a smaller c, never sharply, and no result is applied)")),
              "beta": beta_json, "c": None if c_val is None else _num(c_val),
              "c_exact": None if c_val is None else sp.sstr(c_val),
              "ratio_le_1_everywhere": glob.verdict, "strict": glob.data.get("strict"),
              "strict_verdict": glob.data.get("strict_verdict", glob.verdict if glob.verdict != PROVED else SUPPORTED),
              "parts": a2_parts}
        if beta_inf:
            A2["c_note"] = "β = ∞: (A2) is ℓ'(s)/s <= 1 alone; there is no constant c"
    # ---------------- A3
    if beta is None:
        A3 = ({"verdict": NA, "summary": "(A2) fails near 0; no β to test (A3) with", "C": None}
              if A2["verdict"] == REFUTED else {"verdict": INCONCLUSIVE, "summary": "β unknown", "C": None})
    elif beta == sp.oo:
        A3 = {"verdict": NA, "summary": "β = ∞: (A3) is not used", "C": None}
    elif A2["verdict"] == REFUTED and any(i.get("verdict") == REFUTED for _, i in sides_info):
        A3 = {"verdict": NA, "summary": "(A2) fails near 0; no β to test (A3) with", "C": None}
    else:
        for sd, info in sides_info:
            sd.a = info.get("a")
            sd.D = None
            if isinstance(beta, sp.Basic) and beta.is_Integer:
                try:
                    with clock.step(3.0):
                        sd.D = sp.diff(sd.u, T, int(beta) + 1) / sp.factorial(int(beta) + 1)
                except (BudgetExceeded, clock.OutOfTime):  # _a3 below reports the budget
                    sd.D = None

        class _SD:  # a light view so _a3 sees .side, .sign, .a, .D
            def __init__(self, sd):
                self.side, self.sign, self.a, self.D = sd, sd.sign, sd.a, sd.D

        sign_ok = even.verdict == PROVED and convex.verdict == PROVED
        part = _cap(_guarded("(A3)", _inc, _a3, L, beta if isinstance(beta, sp.Basic) else sp.nsimplify(beta),
                             [_SD(sd) for sd, _ in sides_info], sign_ok), ex)
        A3 = {"verdict": part.verdict, "summary": part.summary, **part.data}
    # with sup|ℓ'| > 1 (ℓ''(0) = 1) the rescaling is the one that carries the predictions, exactly as
    # for ℓ''(0) ≠ 1: ℓ itself fails (A1), its normalisation ℓ̃ may not
    adopt = resc_sub is not None and not _holds(a1_verdict)
    result = _finish(L, loss_info, A1, A2, A3, beta_json, confirm and not adopt, rescaling, notes, a1_verdict)
    if adopt:
        result = _adopt_rescaled(result, L, rescaling, resc_sub, resc_expr, confirm)
    return result


def _adopt_rescaled(result: AuditResult, L: _Exact, rescaling: dict, sub: Any, resc_expr: Any,
                    confirm: bool) -> AuditResult:
    """Predictions (and the confirmation run) read off the normalised loss ℓ̃ when its own audit
    establishes (A1) and (A2) and the rescaling is exact; otherwise ``result`` unchanged."""
    if sub is None or not rescaling["checked"]["ok"] or not (_holds(sub.A1["verdict"])
                                                            and _holds(sub.A2["verdict"])):
        if confirm and result.confirmation is None:
            result.confirmation = {"verdict": NA, "summary": "Theorem 2 needs (A1) and (A2), and the "
                                   "rescaled loss does not establish them either: not run"}
        return result
    result.predictions = _rescaled_predictions(sub, rescaling)
    if result.facts is not None and sub.facts is not None:
        facts = _replace(result.facts, normalised=sub.facts, rescale_a=sp.sympify(rescaling["a_exact"]),
                         rescale_b=sp.sympify(rescaling["b_exact"]))
        result.predictions["paper"] = _paper_predictions(facts)
    if confirm:
        conf = _guarded("the confirmation run", _conf_ran_out, _confirm_rescaled, L, resc_expr,
                        rescaling, sub)
        if conf is not None:
            conf["applies_to"] = (f"the rescaled loss {rescaling['rescaled']}; "
                                  f"{rescaling['gd_correspondence']}")
            result.confirmation = conf
    return result


def _finish(L, loss_info, A1, A2, A3, beta_json, confirm, rescaling, notes, a1_verdict) -> AuditResult:
    # ---------------- predictions / confirmation
    tags = {"A1": a1_verdict, "A2": A2["verdict"],
            "A2inf": A2["verdict"] if beta_json == "inf" else REFUTED,
            # (A2+) is a condition for β < ∞ only; for β = ∞ it is vacuous (spec def6.a2p)
            "A2+": (A2["verdict"] if beta_json == "inf" else
                    weakest(A2["verdict"], A2.get("strict_verdict") or INCONCLUSIVE)
                    if A2.get("strict") else REFUTED),
            "A3": A3["verdict"]}
    in_range = beta_json == "inf" or (beta_json is not None and float(beta_json) > 1)
    if beta_json is not None and not in_range:
        # the results are stated for 1 < β <= ∞ (A2) and 1 < β < ∞ (A3): a leading exponent β <= 1
        # gives (A2) for every β > 1 only with a non-sharp c, and (A3) for no β > 1
        tags["A2"] = tags["A2+"] = tags["A3"] = INCONCLUSIVE
        A2["beta_in_range"] = False
        A2["beta_range_note"] = (f"the leading exponent β = {beta_json} is outside (1, ∞]: the results "
                                 "of ahn2023 need 1 < β (and (A3) with the same β), so none is listed")
    predictions = _predictions(beta_json, tags)
    facts = _facts(L, A1, A2, A3)
    predictions["paper"] = _paper_predictions(facts)
    confirmation = None
    if confirm:
        if _holds(a1_verdict) and _holds(A2["verdict"]) and beta_json is not None and in_range:
            confirmation = _guarded("the confirmation run", _conf_ran_out, _confirm, L, beta_json)
        else:
            confirmation = {"verdict": NA, "summary": "Theorem 2 needs (A1) and (A2); "
                            + ("run it on the rescaled loss" if rescaling else "not run")}
    return AuditResult(loss_info, A1, A2, A3, predictions, confirmation, rescaling, notes, facts=facts)


def _paper_predictions(facts: AuditFacts) -> dict:
    """The papers' hooks (:mod:`.predictions`) within their share of the time budget."""
    def ran_out(reason: str) -> dict:
        return {"predicted": [], "not_covered": [{"paper": "", "claim": "(all papers)", "reason": reason}]}
    return _guarded("the papers' predictions", ran_out, paper_predictions, facts)


def _facts(L: _Exact, A1: dict, A2: dict, A3: dict) -> AuditFacts:
    """The audit's exact findings for the papers' ``audit_predictions`` hooks."""
    seen = getattr(L, "facts_seen", {})
    return AuditFacts(expression=L.text, derivative=L.derivative, l=L.l, dl=L.dl,
                      beta=seen.get("beta"), leading_coefficient=seen.get("leading_coefficient"),
                      ratio_near_0=seen.get("ratio_near_0"), curvature_at_0=seen.get("curvature_at_0"),
                      sup_slope=seen.get("sup_slope"),
                      verdicts={"A1": A1["verdict"], "A2": A2["verdict"], "A3": A3["verdict"],
                                "even": seen.get("even")})


MIN_CONFIRM_SECONDS = 6.0  # the GD run (numba compile + lanes) is not started with less left


def _conf_ran_out(reason: str) -> dict:
    return {"verdict": INCONCLUSIVE, "summary": reason}


def _confirm(L: _Exact, beta_json: Any) -> dict:
    if clock.remaining() < MIN_CONFIRM_SECONDS:
        return _conf_ran_out(f"not run: {clock.remaining():.1f} s of the time budget left, the run needs "
                             f"about {MIN_CONFIRM_SECONDS:g} s (--budget)")
    lossobj, why = _gd_loss(L)
    if lossobj is None:
        return {"verdict": INCONCLUSIVE, "summary": why}
    confirmation = _confirmation(lossobj, beta_json, 0)
    if why:
        confirmation["numerics_note"] = why
    return confirmation


def _confirm_rescaled(L: _Exact, resc_expr: Any, rescaling: dict, sub: AuditResult) -> dict | None:
    if clock.remaining() < MIN_CONFIRM_SECONDS:
        return _conf_ran_out(f"not run: {clock.remaining():.1f} s of the time budget left (--budget)")
    sub_exact = _Exact(resc_expr, L.derivative, rescaling["rescaled_expression"])
    lossobj, why = _gd_loss(sub_exact)
    if lossobj is None:
        return {"verdict": INCONCLUSIVE, "summary": why}
    return _confirmation(lossobj, sub.A2.get("beta"), 0)


def _rescaled_predictions(sub: AuditResult, rescaling: dict) -> dict:
    """Predictions for ℓ read off the audit of the normalised ℓ̃(s) = a·ℓ(b s).

    GD on ℓ(xy) with step η is GD on ℓ̃(uv) with step η̃ = η·L, (u, v) = (x, y)/√b (L = sup|ℓ'|).
    The sharpness of ℓ at (0, y) is ℓ''(0)·y² = L·ṽ², so 2/η − λ_max = L·(2/η̃ − ṽ_∞²): the gap
    exponent in η and the bouncing law are those of ℓ̃.
    """
    out = dict(sub.predictions)
    out["applies_to"] = (f"ℓ through its normalisation {rescaling['rescaled']}: "
                         f"{rescaling['gd_correspondence']}; the sharpness of ℓ, ℓ''(0)·y², has gap "
                         "2/η − ℓ''(0)·y_∞² = sup|ℓ'|·(2/η̃ − ỹ_∞²), so the exponents are those of the "
                         "rescaled loss")
    return out


def _rescaling(L: _Exact, k: sp.Expr, sup: sp.Expr, recurse: bool) -> dict:
    """ℓ̃(s) = a·ℓ(b s) with b = L/k, a = k/L² (L = sup|ℓ'|, k = ℓ''(0)).

    ℓ̃''(0) = a b² k = 1 and sup|ℓ̃'| = a b L = 1; evenness and convexity are kept (a, b > 0).
    Any b >= L/k keeps |ℓ̃'| <= 1; b = L/k is the one whose slope tends to exactly 1 like the
    paper's losses. GD on ℓ(xy) with step η is GD on ℓ̃(uv) with step η·L, (u, v) = (x, y)/√b.
    """
    b = _simplify(sup / k)
    a = _simplify(k / sup**2)
    if L.derivative:
        new = _simplify(a * b * L.dl.subs(S, b * S))
        shown = f"ℓ̃'(s) = {sp.sstr(a * b)}·ℓ'({sp.sstr(b)}·s) = {sp.sstr(new)}"
    else:
        new = _simplify(a * L.l.subs(S, b * S))
        shown = f"ℓ̃(s) = {sp.sstr(a)}·ℓ({sp.sstr(b)}·s) = {sp.sstr(new)}"
    # exact, from a and b (a limit of a Piecewise often defeats sympy): ℓ̃''(0) = a b² k, sup|ℓ̃'| = a b L
    k_new = _simplify(a * b**2 * k)
    sup_new = _simplify(a * b * sup)
    out = {"a": _num(a), "b": _num(b), "a_exact": sp.sstr(a), "b_exact": sp.sstr(b),
           "rescaled": shown, "rescaled_expression": sp.sstr(new), "rescaled_is_derivative": L.derivative,
           "summary": (f"ℓ̃(s) = a·ℓ(b·s) with b = sup|ℓ'|/ℓ''(0) = {sp.sstr(b)}, a = ℓ''(0)/sup|ℓ'|² = "
                       f"{sp.sstr(a)}: ℓ̃''(0) = a·b²·ℓ''(0) = {sp.sstr(k_new)}, sup|ℓ̃'| = a·b·sup|ℓ'| = "
                       f"{sp.sstr(sup_new)}"),
           "derivation": ("ℓ̃''(0) = a b² ℓ''(0) must be 1 and sup|ℓ̃'| = a b sup|ℓ'| must be <= 1, so "
                          "b >= sup|ℓ'|/ℓ''(0); the smallest b makes the slope tend to exactly 1. "
                          "The value-preserving ℓ(s/√k) (a = 1) is 1-Lipschitz only when sup|ℓ'| <= √k"),
           "gd_correspondence": (f"GD on ℓ(xy) with step η equals GD on ℓ̃(uv) with step η·{sp.sstr(sup)} "
                                 f"under (u, v) = (x, y)/√({sp.sstr(b)})"),
           "checked": {"curvature_at_0": sp.sstr(k_new), "sup_slope": sp.sstr(sup_new),
                       "ok": bool(k_new == 1 and sup_new == 1)}}
    if recurse:
        try:
            sub = _audit_exact(_Exact(new, L.derivative, sp.sstr(new)), False, 0, False)
            out["audit_of_rescaled"] = (f"A1 {sub.A1['verdict']}, A2 {sub.A2['verdict']} "
                                        f"(β = {sub.A2.get('beta')}), A3 {sub.A3['verdict']}")
            out["rescaled_beta"] = sub.A2.get("beta")
            lip = sub.A1.get("parts", {}).get("lipschitz_1", {})
            cur = sub.A1.get("parts", {}).get("curvature_at_0_is_1", {})
            out["checked"]["by_audit_of_rescaled"] = {"curvature_at_0_is_1": cur.get("verdict"),
                                                      "lipschitz_1": lip.get("verdict")}
            out["rescaled_verdicts"] = {"A1": sub.A1["verdict"], "A2": sub.A2["verdict"],
                                        "A3": sub.A3["verdict"]}
            out["_sub"] = sub  # private: used by the caller, removed before output
            out["_expr"] = new
        except Exception as exc:  # pragma: no cover - defensive
            out["audit_of_rescaled"] = f"could not audit: {exc}"
    return out
