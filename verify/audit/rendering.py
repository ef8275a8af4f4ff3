"""The audit's result (:class:`AuditResult`) and its renderings: JSON, markdown report with the gap
figure, and the one-screen text summary of the command line.
"""
from __future__ import annotations

import os
import numpy as np
from dataclasses import dataclass, field
from typing import Any, Callable

from .common import REFUTED
from .predictions import label


# ============================================================================ result
@dataclass
class AuditResult:
    loss: dict
    A1: dict
    A2: dict
    A3: dict
    predictions: dict
    confirmation: dict | None = None
    rescaling: dict | None = None
    notes: list = field(default_factory=list)
    # the exact findings the papers' prediction hooks were given (not serialised)
    facts: Any = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict:
        out = {"loss": self.loss, "A1": self.A1, "A2": self.A2, "A3": self.A3,
               "predictions": self.predictions}
        if self.rescaling is not None:
            out["rescaling"] = self.rescaling
        if self.confirmation is not None:
            out["confirmation"] = self.confirmation
        out["notes"] = self.notes
        from ..claim import _jsonable
        return _jsonable(out)

    def to_markdown(self, figure: str | None = None) -> str:
        return _markdown(self, figure)

    def assumptions_hold(self) -> bool:
        """(A1) and (A2) proved or supported, with the exponent in the range 1 < β <= ∞ (--strict)."""
        ok = ("proved", "supported")
        return (self.A1.get("verdict") in ok and self.A2.get("verdict") in ok
                and self.A2.get("beta_in_range", True) is not False)

    def save_markdown(self, path: str) -> str:
        """Write the report at ``path`` and the gap figure beside it (PNG), each atomically (a
        temporary file in the same directory, then renamed); returns the PNG path or ''."""
        fig = ""
        if self.confirmation and self.confirmation.get("etas"):
            fig = os.path.splitext(path)[0] + "_gap.png"
            _atomic(fig, lambda tmp: _draw_gap(self.confirmation, tmp, self.loss.get("expression", "")))
        text = self.to_markdown(os.path.basename(fig) if fig else None)

        def write(tmp: str) -> None:
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(text)
        _atomic(path, write)
        return fig


def _atomic(path: str, write: Callable[[str], None]) -> None:
    """write(tmp) then rename tmp over ``path`` (never a half-written file; a link is replaced,
    not followed)."""
    import tempfile
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".audit-", suffix=os.path.splitext(path)[1])
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def _cell(v: Any) -> str:
    """A markdown table cell (pipes escaped)."""
    return _fmt(v).replace("|", "\\|").replace("\n", " ")


def _markdown(r: AuditResult, figure: str | None) -> str:
    j = r.to_json()
    lines = [f"# Loss audit: `{j['loss'].get('expression')}`", ""]
    lines += [f"- given as: {'ℓ′(s)' if j['loss'].get('derivative') else 'ℓ(s)'}",
              f"- mode: {j['loss'].get('mode')}", ""]
    lines += ["Verdicts: `proved` (exact sympy or arb interval certificate), `supported` (numeric "
              "evidence, 40 digits), `refuted` (with a witness), `inconclusive`, `not_applicable`.", ""]
    for key, title in (("A1", "(A1) even, convex, 1-Lipschitz, C² near 0, ℓ″(0) = 1"),
                       ("A2", "(A2) ℓ′(s)/s ≤ 1 − c|s|^β on 0 < |s| ≤ c, and ≤ 1 everywhere"),
                       ("A3", "(A3) ℓ′(s)/s ≥ 1 − C|s|^β for all s ≠ 0")):
        a = j[key]
        lines += [f"## {title}: **{a['verdict']}**", ""]
        if a.get("summary"):
            lines += [a["summary"], ""]
        parts = a.get("parts") or {}
        if parts:
            lines += ["| part | verdict | detail |", "| --- | --- | --- |"]
            for name, p in parts.items():
                extra = ""
                if p.get("witness") is not None and p["verdict"] == REFUTED:
                    extra = f" (witness s = {_fmt(p['witness'])}, value {_fmt(p.get('value'))})"
                lines.append(f"| {name} | {p['verdict']} | {_cell(p.get('summary', '') + extra)} |")
            lines.append("")
        nums = {k: v for k, v in a.items() if k not in ("verdict", "summary", "parts")}
        if nums:
            lines += ["| quantity | value |", "| --- | --- |"]
            for k, v in nums.items():
                if isinstance(v, dict):
                    v = f"{v.get('verdict', '')}: {v.get('summary', '')}"
                lines.append(f"| {k} | {_cell(v)} |")
            lines.append("")
    if j.get("rescaling"):
        rs = j["rescaling"]
        lines += ["## Normalising rescaling", "", rs.get("summary", ""), ""]
        for k in ("rescaled", "derivation", "gd_correspondence", "audit_of_rescaled"):
            if rs.get(k):
                lines.append(f"- {k}: {rs[k]}")
        lines.append("")
    p = j["predictions"]
    lines += ["## Predictions (ahn2023)", ""]
    if p.get("applies_to"):
        lines += [f"Applies to {p['applies_to']}.", ""]
    for k in ("gap_law", "gap_exponent", "bouncing_law"):
        if k in p:
            lines.append(f"- {k}: {_fmt(p[k])}")
    lines.append(f"- applicable claims ({p.get('claims_source', '')}): "
                 + (", ".join(f"`{c}`" for c in p.get("applicable_claims", [])) or "none"))
    if p.get("not_applicable_claims"):
        lines.append("- not applicable: " + ", ".join(f"`{c}`" for c in p["not_applicable_claims"]))
    lines.append("")
    lines += _paper_markdown(p.get("paper") or {})
    c = j.get("confirmation")
    if c:
        lines += [f"## Confirmation (Theorem 2, empirical): **{c.get('verdict')}**", "",
                  c.get("summary", ""), ""]
        if c.get("etas"):
            lines += ["| η | 2/η − y∞² | bouncing steps |", "| --- | --- | --- |"]
            for e, g, b in zip(c["etas"], c["gaps"], c.get("bounce_steps", [])):
                lines.append(f"| {e:.5g} | {_fmt(g)} | {b} |")
            lines.append("")
        if figure:
            lines += [f"![gap against step size]({figure})", ""]
    if j.get("notes"):
        lines += ["## Notes", ""] + [f"- {n}" for n in j["notes"]] + [""]
    return "\n".join(lines)


