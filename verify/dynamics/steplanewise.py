"""A declared step kernel (:mod:`.stepkernel`) printed lane by lane: the same declaration, one lane at a
time, the loops over the coordinates and the data rows innermost.

The blocked engine runs its loops over a block's lane slots (up to 64, vectorised across them): many
lanes side by side run fast, but a lane runs at the speed of its block, so one live lane pays for the
slots' loop overhead at every coordinate and row (the diagonal network at d = 30, even2023: one lane
~4× slower than a hand-written loop over the coordinates). Printed lane by lane, the engine has one
slot and no loop over slots:

* every ``for b in range(w):`` of the blocked source is dropped (its body dedented) and the slot index
  is the constant ``b = 0``, so each item is the very expression the blocked engine prints;
* the per-coordinate rows are laid out ``C[k, j]``, a row per quantity, contiguous in the coordinates
  j, so that a loop over j reads and writes rows of consecutive values (the blocked ``C[j, k·W + b]``
  at W = 1 would step through a coordinate's K rows);
* a row mean's per-row intermediates are computed for every data row at once into rows ``R[c, i]``
  — a Reduce over j as ``for j: for i: R[c, i] = next``, vectorised over the rows, reading the data's
  per-coordinate columns transposed (``ZT[j, i]``, copied once per call) — then each scalar sum over
  the rows in order, then the per-coordinate sums, rows in order and the coordinates innermost
  (vectorised over j);
* a chunk of steps ends once the lane has finished (the blocked engine runs it to the end of the chunk
  with the lane halted: every update is gated by the lane stepping, so nothing changes);
* a row of ``C`` holds a literal number of coordinates (64; a call of more coordinates returns 1
  unrun, and :func:`.stepcompile.compiled_engine` runs the source whose rows hold the next power of
  two, :func:`.steplayout.stride_for`), so that LLVM sees every two rows a constant distance apart.

Rounding: every value is the same expression in the same operands as in the blocked engine, and every
sum over the rows or the coordinates runs in the declared order (a row's Reduce over j in j order,
each row mean's sum over the rows in row order: the blocked engine's groups of rows do the same), so
both engines give every output bit for bit (tests/test_stepkernel_lanewise.py), up to the sign and
payload of a NaN: where two NaNs meet in one operation (a NaN step size and NaN data, say) the CPU
keeps one operand's, and the two engines' loops may order those operands differently (seen on the
coordinate-loop test kernel; the diagonal network's outputs matched bit for bit in every case tried,
NaN step sizes included). Which one runs a call is chosen by the number of lanes
(:func:`.stepcompile.compiled_engine`), never changing a result.
"""
from __future__ import annotations

import re

from .coordloop import K_PLACEHOLDER
from .coordrows import slot_loop
from .stepitems import Reduce, RowMean, Window
from .stepitems import reads as _free
from .stepkernel import KernelBuilder
from .steplayout import STRIDE
from .stepprint import INDENT, sum_start

_SLOT_LOOP = re.compile(r"(\s*)for b in range\(w\):")
_INNER_LOOP = re.compile(r"(\s*)for [ij] in range\((d|Z\.shape\[0\])\):")
_SLOT_ROW = re.compile(r"\b([FN])\[(\d+) \+ b\]")


def drop_slot_loops(source: str) -> str:
    """``source`` with each ``for b in range(w):`` removed and its body dedented (one slot, ``b = 0``)."""
    out, open_loops = [], []  # the indents of the dropped loop headers enclosing the line
    for line in source.split("\n"):
        indent = len(line) - len(line.lstrip())
        if line.strip():
            while open_loops and indent <= open_loops[-1]:
                open_loops.pop()
        if _SLOT_LOOP.fullmatch(line.split("#")[0].rstrip()):
            open_loops.append(indent)
            continue
        out.append(line[4 * len(open_loops):] if line.strip() else line)
    return "\n".join(out)


