"""Series whose tail a step skips when it cannot change the sums: the number of terms chosen per step
from a scalar bound (:class:`TruncatedSeries`, an item of a :class:`~.stepitems.PerCoordinate` block
after the vector loop, :mod:`.coordloop`).

A declaration sums a series term by term in named partial sums, ``S_1 = a_1``, ``S_t = S_{t−1} + a_t``
(:class:`~.stepitems.Let`), up to a fixed K — the number of terms its worst case needs. Most steps need
fewer: when every coordinate's terms shrink geometrically at a ratio r known per step, the terms past
the first few cannot move the sums' bits. :class:`TruncatedSeries` names the partial sums and r; the
engine then prints the coordinate loop once per term count in ``counts`` (and once with all K terms),
and each step runs the shortest one that holds every term the sums can feel, the partial sums past
it taken as they are (the dead terms' arithmetic is dropped by the compiler).

Why the sums keep their bits (the declaration's contract, which the engine cannot check): at every
coordinate, all terms a_t of a sum have one sign and |a_t| ≤ r^{t−1}|a_1| (a power series in x with
|x| ≤ r and coefficients of non-increasing magnitude, say; the computed terms obey it up to a few
roundings each), and a NaN among the terms makes a_1 NaN (a power series in a NaN x). The engine
takes T, the least count with r^T < 2^−56 (r^T computed by repeated products, all K when none is, or
when r is NaN or infinite), then the least of ``counts`` at or above T, else K. Skipping a term t > T:
|a_t| ≤ r^{t−1}|a_1| < 2^−56|a_1| ≤ 2^−56|S_{t−1}| (the terms have one sign, so |S| grows with t, and
rounding is monotone), and 2^−56|S| is below an eighth of ulp(S), which leaves room for the roundings
of the computed terms and of r^T; a term below half an ulp of S, of S's sign, rounds S + a_t back to
S, and every later term is smaller still, so the sum after K terms is S_T. A term that underflows is
within a few 2^−1075 of its bound, still below half an ulp of S (a computed term past T is non-zero
only if |S| ≥ 2^−1019, where half an ulp is 2^−1072 or more). Summing more terms than T (a longer count, or all K) gives
the same bits, so the blocked engine runs the count its stepping slots need at most, and both engines
give the sums of all K terms. Tested on a non-DLN kernel in tests/test_stepseries.py, and on the
diagonal linear network's q_± series in tests/test_dln_step.py.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import sympy as sp

from .stepitems import Let

_NEGLIGIBLE = 2.0 ** -56  # a term below this fraction of a partial sum of its sign leaves the sum's bits


@dataclass(frozen=True)
class TruncatedSeries:
    """Partial sums whose tail a step may skip. ``sums``: one tuple per series of its partial sums
    (S_1, …, S_K), each a :class:`~.stepitems.Let` of the block, S_t's expression reading S_{t−1} (all
    series of one item have K terms); ``ratio``: a scalar expression r of the step (no per-coordinate
    quantity) with |a_t| ≤ |r|^{t−1}|a_1| at every coordinate, all terms of a sum of one sign (see the
    module docstring); ``counts``: the shorter term counts printed (each a copy of the block's loop), in
    increasing order, below K."""
    sums: tuple
    ratio: Any
    counts: tuple = ()


def term_count(r: float, terms: int) -> int:
    """The least T ≤ ``terms`` with |r|^T < 2^−56, computed as the generated engine does (``terms`` if
    none, or for a NaN or infinite r): the terms of the series past T are skipped."""
    r = abs(r)
    p, c = r, 1
    while c < terms and not p < _NEGLIGIBLE:
        p *= r
        c += 1
    return c


def check(cut: TruncatedSeries, items: tuple, fam: set) -> int:
    """K, after checking ``cut`` against its block's ``items``: a clear error for a declaration the
    printing cannot cut."""
    lets = {i.name: i for i in items if isinstance(i, Let)}
    lengths = {len(chain) for chain in cut.sums}
    if not cut.sums or len(lengths) != 1:
        raise ValueError("TruncatedSeries: give one or more series of partial sums, all of one length")
    terms = lengths.pop()
    for chain in cut.sums:
        for t, s in enumerate(chain):
            if s not in lets:
                raise ValueError(f"TruncatedSeries: partial sum {s} is not a Let of its PerCoordinate block")
            if t and chain[t - 1] not in sp.sympify(lets[s].expr).free_symbols:
                raise ValueError(f"TruncatedSeries: partial sum {s} does not add a term to {chain[t - 1]}")
    if sp.sympify(cut.ratio).free_symbols & fam:
        raise ValueError("TruncatedSeries: the ratio is one scalar per step, not a per-coordinate quantity")
    if list(cut.counts) != sorted(set(cut.counts)) or any(not 1 <= c < terms for c in cut.counts):
        raise ValueError(f"TruncatedSeries: counts must increase within 1..{terms - 1}, got {cut.counts}")
    return terms


def versions(cut: TruncatedSeries, terms: int, lines: list[str], local, ratio: str, go_row: int,
             n: int) -> list[str]:
    """The block's loop ``lines`` (all K terms) printed once per count of ``cut.counts`` and once as it
    is, behind a switch on the count its stepping slots need (the largest over them; 1 if none
    steps). In the copy for count c, each partial sum past c is the one at c (``local``: a symbol's
    name in the generated code; ``ratio``: r printed in slot b's rows).

    The largest count is the count of the largest |r| (:func:`term_count` of it, a NaN |r| taken as
    +inf: both need every term), one count per step instead of one per slot: the count does not
    decrease as |r| grows, because each power fl(p·|r|) does not (rounding to nearest is monotone), so
    the first power below 2^−56 comes no later for a smaller |r|."""
    if not cut.counts:
        return lines
    count, r, top, p = f"nt{n}", f"ratio{n}", f"rmax{n}", f"pw{n}"
    # every slot's |r| read, a slot that does not step counting as 0, so that the loop has no branch:
    # with one (`if` the slot steps) it was ~5% of the diagonal network's SGD step at E1, b = 1, the
    # max taken by compare-and-jump (a sampling profile); as selects it is a max instruction per slot
    out = [f"{top} = 0.0",
           "for b in range(w):",
           f"    {r} = abs({ratio})",
           f"    {r} = {r} if {r} < np.inf else np.inf  # NaN: every term, as +inf",
           f"    {r} = {r} if N[{go_row}, b] != 0 else 0.0",
           f"    {top} = {r} if {r} > {top} else {top}",
           f"{p} = {top}",
           f"{count} = 1",
           f"while {count} < {terms} and not {p} < {_NEGLIGIBLE!r}:  # 2^-56",
           f"    {p} = {p} * {top}",
           f"    {count} += 1"]
    for q, kept in enumerate(cut.counts):
        out.append(f"{'if' if q == 0 else 'elif'} {count} <= {kept}:  # the terms past {kept} cannot move the sums")
        out += ["    " + line for line in _cut(lines, cut, kept, local)]
    return out + ["else:"] + ["    " + line for line in lines]


def _cut(lines: list[str], cut: TruncatedSeries, kept: int, local) -> list[str]:
    out = list(lines)
    for chain in cut.sums:
        last = local(chain[kept - 1])
        for s in chain[kept:]:
            head = re.compile(rf"^(\s*){re.escape(local(s))} = ")
            hits = [q for q, line in enumerate(out) if head.match(line)]
            if len(hits) != 1:
                raise AssertionError(f"TruncatedSeries: the loop assigns {s} {len(hits)} times, not once")
            out[hits[0]] = head.match(out[hits[0]]).group(0) + last
    return out
