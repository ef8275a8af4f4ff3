"""The ``uses`` graph of a catalogue: resolved edges, real cycles, and a mermaid drawing.

A claim's ``uses`` names other claims by id or id prefix (see :func:`verify.claim.resolve_use`).
"Dependency order" is only meaningful when the graph is acyclic, so cycles are *found and reported*
(strongly connected components, Tarjan's algorithm) rather than silently broken, and the claims a
reader meets before their dependencies are listed (:func:`forward_references`).
"""
from __future__ import annotations

from typing import Callable, Iterable, Mapping

from .claim import Claim, resolve_use

# GitHub's mermaid renders these fills; one colour per verdict (and one for unchecked claims)
VERDICT_STYLE = {
    "proved": "fill:#2e7d32,color:#fff",
    "supported": "fill:#a5d6a7,color:#000",
    "inconclusive": "fill:#fff59d,color:#000",
    "refuted": "fill:#ef9a9a,color:#000",
    "inconsistent": "fill:#6a1b9a,color:#fff",
    "unchecked": "fill:#eeeeee,color:#000",
}


def edges(claims: Iterable[Claim]) -> dict[str, list[str]]:
    """``{claim id: [ids of the claims it uses]}``, prefixes resolved, self-references dropped."""
    claims = list(claims)
    by_id = {c.id: c for c in claims}
    out: dict[str, list[str]] = {}
    for c in claims:
        deps: list[str] = []
        for ref in c.uses:
            for d in resolve_use(ref, by_id):
                if d.id != c.id and d.id not in deps:
                    deps.append(d.id)
        out[c.id] = deps
    return out


def cycles(graph: Mapping[str, list[str]]) -> list[list[str]]:
    """Strongly connected components with more than one claim, each in graph order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]
    order = {cid: i for i, cid in enumerate(graph)}

    def visit(v: str) -> None:  # recursion depth <= number of claims (a few hundred)
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component, key=order.__getitem__))

    for v in graph:
        if v not in index:
            visit(v)
    return sorted(found, key=lambda comp: order[comp[0]])


def forward_references(ordered: list[str], graph: Mapping[str, list[str]]) -> list[tuple[str, str]]:
    """``(claim, dependency)`` pairs where the dependency comes *after* the claim in ``ordered``."""
    position = {cid: i for i, cid in enumerate(ordered)}
    return [(cid, d) for cid in ordered for d in graph.get(cid, [])
            if d in position and position[d] > position[cid]]


def _node(cid: str) -> str:
    return "n_" + "".join(ch if ch.isalnum() else "_" for ch in cid)


def mermaid(members: list[str], graph: Mapping[str, list[str]], verdict_of: Callable[[str], str],
            label_of: Callable[[str], str]) -> str:
    """A ```mermaid flowchart of ``members`` and the claims they use (arrow: used → user), one
    fill colour per verdict. Claims from elsewhere appear with their full id and a dashed border."""
    inside = set(members)
    outside = sorted({d for m in members for d in graph.get(m, []) if d not in inside})
    lines = ["```mermaid", "flowchart LR"]
    for cid in members + outside:
        text = label_of(cid).replace('"', "'")
        lines.append(f'  {_node(cid)}["{text}"]:::{verdict_of(cid)}')
    for m in members:
        for d in graph.get(m, []):
            lines.append(f"  {_node(d)} --> {_node(m)}")
    for verdict, style in VERDICT_STYLE.items():
        lines.append(f"  classDef {verdict} {style}")
    if outside:
        lines.append("  classDef elsewhere stroke-dasharray: 4 3")
        lines.append("  class " + ",".join(_node(c) for c in outside) + " elsewhere")
    lines.append("```")
    return "\n".join(lines)
