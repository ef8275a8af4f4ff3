"""The README's worked example must stay true: the claim is proved and its planted error refuted."""
import re
from pathlib import Path

from verify import Status, run_claim, run_planted

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_starts_with_the_two_commands():
    lines = README.read_text().splitlines()
    block = lines[lines.index("```bash") + 1: lines.index("```bash") + 3]
    assert "verify report" in block[0] and "pytest" in block[1]


def test_worked_example_runs():
    code = re.search(r"## Adding a claim.*?```python\n(.*?)```", README.read_text(), re.S).group(1)
    namespace: dict = {}
    exec(compile(code, "README example", "exec"), namespace)  # our own documentation, not user input
    claim = namespace["LEM6_IDENTITY"]
    assert run_claim(claim).verdict is Status.PROVED
    assert run_planted(claim, claim.planted[0]).status is Status.REFUTED
