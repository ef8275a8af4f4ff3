"""Inequalities and properties over hypothesis-generated inputs, with shrunk witnesses.

``forall`` asks hypothesis to *find* an input that violates the property. None found within the
budget gives ``supported`` (with the number of inputs tried); a violation gives ``refuted`` with the
shrunk witness; inputs that fail the claim's own hypotheses (a strategy bug) or a property that
cannot decide (returns ``None``) give ``inconclusive``.

The property contract (``prop(x)`` or ``prop(x, ctx)``):

* it receives the generated input, and the check's :class:`~verify.Context` when it takes a
  second positional parameter or one named ``ctx`` (so step counts can follow ``ctx.pick``);
* it returns ``True`` (holds), ``False`` (violated), ``None`` (cannot decide: inconclusive unless
  a violation is found elsewhere), :data:`SKIP` (input outside the statement's scope: counted,
  never a pass), or ``(verdict, numbers)`` with ``numbers`` a dict;
* numbers returned with a violation are recorded beside the shrunk witness; numbers returned by
  inputs that held are summarised per key as ``<key>_min`` and ``<key>_max`` over those inputs
  (real numbers only), e.g. the smallest slack seen.

Determinism (reports are byte-identical for a seed): the search is seeded from the check's derived
seed (a seed overrides ``derandomize``, which is set too so that nothing falls back to system
randomness), with no example database, no deadline, every health check suppressed, and no explicit,
reuse or target phase. Hypothesis (>= 6.131) also mixes numeric literals found in the source of every
*local* module loaded so far into its draws; that pool depends on the install mode, the clone's path
and what happens to be imported, so it is switched off for the duration of a search
(:func:`_without_local_constants`). Left time-dependent: hypothesis stops shrinking after 300 s,
which only matters for a counterexample whose shrinking takes that long.
"""
from __future__ import annotations

import contextlib
import inspect
import math
import random
import threading
from typing import Any, Callable, Iterator

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample, Unsatisfiable

from .claim import Check, Context, Evidence, Status, outcome

_LOCAL_CONSTANTS_LOCK = threading.Lock()
_local_constants_users = 0
_saved_local_constants: Any = None


@contextlib.contextmanager
def _without_local_constants() -> Iterator[None]:
    """Hypothesis draws from a pool of constants harvested from local source files; make that pool
    empty while a search runs (reference-counted, so concurrent searches in threads are safe).

    This patches a private hypothesis function; if a hypothesis release renames it, the patch is
    skipped (determinism then depends on the source tree, as in that release)."""
    global _local_constants_users, _saved_local_constants
    try:
        from hypothesis.internal.conjecture import providers
        from hypothesis.internal.constants_ast import Constants
    except ImportError:  # pragma: no cover - other hypothesis layout
        yield
        return
    if not hasattr(providers, "_get_local_constants"):  # pragma: no cover
        yield
        return
    with _LOCAL_CONSTANTS_LOCK:
        if _local_constants_users == 0:
            _saved_local_constants = providers._get_local_constants
            providers._get_local_constants = Constants
        _local_constants_users += 1
    providers.CONSTANTS_CACHE.cache.clear()  # thread-local: pools computed before the patch
    try:
        yield
    finally:
        providers.CONSTANTS_CACHE.cache.clear()
        with _LOCAL_CONSTANTS_LOCK:
            _local_constants_users -= 1
            if _local_constants_users == 0:
                providers._get_local_constants = _saved_local_constants


def search_settings(max_examples: int) -> settings:
    """The one hypothesis configuration every search uses (see the module docstring)."""
    return settings(max_examples=max_examples, database=None, deadline=None, derandomize=True,
                    phases=(Phase.generate, Phase.shrink), suppress_health_check=list(HealthCheck),
                    report_multiple_bugs=False, print_blob=False)


Property = Callable[..., Any]  # prop(x) or prop(x, ctx) -> bool | None | SKIP | (verdict, dict)


class _Skip:
    """Returned by a property when the input lies outside the statement's scope (e.g. a run that
    did not converge, for a statement about limits). Counted and reported, never a pass."""

    def __repr__(self) -> str:
        return "SKIP"


SKIP = _Skip()


def _split(result: Any) -> tuple[bool | None, dict]:
    if isinstance(result, tuple):
        return result[0], dict(result[1])
    return result, {}


def _with_context(prop: Property) -> Callable[[Any, Context], Any]:
    """``prop(x, ctx)`` when the property takes the context (second required positional parameter,
    or one named ``ctx``), else ``prop(x)``."""
    try:
        params = list(inspect.signature(prop).parameters.values())
    except (TypeError, ValueError):
        return lambda x, ctx: prop(x)
    if any(p.name == "ctx" for p in params):
        return lambda x, ctx: prop(x, ctx=ctx)
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                  and p.default is p.empty]
    if len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in params):
        return lambda x, ctx: prop(x, ctx)
    return lambda x, ctx: prop(x)


