"""Markdown claim reports with figures and data files, deterministic for a given seed and budget.

``reports/README.md`` is the index: verdict counts, the findings link, contents by paper section,
glossary, real dependency cycles (if any), and every claim in dependency order.
``reports/<paper>.md`` is one page per paper (see :mod:`verify.report_pages`); PNGs go to
``reports/figures/``; the complete evidence of each claim (all numbers, 10 significant digits) goes
to ``reports/data/<claim id>.json``. Wall-clock times are not deterministic, so they are written
separately to ``reports/RUNTIME.md`` — the only file that differs between two runs with the same
seed on the same software versions (listed in the index).
"""
from __future__ import annotations

import json
import math
import os
import time
from collections import Counter
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Sequence

import matplotlib

matplotlib.use("Agg")

from . import depgraph, numenv, sourcelinks
from .claim import (Claim, Context, Result, Status, _jsonable, dependency_order, derive_seed,
                    run_claim, run_planted)
from .findings import findings_markdown
from .machine import one_line
from .render import SIGNIFICANT, code_span, escape_markdown, markdown_cell
from .robustness import SeedSweep, format_seeds, sweep
from .report_pages import BADGE, TRUST, anchor, paper_page, section_anchor, status_text

ORDER = ["proved", "supported", "inconclusive", "refuted", "inconsistent"]
SWEEP_BUDGET = "quick"  # budget of the robustness runs (``report --seeds``): one pass per seed
DATA_DIGITS = 10  # significant digits of floats in data/*.json (absorbs last-bit platform noise)
# engine terms that appear in evidence data; papers add their own through ``GLOSSARY`` in their
# package (``claims/<paper>/__init__.py``)
ENGINE_GLOSSARY = {
    "slope ± stderr": "fitted exponent of y ~ C x^p (least squares in log-log) and its standard error",
    "predicted": "the exponent the statement predicts; `mode` says whether it must be equal, at least or at most",
    "tolerance": "the stated acceptance tolerance (τ) of the check, fixed before looking at data",
    "r2": "R² of the log-log fit",
    "constant": "fitted leading constant C of y ~ C x^p (the O(·) constant)",
    "dropped_points": "grid points dropped before a fit (non-finite, or at or below the precision floor)",
    "min_ratio / max_ratio": "extremes over the grid of a ratio that must stay bounded (the empirical hidden constant)",
    "growth_toward_limit": "log-slope of that ratio toward the limit; > tolerance means it blows up",
    "side / toward": "bounded above, below or both (O, Ω, Θ), as x tends to zero or infinity",
    "examples / skipped": "hypothesis-generated inputs tried / outside the statement's scope (counted, never a pass)",
    "seed": "the seed derived for this check from the run seed (sha256 of run seed, claim id, check name)",
    "witness": "the input (shrunk by hypothesis, or an explicit point) at which a statement fails",
    "lanes": "independent runs (e.g. step sizes × initialisations) iterated together as one float64 array",
    "outcomes": "how the runs ended: converged, diverged, NaN/overflow, frozen (an iterate exactly 0), out of budget",
    "max_steps_used": "the largest number of steps any run needed",
    "hp_arb / hp_dd / hp_agree": "cross-check of the float64 runs at high precision: arb balls (≥ 30 digits) / compiled double-double (~32 digits) / whether they agree within hp_tolerance",
    "prec_bits / dps": "working precision in bits / decimal digits",
    "boxes": "sub-intervals of an interval (arb) certificate",
}
VERSIONED = ("hypothesis", "numpy", "scipy", "sympy", "mpmath", "python-flint", "numba", "matplotlib")


