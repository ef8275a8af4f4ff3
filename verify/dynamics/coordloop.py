"""Repeated coordinates in a declared step kernel (:mod:`.stepkernel`): quantities indexed by a
coordinate j = 0..d−1, d a run-time size, printed once inside loops over j.

A kernel with :attr:`~.stepitems.StepKernel.coordinates` (its per-coordinate parameters, lane inputs
and data symbols) and :class:`~.stepitems.PerCoordinate` blocks is generated for every d at once: d is
read from the inputs' shapes (the columns of ``Z`` before its scalar data, else the rows of ``I``), so
one compiled engine serves every dimension — an unrolled declaration (symbols u0…u{d−1}) compiles
per d, in a time that grows with d.

Where the pieces go (each a loop over j around the branch-free loop over the block's slots, which
stays the vectorised one):

* ``row_lets``: a PerCoordinate block of Lets (β_j = u_j v_j) before the row means (or, with mini-batch
  rows, printed where read: :meth:`.coordrows.CoordinateRowMeans.inline_row_lets`);
* ``row_means`` (printed by :mod:`.coordrows`): a :class:`~.stepitems.RowMean` whose expression reads
  a per-coordinate quantity accumulates a per-coordinate sum (G_j = Σ_i r_i x_ij); its per-row
  intermediates may be :class:`~.stepitems.Reduce` — an in-order reduction over j (the residual
  r_i = (…(−y_i + x_i0 β_0) + …) + x_{i,d−1} β_{d−1});
* ``body``: the PerCoordinate blocks before its first other item run before the vector loop (Lets
  and Reduces of the rows: the parameters, lane inputs, States and row means at θ_t — s_j = γ G_j/n,
  max_j |s_j|), and the vector loop reads their Reduces; those after it run after the vector loop
  (Lets, States, RareUpdates, the next values of the per-coordinate parameters; a
  :class:`~.stepseries.TruncatedSeries` prints the loop once per term count, a RareUpdate's
  ``absent_if`` once more without it, :mod:`.coordrare`), stepping every slot — the slots that do
  not step at this sweep parked, :mod:`.coordpark` (the lane-by-lane engine gates each update by the
  lane's ``go``) — and reading the vector loop's quantities as they were at this step (stashed);
  :class:`~.stepitems.Doublings` may sample per-coordinate States.

Layout: the per-coordinate rows live in an array ``C`` of their own, one row per coordinate j holding
its K rows of W slots, ``C[j, k·W + b]``: within the loop over the slots every per-coordinate access
is a row of one coordinate plus a constant, as the scalar rows are (:mod:`.steplayout`). A data row's
sums run in groups of rows, a Reduce over j a few coordinates per loop step, the running values in
registers (a block's Reduces too: :meth:`CoordinateItems.registers_loop`). Once no lane is left to
load, the live slots move to the front of the block. A per-coordinate quantity takes d consecutive rows
of ``I`` and, as an output, of ``out_f``.

Speed: the loops run across the lanes of a block, so many lanes side by side run faster than a kernel
looping over one lane's coordinates and rows, few live lanes slower (the diagonal network at d = 30,
per lane: 128 live lanes 0.97-1.0× the hand-written kernel's speed, one ~0.3×); for few lanes the
same declaration is printed lane by lane, the coordinate and row loops innermost (:mod:`.steplanewise`).

Rounding: each item is printed as in the unrolled kernel, and a Reduce and a row mean run over j and
the rows in their declared order, so the coordinate loop changes no bit (tests/test_dln_step.py).
"""
from __future__ import annotations

import re

import sympy as sp

from . import stepseries
from .batchrows import BatchRowItems
from .coordpark import ParkedSlots
from .coordmatch import max_decided, search_pass
from .coordrows import CoordinateRowMeans, over_coordinates
from .coordrare import RareUpdateItems
from .steplayout import ROW_PAD
from .stepitems import Doublings, Let, PerCoordinate, RareUpdate, Reduce, State
from .stepitems import reads as _free
from .stepprint import INDENT, code_name, is_bool, lit, selects
from .stepseries import TruncatedSeries

