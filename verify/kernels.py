"""Compiled evaluators generated from a sympy expression: float64 (numba) and double-double.

The sympy expression is the source of truth; nothing is written by hand per loss. Generation:

1. **Parametrise**: every non-integer constant in the expression (a constant c_β, even one with a
   radical in it, an exponent β, a threshold r_β²) becomes a slot ``p[i]`` of a parameter vector, in traversal order, so that a family
   of losses (ℓ_β for every β) shares one template, hence one compiled kernel, hence one compiled GD
   engine (numba specialises the engine per kernel; a specialisation costs seconds). Integers and the
   square-root exponents ±1/2 stay literal (``s**2`` compiles to a multiplication, ``**(1/2)`` to
   ``sqrt``).
2. **float64**: the template is printed with sympy's Python code printer (``math`` functions) into
   ``kernel(s, p)`` and compiled with ``numba.njit``, in a module written to the kernel cache
   (:mod:`verify.kernelcache`: compiled once per machine, not per process); memoised by source text.
3. **double-double**: the template is translated node by node into the error-free arithmetic of
   :mod:`verify.dynamics.ddarith` (``kernel(s_hi, s_lo, p) -> (hi, lo)``, ``p`` holding (hi, lo)
   pairs of the parameters, split exactly from the sympy numbers at 50 digits). Supported: + − × ÷,
   integer and ±1/2 powers, positive real powers, exp, log, tanh, Abs, sign, Piecewise with
   relational conditions. Anything else returns ``None`` (no double-double path for that loss).
"""
from __future__ import annotations

import math
import re
from typing import Callable

import numba
import numpy as np
import sympy as sp
from sympy.printing.pycode import PythonCodePrinter

from .kernelcache import compiled_module

_FLOAT64_CACHE: dict[str, Callable] = {}
_DD_CACHE: dict[str, Callable] = {}


class NotCompilable(ValueError):
    """The expression uses something the generator does not translate."""


def _literal_exponent(e: sp.Expr) -> bool:
    return bool(e.is_Integer) or e in (sp.S.Half, -sp.S.Half)


def parametrise(expr: sp.Expr) -> tuple[sp.Expr, list[sp.Expr]]:
    """(template with symbols ``p0, p1, …`` in place of non-integer numbers, their exact values)."""
    values: list[sp.Expr] = []

    def slot(number: sp.Expr) -> sp.Symbol:
        values.append(number)
        return sp.Symbol(f"p{len(values) - 1}", real=True)

    def walk(e: sp.Basic) -> sp.Basic:
        if isinstance(e, sp.Expr) and e.is_number:  # a constant (sub)expression: one slot, folded once
            return e if e.is_Integer else slot(e)
        if isinstance(e, (sp.Add, sp.Mul)):
            consts = [a for a in e.args if a.is_number and not a.is_Integer]
            if len(consts) > 1:  # c_β = 12/343·14^(2/3) is one number, not a product per step
                rest = [walk(a) for a in e.args if not (a.is_number and not a.is_Integer)]
                return e.func(slot(e.func(*consts)), *rest, evaluate=False)
        if isinstance(e, sp.Pow):
            base = walk(e.base)
            exp = e.exp if _literal_exponent(e.exp) else walk(e.exp)
            return sp.Pow(base, exp, evaluate=False)
        if not e.args:
            return e
        args = [walk(a) for a in e.args]
        try:
            return e.func(*args, evaluate=False)
        except TypeError:
            return e.func(*args)

    return walk(sp.sympify(expr)), values


# ----------------------------------------------------------------------------- float64
class _Float64Printer(PythonCodePrinter):
    """Python code on ``math``; the variable prints as ``s`` and parameter ``p<i>`` as ``p[i]``."""

    def __init__(self, var: sp.Symbol):
        super().__init__({"fully_qualified_modules": True})
        self.var = var

    def _print_Symbol(self, expr):
        if expr == self.var:
            return "s"
        if expr.name.startswith("p") and expr.name[1:].isdigit():
            return f"p[{expr.name[1:]}]"
        raise NotCompilable(f"free symbol {expr} besides {self.var}")


def float64_source(template: sp.Expr, var: sp.Symbol) -> str:
    try:
        body = _Float64Printer(var).doprint(template)
    except NotCompilable:
        raise
    except Exception as exc:  # the printer has no math-module form for some function
        raise NotCompilable(f"no float64 code for {template}: {type(exc).__name__}") from None
    # error_model="numpy": x/0 is ±inf or nan (the lane engine reports it as divergence) rather than
    # a raised ZeroDivisionError, whose check is a branch that stops the engine's loop over lanes
    # from vectorising
    return f"@numba.njit(cache=True, error_model='numpy')\ndef kernel(s, p):\n    return {body}\n"


