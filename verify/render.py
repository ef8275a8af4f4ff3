"""One rendering of evidence, shared by pytest failure text, the CLI and the markdown reports.

Numbers: every float is printed by :func:`format_number` with ``SIGNIFICANT`` (4) significant
digits, and floats written into summaries are rounded the same way (:func:`round_numbers`), so a
last-digit difference between machines does not change a report. The complete, unrounded data go
to JSON (``reports/data/<claim id>.json``).

Markdown: text from code (summaries, sympy strings, titles) is escaped for GitHub-flavoured
markdown (:func:`escape_markdown`) — a ``*`` in ``eta**2`` never becomes emphasis — except for
segments the author put in backticks, which stay code spans. Math goes through :func:`inline_math`
(GitHub's ``$`…`$`` form) or :func:`display_math` (a ``math`` fence), so markdown never sees it.
"""
from __future__ import annotations

import math
import re
from typing import Any, Iterable, Mapping

from .claim import Evidence, _jsonable

SIGNIFICANT = 4  # significant digits of every float in a report

# keys whose values are long series: shown in figures / JSON, not in one-line tables
_BULKY = {"series", "parts", "points_detail", "trajectory"}

# the figures that decide a check, shown first (in this order) in the report's evidence rows
DECIDING = ("witness", "slope", "predicted", "tolerance", "r2", "constant", "leading_constant",
            "margin", "slack", "min_ratio", "max_ratio", "residual", "examples", "skipped", "points",
            "runs", "n", "samples", "outcomes")
_HIDDEN_IN_ROW = {"why", "method", "budget", "seed", "stderr", "leading_constant_stderr",
                  "constant_stderr", "lhs", "rhs"}  # lhs/rhs: already in an identity's summary
ROW_FIGURES_CHARS = 220  # budget of the figures cell (the summary cell has its own, SUMMARY_CHARS)
SUMMARY_CHARS = 260


def format_number(value: Any) -> str:
    """The one number format of the reports: floats at ``SIGNIFICANT`` significant digits."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) or type(value).__name__.startswith("float"):
        value = float(value)
        if math.isnan(value) or math.isinf(value):
            return str(value)
        if value == 0:
            return "0"
        text = f"{value:.{SIGNIFICANT}g}"
        if "e" in text:  # 1.3e-09, not 1.3e-9 or 1.300e-09
            mant, exp = text.split("e")
            text = f"{mant}e{int(exp):+03d}"
        return text
    if isinstance(value, (list, tuple)):
        if len(value) > 6:
            return f"[{len(value)} values]"
        return "[" + ", ".join(format_number(v) for v in value) + "]"
    if isinstance(value, Mapping):
        inner = ", ".join(f"{k}={format_number(v)}" for k, v in list(value.items())[:6])
        return "{" + inner + (", …" if len(value) > 6 else "") + "}"
    return round_numbers(str(value))


_FLOAT = re.compile(r"(?<![\w.])(-?\d+\.\d+(?:[eE][-+]?\d+)?|-?\d+[eE][-+]?\d+)(?![\w.])")


_REPR_NOISE = [(re.compile(r"\b(?:np\.)?(?:float|int)(?:16|32|64|128)\(([^()]*)\)"), r"\1"),
               (re.compile(r"\barray\((\[[^()]*\])(?:, dtype=\w+)?\)"), r"\1"),
               (re.compile(r"mpf\('([^']*)'\)"), r"\1"),
               (re.compile(r"\s+"), " ")]


def round_numbers(text: str) -> str:
    """Floats inside free text rounded like :func:`format_number` (integers and fractions kept);
    numpy / mpmath reprs (``np.float64(0.5)``, ``array([...])``, ``mpf('0.5')``) shown as plain
    numbers and lists."""
    for pattern, repl in _REPR_NOISE:
        text = pattern.sub(repl, text)

    def one(match: re.Match) -> str:
        literal = match.group(0)
        digits = re.sub(r"[eE].*$", "", literal).replace("-", "").replace(".", "").lstrip("0")
        if len(digits) <= SIGNIFICANT:
            return literal
        return format_number(float(literal))
    return _FLOAT.sub(one, text)


def shorten(text: str, limit: int) -> str:
    """Cut at a word boundary and mark the cut (the complete text is in the JSON data)."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + " …"


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value == "")


