"""Markdown claim reports with figures, deterministic for a given seed and budget.

``reports/README.md`` is the index (counts per verdict; every claim in dependency order with its
status); ``reports/<paper>.md`` has one section per claim (statement, hypotheses, uses with their
statuses, verdict, evidence table, planted errors and their outcomes, figures); PNGs go to
``reports/figures/``. Wall-clock times are not deterministic, so they are written separately to
``reports/RUNTIME.md`` — the only file that differs between two runs with the same seed.
"""
from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path
from typing import Callable, Iterable

import matplotlib

matplotlib.use("Agg")

from .claim import (Claim, Context, Result, Status, dependency_order, derive_seed, resolve_use,
                    run_claim, run_planted)
from .findings import findings_markdown
from .render import markdown_cell, render_evidence_markdown

ORDER = ["proved", "supported", "inconclusive", "refuted", "inconsistent"]
BADGE = {"proved": "✅ proved", "supported": "🟢 supported", "inconclusive": "🟡 inconclusive",
         "refuted": "🔴 refuted", "inconsistent": "⛔ inconsistent"}


def _anchor(claim_id: str) -> str:
    return claim_id.replace(".", "").replace("#", "").lower()


def _status_text(result: Result) -> str:
    v = str(result.verdict)
    if result.claim.expect == "unchecked":
        return "⚪ not checked"
    mark = "" if result.meets_expectation else " ⚠ (expected " + result.claim.expect + ")"
    if result.claim.expect == "refuted" and result.meets_expectation:
        mark = " (erratum: printed form refuted, as expected)"
    return BADGE[v] + mark


def write_reports(claims: list[Claim], out: str | os.PathLike, *, seed: int = 0,
                  budget: str = "full", progress: Callable[[str], None] | None = None) -> dict:
    """Run every claim (and its planted errors), write the markdown + figures; return a summary."""
    out = Path(out)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    ordered = dependency_order(claims)
    results: dict[str, Result] = {}
    planted: dict[str, list] = {}
    figures: dict[str, list[tuple[str, str]]] = {}
    timings: list[tuple[str, float]] = []
    total = len(ordered)
    for i, claim in enumerate(ordered, 1):
        if progress:
            progress(f"[{i}/{total}] {claim.id}")
        started = time.perf_counter()
        results[claim.id] = run_claim(claim, seed=seed, budget=budget)
        planted[claim.id] = [(p, run_planted(claim, p, seed=seed, budget=budget))
                             for p in claim.planted] if claim.expect != "unchecked" else []
        figures[claim.id] = []
        for fig in claim.figures:
            name = f"{claim.id.replace('.', '_')}__{fig.name}.png"
            ctx = Context(derive_seed(seed, claim.id, "figure:" + fig.name), budget, progress, seed)
            try:
                caption = fig.draw(ctx, str(out / "figures" / name))
            except Exception as exc:  # a broken figure is reported, not hidden
                caption = f"figure failed: {type(exc).__name__}: {exc}"
                name = ""
            figures[claim.id].append((name, caption))
        timings.append((claim.id, time.perf_counter() - started))

    papers = sorted({c.paper for c in claims})
    for paper in papers:
        text = _paper_markdown(paper, [c for c in ordered if c.paper == paper], results, planted,
                               figures, seed, budget)
        (out / f"{paper}.md").write_text(text, encoding="utf-8")
    (out / "README.md").write_text(_index_markdown(ordered, results, planted, seed, budget),
                                   encoding="utf-8")
    (out / "FINDINGS.md").write_text(findings_markdown([results[c.id] for c in ordered], anchor_of=_anchor,
                                                       seed=seed, budget=budget), encoding="utf-8")
    (out / "RUNTIME.md").write_text(_runtime_markdown(timings, seed, budget), encoding="utf-8")
    counts = Counter(str(r.verdict) for r in results.values() if r.claim.expect != "unchecked")
    unmet = [r.claim.id for r in results.values() if not r.meets_expectation]
    planted_missed = [f"{cid}#{p.tag}" for cid, rows in planted.items() for p, e in rows
                      if e.status != Status.REFUTED]
    return {"counts": dict(counts), "unmet": unmet, "planted_not_refuted": planted_missed,
            "results": results}


