"""eos-theorem-checker: machine-checkable claims about large-step gradient descent.

The public facade: everything a claim author writes against is importable from here.

Declaring claims (``claims/<paper>/<section>.py``)
    :class:`Paper`, :class:`Claim`, :class:`Planted`, :class:`Figure`, :class:`Source`.
Writing checks
    :func:`check` (decorator: ``fn(ctx) -> Evidence`` becomes a :class:`Check`), :func:`outcome`
    (the :class:`Evidence` a check function returns), :class:`Status` (= :data:`Verdict`),
    :class:`Context` (seed, budget, ``ctx.pick(quick, full)``, ``ctx.rng()``), :func:`all_checks`, :func:`corroborate` (a check as corroboration of a part);
    check constructors in the submodules ``symbolic`` (exact identities), ``sampling``
    (:func:`forall` over hypothesis strategies, :func:`witness`, :data:`SKIP`), ``asymptotic``
    (rates and constants), ``certify`` (arb interval certificates), ``dynamics`` (GD lanes) and
    ``loss`` (:class:`Loss`).
Running
    :func:`catalogue`, :func:`select`, :func:`run_claim`, :func:`run_planted`,
    :func:`dependency_order`, :func:`derive_seed`.

The heavier names (``SKIP``, ``forall``, ``witness``, ``Loss`` and the submodules) are imported on
first use, so ``import verify`` stays light.
"""
import os as _os
from importlib import import_module as _import_module

# numba would use Intel SVML's vector exp/log/pow where the icc_rt package is installed; those do
# not round like the scalar libm the kernels are tested against, so results would depend on the
# machine. Off before numba is first imported (verify.kernelcache refuses to compile if it is on).
_os.environ.setdefault("NUMBA_DISABLE_INTEL_SVML", "1")

# OpenBLAS's kernels and numpy's SIMD dispatch pinned for this CPU class before numpy is imported, so
# that rounding-level digits do not depend on the machine (verify/numenv.py)
from . import numenv as _numenv  # noqa: E402

_numenv.pin()

from .claim import (BUDGETS, Check, Claim, all_checks, combine, corroborate, Context, Evidence, Figure,
                    Paper, PartVerdict, Planted, Result, Source, Status, Verdict, catalogue, check,
                    dependency_order, derive_seed, outcome, run_claim, run_planted, select)

_LAZY = {"SKIP": "sampling", "forall": "sampling", "witness": "sampling", "Loss": "loss"}
_SUBMODULES = ("asymptotic", "certify", "discovery", "dynamics", "loss", "sampling", "symbolic")

__all__ = ["BUDGETS", "all_checks", "combine", "corroborate", "PartVerdict", "Check", "check", "Claim", "Context", "Evidence", "Figure", "Paper",
           "Planted", "Result", "Source", "Status", "Verdict", "catalogue", "dependency_order",
           "derive_seed", "outcome", "run_claim", "run_planted", "select", *_LAZY, *_SUBMODULES]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(_import_module(f".{_LAZY[name]}", __name__), name)
    if name in _SUBMODULES:
        return _import_module(f".{name}", __name__)
    raise AttributeError(f"module 'verify' has no attribute {name!r}")
