"""The claim model: claims as frozen data, checks as values, verdicts as an ordered scale.

A :class:`Claim` is declared once, at module level, under ``claims/<paper>/``. Its checks are
:class:`Check` values; running one yields :class:`Evidence`.

Roles (design.md, "Verdicts"). Every check has a ``role``:

- ``"part"`` (the default): the check tests one part of the statement;
- ``"corroboration"``: the check is extra evidence for the part named by ``of`` (the name of a
  part check of the same claim), e.g. a numeric cross-check of an exact identity::

      checks=(symbolic.identity("identity", lhs, rhs),
              corroborate(sampling.forall("numeric", ...), of="identity"))

  (``corroborate(c, of=...)`` is ``dataclasses.replace(c, role="corroboration", of=...)``).

Combining evidence (:func:`combine`): a part's verdict is its *strongest* evidence among the part
check and its corroborations — ``proved`` beats ``supported``, and a decisive answer (proved,
supported or refuted) beats ``inconclusive``; so a numeric cross-check never demotes an exact proof.
Evidences of one part that contradict each other (proved or supported vs refuted) make the part
``inconsistent``. The claim takes its weakest part's verdict on the scale
``inconsistent < refuted < inconclusive < supported < proved``. ``inconsistent`` never meets an
expectation (not even ``refuted``): it fails in pytest and makes ``check`` exit non-zero.
"""
from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field, replace
from enum import IntEnum
from typing import Any, Callable, Iterable, Mapping

import numpy as np


class Status(IntEnum):
    """Verdict scale; ordering is meaningful (a claim takes the minimum over its parts).

    ``INCONSISTENT`` is a claim/part-level verdict only (contradicting evidences); it sorts lowest
    so that one contradiction decides the claim."""

    INCONSISTENT = -1
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
                f"unknown verdict {text!r}; expected one of proved, supported, inconclusive, "
                "refuted, inconsistent"
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
    role: str = "part"  # copied from the Check that produced it
    of: str | None = None  # for a corroboration: the part check it corroborates

    def to_json(self) -> dict:
        out = {"check": self.check, "verdict": str(self.status), "summary": self.summary,
               "data": _jsonable(self.data)}
        if self.role != "part":
            out.update(role=self.role, of=self.of)
        return out


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
    role: str = "part"  # "part" of the statement, or "corroboration" of the part named by ``of``
    of: str | None = None

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"check {self.name!r}: role={self.role!r} must be one of {ROLES}")
        if (self.role == "corroboration") != (self.of is not None):
            raise ValueError(f"check {self.name!r}: a corroboration names the part it corroborates "
                             f"(of=...), and only a corroboration does (role={self.role!r}, "
                             f"of={self.of!r})")

    def __call__(self, ctx: Context) -> Evidence:
        try:
            evidence = self.run(ctx)
        except Exception as exc:  # a crashing check decides nothing; never a pass
            error = describe_exception(exc)
            evidence = Evidence(self.name, Status.INCONCLUSIVE, f"check raised {error}",
                                {"error": error})
        if (evidence.check, evidence.role, evidence.of) != (self.name, self.role, self.of):
            evidence = Evidence(self.name, evidence.status, evidence.summary, evidence.data,
                                self.role, self.of)
        return evidence


ROLES = ("part", "corroboration")


def corroborate(check: "Check", of: str) -> "Check":
    """The same check, as a corroboration of the part check named ``of`` (see the module doc)."""
    return replace(check, role="corroboration", of=of)


def describe_exception(exc: BaseException) -> str:
    """``Type: message`` on one line (the message's lines joined), whatever the message looks like.

    ``traceback.format_exception_only(...)[-1]`` is only the *last line* of a multi-line message
    (e.g. a closing parenthesis); the whole message is kept here."""
    message = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    name = type(exc).__qualname__
    return f"{name}: {message}" if message else name


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
    citation: str = field(default="", compare=False)  # the paper's full reference, for reports

    def __str__(self) -> str:
        return f"{self.paper}, {self.place}"


@dataclass(frozen=True)
class Paper:
    """A paper: its key (the claim ids' prefix), its reference, and its plugin hooks.

    ``audit_predictions``: callables ``fn(facts) -> rows`` through which the paper predicts
    quantities for a loss a user audits (``python -m verify audit-loss``); ``facts`` is a
    :class:`verify.audit.predictions.AuditFacts`, the rows :class:`~verify.audit.predictions.Prediction`
    or :class:`~verify.audit.predictions.NotCovered` values (or None: nothing to say). A hook is
    called with the audit's exact data only, so it should import its heavy modules lazily.
    """

    key: str
    citation: str
    audit_predictions: tuple[Callable[[Any], Any], ...] = field(default=(), compare=False)

    def at(self, place: str) -> Source:
        return Source(self.key, place, self.citation)


