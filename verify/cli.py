"""Command line: ``python -m verify {list, check, report, audit-loss, bench, new-paper}``.

The JSON shapes are a contract other tools script against (see ``shared/design.md``):
- ``list --json``: one object per claim: id, source, title, uses, expect.
- ``check --json``: one object per claim: id, verdict, expect, evidence[{check, verdict, summary, data}].
  Exit status 0 iff every verdict meets its expectation (and, with ``--planted``, every planted
  error is refuted).
- ``check --seeds A-B`` runs every claim at each run seed A..B; each object then also has
  ``seeds`` ({seed: verdict}), ``seeds_met`` and ``seeds_total``; ``verdict``/``evidence`` are those
  of the first seed that missed the expectation (of seed A when none did). Exit status 0 iff every
  claim met its expectation at every seed (and every planted error was refuted at every seed).
- ``report --seeds A-B`` also runs the claims and planted errors at each seed (quick budget,
  :mod:`verify.robustness`); the index counts the seeds met per claim. Exit status 1 if a claim
  missed a seed or a planted error survived one.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import shlex
import sys
import time
import traceback

from .claim import BUDGETS, Status, select
from .render import render_evidence


def _progress(enabled: bool):
    if not enabled:
        return None
    start = time.perf_counter()

    def say(message: str) -> None:
        print(f"[{time.perf_counter() - start:7.1f}s] {message}", file=sys.stderr, flush=True)

    return say


def _discover():
    """The catalogue with its problems (:func:`verify.discovery.discover`; tests replace it, and then
    pass no ids, or ids of their own papers, which :func:`_discover_selected` does not find in claims/)."""
    from .discovery import discover

    return discover()


def _load_error(exc: ImportError | SyntaxError) -> SystemExit:
    """The clear error for a local claims package or claim module that does not load: the file and
    line that failed (the import statement, or the syntax error) and the message, no traceback."""
    from .discovery import LOCAL_PACKAGE

    if isinstance(exc, SyntaxError):
        return SystemExit(f"error: a module of the local {LOCAL_PACKAGE!r} package does not parse "
                          f"({exc.filename}, line {exc.lineno}): {exc.msg}")
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith("<")]
    where = f" ({frames[-1].filename}, line {frames[-1].lineno})" if frames else ""
    return SystemExit(f"error: the local {LOCAL_PACKAGE!r} package does not import{where}: {exc}")


def _listed():
    """The local papers' catalogue read from syntax trees (:func:`verify.listing.summaries`: no claim
    module runs) with the problems visible there — a paper folder without ``__init__.py``, a ``uses``
    entry naming no claim — or None without a local ``claims`` package (one that does not load is an
    error, not an empty catalogue)."""
    from . import discovery
    from .listing import summaries

    try:
        listed = summaries(discovery.LOCAL_PACKAGE)
        root = importlib.import_module(discovery.LOCAL_PACKAGE)
    except (ImportError, SyntaxError) as exc:
        if not discovery.package_absent(exc, discovery.LOCAL_PACKAGE):  # there, but it does not load
            raise _load_error(exc) from exc
        return None
    return discovery.Catalogue(claims=listed, problems=discovery._missing_init(root)
                               + discovery.reference_problems(listed))


def _discover_selected(ids: list[str]):
    """The catalogue as far as ``ids`` need it, or None (then the whole catalogue is discovered).

    Every claim module imports sympy, scipy or numba set-up; a ``check`` of one claim should not pay
    for all of them (~4.5 s). With ids given and no installed papers, the ids, ``uses`` and modules
    are read from the syntax trees (:func:`verify.listing.summaries`, as ``list`` does), the problems
    visible there are reported (a paper folder without ``__init__.py``; a ``uses`` entry naming no
    claim of the whole catalogue), and only the modules declaring the selected claims are imported.
    A module that does not import is then seen only when one of its claims is selected."""
    from . import discovery
    from .listing import ClaimSummary

    if not ids or discovery.entry_points():
        return None
    listed = _listed()
    if listed is None:
        return None
    chosen = select(listed.claims, ids)
    if not chosen:  # _selected says so, naming the papers there are
        return listed
    by_id: dict = {}
    for name in dict.fromkeys(c.module for c in chosen if isinstance(c, ClaimSummary)):
        for claim in discovery.claims_in_module(importlib.import_module(name)):
            by_id.setdefault(claim.id, claim)
    claims = [by_id.get(c.id) if isinstance(c, ClaimSummary) else c for c in chosen]
    if any(c is None for c in claims):  # the syntax trees and the modules disagree: trust the modules
        return None
    return discovery.Catalogue(claims=claims, problems=listed.problems)


def _selected(ids: list[str], strict: bool = False, claims=None):
    """Claims matching ``ids``. Catalogue problems (a ``claims/<key>/`` without ``__init__.py``, a
    plugin that does not import, ``uses`` naming no claim) are printed; with ``strict`` (check,
    report) they stop the run before anything is executed. ``claims`` (e.g. the syntax-tree listing
    of ``list``) skips discovery; its caller reports the problems it can see. With ids, only the
    modules declaring the selected claims are imported (:func:`_discover_selected`)."""
    if claims is None:
        try:
            found = _discover_selected(ids) or _discover()
        except (ImportError, SyntaxError) as exc:  # a claim module that does not load: where, not a traceback
            from .discovery import LOCAL_PACKAGE, package_absent

            if package_absent(exc, LOCAL_PACKAGE):
                raise
            raise _load_error(exc) from exc
        for problem in found.problems:
            print(f"{'error' if strict else 'warning'}: {problem}", file=sys.stderr)
        if strict and found.problems:
            raise SystemExit(f"error: the catalogue has {len(found.problems)} problem(s) (above); "
                             "nothing was run")
        claims = found.claims
    chosen = select(claims, ids)
    if ids and not chosen:
        known = sorted({c.id.split(".")[0] for c in claims})
        raise SystemExit(f"error: no claim matches {' '.join(ids)!r} (papers: {', '.join(known)}; "
                         "try `python -m verify list`)")
    return chosen


def cmd_list(args) -> int:
    from . import discovery

    if discovery.entry_points():  # installed papers: import them (and check the whole catalogue)
        claims = _selected(args.ids)
    else:
        # local papers read from their syntax trees: no claim module runs, so `list` stays fast;
        # the problems visible without importing are printed (as `check` refuses to run on them)
        found = _listed() or discovery.Catalogue()
        for problem in found.problems:
            print(f"warning: {problem}", file=sys.stderr)
        claims = _selected(args.ids, claims=found.claims)
    if args.json:
        json.dump([{"id": c.id, "source": str(c.source), "title": c.title, "uses": list(c.uses),
                    "expect": c.expect} for c in claims], sys.stdout, indent=1)
        print()
    else:
        for c in claims:
            print(f"{c.id:32s} {c.expect:10s} {c.title}  ({c.source.place})")
        print(f"{len(claims)} claims", file=sys.stderr)
    return 0


def parse_seeds(text: str) -> list[int]:
    """``"0-9"`` (inclusive range), ``"3"`` or ``"0,4,7"`` -> list of run seeds."""
    seeds: list[int] = []
    try:
        for piece in text.split(","):
            lo, sep, hi = piece.strip().partition("-")
            seeds += list(range(int(lo), int(hi) + 1)) if sep else [int(lo)]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seeds expects A-B, N or a comma list, got {text!r}") from None
    if not seeds or any(s < 0 for s in seeds):
        raise argparse.ArgumentTypeError(f"--seeds {text!r} selects no non-negative seed")
    return list(dict.fromkeys(seeds))


def cmd_check(args) -> int:
    from .parallel import make_runner
    from .robustness import sweep

    claims = _selected(args.ids, strict=True)
    say = _progress(not args.quiet)
    seeds = args.seeds or [args.seed]
    rows, ok = [], True
    # one pass over the catalogue per seed (parallel inside a pass); rows are assembled per claim
    with make_runner(args.workers, args.scheduler) as runner:
        swept = sweep(claims, runner, seeds, args.budget, planted=args.planted, progress=say)
    for claim in claims:
        results = swept.results[claim.id]
        met = swept.met(claim.id)
        ok &= len(met) == len(seeds)
        shown = swept.first_miss(claim.id)
        row = shown.to_json()
        if args.seeds:
            row.update(seeds={str(s): str(r.verdict) for s, r in results.items()},
                       seeds_met=len(met), seeds_total=len(seeds))
        if args.planted and claim.expect != "unchecked":
            row["planted"] = []
            for p, (tag, evs) in zip(claim.planted, swept.planted[claim.id]):
                refuted = [s for s, ev in evs.items() if ev.status == Status.REFUTED]
                ok &= len(refuted) == len(seeds)
                ev = next((e for e in evs.values() if e.status != Status.REFUTED), evs[seeds[0]])
                prow = {"tag": p.tag, "description": p.description, **ev.to_json()}
                if args.seeds:
                    prow.update(seeds_refuted=len(refuted), seeds_total=len(seeds))
                row["planted"].append(prow)
        rows.append(row)
        if not args.json:
            mark = "ok " if len(met) == len(seeds) else "BAD"
            robust = f"  seeds {len(met)}/{len(seeds)} met" if args.seeds else ""
            print(f"{mark} {claim.id:32s} {str(shown.verdict):12s} (expect {claim.expect}){robust}")
            if args.seeds and len(met) < len(seeds):
                print("    missed at seeds " + ", ".join(f"{s} ({r.verdict})" for s, r in
                                                        results.items() if s not in met))
            if args.verbose or not shown.meets_expectation:
                print(render_evidence(shown.evidence))
            for p in row.get("planted", []):
                pm = "ok " if p["verdict"] == "refuted" else "BAD"
                extra = f"  seeds {p['seeds_refuted']}/{p['seeds_total']} refuted" if args.seeds else ""
                print(f"    {pm} #{p['tag']:6s} {p['verdict']:12s} {p['description']}{extra}")
        sys.stdout.flush()
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        print()
    return 0 if ok else 1


def _machine_speed() -> dict:
    """This machine's lane-engine speed for RUNTIME.md (:func:`verify.scaling.speed_vs_reference`)."""
    from .scaling import speed_vs_reference

    return speed_vs_reference()


