"""Safe parsing of a loss expression in the variable ``s`` (untrusted text → sympy).

The text is never evaluated: it is parsed by Python's :mod:`ast` (which only builds a syntax tree),
every node is checked against a whitelist, and the sympy expression is then built node by node
from that tree. Accepted:

* numbers (int, finite decimal/float literals, converted to exact rationals), the variable ``s``,
  the constants ``pi`` and ``E``;
* ``+ - * / **``, unary minus / plus;
* calls to the functions in :data:`FUNCTIONS` (positional arguments only);
* inside ``Piecewise`` branches and ``And``/``Or``/``Not``: comparisons (chained ones too),
  ``True``/``False``, ``and``/``or``, and ``(expr, cond)`` tuples.

Anything else (attribute access, subscripts, other names, lambdas, comprehensions, strings, keyword
arguments, starred arguments, dunder names) is rejected with a :class:`LossSyntaxError` naming the
offending token and its column. Size limits (text length, node count, nesting depth, exponent size,
digits of integer literals) keep sympy from being asked to build astronomically large numbers.
"""
from __future__ import annotations

import ast
import math
import re
import unicodedata
from typing import Any

import sympy as sp

S = sp.Symbol("s", real=True)

MAX_LENGTH = 2000          # characters
MAX_NODES = 600            # syntax-tree nodes
MAX_DEPTH = 40             # syntax-tree nesting
MAX_INT_DIGITS = 40        # digits of one integer literal
MAX_MAGNITUDE = 1e300      # |numeric literal|
MAX_EXPONENT = 256         # |numeric exponent| in a power
MAX_POWER_DIGITS = 2000    # decimal digits of an exact number^number

# name -> (sympy constructor, minimum arity, maximum arity or None)
FUNCTIONS: dict[str, tuple[Any, int, int | None]] = {
    "Abs": (sp.Abs, 1, 1), "sign": (sp.sign, 1, 1),
    "Min": (sp.Min, 2, None), "Max": (sp.Max, 2, None),
    "exp": (sp.exp, 1, 1), "log": (sp.log, 1, 1), "sqrt": (sp.sqrt, 1, 1),
    "sin": (sp.sin, 1, 1), "cos": (sp.cos, 1, 1), "tan": (sp.tan, 1, 1),
    "sinh": (sp.sinh, 1, 1), "cosh": (sp.cosh, 1, 1), "tanh": (sp.tanh, 1, 1),
    "asin": (sp.asin, 1, 1), "acos": (sp.acos, 1, 1), "atan": (sp.atan, 1, 1),
    "asinh": (sp.asinh, 1, 1), "acosh": (sp.acosh, 1, 1), "atanh": (sp.atanh, 1, 1),
    "erf": (sp.erf, 1, 1),
}
_GROWTH = ("exp", "sinh", "cosh")
MAX_GROWTH_ARG = 1e4       # exp(constant) stays below ~10^4343
LOGIC = {"And": sp.And, "Or": sp.Or, "Not": sp.Not}
CONSTANTS = {"pi": sp.pi, "E": sp.E}
VARIABLE = "s"

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}
_CMPOPS = {ast.Lt: sp.Lt, ast.LtE: sp.Le, ast.Gt: sp.Gt, ast.GtE: sp.Ge, ast.Eq: sp.Eq,
           ast.NotEq: sp.Ne}
_ALLOWED_NODES = (ast.BitAnd, ast.BitOr, ast.Invert,  # only inside conditions (sympy's own printing)
                  ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Load,
                  ast.Call, ast.Compare, ast.Tuple, ast.BoolOp, ast.And, ast.Or, ast.USub, ast.UAdd,
                  *_BINOPS, *_CMPOPS)

# a left-nested chain of these operators (a + b - c + ...) is a flat sum, not nesting
_CHAIN = {ast.Add: "sum", ast.Sub: "sum", ast.Mult: "product", ast.Div: "product"}

_FORBIDDEN_WHAT = {
    ast.Attribute: "attribute access", ast.Subscript: "subscripts", ast.Lambda: "lambda",
    ast.ListComp: "comprehensions", ast.SetComp: "comprehensions", ast.DictComp: "comprehensions",
    ast.GeneratorExp: "comprehensions", ast.List: "lists", ast.Dict: "dicts", ast.Set: "sets",
    ast.Starred: "starred arguments", ast.JoinedStr: "strings", ast.FormattedValue: "strings",
    ast.IfExp: "conditional expressions (use Piecewise)", ast.NamedExpr: "assignment expressions",
    ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield", ast.Slice: "slices",
    ast.BitXor: "bitwise operators", ast.LShift: "shifts", ast.RShift: "shifts",
    ast.MatMult: "the @ operator", ast.FloorDiv: "floor division //", ast.Mod: "the % operator",
    ast.Not: "`not` (use Not(...))", ast.Is: "`is`", ast.IsNot: "`is not`",
    ast.In: "`in`", ast.NotIn: "`not in`",
}


