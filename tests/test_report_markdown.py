"""The reports render as intended on GitHub: rendered with a CommonMark + GFM-tables renderer
(markdown-it-py), no emphasis or strikethrough is created inside a formula, math is only in
GitHub's $`…`$ / ```math forms and holds no prose, every table is well formed, every link and
anchor resolves, and no evidence cell is longer than ``MAX_CELL`` characters.

Checked: a report generated here for a few cheap claims; the committed ``reports/``; and any
folders named in ``VERIFY_REPORT_DIRS`` (os.pathsep-separated), e.g. the output of
``python -m verify report --budget quick --out DIR``.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

markdown_it = pytest.importorskip("markdown_it")

from verify.claim import catalogue, select  # noqa: E402
from verify.report import write_reports  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MAX_CELL = 400
EVIDENCE_HEADERS = ({"check", "verdict", "summary", "deciding figures"},
                    {"planted", "what is wrong", "outcome", "evidence"})
CHEAP = ["ahn2023.def4", "ahn2023.def6", "ahn2023.fact4", "ahn2023.lem5", "ahn2023.eq9",
         "ahn2023.def8", "even2023.def8", "even2023.fact3"]


def _renderer():
    return markdown_it.MarkdownIt("commonmark").enable("table").enable("strikethrough")


def github_slug(text: str) -> str:
    """GitHub's heading anchor: lower case, punctuation other than '-' and '_' dropped, spaces
    to '-'."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def _inline_text(token) -> str:
    return "".join(c.content for c in (token.children or []) if c.type in ("text", "code_inline"))


def _slugs(tokens) -> set[str]:
    out: set[str] = set()
    counts: dict[str, int] = {}
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            slug = github_slug(_inline_text(tokens[i + 1]))
            n = counts.get(slug, 0)
            counts[slug] = n + 1
            out.add(slug if n == 0 else f"{slug}-{n}")
    return out


_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_CODE = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)
_MATH_INLINE = re.compile(r"\$`(.*?)`\$")


def _prose_in_math(tex: str) -> list[str]:
    """Words of 4+ letters in math that are neither commands nor inside \\text-like groups."""
    stripped = re.sub(r"\\(?:text|textrm|mathrm|operatorname|mathbf|mathcal|mathbb|textit)\{[^{}]*\}",
                      " ", tex)
    stripped = re.sub(r"\\[A-Za-z]+", " ", stripped)
    stripped = re.sub(r"[_^]\{[^{}]*\}", " ", stripped)
    return re.findall(r"[A-Za-z]{4,}", stripped)


def problems_in(folder: Path) -> list[str]:
    md = _renderer()
    files = sorted(folder.glob("*.md"))
    assert files, f"no markdown in {folder}"
    parsed = {f.name: md.parse(f.read_text(encoding="utf-8")) for f in files}
    slugs = {name: _slugs(tokens) for name, tokens in parsed.items()}
    found: list[str] = []
    for f in files:
        text = f.read_text(encoding="utf-8")
        tokens = parsed[f.name]
        where = f.name
        # 1. emphasis / strikethrough created inside a formula: a delimiter glued to a word or
        #    an operator on its outer side (`x**2 + y**2`, `a*b*c`, `x_t_1`, `~~`)
        html = md.render(text)
        for m in re.finditer(r"([\w)\]^=+*/-])<(em|strong|s)>|</(em|strong|s)>([\w(\[^=+*/])", html):
            found.append(f"{where}: emphasis inside a formula near {html[max(0, m.start() - 40):m.end() + 40]!r}")
        # 2. math only as $`…`$ or ```math, without prose
        outside = _FENCE.sub("", text)
        for fence in re.finditer(r"^```math\n(.*?)^```", text, re.S | re.M):
            for w in _prose_in_math(fence.group(1)):
                found.append(f"{where}: prose {w!r} in display math")
        for m in _MATH_INLINE.finditer(outside):
            for w in _prose_in_math(m.group(1)):
                found.append(f"{where}: prose {w!r} in inline math")
        bare = _CODE.sub("", _MATH_INLINE.sub("", outside))
        for m in re.finditer(r"(?<![\\`])\$(?!`)", bare):
            found.append(f"{where}: bare $ (GitHub would start math) near {bare[max(0, m.start() - 40):m.end() + 40]!r}")
        # 3. tables: every row has as many cells as the header, and each block parses as a table
        blocks = re.findall(r"(?:^\|.*\n?)+", outside, re.M)
        for block in blocks:
            rows = block.rstrip("\n").split("\n")
            widths = [len(re.findall(r"(?<!\\)\|", r)) for r in rows]
            if len(rows) < 2 or not re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", rows[1].strip()):
                found.append(f"{where}: table without a separator line: {rows[0][:80]!r}")
            elif len(set(widths)) != 1:
                bad = next(r for r, w in zip(rows, widths) if w != widths[0])
                found.append(f"{where}: table row with {widths[rows.index(bad)]} pipes, header "
                             f"{widths[0]}: {bad[:120]!r}")
        n_tables = sum(1 for t in tokens if t.type == "table_open")
        if n_tables != len(blocks):
            found.append(f"{where}: {len(blocks)} pipe blocks but {n_tables} rendered tables")
        # 4. links and anchors resolve; images exist
        for tok in tokens:
            for child in tok.children or []:
                target = child.attrs.get("href") if child.type == "link_open" else (
                    child.attrs.get("src") if child.type == "image" else None)
                if not target or re.match(r"^[a-z]+:", target):
                    continue
                path, _, frag = str(target).partition("#")
                dest = (f.parent / path).resolve() if path else f.resolve()
                if not dest.exists():
                    found.append(f"{where}: link to missing file {target!r}")
                elif frag and dest.suffix == ".md" and frag not in slugs.get(dest.name, set()):
                    found.append(f"{where}: dangling anchor {target!r}")
        # 5. evidence cells stay short (the complete data are in data/<id>.json)
        header: set[str] = set()
        for i, tok in enumerate(tokens):
            if tok.type == "thead_open":
                header = set()
            if tok.type == "th_open":
                header.add(_inline_text(tokens[i + 1]).strip())
            if tok.type == "td_open" and header in EVIDENCE_HEADERS:
                cell = _inline_text(tokens[i + 1])
                if len(cell) > MAX_CELL:
                    found.append(f"{where}: evidence cell of {len(cell)} characters: {cell[:100]!r}…")
        # 6. no Sphinx cross-reference roles from docstrings (markdown prints them verbatim)
        for m in re.finditer(r":(?:mod|func|class|meth|attr|data|obj):`", text):
            found.append(f"{where}: Sphinx role near {text[max(0, m.start() - 40):m.end() + 40]!r}")
    return found


