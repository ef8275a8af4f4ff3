""""Some |e_j| = c" decided from the running max_j |e_j| of the same block (:mod:`.coordloop`).

A PerCoordinate block before the vector loop that declares both

    Reduce(m, m₀, MaxOf(m, Abs(e)))          the running max of |e_j| (Python's max: a NaN |e_j| is skipped)
    Reduce(h, h₀, h | Eq(Abs(e), c))         some |e_j| = c, for a number c > 0

(the diagonal network's max_j |s_j| and "some s_j = ±1", even2023) needs the second only at slots whose
max reaches c: the engine prints it out of the loop over j and the slots, as a pass over the slots that
searches coordinates j only where ``not m < c``, and leaves h = h₀ elsewhere. The same value at every
slot: if |e_j| = c at some j, then m ≥ c at the end, because max(m, |e_j|) is |e_j| when |e_j| > m and
m otherwise — so m ≥ |e_j| after coordinate j and never decreases after (a NaN m, only from a NaN m₀,
stays NaN, and ``not NaN < c`` searches too). A comparison per coordinate and slot is saved at the
slots far from c (the diagonal network's SGD: every slot but those about to hit s_j = ±1).

e must be stored in a per-coordinate row (the search reads it after the loop).
"""
from __future__ import annotations

import sympy as sp

from .stepitems import MaxOf, Reduce, State, reads


def max_decided(items, rows: dict, params=()) -> dict:
    """``{h: (m, e, c)}`` for the boolean Reduces h of ``items`` of the form ``h | Eq(Abs(e), c)`` (c > 0 a
    number) that no other item of ``items`` reads (it has no running value in the loop), beside a Reduce
    m of ``items`` of the form ``MaxOf(m, Abs(e))``, e in ``rows`` (stored per coordinate), not a State
    of ``items`` and not one of the parameters ``params`` (either of which the step may have advanced
    by the time of the search)."""
    maxima = {}
    for i in items:
        if isinstance(i, Reduce) and isinstance(i.next, MaxOf) and i.next.args[0] == i.name \
                and isinstance(i.next.args[1], sp.Abs):
            maxima.setdefault(i.next.args[1].args[0], i.name)
    states = {i.name for i in items if isinstance(i, State)}
    out = {}
    for i in items:
        if not (isinstance(i, Reduce) and isinstance(i.next, sp.Or) and len(i.next.args) == 2
                and i.name in i.next.args):
            continue
        (test,) = [a for a in i.next.args if a != i.name]
        if not isinstance(test, sp.Eq):
            continue
        sides = test.args if isinstance(test.args[0], sp.Abs) else test.args[::-1]
        if not isinstance(sides[0], sp.Abs) or not (sides[1].is_Number and sides[1] > 0):
            continue
        e = sides[0].args[0]
        read = reads(tuple(other for other in items if other is not i))
        if e in maxima and e in rows and e not in states and e not in params and i.name not in read:
            out[i.name] = (maxima[e], e, sides[1])
    return out


def search_pass(row: str, max_value: str, c: str, found: str) -> list[str]:
    """The pass over the slots setting ``row`` (an integer row, its initial value set) where some
    coordinate has ``found`` (printed at ``j``) and the max ``max_value`` is not below ``c``
    (relative indent)."""
    return ["for b in range(w):  # some |e_j| = c needs max_j |e_j| >= c (.coordmatch)",
            f"    if not {max_value} < {c}:",
            "        for j in range(d):",
            f"            if {found}:",
            f"                {row} = 1",
            "                break"]
