"""Declared blocked step kernels: a GD map, its per-step observers and its stop rule, generated as numba source.

A :class:`StepKernel` declares, as sympy expressions, everything one step of a lane does:

* the map θ ↦ θ' in named *intermediates* (:class:`Let`), with compiled scalar kernels passed at run
  time as named calls (:class:`Call`, e.g. ℓ' of a loss, generated from its own sympy form), so a
  composite objective f = ℓ(u(θ)) steps by the chain rule (:func:`composite_gd_step`);
* per-step *observers* — :class:`FirstWhere` (first step index where a condition holds, and values
  at that step), :class:`CountWhere`, :class:`MaxWhere`, :class:`MinWhere`, :class:`LastWhere`,
  :class:`LogProduct` (log of a running product, flushed with compensated summation) and
  :class:`RareReduction` (count/min/max of a value too costly for the vector loop — a ``log``, a
  ``pow`` — computed in a scalar pass over the flagged lanes only);
* carried lane :class:`State` (a value at the current step and its next value), a *prelude* of
  intermediates and observers at θ_t that the before-rules may read (a gradient and its norm), and
  :class:`Checkpoint` before-rules decided in the scalar pass (a value and stall test every k steps);
* the :class:`StopRule`: outcomes decided before the step (budget, a fixed point) and after it
  (divergence, convergence), in priority order, plus per-outcome overrides of outputs.

Conditions and values are expressions in the named step quantities: the parameters θ (current), the
intermediates (among them θ'), the per-lane inputs (η, …), run-wide constants, the step index :data:`T`
and the observers declared before (their value after this step's update). Each is printed by our code
printer (never eval'd text) into one generated function; every condition is ANDed with "the lane steps".

Example — GD on ℓ(xy) counting the bouncing steps y_t² > 2/η, stopping at |x| ≤ xtol or a budget::

    x, y, xn, yn, eta, g, eg, xtol = sp.symbols("x y xn yn eta g eg xtol", real=True)
    bounces, max_steps = sp.symbols("bounces max_steps", integer=True)
    k = StepKernel(params=(x, y), next_params=(xn, yn), lane_inputs=(eta,), constants=(max_steps, xtol),
                   calls=(Call(g, "dl", x * y),),  # g = ℓ'(xy), the loss's compiled kernel
                   body=(CountWhere(bounces, y**2 > 2 / eta),
                         *composite_gd_step((x, y), x * y, g, eta, eg, (xn, yn))),  # x − ηℓ'(xy)y, ...
                   stop=StopRule(before=((T >= max_steps, 3),), after=((sp.Abs(xn) <= xtol, 0),)),
                   int_outputs=("outcome", "steps", "bounces"), float_outputs=("x", "y"))
    compiled_engine(k)(dl, dl_params, lanes, I, max_steps, xtol, out_i, out_f)  # I rows: x₀, y₀, η

The full ℓ(xy) engine of :func:`verify.dynamics.run` is declared so in :mod:`.lxy`.

Layout and speed, as the hand-written ℓ(xy) kernel it replaces: up to ``_WIDTH`` lane slots per
block in structure-of-arrays rows (F floats, N integers), a first loop over the slots for the
compiled calls, then one branch-free loop (every update a select) that LLVM vectorises across lanes,
then the scalar pass if some slot flagged one; every ``_CHUNK`` steps finished slots are written out
and refilled.

Rounding is fixed by the declaration: IEEE operations are exact up to one rounding each and commute,
but sums and products of three or more terms depend on their order, which sympy does not keep; so
every ``Add``/``Mul`` in a declaration may have at most two operands (besides a sign), and a longer
product is written as a chain of named intermediates (checked by :func:`kernel_source`) — except in
a ``printed_order`` :class:`Let`, whose reference code prints the same sympy expression with the same
printer (:class:`SympyOrderPrinter`: an objective's gradient, :mod:`.genericstep`). Together with
no fast-math and no FMA contraction this makes each lane's arithmetic that of a lone scalar loop: its
result never depends on the block width, the other lanes in its block or the number of threads.
"""
from __future__ import annotations

import functools
import math
import re
from typing import Any, Callable

import numba
import numpy as np
import sympy as sp

from .stepitems import (T, Call, Checkpoint, CountWhere, Doublings, FirstWhere, IsFinite, IsNaN,  # noqa: F401
                        LastWhere, Let, LogProduct, MaxOf, MaxWhere, MinOf, MinWhere, RareReduction, RareUpdate,
                        RowMean, State, StepKernel, StopRule, Window, composite_gd_step)