def _index_markdown(ordered, results, planted, seed, budget) -> str:
    checked = [r for r in results.values() if r.claim.expect != "unchecked"]
    counts = Counter(str(r.verdict) for r in checked)
    n_planted = sum(len(v) for v in planted.values())
    n_refuted = sum(1 for v in planted.values() for _, e in v if e.status == Status.REFUTED)
    unmet = [r for r in results.values() if not r.meets_expectation]
    lines = ["# Claim reports", "",
             "**[FINDINGS.md](FINDINGS.md)**: errata, statements not reproduced, readings chosen, "
             "discovered constants and conjectures, and how tight each bound is.", "",
             "Generated by `python -m verify report` "
             f"(seed {seed}, budget `{budget}`). Regenerate with the same seed and budget to get "
             "byte-identical files (wall-clock times are kept apart in `RUNTIME.md`).", "",
             "## Summary", "",
             "| verdict | claims |", "|---|---|"]
    for k in ORDER:
        lines.append(f"| {BADGE[k]} | {counts.get(k, 0)} |")
    lines.append(f"| ⚪ not checked (conjecture / out of scope) | "
                 f"{sum(1 for r in results.values() if r.claim.expect == 'unchecked')} |")
    lines += ["", f"Planted errors refuted: **{n_refuted} / {n_planted}**. "
              f"Claims meeting their expectation: **{len(results) - len(unmet)} / {len(results)}**.",
              ""]
    if unmet:
        lines += ["Claims **not** meeting their expectation:", ""]
        lines += [f"- [`{r.claim.id}`]({r.claim.paper}.md#{_anchor(r.claim.id)}): "
                  f"{r.verdict} (expected {r.claim.expect})" for r in unmet]
        lines.append("")
    lines += ["Reading a verdict: **proved** = exact symbolic identity or interval (arb ball) "
              "certificate; **supported** = empirical evidence within the stated budget; "
              "**inconclusive** = the evidence could not decide; **refuted** = a witness shows the "
              "statement false. Erratum claims encode a misprinted statement and are expected to be "
              "refuted.", ""]
    for paper in sorted({c.paper for c in ordered}):
        citation = next((c.source.citation for c in ordered if c.paper == paper and c.source.citation), "")
        lines += [f"## [{paper}]({paper}.md) — claims in dependency order", "",
                  *([f"*{citation}*", ""] if citation else []),
                  "| claim | title | status | verdict | uses |", "|---|---|---|---|---|"]
        for c in ordered:
            if c.paper != paper:
                continue
            r = results[c.id]
            uses = ", ".join(f"`{u}`" for u in c.uses)
            lines.append(f"| [`{c.id}`]({paper}.md#{_anchor(c.id)}) | {markdown_cell(c.title)} | "
                         f"{c.status}{' [' + c.trust + ']' if c.trust else ''} | {_status_text(r)} | "
                         f"{uses} |")
        lines.append("")
    return "\n".join(lines)


def _uses_with_status(claim: Claim, results: dict[str, Result]) -> str:
    by_id = {cid: r.claim for cid, r in results.items()}
    parts = []
    for ref in claim.uses:
        deps = resolve_use(ref, by_id)
        if not deps:
            parts.append(f"`{ref}` (not in catalogue)")
            continue
        # conjectures and out-of-scope parts are recorded, not checked: they do not weaken a use
        checked = [d for d in deps if d.expect != "unchecked"] or deps
        worst = min((results[d.id].verdict for d in checked), default=Status.INCONCLUSIVE)
        paper = deps[0].paper
        parts.append(f"[`{ref}`]({paper}.md#{_anchor(deps[0].id)}) ({worst})")
    return ", ".join(parts) if parts else "—"


def _paper_markdown(paper, claims, results, planted, figures, seed, budget) -> str:
    citation = next((c.source.citation for c in claims if c.source.citation), "")
    lines = [f"# {paper}: claim report", "", *([f"*{citation}*", ""] if citation else []),
             f"Seed {seed}, budget `{budget}`. Each claim: statement (paraphrased from the spec), "
             "hypotheses, the claims it uses (with their verdicts), its verdict and the evidence "
             "behind it, the planted errors the engine had to refute, and figures.", "",
             "[← index](README.md)", ""]
    for c in claims:
        r = results[c.id]
        lines += [f"## {c.id}", "", f"**{c.title}** — {c.source.place}  ",
                  f"Status: {c.status}" + (f" · trust [{c.trust}]" if c.trust else "")
                  + f" · expected: {c.expect} · **verdict: {_status_text(r)}**", ""]
        lines += ["$$", c.statement.strip(), "$$", ""]
        if c.hypotheses:
            lines += ["Hypotheses: " + "; ".join(f"${h}$" if "\\" in h or "_" in h else h
                                                  for h in c.hypotheses), ""]
        lines += ["Uses: " + _uses_with_status(c, results), ""]
        if c.notes:
            lines += [c.notes.strip(), ""]
        lines += [render_evidence_markdown(r.evidence), ""]
        rows = planted.get(c.id, [])
        if rows:
            lines += ["Planted errors (each must be refuted):", "",
                      "| planted | what is wrong | outcome | evidence |", "|---|---|---|---|"]
            for p, e in rows:
                ok = "refuted ✔" if e.status == Status.REFUTED else f"**{e.status} ✘ NOT refuted**"
                lines.append(f"| `#{p.tag}` | {markdown_cell(p.description)} | {ok} | "
                             f"{markdown_cell(e.summary)} |")
            lines.append("")
        for name, caption in figures.get(c.id, []):
            if name:
                lines += [f"![{markdown_cell(caption)}](figures/{name})", "", f"*{caption}*", ""]
            else:
                lines += [f"*{caption}*", ""]
    return "\n".join(lines)


def _runtime_markdown(timings, seed, budget) -> str:
    total = sum(t for _, t in timings)
    lines = ["# Run times", "", f"Seed {seed}, budget `{budget}`; total {total:.1f} s wall clock "
             "(claims, planted errors and figures). This file is not deterministic.", "",
             "| claim | seconds |", "|---|---|"]
    for cid, t in sorted(timings, key=lambda kv: -kv[1]):
        lines.append(f"| `{cid}` | {t:.2f} |")
    return "\n".join(lines) + "\n"
