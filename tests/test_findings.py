"""verify.findings: FINDINGS.md is built from claim status/expect/uses/notes and evidence data keys only."""
from __future__ import annotations

import math

import pytest

from verify.claim import Claim, Check, Paper, Status, catalogue, outcome, run_claim, select
from verify.extrapolate import limit
from verify.findings import findings_markdown

TOY = Paper("toy2024", "A toy paper")


def _const(status: Status, **data) -> Check:
    return Check("c", lambda ctx: outcome(status, f"measured {data}", **data))


def _toy_results():
    claims = [
        Claim("toy2024.lem1", TOY.at("Lemma 1"), "Corrected bound", "x <= 2", checks=(_const(Status.PROVED),),
              expect="proved"),
        Claim("toy2024.lem1.erratum", TOY.at("Lemma 1"), "Printed bound x <= 1", "x <= 1",
              checks=(_const(Status.REFUTED, witness={"x": 1.5}),), expect="refuted", status="erratum"),
        Claim("toy2024.thm1", TOY.at("Theorem 1"), "Uses the lemma", "y", uses=("toy2024.lem1",),
              checks=(_const(Status.SUPPORTED, slack_min=0.01, slack_max=0.2, slack_at="n=3", tight=False,
                             loose_factor=5.0, slack_quantity="value/bound"),)),
        Claim("toy2024.fig1", TOY.at("Figure 1"), "Narrow: holds up to 20 %", "z", checks=(_const(Status.SUPPORTED),)),
        Claim("toy2024.fig1.printed", TOY.at("Figure 1"), "Not reproduced: holds up to 5 %", "z'",
              uses=("toy2024.fig1",), checks=(_const(Status.REFUTED, measured=0.12),), expect="refuted",
              status="not-reproduced", notes="Reading (fixed before the data): 'close' = within 5 %. Other text."),
        Claim("toy2024.thm1.constant", TOY.at("Theorem 1"), "Its constant", "C",
              checks=(_const(Status.SUPPORTED, parts={"a": {"leading_constant": 1.5, "leading_constant_stderr": 1e-7,
                                                            "quantity": "gap/eta"}}),)),
        Claim("toy2024.fig2", TOY.at("Figure 2"), "Measured to resolution", "r",
              checks=(_const(Status.SUPPORTED, printed_reading={"statement": "bend at 8", "verdict": "undecided",
                                                                "to_decide": "about 90 data sets"}),)),
        Claim("toy2024.fig3", TOY.at("Figure 3"), "Decided", "r",
              checks=(_const(Status.SUPPORTED, printed_reading={"statement": "bend at 9", "verdict": "inside"}),)),
        Claim("toy2024.thm1.law", TOY.at("Theorem 1"), "Discovered: C = 3/2", "C = 3/2", status="conjecture",
              checks=(_const(Status.SUPPORTED, leading_constant=1.5000001, leading_constant_stderr=1e-7,
                             predicted=1.5, agreeing_digits=7.2),)),
    ]
    return [run_claim(c) for c in claims]


def test_all_five_parts_are_filled_from_the_data():
    text = findings_markdown(_toy_results(), seed=0, budget="quick")
    assert text.startswith("# Findings") and "## toy2024" in text
    errata = text.split("### Errata")[1].split("###")[0]
    assert "[`toy2024.lem1.erratum`](toy2024.md#toy2024lem1erratum)" in errata
    assert "`x <= 1`" in errata and "Corrected bound" in errata            # printed text and correction
    assert "x=1.5" in errata                                               # witness
    assert "[`toy2024.thm1`](toy2024.md#toy2024thm1)" in errata            # impact: a claim that uses it
    nr = text.split("### Not reproduced")[1].split("###")[0]
    assert "toy2024.fig1.printed" in nr and "Narrow: holds up to 20 %" in nr
    undecided = text.split("### Undecided")[1].split("###")[0]
    assert "toy2024.fig2" in undecided and "bend at 8" in undecided and "about 90 data sets" in undecided
    assert "toy2024.fig3" not in undecided                                 # decided readings are not listed
    readings = text.split("### Readings chosen")[1].split("###")[0]
    assert "'close' = within 5 %" in readings and "Other text" not in readings
    consts = text.split("### Discovered constants and conjectures")[1].split("###")[0]
    assert "1.5000001" in consts and "| 1.5 |" in consts and "gap/eta" in consts
    tight = text.split("### Tightness of the inequalities")[1]
    assert "loose (by ≥ 5×)" in tight and "[0.01, 0.2]" in tight


def test_deterministic_and_paper_agnostic():
    assert findings_markdown(_toy_results()) == findings_markdown(_toy_results())
    import verify.findings as f
    import inspect
    src = inspect.getsource(f)
    assert "ahn2023" not in src and "even2023" not in src


def test_empty_selection_says_none():
    r = [run_claim(Claim("toy2024.def1", TOY.at("Def 1"), "A definition", "d", checks=(_const(Status.PROVED),),
                         expect="proved"))]
    text = findings_markdown(r)
    assert text.count("None in this selection.") == 5 and "None stated in this selection." in text


def test_real_claims_build():
    """A small selection of catalogue claims (an erratum and a not-reproduced finding; fast ones)."""
    claims = select(catalogue(), ["ahn2023.fig9"])
    text = findings_markdown([run_claim(c) for c in claims])
    assert "ahn2023.fig9.gf_printed" in text.split("### Not reproduced")[1].split("###")[0]


def test_limit_extrapolates_geometric_corrections_with_an_error_bar():
    seq = [1.5 + 0.3 * 0.5 ** k - 0.2 * 0.25 ** k for k in range(8)]
    lim = limit(seq)
    assert abs(lim.value - 1.5) < 1e-10 and lim.stderr < 1e-8 and lim.last == seq[-1]
    with pytest.raises(ValueError):
        limit([1.0, math.nan, 2.0, 3.0])
    with pytest.raises(ValueError):
        limit([1.0, 2.0])

