"""The step-kernel items decided or recorded in the scalar pass or in many rows (:mod:`.stepkernel`):
:class:`~.stepitems.RareUpdate` (a rare branch of State updates redone in the scalar pass),
:class:`~.stepitems.Window` (the last values, a shift register) and :class:`~.stepitems.Doublings`
(States after the steps 2^j) — the generator's methods for them, mixed into its builder."""
from __future__ import annotations

import sympy as sp

from .stepitems import Doublings, Let, RareUpdate, State, Window
from .stepprint import INDENT, code_name


class ScalarPassItems:
    """Methods of :class:`verify.dynamics.stepkernel.KernelBuilder` (its rows, names, body and scalar pass)."""

    def stash(self, j, exprs, held=()) -> dict:
        """Names for the scalar pass: the step's quantities in ``exprs`` stashed in F rows by the vector
        loop (a State's as its value before the step); constants, lane rows and ``held`` States are there."""
        k, snames = self.k, dict(self.names)
        lane_constants = {c.name for c in k.lane_constants}
        free = set().union(*(sp.sympify(e).free_symbols for e in exprs))
        for s in sorted(free, key=lambda s: s.name):
            if s in k.lane_inputs or s in lane_constants:  # rows that do not change along the lane
                snames[s] = f"F[{self.fr[s]}, b]"
            elif s in held:
                snames[s] = self.state_rows[s]
            elif s not in k.constants and s in self.names:
                rs = self.frow(("stash", j, s))
                self.body.append(f"{INDENT}F[{rs}, b] = {self.names[s]}")
                snames[s] = f"F[{rs}, b]"
        return snames

    def rare_update(self, j, item: RareUpdate, tag):
        """A run of consecutive RareUpdates shares one flag (their conditions ORed); the scalar pass
        re-tests each condition. The States they write are held by the vector loop where they hold."""
        if item.absent_if is not None:
            raise TypeError("step kernel: absent_if is for a RareUpdate in a PerCoordinate block (a scalar "
                            "RareUpdate's condition is one test per step)")
        here = f"(go & {self.expr(item.where, tag)})"
        if self.rare_flag is None:
            self.rare_flag = rf = self.nrow(("rareupdate", j))
            self.flags.append(rf)
            self.body.append(f"{INDENT}N[{rf}, b] = 1 if {here} else 0")
        else:
            rf = self.rare_flag
            self.body.append(f"{INDENT}N[{rf}, b] = 1 if (N[{rf}, b] | {here}) else 0")
        held = {i.name for i in item.items if isinstance(i, State)}
        snames = self.stash(j, [item.where, *(i.expr if isinstance(i, Let) else i.next for i in item.items)], held)
        code = [f"if N[{rf}, b] and {self.expr(item.where, tag, False, snames)}:"]
        for i in item.items:
            if isinstance(i, Let):
                code.append(f"    {code_name(f's{j}', i.name)} = {self.expr(i.expr, tag, False, snames)}")
                snames[i.name] = code_name(f"s{j}", i.name)
            elif isinstance(i, State):
                code.append(f"    {self.state_rows[i.name]} = {self.expr(i.next, tag, False, snames)}")
            else:
                raise TypeError(f"step kernel: {i!r} cannot be a RareUpdate item")
        self.scalar += code

    def window(self, j, item: Window, tag):
        rows = [self.frow((item.name, q)) for q in range(item.size)]
        self.loads_f += [(r, "np.nan") for r in rows]
        if not rows:
            return
        cond = self.gate if item.where is True else f"{self.gate} & {self.expr(item.where, tag)}"
        self.body.append(f"{INDENT}rec{j} = {cond}")
        self.body += [f"{INDENT}F[{a}, b] = F[{c}, b] if rec{j} else F[{a}, b]" for a, c in zip(rows, rows[1:])]
        self.body.append(f"{INDENT}F[{rows[-1]}, b] = {self.expr(item.value, tag)} if rec{j} else F[{rows[-1]}, b]")
        self.stores_f.update({f"{item.name}_{q}": f"F[{r}, b]" for q, r in enumerate(rows)})

    def doublings(self, j, item: Doublings, tag):
        """Flagged after the stop rule (``status`` of the step) — see :func:`kernel_source`."""
        nv = len(item.values)
        rows = [self.frow((item.name, q)) for q in range(item.count * nv)]
        self.loads_f += [(r, "0.0") for r in rows]
        if not rows:
            return
        rf = self.nrow(("doublings", j))
        self.flags.append(rf)
        self.post_flags.append(f"{INDENT}N[{rf}, b] = 1 if (go & (status == -1) & (((t + 1) & t) == 0) & "
                               f"(t + 1 < {2 ** item.count})) else 0")
        self.scalar += [f"if N[{rf}, b]:", "    kk = N[2, b]", "    jp = 0",
                        "    while kk > 1:", "        kk >>= 1", "        jp += 1",
                        f"    base = {rows[0]} + {nv} * jp"]
        self.scalar += [f"    F[base + {q}, b] = {self.state_rows[v]}" for q, v in enumerate(item.values)]
        self.stores_f.update({f"{item.name}_{p}_{q}": f"F[{rows[p * nv + q]}, b]"
                              for p in range(item.count) for q in range(nv)})
