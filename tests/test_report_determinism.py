"""Reports are byte-identical for the same seed: one cheap section regenerated twice, in two
separate processes (different hash salts; the second has also imported an unrelated local module
full of numeric literals, which hypothesis would harvest into its draws), gives the same files
apart from RUNTIME.md.

The section chosen runs hypothesis searches (``sampling.forall``) and float checks, the two
sources of run-to-run differences seen before (hypothesis counts and last float digits).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SECTION = ["ahn2023.def6", "ahn2023.fact4"]


def _generate(out: Path, hash_seed: str, preload: Path | None = None) -> subprocess.Popen:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    args = ["report", *SECTION, "--budget", "quick", "--seed", "0", "--out", str(out)]
    if preload is None:
        command = [sys.executable, "-m", "verify", *args]
    else:
        env["PYTHONPATH"] = os.pathsep.join([str(preload.parent), str(ROOT)])
        command = [sys.executable, "-c",
                   f"import sys, runpy, {preload.stem}; sys.argv = ['verify', *{args!r}]; "
                   "runpy.run_module('verify', run_name='__main__')"]
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != "RUNTIME.md"}


def test_same_seed_same_bytes_in_separate_processes(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"  # same depth: relative code links are the same
    extra = tmp_path / "lib" / "numeric_literals.py"
    extra.parent.mkdir()
    extra.write_text("VALUES = (" + ", ".join(f"{0.37 * k:.6f}, {k ** 3}" for k in range(1, 200))
                     + ")\n", encoding="utf-8")
    runs = [_generate(a, "1"), _generate(b, "2", preload=extra)]
    for run in runs:
        _, err = run.communicate(timeout=900)
        assert run.returncode == 0, err[-2000:]
    first, second = _files(a), _files(b)
    assert sorted(first) == sorted(second)
    assert any(name.startswith("data/") for name in first)
    differing = [name for name in first if first[name] != second[name]]
    assert not differing, f"files differ between two runs with seed 0: {differing}"
