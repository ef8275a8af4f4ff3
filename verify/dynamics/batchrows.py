"""Mini-batch rows and whole-data checks in a declared step kernel with per-coordinate quantities
(:mod:`.coordloop`): the pieces mini-batch SGD needs beyond GD.

* A :class:`~.stepitems.RowMean` declared ``batch=True`` sums over the lane's mini-batch at step t, not
  over all rows of ``Z``: the rows ``BT[slot, t, q]``, q = 0..b−1 in q order, of the engine's batch
  table ``BT`` (int32, drawn before the run: one slot per seed, say), the slot read from the lane
  input :attr:`~.stepitems.StepKernel.batch_slot`. Before the row means, each slot's batch rows are
  copied into scratch ``ZB[q, c, b]`` (a gather across the slots would not vectorise; the copied rows
  are read in the slots' loops as ``Z``'s rows are), then the row mean prints as over ``Z``, its rows
  ``ZB[0..b−1]`` — except in the copy for a batch of one row (below). A step t past the table's last
  row reads the last (a lane at its budget does not step).
* A :class:`~.stepitems.Checkpoint`'s RowMean over all rows (the full loss every k steps) in the scalar
  pass, its per-row intermediates a :class:`~.stepitems.Reduce` over the coordinates (the residual
  r_i = (…(−y_i + x_i0 β_0) + …) + x_{i,d−1} β_{d−1}): every row's chain at once, the rows innermost
  (``R[c, i]``, as the lane-by-lane engine's row means, :mod:`.steplanewise`; the per-coordinate data
  transposed ``ZT[j, i]``, copied once per call), then each sum over the rows in row order — each
  row's chain and each sum in the declared order, as a row mean of the step prints it. It reads the
  per-coordinate quantities at this step: the parameters and States only when the checkpoint is decided
  before the vector loop (:meth:`.stepcheckpoint.CheckpointItems.decided_early`), and so the row lets
  (β = u ⊙ v) printed inline there; decided in the scalar pass, the row lets as the step's data pass
  stored them. Decided before the vector loop, the same row mean can run for every slot at once
  (``P[c, i, b]``, the slots innermost; :meth:`.stepcheckpoint.CheckpointItems.across_slot_means`).
* Batch rows are few per step, so a per-coordinate row let is printed where it is read instead of in a
  pass storing it (:meth:`.coordrows.CoordinateRowMeans.inline_row_lets`), and a batch row mean that
  divides by integer constants gets a copy without the divisions for the run where they are 1
  (:meth:`.coordrows.CoordinateRowMeans.coord_row_mean`).
* For a batch of one row, a batch row mean's per-coordinate sum that only the blocks before the vector
  loop read (G_j, read by s_j = γ G_j) is printed where it is read, as its one term added to the sum's
  start, (0.0 + r x_j), instead of in a pass storing it (:meth:`BatchRowItems.one_row_switch`); in that
  copy the row's per-coordinate data is copied into a row of ``C`` and its other columns read from
  ``Z`` where read, nothing into ``ZB`` (:meth:`BatchRowItems.one_row_copy`).
"""
from __future__ import annotations

import dataclasses
import re

import sympy as sp

from .stepitems import Let, PerCoordinate, Reduce, RowMean
from .stepitems import reads as _free
from .coordrows import over_coordinates
from .stepprint import code_name, is_bool, sum_start

_ONE_ROW_DATA = "one-row data"  # the key of C's row holding a one-row batch's per-coordinate data


