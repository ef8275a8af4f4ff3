"""Catalogue metadata without running the catalogue: ``python -m verify list`` reads syntax trees.

Importing the claim modules costs seconds (sympy, scipy, numba and the checks' module-level set-up);
listing must not pay that. A claim is declared as module-level data (``NAME = Claim(id="...",
source=PAPER.at("..."), title="...", uses=(...), expect="...")``), so the fields ``list`` prints are
literals in the module's syntax tree and can be read with :func:`ast.literal_eval` — nothing is
executed. A module whose claims are not all plain literal declarations (an f-string title, a claim
built in a loop or imported from another module) is imported instead, so the listing is always the
catalogue's; ``tests/test_listing.py`` checks that both readings agree claim for claim, in order.
"""
from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from .claim import Source, claims_in_module

# Claim's fields in declaration order, for positional arguments (see verify.claim.Claim)
_FIELDS = ("id", "source", "title", "statement", "checks", "planted", "hypotheses", "assumes", "uses",
           "expect")
_DEFAULTS = {"uses": (), "expect": "supported", "assumes": ()}


@dataclass(frozen=True)
class ClaimSummary:
    """What ``list`` shows of a claim: the same attribute names as :class:`verify.claim.Claim`."""

    id: str
    source: Source
    title: str
    uses: tuple[str, ...]
    expect: str
    assumes: tuple[str, ...] = ()
    module: str = ""  # the module that declares it (a worker imports just that one)

    @property
    def paper(self) -> str:
        return self.id.split(".", 1)[0]


class _NotLiteral(Exception):
    """A declaration whose listed fields are not plain literals: read the module by importing it."""


def _modules(package: str) -> Iterator[tuple[str, Path, bool]]:
    """(module name, file, is package) in ``catalogue()``'s order, found without importing them."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"claim package {package!r} not found", name=package)

    found: list[tuple[str, Path, bool]] = []

    def walk(paths, prefix: str) -> None:
        for info in pkgutil.iter_modules(paths, prefix):
            path = Path(info.module_finder.path) / info.name.rsplit(".", 1)[-1]
            if info.ispkg:
                found.append((info.name, path / "__init__.py", True))
                walk([str(path)], info.name + ".")
            else:
                found.append((info.name, path.with_suffix(".py"), False))

    walk(spec.submodule_search_locations, package + ".")
    yield from sorted(found, key=lambda item: item[0])


# a module-level statement starts in column 0 (not a closing bracket or a comment)
_TOP_LEVEL = re.compile(r"^[^\s#)\]}]", re.M)
_DECLARATION = re.compile(r"^[A-Za-z_]\w*\s*=\s*Claim\(", re.M)
_IMPORT = re.compile(r"^from\s", re.M)
_PAPER_DECLARATION = re.compile(r"^[A-Za-z_]\w*\s*=\s*Paper\(", re.M)
_ANY_CLAIM_CALL = re.compile(r"\bClaim\(")


_SHARED_RUNS = re.compile(r"^SHARED_RUNS\s*=", re.M)


def shared_runs(module: str) -> str:
    """The label a claim module declares with ``SHARED_RUNS = "<label>"`` (module level, a string
    literal), or ``""``: modules with the same label compute the same expensive runs (cached per
    process), so a parallel run keeps their claims on one worker instead of computing the runs
    once per worker (:func:`verify.parallel.run_claims`). Read from the source, nothing imported; a
    declaration in any other form is an error (it would otherwise be ignored without a word)."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return ""
    text = Path(spec.origin).read_text(encoding="utf-8")
    if not re.search(r"^SHARED_RUNS\b", text, re.M):
        return ""
    try:
        nodes = _statements(text, _SHARED_RUNS)
    except _NotLiteral:
        nodes = []
    label = None
    if len(nodes) == 1 and isinstance(nodes[0], ast.Assign) and isinstance(nodes[0].value, ast.Constant):
        label = nodes[0].value.value
    if not (isinstance(label, str) and label):
        raise ValueError(f"{module}: write SHARED_RUNS as one module-level statement "
                         f"SHARED_RUNS = \"<label>\" (a non-empty string literal)")
    return label


def _statements(text: str, starts: re.Pattern) -> list[ast.stmt]:
    """Parse only the module-level statements that begin where ``starts`` matches.

    Parsing a whole claim module costs ~30 ms (half a megabyte of claims in all); the declarations
    and imports are a small part of it. A statement ends where the next one begins in column 0; a
    chunk that does not parse on its own (a string continuing in column 0) is :class:`_NotLiteral`.
    """
    out = []
    for m in starts.finditer(text):
        line_end = text.find("\n", m.start())
        nxt = _TOP_LEVEL.search(text, line_end + 1) if line_end >= 0 else None
        chunk = text[m.start(): nxt.start() if nxt else len(text)]
        try:
            body = ast.parse(chunk).body
        except SyntaxError:
            raise _NotLiteral("a declaration does not parse on its own") from None
        if len(body) != 1:
            raise _NotLiteral("a declaration chunk holds more than one statement")
        out.append(body[0])
    return out


