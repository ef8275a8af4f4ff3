"""The environment for tests that start ``python -m verify`` / ``pytest`` in a scratch folder.

The project root goes on PYTHONPATH, as the editable install would put it, so these tests also run
from a checkout that is not the installed one (a git worktree, a CI clone installed elsewhere). The
scratch folder is the subprocess's working directory, so its own ``claims`` package comes first."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def subprocess_env() -> dict:
    path = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