def promote_slot_rows(source: str) -> str:
    """In each outermost loop over the coordinates or the data rows, the slot's rows it reads or writes
    (``F[r + b]``, ``N[r + b]``: scalars of the lane) as locals, loaded before the loop and stored
    after it: a running maximum or a flag in a register instead of a load and a store per coordinate,
    and loops that read and write only ``C``, ``R`` and the data, which LLVM can vectorise."""
    lines, out, q = source.split("\n"), [], 0
    while q < len(lines):
        head = _INNER_LOOP.fullmatch(lines[q])
        if not head:
            out.append(lines[q])
            q += 1
            continue
        indent = len(head.group(1))
        end = q + 1
        while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
            end += 1
        block = lines[q:end]
        text = "\n".join(block)
        rows = sorted(set(_SLOT_ROW.findall(text)), key=lambda m: (m[0], int(m[1])))
        if len(re.findall(r"\b[FN]\[", text)) != len(_SLOT_ROW.findall(text)):  # a row at a computed
            out += block  # index, which may be any of them: the loop left as it is
            q = end
            continue
        written = [(a, r) for a, r in rows if re.search(rf"^\s*{a}\[{r} \+ b\] [|+]?=", text, re.M)]
        local = {f"{a}[{r} + b]": f"r{a}{r}" for a, r in rows}
        pad = " " * indent
        out += [f"{pad}{local[f'{a}[{r} + b]']} = {a}[{r} + b]" for a, r in rows]
        out += _boolean_flags(pad, [_SLOT_ROW.sub(lambda m: local[m.group(0)], line) for line in block],
                              [f"r{a}{r}" for a, r in written if a == "N"])
        out += [f"{pad}{a}[{r} + b] = {local[f'{a}[{r} + b]']}" for a, r in written]
        q = end
    return "\n".join(out)


def _boolean_flags(pad: str, block: list[str], ints: list[str]) -> list[str]:
    """A promoted integer row that the loop only reads as ``(r != 0)`` and writes as
    ``r = select(c, 1, 0)`` (a boolean Reduce, a flag) carried as a boolean: ``r = r | c`` is one
    ``or`` per coordinate where the int costs a compare, an ``or`` and a select on the loop's chain
    (the diagonal network's "some s_j = ±1": a third of its fold loop at d = 30)."""
    for r in ints:
        text = "\n".join(block)
        reads, sets = text.count(f"({r} != 0)"), re.findall(rf"^\s*{r} = select\((.*), 1, 0\)$", text, re.M)
        if not sets or reads + len(sets) != len(re.findall(rf"\b{r}\b", text)):
            continue
        flag = "f" + r[1:]
        block = [re.sub(rf"^(\s*){r} = select\((.*), 1, 0\)$", rf"\1{flag} = \2", line).replace(f"({r} != 0)", flag)
                 for line in block]
        block = [f"{pad}{flag} = {r} != 0", *block, f"{pad}{r} = select({flag}, 1, 0)"]
    return block