def data_line(data: Mapping[str, Any]) -> str:
    """All scalar data on one line (CLI and pytest text)."""
    data = _jsonable(data)  # numpy arrays and scalars as lists and floats
    return "; ".join(f"{k}={format_number(v)}" for k, v in data.items()
                     if k not in _BULKY and not _blank(v))


def deciding_figures(data: Mapping[str, Any], limit: int = ROW_FIGURES_CHARS) -> str:
    """The few numbers that decide a check, in ``DECIDING`` order then the rest, within ``limit``
    characters; the seed always closes the line. Slope and constant carry their standard error."""
    data = _jsonable(data)  # numpy arrays and scalars as lists and floats

    def shown(key: str) -> str | None:
        value = data[key]
        if _blank(value) or key in _BULKY or isinstance(value, Mapping):
            return None
        if isinstance(value, (list, tuple)) and key != "witness" and len(value) > 6:
            return None
        text = format_number(value)
        for err in (f"{key}_stderr", "stderr" if key == "slope" else ""):
            if err and err in data and isinstance(data[err], (int, float)):
                text += f" ± {format_number(data[err])}"
        return f"{key}={text}"

    keys = [k for k in DECIDING if k in data] + [k for k in data
                                                 if k not in DECIDING and k not in _HIDDEN_IN_ROW]
    parts: list[str] = []
    used = 0
    seed = f"seed={data['seed']}" if "seed" in data else ""
    for key in keys:
        item = shown(key)
        if item is None:
            continue
        if len(item) > 90:
            item = item[:88] + "…"
        if used + len(item) + len(seed) > limit:
            parts.append("…")
            break
        parts.append(item)
        used += len(item) + 2
    if seed:
        parts.append(seed)
    return "; ".join(parts)


def check_label(e: Evidence) -> str:
    """The check name, marked when the check corroborates a part instead of being one."""
    return e.check if e.role == "part" else f"{e.check} (corroborates {e.of})"


def render_evidence(evidence: Iterable[Evidence]) -> str:
    """Plain text: one block per check (verdict, summary, numbers)."""
    lines = []
    for e in evidence:
        lines.append(f"  [{e.status}] {check_label(e)}: {round_numbers(e.summary)}")
        numbers = data_line(e.data)
        if numbers:
            lines.append(f"      {numbers}")
        for name, verdict, summary, numbers in _parts(e):
            lines.append(f"      - {name}: {verdict + ': ' if verdict else ''}{round_numbers(summary)}")
            if numbers:
                lines.append(f"          {numbers}")
    return "\n".join(lines)


def _parts(e: Evidence) -> list[tuple[str, str, str, str]]:
    """Sub-results of a combined check, as (name, verdict, summary, numbers)."""
    return [(name, verdict, summary, data_line(rest)) for name, verdict, summary, rest in _part_data(e)]


def _part_data(e: Evidence) -> list[tuple[str, str, str, dict]]:
    parts = e.data.get("parts") if isinstance(e.data, Mapping) else None
    if not isinstance(parts, Mapping):
        return []
    rows = []
    for name, value in parts.items():
        if isinstance(value, Mapping):
            rest = {k: v for k, v in value.items() if k not in ("verdict", "summary", "status")}
            rows.append((str(name), str(value.get("verdict", value.get("status", ""))),
                         str(value.get("summary", "")), rest))
        else:
            rows.append((str(name), "", str(value), {}))
    return rows


# --------------------------------------------------------------------------- markdown

_SPECIAL = re.compile(r"([\\`*_\[\]<>|~$])")


def escape_markdown(text: str, *, in_table: bool = True) -> str:
    """Plain text for GitHub markdown: every character markdown could read as syntax is escaped,
    newlines become spaces. Segments in backticks stay code spans (pipes escaped inside tables)."""
    text = str(text).replace("\r", " ").replace("\n", " ")
    pieces = re.split(r"(`[^`]+`)", text)
    out = []
    for piece in pieces:
        if len(piece) > 2 and piece.startswith("`") and piece.endswith("`"):
            out.append(code_span(piece[1:-1], in_table=in_table))
        else:
            out.append(_SPECIAL.sub(r"\\\1", piece))
    return "".join(out)


def markdown_cell(text: str) -> str:
    """Plain text for one table cell."""
    return escape_markdown(text, in_table=True)


def code_span(text: str, *, in_table: bool = True) -> str:
    """``text`` as one code span; a pipe is escaped inside tables (GFM splits cells first)."""
    text = str(text).replace("\n", " ")
    if in_table:
        text = text.replace("|", "\\|")
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def inline_math(tex: str) -> str:
    """Inline math in GitHub's ``$`…`$`` form (markdown leaves the inside alone)."""
    tex = " ".join(str(tex).split())
    return f"$`{tex}`$"


