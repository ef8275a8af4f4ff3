"""Static check of the engine and the catalogue: no undefined names.

A name that is not defined fails only when its line runs — a figure drawn only in the full report,
an error path — so the suite could stay green while a report says "figure failed: NameError" (it
happened: Fig. 11 left used a constant its module no longer imported). pyflakes finds these without
running anything."""
from pathlib import Path

import pytest

pyflakes_api = pytest.importorskip("pyflakes.api")
from pyflakes import messages  # noqa: E402
from pyflakes.reporter import Reporter  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
_FATAL = (messages.UndefinedName, messages.UndefinedLocal, messages.UndefinedExport)


def _sources():
    for folder in ("verify", "claims"):
        yield from sorted((ROOT / folder).rglob("*.py"))


def _waived(message) -> bool:
    """A line marked ``# noqa: F821`` declares its free name on purpose (an engine template whose
    kernel the generated module binds, verify.kernelcache.compiled_template)."""
    lines = Path(message.filename).read_text(encoding="utf-8").splitlines()
    return "noqa: F821" in lines[message.lineno - 1]


class _Collect(Reporter):
    def __init__(self):
        self.found = []

    def flake(self, message):
        if isinstance(message, _FATAL) and not _waived(message):
            self.found.append(str(message))

    def syntaxError(self, filename, msg, lineno, offset, text):
        self.found.append(f"{filename}:{lineno}: syntax error: {msg}")

    def unexpectedError(self, filename, msg):
        self.found.append(f"{filename}: {msg}")


def test_no_undefined_names_in_engine_and_catalogue():
    reporter = _Collect()
    for path in _sources():
        pyflakes_api.checkPath(str(path), reporter)
    assert not reporter.found, "\n".join(reporter.found)


# A newcomer should hold one module in their head (issue 13, item 5): ~600 lines is a lot. The
# limit is the rule's own number, not a ceiling fitted to today's largest file.
MODULE_LINES_MAX = 600


def test_modules_stay_small():
    too_long = [f"{path.relative_to(ROOT)}: {n} lines"
                for path in _sources()
                if (n := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES_MAX]
    assert not too_long, (f"modules over {MODULE_LINES_MAX} lines (split them by concept):\n"
                          + "\n".join(too_long))
