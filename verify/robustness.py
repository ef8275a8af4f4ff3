"""How verdicts depend on the run seed: the claims and their planted errors run at several seeds.

A claim's verdict at one seed is evidence about that seed's draws (training sets, initialisations,
hypothesis examples). The catalogue asks more: every claim meets its expectation, and every planted
error is refuted, at *every* seed of a sweep (``check --seeds 0-9``, ``report --seeds 0-9``).
:func:`sweep` runs the claims once per seed (each pass spread over the runner's workers, as
:func:`verify.parallel.run_claims` does) and keeps, per claim, the result at each seed and, per
planted error, its evidence at each seed. Only counts and verdicts of deterministic runs are kept,
so what is rendered from a :class:`SeedSweep` does not depend on the machine or the worker count.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from .claim import Claim, Evidence, Result, Status


@dataclass(frozen=True)
class SeedSweep:
    """Results of the same claims at each of ``seeds`` (budget ``budget``)."""

    seeds: tuple[int, ...]
    budget: str
    results: Mapping[str, Mapping[int, Result]]  # claim id -> seed -> result
    planted: Mapping[str, tuple[tuple[str, Mapping[int, Evidence]], ...]]  # id -> (tag, seed -> ev)

    def met(self, claim_id: str) -> list[int]:
        """Seeds at which the claim met its expectation."""
        return [s for s, r in self.results[claim_id].items() if r.meets_expectation]

    def missed(self, claim_id: str) -> list[int]:
        return [s for s in self.seeds if s not in self.met(claim_id)]

    def refuted(self, claim_id: str) -> list[tuple[str, list[int]]]:
        """Per planted error of the claim: its tag and the seeds at which it was refuted."""
        return [(tag, [s for s, ev in evs.items() if ev.status == Status.REFUTED])
                for tag, evs in self.planted.get(claim_id, ())]

    def all_refuted(self, claim_id: str) -> list[int]:
        """Seeds at which every planted error of the claim was refuted."""
        rows = self.refuted(claim_id)
        return [s for s in self.seeds if all(s in seeds for _, seeds in rows)]

    def first_miss(self, claim_id: str) -> Result:
        """The result at the first seed that missed the expectation (at the first seed if none)."""
        by_seed = self.results[claim_id]
        return next((r for r in by_seed.values() if not r.meets_expectation), by_seed[self.seeds[0]])

    def robust(self, claim_id: str) -> bool:
        """Met at every seed, and every planted error refuted at every seed."""
        return (len(self.met(claim_id)) == len(self.seeds)
                and all(len(seeds) == len(self.seeds) for _, seeds in self.refuted(claim_id)))

    def unmet(self) -> list[str]:
        """``<id>`` (missed at some seed) and ``<id>#<tag>`` (planted error survived some seed)."""
        out = []
        for cid in self.results:
            if self.missed(cid):
                out.append(f"{cid} (missed at seeds {format_seeds(self.missed(cid))})")
            for tag, seeds in self.refuted(cid):
                if len(seeds) < len(self.seeds):
                    survived = [s for s in self.seeds if s not in seeds]
                    out.append(f"{cid}#{tag} (not refuted at seeds {format_seeds(survived)})")
        return out


def sweep(claims: Sequence[Claim], runner, seeds: Sequence[int], budget: str, *,
          planted: bool = True, progress: Callable[[str], None] | None = None,
          done: Mapping[int, Sequence] | None = None) -> SeedSweep:
    """Run ``claims`` (and, with ``planted``, their planted errors) at every seed of ``seeds``.

    ``done`` maps a seed to the :class:`verify.parallel.ClaimOutcome` list of a run already made
    with the same claims, budget and planted errors (a report's own run): it is reused, since a
    run is a pure function of its seed."""
    from .parallel import run_claims

    outcomes = {}
    for s in seeds:
        if done is not None and s in done:
            outcomes[s] = list(done[s])
            continue
        if progress and len(seeds) > 1:
            progress(f"seed {s}")
        outcomes[s] = list(run_claims(claims, runner, seed=s, budget=budget, planted=planted,
                                      progress=progress))
    results, planted_ev = {}, {}
    for i, claim in enumerate(claims):
        results[claim.id] = {s: outcomes[s][i].result(claim) for s in seeds}
        if planted and claim.expect != "unchecked":
            planted_ev[claim.id] = tuple(
                (p.tag, {s: outcomes[s][i].planted[j][1] for s in seeds})
                for j, p in enumerate(claim.planted))
    return SeedSweep(tuple(seeds), budget, results, planted_ev)


def format_seeds(seeds: Sequence[int]) -> str:
    """``[0, 1, 2, 5]`` -> ``"0-2, 5"`` (runs of consecutive seeds as ranges)."""
    parts, run = [], []
    for s in seeds:
        if run and s == run[-1] + 1:
            run.append(s)
            continue
        if run:
            parts.append(_run_text(run))
        run = [s]
    if run:
        parts.append(_run_text(run))
    return ", ".join(parts)


def _run_text(run: list[int]) -> str:
    return str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}"
