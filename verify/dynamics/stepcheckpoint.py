"""The :class:`~.stepitems.Checkpoint` before-rules of a declared step kernel (:mod:`.stepkernel`): a test
in the vector loop, and the items and stop conditions in scalar code for the flagged slots.

A checkpoint's lane does not step at its sweep: the scalar pass after the vector loop evaluates its
items (Lets, States, row means — over all rows, the full loss; in a kernel with per-coordinate
quantities a row's Reduce over the coordinates, :mod:`.batchrows`) and then its stop conditions; if none
holds, the pass is recorded for this step and the lane steps at the next sweep. The first before-rule,
when it is a checkpoint that reads nothing of the prelude and writes no State read before the vector
loop, is decided before the vector loop instead (the same code for every running slot where its
condition holds): a lane that passes steps in the same sweep, so no sweep idles per check (~10% of the
diagonal network's SGD step at check_every = 20). Only such a checkpoint may read per-coordinate
parameters and States (:meth:`CheckpointItems.decided_early`). Its leading row means run for every slot
at once, the slots innermost, when at least a quarter of the slots check at this step (lanes started
together check together), else slot by slot (:meth:`CheckpointItems.across_slot_means`).
"""
from __future__ import annotations

import sympy as sp

from .stepitems import T, Checkpoint, Let, PerCoordinate, RowMean, State, reads
from .stepprint import INDENT, code_name

_CHUNK = 32  # steps between refills of finished slots (see chunk_length)
_ACROSS = 4  # the checkpoint's row means run for every slot at once when 4 × (slots that check) >= w


