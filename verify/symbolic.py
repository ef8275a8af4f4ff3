"""Exact symbolic checks (sympy), three-valued and time-budgeted.

sympy answers ``True``, ``False`` or "don't know" (``None`` / an unevaluated relation); the last is
always ``inconclusive`` here, never false. A claimed identity that sympy cannot simplify to zero is
refuted only by a numeric witness evaluated at 50 digits, so a refutation is always backed by a point.
"""
from __future__ import annotations

import contextlib
import random
import signal
import threading
import time
from typing import Any, Callable, Iterable

import mpmath
import sympy as sp

from .claim import Check, Context, Evidence, Status, all_checks, outcome

Buildable = Any  # a sympy object, or a zero-argument callable returning one (built lazily)


class BudgetExceeded(BaseException):
    """Raised by the alarm; a BaseException so that ``except Exception`` inside sympy-calling loops
    cannot swallow it and keep simplifying past the budget."""


# The budget's clock. Catalogue checks count the process's CPU time (ITIMER_PROF): a verdict must
# not depend on how loaded the machine is (the same seed gives the same report), and CPU seconds
# only depend on the machine's speed, which the budgets leave a wide margin for. The audit's
# user-facing ``--budget`` is wall-clock time (what the user waits for): ``clock="wall"``.
_TIMERS = {"cpu": (signal.ITIMER_PROF, signal.SIGPROF, time.process_time),
           "wall": (signal.ITIMER_REAL, signal.SIGALRM, time.monotonic)}


@contextlib.contextmanager
def time_budget(seconds: float, *, clock: str = "cpu"):
    """Raise :class:`BudgetExceeded` after ``seconds`` of ``clock`` ("cpu": this process's CPU
    time; "wall": elapsed time) — main thread only; elsewhere unbounded.

    Budgets on the same clock nest: an inner budget never extends an outer one, and on exit the
    outer budget's remaining time is restored. Budgets on different clocks run independently.
    """
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    timer, signum, now = _TIMERS[clock]

    def on_alarm(signum, frame):  # pragma: no cover - timing dependent
        raise BudgetExceeded(f"sympy gave up after the {seconds:g} s {'CPU ' if clock == 'cpu' else ''}budget")

    outer_remaining, _ = signal.getitimer(timer)
    started = now()
    previous = signal.signal(signum, on_alarm)
    if outer_remaining > 0 and outer_remaining <= seconds:
        signal.signal(signum, previous)  # the outer budget ends first: let it fire
    else:
        signal.setitimer(timer, seconds)
    try:
        yield
    finally:
        signal.setitimer(timer, 0)
        signal.signal(signum, previous)
        if outer_remaining > 0:
            left = outer_remaining - (now() - started)
            signal.setitimer(timer, max(left, 1e-3))


def written_as(x: Buildable, limit: int = 120) -> str:
    """The expression as the claim wrote it: a lambda's source text (its body, located through
    the code object's column positions), else sympy's string form. Used so that evidence says
    *which* two expressions an identity compared, not just what they evaluated to."""
    if callable(x) and not isinstance(x, sp.Basic):
        text = _lambda_body(x)
        if text is None:
            text = getattr(x, "__name__", "expression") + "()"
    else:
        text = sp.sstr(sp.sympify(x))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _lambda_body(fn: Callable) -> str | None:
    import inspect
    code = getattr(fn, "__code__", None)
    if code is None or fn.__name__ != "<lambda>":
        return None
    try:
        lines, first = inspect.findsource(code)
    except (OSError, TypeError):
        return None
    import dis
    spans = [(ins.positions.lineno, ins.positions.end_lineno, ins.positions.col_offset,
              ins.positions.end_col_offset) for ins in dis.get_instructions(code)
             if ins.opname not in ("RESUME", "RETURN_VALUE", "RETURN_CONST") and ins.positions]
    spans = [sp_ for sp_ in spans if None not in sp_ and sp_[0] >= code.co_firstlineno]
    if not spans:
        return None
    start = min((l0, c0) for l0, _, c0, _ in spans)
    end = max((l1, c1) for _, l1, _, c1 in spans)
    if start[0] == end[0]:
        return lines[start[0] - 1][start[1]:end[1]]
    middle = lines[start[0]:end[0] - 1]
    return "".join([lines[start[0] - 1][start[1]:], *middle, lines[end[0] - 1][:end[1]]])


def _build(x: Buildable) -> Any:
    return x() if callable(x) and not isinstance(x, sp.Basic) else sp.sympify(x)


def _is_root(node: sp.Basic) -> bool:
    return (isinstance(node, sp.Pow) and node.exp.is_Rational and not node.exp.is_integer)


def _factor_under_roots(expr: sp.Expr) -> sp.Expr:
    """√(x³ + 2x² + x) → √(x(x + 1)²), which sympy then splits as (x + 1)√x when x + 1 ≥ 0."""
    return expr.replace(_is_root, lambda p: sp.Pow(sp.factor(p.base), p.exp))


