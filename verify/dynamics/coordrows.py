"""The data pass of a declared step kernel with per-coordinate quantities (:mod:`.coordloop`): the row
lets (β_j = u_j v_j; with mini-batch rows printed where they are read,
:meth:`CoordinateRowMeans.inline_row_lets`) and the row means, before the vector loop, in loops over j
and the slots.

A row mean runs over the data rows — all of ``Z``, or a slot's mini-batch rows (:mod:`.batchrows`) — in
groups of ``_ROWS`` rows: each row's intermediates (a :class:`~.stepitems.Reduce` over j, ``UNROLL``
coordinates per loop step, its running value in a register: :func:`over_coordinates`), then the
group's terms added to each sum in row order, so every sum has the order of one row at a time (the
same bits); a per-coordinate sum starts at its first row (no pass of stores before the rows). A batch
row mean whose terms divide by integer constants (a mini-batch gradient's 1/b) is printed twice:
without the divisions for the run where the constants are 1, with them otherwise
(:meth:`CoordinateRowMeans.coord_row_mean`).
"""
from __future__ import annotations

import dataclasses
from typing import Callable

import sympy as sp

from .stepitems import Let, PerCoordinate, Quotient, Reduce, RowMean
from .stepitems import read_expressions, reads as _free
from .stepprint import code_name, is_bool, sum_start

_ROWS = 4  # data rows per group of a per-coordinate row mean
UNROLL = 4  # coordinates per loop step of a value carried over the coordinates (over_coordinates)


def over_coordinates(heads: list[str], before: list[str], at: Callable[[str], list[str]], after: list[str],
                     unroll: bool = True) -> list[str]:
    """The loop over the coordinates j = 0..d−1, in order, around the loops ``heads`` (over the rows,
    the slots; each indented one level more than the one before) and a body carrying running values
    in registers (relative indent): ``before`` loads them, ``at(j)`` is the body at coordinate ``j``,
    ``after`` stores them. ``UNROLL`` coordinates per loop step (``at("j + 0")`` … ``at("j + 3")``: the loads
    and stores once per ``UNROLL`` coordinates), then the remaining coordinates one per step; all one
    per step when not ``unroll``. The same operations in the same order either way: the same bits.
    (A row read and written at every coordinate made the running max_j |s_j| ~40% of the diagonal
    network's s_j pass.)"""
    inner = "    " * (len(heads) + 1)

    def loop(header: str, coordinates: list[str]) -> list[str]:
        body = [*before, *(line for j in coordinates for line in at(j)), *after]
        return [header, *(f"    {h}" for h in heads), *(inner + line for line in body)]

    if not unroll:
        return loop("for j in range(d):", ["j"])
    return (loop(f"for j in range(0, d - {UNROLL - 1}, {UNROLL}):", [f"j + {q}" for q in range(UNROLL)])
            + loop(f"for j in range(d - d % {UNROLL}, d):", ["j"]))


def slot_loop(stmts: list, per_coordinate: bool, ind: str = "") -> list[str]:
    """``stmts`` in the loop over the block's slots (and over j, ``per_coordinate``)."""
    if not stmts:
        return []
    head = [f"{ind}for j in range(d):", f"{ind}    for b in range(w):"] if per_coordinate \
        else [f"{ind}for b in range(w):"]
    deep = ind + (" " * 8 if per_coordinate else " " * 4)
    return head + [deep + s for s in stmts]