def cmd_report(args) -> int:
    from .parallel import make_runner
    from .report import write_reports

    claims = _selected(args.ids, strict=True)
    say = _progress(not args.quiet)
    with make_runner(args.workers, args.scheduler) as runner:
        summary = write_reports(claims, args.out, seed=args.seed, budget=args.budget, progress=say,
                                runner=runner, seeds=args.seeds, machine_speed=_machine_speed)
    counts = ", ".join(f"{v} {k}" for k, v in sorted(summary["counts"].items()))
    print(f"wrote {args.out}/README.md and {len({c.paper for c in claims})} paper report(s): {counts}")
    if summary["unmet"]:
        print("claims not meeting their expectation: " + ", ".join(summary["unmet"]))
    if summary["planted_not_refuted"]:
        print("planted errors NOT refuted: " + ", ".join(summary["planted_not_refuted"]))
    if summary["seeds_unmet"]:
        print("not robust over --seeds: " + "; ".join(summary["seeds_unmet"]))
    if summary["figures_failed"]:
        print("figures NOT drawn: " + "; ".join(summary["figures_failed"]))
    for warning in summary["numeric_warnings"]:
        print(f"warning: {warning}: rounding-level digits may differ from reports written elsewhere "
              f"(`python -m verify numenv`)", file=sys.stderr)
    return 0 if not (summary["unmet"] or summary["planted_not_refuted"] or summary["seeds_unmet"]
                     or summary["figures_failed"]) else 1