from .stepprint import StepPrinter, SympyOrderPrinter, check_rounding, lit, select, selects  # noqa: F401

_WIDTH = 64  # lane slots per block: 8 AVX-512 / 16 AVX2 vectors of float64
_CHUNK = 32  # steps between refills of finished slots
_FLUSH_BELOW = 1e-100  # a LogProduct's running product is flushed into its log below this ...
_FLUSH_EVERY = 1024  # ... or every this many steps (a power of two)


# ----------------------------------------------------------------------------- generation
_IND = " " * 16  # the slot loop's body


class _Builder:
    """The pieces of one generated engine: F/N row layout, names in scope, the vector-loop body, the
    scalar pass, and what the load and the store of a slot do."""

    def __init__(self, k: StepKernel):
        self.k = k
        self.fr: dict = {}  # F rows (floats)
        self.nr: dict = {"lane": 0, "status": 1, "t": 2}  # N rows (integers)
        self.lane_rows = (*k.params, *k.lane_inputs, *(c.name for c in k.lane_constants), *(c.name for c in k.calls),
                          *(q for m in k.row_means for q in m.names))
        for q in self.lane_rows:
            self.frow(q)
        self.names = {T: "t"}  # v_<name> for the step's quantities, c_<name> for the run-wide constants
        self.names.update({s: f"c_{s.name}" for s in k.constants})
        self.names.update({s: self.local(s) for s in self.lane_rows})
        self.body: list[str] = []
        self.flags: list[int] = []  # N rows of the scalar-pass flags
        self.scalar: list[str] = []  # the scalar pass, per flagged slot
        self.stores_f: dict = {q.name: f"F[{self.fr[q]}, b]" for q in k.params}  # output -> value at the store
        self.stores_i: dict = {"outcome": "N[1, b]", "steps": "N[2, b]"}
        self.loads_f: list[tuple] = []  # (row, initial value)
        self.loads_i: list[tuple] = []
        self.gate = "go"  # an observer records when this holds: "act" in the prelude
        self.count = 0  # numbers the generated temporaries
        self.state_rows: dict = {}  # State name -> its row, "F[r, b]" or "N[r, b]"
        self.post_flags: list[str] = []  # scalar-pass flags set after the stop rule
        checkpoint_items = [i for c in k.stop.before if isinstance(c, Checkpoint) for i in c.items]
        for item in (*k.prelude, *k.body, *checkpoint_items):
            if isinstance(item, State):
                self.state(item)
        self.held: dict = {}  # State name -> the RareUpdate conditions under which the vector loop holds it
        for item in k.body:
            if isinstance(item, RareUpdate):
                for i in item.items:
                    if isinstance(i, State):
                        self.held.setdefault(i.name, []).append(item.where)
        self.rare_flag = None  # the flag row of the last run of RareUpdates (one flag per run)

    def state(self, item: State) -> None:
        """A State's row, its initial value and its name: its value at the current step (read at the top)."""
        integer = isinstance(item.init, (int, bool, np.integer))
        if integer:
            r = self.nrow(item.name)
            self.loads_i.append((r, int(item.init)))
            row = f"N[{r}, b]"
            self.stores_i[item.name.name] = row
        else:
            r = self.frow(item.name)
            self.loads_f.append((r, lit(item.init) if isinstance(item.init, (int, float)) else item.init))
            row = f"F[{r}, b]"
            self.stores_f[item.name.name] = row
        self.state_rows[item.name] = row
        self.bind(item.name)

    @staticmethod
    def local(s) -> str:
        return f"v_{s.name}"

    def frow(self, key) -> int:
        self.fr[key] = len(self.fr)
        return self.fr[key]

    def nrow(self, key) -> int:
        self.nr[key] = len(self.nr)
        return self.nr[key]

    def expr(self, e, what: str, printed_order: bool = False, names: dict | None = None) -> str:
        """``e`` in the names in scope, parenthesised (it is an operand of the generated code)."""
        names = self.names if names is None else names
        if printed_order:
            return f"({SympyOrderPrinter(names).doprint(sp.sympify(e))})"
        check_rounding(e, what)
        return f"({StepPrinter(names).doprint(sp.sympify(e))})"

    def bind(self, s) -> None:
        if s in self.names:
            raise ValueError(f"step kernel: {s} declared twice")
        self.names[s] = self.local(s)

    def emit(self, item, prelude: bool = False) -> None:
        tag = f"{type(item).__name__}({getattr(item, 'name', '')})"
        if not isinstance(item, RareUpdate):
            self.rare_flag = None
        kinds = {Let: self.let, FirstWhere: self.first_where, MaxWhere: self.extremum_or_last,
                 MinWhere: self.extremum_or_last, LastWhere: self.extremum_or_last}
        counting = {CountWhere: self.count_where, State: self.state_update, Window: self.window}
        if not prelude or not any(isinstance(c, Checkpoint) for c in self.k.stop.before):
            kinds.update(counting)  # not idempotent: in the prelude only if no checkpoint visits a step twice
        if not prelude:  # they step
            kinds.update({LogProduct: self.log_product, RareReduction: self.rare_reduction,
                          RareUpdate: self.rare_update, Doublings: self.doublings})
        if type(item) not in kinds:
            raise TypeError(f"step kernel: {item!r} cannot be a {'prelude' if prelude else 'body'} item")
        self.count += 1
        kinds[type(item)](self.count, item, tag)

    def let(self, j, item, tag):
        self.body.append(f"{_IND}{self.local(item.name)} = {self.expr(item.expr, tag, item.printed_order)}")
        self.bind(item.name)

    def state_update(self, j, item, tag):
        row = self.state_rows[item.name]
        cond = self.gate if item.where is True else f"{self.gate} & {self.expr(item.where, tag)}"
        if self.gate == "go":  # a RareUpdate's scalar pass writes it: held (and read there) as it was
            cond += "".join(f" & (not {self.expr(w, tag)})" for w in self.held.get(item.name, ()))
        self.body.append(f"{_IND}{row} = {self.expr(item.next, tag)} if ({cond}) else {row}")

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
                self.body.append(f"{_IND}F[{rs}, b] = {self.names[s]}")
                snames[s] = f"F[{rs}, b]"
        return snames

    def rare_update(self, j, item: RareUpdate, tag):
        """A run of consecutive RareUpdates shares one flag (their conditions ORed); the scalar pass
        re-tests each condition. The States they write are held by the vector loop where they hold."""
        here = f"(go & {self.expr(item.where, tag)})"
        if self.rare_flag is None:
            self.rare_flag = rf = self.nrow(("rareupdate", j))
            self.flags.append(rf)
            self.body.append(f"{_IND}N[{rf}, b] = 1 if {here} else 0")
        else:
            rf = self.rare_flag
            self.body.append(f"{_IND}N[{rf}, b] = 1 if (N[{rf}, b] | {here}) else 0")
        held = {i.name for i in item.items if isinstance(i, State)}
        snames = self.stash(j, [item.where, *(i.expr if isinstance(i, Let) else i.next for i in item.items)], held)
        code = [f"if N[{rf}, b] and {self.expr(item.where, tag, False, snames)}:"]
        for i in item.items:
            if isinstance(i, Let):
                code.append(f"    s{j}_{i.name.name} = {self.expr(i.expr, tag, False, snames)}")
                snames[i.name] = f"s{j}_{i.name.name}"
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
        self.body.append(f"{_IND}rec{j} = {cond}")
        self.body += [f"{_IND}F[{a}, b] = F[{c}, b] if rec{j} else F[{a}, b]" for a, c in zip(rows, rows[1:])]
        self.body.append(f"{_IND}F[{rows[-1]}, b] = {self.expr(item.value, tag)} if rec{j} else F[{rows[-1]}, b]")
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
        self.post_flags.append(f"{_IND}N[{rf}, b] = 1 if (go & (status == -1) & (((t + 1) & t) == 0) & "
                               f"(t + 1 < {2 ** item.count})) else 0")
        self.scalar += [f"if N[{rf}, b]:", "    kk = N[2, b]", "    jp = 0",
                        "    while kk > 1:", "        kk >>= 1", "        jp += 1",
                        f"    base = {rows[0]} + {nv} * jp"]
        self.scalar += [f"    F[base + {q}, b] = {self.state_rows[v]}" for q, v in enumerate(item.values)]
        self.stores_f.update({f"{item.name}_{p}_{q}": f"F[{rows[p * nv + q]}, b]"
                              for p in range(item.count) for q in range(nv)})

    def checkpoint(self, j: int, item: Checkpoint, earlier: str) -> str:
        """The vector loop's test of checkpoint ``j`` (a flag for the scalar pass, which runs its items
        and stop conditions, or records that it passed at this t) — returns the local that holds it."""
        rp, rf = self.nrow(("passed", j)), self.nrow(("checkpoint", j))
        self.loads_i.append((rp, -1))
        self.flags.append(rf)
        here = f"v_check{j}"
        self.body += [f"{_IND}{here} = {self.expr(item.where, 'checkpoint')} & (N[{rp}, b] != t)",
                      f"{_IND}N[{rf}, b] = 1 if ({earlier} & {here}) else 0"]
        snames = {T: "N[2, b]", **{s: f"c_{s.name}" for s in self.k.constants}, **self.state_rows}
        snames.update({q: f"F[{self.fr[q]}, b]" for q in self.lane_rows})
        own = {i.name for i in item.items if isinstance(i, Let)}
        own |= {q for i in item.items if isinstance(i, RowMean) for q in (*i.names, *(c.name for c in i.lets))}
        own |= set(self.k.data)
        free = set()
        for i in item.items:
            exprs = ([i.expr] if isinstance(i, Let) else [i.next] if isinstance(i, State)
                     else [*i.exprs, *(c.expr for c in i.lets)])
            for e in exprs:
                free |= sp.sympify(e).free_symbols
        for c, _ in item.stop:
            free |= sp.sympify(c).free_symbols
        for q in sorted(free - own - set(snames), key=lambda q: q.name):  # prelude quantities: stashed
            if q not in self.names:
                raise ValueError(f"step kernel: checkpoint uses {q}, not declared before it")
            rs = self.frow(("stash", j, q))
            self.body.append(f"{_IND}F[{rs}, b] = {self.names[q]}")
            snames[q] = f"F[{rs}, b]"
        code = [f"if N[{rf}, b]:"]
        for i in item.items:
            if isinstance(i, Let):
                code.append(f"    s_{i.name.name} = {self.expr(i.expr, 'checkpoint', i.printed_order, snames)}")
                snames[i.name] = f"s_{i.name.name}"
            elif isinstance(i, State):
                code.append(f"    {self.state_rows[i.name]} = {self.expr(i.next, 'checkpoint', False, snames)}")
            elif isinstance(i, RowMean):
                code += ["    " + line for line in self.row_mean(i, snames, vector=False)]
                snames.update({q: f"s_{q.name}" for q in i.names})
            else:
                raise TypeError(f"step kernel: {i!r} cannot be a checkpoint item")
        for n, (c, o) in enumerate(item.stop):
            code += [f"    {'if' if n == 0 else 'elif'} {self.expr(c, 'checkpoint', False, snames)}:",
                     f"        N[1, b] = {int(o)}"]
        code += ["    else:" if item.stop else "    if True:", f"        N[{rp}, b] = N[2, b]"]
        self.scalar += code
        return here

    def first_where(self, j, item, tag):
        r = self.nrow(item.name)
        self.loads_i.append((r, -1))
        self.body += [f"{_IND}new{j} = {self.gate} & (N[{r}, b] < 0) & {self.expr(item.where, tag)}",
                      f"{_IND}{self.local(item.name)} = t if new{j} else N[{r}, b]",
                      f"{_IND}N[{r}, b] = {self.local(item.name)}"]
        self.bind(item.name)
        self.stores_i[item.name.name] = f"N[{r}, b]"
        for name, value in item.values:
            rv = self.frow(name)
            self.loads_f.append((rv, "np.nan"))
            self.body.append(f"{_IND}F[{rv}, b] = {self.expr(value, tag)} if new{j} else F[{rv}, b]")
            self.stores_f[name.name] = f"F[{rv}, b]"

    def count_where(self, j, item, tag):
        r = self.nrow(item.name)
        self.loads_i.append((r, 0))
        self.body += [f"{_IND}{self.local(item.name)} = N[{r}, b] + (1 if ({self.gate} & {self.expr(item.where, tag)}) else 0)",
                      f"{_IND}N[{r}, b] = {self.local(item.name)}"]
        self.bind(item.name)
        self.stores_i[item.name.name] = f"N[{r}, b]"

    def extremum_or_last(self, j, item, tag):
        r = self.frow(item.name)
        self.loads_f.append((r, lit(item.init)))
        self.body.append(f"{_IND}val{j} = {self.expr(item.value, tag)}")
        cond = self.gate if item.where is True else f"{self.gate} & {self.expr(item.where, tag)}"
        if not isinstance(item, LastWhere):
            cond += f" & (val{j} {'>' if isinstance(item, MaxWhere) else '<'} F[{r}, b])"
        self.body += [f"{_IND}F[{r}, b] = val{j} if ({cond}) else F[{r}, b]",
                      f"{_IND}{self.local(item.name)} = F[{r}, b]"]
        self.bind(item.name)
        self.stores_f[item.name.name] = f"F[{r}, b]"

    def log_product(self, j, item, tag):
        rl, rc, rp = self.frow(("lp", item.name)), self.frow(("lpc", item.name)), self.frow(("prod", item.name))
        rf = self.nrow(("flush", item.name))
        self.flags.append(rf)
        self.loads_f += [(rl, "0.0"), (rc, "0.0"), (rp, "1.0")]
        self.body += [f"{_IND}prod{j} = F[{rp}, b] * {self.expr(item.factor, tag)}",
                      f"{_IND}F[{rp}, b] = prod{j} if go else F[{rp}, b]",
                      f"{_IND}N[{rf}, b] = 1 if (go & ((prod{j} < {_FLUSH_BELOW!r}) | "
                      f"((t & {_FLUSH_EVERY - 1}) == {_FLUSH_EVERY - 1}))) else 0"]
        self.scalar += [f"if N[{rf}, b]:",  # Kahan-compensated: the sum of logs keeps its last bits
                        f"    lp = F[{rl}, b]",
                        f"    term = math.log(F[{rp}, b]) - F[{rc}, b]",
                        "    tmp = lp + term",
                        f"    F[{rc}, b] = (tmp - lp) - term",
                        f"    F[{rl}, b] = tmp",
                        f"    F[{rp}, b] = 1.0"]
        self.stores_f[item.name.name] = (f"(F[{rl}, b] + (math.log(F[{rp}, b]) - F[{rc}, b]) "
                                         f"if F[{rp}, b] != 1.0 else F[{rl}, b])")

    def rare_reduction(self, j, item, tag):
        k = self.k
        rf = self.nrow(("rare", j))
        self.flags.append(rf)
        self.body.append(f"{_IND}N[{rf}, b] = 1 if (go & {self.expr(item.where, tag)}) else 0")
        # the value's step quantities are stashed for the scalar pass; constants and lane rows are there
        snames = dict(self.names)
        lane_constants = {c.name for c in k.lane_constants}
        for s in sorted(sp.sympify(item.value).free_symbols, key=lambda s: s.name):
            if s in k.lane_inputs or s in lane_constants:  # rows that do not change along the lane
                snames[s] = f"F[{self.fr[s]}, b]"
            elif s not in k.constants:
                rs = self.frow(("stash", j, s))
                self.body.append(f"{_IND}F[{rs}, b] = {self.names[s]}")
                snames[s] = f"F[{rs}, b]"
        check_rounding(item.value, tag)
        self.scalar += [f"if N[{rf}, b]:", f"    q = {StepPrinter(snames).doprint(sp.sympify(item.value))}"]
        if item.count is not None:
            rc = self.nrow(item.count)
            self.loads_i.append((rc, 0))
            self.scalar.append(f"    N[{rc}, b] += 1")
            self.stores_i[item.count.name] = f"N[{rc}, b]"
        for which, op, init in (("min", "<", "np.inf"), ("max", ">", lit(item.max_init))):
            name = getattr(item, which)
            if name is None:
                continue
            r = self.frow(name)
            self.loads_f.append((r, init))
            self.scalar += [f"    if q {op} F[{r}, b]:", f"        F[{r}, b] = q"]
            self.stores_f[name.name] = (f"(F[{r}, b] if N[{self.nr[item.count]}, b] > 0 else np.nan)"
                                        if item.count is not None else f"F[{r}, b]")

    def row_mean(self, m: RowMean, names: dict, vector: bool) -> list[str]:
        """The loop over the data rows accumulating ``m`` in ``_mean_into``'s order: into the F rows of
        every slot, the slot loop innermost (``vector``: vectorised), or into one slot's locals ``s_<name>``
        (the scalar pass)."""
        names = {**names, **{z: f"Z[i, {j}]" for j, z in enumerate(self.k.data)}}
        acc = {q: f"F[{self.fr[q]}, b]" if vector else f"s_{q.name}" for q in m.names}
        head, ind = (["for b in range(w):"], "    ") if vector else ([], "")
        start = "0.0 if Z.shape[0] > 1 else -0.0  # -0.0 + x is x" if m.mean else "0.0"
        lines = head + [f"{ind}{acc[q]} = {start}" for q in m.names]
        lines += ["for i in range(Z.shape[0]):"] + [f"    {h}" for h in head]
        for c in m.lets:
            lines.append(f"    {ind}p_{c.name.name} = {self.expr(c.expr, 'row mean', m.printed_order, names)}")
            names[c.name] = f"p_{c.name.name}"
        lines += [f"    {ind}{acc[q]} += {self.expr(e, 'row mean', m.printed_order, names)}"
                  for q, e in zip(m.names, m.exprs)]
        if not m.mean:
            return lines
        return lines + head + [f"{ind}{acc[q]} = {acc[q]} / Z.shape[0]" for q in m.names]

    def load_lines(self) -> list[str]:
        """A slot takes lane i: its inputs, lane constants and the observers' initial values."""
        k, fr = self.k, self.fr
        load = _copies([(fr[q], j) for j, q in enumerate((*k.params, *k.lane_inputs))], "F[{}, b]", "I[{}, i]")
        names = {q: f"F[{fr[q]}, b]" for q in k.lane_inputs}
        names.update({s: f"c_{s.name}" for s in k.constants})
        for c in k.lane_constants:
            check_rounding(c.expr, f"lane constant {c.name}")
            load.append(f"    F[{fr[c.name]}, b] = {StepPrinter(names).doprint(sp.sympify(c.expr))}")
        inits = [(r, v if isinstance(v, str) else StepPrinter(names).doprint(sp.sympify(v))) for r, v in self.loads_f]
        while inits:  # runs of rows with one value (a window, samples) as a loop: less code to compile
            n = next((m for m in range(1, len(inits)) if inits[m] != (inits[0][0] + m, inits[0][1])), len(inits))
            r, v = inits[0]
            load += ([f"    for q in range({r}, {r + n}):", f"        F[q, b] = {v}"] if n >= 4
                     else [f"    F[{r + m}, b] = {v}" for m in range(n)])
            inits = inits[n:]
        load += ["    N[0, b] = i", "    N[1, b] = -1", "    N[2, b] = 0"]
        return load + [f"    N[{r}, b] = {v}" for r, v in self.loads_i]

    def store_lines(self) -> list[str]:
        """A finished slot's outputs, with the stop rule's per-outcome overrides."""
        k = self.k
        final = StepPrinter({q: f"F[{self.fr[q]}, b]" for q in k.params})
        for c in k.finals:
            check_rounding(c.expr, f"final {c.name}")
            self.stores_f[c.name.name] = final.doprint(sp.sympify(c.expr))
        store = ["    i = N[0, b]", "    status = N[1, b]"]
        store += [f"    out_i[{j}, i] = {self.stores_i[name]}" for j, name in enumerate(k.int_outputs)]
        rows, other = [], []  # outputs that are a row as is, copied in runs; the others
        for j, name in enumerate(k.float_outputs):
            value = self.stores_f[name]
            for o, oname, v in k.stop.overrides:
                if oname == name:
                    value = f"({lit(v)} if status == {int(o)} else {value})"
            plain = re.fullmatch(r"F\[(\d+), b\]", value)
            (rows.append((j, int(plain.group(1)))) if plain else other.append(f"    out_f[{j}, i] = {value}"))
        return store + _copies(rows, "out_f[{}, i]", "F[{}, b]") + other


