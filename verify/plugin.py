"""pytest plugin: every claim under ``claims/`` is a test item, and so is every planted error.

- ``<claim id>`` passes when the claim's verdict meets its expectation (``proved``/``supported``
  claims must reach it; erratum claims with ``expect="refuted"`` pass only while refuted);
  an ``inconclusive`` verdict fails and the message names the knob to turn.
- ``<claim id>#<tag>`` (a planted error) passes only when the engine refutes it.
- an ``inconsistent`` verdict (a part's evidences contradict each other) always fails.

Options: ``--verify-seed N`` (default 0) and ``--verify-budget quick|full`` (default quick).
Installed papers (entry-point group ``eos_verify.papers``) are collected too, unless the run names
explicit paths (then ``--verify-plugins`` adds them).
Enabled through ``addopts = "-p verify.plugin"`` in pyproject.toml.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from .claim import BUDGETS, Claim, Planted, Result, Status, claims_in_module, run_claim, run_planted
from .render import render_evidence

_RESULTS_KEY = pytest.StashKey[Counter]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("verify", "eos-theorem-checker claim verification")
    group.addoption("--verify-seed", type=int, default=0,
                    help="run seed; each check derives its own stream from it (default 0)")
    group.addoption("--verify-budget", choices=BUDGETS, default="quick",
                    help="quick (default, CI-sized) or full (the report's budget)")
    group.addoption("--verify-plugins", action="store_true", default=False,
                    help="also run installed papers (entry points eos_verify.papers) when paths are given")


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_RESULTS_KEY] = Counter()
    config.pluginmanager.register(_VerdictCounter(config.stash[_RESULTS_KEY]), "verify-verdict-counter")
    config.addinivalue_line("markers", "claim: a catalogue claim")
    config.addinivalue_line("markers", "planted: a planted error that must be refuted")


def _module_name(path: Path) -> str | None:
    parts = path.with_suffix("").parts
    if "claims" not in parts:
        return None
    i = len(parts) - 1 - parts[::-1].index("claims")
    return ".".join(parts[i:])


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    if (file_path.suffix == ".py" and not file_path.name.startswith("_")
            and _module_name(file_path) is not None):
        return ClaimFile.from_parent(parent, path=file_path)
    return None


class ClaimFile(pytest.File):
    def _module(self):
        import importlib

        return importlib.import_module(_module_name(self.path))

    def collect(self):
        module = self._module()
        for claim in claims_in_module(module):
            yield ClaimItem.from_parent(self, name=claim.id, claim=claim)
            for planted in claim.planted:
                yield PlantedItem.from_parent(self, name=f"{claim.id}#{planted.tag}", claim=claim,
                                              planted=planted)


class PluginPaperFile(ClaimFile):
    """A module of an installed paper (entry-point group ``eos_verify.papers``)."""

    def __init__(self, *, module, **kwargs):
        super().__init__(**kwargs)
        self.module = module

    def _module(self):
        return self.module


@pytest.hookimpl(tryfirst=True)  # before -k / -m deselection, so those select plugin claims too
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    """Installed papers join a run that was not restricted to explicit paths (``pytest``,
    ``pytest -k ...``); ``pytest tests/test_x.py`` stays restricted."""
    if config.args_source == pytest.Config.ArgsSource.ARGS and not config.getoption("--verify-plugins"):
        return
    from .discovery import plugin_modules

    seen = {Path(item.path).resolve() for item in items}
    for module in plugin_modules():
        path = Path(module.__file__).resolve()
        if path in seen:
            continue
        seen.add(path)
        items.extend(PluginPaperFile.from_parent(session, path=path, module=module).collect())


class ClaimFailure(Exception):
    pass


def _options(config: pytest.Config) -> tuple[int, str]:
    return config.getoption("--verify-seed"), config.getoption("--verify-budget")


class ClaimItem(pytest.Item):
    def __init__(self, *, claim: Claim, **kwargs):
        super().__init__(**kwargs)
        self.claim = claim
        self.add_marker(pytest.mark.claim)
        if claim.expect == "unchecked":
            self.add_marker(pytest.mark.skip(reason=f"{claim.status}: recorded, not checked"))

    def runtest(self) -> None:
        seed, budget = _options(self.config)
        result = run_claim(self.claim, seed=seed, budget=budget)
        # counted from the report (pytest_runtest_logreport), which also reaches the controller
        # of a pytest-xdist run, where this item's own process is a worker
        self.user_properties.append(("verdict", str(result.verdict)))
        if not result.meets_expectation:
            raise ClaimFailure(_explain(result, seed, budget))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ClaimFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, 0, f"claim {self.claim.id}"


class PlantedItem(pytest.Item):
    def __init__(self, *, claim: Claim, planted: Planted, **kwargs):
        super().__init__(**kwargs)
        self.claim = claim
        self.planted = planted
        self.add_marker(pytest.mark.planted)

    def runtest(self) -> None:
        seed, budget = _options(self.config)
        evidence = run_planted(self.claim, self.planted, seed=seed, budget=budget)
        if evidence.status != Status.REFUTED:
            raise ClaimFailure(
                f"planted error {self.claim.id}#{self.planted.tag} ({self.planted.description}) was NOT "
                f"refuted: the check cannot tell the wrong statement from the right one.\n"
                + render_evidence([evidence])
                + f"\n(seed {seed}, budget {budget})")

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ClaimFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, 0, f"planted error {self.claim.id}#{self.planted.tag}"


def _explain(result: Result, seed: int, budget: str) -> str:
    claim = result.claim
    head = (f"{claim.id}: verdict {result.verdict}, expected {claim.expect} "
            f"({claim.title}; {claim.source})")
    hint = ""
    if result.verdict == Status.INCONSISTENT:
        clashes = "; ".join(f"part {p.part!r}: {', '.join(p.contradiction)} disagree"
                            for p in result.parts if p.verdict == Status.INCONSISTENT)
        hint = (f"\nINCONSISTENT evidence ({clashes}): one check passes where another refutes the "
                "same part. One of them tests the wrong thing; this never meets an expectation.")
    elif result.verdict == Status.INCONCLUSIVE:
        hint = ("\nThe evidence could not decide. Try `--verify-budget full`, or the knob named "
                "in the summary above (grid, precision, step budget).")
    elif claim.expect == "refuted":
        hint = "\nThis erratum claim encodes a printed misprint; it must stay refuted."
    return f"{head}\n{render_evidence(result.evidence)}\n(seed {seed}, budget {budget}){hint}"


class _VerdictCounter:
    """Counts the claim verdicts from the test reports: serial, and under pytest-xdist, where the
    items run in workers and only their reports (with ``user_properties``) reach the controller."""

    def __init__(self, counts: Counter):
        self.counts = counts

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            verdict = next((v for k, v in report.user_properties if k == "verdict"), None)
            if verdict is not None:
                self.counts[verdict] += 1


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    counts = config.stash.get(_RESULTS_KEY, Counter())
    if counts:
        order = ["proved", "supported", "inconclusive", "refuted", "inconsistent"]
        text = ", ".join(f"{counts[k]} {k}" for k in order if counts[k])
        terminalreporter.write_line(f"claim verdicts: {text}")
