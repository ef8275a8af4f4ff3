"""Interval certificates on python-flint's arb balls: ``proved`` means *rigorously enclosed*.

Every number here is an arb ball ``[mid +/- rad]`` that is guaranteed to contain the true value
(arb's ball arithmetic is the trusted base, together with sympy's exact algebra where a Taylor
expansion is derived symbolically). Precision is a scoped resource (:func:`working_precision`);
nothing here leaves ``flint.ctx.prec`` changed.

What can be certified
---------------------
* **bounds on an interval** (:func:`prove_nonnegative`, check :func:`inequality`): ``h(s) >= 0``
  for all s in [a, b] by adaptive bisection. Each box is enclosed three ways and the enclosures are
  intersected: the natural extension ``h(X)``, the centred (mean-value) form
  ``h(c) + h'(X)(X - c)`` (``h'`` by automatic differentiation with ``arb_series`` when the
  callable supports it, see :data:`ops`), and near 0 a Taylor form with rigorous remainder
  (:class:`Taylor0`), which also closes removable singularities such as ``tanh(s)/s`` and touching
  points such as ``1 - s^2/4 - tanh(s)/s = s^2/12 + O(s^4)`` (the factor ``s^k`` is divided out, so
  a touching point at 0 is provable). An endpoint where sympy proves h = 0 exactly is closed on a
  box where h is certified monotone. Strict statements exclude s = 0 when h is undefined there
  (``tanh(s)/s < 1``), and say so in the evidence. Outcomes: ``proved``; ``refuted`` with a
  certified witness (an exact rational point, evaluated directly, whose value ball lies strictly on
  the wrong side); or ``inconclusive`` (box budget exhausted) with the unresolved sub-intervals.
  Limits: a touching point elsewhere than 0 or a sympy-exact endpoint, an identity (h = 0 on a
  whole interval), or a non-analytic touching point such as c|s|^(3/2) at 0 cannot be closed by
  balls; use sympy for those parts.
* **tails**: an interval proof covers a compact [a, b]. Rule: a check certifies exactly
  ``domain_certified`` (in its evidence). A statement on an unbounded domain is ``proved`` only when
  a tail argument is supplied (``tail=`` a :class:`~verify.claim.Check`, e.g. :func:`sympy_tail`
  or ``symbolic.truth``; :func:`nondecreasing_from` for a bound that touches at its start), and the
  claim takes the weaker of the two verdicts. Without a tail
  argument the summary says "on [a, b] only" and ``domain_certified`` is [a, b]; the claim author
  must then state the compact domain in the claim.
* **certified constants and roots** (:func:`enclose_root`, :func:`decide_constant`,
  :func:`validity_endpoint`): a root of a function on a bracket with a certified sign change at
  both ends and a certified sign of the derivative (uniqueness), enclosed by bisection on exact
  dyadic points; the largest interval [start, s*] on which an inequality holds, with s* enclosed
  (the inequality is proved on [start, lo] and fails at the exact point hi).
* **GD trajectory enclosures** for f(x, y) = l(xy) (:func:`enclose_limit_sharpness`): a centred
  form around an exact-midpoint reference trajectory, z_{t+1} in G(z_hat) + DG(Z)(z - z_hat), so
  the width follows the true sensitivity instead of the wrapping blow-up of naive ball iteration
  (which loses bits every step of the edge-of-stability phase, so 64-bit naive balls die within
  tens of steps; benchmark ``certify.trajectory_steps_per_second`` reports the centred form's
  ``max_radius``). The limit y_inf^2 is certified
  with D_{t+1} = (1 - eta^2 l'(s_t)^2) D_t, D = y^2 - x^2, plus a two-sided geometric tail bound
  proved by induction (see :func:`_tail_certificate`).

* **orbits of any smooth map** (:func:`enclose_orbit`): the same centred form for z_{t+1} = G(z_t)
  in R^n given G and DG as arb callables, or Lohner's QR form (``method="qr"``) where the error ball
  would wrap (many dimensions, neutral directions); the tail argument stays with the model (the
  mean model of ahn2023 and the diagonal linear network of even2023 prove theirs by induction on
  the last box, see claims/*/certified_*.py).

Losses: :func:`loss_derivatives` compiles (l', l'') of a :class:`verify.loss.Loss` from its sympy
forms with :func:`from_sympy` (a piecewise loss is enclosed across a breakpoint by the union of its
pieces on the parts of the ball; |s|^beta near 0 without 0/0 through :func:`halves_at_zero`). A
callable can also be written by hand with :data:`ops`, e.g. ``ops.tanh`` or
``lambda v: v * (1 + v * v).rsqrt()``.

Modules (one concept each; everything is re-exported here, so ``from verify.certify import X`` and
``certify.X`` keep working): :mod:`.balls` (precision, exact rationals, balls and boxes),
:mod:`.ops` (dual arb / arb_series operations, automatic derivatives), :mod:`.sympy_arb` (sympy ->
arb compiler), :mod:`.taylor` (Taylor forms at 0), :mod:`.bisection` (h >= 0 on an interval),
:mod:`.inequality` (check constructors for inequalities and tails), :mod:`.constants` (constants,
roots, largest valid interval), :mod:`.trajectory` (GD trajectory enclosures, limiting sharpness), :mod:`.orbit`
(centred-form orbit enclosure of any smooth map in R^n),
:mod:`.losses` (losses compiled from their sympy forms, the exact EoS start), :mod:`.benchmarks`.

Functions are Python callables on arb balls. Write them with the dual operations in :data:`ops`
(``ops.tanh(s)`` ...) so that they also accept ``arb_series`` (automatic derivatives); callables
written with arb methods (``s.tanh()``) work too, with the natural extension only (or pass the
derivative explicitly). :func:`from_sympy` turns a sympy expression in one variable into such a
callable by walking the expression tree with a whitelist of functions (no ``eval``).
"""

