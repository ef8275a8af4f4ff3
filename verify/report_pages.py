"""The per-paper report page: contents by paper section, a dependency graph per section coloured by
verdict, then per claim its statement, hypotheses, uses, verdict, evidence, planted errors, figures.

Markdown rules (checked by ``tests/test_report_markdown.py``): text from code is escaped or put in
code spans, math is in ``$`…`$`` or a ``math`` fence, every link target exists.
"""
from __future__ import annotations

from typing import Callable

from . import depgraph
from .claim import Claim, Result, Status, resolve_use
from .render import (code_span, display_math, escape_markdown, inline_math, markdown_cell,
                     prose_to_text, render_evidence_markdown, round_numbers, shorten)
from .sourcelinks import Section, paper_order

BADGE = {"proved": "✅ proved", "supported": "🟢 supported", "inconclusive": "🟡 inconclusive",
         "refuted": "🔴 refuted", "inconsistent": "⛔ inconsistent"}
TRUST = {"R": "reconstructed and re-derived: an exact consequence of the stated dynamics",
         "M": "from memory, consistent with the prose: probably the paper's form, constants unsure",
         "U": "uncertain: the qualitative content is certain, the printed display was not recovered"}


def anchor(claim_id: str) -> str:
    """GitHub's heading slug of a claim heading (the heading is the bare id)."""
    return claim_id.replace(".", "").replace("#", "").lower()


def section_anchor(section: Section) -> str:
    return "section-" + section.short.lower()


def status_text(result: Result) -> str:
    if result.claim.expect == "unchecked":
        return "⚪ not checked"
    text = BADGE[str(result.verdict)]
    if result.claim.expect == "refuted" and result.meets_expectation:
        if result.claim.status == "not-reproduced":
            return text + " (not reproduced: the printed statement fails, as recorded)"
        return text + " (erratum: printed form refuted, as expected)"
    if not result.meets_expectation:
        return text + " ⚠ (expected " + result.claim.expect + ")"
    return text


def verdict_class(result: Result) -> str:
    return "unchecked" if result.claim.expect == "unchecked" else str(result.verdict)


def trust_tag(claim: Claim) -> str:
    """``[R]`` with its meaning, where it appears."""
    if not claim.trust:
        return ""
    meaning = TRUST.get(claim.trust, "see the spec")
    return f"trust [{claim.trust}]: {meaning}"


def uses_with_status(claim: Claim, results: dict[str, Result], page_of: Callable[[Claim], str]) -> str:
    """Each use with its verdict; a prefix use lists its members, each linked and with its own
    verdict (a group is never shown under one member's link)."""
    by_id = {cid: r.claim for cid, r in results.items()}
    parts = []
    for ref in claim.uses:
        deps = resolve_use(ref, by_id)
        if not deps:
            parts.append(f"{code_span(ref)} (not in catalogue)")
        elif len(deps) == 1 and deps[0].id == ref:
            d = deps[0]
            parts.append(f"[{code_span(ref)}]({page_of(d)}#{anchor(d.id)}) ({_short(results[d.id])})")
        else:
            members = ", ".join(f"[{code_span(d.id[len(ref):])}]({page_of(d)}#{anchor(d.id)}) "
                                f"({_short(results[d.id])})" for d in deps)
            parts.append(f"{code_span(ref)}: {members}")
    return "; ".join(parts) if parts else "—"


def used_by(claim: Claim, results: dict[str, Result]) -> tuple[list[Claim], list[Claim]]:
    """Claims whose ``uses`` name this claim (or a prefix of it), split into interval-certified
    instances of it (sub-claims ``<id>.…``, proved, with a CERT check) and the rest, in catalogue
    order."""
    by_id = {cid: r.claim for cid, r in results.items()}
    users = [r.claim for r in results.values() if r.claim.id != claim.id
             and any(claim in resolve_use(u, by_id) for u in r.claim.uses)]
    certified = [u for u in users if u.id.startswith(claim.id + ".")
                 and results[u.id].verdict == Status.PROVED and any(ch.kind == "CERT" for ch in u.checks)]
    return certified, [u for u in users if u not in certified]


def _linked(c: Claim, results: dict[str, Result], page_of: Callable[[Claim], str]) -> str:
    return f"[{code_span(c.id)}]({page_of(c)}#{anchor(c.id)}) ({_short(results[c.id])})"


def _short(result: Result) -> str:
    return "not checked" if result.claim.expect == "unchecked" else str(result.verdict)


def _seeds_text(claim: Claim, swept) -> str:
    """`` · seeds 0-9 (quick): met at 10/10, planted errors refuted at 10/10`` (empty without a
    sweep or for an unchecked claim)."""
    from .robustness import format_seeds

    if swept is None or claim.expect == "unchecked":
        return ""
    n = len(swept.seeds)
    text = (f" · seeds {format_seeds(swept.seeds)} (budget `{swept.budget}`): met at "
            f"{len(swept.met(claim.id))}/{n}")
    rows = swept.refuted(claim.id)
    if rows:
        every = len(swept.all_refuted(claim.id))
        text += f", planted errors all refuted at {every}/{n}"
    return text


def hypothesis_text(h: str) -> str:
    """A hypothesis written in LaTeX (it has a backslash command) is math; anything else is text."""
    if "\\" in h:
        return inline_math(prose_to_text(h))
    return escape_markdown(h, in_table=False)