def float64_kernel(expr: sp.Expr, var: sp.Symbol) -> tuple[Callable, np.ndarray]:
    """``(kernel, params)`` with ``kernel(s, params) -> expr(s)`` in float64, numba-compiled (eagerly,
    so that an expression numba cannot compile raises :class:`NotCompilable` here)."""
    template, values = parametrise(expr)
    source = float64_source(template, var)
    params = np.array([float(v) for v in values] or [0.0], dtype=np.float64)
    if source not in _FLOAT64_CACHE:
        # generated from sympy, not user text
        kernel = compiled_module(source, "float64_kernel", {"math": math, "numba": numba}).kernel
        try:
            kernel(0.5, params)
        except Exception as exc:
            raise NotCompilable(f"generated float64 code does not compile: {type(exc).__name__}") from None
        _FLOAT64_CACHE[source] = kernel
    return _FLOAT64_CACHE[source], params


# ----------------------------------------------------------------------------- double-double
def dd_pair(value: sp.Expr) -> tuple[float, float]:
    """An exact sympy number as hi + lo (split at 50 digits)."""
    import mpmath

    with mpmath.workdps(50):
        v = mpmath.mpf(sp.N(value, 50))
        hi = float(v)
        return hi, float(v - hi)


class _DDWriter:
    """Emits straight-line double-double code (nested ifs for Piecewise) for one template."""

    def __init__(self, var: sp.Symbol):
        self.var = var
        self.n = 0

    def fresh(self) -> tuple[str, str]:
        self.n += 1
        return f"h{self.n}", f"l{self.n}"

    def emit(self, e: sp.Expr, lines: list[str], ind: str) -> tuple[str, str]:
        if e == self.var:
            return "sh", "sl"
        if isinstance(e, sp.Symbol) and e.name.startswith("p") and e.name[1:].isdigit():
            i = int(e.name[1:])
            return f"p[{2 * i}]", f"p[{2 * i + 1}]"
        if e.is_Integer:
            if abs(int(e)) >= 2**53:
                raise NotCompilable(f"integer {e} is not exact in float64")
            return f"{float(e)!r}", "0.0"
        if isinstance(e, sp.Add):
            a = self.emit(e.args[0], lines, ind)
            for arg in e.args[1:]:
                b = self.emit(arg, lines, ind)
                h, l = self.fresh()
                lines.append(f"{ind}{h}, {l} = dd_add({a[0]}, {a[1]}, {b[0]}, {b[1]})")
                a = (h, l)
            return a
        if isinstance(e, sp.Mul):
            args = list(e.args)
            negate = False
            if args[0] == -1:
                negate, args = True, args[1:]
            a = self.emit(args[0], lines, ind)
            for arg in args[1:]:
                if isinstance(arg, sp.Pow) and arg.exp == -1:  # a / b
                    b = self.emit(arg.base, lines, ind)
                    op = "dd_div"
                else:
                    b = self.emit(arg, lines, ind)
                    op = "dd_mul"
                h, l = self.fresh()
                lines.append(f"{ind}{h}, {l} = {op}({a[0]}, {a[1]}, {b[0]}, {b[1]})")
                a = (h, l)
            if negate:
                return f"(-{a[0]})", f"(-{a[1]})"
            return a
        if isinstance(e, sp.Pow):
            base = self.emit(e.base, lines, ind)
            h, l = self.fresh()
            if e.exp == sp.S.Half:
                lines.append(f"{ind}{h}, {l} = dd_sqrt({base[0]}, {base[1]})")
            elif e.exp == -sp.S.Half:
                lines.append(f"{ind}{h}, {l} = dd_sqrt({base[0]}, {base[1]})")
                lines.append(f"{ind}{h}, {l} = dd_div(1.0, 0.0, {h}, {l})")
            elif e.exp.is_Integer:
                k = int(e.exp)
                if k == 0:
                    return "1.0", "0.0"
                lines.append(f"{ind}{h}, {l} = dd_powi({base[0]}, {base[1]}, {abs(k)})")
                if k < 0:
                    lines.append(f"{ind}{h}, {l} = dd_div(1.0, 0.0, {h}, {l})")
            else:
                x = self.emit(e.exp, lines, ind)
                lines.append(f"{ind}{h}, {l} = dd_pow0({base[0]}, {base[1]}, {x[0]}, {x[1]})")
            return h, l
        if isinstance(e, sp.Abs):
            a = self.emit(e.args[0], lines, ind)
            h, l = self.fresh()
            lines.append(f"{ind}{h}, {l} = ((-{a[0]}, -{a[1]}) if {a[0]} < 0.0 else ({a[0]}, {a[1]}))")
            return h, l
        if isinstance(e, sp.sign):
            a = self.emit(e.args[0], lines, ind)
            h, l = self.fresh()
            lines.append(f"{ind}{h}, {l} = ((1.0 if {a[0]} > 0.0 else (-1.0 if {a[0]} < 0.0 else 0.0)), 0.0)")
            return h, l
        unary = {sp.tanh: "dd_tanh", sp.exp: "dd_exp", sp.log: "dd_log"}
        if type(e) in unary:
            a = self.emit(e.args[0], lines, ind)
            h, l = self.fresh()
            lines.append(f"{ind}{h}, {l} = {unary[type(e)]}({a[0]}, {a[1]})")
            return h, l
        if isinstance(e, sp.Piecewise):
            h, l = self.fresh()
            self._piecewise(list(e.args), (h, l), lines, ind)
            return h, l
        raise NotCompilable(f"no double-double translation for {type(e).__name__}")

    def _condition(self, c: sp.Basic, lines: list[str], ind: str) -> str:
        if c is sp.true or c == sp.true:
            return "True"
        if isinstance(c, (sp.And, sp.Or)):
            parts = [self._condition(a, lines, ind) for a in c.args]
            return "(" + (" and " if isinstance(c, sp.And) else " or ").join(parts) + ")"
        if isinstance(c, sp.Not):
            return f"(not {self._condition(c.args[0], lines, ind)})"
        ops = {sp.StrictLessThan: "<", sp.LessThan: "<=", sp.StrictGreaterThan: ">",
               sp.GreaterThan: ">=", sp.Eq: "==", sp.Ne: "!="}
        if type(c) in ops:
            d = self.emit(c.args[0] - c.args[1], lines, ind)
            op = ops[type(c)]
            # the sign of hi + lo: hi decides unless it is zero
            return f"(({d[0]} {op} 0.0) if {d[0]} != 0.0 else ({d[1]} {op} 0.0))"
        raise NotCompilable(f"no double-double translation for the condition {c}")

    def _piecewise(self, pairs, out, lines, ind) -> None:
        (expr, cond), rest = pairs[0], pairs[1:]
        test = self._condition(cond, lines, ind)
        lines.append(f"{ind}if {test}:")
        r = self.emit(expr, lines, ind + "    ")
        lines.append(f"{ind}    {out[0]}, {out[1]} = {r[0]}, {r[1]}")
        lines.append(f"{ind}else:")
        if rest:
            self._piecewise(rest, out, lines, ind + "    ")
        else:
            lines.append(f"{ind}    {out[0]}, {out[1]} = math.nan, 0.0")