def kernel_source(k: StepKernel) -> str:
    """Python source of ``engine(<kernel parameters>, lanes, I, [Z,] <constants>, out_i, out_f)`` for ``k``:
    ``I[j, i]`` the initial θ_j then the lane inputs of lane i; ``Z`` (rows × ``len(k.data)``) the data
    rows of the row means, when ``k.data`` is declared; outputs in rows of ``out_i`` / ``out_f``
    (in the order of ``k.int_outputs`` / ``k.float_outputs``), column i. A kernel ``name`` of the calls
    is the module-level function ``k_name`` (bound by the generated module, :func:`compile_source`), its
    parameter array the argument ``k_name_p``."""
    bld = _Builder(k)
    fr, local = bld.fr, bld.local
    bld.gate = "act"
    for item in k.prelude:
        bld.emit(item, prelude=True)
    bld.gate = "go"
    halts, chain = [], []  # the before-rules in priority order; a checkpoint holds its lane at -1
    for j, rule in enumerate(k.stop.before):
        earlier = " & ".join(["act"] + [f"(not {h})" for h in halts])
        if isinstance(rule, Checkpoint):
            halts.append(bld.checkpoint(j, rule, earlier))
            chain.append(f"-1 if {halts[-1]}")
        else:
            bld.body.append(f"{_IND}v_halt{j} = {bld.expr(rule[0], 'stop.before')}")
            halts.append(f"v_halt{j}")
            chain.append(f"{int(rule[1])} if v_halt{j}")
    bld.body.append(f"{_IND}go = " + " & ".join(["act"] + [f"(not {h})" for h in halts]))
    for item in k.body:
        bld.emit(item)
    for q in k.next_params:
        if q not in bld.names:
            raise ValueError(f"step kernel: next parameter {q} is not an intermediate")
    post = [f"{_IND}v_stop{j} = {bld.expr(c, 'stop.after')}" for j, (c, _) in enumerate(k.stop.after)]
    chain += [f"{o} if v_stop{j}" for j, (_, o) in enumerate(k.stop.after)]
    status = " else ".join(chain + ["-1"])
    writes = [f"{_IND}F[{fr[q]}, b] = {local(n)} if go else {local(q)}" for q, n in zip(k.params, k.next_params)]
    status_lines = selects([f"{_IND}status = {status}", f"{_IND}N[1, b] = status if act else N[1, b]"])
    body, post, writes, post_flags = (selects(lines) for lines in (bld.body, post, writes, bld.post_flags))
    extra = " | ".join(f"N[{r}, b]" for r in bld.flags) or "0"
    load, store = bld.load_lines(), bld.store_lines()
    kernels = list(dict.fromkeys(c.kernel for c in k.calls))
    kargs = "".join(f"k_{kn}_p, " for kn in kernels)
    cargs = "".join(f"c_{s.name}, " for s in k.constants)
    pargs = "".join(f"c_{s.name}, " for s in k.constants if s in _free(k.lane_constants))
    calls = [f"                F[{fr[c.name]}, b] = k_{c.kernel}({_call_argument(c.arg, k.params, fr)}, k_{c.kernel}_p)"
             for c in k.calls]
    pnames = {q: f"F[{fr[q]}, b]" for q in (*k.params, *k.lane_inputs)}
    pnames.update({s: f"c_{s.name}" for s in k.constants})
    means = [" " * 12 + "for b in range(w):"] if k.row_lets else []
    for c in k.row_lets:
        check_rounding(c.expr, f"row let {c.name}")
        r = bld.frow(("row_let", c.name))
        means.append(f"{' ' * 16}F[{r}, b] = {StepPrinter(pnames).doprint(sp.sympify(c.expr))}")
        pnames[c.name] = f"F[{r}, b]"
    means += [" " * 12 + line for m in k.row_means for line in bld.row_mean(m, pnames, vector=True)]
    zarg = "Z, " if k.data else ""
    loads = [f"{_IND}{local(q)} = F[{fr[q]}, b]" for q in bld.lane_rows]
    loads += [f"{_IND}{local(q)} = {row}" for q, row in bld.state_rows.items()]
    zero = [f"                    F[{fr[q]}, b] = 0.0" for q in (*k.params, *k.lane_inputs)]
    scalar_text = "\n".join(" " * 20 + s for s in bld.scalar) if bld.scalar else " " * 20 + "pass"
    nl = "\n"
    nfl, nin = len(fr), len(bld.nr)
    return f'''
@numba.njit(cache=True, nogil=True, error_model="numpy")
def engine({kargs}lanes, I, {zarg}{cargs}out_i, out_f):
    n = lanes.shape[0]
    w = min({_WIDTH}, n)
    # per-slot state, structure of arrays: two arrays of fixed width, so that LLVM sees the rows
    # cannot overlap and vectorises the slot loop without run-time alias checks
    F = np.zeros(({nfl}, {_WIDTH}))
    N = np.zeros(({nin}, {_WIDTH}), np.int64)
    N[1, :] = -2  # -2 empty slot, -1 running, >= 0 the lane's outcome
    nxt = 0
    live = 0
    for b in range(w):
        _load(b, lanes[nxt], I, {pargs}F, N)
        nxt += 1
        live += 1
    while live > 0:
        for _ in range({_CHUNK}):
            for b in range(w):  # the compiled calls of every slot (vectorised)
{nl.join(calls) if calls else "                pass"}
{nl.join(means)}
            extra = 0
            for b in range(w):  # the step and its observers: selects, no calls (vectorised)
                t = N[2, b]
                act = N[1, b] == -1
{nl.join(loads)}
{nl.join(body)}
{nl.join(post)}
{nl.join(status_lines)}
{nl.join(post_flags)}
{nl.join(writes)}
                N[2, b] = select(go, t + 1, t)
                extra |= {extra}
            if extra:
                for b in range(w):  # the scalar pass over the flagged slots
{scalar_text}
        for b in range(w):  # write out finished lanes, refill their slots
            if N[1, b] >= 0:
                _store(b, out_i, out_f, F, N)
                if nxt < n:
                    _load(b, lanes[nxt], I, {pargs}F, N)
                    nxt += 1
                else:
                    N[1, b] = -2
{nl.join(zero)}
                    live -= 1
    return 0


@numba.njit(cache=True)
def _load(b, i, I, {pargs}F, N):
{nl.join(load)}


@numba.njit(cache=True)
def _store(b, out_i, out_f, F, N):
{nl.join(store)}
'''