def write_reports(claims: list[Claim], out: str | os.PathLike, *, seed: int = 0,
                  budget: str = "full", progress: Callable[[str], None] | None = None,
                  runner=None, seeds: Sequence[int] | None = None,
                  machine_speed: Callable[[], dict] | None = None) -> dict:
    """Run every claim (and its planted errors), write the markdown, figures and data; return a
    summary.

    ``runner`` (:mod:`verify.parallel`; default serial) says where the claims run; the files written
    do not depend on it, except ``RUNTIME.md``. With ``seeds``, the claims and planted errors are
    also run at each of those seeds at the ``SWEEP_BUDGET`` (:func:`verify.robustness.sweep`) and
    the index counts, per claim, the seeds at which it met its expectation. ``machine_speed``
    (e.g. :func:`verify.scaling.speed_vs_reference`) is measured once the claims have run and
    printed in ``RUNTIME.md``, so that its times can be compared with another machine's."""
    from .parallel import Runner, run_claims

    started = time.perf_counter()
    out = Path(out)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    (out / "data").mkdir(parents=True, exist_ok=True)
    ordered = dependency_order(claims)
    results: dict[str, Result] = {}
    planted: dict[str, list] = {}
    figures: dict[str, list[tuple[str, str]]] = {}
    timings: list[tuple[str, float, str]] = []
    environments: dict[str, str] = {}   # worker -> its numerical environment (verify.numenv)
    outcomes = list(run_claims(ordered, runner or Runner(), seed=seed, budget=budget, planted=True,
                               figures=True, progress=progress))
    swept = None
    if seeds:  # the report's own run is reused when it is one of the sweep's runs
        if progress:
            progress(f"robustness: seeds {format_seeds(seeds)}, budget {SWEEP_BUDGET}")
        swept = sweep(ordered, runner or Runner(), seeds, SWEEP_BUDGET, progress=progress,
                      done={seed: outcomes} if budget == SWEEP_BUDGET else None)
    for claim, done in zip(ordered, outcomes):
        results[claim.id] = done.result(claim)
        planted[claim.id] = list(zip(claim.planted, (ev for _, ev in done.planted)))
        figures[claim.id] = []
        for name, caption, png in done.figures:
            if png is not None:
                (out / "figures" / name).write_bytes(png)
            figures[claim.id].append((name, caption))
        timings.append((claim.id, done.seconds, done.worker))
        environments[done.worker] = done.numeric

    sections = sourcelinks.sections(ordered)
    links = _links(ordered, sections, out)
    for claim in ordered:
        (out / links["claims"][claim.id]["data"]).write_text(
            _data_json(claim, results[claim.id], planted[claim.id], figures[claim.id], seed, budget,
                       swept),
            encoding="utf-8")
    citations = sourcelinks.paper_citations(s.module for s in sections.values())
    papers = sorted({c.paper for c in claims})
    for paper in papers:
        text = paper_page(paper, citations.get(paper, paper),
                          sourcelinks.paper_address(citations.get(paper, "")),
                          [c for c in ordered if c.paper == paper], sections, results, planted,
                          figures, links, seed, budget, lambda c: f"{c.paper}.md", swept)
        (out / f"{paper}.md").write_text(text + "\n", encoding="utf-8")
    # FINDINGS.md first: the index links it only when it exists
    (out / "FINDINGS.md").write_text(findings_markdown([results[c.id] for c in ordered], anchor_of=anchor,
                                                       seed=seed, budget=budget), encoding="utf-8")
    (out / "README.md").write_text(_index_markdown(ordered, results, planted, sections, seed,
                                                   budget, out, swept, figures), encoding="utf-8")
    wall = time.perf_counter() - started
    speed = None
    if machine_speed is not None:  # the claims are done: an idle machine
        if progress:
            progress("measuring this machine's speed for RUNTIME.md")
        try:
            speed = machine_speed()
        except Exception as exc:  # a timing, not a result: say so and write the page
            speed = {"error": f"{type(exc).__name__}: {exc}"}
    (out / "RUNTIME.md").write_text(_runtime_markdown(timings, seed, budget, wall, environments, speed),
                                    encoding="utf-8")
    counts = Counter(str(r.verdict) for r in results.values() if r.claim.expect != "unchecked")
    unmet = [r.claim.id for r in results.values() if not r.meets_expectation]
    planted_missed = [f"{cid}#{p.tag}" for cid, rows in planted.items() for p, e in rows
                      if e.status != Status.REFUTED]
    return {"counts": dict(counts), "unmet": unmet, "planted_not_refuted": planted_missed,
            "seeds_unmet": swept.unmet() if swept else [], "figures_failed": failed_figures(figures),
            "numeric_warnings": numeric_warnings(environments), "results": results}


