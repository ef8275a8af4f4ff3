"""The claim model: claims as frozen data, checks as values, verdicts as an ordered scale.

A :class:`Claim` is declared once, at module level, under ``claims/<paper>/``. Its checks are
:class:`Check` values; running one yields :class:`Evidence`, and a claim's verdict is the weakest
status among its checks (``refuted < inconclusive < supported < proved``).
"""
from __future__ import annotations

import hashlib
import importlib
import pkgutil
import time
import traceback
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Callable, Iterable, Mapping

import numpy as np


class Status(IntEnum):
    """Verdict scale; ordering is meaningful (a claim takes the minimum over its checks)."""

    REFUTED = 0
    INCONCLUSIVE = 1
    SUPPORTED = 2
    PROVED = 3

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> "Status":
        try:
            return cls[text.upper()]
        except KeyError:
            raise ValueError(
                f"unknown verdict {text!r}; expected one of proved, supported, inconclusive, refuted"
            ) from None


Verdict = Status  # the public name used in reports and the CLI

BUDGETS = ("quick", "full")


@dataclass(frozen=True)
class Evidence:
    """What one check found. ``data`` holds only JSON-serialisable numbers, strings and lists."""

    check: str
    status: Status
    summary: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"check": self.check, "verdict": str(self.status), "summary": self.summary,
                "data": _jsonable(self.data)}


def _jsonable(value: Any) -> Any:
    """Convert numpy / mpmath / sympy scalars so evidence can be dumped as JSON deterministically."""
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if v != v or v in (float("inf"), float("-inf")):
            return str(v)
        return v
    if isinstance(value, (str, type(None))):
        return value
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    return str(value)


@dataclass
class Context:
    """Everything a check may depend on besides its own parameters: seed, budget, progress output.

    ``seed`` is already derived for this check (see :func:`derive_seed`), so two checks never share
    a random stream and re-running one check alone reproduces it.
    """

    seed: int
    budget: str = "quick"
    progress: Callable[[str], None] | None = None
    run_seed: int | None = None
    # how ``map`` runs its tasks (verify.parallel: a local pool or a Dask cluster); None: serially
    mapper: Callable[[Callable, list], list] | None = None

    def shared_seed(self, label: str) -> int:
        """A seed shared by every check (and planted error) that asks for the same ``label`` in
        this run, so that they can reuse one expensive experiment (cache keyed on it)."""
        return derive_seed(self.seed if self.run_seed is None else self.run_seed, "shared", label)

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list:
        """``[fn(item) for item in items]``, possibly on other processes or machines.

        For a check's heavy sweep split into independent tasks: ``fn`` must be a module-level
        function and each item carry everything its result depends on (its seed included), so the
        results never depend on where they ran. Runs serially when no pool is available, or when
        ``fn``/``items`` cannot be pickled."""
        items = list(items)
        if self.mapper is not None and len(items) > 1:
            import pickle
            try:
                pickle.dumps((fn, items))
            except Exception:
                return [fn(item) for item in items]
            return list(self.mapper(fn, items))
        return [fn(item) for item in items]

    def rng(self) -> np.random.Generator:
        return np.random.default_rng(self.seed)

    @property
    def full(self) -> bool:
        return self.budget == "full"

    def pick(self, quick: Any, full: Any) -> Any:
        """Choose a size by budget: ``ctx.pick(quick=8, full=24)``."""
        return full if self.full else quick

    def say(self, message: str) -> None:
        if self.progress is not None:
            self.progress(message)


def derive_seed(run_seed: int, *labels: str) -> int:
    """A stable 63-bit seed per (run seed, claim id, check name); independent of Python's hash salt."""
    text = "\x1f".join([str(int(run_seed)), *labels]).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1


@dataclass(frozen=True)
class Check:
    """A named, runnable test of one statement. ``run(ctx)`` returns :class:`Evidence`.

    Check constructors (``symbolic.identity``, ``sampling.forall``, ``asymptotic.rate`` ...) build
    these; a claim module never subclasses it.
    """

    name: str
    run: Callable[[Context], Evidence]
    kind: str = "custom"  # SYM, INT, TRAJ, RATE, PHASE, CERT

    def __call__(self, ctx: Context) -> Evidence:
        try:
            evidence = self.run(ctx)
        except Exception as exc:  # a crashing check decides nothing; never a pass
            tb = traceback.format_exception_only(type(exc), exc)[-1].strip()
            evidence = Evidence(self.name, Status.INCONCLUSIVE, f"check raised {tb}",
                                {"error": tb})
        if evidence.check != self.name:
            evidence = Evidence(self.name, evidence.status, evidence.summary, evidence.data)
        return evidence