def _papers(tree: list[ast.stmt]) -> dict[str, str]:
    """Module-level ``NAME = Paper("key", ...)`` bindings: {NAME: key}."""
    out = {}
    for node in tree:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call)
                and _callee(node.value) == "Paper" and node.value.args):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value.args[0])
            except ValueError:
                pass
    return out


def _callee(call: ast.Call) -> str | None:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def _imports(statements: list[ast.stmt], module: str, is_pkg: bool) -> Iterator[tuple[str, str, str]]:
    """(source module, imported name, bound name) for each ``from X import name [as bound]``."""
    here = module if is_pkg else module.rsplit(".", 1)[0]
    for node in statements:
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = here.rsplit(".", node.level - 1)[0] if node.level > 1 else here
            source = f"{base}.{node.module}" if node.module else base
        else:
            source = node.module or ""
        for alias in node.names:
            yield source, alias.name, alias.asname or alias.name


def _declarations(text: str) -> list[ast.Assign]:
    """The module's ``NAME = Claim(...)`` statements, if no Claim is built anywhere else."""
    found = _statements(text, _DECLARATION)
    if len(_ANY_CLAIM_CALL.findall(text)) != len(found):
        raise _NotLiteral("a Claim built outside a module-level assignment")
    return found


def _summary(node: ast.Assign, paper_names: dict[str, str], module: str) -> ClaimSummary:
    call = node.value
    fields = dict(zip(_FIELDS, call.args))
    fields.update({k.arg: k.value for k in call.keywords if k.arg})
    values = {}
    for name in ("id", "title", "uses", "expect", "assumes"):
        if name not in fields:
            values[name] = _DEFAULTS.get(name)
            continue
        try:
            values[name] = ast.literal_eval(fields[name])
        except ValueError:
            raise _NotLiteral(f"{name} is not a literal") from None
    src = fields.get("source")
    if not (isinstance(src, ast.Call) and isinstance(src.func, ast.Attribute)
            and src.func.attr == "at" and isinstance(src.func.value, ast.Name)
            and src.func.value.id in paper_names and len(src.args) == 1 and not src.keywords):
        raise _NotLiteral("source is not PAPER.at('<place>')")
    try:
        place = ast.literal_eval(src.args[0])
    except ValueError:
        raise _NotLiteral("source place is not a literal") from None
    if not all(isinstance(values[k], str) for k in ("id", "title", "expect")):
        raise _NotLiteral("id, title or expect is not a string")
    return ClaimSummary(values["id"], Source(paper_names[src.func.value.id], place), values["title"],
                        tuple(values["uses"]), values["expect"], tuple(values["assumes"] or ()), module)


def summaries(package: str = "claims") -> list:
    """Every claim of the catalogue as a :class:`ClaimSummary` (or the :class:`Claim` itself for a
    module that had to be imported), in ``catalogue()``'s order; each id once."""
    modules = list(_modules(package))
    texts = {name: path.read_text(encoding="utf-8") for name, path, _ in modules}
    papers = {}
    for name in texts:
        try:
            papers[name] = _papers(_statements(texts[name], _PAPER_DECLARATION))
        except _NotLiteral:
            papers[name] = {}
    seen: set[str] = set()
    out = []
    declared: dict[str, list[ast.Assign] | None] = {}

    def declarations(name: str) -> list[ast.Assign] | None:
        if name not in declared:
            try:
                declared[name] = _declarations(texts[name]) if name in texts else []
            except _NotLiteral:
                declared[name] = None
        return declared[name]

    declared_in: dict[str, str] = {}  # id -> the module whose literal declaration listed it
    for name, _, is_pkg in modules:
        if any(part.startswith("_") for part in name.split(".")[1:]):  # as discovery.walk_paper
            continue
        try:
            nodes = declarations(name)
            if nodes is None:
                raise _NotLiteral("not plain declarations")
            imports = list(_imports(_statements(texts[name], _IMPORT), name, is_pkg))
            for src, imported, _ in imports:
                # an imported claim joins this module's claims (claims_in_module reads vars())
                others = declarations(src) if src in texts else []
                if others is None or any(imported in {t.id for t in n.targets if isinstance(t, ast.Name)}
                                         for n in others):
                    raise _NotLiteral("imports a claim from another module")
            paper_names = {bound: papers[src][nm] for src, nm, bound in imports
                           if nm in papers.get(src, {})}
            paper_names.update(papers.get(name, {}))
            found = [_summary(node, paper_names, name) for node in nodes]
        except _NotLiteral:
            found = claims_in_module(importlib.import_module(name))
        for claim in found:
            if isinstance(claim, ClaimSummary):  # two declarations of one id (an imported Claim is the same one)
                if declared_in.setdefault(claim.id, name) != name:
                    raise ValueError(f"duplicate claim id {claim.id!r} (in {name} and {declared_in[claim.id]})")
            if claim.id not in seen:
                seen.add(claim.id)
                out.append(claim)
    return out
