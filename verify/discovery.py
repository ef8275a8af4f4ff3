"""Finding the papers: the local ``claims/`` package and installed plugins (entry points).

A *paper* is a Python package (or a single module) whose modules declare :class:`~verify.Claim`
values at module level. Two places are searched, in this order:

1. the package ``claims`` importable from the working directory: every sub-package
   ``claims/<key>/`` (it needs an ``__init__.py``) and its public modules (names not starting with
   ``_``; ``_helpers.py`` modules are imported by claims, never scanned);
2. installed distributions that register the entry-point group :data:`ENTRY_POINT_GROUP`
   (``eos_verify.papers``): the value of each entry is a module path, e.g.
   ``[project.entry-points."eos_verify.papers"] scalarnet = "scalarnet_claims"``; a package is
   walked like ``claims/<key>/``, a plain module is scanned alone.

Nothing is silently dropped: a ``claims/<key>/`` folder holding Python files but no
``__init__.py``, an entry point that does not import, and a ``uses`` entry naming no claim are
:class:`Problem` values that ``list``/``check``/``report`` print with the reason (``check`` and
``report`` refuse to run while there are any).
"""
from __future__ import annotations

import importlib
import importlib.metadata
import pkgutil
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Iterable

from .claim import Claim, Paper, claims_in_module, resolve_use

ENTRY_POINT_GROUP = "eos_verify.papers"
LOCAL_PACKAGE = "claims"


@dataclass(frozen=True)
class Problem:
    """Something in the catalogue that could not be loaded or does not hold together."""

    where: str
    reason: str

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


@dataclass
class Catalogue:
    """Claims in discovery order (local papers, then plugins), the papers' objects, and problems."""

    claims: list[Claim] = field(default_factory=list)
    papers: dict[str, Paper] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    modules: list[str] = field(default_factory=list)

    def add_module(self, module: ModuleType) -> None:
        by_id = {c.id: c for c in self.claims}
        for claim in claims_in_module(module):
            other = by_id.get(claim.id)
            if other is not None and other is not claim:
                raise ValueError(f"duplicate claim id {claim.id!r} (in {module.__name__})")
            if other is None:
                by_id[claim.id] = claim
                self.claims.append(claim)
        paper = getattr(module, "PAPER", None)
        if isinstance(paper, Paper):
            self.papers.setdefault(paper.key, paper)
        self.modules.append(module.__name__)


def walk_paper(package: ModuleType) -> Iterable[ModuleType]:
    """The package itself, then its public submodules in name order (``_private`` ones skipped)."""
    yield package
    path = getattr(package, "__path__", None)
    if path is None:
        return
    for info in sorted(pkgutil.walk_packages(path, package.__name__ + "."), key=lambda i: i.name):
        if any(part.startswith("_") for part in info.name[len(package.__name__) + 1:].split(".")):
            continue
        yield importlib.import_module(info.name)


def _missing_init(root: ModuleType) -> list[Problem]:
    """``claims/<key>/`` folders with Python files but no ``__init__.py`` (pkgutil skips them)."""
    out = []
    for base in getattr(root, "__path__", []):
        for folder in sorted(Path(base).iterdir()):
            if (folder.is_dir() and not folder.name.startswith(("_", "."))
                    and not (folder / "__init__.py").exists() and any(folder.glob("*.py"))):
                out.append(Problem(f"{LOCAL_PACKAGE}/{folder.name}/",
                                   "has Python files but no __init__.py, so its claims are not loaded "
                                   "(add an __init__.py holding `PAPER = Paper(key, citation)`)"))
    return out


def package_absent(exc: BaseException, package: str) -> bool:
    """``exc`` says ``package`` (or a package above it) is not there, rather than that it imports
    something missing (an error the caller must report)."""
    name = exc.name if isinstance(exc, ModuleNotFoundError) else None
    return name is not None and (package == name or package.startswith(name + "."))


def _local(cat: Catalogue, package: str) -> None:
    try:
        root = importlib.import_module(package)
    except ModuleNotFoundError as exc:
        if not package_absent(exc, package):
            raise
        return  # no local catalogue here: plugins only
    cat.problems.extend(_missing_init(root))
    for info in sorted(pkgutil.iter_modules(getattr(root, "__path__", [])), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        for sub in walk_paper(module):
            cat.add_module(sub)


def entry_points() -> list[importlib.metadata.EntryPoint]:
    """Installed papers registered under :data:`ENTRY_POINT_GROUP`, sorted by name."""
    return sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name)


def plugin_modules(problems: list[Problem] | None = None) -> list[ModuleType]:
    """Every module of the installed papers, each once (a plugin that fails to import is added to
    ``problems`` when given, else its error propagates)."""
    out: list[ModuleType] = []
    seen: set[str] = set()
    for ep in entry_points():
        try:
            module = importlib.import_module(ep.value.split(":")[0])
            subs = list(walk_paper(module))
        except Exception as exc:  # a broken plugin is reported, the rest of the catalogue still loads
            if problems is None:
                raise
            tb = traceback.format_exception_only(type(exc), exc)[-1].strip()
            problems.append(Problem(f"entry point {ep.name} = {ep.value}", f"does not import: {tb}"))
            continue
        for sub in subs:
            if sub.__name__ not in seen:
                seen.add(sub.__name__)
                out.append(sub)
    return out


def _plugins(cat: Catalogue) -> None:
    for module in plugin_modules(cat.problems):
        if module.__name__ not in cat.modules:
            cat.add_module(module)


def reference_problems(claims: list[Claim]) -> list[Problem]:
    """``uses`` entries that name no claim of the catalogue (an id or an id prefix)."""
    by_id = {c.id: c for c in claims}
    return [Problem(c.id, f"`uses` names {u!r}, which is not a claim id (nor an id prefix) in the "
                          "catalogue") for c in claims for u in c.uses if not resolve_use(u, by_id)]


def papers(package: str = LOCAL_PACKAGE, plugins: bool = True) -> dict[str, Paper]:
    """The papers' :class:`Paper` objects (``PAPER`` of each ``claims/<key>/__init__.py`` and of each
    entry-point module), importing those modules only, not their claim modules: cheap enough for
    ``audit-loss``, which reads the papers' hooks. A paper that does not import is skipped (the
    catalogue commands report it)."""
    out: dict[str, Paper] = {}
    modules: list[str] = []
    try:
        root = importlib.import_module(package)
        modules += [f"{package}.{i.name}" for i in sorted(pkgutil.iter_modules(getattr(root, "__path__", [])),
                                                           key=lambda i: i.name) if not i.name.startswith("_")]
    except ModuleNotFoundError as exc:
        if not package_absent(exc, package):
            raise
    if plugins:
        modules += [ep.value.split(":")[0] for ep in entry_points()]
    for name in modules:
        try:
            paper = getattr(importlib.import_module(name), "PAPER", None)
        except Exception:  # reported by list/check/report; an audit goes on without this paper
            continue
        if isinstance(paper, Paper):
            out.setdefault(paper.key, paper)
    return out


def discover(package: str = LOCAL_PACKAGE, plugins: bool = True) -> Catalogue:
    """The whole catalogue with its problems (missing ``__init__.py``, broken plugins, bad ``uses``)."""
    cat = Catalogue()
    _local(cat, package)
    if plugins:
        _plugins(cat)
    cat.problems.extend(reference_problems(cat.claims))
    return cat


def catalogue(package: str = LOCAL_PACKAGE, plugins: bool = True) -> list[Claim]:
    """All claims: local papers in module order then declaration order, then installed plugins."""
    return discover(package, plugins).claims