class LossSyntaxError(ValueError):
    """The input is not an accepted loss expression; the message names the token and position."""

    def __init__(self, message: str, column: int | None = None, token: str | None = None):
        where = f" (at column {column + 1})" if column is not None else ""
        super().__init__(message + where)
        self.column = column
        self.token = token


def _token(text: str, node: ast.AST) -> str:
    try:
        seg = ast.get_source_segment(text, node)
    except Exception:
        seg = None
    if seg is None:
        return type(node).__name__
    return seg if len(seg) <= 40 else seg[:37] + "..."


def _col(node: ast.AST) -> int | None:
    return getattr(node, "col_offset", None)


def _reject(text: str, node: ast.AST, why: str) -> LossSyntaxError:
    tok = _token(text, node)
    return LossSyntaxError(f"rejected `{tok}`: {why}", _col(node), tok)


def _screen(text: str, tree: ast.AST) -> None:
    """Whitelist pass over the whole tree before anything is built."""
    count = 0

    def depth_walk(node: ast.AST, depth: int) -> None:
        nonlocal count
        count += 1
        if count > MAX_NODES:
            raise LossSyntaxError(f"expression too large: more than {MAX_NODES} syntax nodes")
        if depth > MAX_DEPTH and hasattr(node, "col_offset"):  # operators / contexts are leaves
            raise _reject(text, node, f"nesting deeper than {MAX_DEPTH} levels")
        if not isinstance(node, _ALLOWED_NODES):
            what = next((w for t, w in _FORBIDDEN_WHAT.items() if isinstance(node, t)),
                        f"{type(node).__name__} nodes")
            raise _reject(text, node, f"{what}: not allowed")
        if isinstance(node, ast.Name):
            if "__" in node.id:
                raise _reject(text, node, "dunder names are not allowed")
            if node.id not in FUNCTIONS and node.id not in LOGIC and node.id not in CONSTANTS \
                    and node.id not in ("Piecewise", VARIABLE):
                lookalike = [c for c in node.id if ord(c) > 127]
                hint = ""
                if lookalike:
                    hint = (" (it contains " + ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, '?')}" for c in lookalike)
                            + ": not a Latin letter, although it may look like one)")
                raise _reject(text, node, f"unknown name {node.id!r}{hint}; the only variable is `s` and "
                              f"the allowed functions are {', '.join(sorted([*FUNCTIONS, *LOGIC, 'Piecewise']))}")
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool) or v is None:
                pass
            elif isinstance(v, str) or isinstance(v, bytes):
                raise _reject(text, node, "strings are not allowed")
            elif isinstance(v, complex):
                raise _reject(text, node, "complex numbers are not allowed")
            elif isinstance(v, float) and (not math.isfinite(v) or abs(v) > MAX_MAGNITUDE):
                raise _reject(text, node, f"number larger than {MAX_MAGNITUDE:g} in magnitude (the audit evaluates "
                              "in floating point on the way, where such numbers overflow)")
            elif isinstance(v, int) and abs(v) > MAX_MAGNITUDE:
                raise _reject(text, node, f"number larger than {MAX_MAGNITUDE:g} in magnitude")
            elif isinstance(v, int) and len(str(abs(v))) > MAX_INT_DIGITS:
                raise _reject(text, node, f"integer literal longer than {MAX_INT_DIGITS} digits")
            elif not isinstance(v, (int, float)):
                raise _reject(text, node, "unsupported literal")
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                raise _reject(text, node.func, "only direct calls of whitelisted function names are allowed")
            if node.func.id not in FUNCTIONS and node.func.id not in LOGIC and node.func.id != "Piecewise":
                raise _reject(text, node.func, f"{node.func.id!r} is not a callable function here")
            if node.keywords:
                raise _reject(text, node.keywords[0].value, "keyword arguments are not allowed")
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.operator, ast.cmpop, ast.boolop, ast.unaryop)) and \
                    not isinstance(child, _ALLOWED_NODES):
                what = next((w for t, w in _FORBIDDEN_WHAT.items() if isinstance(child, t)), "this operator")
                raise _reject(text, node, f"{what}: not allowed")  # operators have no position: name the whole
            flat = isinstance(node, ast.BinOp) and isinstance(child, ast.BinOp) and child is node.left and \
                _CHAIN.get(type(node.op)) is not None and _CHAIN.get(type(node.op)) == _CHAIN.get(type(child.op))
            depth_walk(child, depth if flat else depth + 1)

    depth_walk(tree, 0)