def _squares_differ(expr: sp.Expr) -> sp.Expr | None:
    """For expr = P − N with P and N sums of terms sympy knows to be non-negative (so P ≥ 0 and
    N ≥ 0), expr = 0 ⇔ P² − N² = 0; returns P² − N² (expanded), or None when the signs are
    unknown or no root would disappear."""
    if not expr.atoms(sp.Pow) or not any(_is_root(a) for a in expr.atoms(sp.Pow)):
        return None
    pos, neg = [], []
    for term in sp.Add.make_args(sp.expand(expr)):
        coeff, _ = term.as_coeff_Mul()
        (neg if coeff.is_negative else pos).append(term if not coeff.is_negative else -term)
    P, N = sp.Add(*pos), sp.Add(*neg)
    if not (pos and neg) or P.is_nonnegative is not True or N.is_nonnegative is not True:
        return None
    return sp.expand(P**2 - N**2)


def is_zero(expr: sp.Expr, seconds: float = 20.0, _depth: int = 2) -> bool | None:
    """Three-valued zero test: True (proved zero), False (proved nonzero), None (unknown).

    Square roots: radicands are factored (so √((x + y)²) becomes x + y for x, y ≥ 0), and an
    identity P = N between sums of terms known to be non-negative is decided on P² = N²
    (equivalent for P, N ≥ 0), up to two squarings.
    """
    with time_budget(seconds):
        expr = sp.sympify(expr)
        if expr.is_zero is not None:
            return expr.is_zero
        for simp in (sp.expand, sp.cancel, sp.together, sp.simplify):
            try:
                e = simp(expr)
            except Exception:
                continue
            if e == 0:
                return True
            if e.is_zero is not None:
                return e.is_zero
        # rewrite hyperbolic / trig into exponentials: many identities close there
        try:
            e = sp.simplify(expr.rewrite(sp.exp))
            if e == 0:
                return True
        except Exception:
            pass
        if any(_is_root(a) for a in expr.atoms(sp.Pow)):
            try:
                e = sp.simplify(_factor_under_roots(expr))
                if e == 0:
                    return True
                if e.is_zero is not None:
                    return e.is_zero
                squared = _squares_differ(e) if _depth > 0 else None
            except Exception:
                squared = None
            if squared is not None:
                return is_zero(squared, seconds, _depth - 1)
    return None


def _unknown_function_jets(expr: sp.Expr) -> list[sp.Expr]:
    """Outermost occurrences of unspecified functions and their derivatives (f(a), f'(a) via Subs)."""
    jets: list[sp.Expr] = []

    def walk(node: sp.Basic) -> None:
        if isinstance(node, (sp.Subs, sp.Derivative)) and node.atoms(sp.core.function.AppliedUndef):
            jets.append(node)
            return
        if isinstance(node, sp.core.function.AppliedUndef):
            jets.append(node)
            return
        for arg in node.args:
            walk(arg)

    walk(expr)
    return list(dict.fromkeys(jets))


def _jet_key(jet: sp.Expr, point: dict) -> tuple:
    """Identify a jet by its shape and the numeric point where it is evaluated."""
    if isinstance(jet, sp.Subs):
        shape, where = sp.srepr(jet.expr), jet.point
    elif isinstance(jet, sp.Derivative):
        shape, where = sp.srepr(jet.expr.func) + str(jet.variable_count), jet.expr.args
    else:
        shape, where = jet.func.__name__, jet.args
    values = tuple(sp.N(sp.sympify(w).subs(point), 30) for w in where)
    return shape, tuple(str(v) for v in values)


