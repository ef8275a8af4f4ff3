"""Where things are: the module (paper section) that declares a claim, the line of the claim and of
each check in it, the paper package's glossary, and the paper's public address.

Everything is found from the loaded modules and their source text, so it needs no registration
and works for papers that join through the ``eos_verify.papers`` entry points as well.
"""
from __future__ import annotations

import inspect
import os
import re
import sys
import types
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Mapping

from .claim import Check, Claim


@dataclass(frozen=True)
class Section:
    """A module of claims: the repository's unit for one paper section."""

    module: str   # dotted name, e.g. claims.ahn2023.sec2_basics
    title: str    # first line of the module docstring
    path: str     # source file

    @property
    def short(self) -> str:
        return self.module.rsplit(".", 1)[-1]


def paper_order(module: str) -> tuple:
    """Sort key of section modules in the paper's order: sections (``sec<n>_…``) before
    appendices (``app<X>_…``), then by name."""
    short = module.rsplit(".", 1)[-1]
    return (short.startswith("app"), short)


def sections(claims: Iterable[Claim]) -> dict[str, Section]:
    """``{claim id: Section}`` for the claims found at module level in a loaded module (first
    module in name order wins, as in :func:`verify.claim.catalogue`)."""
    wanted = {c.id: c for c in claims}
    found: dict[str, Section] = {}
    for name in sorted(m for m in list(sys.modules) if m):
        module = sys.modules.get(name)
        if not isinstance(module, types.ModuleType) or not getattr(module, "__file__", None):
            continue
        try:
            values = list(vars(module).values())
        except TypeError:  # pragma: no cover
            continue
        for value in values:
            if isinstance(value, Claim) and wanted.get(value.id) is value and value.id not in found:
                found[value.id] = Section(name, _title(module.__doc__ or name), module.__file__)
    return found


_ROLE = re.compile(r":(?:mod|func|class|meth|attr|data|obj):`~?([^`]+)`")


def _title(doc: str, limit: int = 200) -> str:
    """The first paragraph of a module docstring, on one line, cut at a word boundary; Sphinx
    cross-references (``:mod:`claims.x```) become code spans, which markdown renders."""
    paragraph = _ROLE.sub(r"`\1`", " ".join(doc.strip().split("\n\n", 1)[0].split()))
    if len(paragraph) > limit:
        cut = paragraph[:limit].rsplit(" ", 1)[0]
        if cut.count("`") % 2:  # never end inside a code span
            cut = cut[:cut.rindex("`")].rstrip()
        paragraph = cut.rstrip(",;:(") + " …"
    return paragraph.rstrip(".")


@lru_cache(maxsize=None)
def _source_lines(path: str) -> tuple[str, ...]:
    try:
        with open(path, encoding="utf-8") as fh:
            return tuple(fh.read().splitlines())
    except OSError:
        return ()


def claim_line(claim: Claim, path: str) -> int | None:
    """Line of ``id="<claim id>"`` (else of the first mention of the id) in ``path``."""
    lines = _source_lines(path)
    for pattern in (rf"""\bid\s*=\s*["']{re.escape(claim.id)}["']""", re.escape(f'"{claim.id}"')):
        for i, line in enumerate(lines, 1):
            if re.search(pattern, line):
                return i
    return None


def check_line(check: Check, path: str) -> int | None:
    """First line in ``path`` of the code a check runs: the check function itself, or the
    functions it closes over (a property, a quantity, a sub-check), searched a few levels deep."""
    target = os.path.realpath(path)
    lines: list[int] = []
    seen: set[int] = set()

    def visit(obj: Any, depth: int) -> None:
        if depth > 5 or id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, Check):
            visit(obj.run, depth + 1)
        elif isinstance(obj, Mapping):
            for v in list(obj.values())[:50]:
                visit(v, depth + 1)
        elif isinstance(obj, (list, tuple)):
            for v in list(obj)[:50]:
                visit(v, depth + 1)
        elif inspect.isfunction(obj):
            code = obj.__code__
            if os.path.realpath(code.co_filename) == target:
                lines.append(code.co_firstlineno)
            for cell in obj.__closure__ or ():
                try:
                    visit(cell.cell_contents, depth + 1)
                except ValueError:  # empty cell
                    pass
        elif hasattr(obj, "func") and callable(getattr(obj, "func")):  # functools.partial
            visit(obj.func, depth + 1)
            visit(getattr(obj, "args", ()), depth + 1)

    visit(check, 0)
    return min(lines) if lines else None


def link(path: str, line: int | None, out_dir: str) -> str:
    """A relative link from the report folder to ``path`` (``#L<line>`` if known), '/' separated."""
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(out_dir)).replace(os.sep, "/")
    return rel + (f"#L{line}" if line else "")


def glossary(section_modules: Iterable[str]) -> dict[str, str]:
    """``GLOSSARY`` dicts of the paper packages (``claims/<paper>/__init__.py``), merged."""
    merged: dict[str, str] = {}
    for name in sorted({m.rsplit(".", 1)[0] for m in section_modules}):
        module = sys.modules.get(name)
        merged.update(getattr(module, "GLOSSARY", {}) or {})
    return merged


def paper_address(citation: str) -> str | None:
    """The arXiv abstract page named in a citation (``arXiv:2212.07469v2`` / ``arXiv 2302.08982``)."""
    m = re.search(r"arXiv[: ]\s*(\d{4}\.\d{4,5}(?:v\d+)?)", citation)
    return f"https://arxiv.org/abs/{m.group(1)}" if m else None


def paper_citations(section_modules: Iterable[str]) -> dict[str, str]:
    """``{paper key: citation}`` from the ``PAPER`` objects of the paper packages."""
    out: dict[str, str] = {}
    for name in sorted({m.rsplit(".", 1)[0] for m in section_modules}):
        paper = getattr(sys.modules.get(name), "PAPER", None)
        if paper is not None and hasattr(paper, "key"):
            out[paper.key] = paper.citation
    return out