def _copies(pairs, dst: str, src: str) -> list[str]:
    """Lines ``dst(a) = src(c)`` for the index pairs (a, c), runs of consecutive pairs as loops."""
    lines = []
    while pairs:
        (a, c), n = pairs[0], 1
        while n < len(pairs) and pairs[n] == (a + n, c + n):
            n += 1
        lines += ([f"    for q in range({n}):", f"        {dst.format(f'{a} + q')} = {src.format(f'{c} + q')}"]
                  if n >= 4 else [f"    {dst.format(a + m)} = {src.format(c + m)}" for m in range(n)])
        pairs = pairs[n:]
    return lines


def _free(lets) -> set:
    out: set = set()
    for c in lets:
        out |= sp.sympify(c.expr).free_symbols
    return out


def _call_argument(expr, params, fr) -> str:
    """A call's argument, printed in the parameters' rows of slot b."""
    check_rounding(expr, "call argument")
    return StepPrinter({q: f"F[{fr[q]}, b]" for q in params}).doprint(sp.sympify(expr))


_COMPILED: dict = {}


def compile_source(source: str, label: str, kernels: dict | None = None) -> Callable:
    """The numba ``engine`` of a generated source with the compiled calls ``kernels`` (``{name:
    function}``) bound as the module-level ``k_name``: one compile per (source, kernels) per process, and
    through :func:`verify.kernelcache.compiled_module` (numba's on-disk cache) whenever the kernels are
    importable by name — the generated loss kernels are —, so later processes load it instead of
    compiling. The single place where generated step-kernel source is compiled."""
    from ..kernelcache import compiled_module

    bound = {f"k_{name}": fn for name, fn in (kernels or {}).items()}
    key = (source, tuple(bound.items()))
    if key not in _COMPILED:
        namespace: dict[str, Any] = {"math": math, "np": np, "numba": numba, "select": select, **bound}
        try:
            _COMPILED[key] = compiled_module(source, label, namespace).engine
        except ValueError:  # a kernel that is not importable by name (a closure): compile it in memory
            scope = dict(namespace)
            text = source.replace("cache=True, ", "").replace("numba.njit(cache=True)", "numba.njit")
            exec(compile(text, f"<verify.dynamics.stepkernel {label}>", "exec"), scope)  # generated from sympy
            _COMPILED[key] = scope["engine"]
    return _COMPILED[key]


@functools.lru_cache(maxsize=None)
def _source(k: StepKernel) -> str:
    return kernel_source(k)


def compiled_engine(k: StepKernel) -> Callable:
    """The compiled engine of a declared kernel, called as ``engine(<k_name, k_name_p for each kernel>,
    lanes, I, <constants>, out_i, out_f)``: the kernels are bound into a generated module per kernel
    (:func:`compile_source`; numba specialises on them anyway), the printing paid once per declaration."""
    names = list(dict.fromkeys(c.kernel for c in k.calls))
    source = _source(k)

    def engine(*args):
        kernels = dict(zip(names, args[0:2 * len(names):2]))
        params = args[1:2 * len(names):2]
        return compile_source(source, k.label, kernels)(*params, *args[2 * len(names):])

    return engine