class CoordinateRowMeans:
    """Methods of :class:`verify.dynamics.stepkernel.KernelBuilder` for the data pass (through
    :class:`.coordloop.CoordinateItems`)."""

    def coord_means(self) -> list[str]:
        """The row lets and the row means, the per-coordinate ones in loops over j (relative indent)."""
        k, lines = self.k, []
        names = self.scalar_rows(False)
        names.update({q: self.cell(self.cr[q]) for q in self.cr if isinstance(q, sp.Symbol)})
        scalar = [c for c in k.row_lets if not isinstance(c, PerCoordinate)]
        if scalar:
            lines.append("for b in range(w):")
            for c in scalar:
                r = self.frow(("row_let", c.name))
                lines.append(f"    F[{r}, b] = {self.expr(c.expr, f'row let {c.name}', False, names)}")
                names[c.name] = f"F[{r}, b]"
        for blk in (c for c in k.row_lets if isinstance(c, PerCoordinate)):
            stored = []
            for c in blk.items:
                if not isinstance(c, Let):
                    raise TypeError(f"step kernel: {c!r} cannot be a per-coordinate row let")
                if c.name in self.inline_lets:  # its expression where it is read (inline_row_lets)
                    names[c.name] = self.expr(c.expr, "row let", c.printed_order, names)
                    continue
                if c.name not in self.cr:
                    self.crow(c.name)
                names[c.name] = self.cell(self.cr[c.name])
                stored.append(c)
            if stored:
                lines += ["for j in range(d):", "    for b in range(w):"]
                lines += [f"        {self.cell(self.cr[c.name])} = {self.expr(c.expr, 'row let', c.printed_order, names)}"
                          for c in stored]
        copy = []
        if self.batch_rows():  # each slot's batch rows at its step, into ZB (.batchrows; one row: one_row_copy)
            lines += self.batch_row_numbers()
            copy = self.batch_copy()
        rows = {id(m): {u: {} for u in range(_ROWS)} for m in k.row_means}  # (shared by a mean's copies)
        means = []
        for m in k.row_means:
            self.in_batch = m.batch
            means += self.coord_row_mean(m, names, rows[id(m)])
            self.in_batch = False
        inline = self.one_row_sums()
        if inline:  # a copy for one-row batches, those sums printed where read (.batchrows)
            return lines + self.one_row_switch(inline, names, rows, copy + means + self.pre)
        return lines + copy + means + self.pre

    def coord_row_mean(self, m: RowMean, names: dict, rows: dict) -> list[str]:
        """``m`` over the data rows (:meth:`row_mean_lines`); a batch row mean whose terms divide by integer
        constants (``Quotient(r*x, b)``, a mini-batch gradient's per-term 1/b) is printed twice: for the
        run where every such constant is 1 without the divisions (a/1 is a exactly: the same bits; a
        division per coordinate, term and slot took ~20% of the diagonal network's b = 1 data pass), else
        with them. (A row mean over all rows is not: a full batch of one row is rare, and the copy doubles
        the data pass's code.) ``rows``: the per-row intermediates' F rows, per row of a group."""
        lines = self.row_mean_lines(m, names, rows)
        divisors = self.unit_divisor_candidates(m)
        if not divisors:
            return lines
        self.unit_divisors = divisors
        try:
            unit = self.row_mean_lines(m, names, rows)
        finally:
            self.unit_divisors = frozenset()
        ones = " & ".join(f"({code_name('c', c)} == 1)" for c in sorted(divisors, key=lambda c: c.name))
        return [f"if {ones}:  # x/1 is x", *(f"    {line}" for line in unit), "else:", *(f"    {line}" for line in lines)]

    def unit_divisor_candidates(self, m: RowMean) -> frozenset:
        """The divisors of ``m``'s terms that a run may print as 1 (a/1 is a exactly): those of a batch row
        mean when every one is an integer kernel constant (``Quotient(r*x, b)``); else none."""
        if not m.batch:
            return frozenset()
        divisors = {q.args[1] for e in read_expressions(m) for q in e.atoms(Quotient)}
        return frozenset(divisors) if all(c in self.k.constants and c.is_integer for c in divisors) else frozenset()

    def row_mean_lines(self, m: RowMean, names: dict, rows: dict, one_row: frozenset | None = None) -> list[str]:
        """``m`` over the data rows in groups of ``_ROWS`` (then the remaining rows one by one): each
        row's intermediates (a Reduce over j with ``UNROLL`` coordinates per loop step, its running
        value in a register), then the group's terms added to each sum in row order — the order of
        one row at a time, with a loop over j and the slots per group instead of per row. ``rows``:
        the intermediates' F rows, per row of a group (filled on first use). ``one_row``: the copy for
        a batch of one row (:meth:`.batchrows.BatchRowItems.one_row_switch`), no groups, and the sums
        in it not accumulated (printed where they are read)."""
        own = set(m.names) & (_free(m.exprs) | _free(m.lets))
        if own:  # (its first row would read the start, a later one the running sum: no defined value)
            raise ValueError(f"step kernel: a row mean's terms read its own sums ({', '.join(sorted(map(str, own)))})")
        if one_row is not None:
            kept = [(q, e) for q, e in zip(m.names, m.exprs) if q not in one_row]
            m = dataclasses.replace(m, names=tuple(q for q, _ in kept), exprs=tuple(e for _, e in kept))
        start = sum_start(m.mean)
        acc = {q: (self.cell(self.cr[q]) if q in self.fam else f"F[{self.fr[q]}, b]") for q in m.names}
        nr = self.data_rows()  # Z.shape[0], or the batch's rows (.batchrows)
        lines = slot_loop([f"{acc[q]} = {start}" for q in m.names if q not in self.fam], False)
        # the per-coordinate sums start at their first row (row_group: a pass of stores saved), or here
        # when there is no row
        per_coordinate_starts = slot_loop([f"{acc[q]} = {start}" for q in m.names if q in self.fam], True)
        if per_coordinate_starts:
            lines += [f"if {nr} == 0:", *("    " + line for line in per_coordinate_starts)]
        # (a group that prints nothing — every sum printed where read, no intermediates — has no loop)
        if one_row is None and (group := self.row_group(m, names, acc, _ROWS, rows, start)):
            lines += [f"for i in range(0, {nr} - {_ROWS - 1}, {_ROWS}):", *("    " + line for line in group)]
        if group := self.row_group(m, names, acc, 1, rows, start):
            lines += [f"for i in range({nr} - {nr} % {_ROWS}, {nr}):", *("    " + line for line in group)]
        if m.mean:
            for per_coordinate in (False, True):
                lines += slot_loop([f"{acc[q]} = {acc[q]} / Z.shape[0]" for q in m.names
                                if (q in self.fam) == per_coordinate], per_coordinate)
        return lines

    def row_names(self, names: dict, row: str, j: str = "j") -> dict:
        """The data symbols of data row ``row`` (coordinate ``j`` for the per-coordinate ones)."""
        names, col = dict(names), 0
        for z in self.k.data:
            if z in self.fam:
                names[z] = self.data_cell(row, j, per_coordinate=True)
            else:
                names[z] = self.data_cell(row, f"d + {col}")
                col += 1
        return names

    def at(self, names: dict, j: str) -> dict:
        """``names`` with the per-coordinate rows, and the inline row lets, at coordinate ``j``."""
        out = dict(names)
        out.update({q: self.cell(self.cr[q], j) for q in self.cr if isinstance(q, sp.Symbol) and q in names})
        for q, c in self.inline_lets.items():
            if q in names:
                out[q] = self.cell(self.stored_lets[q], j) if q in self.stored_lets else \
                    self.expr(c.expr, "row let", c.printed_order, out)
        return out

    def inline_row_lets(self) -> dict:
        """The per-coordinate row lets printed where they are read, ``{name: Let}``: in a kernel with
        mini-batch rows, those no item of the step reads (only row means and checkpoints). A batch of a
        few rows reads β_j = u_j v_j a few times per step: its own pass over j and the slots, storing a
        row, cost more than the products (~5% of the diagonal network's b = 1 SGD step). A checkpoint
        decided in the scalar pass cannot read the parameters: it gets the row
        (:meth:`.batchrows.BatchRowItems.checkpoint_row_mean`)."""
        if not self.batch_rows():
            return {}
        return {c.name: c for blk in self.k.row_lets if isinstance(blk, PerCoordinate) for c in blk.items
                if isinstance(c, Let) and c.name not in self.cr}

    def row_group(self, m: RowMean, names: dict, acc: dict, size: int, rows: dict, start: str) -> list[str]:
        """The rows i, …, i + size − 1 of a row mean: their intermediates (one loop per intermediate for
        the group's rows: a Reduce reads coordinate j's quantities once for all of them), then their
        terms of each sum, added in row order. A per-coordinate sum starts at ``start`` in the group
        holding row 0 (``if i == 0:``), so no pass stores its start before the rows."""
        lines = []
        group = [f"i + {u}" if size > 1 else "i" for u in range(size)]
        lets: list = [{} for _ in group]  # each row's intermediates
        for c in m.lets:
            regs = []
            for u in range(size):
                key = ("row", c.name, u)
                if key not in rows[u]:
                    rows[u][key] = self.frow(key)
                regs.append(f"F[{rows[u][key]}, b]")
            if isinstance(c, Reduce):
                if is_bool(c.init):
                    raise TypeError("step kernel: a row mean's Reduce is a float")
                lines += slot_loop([f"{reg} = {self.expr(c.init, 'row mean', m.printed_order, {**self.row_names(names, row), **lt})}"
                                for reg, row, lt in zip(regs, group, lets)], False)
                lines += self.reduce_over_j(c, regs, names, group, lets, m.printed_order)
            elif _free(c) & self.fam:
                raise TypeError("step kernel: a row mean's per-coordinate intermediate: declare a Reduce")
            else:
                lines += slot_loop([f"{reg} = {self.expr(c.expr, 'row mean', m.printed_order, {**self.row_names(names, row), **lt})}"
                                for reg, row, lt in zip(regs, group, lets)], False)
            for reg, lt in zip(regs, lets):
                lt[c.name] = reg
        per_row = [{**self.row_names(names, row), **lt} for row, lt in zip(group, lets)]
        for per_coordinate in (False, True):
            def stmts(first: bool) -> list[str]:
                """One running value per sum, in a register across the group's rows; from the sum's
                start at the first row (``first``), else from its row."""
                out = []
                for n, (q, e) in enumerate((q, e) for q, e in zip(m.names, m.exprs) if (q in self.fam) == per_coordinate):
                    out.append(f"a{n} = {start if first else acc[q]}")
                    out += [f"a{n} = a{n} + {self.expr(e, 'row mean', m.printed_order, rn)}" for rn in per_row]
                    out.append(f"{acc[q]} = a{n}")
                return out

            later = stmts(False)
            if per_coordinate and later:
                lines += ["if i == 0:", *slot_loop(stmts(True), True, "    "), "else:", *slot_loop(later, True, "    ")]
            else:
                lines += slot_loop(later, per_coordinate)
        return lines

    def reduce_over_j(self, c: Reduce, regs: list, names: dict, group: list, lets: list,
                      printed_order: bool) -> list[str]:
        """``reg = next`` for j = 0..d−1 in order, for each row of the group (register ``regs[u]`` of
        row ``group[u]``), the running values in registers (:func:`over_coordinates`)."""
        def at(j: str) -> list[str]:
            out = []
            for u, (row, lt) in enumerate(zip(group, lets)):
                rn = {**self.at(self.row_names(names, row, j), j), **lt, c.name: f"a{u}"}
                out.append(f"a{u} = {self.expr(c.next, 'row mean', printed_order, rn)}")
            return out

        return over_coordinates(["for b in range(w):"], [f"a{u} = {reg}" for u, reg in enumerate(regs)], at,
                                [f"{reg} = a{u}" for u, reg in enumerate(regs)])
