"""``python -m verify audit-loss``: argument handling, exit status, and the audit's bench entries.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

from ..bench import benchmark
from . import clock
from .common import AuditInputError
from .rendering import _text_summary
from .core import audit


# ============================================================================ CLI
EXIT_STATUS = """exit status:
  0  the audit ran (whatever it found: refuted and inconclusive parts are results, not errors)
  1  only with --strict: (A1) or (A2) does not hold (proved or supported, with 1 < beta <= inf)
  2  the input was rejected (bad expression, bad option, unusable --out path); nothing was run"""

_FLAGS = {"--derivative", "--json", "--no-confirm", "--strict", "--force", "-h", "--help"}
_VALUED = {"--out", "--seed", "--budget"}


def _expression_last(argv: list[str]) -> list[str]:
    """Move the expression behind ``--`` so that a leading minus ("-s**2/2") is not an option."""
    out, expr, i = [], None, 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return out + argv[i:]
        if a in _FLAGS or (a.startswith("--") and a.split("=", 1)[0] in _VALUED and "=" in a):
            out.append(a)
        elif a in _VALUED:
            out += argv[i:i + 2]
            i += 1
        elif expr is None and (not a.startswith("-") or not a.lstrip("-")[:1].isalpha()
                               or a.lstrip("-")[:1] == "s"):
            expr = a  # a positional, or a leading minus followed by an expression ("-s**2/2", "-1")
        else:
            out.append(a)  # an unknown option: argparse reports it
        i += 1
    return out + (["--", expr] if expr is not None else [])


def _budget(text: str) -> float | None:
    v = text.strip().lower()
    if v in ("inf", "none", "unlimited"):
        return None
    try:
        x = float(v)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--budget takes seconds (a positive number) or 'inf', got {text!r}")
    if not (x > 0) or x != x:
        raise argparse.ArgumentTypeError(f"--budget must be a positive number of seconds, got {text!r}")
    return None if x == float("inf") else x


def check_out_path(path: str, force: bool) -> str | None:
    """Why ``path`` cannot take the markdown report (and the figure beside it), or None if it can.
    Checked before the audit starts, so a bad path costs nothing."""
    if not path or not path.strip():
        return "--out needs a file name (got an empty string)"
    if path.endswith(os.sep) or os.path.isdir(path):
        return f"--out {path!r} is a directory; give a file name such as {os.path.join(path, 'audit.md')!r}"
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        return f"--out: the directory {parent!r} does not exist"
    if not os.access(parent, os.W_OK):
        return f"--out: the directory {parent!r} is not writable"
    figure = os.path.splitext(path)[0] + "_gap.png"
    for target in (path, figure):
        if os.path.islink(target):
            return f"--out: {target!r} is a symbolic link; the audit does not write through links"
        if os.path.isdir(target):  # --force replaces files, never a directory
            return f"--out: {target!r} is a directory (the report needs it as a file)"
        if os.path.exists(target) and not force:
            return f"--out: {target!r} exists; pass --force to overwrite it"
    return None


def cli_main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m verify audit-loss",
                                 description="Audit a loss ℓ(s) against assumptions A1–A3 of ahn2023.",
                                 epilog=EXIT_STATUS, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("expr", metavar="EXPR", help="sympy expression in s for ℓ(s) (ℓ'(s) with --derivative)")
    ap.add_argument("--derivative", action="store_true", help="EXPR is ℓ'(s); ℓ is its even antiderivative")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--no-confirm", action="store_true", help="skip the empirical run of Theorem 2")
    ap.add_argument("--out", metavar="FILE.md", help="also write a markdown report (figure beside it)")
    ap.add_argument("--force", action="store_true", help="let --out overwrite existing files")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget", type=_budget, default=clock.DEFAULT_SECONDS, metavar="SECONDS",
                    help=f"overall time budget of the audit (default {clock.DEFAULT_SECONDS:g} s; 'inf': none); "
                    "what is unfinished then is inconclusive and says what ran out")
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 unless (A1) and (A2) hold (for scripts)")
    try:
        args = ap.parse_args(_expression_last(list(argv)))
    except SystemExit as exc:
        return 2 if exc.code else 0
    if args.out is not None:
        why = check_out_path(args.out, args.force)
        if why:
            print(f"audit-loss: {why}", file=sys.stderr)
            return 2
    try:
        result = audit(args.expr, derivative=args.derivative, confirm=not args.no_confirm, seed=args.seed,
                       budget=args.budget)
    except AuditInputError as exc:
        print(f"audit-loss: input rejected: {exc}", file=sys.stderr)
        return 2
    if args.out is not None:
        try:
            result.save_markdown(args.out)
        except OSError as exc:
            print(f"audit-loss: could not write {exc.filename or args.out!r}: {exc.strerror or exc}",
                  file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        print(_text_summary(result))
    if args.strict and not result.assumptions_hold():
        return 1
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


WORST_MAX = "Max(" + ", ".join(f"tanh(s+{i})" for i in range(25)) + ")"
WORST_NESTED = "tanh(" * 19 + "s" + ")" * 19


@benchmark("audit.worst.max25", target=30.0, unit="s", higher_is_better=False,
           description="audit-loss (default budget, with confirmation) on Max of 25 shifted tanh: never a hang")
def bench_audit_worst_max() -> dict:
    started = time.perf_counter()
    r = audit(WORST_MAX, confirm=True)
    return {"value": time.perf_counter() - started, "budget": clock.DEFAULT_SECONDS,
            "A1": r.A1["verdict"], "A2": r.A2["verdict"]}


@benchmark("audit.worst.nested_tanh", target=30.0, unit="s", higher_is_better=False,
           description="audit-loss (default budget, with confirmation) on tanh nested 19 times, as ℓ and as ℓ'")
def bench_audit_worst_nested() -> dict:
    started = time.perf_counter()
    worst = 0.0
    verdicts = {}
    for derivative in (False, True):
        t0 = time.perf_counter()
        r = audit(WORST_NESTED, derivative=derivative, confirm=True)
        worst = max(worst, time.perf_counter() - t0)
        verdicts["derivative" if derivative else "loss"] = (r.A1["verdict"], r.A2["verdict"])
    return {"value": worst, "total_seconds": time.perf_counter() - started, "verdicts": str(verdicts)}