def cmd_bench(args) -> int:
    from .bench import run_all

    rows = run_all(args.names or None, progress=_progress(not args.json))
    if args.json:
        json.dump(rows, sys.stdout, indent=1, default=str)
        print()
    else:
        from .machine import one_line
        if rows:
            print(f"machine: {one_line(rows[0]['machine'])}")
        for r in rows:
            target = "" if r["target"] is None else (
                f" (target {'>=' if r['higher_is_better'] else '<='} {r['target']:g}: "
                f"{'not measured' if r['met'] is None else 'met' if r['met'] else 'NOT met'})")
            value = r.get("value")
            shown = f"{value:.4g}" if isinstance(value, (int, float)) else str(value)
            print(f"{r['name']:44s} {shown} {r['unit']}{target}")
            extra = {k: v for k, v in r.items() if k not in
                     ("name", "unit", "target", "higher_is_better", "met", "value", "description", "machine")}
            if extra:
                print("    " + "; ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                        for k, v in extra.items()))
    return 0


def cmd_new_paper(args) -> int:
    from .scaffold import new_paper

    try:
        written = new_paper(args.key, args.citation)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path}")
    print(f"next: edit claims/{args.key}/sec1.py, then `python -m verify check {args.key} --planted` "
          "(docs/adding-a-paper.md)")
    return 0


