"""Gradient descent on f(x, y) = ℓ(xy), many lanes at once, with high-precision cross-checks.

The map is G_η(x, y) = (x − η ℓ'(xy) y, y − η ℓ'(xy) x) (Ahn et al. 2023, eq. (2)). One call runs a
batch of *lanes* (step size × initialisation) independently: every lane's result depends only on its
own (x₀, y₀, η), never on the other lanes or their order.

Modules (one path each; every public name is re-exported here):

* :mod:`.outcomes` — :class:`Outcome` (converged / frozen / diverged / budget), the result records
  :class:`Lanes` (float64) and :class:`HPLane` (high precision);
* :mod:`.lanes` — :func:`run`, the float64 engine (numba, numpy fallback; ``parallel`` threads),
  :func:`trajectory`, :func:`normalised_start`;
* :mod:`.stepitems` / :mod:`.stepkernel` / :mod:`.stepobservers` / :mod:`.stepprint` — declared blocked step
  kernels: a GD map in named intermediates (compiled calls such as ℓ', the chain rule of a composite
  objective), per-step observers (scalar-pass updates, windows, samples at 2^j), carried state, a
  prelude and scalar checkpoints before the stop rule, generated as numba source; lanes in
  structure-of-arrays blocks, the loop over lanes vectorised (SIMD), every lane bit-identical to a
  lone scalar loop; :mod:`.coordloop` (coordinates j < d in loops; :mod:`.coordrows` their data pass),
  :mod:`.steplanewise` (printed lane by lane), :mod:`.stepseries` (a series whose terms past those its
  sums can feel are skipped per step);
* :mod:`.lxy` — GD on ℓ(xy) declared with it: the map (eq. (2)), t̄, bounces, t₀ (def. 7), the D
  product, the quasi-static ratio, the eq. (15) contraction, the remaining-drop stop rule;
* :mod:`.ddarith` — double-double arithmetic (two_sum, dd_add, …, dd_exp, dd_log, dd_tanh, dd_split);
* :mod:`.ddpath` — :func:`run_dd`, the map in compiled double-double (~31.9 digits);
* :mod:`.highprec` — :func:`run_hp` (arb, or mpmath) at ≥ 30 digits, :func:`naive_mpmath_gd`,
  :func:`cross_check` / :class:`CrossCheck`;
* :mod:`.generic` — GD / minibatch SGD on any sympy objective in named parameters (``generic.run``,
  ``generic.Objective``, ``generic.cross_check``): the engine a new model uses; :mod:`.genericstep`
  declares its full-batch GD as a step kernel (the sympy gradient, the float64-floor and stall rules);
* :mod:`.benchmarks` — ``dynamics.float64_lanes``, ``dynamics.high_precision``, ``dynamics.generic_lanes``
  (``scale.lanes_two_threads`` in :mod:`verify.scaling`).
"""
from .ddarith import (dd_add, dd_div, dd_exp, dd_expm1_small, dd_log, dd_mul, dd_mul_d, dd_pow, dd_pow0, dd_powi,
                      dd_split, dd_sqrt, dd_sub, dd_tanh, quick_two_sum, two_prod, two_sum)
from .ddpath import run_dd
from .highprec import CrossCheck, cross_check, naive_mpmath_gd, run_hp
from .lanes import normalised_start, run, trajectory
from .outcomes import HPLane, Lanes, Outcome
from . import benchmarks  # noqa: F401  (registers the bench entries)

__all__ = ["CrossCheck", "HPLane", "Lanes", "Outcome", "cross_check", "dd_add", "dd_div", "dd_exp",
           "dd_expm1_small", "dd_log", "dd_mul", "dd_mul_d", "dd_pow", "dd_pow0", "dd_powi", "dd_split", "dd_sqrt", "dd_sub",
           "dd_tanh", "naive_mpmath_gd", "normalised_start", "quick_two_sum", "run", "run_dd", "run_hp",
           "trajectory", "two_prod", "two_sum"]