def outcome(status: Status, summary: str, **data: Any) -> Evidence:
    """Evidence from inside a check function; :class:`Check` fills in the check name."""
    return Evidence("", status, summary, data)


def check(name: str, kind: str = "custom") -> Callable[[Callable[[Context], Evidence]], Check]:
    """Decorator turning ``fn(ctx) -> Evidence`` into a :class:`Check` (for one-off checks)."""
    def wrap(fn: Callable[[Context], Evidence]) -> Check:
        return Check(name, fn, kind)
    return wrap


def all_checks(name: str, checks: Mapping[str, Check] | Iterable[Check], kind: str | None = None) -> Check:
    """One check made of labelled sub-checks (e.g. one per loss or per part of a statement).

    The weakest status wins, and every part's verdict, summary and numbers stay in the evidence
    under ``parts`` (rendered one row per part). ``checks`` is a mapping label -> check, or an
    iterable of checks labelled by their names.
    """
    labelled = dict(checks) if isinstance(checks, Mapping) else {c.name: c for c in checks}
    if not labelled:
        raise ValueError(f"{name}: all_checks needs at least one sub-check")

    def run(ctx: Context) -> Evidence:
        parts = {label: c(ctx) for label, c in labelled.items()}
        worst = min(p.status for p in parts.values())
        label, first = next((lb, p) for lb, p in parts.items() if p.status == worst)
        data = {lb: {"verdict": str(p.status), "summary": p.summary, **dict(p.data)}
                for lb, p in parts.items()}
        return outcome(worst, f"{len(parts)} parts; weakest {label}: {first.summary}", parts=data)

    return Check(name, run, kind or next(iter(labelled.values())).kind)


@dataclass(frozen=True)
class Planted:
    """A deliberately wrong version of a claim; the engine must refute it (id ``<claim>#<tag>``)."""

    tag: str
    description: str
    check: Check


@dataclass(frozen=True)
class Source:
    paper: str
    place: str

    def __str__(self) -> str:
        return f"{self.paper}, {self.place}"


@dataclass(frozen=True)
class Paper:
    key: str
    citation: str

    def at(self, place: str) -> Source:
        return Source(self.key, place)


EXPECTATIONS = ("proved", "supported", "refuted", "unchecked")
STATUSES = ("theorem", "heuristic", "derived", "empirical", "conjecture", "erratum", "out-of-scope")


@dataclass(frozen=True)
class Claim:
    """One lemma/theorem/remark/figure statement of a paper, with the checks that test it.

    ``expect``: ``"proved"`` or ``"supported"`` (the weakest verdict that counts as a pass),
    ``"refuted"`` for erratum claims (the printed form must fail), ``"unchecked"`` for conjectures
    and out-of-scope items, which are recorded but not run.
    """

    id: str
    source: Source
    title: str
    statement: str
    checks: tuple[Check, ...] = ()
    planted: tuple[Planted, ...] = ()
    hypotheses: tuple[str, ...] = ()
    # assumption tags on the loss, read by audit-loss: A1, A2, A2inf (β = ∞), A2+ (vacuous for
    # β = ∞), A3, and the exponent tags beta<inf, beta=2
    assumes: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()
    expect: str = "supported"
    status: str = "theorem"
    trust: str | None = None
    notes: str = ""
    figures: tuple["Figure", ...] = ()

    def __post_init__(self) -> None:
        if self.expect not in EXPECTATIONS:
            raise ValueError(f"{self.id}: expect={self.expect!r} must be one of {EXPECTATIONS}")
        if self.status not in STATUSES:
            raise ValueError(f"{self.id}: status={self.status!r} must be one of {STATUSES}")
        if self.expect != "unchecked" and not self.checks:
            raise ValueError(f"{self.id}: a checked claim needs at least one check")
        names = [c.name for c in self.checks]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.id}: check names must be unique, got {names}")
        tags = [p.tag for p in self.planted]
        if len(set(tags)) != len(tags):
            raise ValueError(f"{self.id}: planted tags must be unique, got {tags}")

    @property
    def paper(self) -> str:
        return self.id.split(".", 1)[0]


@dataclass(frozen=True)
class Figure:
    """A figure attached to a claim: ``draw(ctx, path)`` writes a PNG and returns a caption."""

    name: str
    draw: Callable[[Context, str], str]