def display_math(tex: str) -> str:
    """Display math as a ```math fence (GitHub renders it with MathJax)."""
    return "```math\n" + str(tex).strip() + "\n```"


_TEXT_COMMANDS = ("text", "textrm", "mathrm", "operatorname", "textit", "textbf", "mathbf",
                  "mathcal", "mathbb", "boldsymbol", "label")
_ENGLISH_SHORT = {"in", "of", "to", "at", "if", "is", "or", "as", "on", "by", "be", "no", "an"}


def prose_to_text(tex: str) -> str:
    """Words written straight into math (``GD's\\ error\\ grows``) wrapped in ``\\text{}`` so MathJax
    sets them as words, not as italic products of variables with primes. Subscripts,
    superscripts and the arguments of text-like commands are left as they are."""
    out: list[str] = []
    i, n = 0, len(tex)
    while i < n:
        ch = tex[i]
        if ch == "\\":
            m = re.match(r"\\([A-Za-z]+|.)", tex[i:])
            cmd = m.group(0)
            out.append(cmd)
            i += len(cmd)
            if m.group(1) in _TEXT_COMMANDS and i < n and tex[i] == "{":
                j = _group_end(tex, i)
                out.append(tex[i:j])
                i = j
            continue
        if ch in "_^":
            out.append(ch)
            i += 1
            if i < n and tex[i] == "{":
                j = _group_end(tex, i)
                out.append(tex[i:j])
                i = j
            elif i < n and tex[i] == "\\":
                continue
            elif i < n:
                out.append(tex[i])
                i += 1
            continue
        m = re.match(_WORD_RUN, tex[i:])
        if m and (not out or not out[-1][-1:].isalnum()):
            run = m.group(0)
            i += len(run)
            if any(_is_word(w) for w in run.split()):
                lead = " " if out and out[-1] == " " else ""
                trail = " " if i < n and tex[i] == " " else ""
                out.append(r"\text{" + lead + run + trail + "}")
            else:
                out.append(run)
            continue
        out.append(ch)
        i += 1
    return "".join(out)


_WORD = r"\.?[A-Za-z][A-Za-z']*(?:-[A-Za-z]+)*"
_WORD_RUN = re.compile(_WORD + r"(?: +" + _WORD + r")*")


def _is_word(token: str) -> bool:
    core = token.lstrip(".")
    return (len(core) >= 3 or core.lower() in _ENGLISH_SHORT or token.startswith(".")
            or (len(core) == 2 and core.isupper()) or ("'" in core and len(core) > 2))


def _group_end(tex: str, start: int) -> int:
    depth = 0
    for j in range(start, len(tex)):
        if tex[j] == "{" and (j == 0 or tex[j - 1] != "\\"):
            depth += 1
        elif tex[j] == "}" and tex[j - 1] != "\\":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(tex)


def render_evidence_markdown(evidence: Iterable[Evidence], *, data_link: str | None = None,
                             code_link=None) -> str:
    """The evidence table of one claim: per check its verdict, a summary (≤ ``SUMMARY_CHARS``) and
    the deciding figures (≤ ``ROW_FIGURES_CHARS``); ``data_link`` points at the complete data,
    ``code_link(check name)`` at the code of the check."""
    more = f" [all data]({data_link})" if data_link else ""
    rows = ["| check | verdict | summary | deciding figures |", "|---|---|---|---|"]
    for e in evidence:
        name = code_span(e.check)
        link = code_link(e.check) if code_link else None
        if link:
            name = f"[{name}]({link})"
        if e.role != "part":
            name += f" (corroborates {code_span(e.of)})"
        rows.append(f"| {name} | **{e.status}** | {_summary_cell(e.summary)} | "
                    f"{markdown_cell(deciding_figures(e.data))}{more} |")
        for part, verdict, summary, data in _part_data(e):
            shown = f"*{verdict}*" if verdict else ""
            rows.append(f"| &nbsp;&nbsp;↳ {code_span(part)} | {shown} | {_summary_cell(summary)} | "
                        f"{markdown_cell(deciding_figures(data))} |")
    return "\n".join(rows)


def _summary_cell(summary: str) -> str:
    return markdown_cell(shorten(round_numbers(summary), SUMMARY_CHARS))