def failed_figures(figures: dict[str, list[tuple[str, str]]]) -> list[str]:
    """``claim id: caption`` of every figure that could not be drawn (no file; the caption says why)."""
    return [f"{cid}: {caption}" for cid, rows in figures.items() for name, caption in rows if not name]


def _links(ordered, sections, out: Path) -> dict:
    """Relative links from the report folder: per claim its data file, its code, each check."""
    claims: dict[str, dict] = {}
    modules: dict[str, str] = {}
    for c in ordered:
        sec = sections.get(c.id)
        entry = {"data": f"data/{c.id}.json", "code": "", "checks": {}}
        if sec:
            modules[sec.module] = sourcelinks.link(sec.path, None, str(out))
            entry["code"] = sourcelinks.link(sec.path, sourcelinks.claim_line(c, sec.path), str(out))
            for check in c.checks:
                line = sourcelinks.check_line(check, sec.path)
                entry["checks"][check.name] = sourcelinks.link(sec.path, line, str(out)) if line else ""
        claims[c.id] = entry
    return {"claims": claims, "modules": modules}


def _rounded(value: Any) -> Any:
    if isinstance(value, float) and math.isfinite(value) and value != 0:
        return float(f"{value:.{DATA_DIGITS}g}")
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


def _data_json(claim: Claim, result: Result, planted_rows, figure_rows, seed, budget,
               swept: SeedSweep | None = None) -> str:
    doc = {"id": claim.id, "title": claim.title, "source": str(claim.source),
           "statement": claim.statement, "uses": list(claim.uses), "expect": claim.expect,
           "verdict": str(result.verdict) if claim.expect != "unchecked" else "not checked",
           "seed": seed, "budget": budget,
           "evidence": [e.to_json() for e in result.evidence],
           "planted": [{"tag": p.tag, "description": p.description, **e.to_json()}
                       for p, e in planted_rows],
           "figures": [{"file": f"figures/{name}" if name else None, "caption": caption}
                       for name, caption in figure_rows]}
    if swept is not None:
        doc["seeds"] = {"budget": swept.budget,
                        "verdicts": {str(s): str(r.verdict) for s, r in swept.results[claim.id].items()},
                        "met": swept.met(claim.id),
                        "planted_refuted": {tag: seeds for tag, seeds in swept.refuted(claim.id)}}
    return json.dumps(_rounded(_jsonable(doc)), indent=1, ensure_ascii=False) + "\n"


def _versions() -> str:
    found = []
    for name in VERSIONED:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            pass
    return ", ".join(found)


