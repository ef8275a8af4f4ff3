"""The RareUpdates of a coordinate loop (:mod:`.coordloop`): their scalar pass, and the switch to the
copy of the loop without them (:attr:`~.stepitems.RareUpdate.absent_if`).

A :class:`~.stepitems.RareUpdate` in a :class:`~.stepitems.PerCoordinate` block flags, coordinate by
coordinate, where its condition holds; the vector loop holds the States it writes there (a select per
State and coordinate) and the scalar pass redoes them. With ``absent_if`` declared, the block's loop
is printed a second time without the RareUpdates (no flag set, no State held), and each step runs that
copy when every stepping slot meets ``absent_if`` — a scalar read before the loop, which the
declaration vouches implies "nowhere" (the diagonal network: max_j |s_j| < 0.05 ⇒ no |s_j| ≥ 0.05).
Either copy gives the same bits where the condition holds nowhere: the held States' selects then keep
every update. With a :class:`~.stepseries.TruncatedSeries` the copy without the RareUpdates is the one
printed per term count; the copy with them sums all the terms (more terms give the same bits).
"""
from __future__ import annotations

from .stepitems import Let, PerCoordinate, RareUpdate, State
from .stepitems import reads as _free
from .stepprint import code_name


class RareUpdateItems:
    """Mixed into :class:`.coordloop.CoordinateItems` (which provides ``expr``, ``scalar_rows``,
    ``cell``, ``cr``, ``fam``, ``k`` and the scalar pass ``scalar``)."""

    def coord_rare_pass(self, n, item: RareUpdate, flag: int) -> None:
        """The scalar pass of a RareUpdate in a coordinate loop: for each coordinate where it holds."""
        names = self.scalar_rows(True)
        own = {i.name for i in item.items if isinstance(i, State)}
        advanced = set(self.k.params) | {i.name for i in (*self.k.row_lets, *self.k.body) if isinstance(i, PerCoordinate)
                                         for i in i.items if isinstance(i, State)}
        for s in _free(item):
            if s in self.fam:
                if s not in self.cr:
                    raise ValueError(f"step kernel: RareUpdate reads {s}, not a row")
                if s in advanced and s not in own:
                    # the scalar pass runs after the coordinate loop stored θ_{t+1} and the States'
                    # next values (its own States are held back where it fires): it would read step t+1
                    raise ValueError(f"step kernel: a per-coordinate RareUpdate reads {s}, which its block "
                                     "has already advanced; pass the value through a Let of the block")
                names[s] = self.cell(self.cr[s])
        code = ["    for j in range(d):", f"        if {self.expr(item.where, 'RareUpdate', False, names)}:"]
        for i in item.items:
            if isinstance(i, Let):
                code.append(f"            {code_name(f's{n}', i.name)} = {self.expr(i.expr, 'RareUpdate', False, names)}")
                names[i.name] = code_name(f"s{n}", i.name)
            elif isinstance(i, State) and i.name in self.cr:
                code.append(f"            {self.cell(self.cr[i.name])} = {self.expr(i.next, 'RareUpdate', False, names)}")
            else:
                raise TypeError(f"step kernel: {i!r} cannot be a per-coordinate RareUpdate item")
        self.scalar += [f"if N[{flag}, b]:", *code]

    def rare_switch(self, n, absent: list, go_row: int, plain: list[str], lines: list[str]) -> list[str]:
        """``plain`` (the block's loop without its RareUpdates) if every stepping slot meets every
        ``absent`` condition (read from its rows, before the loop), else ``lines``."""
        cond = " and ".join(f"({self.expr(a, 'RareUpdate absent_if', False, self.scalar_rows(True))})"
                            for a in absent)
        flag = f"rare{n}"
        return ([f"{flag} = False", "for b in range(w):", f"    if N[{go_row}, b] != 0 and not ({cond}):",
                 f"        {flag} = True",
                 f"if not {flag}:  # the RareUpdates' conditions hold at no coordinate of a stepping slot"]
                + ["    " + line for line in plain] + ["else:"] + ["    " + line for line in lines])