def paper_page(paper: str, citation: str, address: str | None, ordered: list[Claim],
               sections: dict[str, Section], results: dict[str, Result], planted: dict,
               figures: dict, links: dict, seed: int, budget: str,
               page_of: Callable[[Claim], str], swept=None) -> str:
    """The markdown of ``reports/<paper>.md``; ``links`` holds per claim its data file, its code
    link and a code link per check; ``swept`` (a :class:`verify.robustness.SeedSweep`, with
    ``report --seeds``) adds to each claim the seeds at which it met its expectation."""
    unsorted: dict[str, list[Claim]] = {}
    for c in ordered:  # within a section, claims keep the dependency order
        unsorted.setdefault(sections[c.id].module if c.id in sections else "~", []).append(c)
    groups = {m: unsorted[m] for m in sorted(unsorted, key=paper_order)}
    by_module = {s.module: s for s in sections.values()}
    cite = escape_markdown(citation, in_table=False)
    lines = [f"# {paper}: claim report", "",
             (f"[{cite}]({address})" if address else cite), "",
             f"Seed {seed}, budget `{budget}`. Each claim: the statement (paraphrased from the spec), "
             "its hypotheses, the claims it uses (with their verdicts), its verdict, the evidence "
             "(one row per check: summary and the figures that decide it; the complete data are in "
             "the linked JSON file), the planted errors the engine had to refute, and figures. "
             "Floats are printed with 4 significant digits. Terms are explained in the "
             "[glossary](README.md#glossary).", "",
             "[← index](README.md)", "", "## Contents", ""]
    for module, members in groups.items():
        sec = by_module.get(module)
        title = escape_markdown(sec.title if sec else "other", in_table=False)
        head = f"[{sec.short}](#{section_anchor(sec)})" if sec else "other"
        lines.append(f"- {head}: {title} — " + ", ".join(
            f"[{code_span(c.id, in_table=False)}](#{anchor(c.id)})" for c in members))
    lines.append("")
    graph = depgraph.edges(results[c].claim for c in results)
    for module, members in groups.items():
        sec = by_module.get(module)
        if sec:
            lines += [f"## Section {sec.short}", "", escape_markdown(sec.title, in_table=False)
                      + f" ([source]({links['modules'][module]}))", ""]
        ids = [c.id for c in members]
        lines += ["Dependency graph (arrow: used → user; colour: verdict — dark green proved, light "
                  "green supported, yellow inconclusive, red refuted, grey not checked; dashed: "
                  "claims of other sections):", "",
                  depgraph.mermaid(ids, graph, lambda cid: verdict_class(results[cid]),
                                   lambda cid: cid.split(".", 1)[1] if cid in ids else cid), ""]
        for c in members:
            lines += _claim_block(c, results, planted, figures, links, page_of, address, swept)
    return "\n".join(lines)


def _claim_block(c: Claim, results, planted, figures, links, page_of, address,
                 swept=None) -> list[str]:
    r = results[c.id]
    own = links["claims"][c.id]
    place = escape_markdown(c.source.place, in_table=False)
    if address:
        place = f"[{place}]({address})"
    meta = [f"status: {c.status}"]
    if c.trust:
        meta.append(escape_markdown(trust_tag(c), in_table=False))
    meta.append(f"expected: {c.expect}")
    code = f" · [claim code]({own['code']})" if own["code"] else ""
    lines = [f"### {c.id}", "",
             f"**{escape_markdown(c.title, in_table=False)}**  ",
             f"Paper: {place}{code} · [all data]({own['data']})  ",
             " · ".join(meta) + f" · **verdict: {status_text(r)}**" + _seeds_text(c, swept), "",
             display_math(prose_to_text(c.statement)), ""]
    if c.hypotheses:
        lines += ["Hypotheses: " + "; ".join(hypothesis_text(h) for h in c.hypotheses), ""]
    lines += ["Uses: " + uses_with_status(c, results, page_of), ""]
    certified, others = used_by(c, results)
    if certified:  # proofs of the statement on concrete instances, beside the empirical evidence
        lines += ["Certified instances (interval-arithmetic proofs on concrete instances): "
                  + ", ".join(_linked(u, results, page_of) for u in certified), ""]
    if others:
        lines += ["Used by: " + ", ".join(_linked(u, results, page_of) for u in others), ""]
    if c.notes:
        lines += [escape_markdown(round_numbers(c.notes.strip()), in_table=False), ""]
    lines += [render_evidence_markdown(r.evidence, data_link=own["data"],
                                       code_link=lambda name: own["checks"].get(name)), ""]
    rows = planted.get(c.id, [])
    if rows:
        lines += ["Planted errors (each must be refuted):", "",
                  "| planted | what is wrong | outcome | evidence |", "|---|---|---|---|"]
        for p, e in rows:
            ok = "refuted ✔" if e.status == Status.REFUTED else f"**{e.status} ✘ NOT refuted**"
            lines.append(f"| {code_span('#' + p.tag)} | {markdown_cell(p.description)} | {ok} | "
                         f"{markdown_cell(shorten(round_numbers(e.summary), 260))} |")
        lines.append("")
    for name, caption in figures.get(c.id, []):
        text = escape_markdown(round_numbers(caption), in_table=False)
        if name:
            alt = escape_markdown(f"{c.id} figure", in_table=False)
            lines += [f"![{alt}](figures/{name})", "", f"Figure: {text}", ""]
        else:
            lines += [f"Figure: {text}", ""]
    return lines