def _index_markdown(ordered, results, planted, sections, seed, budget, out: Path,
                    swept: SeedSweep | None = None, figures: dict | None = None) -> str:
    checked = [r for r in results.values() if r.claim.expect != "unchecked"]
    counts = Counter(str(r.verdict) for r in checked)
    n_planted = sum(len(v) for v in planted.values())
    n_refuted = sum(1 for v in planted.values() for _, e in v if e.status == Status.REFUTED)
    unmet = [r for r in results.values() if not r.meets_expectation]
    lines = ["# Claim reports", "",
             "| verdict | claims |", "|---|---|"]
    for k in ORDER:
        lines.append(f"| {BADGE[k]} | {counts.get(k, 0)} |")
    lines += [f"| ⚪ not checked (conjecture / out of scope) | "
              f"{sum(1 for r in results.values() if r.claim.expect == 'unchecked')} |", "",
              f"Planted errors refuted: **{n_refuted} / {n_planted}**. "
              f"Claims meeting their expectation: **{len(results) - len(unmet)} / {len(results)}**.",
              ""]
    if (out / "FINDINGS.md").exists():
        lines += ["**Findings** (errata, results not reproduced or undecided, readings, discovered constants): "
                  "[FINDINGS.md](FINDINGS.md)", ""]
    else:
        lines += ["**Findings**: FINDINGS.md was not generated in this run.", ""]
    broken = failed_figures({c.id: (figures or {}).get(c.id, []) for c in ordered})
    if broken:
        lines += ["Figures that could **not** be drawn:", ""]
        lines += [f"- {escape_markdown(b, in_table=False)}" for b in broken]
        lines.append("")
    if unmet:
        lines += ["Claims **not** meeting their expectation:", ""]
        lines += [f"- [{code_span(r.claim.id, in_table=False)}]({r.claim.paper}.md#"
                  f"{anchor(r.claim.id)}): {r.verdict} (expected {r.claim.expect})" for r in unmet]
        lines.append("")
    if swept is not None:
        lines += _robustness_lines(ordered, swept)
    command = "python -m verify report" + (f" --seeds {format_seeds(swept.seeds).replace(', ', ',')}"
                                           if swept is not None else "")
    lines += [f"Generated by `{command}` (seed {seed}, budget `{budget}`) with "
              f"{escape_markdown(_versions(), in_table=False)}. The same seed, budget and versions "
              "give byte-identical files, on another machine too where [RUNTIME.md](RUNTIME.md) shows "
              "the pinned numerical environment (x86-64-v3, OpenBLAS with run-time kernel selection; "
              "`verify/numenv.py`) and the same C library release; RUNTIME.md also keeps the "
              "wall-clock times. Floats are printed with "
              f"{SIGNIFICANT} significant digits (in `data/*.json`: {DATA_DIGITS}).", "",
              "## Contents", ""]
    papers = sorted({c.paper for c in ordered})
    for paper in papers:
        lines.append(f"- [{paper}]({paper}.md) ([claims in dependency order](#{paper}-claims-in-"
                     "dependency-order))")
        seen: dict[str, list] = {}
        for c in ordered:
            if c.paper == paper and c.id in sections:
                seen.setdefault(sections[c.id].module, []).append(results[c.id])
        for module, rs in sorted(seen.items(), key=lambda kv: sourcelinks.paper_order(kv[0])):
            sec = sections[rs[0].claim.id]
            tally = Counter("not checked" if r.claim.expect == "unchecked" else str(r.verdict)
                            for r in rs)
            shown = ", ".join(f"{tally[k]} {k}" for k in ORDER + ["not checked"] if tally.get(k))
            lines.append(f"  - [{sec.short}]({paper}.md#{section_anchor(sec)}): "
                         f"{escape_markdown(sec.title, in_table=False)} ({shown})")
    lines += ["", "## Reading the reports", "",
              "- **proved**: an exact symbolic identity or an interval (arb ball) certificate; "
              "**supported**: empirical evidence within the stated budget; **inconclusive**: the "
              "evidence could not decide; **refuted**: a witness shows the statement false. "
              "Erratum claims encode a misprinted statement and are expected to be refuted.",
              "- Status: theorem, heuristic, derived (a consequence stated by the checker, not "
              "the paper), empirical (a figure or experiment), conjecture, erratum, out-of-scope.",
              "- Trust tags (how well the printed statement was recovered): "
              + "; ".join(f"**\\[{k}\\]** {v}" for k, v in TRUST.items()) + ".",
              "- Each evidence row links to the code of the check; the claim links to its code, "
              "its place in the paper and its complete data (`data/<claim id>.json`).", ""]
    gloss = dict(ENGINE_GLOSSARY)
    gloss.update(sourcelinks.glossary(s.module for s in sections.values()))
    lines += ["## Glossary", ""]
    lines += ["| term | meaning |", "|---|---|"]
    lines += [f"| {code_span(k)} | {markdown_cell(v)} |" for k, v in sorted(gloss.items(),
                                                                              key=lambda kv: kv[0].lower())]
    lines.append("")
    graph = depgraph.edges(ordered)
    loops = depgraph.cycles(graph)
    lines += ["## Dependency cycles", ""]
    if loops:
        lines += ["The `uses` graph has cycles, so the order below is only a best effort:", ""]
        lines += ["- " + " ↔ ".join(code_span(c, in_table=False) for c in loop) for loop in loops]
    else:
        lines.append("None: the `uses` graph is acyclic, so every claim below comes after the "
                     "claims it uses.")
    lines.append("")
    for paper in papers:
        lines += [f"## {paper} claims in dependency order", "",
                  f"Page: [{paper}.md]({paper}.md).", "",
                  "| claim | title | status | verdict | uses |" + (
                      " seeds met | planted refuted |" if swept else ""),
                  "|---|---|---|---|---|" + ("---|---|" if swept else "")]
        for c in ordered:
            if c.paper != paper:
                continue
            r = results[c.id]
            uses = ", ".join(code_span(u) for u in c.uses)
            trust = f" \\[{c.trust}\\]" if c.trust else ""
            robust = f" {_seeds_met_cell(c, swept)} | {_planted_cell(c, swept)} |" if swept else ""
            lines.append(f"| [{code_span(c.id)}]({paper}.md#{anchor(c.id)}) | "
                         f"{markdown_cell(c.title)} | {c.status}{trust} | {status_text(r)} | "
                         f"{uses} |{robust}")
        lines.append("")
    return "\n".join(lines)