def test_generated_report_renders(tmp_path):
    claims = select(catalogue(), CHEAP)
    write_reports(claims, tmp_path, seed=0, budget="quick")
    problems = problems_in(tmp_path)
    assert not problems, "\n".join(problems[:30])
    assert (tmp_path / "data" / "ahn2023.def4.json").exists()


def test_checker_catches_the_defects_it_is_for(tmp_path):
    (tmp_path / "a.md").write_text(
        "# A\n\n| a | b |\n|---|---|\n| x**2 + y**2 | 1 | 2 |\n\n$genericity: x_t$\n\n"
        "[gone](#nowhere) [file](missing.md) :mod:`x.y`\n\n```math\n\\text{ok}\\ error\\ grows\n```\n",
        encoding="utf-8")
    text = "\n".join(problems_in(tmp_path))
    for needle in ("emphasis inside a formula", "bare $", "table row", "dangling anchor",
                   "missing file", "prose 'error'", "Sphinx role"):
        assert needle in text, needle


def _folders() -> list[Path]:
    extra = [Path(p) for p in os.environ.get("VERIFY_REPORT_DIRS", "").split(os.pathsep) if p]
    return [ROOT / "reports", *extra]


@pytest.mark.parametrize("folder", _folders(), ids=str)
def test_reports_render(folder):
    if not (folder / "README.md").exists():
        pytest.skip(f"no reports in {folder}")
    problems = problems_in(folder)
    assert not problems, (f"{len(problems)} rendering problems in {folder} (regenerate with "
                          "`python -m verify report` if the files predate the renderer):\n"
                          + "\n".join(problems[:30]))


def test_a_figure_that_cannot_be_drawn_is_listed_and_fails_the_report(tmp_path):
    """A figure that raises is not hidden in one caption: the index lists it and the summary (the
    CLI's exit status) reports it (Fig. 11 left once failed with a NameError for a whole release)."""
    from verify.claim import Check, Claim, Figure, Paper, Planted, Status, outcome

    toy = Paper("toy2024", "A toy paper")

    def broken(ctx, path):
        raise NameError("name 'K_FIT' is not defined")

    claim = Claim("toy2024.fig1", toy.at("Figure 1"), "A figure", "x",
                  checks=(Check("c", lambda ctx: outcome(Status.SUPPORTED, "fine")),),
                  planted=(Planted("p1", "wrong", Check("p", lambda ctx: outcome(Status.REFUTED, "no"))),),
                  figures=(Figure("fig1_broken", broken),))
    summary = write_reports([claim], tmp_path, seed=0, budget="quick")
    assert summary["figures_failed"] == ["toy2024.fig1: figure failed: NameError: name 'K_FIT' is not defined"]
    index = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "Figures that could **not** be drawn" in index and "K\\_FIT" in index