EXPECTATIONS = ("proved", "supported", "refuted", "unchecked")
STATUSES = ("theorem", "heuristic", "derived", "empirical", "conjecture", "erratum", "not-reproduced",
            "out-of-scope")


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
        parts = {c.name for c in self.checks if c.role == "part"}
        if self.checks and not parts:
            raise ValueError(f"{self.id}: every check is a corroboration; at least one must be a part")
        for c in self.checks:
            if c.role == "corroboration" and c.of not in parts:
                raise ValueError(f"{self.id}: check {c.name!r} corroborates {c.of!r}, which is not a "
                                 f"part check of this claim (parts: {sorted(parts)})")
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
class PartVerdict:
    """How one part of a statement was decided: its verdict, the deciding check, and the checks
    (part + corroborations) whose evidence was combined; ``contradiction`` lists the checks that
    disagree when the verdict is ``inconsistent``."""

    part: str
    verdict: Status
    deciding: str
    checks: tuple[str, ...]
    contradiction: tuple[str, ...] = ()

    def to_json(self) -> dict:
        out = {"part": self.part, "verdict": str(self.verdict), "deciding": self.deciding,
               "checks": list(self.checks)}
        if self.contradiction:
            out["contradiction"] = list(self.contradiction)
        return out


def combine(evidence: Iterable[Evidence]) -> tuple[Status, tuple[PartVerdict, ...]]:
    """Claim verdict from evidence with roles (module doc): strongest evidence per part, a
    contradiction inside a part is ``inconsistent``, the claim takes its weakest part."""
    evidence = list(evidence)
    groups: dict[str, list[Evidence]] = {}
    for e in evidence:
        if e.role == "part":
            groups.setdefault(e.check, []).insert(0, e)
    for e in evidence:
        if e.role != "part":
            if e.of not in groups:
                raise ValueError(f"evidence {e.check!r} corroborates {e.of!r}, which has no part evidence")
            groups[e.of].append(e)
    parts = []
    for name, group in groups.items():
        passing = [e for e in group if e.status >= Status.SUPPORTED]
        refuting = [e for e in group if e.status <= Status.REFUTED]
        if passing and refuting:
            verdict, deciding = Status.INCONSISTENT, refuting[0].check
            contradiction = tuple(e.check for e in passing + refuting)
        else:
            decisive = passing or refuting or group
            best = max(decisive, key=lambda e: e.status)  # first of the strongest: the part check
            verdict, deciding, contradiction = best.status, best.check, ()
        parts.append(PartVerdict(name, verdict, deciding, tuple(e.check for e in group), contradiction))
    if not parts:
        raise ValueError("no part evidence to combine")
    return min(p.verdict for p in parts), tuple(parts)


@dataclass(frozen=True)
class Result:
    claim: Claim
    verdict: Status
    evidence: tuple[Evidence, ...]
    seconds: float
    parts: tuple[PartVerdict, ...] = ()

    @property
    def meets_expectation(self) -> bool:
        return meets(self.claim.expect, self.verdict)

    def to_json(self) -> dict:
        out = {"id": self.claim.id, "verdict": str(self.verdict), "expect": self.claim.expect,
               "evidence": [e.to_json() for e in self.evidence]}
        if any(len(p.checks) > 1 or p.verdict == Status.INCONSISTENT for p in self.parts):
            out["parts"] = [p.to_json() for p in self.parts]
        return out


def meets(expect: str, verdict: Status) -> bool:
    if verdict == Status.INCONSISTENT:  # contradicting evidence is a defect, whatever was expected
        return False
    if expect == "unchecked":
        return True
    if expect == "refuted":
        return verdict == Status.REFUTED
    return verdict >= Status.parse(expect)


def run_claim(claim: Claim, seed: int = 0, budget: str = "quick",
              progress: Callable[[str], None] | None = None, mapper: Callable | None = None) -> Result:
    """Run every check of a claim with per-check derived seeds; verdict by :func:`combine`."""
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
    verdict, parts = combine(evidence)
    return Result(claim, verdict, tuple(evidence), time.perf_counter() - started, parts)


def run_planted(claim: Claim, planted: Planted, seed: int = 0, budget: str = "quick",
                mapper: Callable | None = None) -> Evidence:
    ctx = Context(derive_seed(seed, claim.id, "#" + planted.tag), budget, None, seed, mapper)
    return planted.check(ctx)


# --------------------------------------------------------------------------- discovery
# (finding the modules lives in verify/discovery.py: local claims/ and the eos_verify.papers plugins)

def claims_in_module(module: Any) -> list[Claim]:
    """Claims declared at module level, in declaration order."""
    out: list[Claim] = []
    for value in vars(module).values():
        if isinstance(value, Claim) and all(value is not c for c in out):
            out.append(value)
    return out


def catalogue(package: str = "claims") -> list[Claim]:
    """All claims: ``claims/<paper>/`` in module then declaration order, then installed plugins
    (entry-point group ``eos_verify.papers``); ids are unique. See :mod:`verify.discovery`."""
    from .discovery import catalogue as discovered

    return discovered(package)


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
