"""The uses graph: cycles are found (not hidden), the catalogue is acyclic, so the reports'
"claims in dependency order" has no forward reference."""
from __future__ import annotations

from verify import depgraph
from verify.claim import Claim, Paper, catalogue, dependency_order

PAPER = Paper("toy", "toy paper")


def _claim(cid: str, uses: tuple = ()) -> Claim:
    return Claim(id=cid, source=PAPER.at("§1"), title=cid, statement="x", uses=uses,
                 expect="unchecked", status="conjecture")


def test_cycles_and_forward_references_are_found():
    claims = [_claim("toy.a", ("toy.b",)), _claim("toy.b", ("toy.c",)), _claim("toy.c", ("toy.a",)),
              _claim("toy.d", ("toy.e",)), _claim("toy.e.x")]
    graph = depgraph.edges(claims)
    assert graph["toy.d"] == ["toy.e.x"]  # a prefix use resolves to its members
    assert depgraph.cycles(graph) == [["toy.a", "toy.b", "toy.c"]]
    order = [c.id for c in dependency_order(claims)]
    assert depgraph.forward_references(order, graph)  # a cycle cannot be ordered
    text = depgraph.mermaid(["toy.d"], graph, lambda c: "proved", lambda c: c)
    assert text.startswith("```mermaid") and "n_toy_e_x --> n_toy_d" in text and "elsewhere" in text


def test_catalogue_is_acyclic_and_ordered():
    claims = catalogue()
    graph = depgraph.edges(claims)
    assert depgraph.cycles(graph) == []
    order = [c.id for c in dependency_order(claims)]
    assert depgraph.forward_references(order, graph) == []
