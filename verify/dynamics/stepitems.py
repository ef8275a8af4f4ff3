"""The declarations of a step kernel (:mod:`.stepkernel`): named intermediates, compiled calls, observers,
carried lane state, checkpoints and the stop rule, as sympy expressions in named step quantities.

They are data: :mod:`.stepkernel` prints them into one generated numba engine. Kept apart from the
printer so that a model's declaration (:mod:`.lxy`, :mod:`.genericstep`, ...) reads as a list of
equations, and so that each module stays one concept.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import sympy as sp
from sympy.logic.boolalg import BooleanFunction

T = sp.Symbol("t", integer=True)  # the step index of the lane (the step from θ_t to θ_{t+1})


# ----------------------------------------------------------------------------- declarations
@dataclass(frozen=True)
class Let:
    """A named intermediate: ``name = expr`` (a float, integer or boolean expression).

    ``printed_order``: ``expr`` may have sums and products of any length, evaluated in the order sympy's
    Python printer writes them — for expressions derived by sympy (an objective's gradient, its common
    subexpressions) whose reference code prints the very same expression with the same printer
    (:func:`verify.dynamics.generic._vector_source`), so both round alike; the printing is then exactly
    that printer's (``x**2`` stays ``x**2``, floats as sympy writes them)."""
    name: sp.Symbol
    expr: Any
    printed_order: bool = False


class MaxOf(sp.Function):
    """Python's ``max(a, b)`` with the operands in this order (sympy's ``Max`` would sort and simplify
    them; a running maximum must keep Python's order, which decides what a NaN operand gives)."""
    nargs = 2


class MinOf(sp.Function):
    """Python's ``min(a, b)`` with the operands in this order (see :class:`MaxOf`)."""
    nargs = 2


class Quotient(sp.Function):
    """``a / b`` with ``a`` rounded first: ``Quotient(r*x, m)`` is ``(r*x)/m`` (sympy would merge the
    product's factors and the divisor into one product of three operands, whose order it does not
    keep)."""
    nargs = 2


class IsFinite(BooleanFunction):
    """``x`` is neither ±inf nor NaN (printed ``abs(x) < inf``; sympy would decide ``Abs(x) < oo`` to be
    true for any symbol, which is what a float64 check must not assume)."""
    nargs = 1


class IsNaN(BooleanFunction):
    """``x`` is NaN (printed ``x != x``; sympy would decide ``Ne(x, x)`` to be false)."""
    nargs = 1


@dataclass(frozen=True)
class State:
    """A carried lane quantity: ``init`` when the lane starts (an ``int`` makes an integer state), and
    ``next`` its value for the next step, written when the lane steps (in the body) or when its
    :class:`Checkpoint` passes (in the checkpoint's items). Everywhere ``name`` denotes its value at the
    current step — so a before-rule may read what the previous step decided (e.g. "the last step fell
    below the float64 floor"). ``init`` may also be an expression in the lane inputs and constants (a
    per-lane start). ``where``: written only at the steps where it also holds. In the prelude (kernels
    without a :class:`Checkpoint`) a State is written also at the step where a before-rule stops the
    lane — a running sum that counts the value at which the lane converged."""
    name: sp.Symbol
    init: Any
    next: Any
    where: Any = True

    def __post_init__(self) -> None:
        # an integer state stores into an integer row: a float next value would be truncated
        # silently (numba's int_array[i] = 2.7 stores 2)
        if isinstance(self.init, (int, bool, np.integer)) and not sp.sympify(self.next).is_integer:
            raise ValueError(f"State {self.name}: integer init {self.init!r} but next {self.next} is not "
                             "known to be an integer (declare integer symbols, or give a float init)")


@dataclass(frozen=True)
class Call:
    """``name = kernel(arg, kernel_params)``: a compiled scalar kernel passed at run time (e.g. ℓ'),
    ``arg`` an expression in the parameters; computed in its own vector loop before the step."""
    name: sp.Symbol
    kernel: str
    arg: Any