def numeric_witness(expr: sp.Expr, seed: int, points: int = 12, dps: int = 50,
                    domain: dict | None = None) -> tuple[dict, float] | None:
    """Look for a point where ``expr`` is clearly nonzero; returns (point, |value|) or None.

    ``domain`` maps a symbol name to (lo, hi); defaults respect sympy assumptions (positive ->
    (0.1, 3)). Points are rationals so that the evaluation is exact up to ``dps`` digits. An
    unspecified function (``sp.Function('f')``) gets an independent random value for each distinct
    (derivative order, numeric argument): a statement "for every f" fails if it fails for some
    choice of finitely many jets, since a smooth f realises any such choice.
    """
    expr = sp.sympify(expr)
    jets = _unknown_function_jets(expr)
    free = sorted(expr.free_symbols, key=lambda s: s.name)
    rnd = random.Random(seed)

    def draw(lo, hi):
        return sp.Rational(rnd.randint(1, 997), 997) * sp.Rational(hi - lo).limit_denominator(10**6) \
            + sp.Rational(lo).limit_denominator(10**6)

    best = None
    for _ in range(points):
        point = {}
        for s in free:
            lo, hi = (domain or {}).get(s.name, (0.1, 3.0) if s.is_positive or s.is_nonnegative
                                        else (-3.0, 3.0))
            point[s] = draw(lo, hi)
        try:
            jet_values: dict = {}
            replace = {}
            for jet in jets:
                key = _jet_key(jet, point)
                replace[jet] = jet_values.setdefault(key, draw(-3.0, 3.0))
            with mpmath.workdps(dps):
                value = sp.N(expr.xreplace(replace).subs(point), dps)
        except Exception:
            continue
        if not value.is_number or value.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
            continue
        mag = abs(complex(value))
        if mag > 10.0 ** (-(dps // 2)):
            if best is None or mag > best[1]:
                shown = {s.name: str(v) for s, v in point.items()}
                shown.update({sp.sstr(j): str(v) for j, v in replace.items()})
                best = (shown, mag)
    return best


def identity(name: str, lhs: Buildable, rhs: Buildable = 0, *, seconds: float = 20.0,
             domain: dict | None = None, why: str = "") -> Check:
    """``lhs == rhs`` as an exact identity: proved by simplification, refuted by a numeric witness."""

    def run(ctx: Context) -> Evidence:
        left, right = _build(lhs), _build(rhs)
        if isinstance(left, sp.MatrixBase) or isinstance(right, sp.MatrixBase):
            matrix = sp.Matrix(left) - sp.Matrix(right)
            # the entrywise sum of squares vanishes iff every entry does (real entries)
            diff = sum((e**2 for e in matrix), sp.Integer(0))
        else:
            diff = sp.sympify(left) - sp.sympify(right)
        shown = f"`{written_as(lhs)}` == `{written_as(rhs)}`"
        value = f"`{sp.sstr(left)[:80]}` == `{sp.sstr(right)[:80]}`"
        if value.replace(" ", "") != shown.replace(" ", ""):
            shown += f" (evaluated: {value})"
        try:
            verdict = is_zero(diff, seconds)
        except BudgetExceeded as exc:
            verdict = None
            shown += f" ({exc})"
        if verdict is True:
            return outcome(Status.PROVED, f"exact identity (sympy): {shown}{'; ' + why if why else ''}",
                           method="sympy simplify", why=why, lhs=written_as(lhs, 400),
                           rhs=written_as(rhs, 400))
        witness = numeric_witness(diff, ctx.seed, domain=domain)
        if witness is not None:
            point, mag = witness
            return outcome(Status.REFUTED, f"identity fails at {point}: |lhs - rhs| = {mag:.3e}",
                           witness=point, residual=mag, dps=50)
        if verdict is False:
            return outcome(Status.REFUTED, f"sympy shows lhs - rhs is nonzero: {shown}",
                           difference=sp.sstr(sp.simplify(diff))[:200])
        return outcome(Status.INCONCLUSIVE,
                       f"sympy could not decide {shown}; no numeric witness either "
                       f"(raise `seconds` or restate the identity)", method="sympy simplify")

    return Check(name, run, "SYM")


def truth(name: str, statement: Buildable, *, seconds: float = 20.0, why: str = "") -> Check:
    """A closed sympy statement (relational, boolean, or ``bool``): True proved, False refuted,
    anything sympy leaves undecided is inconclusive."""

    def run(ctx: Context) -> Evidence:
        try:
            with time_budget(seconds):
                value = _build(statement)
                if isinstance(value, sp.Basic) and not isinstance(value, sp.logic.boolalg.BooleanAtom):
                    value = sp.simplify(value)
        except BudgetExceeded as exc:
            return outcome(Status.INCONCLUSIVE, str(exc))
        text = sp.sstr(value)[:200]
        if value is True or value == sp.true:
            return outcome(Status.PROVED, f"sympy decides the statement true{': ' + why if why else ''}",
                           method="sympy")
        if value is False or value == sp.false:
            return outcome(Status.REFUTED, f"sympy decides the statement false{': ' + why if why else ''}",
                           method="sympy")
        return outcome(Status.INCONCLUSIVE, f"sympy left the statement undecided: {text}")

    return Check(name, run, "SYM")


def exact_rational(name: str, compute: Callable[[], Any], *, why: str = "") -> Check:
    """A statement decided by exact rational arithmetic: ``compute()`` returns (bool, data dict)."""

    def run(ctx: Context) -> Evidence:
        ok, data = compute()
        status = Status.PROVED if ok else Status.REFUTED
        return outcome(status, (why or name) + (" holds exactly" if ok else " fails exactly"), **data)

    return Check(name, run, "SYM")


def all_of(name: str, checks: Iterable[Check]) -> Check:
    """One check made of several symbolic sub-checks; the weakest status wins (see
    :func:`verify.claim.all_checks`)."""
    return all_checks(name, tuple(checks), "SYM")