from __future__ import annotations

from .balls import (  # noqa: F401
    _bounds, _box, _f, _q2arb, _qstr, ArbFn, ball, DEFAULT_PREC, exact, working_precision,
)
from .ops import (  # noqa: F401
    _abs, _acosh, _asinh, _atanh, _cosh, _cot, _coth, _csc, _csch, _log1p, _normal_cdf,
    _normal_pdf, _sec, _sech, _series, _sinh, _tanh, derivative_enclosure, NoSeries, ops,
    supports_series,
)
from .sympy_arb import (  # noqa: F401
    _and3, _branch_domains, _clip, _const_part, _max2, _min2, _or3, _piecewise, _positive3, _rpow,
    _sign, _SYMPY_UNARY, from_sympy, halves_at_zero, join_at_zero,
)
from .taylor import (  # noqa: F401
    _coef, _is_exact_zero, Taylor0, taylor_at_zero,
)
from .bisection import (  # noqa: F401
    _enclose, _point_value, BoundResult, prove_nonnegative,
)
from .inequality import (  # noqa: F401
    _as_callable, _auto_taylor, _claim_text, _difference, _exact_zeros, _var_of, inequality,
    nondecreasing_from, nonnegative, sympy_tail,
)
from .constants import (  # noqa: F401
    _decide, _dyadic_between, _parse_claim, _REL, constant, decide_constant, enclose_root,
    EndpointResult, root_bound, RootResult, validity_endpoint, validity_range,
)
from .trajectory import (  # noqa: F401
    _derivs, _enclose_limit_sharpness, _hkey, _SHARPNESS_CACHE, _tail_certificate,
    enclose_limit_sharpness, EOS, limit_sharpness, SharpnessResult,
)
from .losses import (  # noqa: F401
    eos_start, loss_derivatives, ScaledSqrt,
)
from .orbit import (  # noqa: F401
    enclose_orbit, OrbitResult,
)
from .benchmarks import (  # noqa: F401
    _bench_ex1, _bench_limit, _bench_steps,
)