def dd_source(template: sp.Expr, var: sp.Symbol) -> str:
    writer = _DDWriter(var)
    lines: list[str] = []
    h, l = writer.emit(template, lines, "    ")
    return ("@numba.njit(cache=True)\ndef kernel(sh, sl, p):\n" + "\n".join(lines)
            + f"\n    return {h}, {l}\n")


def dd_kernel(expr: sp.Expr, var: sp.Symbol) -> tuple[Callable, np.ndarray]:
    """``(kernel, params)`` with ``kernel(s_hi, s_lo, params) -> (hi, lo)`` of expr in double-double."""
    from .dynamics import ddarith

    template, values = parametrise(expr)
    source = dd_source(template, var)
    params = np.array([x for v in values for x in dd_pair(v)] or [0.0, 0.0], dtype=np.float64)
    if source not in _DD_CACHE:
        used = {k: getattr(ddarith, k) for k in sorted(set(re.findall(r"\bdd_\w+", source)))}
        # generated from sympy, not user text
        kernel = compiled_module(source, "dd_kernel", {"math": math, "numba": numba, **used}).kernel
        try:
            kernel(0.5, 0.0, params)
        except Exception as exc:
            raise NotCompilable(f"generated double-double code does not compile: {type(exc).__name__}") from None
        _DD_CACHE[source] = kernel
    return _DD_CACHE[source], params
