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
* the :class:`StopRule`: outcomes decided before the step (budget, a fixed point) and after it
  (divergence, convergence), in priority order, plus per-outcome overrides of outputs.

Conditions and values are expressions in the named step quantities: the parameters θ (current), the
intermediates (among them θ'), the per-lane inputs (η, …), run-wide constants, the step index :data:`T`
and the observers declared before (their value after this step's update). Each is printed by our code
printer (never eval'd text) into one generated function; every condition is ANDed with "the lane steps".

Layout and speed, as the hand-written ℓ(xy) kernel it replaces: up to ``_WIDTH`` lane slots per
block in structure-of-arrays rows (F floats, N integers), a first loop over the slots for the
compiled calls, then one branch-free loop (every update a select) that LLVM vectorises across lanes,
then the scalar pass if some slot flagged one; every ``_CHUNK`` steps finished slots are written out
and refilled.

Rounding is fixed by the declaration: IEEE operations are exact up to one rounding each and commute,
but sums and products of three or more terms depend on their order, which sympy does not keep; so
every ``Add``/``Mul`` in a declaration may have at most two operands (besides a sign), and a longer
product is written as a chain of named intermediates (checked by :func:`kernel_source`). Together with
no fast-math and no FMA contraction this makes each lane's arithmetic that of a lone scalar loop: its
result never depends on the block width, the other lanes in its block or the number of threads.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numba
import numpy as np
import sympy as sp
from sympy.printing.pycode import PythonCodePrinter

_WIDTH = 64  # lane slots per block: 8 AVX-512 / 16 AVX2 vectors of float64
_CHUNK = 32  # steps between refills of finished slots
_FLUSH_BELOW = 1e-100  # a LogProduct's running product is flushed into its log below this ...
_FLUSH_EVERY = 1024  # ... or every this many steps (a power of two)

T = sp.Symbol("t", integer=True)  # the step index of the lane (the step from θ_t to θ_{t+1})


# ----------------------------------------------------------------------------- declarations
@dataclass(frozen=True)
class Let:
    """A named intermediate: ``name = expr`` (a float, integer or boolean expression)."""
    name: sp.Symbol
    expr: Any


@dataclass(frozen=True)
class Call:
    """``name = kernel(arg, kernel_params)``: a compiled scalar kernel passed at run time (e.g. ℓ'),
    ``arg`` an expression in the parameters; computed in its own vector loop before the step."""
    name: sp.Symbol
    kernel: str
    arg: Any


@dataclass(frozen=True)
class FirstWhere:
    """Index of the first step where ``where`` holds (−1 if none); ``values``: (name, expr) recorded
    at that step (NaN if none)."""
    name: sp.Symbol
    where: Any
    values: tuple = ()


@dataclass(frozen=True)
class CountWhere:
    """Number of steps where ``where`` holds."""
    name: sp.Symbol
    where: Any


@dataclass(frozen=True)
class MaxWhere:
    """Maximum of ``value`` over the steps where ``where`` holds (``init`` if none)."""
    name: sp.Symbol
    value: Any
    where: Any = True
    init: float = 0.0


@dataclass(frozen=True)
class MinWhere:
    """Minimum of ``value`` over the steps where ``where`` holds (``init`` if none)."""
    name: sp.Symbol
    value: Any
    where: Any = True
    init: float = math.inf


@dataclass(frozen=True)
class LastWhere:
    """``value`` at the last step where ``where`` holds (``init`` if none)."""
    name: sp.Symbol
    value: Any
    where: Any = True
    init: float = math.nan


@dataclass(frozen=True)
class LogProduct:
    """Σ_t log(factor_t) over the lane's steps: the factors are multiplied in float64 and the product is
    flushed into a Kahan-compensated log sum when it falls below 1e-100 and every 1024 steps (a ``log``
    per flush, in the scalar pass) and once more at the end."""
    name: sp.Symbol
    factor: Any


@dataclass(frozen=True)
class RareReduction:
    """Count / min / max of ``value`` over the steps where ``where`` holds, the value computed in the
    scalar pass (for a ``log`` or ``pow`` the vector loop should not pay on every step). Min and max
    are NaN when no step counted, if ``count`` is declared (else ±inf as initialised)."""
    value: Any
    where: Any
    count: sp.Symbol | None = None
    min: sp.Symbol | None = None
    max: sp.Symbol | None = None
    max_init: float = -math.inf


@dataclass(frozen=True)
class StopRule:
    """``before``: (condition on θ_t and t, outcome) — the lane stops without stepping; ``after``:
    (condition on the step just taken, outcome) — the lane stops at θ_{t+1}; the first that holds wins.
    ``overrides``: (outcome, output name, value) — an output's value when the lane stopped so."""
    before: tuple
    after: tuple
    overrides: tuple = ()


@dataclass(frozen=True)
class StepKernel:
    """One declared blocked GD kernel (see the module docstring)."""
    params: tuple
    next_params: tuple  # the intermediates holding θ_{t+1}, in the order of params
    lane_inputs: tuple  # per-lane floats beside θ₀ (η, ...)
    constants: tuple  # run-wide scalars: arguments of the generated engine, in this order
    calls: tuple
    body: tuple  # Let and observers, in evaluation order
    stop: StopRule
    lane_constants: tuple = ()  # Let in lane inputs, computed once per lane
    finals: tuple = ()  # Let in the final θ: extra outputs
    int_outputs: tuple = ("outcome", "steps")
    float_outputs: tuple = ()
    label: str = "step_kernel"


def composite_gd_step(params: Sequence[sp.Symbol], u: Any, dl: sp.Symbol, eta: sp.Symbol,
                      step: sp.Symbol, nexts: Sequence[sp.Symbol]) -> tuple[Let, ...]:
    """GD on f = ℓ(u(θ)) by the chain rule: ``step = η ℓ'(u)`` (``dl`` the call giving ℓ'(u)), then
    θ_j' = θ_j − step · ∂u/∂θ_j (for ℓ(xy): x − ηℓ'(xy) y, y − ηℓ'(xy) x, Ahn et al. 2023 eq. (2))."""
    lets = [Let(step, eta * dl)]
    lets += [Let(n, p - step * sp.diff(u, p)) for p, n in zip(params, nexts)]
    return tuple(lets)


# ----------------------------------------------------------------------------- printing
class _StepPrinter(PythonCodePrinter):
    """Symbols as the generated code's names; ``x**2`` as ``x*x``; floats exactly; booleans as the
    branch-free ``&``, ``|``, ``not`` (``and``/``or`` would branch and stop the vectoriser)."""

    def __init__(self, names: dict):
        super().__init__({"fully_qualified_modules": True})
        self.names = names

    def _print_Symbol(self, expr):
        if expr not in self.names:
            raise ValueError(f"step kernel: {expr} is not a declared name here")
        return self.names[expr]

    def _print_Pow(self, expr, rational=False):
        if expr.exp == 2:
            return f"({self._print(expr.base)}*{self._print(expr.base)})"
        return super()._print_Pow(expr, rational)

    def _print_Float(self, expr):
        return _lit(expr)

    def _print_And(self, expr):
        return "(" + " & ".join(self._print(a) for a in expr.args) + ")"

    def _print_Or(self, expr):
        return "(" + " | ".join(self._print(a) for a in expr.args) + ")"

    def _print_Not(self, expr):
        return f"(not {self._print(expr.args[0])})"

    def _print_BooleanTrue(self, expr):
        return "True"

    def _print_BooleanFalse(self, expr):
        return "False"


def _lit(v) -> str:
    """A float literal of the generated source (exact: repr round-trips)."""
    v = float(v)
    return "np.nan" if math.isnan(v) else ("np.inf" if v == math.inf else "-np.inf" if v == -math.inf else repr(v))


def _check_rounding(expr: Any, where: str) -> None:
    """At most two operands (besides a sign) per sum or product: their order is then immaterial."""
    for node in sp.preorder_traversal(sp.sympify(expr)):
        if isinstance(node, (sp.Add, sp.Mul)):
            ops = [a for a in node.args if a != -1]
            if len(ops) > 2:
                raise ValueError(f"{where}: {node} has {len(ops)} operands; name the partial results "
                                 "(the rounding of a longer sum or product depends on its order)")


# ----------------------------------------------------------------------------- generation
def kernel_source(k: StepKernel) -> str:
    """Python source of ``engine(<kernels>, lanes, I, <constants>, out_i, out_f)`` for ``k``: ``I[j, i]``
    the initial θ_j then the lane inputs of lane i; outputs in rows of ``out_i`` / ``out_f`` (in the
    order of ``k.int_outputs`` / ``k.float_outputs``), column i."""
    fr: dict = {}  # F rows
    nr: dict = {"lane": 0, "status": 1, "t": 2}  # N rows

    def frow(key):
        fr[key] = len(fr)
        return fr[key]

    def nrow(key):
        nr[key] = len(nr)
        return nr[key]

    for p in k.params:
        frow(p)
    for q in k.lane_inputs:
        frow(q)
    for c in k.lane_constants:
        frow(c.name)
    for c in k.calls:
        frow(c.name)
    kernels = list(dict.fromkeys(c.kernel for c in k.calls))
    lane_consts = {c.name for c in k.lane_constants}
    # local names: v_<name> for the step's quantities, c_<name> for the run-wide constants
    names = {T: "t"}
    names.update({s: f"c_{s.name}" for s in k.constants})
    local = lambda s: f"v_{s.name}"  # noqa: E731
    for s in (*k.params, *k.lane_inputs, *(c.name for c in k.lane_constants), *(c.name for c in k.calls)):
        names[s] = local(s)

    ind = " " * 16
    pr = _StepPrinter(names)

    def p(expr, what):
        _check_rounding(expr, what)
        return f"({pr.doprint(sp.sympify(expr))})"  # parenthesised: it is an operand of the generated code

    def bind(s):
        if s in names:
            raise ValueError(f"step kernel: {s} declared twice")
        names[s] = local(s)

    # stop rule, before the step
    pre = [f"{ind}v_halt{j} = {p(c, 'stop.before')}" for j, (c, _) in enumerate(k.stop.before)]
    go = " & ".join(["act"] + [f"(not v_halt{j})" for j in range(len(k.stop.before))])
    body: list[str] = []
    flags: list[str] = []  # N rows of the scalar-pass flags
    scalar: list[str] = []  # the scalar pass, per flagged slot (indentation 20)
    stores_f: dict = {}  # output name -> expression in the store (slot b)
    stores_i: dict = {"outcome": "N[1, b]", "steps": "N[2, b]"}
    loads_f: list[tuple] = []  # (row, initial value) at load
    loads_i: list[tuple] = []
    for j, item in enumerate(k.body):
        tag = f"{type(item).__name__}({getattr(item, 'name', '')})"
        if isinstance(item, Let):
            body.append(f"{ind}{local(item.name)} = {p(item.expr, tag)}")
            bind(item.name)
        elif isinstance(item, FirstWhere):
            r = nrow(item.name)
            loads_i.append((r, -1))
            body.append(f"{ind}new{j} = go & (N[{r}, b] < 0) & {p(item.where, tag)}")
            body.append(f"{ind}{local(item.name)} = t if new{j} else N[{r}, b]")
            body.append(f"{ind}N[{r}, b] = {local(item.name)}")
            bind(item.name)
            stores_i[item.name.name] = f"N[{r}, b]"
            for name, value in item.values:
                rv = frow(name)
                loads_f.append((rv, "np.nan"))
                body.append(f"{ind}F[{rv}, b] = {p(value, tag)} if new{j} else F[{rv}, b]")
                stores_f[name.name] = f"F[{rv}, b]"
        elif isinstance(item, CountWhere):
            r = nrow(item.name)
            loads_i.append((r, 0))
            body.append(f"{ind}{local(item.name)} = N[{r}, b] + (1 if (go & {p(item.where, tag)}) else 0)")
            body.append(f"{ind}N[{r}, b] = {local(item.name)}")
            bind(item.name)
            stores_i[item.name.name] = f"N[{r}, b]"
        elif isinstance(item, (MaxWhere, MinWhere, LastWhere)):
            r = frow(item.name)
            loads_f.append((r, _lit(item.init)))
            body.append(f"{ind}val{j} = {p(item.value, tag)}")
            cond = "go" if item.where is True else f"go & {p(item.where, tag)}"
            if not isinstance(item, LastWhere):
                cond += f" & (val{j} {'>' if isinstance(item, MaxWhere) else '<'} F[{r}, b])"
            body.append(f"{ind}F[{r}, b] = val{j} if ({cond}) else F[{r}, b]")
            body.append(f"{ind}{local(item.name)} = F[{r}, b]")
            bind(item.name)
            stores_f[item.name.name] = f"F[{r}, b]"
        elif isinstance(item, LogProduct):
            rl, rc, rp = frow(("lp", item.name)), frow(("lpc", item.name)), frow(("prod", item.name))
            rf = nrow(("flush", item.name))
            flags.append(rf)
            loads_f += [(rl, "0.0"), (rc, "0.0"), (rp, "1.0")]
            body.append(f"{ind}prod{j} = F[{rp}, b] * {p(item.factor, tag)}")
            body.append(f"{ind}F[{rp}, b] = prod{j} if go else F[{rp}, b]")
            body.append(f"{ind}N[{rf}, b] = 1 if (go & ((prod{j} < {_FLUSH_BELOW!r}) | "
                        f"((t & {_FLUSH_EVERY - 1}) == {_FLUSH_EVERY - 1}))) else 0")
            scalar += [f"if N[{rf}, b]:",
                       f"    lp = F[{rl}, b]",
                       f"    term = math.log(F[{rp}, b]) - F[{rc}, b]",
                       f"    tmp = lp + term",
                       f"    F[{rc}, b] = (tmp - lp) - term",
                       f"    F[{rl}, b] = tmp",
                       f"    F[{rp}, b] = 1.0"]
            stores_f[item.name.name] = (f"(F[{rl}, b] + (math.log(F[{rp}, b]) - F[{rc}, b]) "
                                        f"if F[{rp}, b] != 1.0 else F[{rl}, b])")
        elif isinstance(item, RareReduction):
            rf = nrow(("rare", j))
            flags.append(rf)
            body.append(f"{ind}N[{rf}, b] = 1 if (go & {p(item.where, tag)}) else 0")
            # the value's step quantities are stashed for the scalar pass; constants and lane rows are there
            snames = dict(names)
            for s in sorted(sp.sympify(item.value).free_symbols, key=lambda s: s.name):
                if s in k.lane_inputs or s in lane_consts:  # rows that do not change along the lane
                    snames[s] = f"F[{fr[s]}, b]"
                elif s not in k.constants:
                    rs = frow(("stash", j, s))
                    body.append(f"{ind}F[{rs}, b] = {names[s]}")
                    snames[s] = f"F[{rs}, b]"
            _check_rounding(item.value, tag)
            scalar += [f"if N[{rf}, b]:", f"    q = {_StepPrinter(snames).doprint(sp.sympify(item.value))}"]
            if item.count is not None:
                rc = nrow(item.count)
                loads_i.append((rc, 0))
                scalar.append(f"    N[{rc}, b] += 1")
                stores_i[item.count.name] = f"N[{rc}, b]"
            for which, op, init in (("min", "<", "np.inf"), ("max", ">", _lit(item.max_init))):
                name = getattr(item, which)
                if name is None:
                    continue
                r = frow(name)
                loads_f.append((r, init))
                scalar += [f"    if q {op} F[{r}, b]:", f"        F[{r}, b] = q"]
                stores_f[name.name] = (f"(F[{r}, b] if N[{nr[item.count]}, b] > 0 else np.nan)"
                                       if item.count is not None else f"F[{r}, b]")
        else:
            raise TypeError(f"step kernel: unknown body item {item!r}")
    for q in k.next_params:
        if q not in names:
            raise ValueError(f"step kernel: next parameter {q} is not an intermediate")
    post = [f"{ind}v_stop{j} = {p(c, 'stop.after')}" for j, (c, _) in enumerate(k.stop.after)]
    chain = [f"{o} if v_halt{j}" for j, (_, o) in enumerate(k.stop.before)]
    chain += [f"{o} if v_stop{j}" for j, (_, o) in enumerate(k.stop.after)]
    status = " else ".join(chain + ["-1"])
    writes = [f"{ind}F[{fr[q]}, b] = {local(n)} if go else {local(q)}" for q, n in zip(k.params, k.next_params)]
    extra = " | ".join(f"N[{r}, b]" for r in flags) or "0"

    # loads, stores
    nfl, nin = len(fr), len(nr)
    load = [f"    F[{fr[q]}, b] = I[{j}, i]" for j, q in enumerate((*k.params, *k.lane_inputs))]
    lnames = {q: f"F[{fr[q]}, b]" for q in k.lane_inputs}
    lnames.update({s: f"c_{s.name}" for s in k.constants})
    lpr = _StepPrinter(lnames)
    for c in k.lane_constants:
        _check_rounding(c.expr, f"lane constant {c.name}")
        load.append(f"    F[{fr[c.name]}, b] = {lpr.doprint(sp.sympify(c.expr))}")
    load += [f"    F[{r}, b] = {v}" for r, v in loads_f]
    load += ["    N[0, b] = i", "    N[1, b] = -1", "    N[2, b] = 0"]
    load += [f"    N[{r}, b] = {v}" for r, v in loads_i]
    fnames = {q: f"F[{fr[q]}, b]" for q in k.params}
    fpr = _StepPrinter(fnames)
    for c in k.finals:
        _check_rounding(c.expr, f"final {c.name}")
        stores_f[c.name.name] = fpr.doprint(sp.sympify(c.expr))
    for q in k.params:
        stores_f[q.name] = f"F[{fr[q]}, b]"
    store = ["    i = N[0, b]", "    status = N[1, b]"]
    for j, name in enumerate(k.int_outputs):
        store.append(f"    out_i[{j}, i] = {stores_i[name]}")
    for j, name in enumerate(k.float_outputs):
        value = stores_f[name]
        for o, oname, v in k.stop.overrides:
            if oname == name:
                value = f"({_lit(v)} if status == {int(o)} else {value})"
        store.append(f"    out_f[{j}, i] = {value}")
    kargs = "".join(f"k_{kn}, k_{kn}_p, " for kn in kernels)
    cargs = "".join(f"c_{s.name}, " for s in k.constants)
    pargs = "".join(f"c_{s.name}, " for s in k.constants if s in _free(k.lane_constants))
    calls = [f"                F[{fr[c.name]}, b] = k_{c.kernel}({_call_argument(c.arg, k.params, fr)}, k_{c.kernel}_p)"
             for c in k.calls]
    loads = [f"{ind}{local(q)} = F[{r}, b]" for q, r in fr.items()
             if isinstance(q, sp.Symbol) and q in (*k.params, *k.lane_inputs,
                                                   *(c.name for c in k.lane_constants), *(c.name for c in k.calls))]
    zero = [f"                    F[{fr[q]}, b] = 0.0" for q in (*k.params, *k.lane_inputs)]
    scalar_text = "\n".join(" " * 20 + s for s in scalar) if scalar else " " * 20 + "pass"
    nl = "\n"
    return f'''
@numba.njit(nogil=True, error_model="numpy")
def engine({kargs}lanes, I, {cargs}out_i, out_f):
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
            extra = 0
            for b in range(w):  # the step and its observers: selects, no calls (vectorised)
                t = N[2, b]
                act = N[1, b] == -1
{nl.join(loads)}
{nl.join(pre)}
                go = {go}
{nl.join(body)}
{nl.join(post)}
                status = {status}
                N[1, b] = status if act else N[1, b]
{nl.join(writes)}
                N[2, b] = t + 1 if go else t
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


@numba.njit
def _load(b, i, I, {pargs}F, N):
{nl.join(load)}


@numba.njit
def _store(b, out_i, out_f, F, N):
{nl.join(store)}
'''


def _free(lets) -> set:
    out: set = set()
    for c in lets:
        out |= sp.sympify(c.expr).free_symbols
    return out


def _call_argument(expr, params, fr) -> str:
    """A call's argument, printed in the parameters' rows of slot b."""
    _check_rounding(expr, "call argument")
    return _StepPrinter({q: f"F[{fr[q]}, b]" for q in params}).doprint(sp.sympify(expr))


_COMPILED: dict[str, Callable] = {}


def compile_source(source: str, label: str) -> Callable:
    """The numba ``engine`` of a generated source (one compile per source per process). The single place
    where generated step-kernel source is compiled (a disk cache can be routed through here)."""
    if source not in _COMPILED:
        namespace: dict[str, Any] = {"math": math, "np": np, "numba": numba}
        exec(compile(source, f"<verify.dynamics.stepkernel {label}>", "exec"), namespace)  # generated from sympy
        _COMPILED[source] = namespace["engine"]
    return _COMPILED[source]


@functools.lru_cache(maxsize=None)
def compiled_engine(k: StepKernel) -> Callable:
    """The compiled engine of a declared kernel (see :func:`kernel_source` for its arguments); cached per
    declaration, so a run pays neither the printing nor the compile twice."""
    return compile_source(kernel_source(k), k.label)
