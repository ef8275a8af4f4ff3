"""The printers of step-kernel declarations (:mod:`.stepkernel`): sympy expressions into the numba
source of the generated engine.

Two printings: :class:`StepPrinter` for declarations whose rounding the declaration fixes (at most
two operands per sum or product, :func:`check_rounding`; booleans branch-free; floats exact), and
:class:`SympyOrderPrinter` for expressions derived by sympy whose reference code is printed by the
same printer (an objective's gradient: :mod:`.generic` prints its compiled functions with it).
"""
from __future__ import annotations

import ast
import math
from typing import Any

import sympy as sp
from sympy.logic.boolalg import Boolean
from numba import types
from numba.extending import intrinsic
from sympy.printing.pycode import PythonCodePrinter

INDENT = " " * 16  # the indent of a statement in the engine's loop over the slots (the vector loop)


class StepPrinter(PythonCodePrinter):
    """Symbols as the generated code's names; ``x**2`` as ``x*x``; floats exactly; booleans as the
    branch-free ``&``, ``|``, ``not`` (``and``/``or`` would branch and stop the vectoriser)."""

    def __init__(self, names: dict, unit_divisors: frozenset = frozenset(), residues: dict | None = None):
        super().__init__({"fully_qualified_modules": True})
        self.names = names
        self.unit_divisors = unit_divisors  # divisors known to be 1 here: Quotient(a, c) is a (a/1 = a exactly)
        self.residues = residues or {}  # Mod(T, c) -> the name holding it, where it is kept (stepkernel)

    def _print_Mod(self, expr):
        if expr in self.residues:
            return self.residues[expr]
        return super()._print_Mod(expr)

    def _print_Symbol(self, expr):
        if expr not in self.names:
            raise ValueError(f"step kernel: {expr} is not a declared name here")
        return self.names[expr]

    def _print_Pow(self, expr, rational=False):
        if expr.exp == 2:
            return f"({self._print(expr.base)}*{self._print(expr.base)})"
        return super()._print_Pow(expr, rational)

    def _print_Float(self, expr):
        return lit(expr)

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

    def _print_IsFinite(self, expr):
        return f"(abs({self._print(expr.args[0])}) < np.inf)"

    def _print_IsNaN(self, expr):
        return f"({self._print(expr.args[0])} != {self._print(expr.args[0])})"

    def _print_MaxOf(self, expr):
        return f"max({self._print(expr.args[0])}, {self._print(expr.args[1])})"

    def _print_Quotient(self, expr):
        if expr.args[1] in self.unit_divisors:
            return f"({self._print(expr.args[0])})"
        return f"({self._print(expr.args[0])} / {self._print(expr.args[1])})"

    def _print_MinOf(self, expr):
        return f"min({self._print(expr.args[0])}, {self._print(expr.args[1])})"


class SympyOrderPrinter(PythonCodePrinter):
    """sympy's own Python printing (operand order, ``x**2``, floats as sympy writes them) with the
    symbols renamed: the printer of an objective's generated code (:mod:`.generic`) and of a
    ``printed_order`` :class:`Let`, so that both print one expression into the same operations.
    ``strict``: a symbol not in ``names`` is an error (else printed as its name)."""

    def __init__(self, names: dict, strict: bool = True):
        super().__init__({"fully_qualified_modules": True})
        self.names, self.strict = names, strict

    def _print_Symbol(self, expr):
        if expr in self.names:
            return self.names[expr]
        if self.strict:
            raise ValueError(f"step kernel: {expr} is not a declared name here")
        return super()._print_Symbol(expr)


def is_bool(expr) -> bool:
    """Whether a declared value is a truth value (a Python bool, a sympy Boolean or relation)."""
    return isinstance(expr, bool) or isinstance(sp.sympify(expr), (Boolean, sp.core.relational.Relational))


def lit(v) -> str:
    """A float literal of the generated source (exact: repr round-trips)."""
    v = float(v)
    return "np.nan" if math.isnan(v) else ("np.inf" if v == math.inf else "-np.inf" if v == -math.inf else repr(v))


def check_rounding(expr: Any, where: str) -> None:
    """At most two operands (besides a sign) per sum or product: their order is then immaterial."""
    for node in sp.preorder_traversal(sp.sympify(expr)):
        if isinstance(node, (sp.Add, sp.Mul)):
            ops = [a for a in node.args if a != -1]
            if len(ops) > 2:
                raise ValueError(f"{where}: {node} has {len(ops)} operands; name the partial results "
                                 "(the rounding of a longer sum or product depends on its order)")


@intrinsic
def select(typingctx, cond, a, b):
    """``a if cond else b`` as one LLVM ``select``: no branch in numba's IR, whose passes (SSA, reaching
    definitions) grow with the number of blocks times the variables redefined in them — quadratically
    in the ternaries of a large generated loop — and nothing for the vectoriser to if-convert. Both
    operands are evaluated (the generated expressions have no side effects) and cast to their
    unified type, as the ternary's phi would be."""
    out = typingctx.unify_types(a, b)
    if out is None:
        return None

    def codegen(context, builder, sig, args):
        c = context.cast(builder, args[0], sig.args[0], types.boolean)
        x = context.cast(builder, args[1], sig.args[1], sig.return_type)
        y = context.cast(builder, args[2], sig.args[2], sig.return_type)
        return builder.select(c, x, y)

    return out(cond, a, b), codegen


class _Selects(ast.NodeTransformer):
    def visit_IfExp(self, node):
        self.generic_visit(node)
        return ast.Call(ast.Name("select", ast.Load()), [node.test, node.body, node.orelse], [])


def selects(lines: list[str]) -> list[str]:
    """The generated statements ``lines`` (one per line, indented) with every ``a if c else b`` printed
    as ``select(c, a, b)`` (:func:`select`)."""
    out = []
    for line in lines:
        text = line.lstrip(" ")
        tree = ast.fix_missing_locations(_Selects().visit(ast.parse(text)))
        out.append(line[:len(line) - len(text)] + ast.unparse(tree))
    return out


def sum_start(mean: bool) -> str:
    """The generated start of a sum over the data rows ``Z``: 0.0, and for a mean −0.0 when there is at
    most one row (−0.0 + x is x, so a mean of one row is its term, a −0.0 term included)."""
    return "0.0 if Z.shape[0] > 1 else -0.0  # -0.0 + x is x" if mean else "0.0"


def code_name(prefix: str, symbol) -> str:
    """The generated code's variable for a declared symbol: ``<prefix>_<name>`` when the name is an
    ASCII identifier, else ``<prefix>x_`` and the name with every character that is not an ASCII
    letter or digit written as ``_<hex code>_`` (an injective spelling in its own namespace). Names
    are never pasted into the source as written: a parameter called ``θ₀`` or ``x'`` must compile,
    and a name holding code (``x=0;import os;x``) must stay a name."""
    name = symbol.name
    if name.isascii() and name.isidentifier():
        return f"{prefix}_{name}"
    return prefix + "x_" + "".join(c if c.isascii() and c.isalnum() else f"_{ord(c):x}_" for c in name)