class LanewiseBuilder(KernelBuilder):
    """:class:`verify.dynamics.stepkernel.KernelBuilder` printing one lane: the per-coordinate rows
    ``C[k, j]``, the row means row by row into ``R``, no compaction of the (single) slot."""

    chunk_exit = ("\n            if N[1, b] >= 0:  # the lane finished: the rest of the chunk would not step it"
                  "\n                break")

    def __init__(self, k, stride: int = STRIDE):
        if any(m.batch for m in k.row_means):
            raise ValueError(f"step kernel {k.label!r}: mini-batch rows (RowMean(batch=True)) are printed by the "
                             "blocked engine only; run it with lanewise_below=0")
        super().__init__(k)
        self.stride = stride  # coordinates per row of C, a literal of the source
        self.rings: list[str] = []  # the store's reads of the windows' ring positions

    @staticmethod
    def across_slot_means(item) -> int:
        """0: a checkpoint's row means for every slot at once (.stepcheckpoint) need more than one slot."""
        return 0

    def window(self, j, item: Window, tag):
        """The last values in a ring (the blocked engine shifts its rows, a select per row and step — a
        fifth of a lane's step at d = 10 —, to keep the vector loop branch-free): the value written at
        the ring's position, the outputs read from it oldest first, as the shift register holds them."""
        rows = [self.frow((item.name, q)) for q in range(item.size)]
        self.loads_f += [(r, "np.nan") for r in rows]
        if not rows:
            return
        rp = self.nrow(("ring", item.name))
        self.loads_i.append((rp, 0))
        cond = self.gate if item.where is True else f"{self.gate} & {self.expr(item.where, tag)}"
        self.body += [f"{INDENT}rec{j} = {cond}", f"{INDENT}pos{j} = N[{rp}, b]",
                      f"{INDENT}F[{rows[0]} + pos{j}, b] = {self.expr(item.value, tag)} if rec{j} else F[{rows[0]} + pos{j}, b]",
                      f"{INDENT}N[{rp}, b] = (0 if pos{j} == {item.size - 1} else pos{j} + 1) if rec{j} else pos{j}"]
        self.rings.append(f"    pos{j} = N[{rp}, b]")
        self.stores_f.update({f"{item.name}_{q}": f"F[{rows[0]} + (pos{j} + {q}) % {item.size}, b]"
                              for q in range(item.size)})

    def coordinate_loop(self, n, items, scalars: dict, go_row, plain: list | None = None) -> list[str]:
        """A block before the vector loop with Reduces as two loops when the Reduces read only the
        block's Lets stored in rows: the Lets (no value carried from one coordinate to the next: LLVM
        vectorises it, a division by n included), then the Reduces reading those rows — a running
        maximum is a chain of selects that keeps its loop scalar (the diagonal network's
        g_j = G_j/n, s_j = γ g_j, then max_j |s_j| and "some s_j = ±1")."""
        lines = super().coordinate_loop(n, items, scalars, go_row, plain)
        reduces = tuple(f"{self.reduce_rows[i.name]} =" for i in items if isinstance(i, Reduce))
        head = ["for j in range(d):", "    for b in range(w):"]
        if go_row is not None or not reduces or head[0] not in lines:
            return lines
        q = lines.index(head[0])
        body = lines[q + 2:]
        if lines[q + 1] != head[1] or not all(line.startswith(" " * 8) for line in body):
            return lines
        folds = [line for line in body if line.strip().startswith(reduces)]
        lets = [line for line in body if not line.strip().startswith(reduces)]
        stored = dict(m.groups()[::-1] for m in (re.fullmatch(r"\s*(C\[j, \d+, b\]) = (v_\w+)", line) for line in lets) if m)
        read = set(re.findall(r"\bv_\w+", " ".join(folds)))
        if not read <= set(stored) or any(r[:-2] in line for r in reduces for line in lets):
            return lines
        return lines[:q] + head + lets + head + [f"        {v} = {stored[v]}" for v in sorted(read)] + folds

    reduce_registers = False  # coordinate_loop's two-loop form below reads the Reduces' rows
    # (one lane: "some |e_j| = c" in the loop over j, a register; no search after it, .coordmatch)
    search_after_max = False
    ungated_post = False  # one slot: its selects are scalar ones, and a lane that stops leaves the chunk

    def store_lines(self) -> list[str]:
        lines = super().store_lines()
        return lines[:2] + self.rings + lines[2:]

    def coord_buffer(self, width: int) -> str:
        # R and ZT: .batchrows.BatchRowItems.batch_buffers
        return (f"\n    d = {self.coord_size()}{self.out_f_check()}\n    if d > {self.stride}:  # more coordinates than a row holds: "
                f"a source with a longer row runs this call\n        return 1\n    C = np.zeros({K_PLACEHOLDER} * {self.stride})")

    def coord_compaction(self, nfl: int, nin: int, width: int) -> tuple[str, str]:
        return "", ""

    def coord_layout(self, source: str, width: int) -> str:
        """``C[j, k, b]`` as ``C[k·S + j]``: a row of ``S`` coordinates per per-coordinate quantity, S a
        literal, so that LLVM sees every two rows a constant distance apart (no run-time alias checks:
        rows ``d`` apart, d known at run time only, left the coordinate loops scalar)."""
        def flat(m):
            j, row = m.groups()
            return f"C[{int(row) * self.stride} + {j}]" if row.isdigit() else f"C[({row}) * {self.stride} + {j}]"

        source = re.sub(r"\bC\[([^\[\],]+), ([^\[\],]+), b\]", flat, source)
        return re.sub(rf"\b{K_PLACEHOLDER}\b", str(max(len(self.cr), 1)), source)

    def finish(self, source: str, width: int) -> str:
        source = promote_slot_rows(drop_slot_loops(super().finish(source, width)))
        head = "    n = lanes.shape[0]\n"
        if source.count(head) != 1:
            raise AssertionError("lane-by-lane step kernel: the engine's head changed")
        return source.replace(head, head + "    if n == 0:\n        return 0\n    b = 0  # the one slot\n")

    def hoist(self, expr, names: dict, j: str) -> list[str]:
        """Loads of the per-coordinate rows ``expr`` reads at coordinate ``j`` into locals (``names``
        updated), before a loop over the data rows: the loop then reads and writes no row of ``C``."""
        lines = []
        for s in sorted(_free(expr) & set(self.cr), key=lambda s: s.name):
            local = f"h{self.local(s)[1:]}"
            lines.append(f"{local} = {self.cell(self.cr[s], j)}")
            names[s] = local
        return lines

    def coord_row_mean(self, m: RowMean, names: dict, rows: dict | None = None) -> list[str]:
        """``m`` row by row: the per-row intermediates of every row into ``R`` (a Reduce over j with the
        rows innermost), then each sum over the rows in row order (:mod:`.coordloop` prints the same
        terms in groups of rows; each sum's order is the same). (``rows``: the blocked printing's F rows
        of the intermediates, unused here.)"""
        start = sum_start(m.mean)
        acc = {q: (self.cell(self.cr[q]) if q in self.fam else f"F[{self.fr[q]}, b]") for q in m.names}
        lines = [f"{acc[q]} = {start}" for q in m.names if q not in self.fam]
        lines += slot_loop([f"{acc[q]} = {start}" for q in m.names if q in self.fam], True)
        rows = "for i in range(Z.shape[0]):"
        more, lets = self.every_row_intermediates(m, names, "row mean", hoist_coordinates=True)
        lines += more
        row = {**self.row_names(names, "i"), **lets}
        scalar = [(q, e) for q, e in zip(m.names, m.exprs) if q not in self.fam]
        if scalar:  # one running value per sum, in a register across the rows
            lines += [f"a{n} = {acc[q]}" for n, (q, _) in enumerate(scalar)] + [rows]
            lines += [f"    a{n} = a{n} + {self.expr(e, 'row mean', m.printed_order, row)}"
                      for n, (_, e) in enumerate(scalar)]
            lines += [f"{acc[q]} = a{n}" for n, (q, _) in enumerate(scalar)]
        per_coordinate = [(q, e) for q, e in zip(m.names, m.exprs) if q in self.fam]
        if per_coordinate:
            at_j = {**self.at(self.row_names(names, "i", "j"), "j"), **lets}
            hoisted = [f"h_{q} = {reg}" for q, reg in enumerate(lets.values())]  # row i's intermediates
            at_j.update({name: f"h_{q}" for q, name in enumerate(lets)})
            lines += [rows, *(f"    {h}" for h in hoisted), "    for j in range(d):"]
            lines += [f"        {acc[q]} = {acc[q]} + {self.expr(e, 'row mean', m.printed_order, at_j)}"
                      for q, e in per_coordinate]
        if m.mean:
            lines += [f"{acc[q]} = {acc[q]} / Z.shape[0]" for q in m.names if q not in self.fam]
            lines += slot_loop([f"{acc[q]} = {acc[q]} / Z.shape[0]" for q in m.names if q in self.fam], True)
        return lines
