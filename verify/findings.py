"""reports/FINDINGS.md: what the checks found about the papers, on one page, from the claims' data.

Knows no paper. It reads only what every claim carries — ``status``, ``expect``, ``uses``, ``notes``
and the evidence data — and the evidence keys that checks use by convention:

* errata: claims of status ``erratum`` (the printed form, expected refuted). The correction is the
  claim one id level up (``<paper>.x.erratum`` corrects ``<paper>.x``); the impact is every claim
  whose ``uses`` reaches the corrected claim or the erratum;
* not reproduced: claims of status ``not-reproduced``; the narrower statement is what they ``use``;
* undecided: every evidence (or part) whose ``printed_reading`` mapping has ``verdict ==
  "undecided"`` — a printed statement tested under a declared reading that the data can neither
  confirm nor refute (``statement``, ``to_decide``: what would decide it);
* readings chosen: the sentence(s) of a claim's notes that state a reading;
* discovered constants and conjectures: claims of status ``conjecture`` with their measured and
  predicted values, and every evidence (or part of one) with ``leading_constant`` /
  ``leading_constant_stderr``;
* tightness: every evidence (or part) with ``slack_min`` / ``slack_max`` (``slack_at``, ``tight``,
  ``loose_factor``, ``slack_quantity`` when given).

Every row links to its claim's section in ``<paper>.md``.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Iterator, Mapping

from .claim import Claim, Result, Status, resolve_use
from .render import code_span, format_number, markdown_cell


def _digits(value: Any) -> str:
    """Constants are shown with 8 significant digits (their error bars say how many mean something)."""
    return f"{value:.8g}" if isinstance(value, float) else format_number(value)


def anchor(claim_id: str) -> str:
    """The heading anchor of a claim in ``<paper>.md`` (same rule as the paper reports)."""
    return claim_id.replace(".", "").replace("#", "").lower()


def _link(claim: Claim, anchor_of: Callable[[str], str]) -> str:
    return f"[`{claim.id}`]({claim.paper}.md#{anchor_of(claim.id)})"


def _cell(text: Any, limit: int = 400) -> str:
    text = str(text)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return markdown_cell(text)


def _code(text: Any, limit: int = 400) -> str:
    """A formula from the claim (sympy/LaTeX text) as a code span: markdown leaves it alone."""
    text = " ".join(str(text).split())
    return code_span(text if len(text) <= limit else text[: limit - 1] + "…")


def _deciding(result: Result, status: Status | None = None):
    """The evidence that decided the verdict (first with the verdict's status, or ``status``)."""
    want = result.verdict if status is None else status
    return next((e for e in result.evidence if e.status == want), result.evidence[0] if result.evidence else None)


def _walk(data: Mapping[str, Any], path: str = "") -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every mapping inside evidence data (parts of combined checks included), with its path."""
    yield path, data
    for key, value in data.items():
        if isinstance(value, Mapping):
            yield from _walk(value, f"{path}/{key}" if path else str(key))


def _readings(notes: str) -> list[str]:
    sentences = re.split(r"(?<=\.)\s+(?=[A-Z'(\[])", notes)
    return [s.strip() for s in sentences
            if re.search(r"\breadings?\b|\bread (as|through|with)\b|\bis read\b", s, re.I)]


def findings_markdown(results: Iterable[Result], *, anchor_of: Callable[[str], str] = anchor,
                      seed: int | None = None, budget: str | None = None) -> str:
    """The FINDINGS.md text for the given results (any papers, any selection)."""
    results = list(results)
    by_id = {r.claim.id: r for r in results}
    claims_by_id = {cid: r.claim for cid, r in by_id.items()}
    papers = sorted({r.claim.paper for r in results})
    head = ["# Findings", "",
            "What the checks found about the papers as printed, generated from the claims' data by "
            "`verify/findings.py`" + (f" (seed {seed}, budget `{budget}`)" if seed is not None else "")
            + ". Every row links to its claim; the evidence there has the complete numbers.", ""]
    for paper in papers:
        rows = [r for r in results if r.claim.paper == paper]
        head += [f"## {paper}", ""]
        head += _errata(rows, by_id, claims_by_id, anchor_of)
        head += _not_reproduced(rows, by_id, anchor_of)
        head += _undecided(rows, anchor_of)
        head += _readings_table(rows, anchor_of)
        head += _constants(rows, anchor_of)
        head += _tightness(rows, anchor_of)
    return "\n".join(head).rstrip() + "\n"


def _errata(rows, by_id, claims_by_id, anchor_of) -> list[str]:
    out = ["### Errata", "", "| printed (erratum claim) | verdict | correction | witness | impact (claims that use it) |",
           "|---|---|---|---|---|"]
    n = 0
    for r in rows:
        c = r.claim
        if c.status != "erratum":
            continue
        n += 1
        parent_id = c.id.rsplit(".", 1)[0]
        fixes = [by_id[x.id] for x in resolve_use(parent_id, claims_by_id)
                 if x.id != c.id and x.status != "erratum"]
        correction = "; ".join(f"{_link(p.claim, anchor_of)}: {p.claim.title} ({p.verdict})"
                               for p in fixes) or "—"
        ev = _deciding(r, Status.REFUTED)
        witness = ev.summary if ev is not None else "—"
        if ev is not None and "witness" in ev.data:
            witness += f" (witness: {format_number(ev.data['witness'])})"
        targets = {c.id, parent_id, *(p.claim.id for p in fixes)}
        users = [u for u in rows if u.claim.id not in targets
                 and any(d.id in targets for ref in u.claim.uses for d in resolve_use(ref, claims_by_id))]
        impact = ", ".join(f"{_link(u.claim, anchor_of)} ({u.verdict})" for u in users) or "none"
        out.append(f"| {_link(c, anchor_of)}: {_cell(c.title)} — {_code(c.statement, 200)} | {r.verdict}"
                   f"{'' if r.meets_expectation else ' ⚠'} | {_cell(correction)} | {_cell(witness)} | {impact} |")
    return (out if n else ["### Errata", "", "None in this selection."]) + [""]


def _not_reproduced(rows, by_id, anchor_of) -> list[str]:
    out = ["### Not reproduced", "",
           "| printed claim | verdict | what was measured | narrower statement that holds |", "|---|---|---|---|"]
    n = 0
    for r in rows:
        c = r.claim
        if c.status != "not-reproduced":
            continue
        n += 1
        ev = _deciding(r, Status.REFUTED)
        narrow = ", ".join(f"{_link(by_id[u].claim, anchor_of)}: {by_id[u].claim.title} ({by_id[u].verdict})"
                           for u in c.uses if u in by_id) or ", ".join(f"`{u}`" for u in c.uses) or "—"
        out.append(f"| {_link(c, anchor_of)}: {_cell(c.title)} | {r.verdict}{'' if r.meets_expectation else ' ⚠'} | "
                   f"{_cell(ev.summary if ev else '—')} | {_cell(narrow)} |")
    return (out if n else ["### Not reproduced", "", "None in this selection."]) + [""]


def _undecided(rows, anchor_of) -> list[str]:
    """Printed statements the evidence cannot decide under the declared reading (never a pass: the
    claim that carries them states something narrower, e.g. that the measurement has the resolution)."""
    out = ["### Undecided", "", "| claim | printed statement (declared reading) | what was measured | what would decide it |",
           "|---|---|---|---|"]
    n = 0
    for r in rows:
        for ev in r.evidence:
            for _, data in _walk(ev.data):
                reading = data.get("printed_reading")
                if not isinstance(reading, Mapping) or reading.get("verdict") != "undecided":
                    continue
                n += 1
                out.append(f"| {_link(r.claim, anchor_of)} | {_cell(reading.get('statement', '—'))} | "
                           f"{_cell(ev.summary)} | {_cell(reading.get('to_decide') or '—')} |")
    return (out if n else ["### Undecided", "", "None in this selection."]) + [""]


def _readings_table(rows, anchor_of) -> list[str]:
    out = ["### Readings chosen", "", "| claim | reading (from the claim's notes) |", "|---|---|"]
    n = 0
    for r in rows:
        found = _readings(r.claim.notes)
        if not found:
            continue
        n += 1
        out.append(f"| {_link(r.claim, anchor_of)} | {_cell(' '.join(found), 600)} |")
    return (out if n else ["### Readings chosen", "", "None stated in this selection."]) + [""]


def _constants(rows, anchor_of) -> list[str]:
    out = ["### Discovered constants and conjectures", ""]
    conj = [r for r in rows if r.claim.status == "conjecture" and r.claim.expect != "unchecked"]
    if conj:
        out += ["| conjecture | verdict | part | measured | predicted | agreeing digits |", "|---|---|---|---|---|---|"]
        for r in conj:
            for e in r.evidence:
                for path, d in _walk(e.data):
                    if "predicted" in d and "leading_constant" in d:
                        out.append(f"| {_link(r.claim, anchor_of)}: {_cell(r.claim.title, 200)} | {r.verdict} | "
                                   f"{_code(path or e.check, 160)} | {_digits(d['leading_constant'])} ± "
                                   f"{format_number(d.get('leading_constant_stderr'))} | {_digits(d['predicted'])} | "
                                   f"{format_number(d.get('agreeing_digits'))} |")
        out.append("")
    consts = []
    for r in rows:
        if r.claim.status == "conjecture":
            continue
        for e in r.evidence:
            for path, d in _walk(e.data):
                if "leading_constant" in d:
                    consts.append((r, e, path, d))
    if consts:
        out += ["| claim | check / part | leading constant | ± | what |", "|---|---|---|---|---|"]
        for r, e, path, d in consts:
            what = d.get("quantity") or d.get("slack_quantity") or d.get("estimator") or ""
            out.append(f"| {_link(r.claim, anchor_of)} | {_code(e.check + ('/' + path if path else ''), 160)} | "
                       f"{_digits(d['leading_constant'])} | {format_number(d.get('leading_constant_stderr'))} | "
                       f"{_cell(what, 120)} |")
        out.append("")
    if not conj and not consts:
        out += ["None in this selection.", ""]
    return out


def _tightness(rows, anchor_of) -> list[str]:
    out = ["### Tightness of the inequalities", "",
           "| claim | check / part | slack measured | range | attained at | tight? |", "|---|---|---|---|---|---|"]
    n = 0
    for r in rows:
        if r.claim.status == "conjecture":  # its runs repeat the slack of the claim it tests
            continue
        for e in r.evidence:
            for path, d in _walk(e.data):
                if "slack_min" not in d or "slack_max" not in d:
                    continue
                n += 1
                tight = d.get("tight")
                verdict = ("tight" if tight else "loose" if tight is not None else "—")
                if d.get("loose_factor") is not None and not tight:
                    verdict += f" (by ≥ {format_number(d['loose_factor'])}×)"
                out.append(f"| {_link(r.claim, anchor_of)} | {_code(e.check + ('/' + path if path else ''), 160)} | "
                           f"{_cell(d.get('slack_quantity', 'value/bound'), 120)} | [{format_number(d['slack_min'])}, "
                           f"{format_number(d['slack_max'])}] | {_cell(d.get('slack_at', '—'), 120)} | {verdict} |")
    return (out if n else ["### Tightness of the inequalities", "", "None in this selection."]) + [""]
