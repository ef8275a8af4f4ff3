"""Blocks after the vector loop step every slot (:mod:`.coordloop`): the slots that do not step at a sweep
are parked instead of each update being a select on the slot's ``go``.

A :class:`~.stepitems.PerCoordinate` block after the vector loop updates the per-coordinate States and
parameters of the slots that step. Gated per slot, every such update is ``select(go, new, old)``: on the
diagonal network's SGD at d = 30 those selects cost ~20% of a step (measured against the same loop with
``go`` the constant True). So the blocked engine prints the blocks with ``go = True`` and parks the slots
that do not step at this sweep (a lane stopped by a before-rule or a checkpoint, or waiting for the
chunk's end to be written out; an empty slot): the per-coordinate rows the blocks write are copied
aside before the blocks and back after the scalar pass, whose RareUpdates may be flagged for a parked
slot too. A parked slot thus leaves the sweep as it came; the step it was given is discarded, and
since it is always one step from a state of its own, no value accumulates over sweeps (no drift into
subnormal or non-finite numbers). Most sweeps have no parked slot: the slots' ``go`` rows are counted
first and both passes skipped (E1 SGD, b = 1: ~1.5% of a step). The lane-by-lane engine
(:mod:`.steplanewise`, one slot) keeps the selects.
"""
from __future__ import annotations


class ParkedSlots:
    """Methods of :class:`verify.dynamics.stepkernel.KernelBuilder` for parking the slots that do not step."""

    ungated_post = True  # the blocks after the vector loop step every slot (see the module docstring)
    post_go_row = None  # the go row of the first block after the vector loop (they all hold the same)
    parked_rows = 1  # the rows a parked slot keeps aside (SV's first size; set by parked_slots)

    def parked_slots(self) -> tuple[list[str], list[str]]:
        """The blocks after the vector loop step every slot of the block, as if it stepped: branch-free
        updates without a select per slot and quantity (the diagonal network's SGD at d = 30: a select
        on ``go`` per State cost ~20% of its step). A slot that does not step at this sweep (stopped,
        at its budget, empty) is parked: the per-coordinate rows those blocks write (the parameters
        and States) are copied to ``SV`` before them and back after the scalar pass (whose RareUpdates
        may be flagged for it too), so it leaves the sweep as it came; its discarded step is one step
        from a state of its own, so it never accumulates (subnormal or non-finite values). Returns
        the lines before the blocks and after the scalar pass (relative indent)."""
        if self.post_go_row is None:
            return [], []
        rows = sorted(self.cr[q] for q in (*self.written, *self.written_states))
        self.parked_rows = len(rows)
        go = self.post_go_row
        save = [f"SV[{m}, j, b] = {self.cell(r)}" for m, r in enumerate(rows)]
        back = [f"{self.cell(r)} = SV[{m}, j, b]" for m, r in enumerate(rows)]
        head = ["    for b in range(w):  # slots that do not step: their rows kept aside", f"        if N[{go}, b] == 0:",
                "            for j in range(d):"]
        # counted first (a loop the compiler vectorises): most sweeps park no slot and skip both passes
        count = ["parked = 0", "for b in range(w):", f"    parked += 1 if N[{go}, b] == 0 else 0"]
        return ([*count, "if parked > 0:", *head, *("                " + x for x in save)],
                ["if parked > 0:", *head, *("                " + x for x in back)])