def _summarise(seen: dict[str, list[float]], numbers: dict) -> None:
    for key, value in numbers.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = float(value)
            if math.isfinite(value):
                lo_hi = seen.setdefault(str(key), [value, value])
                lo_hi[0], lo_hi[1] = min(lo_hi[0], value), max(lo_hi[1], value)


def _show(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _show(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_show(v) for v in x]
    if isinstance(x, float):  # includes numpy floats, whose repr is not a float literal
        return float(x) if x == x else str(x)
    if isinstance(x, (int, str, bool)) or x is None:
        return x
    return str(x)


def forall(name: str, strategy: st.SearchStrategy, prop: Property, *,
           hypothesis: Callable[[Any], bool] | None = None,
           examples: tuple[int, int] = (200, 2000), kind: str = "INT",
           describe: str = "") -> Check:
    """``prop(x)`` for every ``x`` drawn from ``strategy`` (which must satisfy ``hypothesis``).

    ``examples`` is the (quick, full) budget of generated inputs.
    """

    call = _with_context(prop)

    def run(ctx: Context) -> Evidence:
        n_examples = ctx.pick(*examples)
        tried = {"n": 0, "undecided": 0, "bad_input": 0, "skipped": 0}
        held: dict[str, list[float]] = {}
        first_bad: list[Any] = []
        first_undecided: list[Any] = []

        def violates(x: Any) -> bool:
            tried["n"] += 1
            if hypothesis is not None and not hypothesis(x):
                tried["bad_input"] += 1
                if not first_bad:
                    first_bad.append(x)
                return False
            ok, numbers = _split(call(x, ctx))
            if ok is SKIP:
                tried["skipped"] += 1
                return False
            if ok is None:
                tried["undecided"] += 1
                if not first_undecided:
                    first_undecided.append(x)
                return False
            if ok:
                _summarise(held, numbers)
            return not ok

        label = describe or name
        try:
            with _without_local_constants():
                witness = find(strategy, violates, settings=search_settings(n_examples),
                               random=random.Random(ctx.seed))
        except (NoSuchExample, Unsatisfiable):
            witness = None
        data = {"examples": tried["n"], "skipped": tried["skipped"], "seed": ctx.seed,
                "budget": ctx.budget}
        if witness is not None:
            ok, detail = _split(call(witness, ctx))
            return outcome(Status.REFUTED, f"counterexample (shrunk): {_show(witness)}",
                           witness=_show(witness), **data, **{k: _show(v) for k, v in detail.items()})
        if tried["bad_input"]:
            return outcome(Status.INCONCLUSIVE,
                           f"{tried['bad_input']} generated inputs violate the claim's hypotheses "
                           f"(first: {_show(first_bad[0])}); fix the strategy", **data)
        if tried["undecided"]:
            return outcome(Status.INCONCLUSIVE,
                           f"{tried['undecided']} of {tried['n']} inputs could not be decided "
                           f"(first: {_show(first_undecided[0])}); raise the precision", **data)
        applicable = tried["n"] - tried["skipped"]
        if applicable == 0:
            return outcome(Status.INCONCLUSIVE, f"{label}: none of the {tried['n']} generated inputs was "
                           "in the statement's scope (all skipped); fix the strategy", **data)
        skipped = f" ({tried['skipped']} skipped as out of scope)" if tried["skipped"] else ""
        summary = {f"{k}_{side}": v[j] for k, v in held.items() for j, side in enumerate(("min", "max"))
                   if f"{k}_{side}" not in data}
        return outcome(Status.SUPPORTED, f"{label}: no counterexample in {applicable} generated inputs"
                       f"{skipped}", **data, **summary)

    return Check(name, run, kind)


def witness(name: str, point: Any, prop: Property, *, kind: str = "INT", exact: bool = False) -> Check:
    """A property evaluated at one explicit point (typically an erratum's witness); the property
    follows the contract of :func:`forall` (it may take the context).

    With ``exact=True`` (the evaluation is exact or rigorous) a pass is ``proved``; otherwise a pass
    at a single point is only ``supported``. A failure is ``refuted`` with the point as witness.
    """

    call = _with_context(prop)

    def run(ctx: Context) -> Evidence:
        ok, data = _split(call(point, ctx))
        if ok is None:
            return outcome(Status.INCONCLUSIVE, f"could not decide at {_show(point)}", **data)
        if not ok:
            return outcome(Status.REFUTED, f"fails at the witness {_show(point)}",
                           witness=_show(point), **data)
        return outcome(Status.PROVED if exact else Status.SUPPORTED, f"holds at {_show(point)}",
                       point=_show(point), **data)

    return Check(name, run, kind)
