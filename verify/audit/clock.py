"""The audit's overall time budget: one deadline for the whole audit, never a hang.

``with overall(seconds):`` starts the clock. Every step asks :func:`step_seconds` for its own sympy /
interval budget (never beyond the deadline) and loops call :func:`check`. On the main thread a
``SIGALRM`` at the deadline interrupts a step that does not return (a sympy call deep inside
``solveset``): :class:`OutOfTime` is a ``BaseException`` so that the ``except Exception`` around
sympy steps does not swallow it; the audit catches it where a part is computed and reports that
part ``inconclusive``, saying what ran out. :func:`verify.symbolic.time_budget` nests inside this
alarm (an inner budget never extends it).
"""
from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from typing import Iterator

DEFAULT_SECONDS = 25.0   # overall budget of one audit (confirmation run included); --budget changes it


class OutOfTime(BaseException):
    """The audit's overall time budget ran out (``what`` says during which step)."""


_STATE: dict = {"deadline": None, "seconds": None, "ran_out": [], "depth": 0}


@contextmanager
def overall(seconds: float | None) -> Iterator[None]:
    """Run the block under one deadline ``seconds`` from now (None: no budget)."""
    saved = dict(_STATE, ran_out=list(_STATE["ran_out"]))
    _STATE.update(deadline=None if seconds is None else time.monotonic() + seconds,
                  seconds=seconds, ran_out=[], depth=0)
    main = threading.current_thread() is threading.main_thread()
    previous = None
    if seconds is not None and main:
        def on_alarm(signum, frame):  # pragma: no cover - timing dependent
            # keep reminding while past the deadline (a library's bare `except:` may swallow one
            # interrupt), but interrupt only inside an interruptible() block: outside, the
            # audit is assembling its result and the next step refuses to start anyway
            signal.setitimer(signal.ITIMER_REAL, 0.2)
            if _STATE["depth"] > 0:
                raise OutOfTime("the overall time budget")
        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3))
    try:
        yield
    finally:
        if seconds is not None and main:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        _STATE.update(saved)


@contextmanager
def interruptible() -> Iterator[None]:
    """A block the deadline may interrupt with :class:`OutOfTime` (caught right outside it)."""
    _STATE["depth"] += 1
    try:
        yield
    finally:
        _STATE["depth"] -= 1


@contextmanager
def share(fraction: float | None) -> Iterator[None]:
    """A part's own deadline: ``fraction`` of the overall budget from now (never beyond the overall
    deadline), so that one slow part cannot starve the others."""
    outer = _STATE["deadline"]
    if fraction is None or outer is None:
        yield
        return
    mine = min(outer, time.monotonic() + fraction * _STATE["seconds"])
    _STATE["deadline"] = mine
    main = threading.current_thread() is threading.main_thread()
    if main:
        signal.setitimer(signal.ITIMER_REAL, max(mine - time.monotonic(), 1e-3))
    try:
        yield
    finally:
        _STATE["deadline"] = outer
        if main:
            signal.setitimer(signal.ITIMER_REAL, max(outer - time.monotonic(), 1e-3))


def seconds() -> float | None:
    return _STATE["seconds"]


def remaining() -> float:
    d = _STATE["deadline"]
    return float("inf") if d is None else d - time.monotonic()


def expired() -> bool:
    return remaining() <= 0


def check(what: str) -> None:
    """Raise :class:`OutOfTime` once the deadline has passed (cheap: call it in loops)."""
    if expired():
        raise OutOfTime(what)


@contextmanager
def step(seconds: float) -> Iterator[None]:
    """A sympy / interval step with its own budget (``BudgetExceeded`` when it runs out), never
    beyond the deadline; refuses to start (``OutOfTime``) once the deadline has passed."""
    from ..symbolic import time_budget
    check("a sympy step")
    with time_budget(step_seconds(seconds), clock="wall"):  # the user's --budget is wall time
        yield


def step_seconds(wanted: float) -> float:
    """A step's own budget, cut to what is left of the overall one (at least 10 ms)."""
    return max(min(wanted, remaining()), 0.01)


def ran_out(what: str) -> str:
    """Record that ``what`` was cut short by the deadline; returns the sentence for the part."""
    _STATE["ran_out"].append(what)
    return (f"the audit's time budget ({_STATE['seconds']:g} s, --budget) ran out during {what} "
            "(each part has a share of it)"
            if _STATE["seconds"] is not None else f"{what} was interrupted")


def ran_out_list() -> list[str]:
    return list(_STATE["ran_out"])
