"""Command line: ``python -m verify {list, check, report, audit-loss, bench}``.

The JSON shapes are a contract other tools script against (see ``shared/design.md``):
- ``list --json``: one object per claim: id, source, title, uses, expect.
- ``check --json``: one object per claim: id, verdict, expect, evidence[{check, verdict, summary, data}].
  Exit status 0 iff every verdict meets its expectation (and, with ``--planted``, every planted
  error is refuted).
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from .claim import BUDGETS, Status, catalogue, select
from .render import render_evidence


def _progress(enabled: bool):
    if not enabled:
        return None
    start = time.perf_counter()

    def say(message: str) -> None:
        print(f"[{time.perf_counter() - start:7.1f}s] {message}", file=sys.stderr, flush=True)

    return say


def _selected(ids: list[str], claims=None):
    claims = catalogue() if claims is None else claims
    chosen = select(claims, ids)
    if ids and not chosen:
        known = sorted({c.id.split(".")[0] for c in claims})
        raise SystemExit(f"error: no claim matches {' '.join(ids)!r} (papers: {', '.join(known)}; "
                         "try `python -m verify list`)")
    return chosen


def cmd_list(args) -> int:
    from .listing import summaries

    claims = _selected(args.ids, summaries())  # read from syntax trees: no claim module runs
    if args.json:
        json.dump([{"id": c.id, "source": str(c.source), "title": c.title, "uses": list(c.uses),
                    "expect": c.expect} for c in claims], sys.stdout, indent=1)
        print()
    else:
        for c in claims:
            print(f"{c.id:32s} {c.expect:10s} {c.title}  ({c.source.place})")
        print(f"{len(claims)} claims", file=sys.stderr)
    return 0


def cmd_check(args) -> int:
    from .parallel import make_runner, run_claims

    claims = _selected(args.ids)
    say = _progress(not args.quiet)
    rows, ok = [], True
    with make_runner(args.workers, args.scheduler) as runner:
        outcomes = run_claims(claims, runner, seed=args.seed, budget=args.budget,
                              planted=args.planted, progress=say)
        for claim, done in zip(claims, outcomes):
            result = done.result(claim)
            ok &= result.meets_expectation
            row = result.to_json()
            if args.planted and claim.expect != "unchecked":
                row["planted"] = []
                for p, (tag, ev) in zip(claim.planted, done.planted):
                    ok &= ev.status == Status.REFUTED
                    row["planted"].append({"tag": p.tag, "description": p.description,
                                           **ev.to_json()})
            rows.append(row)
            if not args.json:
                mark = "ok " if result.meets_expectation else "BAD"
                print(f"{mark} {claim.id:32s} {str(result.verdict):12s} (expect {claim.expect})")
                if args.verbose or not result.meets_expectation:
                    print(render_evidence(result.evidence))
                for p in row.get("planted", []):
                    pm = "ok " if p["verdict"] == "refuted" else "BAD"
                    print(f"    {pm} #{p['tag']:6s} {p['verdict']:12s} {p['description']}")
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        print()
    return 0 if ok else 1


def cmd_report(args) -> int:
    from .parallel import make_runner
    from .report import write_reports

    claims = _selected(args.ids)
    say = _progress(not args.quiet)
    with make_runner(args.workers, args.scheduler) as runner:
        summary = write_reports(claims, args.out, seed=args.seed, budget=args.budget, progress=say,
                                runner=runner)
    counts = ", ".join(f"{v} {k}" for k, v in sorted(summary["counts"].items()))
    print(f"wrote {args.out}/README.md and {len({c.paper for c in claims})} paper report(s): {counts}")
    if summary["unmet"]:
        print("claims not meeting their expectation: " + ", ".join(summary["unmet"]))
    if summary["planted_not_refuted"]:
        print("planted errors NOT refuted: " + ", ".join(summary["planted_not_refuted"]))
    return 0 if not summary["unmet"] and not summary["planted_not_refuted"] else 1


def cmd_bench(args) -> int:
    from .bench import run_all

    rows = run_all(args.names or None, progress=_progress(not args.json))
    if args.json:
        json.dump(rows, sys.stdout, indent=1, default=str)
        print()
    else:
        for r in rows:
            target = "" if r["target"] is None else (
                f" (target {'>=' if r['higher_is_better'] else '<='} {r['target']:g}: "
                f"{'met' if r['met'] else 'NOT met'})")
            value = r.get("value")
            shown = f"{value:.4g}" if isinstance(value, (int, float)) else str(value)
            print(f"{r['name']:44s} {shown} {r['unit']}{target}")
            extra = {k: v for k, v in r.items() if k not in
                     ("name", "unit", "target", "higher_is_better", "met", "value", "description")}
            if extra:
                print("    " + "; ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                        for k, v in extra.items()))
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
    q.add_argument("-v", "--verbose", action="store_true", help="show the evidence of every claim")
    q.set_defaults(fn=cmd_check, default_budget="quick")

    q = sub.add_parser("report", help="write markdown reports and figures")
    common(q)
    q.add_argument("--out", default="reports", help="output folder (default reports/)")
    q.set_defaults(fn=cmd_report, default_budget="full")

    q = sub.add_parser("audit-loss", help="audit a loss against assumptions A1-A3", add_help=False)
    q.add_argument("rest", nargs=argparse.REMAINDER)
    q.set_defaults(fn=None)

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
    return args.fn(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