class BatchRowItems:
    """Methods of :class:`verify.dynamics.stepkernel.KernelBuilder` for batch rows, checkpoint row means and
    the per-row intermediates of a row mean over every row at once (the checkpoint's, the lane-by-lane
    engine's row means: :mod:`.steplanewise`), with the scratch they need (``ZB``, ``R``, ``ZT``)."""

    in_batch = False  # printing a batch row mean: its data rows are the scratch ZB's (but one_row_batch)
    one_row_batch = False  # printing the copy for a batch of one row (one_row_switch)
    n_intermediate_rows = 0  # rows of R: the per-row intermediates of row means over every row at once
    needs_zt = False  # such an intermediate reads the per-coordinate data transposed: ZT

    def batch_rows(self) -> bool:
        return any(m.batch for m in self.k.row_means)

    def check_batch(self) -> None:
        k = self.k
        if self.batch_rows() and k.batch_slot is None:
            raise ValueError("step kernel: a RowMean(batch=True) needs the kernel's batch_slot (the lane input "
                             "holding the lane's row of the batch table)")
        if k.batch_slot is not None and (k.batch_slot not in k.lane_inputs or k.batch_slot in k.coordinates):
            raise ValueError(f"step kernel: batch_slot {k.batch_slot} must be a scalar lane input")
        if k.batch_slot is not None and not k.data:
            raise ValueError(f"step kernel: batch_slot {k.batch_slot} without data rows (StepKernel.data): a "
                             "batch table indexes data rows")
        if self.batch_rows() and not self.fam:
            raise ValueError("step kernel: RowMean(batch=True) is printed in kernels with per-coordinate "
                             "quantities (StepKernel.coordinates) only")

    def data_cell(self, row: str, col: str, per_coordinate: bool = False) -> str:
        """Column ``col`` of data row ``row``: of ``Z``, or of the slot's batch rows; in the copy for a
        batch of one row, a per-coordinate column of it (``col`` the coordinate) from its row of ``C``
        (:meth:`one_row_copy`)."""
        if self.in_batch and self.one_row_batch:
            if not per_coordinate:
                return f"Z[RW[0, b], {col}]"
            if _ONE_ROW_DATA not in self.cr:
                self.crow(_ONE_ROW_DATA)
            return self.cell(self.cr[_ONE_ROW_DATA], col)
        return f"ZB[{row}, {col}, b]" if self.in_batch else f"Z[{row}, {col}]"

    def data_rows(self) -> str:
        return "ZB.shape[0]" if self.in_batch else "Z.shape[0]"

    def batch_row_numbers(self) -> list[str]:
        """Each slot's batch row numbers at its step into ``RW[q, b]`` (relative indent). (Read from the
        batch table in the copy loop, the row numbers were read again after every store.) For a batch of
        one row, its row number is read without a loop over the batch rows inside the loop over the
        slots, which made an E1 SGD step at b = 1 ~5% slower; for more rows that loop stays (read batch
        row by batch row, the slots inside, an E3 step at b = 2 was ~10% slower)."""
        slot = self.fr[self.k.batch_slot]
        return ["if BT.shape[2] == 1:",
                "    for b in range(w):",
                f"        RW[0, b] = BT[int(F[{slot}, b]), min(N[2, b], BT.shape[1] - 1), 0]",
                "else:",
                "    for b in range(w):",
                f"        slot = int(F[{slot}, b])",
                "        tb = min(N[2, b], BT.shape[1] - 1)",
                "        for q in range(BT.shape[2]):",
                "            RW[q, b] = BT[slot, tb, q]"]

    @staticmethod
    def batch_copy() -> list[str]:
        """Each slot's batch rows into ``ZB`` (relative indent), batch row q of every slot in turn (copied
        slot by slot, the batch rows of one slot lay a ZB plane apart: the copy took ~1.5x as long at
        b = 1, ~1.8x at b = 2)."""
        return ["for q in range(BT.shape[2]):",
                "    for b in range(w):",
                "        row = RW[q, b]",
                "        for c in range(Z.shape[1]):",
                "            ZB[q, c, b] = Z[row, c]"]

    def one_row_copy(self) -> list[str]:
        """For a batch of one row, in place of :meth:`batch_copy`: its per-coordinate columns (the first
        d of ``Z``) into a row of ``C``, where the loops over j and the slots read them; its other
        columns are read from ``Z`` where they are read (:meth:`data_cell`; a loop over the slots reads
        them once per step). Read from ``ZB``, every loop over j and the slots read an array beside
        ``C`` and ``F``, and LLVM's vectoriser checked at run time that their ranges do not overlap, at
        every entry of the loop over the slots (once per coordinate, or per ``UNROLL`` of them, and
        step): ~5% of the diagonal network's SGD step at E1, b = 1 (a sampling profile of the
        generated kernel); and copying its other columns slot by slot took ~3% more."""
        if _ONE_ROW_DATA not in self.cr:  # (allocated by the first read of it: print the reads first)
            return []
        return ["for b in range(w):",
                "    row = RW[0, b]",
                "    for c in range(d):",
                f"        {self.cell(self.cr[_ONE_ROW_DATA], 'c')} = Z[row, c]"]

    def one_row_sums(self) -> dict:
        """The per-coordinate sums of batch row means that a one-row batch prints where they are read,
        ``{sum: its RowMean}``: those read only by the PerCoordinate blocks before the vector loop (the
        blocks before the body's first other item) — by no other item, row mean, stop rule or any other
        field of the kernel — of row means whose terms read nothing those blocks define (printed where
        the sum is read, a term reading such a name would see it part-way through the step)."""
        k = self.k
        if not self.batch_rows():
            return {}
        lead = 0
        while lead < len(k.body) and isinstance(k.body[lead], PerCoordinate):
            lead += 1
        rest = tuple(getattr(k, f.name) for f in dataclasses.fields(k) if f.name not in ("body", "row_means"))
        elsewhere = _free((rest, k.body[lead:], k.row_means))  # (a row mean may read another's sums)
        defined = {i.name for blk in k.body[:lead] for i in blk.items if isinstance(i, (Let, Reduce))}
        return {q: m for m in k.row_means if m.batch and not _free((m.exprs, m.lets)) & defined for q in m.names
                if q in self.fam and q not in elsewhere and q.name not in k.float_outputs}

    def one_row_switch(self, inline: dict, names: dict, rows: dict, general: list[str]) -> list[str]:
        """The row means and the blocks before the vector loop (relative indent) for a batch of one row
        (and the divisors 1, if the batch row means divide by integer constants), the sums ``inline``
        printed where they are read, the pass storing them left out, the row's data read from ``C`` and
        ``Z`` (:meth:`one_row_copy`) instead of ``ZB``; ``general`` for the other runs.
        Coordinate j reads the sum as its start plus its one term, (0.0 + r x_j): the operations of the
        pass that stored it, so the same bits. (The diagonal network's SGD at b = 1 read G_j from that
        pass in its s_j pass: the pool computes s_j = γ (0 + r x_j) from the batch row directly.)
        ``rows``: each row mean's intermediates' F rows (:meth:`.coordrows.CoordinateRowMeans.coord_means`)."""
        k = self.k
        lines, ones, inline_at = [], set(), {}
        self.one_row_batch = True  # its per-coordinate data from a row of C (data_cell, one_row_copy)
        try:
            for m in k.row_means:
                self.in_batch = m.batch
                skip = frozenset(q for q, mq in inline.items() if mq is m)
                if not skip:
                    lines += self.coord_row_mean(m, names, rows[id(m)])
                    self.in_batch = False
                    continue
                unit = self.unit_divisor_candidates(m)
                ones |= unit
                self.unit_divisors = unit
                try:
                    lines += self.row_mean_lines(m, names, rows[id(m)], one_row=skip)
                    # the one row's intermediates, where the pass above left them (a group of one row)
                    lets = {c.name: f"F[{rows[id(m)][0][('row', c.name, 0)]}, b]" for c in m.lets}
                    for q, e in zip(m.names, m.exprs):
                        if q in skip:  # coordinate "_J_" (the loop's coordinate substituted below)
                            row = {**self.at(self.row_names(names, "0", "_J_"), "_J_"), **lets}
                            inline_at[self.cr[q]] = f"({sum_start(m.mean)} + {self.expr(e, 'row mean', m.printed_order, row)})"
                finally:
                    self.unit_divisors = frozenset()
                self.in_batch = False
        finally:
            self.one_row_batch = False
        lines = self.one_row_copy() + lines
        pre = [re.sub(r"\bC\[([^\[\],]+), (\d+), b\]",
                      lambda c: inline_at[int(c[2])].replace("_J_", c[1]) if int(c[2]) in inline_at else c[0], line)
               for line in self.pre]
        left = [line for line in pre for r in inline_at if re.search(rf"\bC\[.*, {r}, b\]", line)]
        if left:  # a read the substitution missed would read a row this copy never writes
            raise AssertionError(f"step kernel: a one-row batch's sum still read from its row: {left[0].strip()}")
        when = " and ".join(["ZB.shape[0] == 1", *(f"({code_name('c', c)} == 1)" for c in sorted(ones, key=lambda c: c.name))])
        return [f"if {when}:  # one batch row: {', '.join(sorted(q.name for q in inline))} where read",
                *(f"    {line}" for line in lines + pre), "else:", *(f"    {line}" for line in general)]

    def batch_buffers(self, width: int) -> str:
        lines = ""
        if self.batch_rows():
            lines += f"\n    ZB = np.zeros((BT.shape[2], Z.shape[1], {width}))  # the slots' batch rows"
            lines += f"\n    RW = np.zeros((BT.shape[2], {width}), np.int64)  # their row numbers"
        if self.n_intermediate_rows:
            lines += f"\n    R = np.zeros(({self.n_intermediate_rows}, Z.shape[0]))"
        if self.needs_zt:
            lines += "\n    ZT = np.ascontiguousarray(Z[:, :d].T)  # the per-coordinate data, a row per coordinate"
        return lines

    def every_row_intermediates(self, m: RowMean, names: dict, tag: str,
                                hoist_coordinates: bool = False, across_slots: bool = False) -> tuple:
        """``m``'s per-row intermediates for every row of ``Z`` at once (relative indent): a Let or a
        Reduce over j into a row of the scratch ``R[c, i]``, the rows innermost, the per-coordinate data
        read transposed (``ZT[j, i]``). ``tag`` names the item in error messages; ``hoist_coordinates``:
        coordinate j's quantities loaded into locals before the loop over the rows (the lane-by-lane
        engine's row means; it needs :meth:`.steplanewise.LanewiseBuilder.hoist`); ``across_slots``: for
        every slot at once, into ``P[c, i, b]``, the slots innermost (vectorised). Returns (lines,
        {intermediate: its row of R or P}); each row's chain runs in its declared order, as a row group
        prints it (:mod:`.coordloop`)."""
        if hoist_coordinates and across_slots:
            raise ValueError("step kernel: hoisted coordinates are for one slot (the lane-by-lane engine)")
        rows = ["for i in range(Z.shape[0]):"] + (["    for b in range(w):"] if across_slots else [])
        inner = "    " * len(rows)  # the indent inside the loop over the rows (and slots)
        lets: dict = {}
        lines: list[str] = []
        for position, c in enumerate(m.lets):
            if across_slots:
                reg = f"P[{position}, i, b]"
                self.scratch_rows = max(self.scratch_rows, position + 1)
            else:
                reg = f"R[{self.n_intermediate_rows}, i]"
                self.n_intermediate_rows += 1
            row = {**self.row_names(names, "i"), **lets}
            if isinstance(c, Reduce):
                if is_bool(c.init):
                    raise TypeError(f"step kernel: a {tag}'s Reduce is a float")
                lines += [*rows, f"{inner}{reg} = {self.expr(c.init, tag, m.printed_order, row)}"]

                def at(j: str, value: str) -> dict:
                    """The names at coordinate ``j``, the running value ``value``."""
                    named = {**self.row_names(names, "i", j), **lets, c.name: value}
                    if not hoist_coordinates:
                        named = self.at(named, j)
                    for z in self.k.data:
                        if z in self.fam:
                            named[z] = f"ZT[{j}, i]"
                            self.needs_zt = True
                    return named

                at_j = at("j", reg)
                if hoist_coordinates:
                    hoisted = self.hoist(c.next, at_j, "j")
                    lines += ["for j in range(d):", *(f"    {h}" for h in hoisted), *(f"    {r}" for r in rows),
                              f"    {inner}{reg} = {self.expr(c.next, tag, m.printed_order, at_j)}"]
                else:  # UNROLL coordinates per pass over the rows: R read and written once per pass
                    def chain(j: str) -> list[str]:
                        return [f"r_acc = {self.expr(c.next, tag, m.printed_order, at(j, 'r_acc'))}"]

                    lines += over_coordinates(rows, [f"r_acc = {reg}"], chain, [f"{reg} = r_acc"])
            elif not isinstance(c, Let):
                raise TypeError(f"step kernel: a {tag}'s intermediate {c!r}: declare a Let or a Reduce")
            elif _free(c) & self.fam:
                raise TypeError(f"step kernel: a {tag}'s per-coordinate intermediate: declare a Reduce")
            else:
                lines += [*rows, f"{inner}{reg} = {self.expr(c.expr, tag, m.printed_order, row)}"]
            lets[c.name] = reg
        return lines, lets

    def checkpoint_row_mean(self, m: RowMean, names: dict, early: bool, sums: dict | None = None) -> list[str]:
        """``m`` over all rows of ``Z`` for one slot (relative indent): the per-row intermediates of every
        row (:meth:`every_row_intermediates`), then each sum over the rows in row order into the locals
        ``s_<name>``. ``early``: the checkpoint is decided before the vector loop, where the parameters
        are this step's, so it reads an inline row let's expression (β = u ⊙ v: u and v); one decided in
        the scalar pass reads the row the data pass stores (the checkpoints are printed before the data
        pass, :func:`.stepkernel.kernel_source`, which then prints the pass for that row let).
        ``sums``: {name: its F row} — for every slot at once instead, the slots innermost (vectorised:
        the intermediates in ``P``), each slot's sums into its cells of those rows; the same operations
        in the same order for each slot."""
        if m.batch or any(q in self.fam for q in m.names):
            raise ValueError("step kernel: a checkpoint's RowMean is over all rows and has scalar sums only")
        for q in sorted(_free(m) & self.fam, key=lambda s: s.name):
            if q in self.inline_lets and early:
                continue  # a row let printed where read: the parameters at this step
            self.inline_lets.pop(q, None)
            if q not in self.cr and q not in self.k.data:
                self.crow(q)  # a row let (β) read here only: kept in a row, written by the data pass
        names = {**names, **{q: self.cell(self.cr[q]) for q in self.cr if isinstance(q, sp.Symbol)}}
        stored = []
        try:
            for q, c in self.inline_lets.items():  # printed at the coordinate of each read (self.at)
                names[q] = self.expr(c.expr, "row let", c.printed_order, names)
                if sums is not None and q in _free(m):
                    # for every slot at once, into a row first: once per coordinate and slot, not once
                    # per data row too (the diagonal network's β = u ⊙ v: its full loss took ~2x the pool's)
                    key = ("checkpoint row let", q.name)
                    if key not in self.cr:
                        self.crow(key)
                    stored += [f"    {self.cell(self.cr[key])} = {names[q]}"]
                    self.stored_lets[q] = self.cr[key]
            lines, lets = self.every_row_intermediates(m, names, "checkpoint", across_slots=sums is not None)
        finally:
            self.stored_lets = {}
        if stored:
            lines = ["for j in range(d):", "    for b in range(w):", *(f"    {line}" for line in stored), *lines]
        row = {**self.row_names(names, "i"), **lets}
        acc = {q: code_name("s", q) if sums is None else f"F[{sums[q]}, b]" for q in m.names}
        slots, ind = (["for b in range(w):"], "    ") if sums is not None else ([], "")
        start = sum_start(m.mean)
        lines += slots + [f"{ind}{acc[q]} = {start}" for q in m.names] + ["for i in range(Z.shape[0]):"]
        lines += [f"    {line}" for line in slots]
        lines += [f"    {ind}{acc[q]} = {acc[q]} + {self.expr(e, 'checkpoint', m.printed_order, row)}"
                  for q, e in zip(m.names, m.exprs)]
        if m.mean:
            lines += slots + [f"{ind}{acc[q]} = {acc[q]} / Z.shape[0]" for q in m.names]
        return lines
