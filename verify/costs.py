"""How long each claim took last time, remembered between runs to schedule the next one.

The worker processes take the module tasks in the order they are submitted
(:func:`verify.parallel.run_claims`), so submitting the longest first (the longest-processing-time
rule) keeps one worker from starting a 40-second claim when the other has nothing left. The costs
only order the tasks: what a claim computes does not depend on where or when it runs, so the
reports are the same bytes whatever this file holds (or if it is missing, unreadable or stale).

Stored as JSON in the kernel cache directory (:func:`verify.kernelcache.cache_dir`, so
``EOS_VERIFY_KERNEL_CACHE=off`` keeps it per process too), per budget:
``{"full": {"even2023.fact6": 27.4, ...}, "quick": {...}}``.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Mapping

from .kernelcache import cache_dir


def costs_file() -> Path:
    return cache_dir() / "claim_seconds.json"


def load(budget: str) -> dict[str, float]:
    """Seconds per claim id measured at ``budget`` by earlier runs ({} if none or unreadable)."""
    try:
        data = json.loads(costs_file().read_text())
        return {str(k): float(v) for k, v in data.get(budget, {}).items()}
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def remember(budget: str, seconds: Mapping[str, float]) -> None:
    """Merge this run's seconds per claim into the file (atomically; failures are ignored: the costs
    only order tasks)."""
    if not seconds:
        return
    path = costs_file()
    try:
        data = json.loads(path.read_text()) if path.exists() else {}
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    data.setdefault(budget, {}).update({k: round(float(v), 3) for k, v in seconds.items()})
    tmp_name = None
    try:
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as tmp:
            tmp_name = tmp.name
            json.dump(data, tmp, sort_keys=True)
        os.replace(tmp_name, path)
    except OSError:
        if tmp_name is not None:
            Path(tmp_name).unlink(missing_ok=True)
