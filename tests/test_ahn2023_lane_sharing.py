"""The ahn2023 sweeps run lane by lane and share lanes between claims (claims/ahn2023/_losses.py):
the results must be those of one engine call over the whole grid, bit for bit, whichever claim (and
observer set) ran a lane first."""
import dataclasses

import numpy as np
import pytest

from verify import dynamics
from claims.ahn2023 import _losses
from claims.ahn2023._losses import MAX_STEPS, XT, YT, k_grid, loss_by_key, run_by_lane


def _same(a: dynamics.Lanes, b: dynamics.Lanes) -> None:
    for f in dataclasses.fields(dynamics.Lanes):
        if f.name != "notes":
            assert np.array_equal(getattr(a, f.name), getattr(b, f.name), equal_nan=True), f.name
            assert getattr(a, f.name).dtype == getattr(b, f.name).dtype, f.name
    assert a.notes == b.notes


def _grid(key="beta=3/2", ks=k_grid(1.0, 2.5, 0.5)):
    eta = np.exp(-np.asarray(ks, float))
    x0, y0 = dynamics.normalised_start(eta, 3.0, XT, YT)
    return loss_by_key(key), x0, y0, eta


@pytest.mark.parametrize("observers", [
    {}, {"contraction": True},
    {"qs_window": "K", "qs_shift": 0.0}, {"qs_window": "K", "qs_shift": 0.0, "beta": 2.0},
    {"qs_window": (0.0, 1 / 3), "qs_shift": "eta"},
])
def test_by_lane_equals_one_call(observers):
    loss, x0, y0, eta = _grid()
    kw = dict(observers)
    if kw.get("qs_window") == "K":
        kw["qs_window"] = (10.0 * eta**3.0, 0.5)
    if isinstance(kw.get("qs_shift"), str):
        kw["qs_shift"] = eta**3.0
    whole = dynamics.run(loss, x0, y0, eta, max_steps=MAX_STEPS, rtol=1e-13, **kw)
    _same(run_by_lane(loss, x0, y0, eta, max_steps=MAX_STEPS, rtol=1e-13, **kw), whole)
    _same(run_by_lane(loss, x0, y0, eta, max_steps=MAX_STEPS, rtol=1e-13, share="test", **kw), whole)


@pytest.mark.parametrize("first", [{"contraction": True}, {"qs_window": "K", "qs_shift": 0.0, "beta": 1.5}])
def test_plain_lane_from_a_run_with_observers(monkeypatch, first):
    """A lane asked for without observers, served from a cached run with them, is a fresh plain run."""
    monkeypatch.setattr(_losses, "_LANE_RUNS", {})
    loss, x0, y0, eta = _grid("rsym")
    kw = dict(first)
    if kw.get("qs_window") == "K":
        kw["qs_window"] = (10.0 * eta**2.0, 0.5)
    run_by_lane(loss, x0, y0, eta, max_steps=MAX_STEPS, rtol=1e-13, share="rsym", **kw)
    calls = []
    monkeypatch.setattr(_losses.dynamics, "run", lambda *a, **k: calls.append(1))
    shared = run_by_lane(loss, x0, y0, eta, max_steps=MAX_STEPS, rtol=1e-13, share="rsym")
    monkeypatch.undo()
    assert not calls  # every lane came from the cache
    _same(shared, dynamics.run(loss, x0, y0, eta, max_steps=MAX_STEPS, rtol=1e-13))


def test_observer_slots_equal_separate_runs():
    """Every window of one multi-observer pass is what a separate engine run with it records."""
    from claims.ahn2023._lane_observers import run_observed

    loss, x0, y0, eta = _grid("beta=3/2", (1.5, 2.0))
    for i in range(len(eta)):
        windows = [(10.0 * eta[i]**3.0, 0.5, 0.0, None), (10.0 * eta[i]**3.0, 0.5, 0.0, 2.0),
                   (0.0, 1 / 3, eta[i]**3.0, None), (10.0 * eta[i]**3.0, 0.5, 0.0, 1.6875)]
        for track in (False, True):
            got = run_observed(loss, x0[i], y0[i], eta[i], windows, contraction=track, max_steps=MAX_STEPS)
            for (lo, hi, sh, b), r in zip(windows, got):
                _same(r, dynamics.run(loss, x0[i:i + 1], y0[i:i + 1], eta[i:i + 1], max_steps=MAX_STEPS,
                                      qs_window=(np.array([lo]), hi), qs_shift=np.array([sh]), beta=b,
                                      contraction=track))


def test_lanes_with_declared_observers_equal_separate_runs(monkeypatch):
    """lanes() with observers declared by other claims (one pass records them all) gives each
    observer's sweep as its own run would, whichever is asked first."""
    monkeypatch.setattr(_losses, "_LANE_RUNS", {})
    monkeypatch.setattr(_losses, "_OBSERVED", {})
    _losses.lanes.cache_clear()
    ks, key = k_grid(1.0, 2.0, 0.5), "beta=3"
    specs = [{"qs": (10.0, 1.5, 0.5, 0.0)}, {"qs": (10.0, 1.5, 0.5, 0.0), "qs_beta": 6.0},
             {"qs": (0.0, 1.5, 1 / 6, 1.0)}, {"contraction": True}]
    for spec in specs:
        _losses.observe(key, 3.0, **spec)
    got = [_losses.lanes(key, ks, 3.0, **spec) for spec in [{}] + specs]
    _losses.lanes.cache_clear()
    loss = loss_by_key(key)
    eta = np.exp(-np.asarray(ks, float))
    x0, y0 = dynamics.normalised_start(eta, 3.0, XT, YT)
    for spec, r in zip([{}] + specs, got):
        kw = {"contraction": spec.get("contraction", False)}
        if "qs" in spec:
            K, e, hi, shift = spec["qs"]
            kw.update(qs_window=(K * eta**e, hi), qs_shift=shift * eta**e, beta=spec.get("qs_beta"))
        _same(r, dynamics.run(loss, x0, y0, eta, max_steps=MAX_STEPS, rtol=1e-13, **kw))


def test_theorem2_modules_share_one_worker_task():
    """The modules reading the Theorem-2 sweeps declare one SHARED_RUNS label, so a report puts
    their claims in one worker task (verify.parallel) and computes the sweeps once."""
    from verify.parallel import ClaimTask, _module_groups

    ids = ("ahn2023.prop4", "ahn2023.fig11.left", "ahn2023.thm2", "ahn2023.thm2.constant", "ahn2023.fig1.seeds")
    groups = _module_groups([ClaimTask(i, 0, "full") for i in ids], 1)
    together = next(g for g in groups if any(t.claim_id == "ahn2023.prop4" for t in g))
    assert {t.claim_id for t in together} == set(ids[:4])
