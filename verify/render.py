"""One rendering of evidence, shared by pytest failure text, the CLI and the markdown reports."""
from __future__ import annotations

import math
from typing import Any, Iterable, Mapping

from .claim import Evidence

# keys whose values are long series: shown in figures / JSON, not in one-line tables
_BULKY = {"series", "parts", "points_detail", "trajectory"}


def format_number(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        if value == 0:
            return "0"
        if 1e-3 <= abs(value) < 1e5:
            return f"{value:.6g}"
        return f"{value:.4e}"
    if isinstance(value, (list, tuple)):
        if len(value) > 8:
            return f"[{len(value)} values]"
        return "[" + ", ".join(format_number(v) for v in value) + "]"
    if isinstance(value, Mapping):
        inner = ", ".join(f"{k}={format_number(v)}" for k, v in list(value.items())[:8])
        return "{" + inner + ("…" if len(value) > 8 else "") + "}"
    text = str(value)
    return text if len(text) <= 160 else text[:157] + "..."


def data_line(data: Mapping[str, Any]) -> str:
    return "; ".join(f"{k}={format_number(v)}" for k, v in data.items() if k not in _BULKY)


def check_label(e: Evidence) -> str:
    """The check name, marked when the check corroborates a part instead of being one."""
    return e.check if e.role == "part" else f"{e.check} (corroborates {e.of})"


def render_evidence(evidence: Iterable[Evidence]) -> str:
    """Plain text: one block per check (verdict, summary, numbers)."""
    lines = []
    for e in evidence:
        lines.append(f"  [{e.status}] {check_label(e)}: {e.summary}")
        numbers = data_line(e.data)
        if numbers:
            lines.append(f"      {numbers}")
        for name, verdict, summary, numbers in _parts(e):
            lines.append(f"      - {name}: {verdict + ': ' if verdict else ''}{summary}")
            if numbers:
                lines.append(f"          {numbers}")
    return "\n".join(lines)


def _parts(e: Evidence) -> list[tuple[str, str, str, str]]:
    """Sub-results of a combined check, as (name, verdict, summary, numbers)."""
    parts = e.data.get("parts") if isinstance(e.data, Mapping) else None
    if not isinstance(parts, Mapping):
        return []
    rows = []
    for name, value in parts.items():
        if isinstance(value, Mapping):
            rest = {k: v for k, v in value.items() if k not in ("verdict", "summary", "status")}
            rows.append((str(name), str(value.get("verdict", value.get("status", ""))),
                         str(value.get("summary", "")), data_line(rest)))
        else:
            rows.append((str(name), "", str(value), ""))
    return rows


def markdown_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_evidence_markdown(evidence: Iterable[Evidence]) -> str:
    rows = ["| check | verdict | summary | numbers |", "|---|---|---|---|"]
    for e in evidence:
        label = f"`{e.check}`" if e.role == "part" else f"`{e.check}` (corroborates `{e.of}`)"
        rows.append(f"| {label} | **{e.status}** | {markdown_cell(e.summary)} | "
                    f"{markdown_cell(data_line(e.data))} |")
        for name, verdict, summary, numbers in _parts(e):
            shown = f"*{verdict}*" if verdict else ""
            rows.append(f"| &nbsp;&nbsp;↳ `{name}` | {shown} | {markdown_cell(summary)} | "
                        f"{markdown_cell(numbers)} |")
    return "\n".join(rows)