def _draw_gap(conf: dict, path: str, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    e = np.asarray(conf["etas"], float)
    g = np.asarray(conf["gaps"], float)
    keep = np.isfinite(g) & (g > 0)
    fig, ax = plt.subplots(figsize=(5.2, 3.8), dpi=110)
    ax.loglog(e[keep], g[keep], "o", label="measured 2/η − y∞²")
    if "measured_gap_exponent" in conf and keep.any():
        p, C = conf["measured_gap_exponent"], conf.get("constant", 1.0)
        ax.loglog(e, C * e ** p, "-", lw=1, label=f"fit: slope {p:.3f}")
        pp = conf["predicted_gap_exponent"]
        ref = g[keep][0] * (e / e[keep][0]) ** pp
        ax.loglog(e, ref, "--", lw=1, label=f"predicted slope {pp:.3f}")
    ax.set_xlabel("step size η")
    ax.set_ylabel("sharpness gap 2/η − y∞²")
    # the expression is user text: '$' would start matplotlib mathtext, so it is escaped
    ax.set_title("Theorem 2 on ℓ = " + title[:40].replace("\\", "\\\\").replace("$", r"\$"), fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def _paper_markdown(paper: dict) -> list[str]:
    """The papers' predictions (plugin hooks, :mod:`.predictions`) as a markdown section."""
    if not (paper.get("predicted") or paper.get("not_covered")):
        return []
    lines = ["## Papers' predictions for this loss", "",
             "Values predicted by claims of the catalogue (their status says how far they are "
             "established; a `conjecture` is a discovered law tested on held-out cases), not "
             "verdicts of this audit.", ""]
    if paper.get("predicted"):
        lines += ["| paper | claim | status | quantity | value | exact | tested | how computed |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        lines += [f"| {r['paper']} | `{r['claim']}` | {r['status']} | {_cell(r['quantity'])} | "
                  f"{r['value']:.10g} | {_cell(r['exact'])} | {_cell(r['tested'])} | {_cell(r['how'])} |"
                  for r in paper["predicted"]]
        lines.append("")
    lines += [f"- `{r['claim']}` does not cover this loss: {r['reason']}" for r in paper.get("not_covered", [])]
    return lines + ([""] if paper.get("not_covered") else [])


def _text_summary(r: AuditResult) -> str:
    j = r.to_json()
    out = [f"loss: {j['loss']['expression']}" + (" (derivative)" if j["loss"].get("derivative") else "")]
    out.append(f"A1: {j['A1']['verdict']}")
    for n, p in j["A1"]["parts"].items():
        w = f"  [witness s={_fmt(p.get('witness'))}, value={_fmt(p.get('value'))}]" if p["verdict"] == REFUTED else ""
        out.append(f"  {n}: {p['verdict']} — {p['summary']}{w}")
    out.append(f"A2: {j['A2']['verdict']}  beta={j['A2'].get('beta')}  c={j['A2'].get('c')}  "
               f"ratio<=1 everywhere: {j['A2'].get('ratio_le_1_everywhere')}")
    # the caveats the JSON carries, so that the text never reads stronger than the JSON
    for n, p in (j["A2"].get("parts") or {}).items():
        if p.get("verdict") not in ("proved", "supported"):
            out.append(f"  {n}: {p['verdict']} — {p.get('summary', '')}")
    if j["A2"]["verdict"] not in ("proved", "supported") or not j["A2"].get("parts"):
        out.append(f"  {j['A2'].get('summary', '')}")
    for k in ("beta_range_note", "c_note"):
        if j["A2"].get(k):
            out.append(f"  note: {j['A2'][k]}")
    out.append(f"A3: {j['A3']['verdict']}  C={j['A3'].get('C')} — {j['A3'].get('summary', '')}")
    if j.get("rescaling"):
        out.append(f"rescaling: {j['rescaling']['summary']}")
    p = j["predictions"]
    out.append(f"predictions: gap exponent {p.get('gap_exponent')}; bouncing {p.get('bouncing_law')}")
    if p.get("applies_to"):
        out.append(f"  applies to: {p['applies_to']}")
    if p.get("note"):
        out.append(f"  note: {p['note']}")
    out.append(f"  applicable: {', '.join(p.get('applicable_claims', [])) or 'none'}")
    paper = p.get("paper") or {}
    if paper.get("predicted") or paper.get("not_covered"):
        out.append("papers' predictions for this loss (from their claims, not verdicts of the audit):")
        out += [f"  {r['paper']}: {label(r)}" for r in paper.get("predicted", [])]
        out += [f"  {r['paper']}: `{r['claim']}` does not cover this loss: {r['reason']}"
                for r in paper.get("not_covered", [])]
    if j.get("confirmation"):
        out.append(f"confirmation: {j['confirmation'].get('verdict')} — {j['confirmation'].get('summary')}")
    for n in j.get("notes", []):
        out.append(f"note: {n}")
    return "\n".join(out)