class CheckpointItems:
    """Methods of :class:`verify.dynamics.stepkernel.KernelBuilder` for checkpoints."""

    def checkpoint(self, j: int, item: Checkpoint, earlier: str) -> str:
        """The vector loop's test of checkpoint ``j`` (a flag for the scalar pass, which runs its items
        and stop conditions, or records that it passed at this t) — returns the local that holds it."""
        rp = self.nrow(("passed", j))
        self.loads_i.append((rp, -1))
        here = f"v_check{j}"
        snames = {T: "N[2, b]", **{s: code_name("c", s) for s in self.k.constants}, **self.state_rows}
        snames.update({q: f"F[{self.fr[q]}, b]" for q in self.lane_rows})
        own = {i.name for i in item.items if isinstance(i, Let)}
        own |= {q for i in item.items if isinstance(i, RowMean) for q in (*i.names, *(c.name for c in i.lets))}
        own |= set(self.k.data)
        free = set()
        for i in item.items:
            free |= reads(i.expr) if isinstance(i, Let) else reads(i.next) if isinstance(i, State) else reads(i)
        for c, _ in item.stop:
            free |= sp.sympify(c).free_symbols
        # prelude quantities: stashed (per-coordinate ones are read from their rows, .batchrows)
        stashed = sorted(free - own - set(snames) - self.fam, key=lambda q: q.name)
        early = self.decided_early(j, item, stashed, set(snames))
        self.check_cell_reads(item, early)
        if early:  # the pre-pass has recorded the pass or stopped the lane: the vector loop's test is false
            self.body.append(f"{INDENT}{here} = False")
        else:
            rf = self.nrow(("checkpoint", j))
            self.flags.append(rf)
            self.body += [f"{INDENT}{here} = {self.expr(item.where, 'checkpoint')} & (N[{rp}, b] != t)",
                          f"{INDENT}N[{rf}, b] = 1 if ({earlier} & {here}) else 0"]
        for q in stashed:
            if q not in self.names:
                raise ValueError(f"step kernel: checkpoint uses {q}, not declared before it")
            rs = self.frow(("stash", j, q))
            self.body.append(f"{INDENT}F[{rs}, b] = {self.names[q]}")
            snames[q] = f"F[{rs}, b]"
        # the slots it runs for: those whose flag the vector loop set, or (decided before the vector loop)
        # the running ones where its condition holds and that have not passed it at this step
        due = (f"(N[1, b] == -1) & {self.expr(item.where, 'checkpoint', False, snames)} & (N[{rp}, b] != N[2, b])"
               if early else None)
        # the leading row means of a checkpoint decided before the vector loop, for every slot at once
        # when enough slots check at this step (slots that start together check together: a sweep's
        # lanes started in the same sweep stay aligned to the check period)
        n_lead = self.across_slot_means(item) if early and self.fam else 0
        across = item.items[:n_lead]
        sums = {q: self.frow(("checkpoint sum", j, q)) for m in across for q in m.names}
        across_slots = f"{_ACROSS} * due_slots{j} >= w"
        across_names = dict(snames)  # the pass for every slot reads the earlier leading means' rows
        code = [f"if {due}:" if early else f"if N[{rf}, b]:"]
        for n_item, i in enumerate(item.items):
            if isinstance(i, Let):
                code.append(f"    {code_name('s', i.name)} = {self.expr(i.expr, 'checkpoint', i.printed_order, snames)}")
                snames[i.name] = code_name("s", i.name)
            elif isinstance(i, State):
                code.append(f"    {self.state_rows[i.name]} = {self.expr(i.next, 'checkpoint', False, snames)}")
            elif isinstance(i, RowMean):
                lines = self.checkpoint_row_mean(i, snames, early) if self.fam else self.row_mean(i, snames, vector=False)
                if n_item < n_lead:  # computed for every slot already, or for this one here
                    lines = [f"if {across_slots}:", *(f"    {code_name('s', q)} = F[{sums[q]}, b]" for q in i.names),
                             "else:", *("    " + line for line in lines)]
                code += ["    " + line for line in lines]
                snames.update({q: code_name("s", q) for q in i.names})
            else:
                raise TypeError(f"step kernel: {i!r} cannot be a checkpoint item")
        for n, (c, o) in enumerate(item.stop):
            code += [f"    {'if' if n == 0 else 'elif'} {self.expr(c, 'checkpoint', False, snames)}:",
                     f"        N[1, b] = {int(o)}"]
        code += ["    else:" if item.stop else "    if True:", f"        N[{rp}, b] = N[2, b]"]
        if across:  # the slots that check counted first
            self.pre_checks += [f"due_slots{j} = 0", "for b in range(w):", f"    due_slots{j} += 1 if {due} else 0",
                                f"if {across_slots}:  # the row means for every slot (vectorised)"]
            for m in across:
                self.pre_checks += ["    " + line for line in self.checkpoint_row_mean(m, across_names, early, sums)]
                across_names.update({q: f"F[{sums[q]}, b]" for q in m.names})
        if early:  # decided before the vector loop: a lane that passes steps in this sweep
            loop = ["for b in range(w):  # the checkpoint, before the step (no sweep idles for it)",
                    *("    " + line for line in code)]
            # with the slots that check counted, a step where none does skips the loop over the slots
            self.pre_checks += [f"if due_slots{j} > 0:", *("    " + line for line in loop)] if across else loop
        else:
            self.scalar += code
        return here

    @staticmethod
    def across_slot_means(item: Checkpoint) -> int:
        """How many row means lead ``item``'s items (they read no Let or State of the checkpoint; a later
        one may read an earlier one's sums), which a checkpoint decided before the vector loop computes
        for every slot at once when at least 1/_ACROSS of the slots check at this step (the diagonal
        network's SGD: the full loss over n = 20 rows, one slot at a time, cost ~3.5x per slot what 32
        slots at once cost). The lane-by-lane engine (one slot) has none."""
        n_lead = 0
        while n_lead < len(item.items) and isinstance(item.items[n_lead], RowMean):
            n_lead += 1
        return n_lead

    def decided_early(self, j: int, item: Checkpoint, stashed: list, scalars: set) -> bool:
        """Whether checkpoint ``j`` is decided before the vector loop: it is the first before-rule, its
        condition, items and stop conditions read nothing of the prelude (no stash: ``stashed`` empty,
        the condition's symbols in ``scalars``), and no row let, row mean or coordinate block before the
        vector loop reads a State it writes (they run before it in the sweep)."""
        k = self.k
        written = {i.name for i in item.items if isinstance(i, State)}
        before_loop = []
        for i in k.body:
            if not isinstance(i, PerCoordinate):
                break
            before_loop.append(i)
        return (j == 0 and not stashed and reads(item.where) <= scalars
                and not written & reads((k.row_lets, k.row_means, tuple(before_loop))))

    def check_cell_reads(self, item: Checkpoint, early: bool) -> None:
        """Only a checkpoint decided before the vector loop may read the per-coordinate parameters and
        States: one decided in the scalar pass would read, for a slot that did not step, the discarded
        step it holds until that pass has run (.coordpark). The row lets and the data are safe."""
        k = self.k
        row_lets = {c.name for blk in k.row_lets for c in (blk.items if isinstance(blk, PerCoordinate) else (blk,))}
        cells = (reads(item.items) & self.fam) - set(k.data) - row_lets
        if cells and not early:
            raise ValueError(f"step kernel: a checkpoint that reads per-coordinate parameters or States "
                             f"({', '.join(sorted(map(str, cells)))}) must be decided before the vector loop: "
                             "the first before-rule, reading nothing of the prelude (see decided_early)")


def chunk_length(bld, lanewise: bool) -> str:
    """The engine's line setting ``chunk``, the steps between refills of finished slots: ``_CHUNK``, or,
    in a blocked kernel with one period c of T mod c (a check every c steps: an integer constant, the
    residues of :class:`.stepkernel.KernelBuilder`), the least multiple of c at or above ``_CHUNK`` when
    c ≤ ``_CHUNK``. Lanes are then loaded at sweeps ≡ 0 mod c, as the first ones, so every lane of the block
    checks at the same sweeps, and a checkpoint's row means run for every slot at once
    (:meth:`CheckpointItems.across_slot_means`); refilled every 32 steps with c = 5, the
    lanes' checks spread over the sweeps, and each slot computed its full loss alone (even2023's SGD on
    E3 with 256 lanes: the kernel took ~1.4x the lane pool's time, which loads lanes at its checks).
    ``bld``: the kernel's builder, after the body is emitted."""
    moduli = sorted({code_name("c", m.args[1]) for m in bld.residues})
    if lanewise or len(moduli) != 1:
        return f"    chunk = {_CHUNK}"
    c = moduli[0]
    return (f"    # lanes loaded at sweeps ≡ 0 mod {c} check at the same sweeps (stepcheckpoint.chunk_length)\n"
            f"    chunk = -(-{_CHUNK} // {c}) * {c} if 0 < {c} <= {_CHUNK} else {_CHUNK}")
