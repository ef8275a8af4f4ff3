"""``python -m verify audit-loss``: argument handling, exit status, and the audit's bench entries.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from ..bench import benchmark
from .common import AuditInputError
from .rendering import _text_summary
from .core import audit


# ============================================================================ CLI
def cli_main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m verify audit-loss",
                                 description="Audit a loss ℓ(s) against assumptions A1–A3 of ahn2023.")
    ap.add_argument("expr", metavar="EXPR", help="sympy expression in s for ℓ(s) (ℓ'(s) with --derivative)")
    ap.add_argument("--derivative", action="store_true", help="EXPR is ℓ'(s); ℓ is its even antiderivative")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--no-confirm", action="store_true", help="skip the empirical run of Theorem 2")
    ap.add_argument("--out", metavar="FILE.md", help="also write a markdown report (figure beside it)")
    ap.add_argument("--seed", type=int, default=0)
    try:
        args = ap.parse_args(argv)
    except SystemExit as exc:
        return 2 if exc.code else 0
    try:
        result = audit(args.expr, derivative=args.derivative, confirm=not args.no_confirm, seed=args.seed)
    except AuditInputError as exc:
        print(f"audit-loss: input rejected: {exc}", file=sys.stderr)
        return 2
    if args.out:
        result.save_markdown(args.out)
    if args.json:
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        print(_text_summary(result))
    return 0

# ============================================================================ benchmarks
@benchmark("audit.no_confirm", target=5.0, unit="s", higher_is_better=False,
           description="audit-loss without confirmation on ℓ_β (β = 3, given by its derivative)")
def bench_audit_no_confirm() -> dict:
    started = time.perf_counter()
    r = audit("Piecewise((s*(1 - 27/256*Abs(s)**3), s**2 < 16/9), (sign(s), True))", derivative=True,
              confirm=False)
    return {"value": time.perf_counter() - started, "beta": r.A2.get("beta")}


@benchmark("audit.confirm", target=30.0, unit="s", higher_is_better=False,
           description="audit-loss with the Theorem-2 confirmation run on log(2*cosh(s)) (β = 2)")
def bench_audit_confirm() -> dict:
    started = time.perf_counter()
    r = audit("log(2*cosh(s))", confirm=True)
    return {"value": time.perf_counter() - started,
            "measured_gap_exponent": (r.confirmation or {}).get("measured_gap_exponent")}