def cmd_numenv(args) -> int:
    """The numerical environment in effect, and the variables that pin it (verify/numenv.py): give
    them to processes that import numpy before verify, e.g. every Dask worker."""
    from . import numenv

    wanted = numenv.variables()
    print(f"# in this command's own process (pinned by import verify where it could be): "
          f"{numenv.one_line()}")
    if not wanted:
        print(f"# nothing to pin ({numenv._unpinnable()}): rounding-level digits may differ from "
              "reports written on x86-64-v3 machines")
    for key, value in wanted.items():
        print(f"export {key}={shlex.quote(value)}")
    return 0


def cmd_audit(argv: list[str]) -> int:
    try:
        from .audit import cli_main
    except ModuleNotFoundError as exc:  # pragma: no cover - while the audit module is absent
        print(f"error: audit-loss is not available ({exc})", file=sys.stderr)
        return 2
    return cli_main(argv)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m verify",
                                description="Symbolic-numeric checker for edge-of-stability theory.")
    sub = p.add_subparsers(dest="command", required=True)

    q = sub.add_parser("list", help="list the claims of the catalogue")
    q.add_argument("ids", nargs="*", help="claim ids or prefixes (e.g. ahn2023, ahn2023.thm2)")
    q.add_argument("--json", action="store_true")
    q.set_defaults(fn=cmd_list)

    def common(q):
        q.add_argument("ids", nargs="*", help="claim ids or prefixes (default: all)")
        q.add_argument("--seed", type=int, default=0, help="run seed (default 0)")
        q.add_argument("--budget", choices=BUDGETS, default=None)
        q.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
        q.add_argument("--workers", type=int, default=None, metavar="N",
                       help="local worker processes (default: this machine's cores); the output "
                            "does not depend on it")
        q.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="run on a dask.distributed cluster (e.g. tcp://host:8786) instead")

    q = sub.add_parser("check", help="check claims and print verdicts")
    common(q)
    q.add_argument("--json", action="store_true")
    q.add_argument("--planted", action="store_true", help="also run every planted error")
    q.add_argument("--seeds", type=parse_seeds, default=None, metavar="A-B",
                   help="run at every seed A..B (or N, or a comma list) and count, per claim, the "
                        "seeds at which it met its expectation (overrides --seed)")
    q.add_argument("-v", "--verbose", action="store_true", help="show the evidence of every claim")
    q.set_defaults(fn=cmd_check, default_budget="quick")

    q = sub.add_parser("report", help="write markdown reports and figures")
    common(q)
    q.add_argument("--out", default="reports", help="output folder (default reports/)")
    q.add_argument("--seeds", type=parse_seeds, default=None, metavar="A-B",
                   help="also run the claims and planted errors at every seed A..B (or N, or a "
                        "comma list) at the quick budget; the index gets per claim the seeds met "
                        "and the seeds at which its planted errors were refuted")
    q.set_defaults(fn=cmd_report, default_budget="full")

    q = sub.add_parser("audit-loss", help="audit a loss against assumptions A1-A3", add_help=False)
    q.add_argument("rest", nargs=argparse.REMAINDER)
    q.set_defaults(fn=None)

    q = sub.add_parser("new-paper", help="write the skeleton of a new paper under claims/KEY/")
    q.add_argument("key", help="paper key, the first part of every claim id (e.g. smith2024)")
    q.add_argument("citation", help="full reference: authors, title, venue")
    q.set_defaults(fn=cmd_new_paper)

    q = sub.add_parser("numenv", help="the numerical environment in effect, and the shell variables "
                                      "that pin it (for Dask workers)")
    q.set_defaults(fn=cmd_numenv)

    q = sub.add_parser("bench", help="run the performance benchmark")
    q.add_argument("names", nargs="*", help="benchmark name prefixes (default: all)")
    q.add_argument("--json", action="store_true")
    q.set_defaults(fn=cmd_bench)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "audit-loss":
        return cmd_audit(argv[1:])
    args = build_parser().parse_args(argv)
    if getattr(args, "budget", "unset") is None:
        args.budget = args.default_budget
    try:
        code = args.fn(args)
        sys.stdout.flush()  # inside the try: a piped stdout is block-buffered
        return code
    except BrokenPipeError:
        # the reader went away (`python -m verify list | head`): stop quietly, like other CLI
        # tools; stdout is pointed at devnull so the interpreter's final flush cannot raise again
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):  # stdout without a file descriptor
            pass
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