@dataclass(frozen=True)
class RowMean:
    """``names[j] = (1/n) Σᵢ exprs[j](θ, zᵢ)`` over the rows zᵢ of the data array ``Z`` (the kernel's
    ``data`` symbols bound to one row), summed in row order from 0.0 and divided by n — the order of
    :func:`verify.dynamics.generic._mean_into`, so a full-batch gradient rounds as there (for n = 1
    the sum starts at −0.0, which adds exactly, as that function takes the single row as is).
    ``lets``: per-row intermediates before ``exprs`` (the common subexpressions). In
    :attr:`StepKernel.row_means` (at θ_t, before the step: a loop over rows around the vectorised loop
    over slots) or in a :class:`Checkpoint`'s items (the scalar pass). In a kernel with
    :attr:`StepKernel.coordinates`, ``lets`` may be :class:`Reduce` over the coordinates of the row
    (a residual), and a name whose expression reads a per-coordinate quantity is a sum per coordinate
    (:mod:`.coordloop`)."""
    names: tuple
    exprs: tuple
    lets: tuple = ()
    printed_order: bool = False
    mean: bool = True  # False: the plain sum from 0.0 (a kernel that divides by n itself, or not at all)
    # True: the rows are the lane's mini-batch at step t, not all of Z — rows BT[slot, t, q] of Z for
    # q = 0..b−1 in q order, ``BT`` the engine's batch table (:attr:`StepKernel.batch_slot`); summed
    # from 0.0 (``mean`` must be False: a kernel divides by b where its reference does, e.g. per term)
    batch: bool = False

    def __post_init__(self) -> None:
        if self.batch and self.mean:
            raise ValueError("RowMean(batch=True) sums from 0.0: declare mean=False and divide where the "
                             "reference divides (per term, Quotient(term, b), or the sum)")


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
class RareUpdate:
    """At the steps where ``where`` holds (the lane stepping), the scalar pass evaluates ``items`` —
    :class:`Let` and :class:`State` (a new next value, replacing the one the vector loop wrote) — from
    the step's quantities (stashed by the vector loop; a State's name is its value before the step).
    For a costly branch (a ``log``) of a state's update that is rarely taken: the vector loop computes
    the common branch for every lane, the scalar pass redoes the rare one for the flagged lanes.

    In a :class:`PerCoordinate` block the vector loop must hold, coordinate by coordinate, the States
    the RareUpdate writes where ``where`` holds (a select per State and coordinate, which costs the
    diagonal network's loop a sixth of its time). ``absent_if``, a scalar condition readable before
    the block (a Reduce of an earlier block, a lane row: e.g. max_j |s_j| < 0.05 for ``where`` =
    |s_j| ≥ 0.05), declares that ``where`` then holds at no coordinate; the engine prints the block's
    loop a second time without the RareUpdate and runs that copy when ``absent_if`` holds for every
    stepping lane of the block. The declaration vouches for the implication (as for a
    :class:`~.stepseries.TruncatedSeries` ratio); a false one changes results (tests/test_rareupdate.py)."""
    where: Any
    items: tuple
    absent_if: Any = None


@dataclass(frozen=True)
class Window:
    """The last ``size`` values of ``value`` over the steps where ``where`` holds, oldest first (NaN
    before the first): outputs ``<name>_0`` … ``<name>_<size-1>``. A shift register of ``size`` rows
    (branch-free, so the vector loop stays vectorised). In the body, or in the prelude under the rules
    of a prelude :class:`State`."""
    name: str
    value: Any
    size: int
    where: Any = True


@dataclass(frozen=True)
class Doublings:
    """The States ``values`` after the steps t + 1 = 2^j, j < ``count``, after which the lane goes on
    (no after-rule stopped it): outputs ``<name>_<j>_<i>`` (0.0 if the lane stopped before), written
    by the scalar pass — a trajectory sampled on a log scale of the step count."""
    name: str
    values: tuple
    count: int


@dataclass(frozen=True)
class Checkpoint:
    """A before-rule decided by scalar code: at the steps where ``where`` holds (and no earlier before-rule
    stopped the lane), the lane does not step in the vector loop; the scalar pass evaluates ``items``
    (:class:`Let`, :class:`RowMean` — e.g. the objective's value —, :class:`State` updates, in order: a
    State is written where it stands, so declare it after the items that read its old value) for it and
    then ``stop`` ((condition, outcome), the first that holds wins; conditions may read the items).
    Quantities of the prelude it reads are stashed by the vector loop. If none holds, the checkpoint has passed for this
    step and the lane steps in the next sweep: the prelude and ALL before-rules are evaluated again
    there, those before the checkpoint too — a rule before it that reads a State the checkpoint
    writes sees the new value (unlike a plain loop, which would not re-test it), so declare such a
    rule after the checkpoint. For costly, rare checks — a value and stall test every ``check_every``
    steps — that the vector loop should not pay on every step.

    A checkpoint that is the first before-rule, reads no prelude quantity and writes no State that the
    row lets, row means or coordinate blocks before the vector loop read is decided before the vector
    loop instead (the same items and outcomes, in the same order): a lane that passes it steps in the
    same sweep, with no sweep idled per check. In a kernel with per-coordinate quantities its RowMean
    may hold a :class:`Reduce` over the coordinates (the full loss, :mod:`.batchrows`), reading the row
    lets and data — and the per-coordinate parameters and States if it is decided so."""
    where: Any
    items: tuple
    stop: tuple


@dataclass(frozen=True)
class StopRule:
    """``before``: (condition on θ_t, t, the states and the prelude, outcome) or a :class:`Checkpoint`, in
    priority order — the lane stops without stepping; ``after``:
    (condition on the step just taken, outcome) — the lane stops at θ_{t+1}; the first that holds wins.
    ``overrides``: (outcome, output name, value) — an output's value when the lane stopped so."""
    before: tuple
    after: tuple
    overrides: tuple = ()