def _robustness_lines(ordered, swept: SeedSweep) -> list[str]:
    """The index's paragraph on the seed sweep: how many claims and planted errors held at every
    seed, and which did not (with the seeds)."""
    n = len(swept.seeds)
    checked = [c for c in ordered if c.expect != "unchecked"]
    robust = sum(1 for c in checked if len(swept.met(c.id)) == n)
    rows = [(c, tag, seeds) for c in checked for tag, seeds in swept.refuted(c.id)]
    lines = [f"Robustness over run seeds {format_seeds(swept.seeds)} (budget `{swept.budget}`, "
             f"claims and planted errors re-run at each seed): claims meeting their expectation at "
             f"every seed: **{robust} / {len(checked)}**; planted errors refuted at every seed: "
             f"**{sum(1 for *_, s in rows if len(s) == n)} / {len(rows)}**. Per claim: columns "
             "*seeds met* and *planted refuted* of the tables below.", ""]
    misses = [f"- [{code_span(c.id, in_table=False)}]({c.paper}.md#{anchor(c.id)}): met at "
              f"{len(swept.met(c.id))} / {n} seeds; missed at " + ", ".join(
                  f"{s} ({swept.results[c.id][s].verdict})" for s in swept.missed(c.id))
              for c in checked if swept.missed(c.id)]
    misses += [f"- [{code_span(f'{c.id}#{tag}', in_table=False)}]({c.paper}.md#{anchor(c.id)}): "
               f"refuted at {len(seeds)} / {n} seeds; not at "
               + format_seeds([s for s in swept.seeds if s not in seeds])
               for c, tag, seeds in rows if len(seeds) < n]
    if misses:
        lines += ["Not robust over these seeds:", "", *misses, ""]
    return lines


def _seeds_met_cell(claim: Claim, swept: SeedSweep) -> str:
    if claim.expect == "unchecked":
        return "—"
    met, n = len(swept.met(claim.id)), len(swept.seeds)
    return f"{met}/{n}" + ("" if met == n else " ⚠")


