"""``python -m verify new-paper KEY "citation"``: the skeleton of a new paper under ``claims/KEY/``.

Writes ``claims/KEY/__init__.py`` (the ``PAPER`` object) and ``claims/KEY/sec1.py`` with one worked
claim (an exact identity with a near-miss planted error) to edit or replace. Never overwrites: an
existing folder is an error. See ``docs/adding-a-paper.md`` for the whole workflow.
"""
from __future__ import annotations

import re
from pathlib import Path

KEY_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")

INIT = '''"""Claims of {citation}."""
from verify import Paper

PAPER = Paper({key!r}, {citation!r})
'''

SECTION = '''"""{key}, Section 1. One module per section of the paper; one ``Claim`` per result.

Helpers shared by several modules go in ``_name.py`` files (imported, never scanned for claims).
Replace the example below by the paper's results (see docs/adding-a-paper.md).
"""
import sympy as sp

from verify import Claim, Planted, symbolic

from . import PAPER

w = sp.Symbol("w", positive=True)

EQ1 = Claim(
    id="{key}.eq1",
    source=PAPER.at("Eq. (1)"),
    title="Example: the derivative of w^2/2 (replace me)",
    statement=r"\\frac{{d}}{{dw}} \\tfrac12 w^2 = w",
    checks=(symbolic.identity("derivative", lambda: sp.diff(w**2 / 2, w), w),),
    # a near miss: off by a factor 1 + 1/100, so a check that cannot tell them apart is caught
    planted=(Planted("p1", "derivative off by 1%", symbolic.identity(
        "derivative", lambda: sp.diff(w**2 / 2, w), sp.Rational(101, 100) * w)),),
    expect="proved",
)
'''


def new_paper(key: str, citation: str, root: str | Path = ".") -> list[Path]:
    """Write the skeleton of paper ``key`` under ``root/claims/``; returns the files written."""
    if not KEY_PATTERN.match(key):
        raise ValueError(f"paper key {key!r} must be lower-case letters, digits and _, starting with a "
                         "letter (e.g. smith2024), since it is the first part of every claim id")
    if not citation.strip():
        raise ValueError("the citation must not be empty (authors, title, venue)")
    claims = Path(root) / "claims"
    folder = claims / key
    if folder.exists():
        raise ValueError(f"{folder} already exists; refusing to overwrite it")
    folder.mkdir(parents=True)
    written = []
    if not (claims / "__init__.py").exists():
        (claims / "__init__.py").write_text('"""The catalogue: one sub-package per paper."""\n',
                                            encoding="utf-8")
        written.append(claims / "__init__.py")
    for name, text in (("__init__.py", INIT), ("sec1.py", SECTION)):
        path = folder / name
        path.write_text(text.format(key=key, citation=citation.strip()), encoding="utf-8")
        written.append(path)
    return written