@dataclass(frozen=True)
class Reduce:
    """An in-order reduction over the coordinates j = 0..d−1 (in a :class:`PerCoordinate` block, or a
    :class:`RowMean`'s per-row intermediates): ``name = init``, then for j = 0, 1, …, d−1
    ``name = next`` — an expression in ``name`` (the running value) and coordinate j's quantities. The
    order is the declaration's: ``next = name + x·β`` sums from ``init`` in j order (a residual
    (…((−y + x_0β_0) + x_1β_1)…) + x_{d−1}β_{d−1}), ``MaxOf(name, |s|)`` is a running maximum, ``name |
    (s = 1)`` a running "any". ``name`` is a float, or a boolean if ``init`` is one."""
    name: sp.Symbol
    init: Any
    next: Any


@dataclass(frozen=True)
class PerCoordinate:
    """``items`` evaluated once per coordinate j = 0..d−1 in j order, d a run-time size (the columns
    of the data array ``Z``, :attr:`StepKernel.coordinates`): printed once, inside a loop over j
    (:mod:`.coordloop`), however large d. In the block a per-coordinate symbol (a parameter, lane
    input or data symbol of :attr:`StepKernel.coordinates`, a Let or State of a block, a family row
    mean) denotes coordinate j's value; scalars are read as they are; a :class:`Reduce` turns the
    coordinates into a scalar. Where it may stand and what it may hold: :mod:`.coordloop`."""
    items: tuple


@dataclass(frozen=True)
class StepKernel:
    """One declared blocked GD kernel (see the module docstring)."""
    params: tuple
    next_params: tuple  # the intermediates holding θ_{t+1}, in the order of params
    lane_inputs: tuple  # per-lane floats beside θ₀ (η, ...)
    constants: tuple  # run-wide scalars: arguments of the generated engine, in this order
    calls: tuple
    body: tuple  # Let, State and observers, in evaluation order
    stop: StopRule
    # Let and observers at θ_t, evaluated for every running lane before the stop rule, which may use
    # them (a gradient and its norm, say); an observer here records also at the step where the lane stops.
    # Only Let, FirstWhere, MaxWhere, MinWhere and LastWhere: a checkpoint's lane visits its step twice,
    # and these record the same thing twice.
    prelude: tuple = ()
    data: tuple = ()  # the symbols of one data row: the engine takes the rows as an array Z after I
    row_means: tuple = ()  # RowMean at θ_t (in the parameters, lane inputs and data), before the prelude
    # Let in the parameters and lane inputs, once per step before the row means, which may read them
    # (a product every row would otherwise recompute)
    row_lets: tuple = ()
    lane_constants: tuple = ()  # Let in lane inputs, computed once per lane
    finals: tuple = ()  # Let in the final θ: extra outputs
    int_outputs: tuple = ("outcome", "steps")
    float_outputs: tuple = ()
    label: str = "step_kernel"
    # the per-coordinate parameters, lane inputs and data symbols: coordinate j's value in a
    # PerCoordinate block; d rows each of I, Z (the first d columns, then the scalar data) and, for an
    # output, of out_f (:mod:`.coordloop`)
    coordinates: tuple = ()
    # the lane input holding the lane's row of the batch table (a whole number, exact in float64): the
    # engine then takes ``BT`` after ``Z``, an int32 array BT[slot, t, q] — the q-th data row of step
    # t's mini-batch of the lanes of that slot (drawn before the run, e.g. one slot per seed), read by
    # the RowMeans declared ``batch=True``; a step t past the table's last reads its last
    batch_slot: Any = None


def composite_gd_step(params: Sequence[sp.Symbol], u: Any, dl: sp.Symbol, eta: sp.Symbol,
                      step: sp.Symbol, nexts: Sequence[sp.Symbol]) -> tuple[Let, ...]:
    """GD on f = ℓ(u(θ)) by the chain rule: ``step = η ℓ'(u)`` (``dl`` the call giving ℓ'(u)), then
    θ_j' = θ_j − step · ∂u/∂θ_j (for ℓ(xy): x − ηℓ'(xy) y, y − ηℓ'(xy) x, Ahn et al. 2023 eq. (2))."""
    lets = [Let(step, eta * dl)]
    lets += [Let(n, p - step * sp.diff(u, p)) for p, n in zip(params, nexts)]
    return tuple(lets)


_NAMING_FIELDS = ("name", "names", "count", "min", "max")  # fields that name what an item defines


def read_expressions(item):
    """The expressions an item (a declaration, or a tuple of them) reads, not the symbols it names."""
    if isinstance(item, (tuple, list)):
        for i in item:
            yield from read_expressions(i)
    elif dataclasses.is_dataclass(item):
        for f in dataclasses.fields(item):
            if f.name not in _NAMING_FIELDS:
                yield from read_expressions(getattr(item, f.name))
    elif isinstance(item, (sp.Basic, bool, int, float)):
        yield sp.sympify(item)


def reads(item) -> set:
    """The symbols an item (a declaration, or a tuple of them) reads, not those it names."""
    return set().union(set(), *(e.free_symbols for e in read_expressions(item)))


def step_residues(item) -> set:
    """The ``Mod(T, c)`` an item (a declaration, or a tuple of them) reads, ``c`` any expression: the
    engine keeps those with ``c`` an integer kernel constant as per-slot residues (:mod:`.stepkernel`)."""
    return {m for e in read_expressions(item) for m in e.atoms(sp.Mod) if m.args[0] == T}