def _planted_cell(claim: Claim, swept: SeedSweep) -> str:
    """Seeds at which every planted error was refuted; the ones that survived a seed are named."""
    rows = swept.refuted(claim.id)
    if not rows:
        return "—"
    n = len(swept.seeds)
    every = len(swept.all_refuted(claim.id))
    weak = [f"{code_span('#' + tag)} {len(seeds)}/{n}" for tag, seeds in rows if len(seeds) < n]
    return f"{every}/{n}" + (" ⚠ (" + ", ".join(weak) + ")" if weak else "")


def numeric_warnings(environments: dict[str, str]) -> list[str]:
    """Why rounding-level digits of this report may differ from a report written elsewhere, judged by
    the processes that ran the claims (``{worker: its verify.numenv.one_line}``; none given: this
    process): one ran an environment that is not pinned, or they ran different ones."""
    ran = {w: env for w, env in environments.items() if env} or {"this process": numenv.one_line()}
    by_env: dict[str, list[str]] = {}
    for worker, env in sorted(ran.items()):
        by_env.setdefault(env, []).append(worker)
    out = [f"{', '.join(workers)} ran an environment that is not pinned: {env}"
           for env, workers in by_env.items() if not numenv.is_pinned(env)]
    if len(by_env) > 1:
        out.append(f"the workers ran {len(by_env)} different numerical environments")
    return out


def _runtime_markdown(timings, seed, budget, wall: float, environments: dict[str, str] | None = None,
                      speed: dict | None = None) -> str:
    total = sum(t for _, t, _ in timings)
    lines = ["# Run times", "", f"Seed {seed}, budget `{budget}`; {wall:.1f} s wall clock, {total:.1f} s "
             "of claim time (claims, planted errors and figures, summed over workers). This file is "
             "not deterministic.", "", f"Machine: {one_line()}.", ""]
    if speed and "error" in speed:
        lines += [f"Speed: not measured ({speed['error']}).", ""]
    elif speed:  # verify.scaling.speed_vs_reference, measured after the claims ran
        lines += [f"Speed: after the claims, the float64 lane engine ran {speed['lane_rate'] / 1e6:.0f} million "
                  f"lane-steps/s on one thread here: {speed['speed_vs_reference']:.2f}× the "
                  f"{speed['reference_lane_rate'] / 1e6:.0f} million of the machine the speed targets of "
                  "`python -m verify bench` were set on. The times below scale only roughly with it: claims "
                  "are not all bound like the lane engine.", ""]
    lines += [f"Numerical environment of this process: {numenv.one_line()} (`verify/numenv.py`).", ""]
    distinct = sorted(set((environments or {}).values()) - {""})
    if len(distinct) > 1 or (distinct and distinct[0] != numenv.one_line()):
        lines += ["| worker | numerical environment |", "|---|---|"]
        lines += [f"| `{w}` | {env} |" for w, env in sorted((environments or {}).items())]
        lines.append("")
    for warning in numeric_warnings(environments or {}):
        lines += [f"**Warning:** {warning}: values at the level of float64 rounding may differ from a "
                  "report written on another machine.", ""]
    per_worker: dict[str, list[float]] = {}
    for _, t, worker in timings:
        per_worker.setdefault(worker, []).append(t)
    if len(per_worker) > 1:  # where the time went when the claims ran on several workers
        lines += ["| worker | claims | seconds |", "|---|---|---|"]
        lines += [f"| `{w}` | {len(ts)} | {sum(ts):.1f} |" for w, ts in sorted(per_worker.items())]
        lines.append("")
    lines += ["| claim | seconds |", "|---|---|"]
    for cid, t, _ in sorted(timings, key=lambda kv: -kv[1]):
        lines.append(f"| `{cid}` | {t:.2f} |")
    return "\n".join(lines) + "\n"