def _number_value(e: sp.Expr) -> float | None:
    if e.is_number:
        try:
            return float(e)
        except (TypeError, ValueError, OverflowError):
            return None
    return None


class _Builder:
    def __init__(self, text: str, symbol: sp.Symbol):
        self.text = text
        self.s = symbol

    def expr(self, node: ast.AST) -> sp.Expr:
        text = self.text
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool) or v is None:
                raise _reject(text, node, "a truth value is only allowed as a Piecewise condition")
            if isinstance(v, int):
                return sp.Integer(v)
            # the decimal text as written, exactly (0.1 -> 1/10)
            return sp.Rational(repr(v))
        if isinstance(node, ast.Name):
            if node.id == VARIABLE:
                return self.s
            if node.id in CONSTANTS:
                return CONSTANTS[node.id]
            raise _reject(text, node, "a function name must be called, e.g. exp(s)")
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Invert):
                raise _reject(text, node, "~ (negation) is only allowed in a Piecewise condition")
            inner = self.expr(node.operand)
            return -inner if isinstance(node.op, ast.USub) else inner
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
            raise _reject(text, node, "& and | are only allowed in a Piecewise condition")
        if isinstance(node, ast.BinOp):
            a, b = self.expr(node.left), self.expr(node.right)
            op = type(node.op)
            if op is ast.Add:
                return a + b
            if op is ast.Sub:
                return a - b
            if op is ast.Mult:
                return a * b
            if op is ast.Div:
                if b == 0:
                    raise _reject(text, node, "division by zero")
                return a / b
            return self.power(node, a, b)
        if isinstance(node, ast.Call):
            name = node.func.id
            if name == "Piecewise":
                return self.piecewise(node)
            if name in LOGIC:
                raise _reject(text, node, f"{name}(...) is a condition; use it inside Piecewise")
            fn, lo, hi = FUNCTIONS[name]
            n = len(node.args)
            if n < lo or (hi is not None and n > hi):
                want = f"{lo}" if hi == lo else f"at least {lo}"
                raise _reject(text, node, f"{name} takes {want} argument(s), got {n}")
            args = [self.expr(a) for a in node.args]
            if name in _GROWTH and args[0].is_number:
                v = _number_value(args[0])
                if v is None or abs(v) > MAX_GROWTH_ARG:
                    raise _reject(text, node, f"{name} of a constant beyond ±{MAX_GROWTH_ARG:g} is too large")
            if name in ("Min", "Max") and not all(a.is_number for a in args):
                # unevaluated: sympy's Max/Min compares every pair of arguments when it builds the
                # node (6 s for 60 tanh terms, before any time budget applies); the audit resolves
                # Min/Max itself, cell by cell
                return fn(*dict.fromkeys(args), evaluate=False) if len(set(args)) > 1 else args[0]
            return fn(*args)
        if isinstance(node, (ast.Compare, ast.BoolOp)):
            raise _reject(text, node, "a comparison is only allowed as a Piecewise condition")
        if isinstance(node, ast.Tuple):
            raise _reject(text, node, "a tuple is only allowed as a Piecewise branch (expr, cond)")
        raise _reject(text, node, f"{type(node).__name__} is not allowed")  # pragma: no cover

    def power(self, node: ast.BinOp, base: sp.Expr, exponent: sp.Expr) -> sp.Expr:
        ev = _number_value(exponent)
        if exponent.is_number:
            if ev is None or not math.isfinite(ev):
                raise _reject(self.text, node.right, "exponent is not a finite real number")
            if abs(ev) > MAX_EXPONENT:
                raise _reject(self.text, node.right, f"exponent {exponent} too large (|exponent| <= {MAX_EXPONENT})")
            bv = _number_value(base)
            if base.is_number and bv is not None and bv != 0 and \
                    abs(ev) * math.log10(max(abs(bv), 1e-300)) > MAX_POWER_DIGITS:
                raise _reject(self.text, node, "power too large to build exactly")
        elif exponent.has(self.s) and base.has(self.s):
            pass  # s**s is legal (if odd); sizes are bounded by the node limit
        return sp.Pow(base, exponent)

    def piecewise(self, node: ast.Call) -> sp.Expr:
        if not node.args:
            raise _reject(self.text, node, "Piecewise needs at least one (expr, cond) branch")
        branches = []
        for arg in node.args:
            if not isinstance(arg, ast.Tuple) or len(arg.elts) != 2:
                raise _reject(self.text, arg, "each Piecewise branch must be a pair (expr, cond)")
            branches.append((self.expr(arg.elts[0]), self.cond(arg.elts[1])))
        return sp.Piecewise(*branches)

    def cond(self, node: ast.AST) -> Any:
        text = self.text
        if isinstance(node, ast.Constant) and isinstance(node.value, bool):
            return sp.true if node.value else sp.false
        if isinstance(node, ast.Compare):
            terms = [self.expr(node.left)] + [self.expr(c) for c in node.comparators]
            rels = [_CMPOPS[type(op)](terms[i], terms[i + 1]) for i, op in enumerate(node.ops)]
            return sp.And(*rels) if len(rels) > 1 else rels[0]
        if isinstance(node, ast.BoolOp):
            parts = [self.cond(v) for v in node.values]
            return sp.And(*parts) if isinstance(node.op, ast.And) else sp.Or(*parts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
            a, b = self.cond(node.left), self.cond(node.right)  # sympy prints And/Or as & and |
            return sp.And(a, b) if isinstance(node.op, ast.BitAnd) else sp.Or(a, b)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
            return sp.Not(self.cond(node.operand))
        if isinstance(node, ast.Call) and node.func.id in LOGIC:
            parts = [self.cond(a) for a in node.args]
            if node.func.id == "Not":
                if len(parts) != 1:
                    raise _reject(text, node, "Not takes 1 argument")
                return sp.Not(parts[0])
            if not parts:
                raise _reject(text, node, f"{node.func.id} needs arguments")
            return LOGIC[node.func.id](*parts)
        raise _reject(text, node, "expected a condition (comparison, True, And/Or/Not)")


def parse_loss(text: str, symbol: sp.Symbol = S) -> sp.Expr:
    """Parse untrusted ``text`` into a sympy expression in ``s``; raises :class:`LossSyntaxError`."""
    if not isinstance(text, str):
        raise LossSyntaxError(f"expected a string, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise LossSyntaxError(f"expression too long: {len(text)} characters (limit {MAX_LENGTH})")
    if not text.strip():
        raise LossSyntaxError("empty expression")
    if "\x00" in text:
        raise LossSyntaxError("NUL character in expression")
    if "#" in text:  # a comment would hide text from the audit and become markdown in its report
        raise LossSyntaxError("rejected `#`: comments are not allowed in an expression", text.index("#"), "#")
    bad = next((c for c in text.strip() if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") and c not in " \t"), None)
    if bad is not None:
        raise LossSyntaxError(f"rejected control character U+{ord(bad):04X} ({unicodedata.name(bad, 'a line break or control character')}): "
                              "write the expression on one line", text.strip().index(bad))
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        col = (exc.offset - 1) if exc.offset else None
        raise LossSyntaxError(f"syntax error: {exc.msg}", col) from None
    except (RecursionError, MemoryError, ValueError):
        raise LossSyntaxError("expression too deeply nested to parse") from None
    text = text.strip()
    dunder = re.search(r"\w*__\w*", text)
    if dunder:
        raise LossSyntaxError(f"rejected `{dunder.group(0)}`: dunder names are not allowed",
                              dunder.start(), dunder.group(0))
    _screen(text, tree)
    try:
        expr = _Builder(text, symbol).expr(tree.body)
    except LossSyntaxError:
        raise
    except (RecursionError, MemoryError):
        raise LossSyntaxError("expression too large to build") from None
    except (TypeError, ValueError, ZeroDivisionError) as exc:
        raise LossSyntaxError(f"invalid expression: {exc}") from None
    if not isinstance(expr, sp.Expr):
        raise LossSyntaxError("the expression is not a real-valued function of s")
    extra = expr.free_symbols - {symbol}
    if extra:  # pragma: no cover - the screen already restricts names
        raise LossSyntaxError(f"unexpected symbols {sorted(map(str, extra))}")
    if expr.has(sp.zoo, sp.nan, sp.oo, -sp.oo, sp.I):
        raise LossSyntaxError("the expression simplifies to something undefined, infinite or complex")
    return expr