_SV = "_SV_"  # placeholder for the parked rows' count, known once every block is printed
K_PLACEHOLDER = "_KC_"  # placeholder for K, the rows per coordinate, known once every row is allocated


def input_output_rows(symbols, per_coordinate) -> dict:
    """``symbol -> (a, c)``: its first row a·d + c of I (or out_f), the per-coordinate ones
    (``per_coordinate(symbol)``) taking d rows, the others one."""
    out, a, c = {}, 0, 0
    for q in symbols:
        out[q] = (a, c)
        a, c = (a + 1, c) if per_coordinate(q) else (a, c + 1)
    return out


class CoordinateItems(RareUpdateItems, BatchRowItems, ParkedSlots, CoordinateRowMeans):
    """Methods of :class:`verify.dynamics.stepkernel.KernelBuilder` for the per-coordinate quantities."""

    # a block's Reduces over j run in registers, UNROLL coordinates per loop step (registers_loop)
    reduce_registers = True
    # "some |e_j| = c" beside max_j |e_j|: searched after the loop where the max reaches c (.coordmatch)
    search_after_max = True

    def coord_init(self) -> None:
        k = self.k
        fam = set(k.coordinates)
        blocks = [i for i in (*k.row_lets, *k.body) if isinstance(i, PerCoordinate)]
        for blk in blocks:
            fam |= {i.name for i in blk.items if isinstance(i, (Let, State))}
        for m in k.row_means:
            per_row = {c.name for c in m.lets if isinstance(c, Let) and _free(c) & fam}
            fam |= {q for q, e in zip(m.names, m.exprs) if sp.sympify(e).free_symbols & (fam | per_row)}
        self.fam = fam
        self.cr: dict = {}  # per-coordinate quantity -> its row k within a coordinate
        self.cout: dict = {}  # output name -> its per-coordinate row
        self.reduce_rows: dict = {}  # Reduce name -> its row ("F[r, b]" or "N[r, b]")
        self.main_loads: list[str] = []  # the vector loop reads the Reduces of the blocks before it
        self.pre: list[str] = []  # the coordinate loops before the vector loop, after it
        self.post: list[str] = []
        self.stepped = False  # a body item other than a PerCoordinate block was emitted
        self.post_stash: dict = {}  # vector-loop quantity -> its row, for the blocks after it
        self.loads_c: list = []  # (per-coordinate row, initial value)
        self.written: set = set()  # the per-coordinate parameters a block writes
        self.written_states: set = set()  # the per-coordinate States a block writes
        self.bool_names = {i.name for i in (*k.prelude, *k.body) if isinstance(i, Let) and is_bool(i.expr)}
        self.inline_lets: dict = {}  # row lets printed where read (.coordrows.CoordinateRowMeans.inline_row_lets)
        self.stored_lets: dict = {}  # of those, the ones read from a row here ({name: its row}: checkpoint_row_mean)
        if not fam:
            return
        per_coordinate_data = [z for z in k.data if z in fam]
        if len(per_coordinate_data) > 1:
            # Z holds one per-coordinate data symbol's d columns, then the scalar ones (coord_size)
            raise ValueError(f"step kernel: at most one per-coordinate data symbol, got {per_coordinate_data}")
        if k.lane_constants and _free(k.lane_constants) & fam:
            raise ValueError("step kernel: a lane constant cannot read per-coordinate quantities")
        for q in (*k.params, *k.lane_inputs):
            if q in fam:
                self.crow(q)
                self.cout[q.name] = self.cr[q]
        for m in k.row_means:
            for q in m.names:
                if q in fam:
                    self.crow(q)
        # a block's Let is a row if something else reads it (a later block, a RareUpdate in the scalar
        # pass, an output); else a local of the loop
        for blk in blocks:
            own = [i for i in blk.items if isinstance(i, (Let, State, Reduce))]
            others = [i for b2 in blocks if b2 is not blk for i in b2.items]
            others += [i for i in blk.items if isinstance(i, RareUpdate)]
            others += [i for i in (*k.body, *k.prelude, *k.finals) if not isinstance(i, PerCoordinate)]
            read = _free(others) | {q for q in fam if q.name in k.float_outputs}
            for i in own:
                if isinstance(i, State) or (isinstance(i, Let) and i.name in read):
                    self.crow(i.name)
                if isinstance(i, State):
                    self.cout[i.name.name] = self.cr[i.name]
        self.inline_lets = self.inline_row_lets()

    def crow(self, key) -> int:
        self.cr[key] = len(self.cr)
        return self.cr[key]

    @staticmethod
    def cell(k: int, j: str = "j") -> str:
        return f"C[{j}, {k}, b]"

    # ------------------------------------------------------------------ names in a coordinate loop
    def scalar_rows(self, post: bool) -> dict:
        """The scalars a coordinate loop reads from rows: constants, lane rows, States at θ_t (before
        the vector loop; after it, the values stashed by it), the Reduces of earlier blocks."""
        k = self.k
        names = {s: code_name("c", s) for s in k.constants}
        fixed = (*k.lane_inputs, *(c.name for c in k.lane_constants), *(c.name for c in k.calls))
        if not post:
            names.update({q: f"F[{self.fr[q]}, b]" for q in self.lane_rows})
            names.update(self.state_rows)
        else:
            names.update({q: f"F[{self.fr[q]}, b]" for q in fixed if q in self.fr})
            names.update(self.post_stash)
        names.update({q: (f"({r} != 0)" if r.startswith("N") else r) for q, r in self.reduce_rows.items()})
        return names

    def stash_for_post(self, symbols) -> None:
        """The vector loop's quantities a later coordinate loop reads, as they are at this step."""
        fixed = {*self.k.lane_inputs, *(c.name for c in self.k.lane_constants), *self.k.constants,
                 *self.reduce_rows}
        for s in sorted(symbols, key=lambda s: s.name):
            if s in self.fam or s in fixed or s in self.post_stash or s not in self.names:
                continue
            if s.is_integer or s in self.bool_names:
                r = self.nrow(("post", s))
                self.body.append(f"{INDENT}N[{r}, b] = {self.names[s]}")
                self.post_stash[s] = f"N[{r}, b]" if s.is_integer else f"(N[{r}, b] != 0)"
            else:
                r = self.frow(("post", s))
                self.body.append(f"{INDENT}F[{r}, b] = {self.names[s]}")
                self.post_stash[s] = f"F[{r}, b]"

    # ------------------------------------------------------------------ blocks
    def per_coordinate(self, n, item: PerCoordinate, tag):
        post = self.stepped
        allowed = (Let, State, RareUpdate, TruncatedSeries) if post else (Let, Reduce)
        for i in item.items:
            if not isinstance(i, allowed):
                raise TypeError(f"step kernel: {i!r} cannot be in a PerCoordinate block "
                                f"{'after' if post else 'before'} the vector loop")
        if post:
            go = self.nrow(("go", n))
            self.body.append(f"{INDENT}N[{go}, b] = 1 if go else 0")
            self.stash_for_post(_free(item.items))
        rare = [i for i in item.items if isinstance(i, RareUpdate)]
        absent = [i.absent_if for i in rare if i.absent_if is not None]
        if absent and len(absent) != len(rare):
            raise ValueError("step kernel: give absent_if to every RareUpdate of a PerCoordinate block or to none")
        if _free(absent) & self.fam:
            raise ValueError(f"step kernel: a RareUpdate's absent_if reads {sorted(map(str, _free(absent) & self.fam))}, "
                             "per-coordinate quantities; it is one scalar condition per step (a Reduce of an "
                             "earlier block, a lane input or row)")
        plain: list | None = [] if absent else None
        lines = self.coordinate_loop(n, item.items, self.scalar_rows(post), go if post else None, plain)
        cuts = [i for i in item.items if isinstance(i, TruncatedSeries)]
        if len(cuts) > 1:
            raise ValueError("step kernel: one TruncatedSeries per PerCoordinate block (it may hold several series)")
        for cut in cuts:  # the block's loop once per term count (.stepseries)
            terms = stepseries.check(cut, item.items, self.fam)
            ratio = self.expr(cut.ratio, "TruncatedSeries", False, self.scalar_rows(post))
            if plain is None:
                lines = stepseries.versions(cut, terms, lines, self.local, ratio, go, n)
            else:  # the copy with the RareUpdates sums all the terms (more terms give the same bits; the
                # DLN's: max|s_j| >= 0.05 needs all 7 anyway)
                plain = stepseries.versions(cut, terms, plain, self.local, ratio, go, n)
        if plain is not None:
            lines = self.rare_switch(n, absent, go, plain, lines)
        if post and self.ungated_post:  # every slot steps in the loop; .parked_slots restores the others
            self.post_go_row = go if self.post_go_row is None else self.post_go_row
            gate = f"go = N[{go}, b] != 0"
            lines = [line.replace(gate, "go = True") for line in lines]
        (self.post if post else self.pre).extend(lines)

    def coordinate_loop(self, n, items, scalars: dict, go_row, plain: list | None = None) -> list[str]:
        """``for j: for b:`` around ``items``, with the Reduces' initial values and the RareUpdates'
        flags set before it (the flags ORed into ``extra`` after it). ``plain``, if given, receives
        the same loop without the RareUpdates (no flag set, no State held), for
        :attr:`~.stepitems.RareUpdate.absent_if`."""
        names = dict(scalars)
        head, body, tail = [], [], []
        # the body without the RareUpdates: no flag set per coordinate, no State held. The head and
        # tail stay around both copies: the head's reset clears a flag an earlier step's copy with
        # them set (the scalar pass must not redo that step's update), the tail then ORs in a zero
        bare: list[str] = []

        def both(line: str) -> None:
            body.append(line)
            bare.append(line)

        reads = _free(items)
        defined: set = set()
        held: dict = {}
        for i in items:
            if isinstance(i, RareUpdate):
                for s in i.items:
                    if isinstance(s, State):
                        held.setdefault(s.name, []).append(i.where)
        rare_flag = None
        loads = []
        registers: list = []  # (register, row, the row's value, boolean) per Reduce (reduce_registers)
        searched = max_decided(items, self.cr, self.k.params) if self.search_after_max and go_row is None and plain is None else {}
        searches: list = []
        searched_after: list = []  # their passes, after the loop
        lets = {i.name for i in items if isinstance(i, Let)}
        for s in sorted(reads - lets, key=lambda s: s.name):
            if s in self.written or s in self.written_states:
                # an earlier block already stored its value for the next step: this block would read
                # θ_{t+1} where every other item reads θ_t
                raise ValueError(f"step kernel: a PerCoordinate block reads {s}, which an earlier block has "
                                 "already advanced this step; read it in that block or before it")
            if s in self.fam and s in self.cr:
                loads.append(f"v{self.local(s)[1:]} = {self.cell(self.cr[s])}")
                names[s] = f"v{self.local(s)[1:]}"
        if go_row is not None:
            loads.insert(0, f"go = N[{go_row}, b] != 0")
        for i in items:
            tag = f"PerCoordinate {type(i).__name__}({getattr(i, 'name', '')})"
            if isinstance(i, Let):
                if i.name in names and i.name not in self.cr:
                    raise ValueError(f"step kernel: {i.name} declared twice")
                local = self.local(i.name)
                both(f"{local} = {self.expr(i.expr, tag, i.printed_order, names)}")
                names[i.name] = local
                if i.name in self.cr:
                    both(f"{self.cell(self.cr[i.name])} = {local}")
            elif isinstance(i, Reduce):
                boolean = is_bool(i.init)
                if boolean:
                    r = self.nrow(("reduce", i.name))
                    row, value = f"N[{r}, b]", f"(N[{r}, b] != 0)"
                    head.append(f"{row} = 1 if {self.expr(i.init, tag, False, scalars)} else 0")
                else:
                    r = self.frow(("reduce", i.name))
                    row = value = f"F[{r}, b]"
                    head.append(f"{row} = {self.expr(i.init, tag, False, scalars)}")
                if i.name in searched:
                    searches.append((i.name, row))
                elif self.reduce_registers:  # the running value in a register, its row read and written
                    reg = f"a{self.local(i.name)[1:]}"  # once per UNROLL coordinates (registers_loop)
                    registers.append((reg, row, value, boolean))
                    names[i.name] = reg
                    both(f"{reg} = {self.expr(i.next, tag, False, names)}")
                else:
                    names[i.name] = value
                    nxt = self.expr(i.next, tag, False, names)
                    both(f"{row} = 1 if {nxt} else 0" if boolean else f"{row} = {nxt}")
                self.reduce_rows[i.name] = row
                if i.name in self.names:
                    raise ValueError(f"step kernel: {i.name} declared twice")
                self.names[i.name] = self.local(i.name)
                self.main_loads.append(f"{INDENT}{self.local(i.name)} = {value}")
            elif isinstance(i, State):
                row = self.cell(self.cr[i.name])
                cond = "go" if i.where is True else f"go & {self.expr(i.where, tag, False, names)}"
                held_by = "".join(f" & (not {self.expr(w, tag, False, names)})" for w in held.get(i.name, ()))
                nxt = self.expr(i.next, tag, False, names)
                body.append(f"{row} = {nxt} if ({cond}{held_by}) else {row}")
                bare.append(f"{row} = {nxt} if ({cond}) else {row}")
                self.loads_c.append((self.cr[i.name], i.init))
                self.written_states.add(i.name)
            elif isinstance(i, RareUpdate):
                here = f"(go & {self.expr(i.where, tag, False, names)})"
                if rare_flag is None:
                    rare_flag = self.nrow(("rareupdate", n))
                    head.append(f"N[{rare_flag}, b] = 0")
                    tail.append(f"extra |= N[{rare_flag}, b]")
                body.append(f"N[{rare_flag}, b] = 1 if (N[{rare_flag}, b] | {here}) else 0")
                self.coord_rare_pass(n, i, rare_flag)
            defined.add(getattr(i, "name", None))
        for p, q in zip(self.k.params, self.k.next_params):  # θ_j' written once the block has it
            if p in self.fam and q in defined:
                if p not in names:
                    loads.append(f"{self.local(p)} = {self.cell(self.cr[p])}")
                    names[p] = self.local(p)
                both(f"{self.cell(self.cr[p])} = {names[q]} if go else {names[p]}")
                self.written.add(p)
        for h, row in searches:
            m, e, c = searched[h]
            found = self.expr(sp.Eq(sp.Abs(e), c), "PerCoordinate Reduce", False, {**names, e: self.cell(self.cr[e])})
            searched_after += search_pass(row, self.reduce_rows[m], lit(float(c)), found)

        def loop(stmts: list[str]) -> list[str]:
            lines = []
            if head:
                lines += ["for b in range(w):", *selects([f"    {h}" for h in head])]
            if registers:
                lines += self.registers_loop(registers, loads, stmts)
            else:
                lines += ["for j in range(d):", "    for b in range(w):"]
                lines += selects([" " * 8 + s for s in (*loads, *stmts)])
            if tail:
                lines += ["for b in range(w):", *(f"    {s}" for s in tail)]
            return lines + searched_after

        if plain is not None:
            plain[:] = loop(bare)
        return loop(body)

    @staticmethod
    def registers_loop(registers: list, loads: list, stmts: list) -> list[str]:
        """``for j: for b:`` around a block with Reduces whose running values are in registers
        (:func:`.coordrows.over_coordinates`, the pool's way in :mod:`claims.even2023._sgd_lanes`):
        each Reduce's row read before ``UNROLL`` coordinates and written after them."""
        read = selects([f"{reg} = {value}" for reg, _, value, _ in registers])
        write = selects([f"{row} = 1 if {reg} else 0" if boolean else f"{row} = {reg}"
                         for reg, row, _, boolean in registers])
        one = selects([*loads, *stmts])
        # coordinate j + q: a loop index plus a literal, which LLVM knows is >= 0 (coord_layout); a
        # statement reading j elsewhere than in a row of C (none can today) keeps one coordinate per step
        unroll = not any(re.search(r"\bj\b", s.replace("C[j, ", "")) for s in one)
        return over_coordinates(["for b in range(w):"], read, lambda j: [s.replace("C[j, ", f"C[{j}, ") for s in one],
                                write, unroll)

    def coord_doublings(self, n, item: Doublings, tag) -> None:
        """Doublings of per-coordinate States: n_snap rows per coordinate, copied in the scalar pass."""
        nv = len(item.values)
        rows = [self.crow((item.name, q)) for q in range(item.count * nv)]
        if not rows:
            return
        self.loads_c += [(r, 0.0) for r in rows]
        rf = self.nrow(("doublings", n))
        self.flags.append(rf)
        self.post_flags.append(f"{INDENT}N[{rf}, b] = 1 if (go & (status == -1) & (((t + 1) & t) == 0) & "
                               f"(t + 1 < {2 ** item.count})) else 0")
        self.scalar += [f"if N[{rf}, b]:", "    kk = N[2, b]", "    jp = 0",
                        "    while kk > 1:", "        kk >>= 1", "        jp += 1", "    for j in range(d):"]
        for q, v in enumerate(item.values):
            if v not in self.cr:
                raise ValueError(f"step kernel: Doublings of {v}: not a per-coordinate State")
            self.scalar.append(f"        C[j, {rows[0]} + {nv} * jp + {q}, b] = {self.cell(self.cr[v])}")
        self.cout.update({f"{item.name}_{p}_{q}": rows[p * nv + q] for p in range(item.count) for q in range(nv)})

    # ------------------------------------------------------------------ load, store, template
    def io_rows(self, symbols) -> dict:
        return input_output_rows(symbols, lambda q: q in self.fam or (isinstance(q, str) and q in self.cout))

    def coord_load_lines(self) -> list[str]:
        k = self.k
        rows = self.io_rows((*k.params, *k.lane_inputs))
        load = []
        for q, (a, c) in rows.items():
            if q in self.fam:
                load += ["    for j in range(d):", f"        {self.cell(self.cr[q])} = I[{a} * d + {c} + j, i]"]
            else:
                load.append(f"    F[{self.fr[q]}, b] = I[{a} * d + {c}, i]")
        names = {q: f"F[{self.fr[q]}, b]" for q in k.lane_inputs if q not in self.fam}
        names.update({q: self.cell(self.cr[q]) for q in k.lane_inputs if q in self.fam})
        names.update({s: code_name("c", s) for s in k.constants})
        for c in k.lane_constants:
            load.append(f"    F[{self.fr[c.name]}, b] = {self.expr(c.expr, 'lane constant', False, names)}")
        for r, v in self.loads_f:
            load.append(f"    F[{r}, b] = {v if isinstance(v, str) else self.expr(v, 'init', False, names)}")
        if self.loads_c:
            load.append("    for j in range(d):")
            load += [f"        {self.cell(r)} = {self.expr(v, 'init', False, names)}" for r, v in self.loads_c]
        load += ["    N[0, b] = i", "    N[1, b] = -1", "    N[2, b] = 0"]
        return load + [f"    N[{r}, b] = {v}" for r, v in self.loads_i]

    def coord_store_lines(self) -> list[str]:
        k = self.k
        store = ["    i = N[0, b]", "    status = N[1, b]"]
        for name in k.int_outputs:
            self.check_output(name, integer=True)
        store += [f"    out_i[{j}, i] = {self.stores_i[name]}" for j, name in enumerate(k.int_outputs)]
        rows = self.io_rows(k.float_outputs)
        per = sum(1 for name in k.float_outputs if name in self.cout)
        self.out_f_rows = (per, len(k.float_outputs) - per)  # out_f needs per·d + scalar rows
        for name, (a, c) in rows.items():
            self.check_output(name)
            if name in self.cout:
                store += ["    for j in range(d):", f"        out_f[{a} * d + {c} + j, i] = {self.cell(self.cout[name])}"]
                continue
            value = self.stores_f[name]
            for o, oname, v in k.stop.overrides:
                if oname == name:
                    value = f"({lit(v)} if status == {int(o)} else {value})"
            store.append(f"    out_f[{a} * d + {c}, i] = {value}")
        return store

    def coord_compaction(self, nfl: int, nin: int, width: int) -> tuple[str, str]:
        """Once no lane is left to load, the live slots are moved to the front of the block and the
        loops over the slots shortened to them: a block whose lanes stop at different steps no longer
        runs its empty slots (a lane's arithmetic does not depend on its slot). The code after the
        refill loop, and ``_move``."""
        compact = f"""
        if nxt >= n:  # no lane left to load: the live slots to the front, the loops over them only
            b = 0
            while b < w:
                if N[1, b] == -2:
                    w -= 1
                    if b < w:
                        _move(w, b, F, N, C, d)
                        N[{width} + w] = -2  # row 1: the status
                else:
                    b += 1"""
        move = f"""

@numba.njit(cache=True)
def _move(a, b, F, N, C, d):
    for r in range({nfl}):
        F[r * {width} + b] = F[r * {width} + a]
    for r in range({nin}):
        N[r * {width} + b] = N[r * {width} + a]
    for j in range(d):
        for k in range({max(len(self.cr), 1)}):
            C[j, k * {width} + b] = C[j, k * {width} + a]
"""
        return compact, move

    def coord_buffer(self, width: int) -> str:
        """The engine's lines allocating the per-coordinate rows (d from the inputs' shapes), after a
        check that out_f has the rows its outputs need for this d (after :meth:`coord_store_lines`)."""
        lines = f"\n    d = {self.coord_size()}{self.out_f_check()}\n    C = np.zeros((d, {K_PLACEHOLDER} * {width} + {ROW_PAD}))"
        if self.post_go_row is not None:
            lines += f"\n    SV = np.zeros(({_SV}, d, {width}))  # the rows of slots that do not step (parked_slots)"
        return lines

    def out_f_check(self) -> str:
        """The engine's check that out_f has the rows its outputs need for d, per-coordinate outputs
        taking d each: d is read from the inputs, so only the engine can check it (it indexes without
        bounds checks: too few rows would be written past, not refused)."""
        per, scalar = self.out_f_rows
        return (f"\n    if out_f.shape[0] < {per} * d + {scalar}:"
                f"\n        raise ValueError('out_f has fewer rows than the outputs need for this d')")

    def coord_check(self) -> None:
        for p in self.k.params:
            if p in self.fam and p not in self.written:
                raise ValueError(f"step kernel: per-coordinate parameter {p} has no next value in a block")

    def coord_layout(self, source: str, width: int) -> str:
        """The per-coordinate rows ``C[j, k, b]`` laid out in rows of ``width`` slots, ``C[j, k·width + b]``
        (C has d rows: one per coordinate, its K rows side by side; j a loop index or j + a literal,
        which LLVM knows is >= 0: a computed flat index kept numba's negative-index wraparound and
        ran ~2× slower)."""
        def flat(m):
            j, row = m.groups()
            return f"C[{j}, {int(row) * width} + b]" if row.isdigit() else f"C[{j}, ({row}) * {width} + b]"

        source = re.sub(r"\bC\[([^\[\],]+), ([^\[\],]+), b\]", flat, source)
        source = re.sub(rf"\b{K_PLACEHOLDER}\b", str(max(len(self.cr), 1)), source)
        return re.sub(rf"\b{_SV}\b", str(self.parked_rows), source)

    def coord_size(self) -> str:
        """d from the inputs' shapes."""
        k = self.k
        nd = [z for z in k.data if z in self.fam]
        if nd:
            return f"Z.shape[1] - {len(k.data) - len(nd)}"
        inputs = (*k.params, *k.lane_inputs)
        nf = sum(1 for q in inputs if q in self.fam)
        return f"(I.shape[0] - {len(inputs) - nf}) // {nf}"