@dataclass(frozen=True)
class Result:
    claim: Claim
    verdict: Status
    evidence: tuple[Evidence, ...]
    seconds: float

    @property
    def meets_expectation(self) -> bool:
        return meets(self.claim.expect, self.verdict)

    def to_json(self) -> dict:
        return {"id": self.claim.id, "verdict": str(self.verdict), "expect": self.claim.expect,
                "evidence": [e.to_json() for e in self.evidence]}


def meets(expect: str, verdict: Status) -> bool:
    if expect == "unchecked":
        return True
    if expect == "refuted":
        return verdict == Status.REFUTED
    return verdict >= Status.parse(expect)


def run_claim(claim: Claim, seed: int = 0, budget: str = "quick",
              progress: Callable[[str], None] | None = None, mapper: Callable | None = None) -> Result:
    """Run every check of a claim with per-check derived seeds; verdict = weakest status."""
    if budget not in BUDGETS:
        raise ValueError(f"budget must be one of {BUDGETS}, got {budget!r}")
    started = time.perf_counter()
    if claim.expect == "unchecked":
        ev = Evidence("not-checked", Status.INCONCLUSIVE,
                      f"recorded, not checked (status: {claim.status})", {})
        return Result(claim, Status.INCONCLUSIVE, (ev,), 0.0)
    evidence = []
    for check in claim.checks:
        ctx = Context(derive_seed(seed, claim.id, check.name), budget, progress, seed, mapper)
        if progress:
            progress(f"{claim.id}: {check.name}")
        evidence.append(check(ctx))
    verdict = min(e.status for e in evidence)
    return Result(claim, verdict, tuple(evidence), time.perf_counter() - started)


def run_planted(claim: Claim, planted: Planted, seed: int = 0, budget: str = "quick",
                mapper: Callable | None = None) -> Evidence:
    ctx = Context(derive_seed(seed, claim.id, "#" + planted.tag), budget, None, seed, mapper)
    return planted.check(ctx)


# --------------------------------------------------------------------------- discovery

def _iter_claim_modules(package: str = "claims") -> Iterable[Any]:
    root = importlib.import_module(package)
    for info in sorted(pkgutil.walk_packages(root.__path__, package + "."), key=lambda i: i.name):
        if info.name.rsplit(".", 1)[-1].startswith("_"):
            continue
        yield importlib.import_module(info.name)


def claims_in_module(module: Any) -> list[Claim]:
    """Claims declared at module level, in declaration order."""
    out: list[Claim] = []
    for value in vars(module).values():
        if isinstance(value, Claim) and all(value is not c for c in out):
            out.append(value)
    return out


def catalogue(package: str = "claims") -> list[Claim]:
    """All claims under ``claims/``, in module order then declaration order; ids are unique."""
    claims: list[Claim] = []
    by_id: dict[str, Claim] = {}
    for module in _iter_claim_modules(package):
        for claim in claims_in_module(module):
            if claim.id in by_id and by_id[claim.id] is not claim:
                raise ValueError(f"duplicate claim id {claim.id!r} (in {module.__name__})")
            if claim.id not in by_id:
                by_id[claim.id] = claim
                claims.append(claim)
    return claims


def select(claims: Iterable[Claim], patterns: Iterable[str]) -> list[Claim]:
    """Claims whose id equals a pattern or starts with ``pattern + '.'`` (``ahn2023`` selects a paper)."""
    patterns = list(patterns)
    if not patterns:
        return list(claims)
    out = [c for c in claims
           if any(c.id == p or c.id.startswith(p.rstrip(".") + ".") for p in patterns)]
    return out


def dependency_order(claims: list[Claim]) -> list[Claim]:
    """Topological order of ``uses`` (dependencies first), stable with respect to declaration order."""
    by_id = {c.id: c for c in claims}
    done: set[str] = set()
    out: list[Claim] = []

    def visit(c: Claim, stack: tuple[str, ...]) -> None:
        if c.id in done or c.id in stack:
            return
        for u in c.uses:
            for dep in resolve_use(u, by_id):
                visit(dep, stack + (c.id,))
        done.add(c.id)
        out.append(c)

    for c in claims:
        visit(c, ())
    return out


def resolve_use(ref: str, by_id: Mapping[str, Claim]) -> list[Claim]:
    """A ``uses`` entry names a claim id or an id prefix (``ahn2023.lem6`` covers ``ahn2023.lem6.identity``)."""
    if ref in by_id:
        return [by_id[ref]]
    return [c for i, c in by_id.items() if i.startswith(ref + ".")]
