"""The ReLU network of Ahn et al. (2023), §1 and §3: data (def1), network (def2), objective (def3),
full-batch GD with many step sizes at once, and the a.e. 3x3 Hessian.

Speed. The network f(x; a⁻, a⁺, b) = a⁻ Σ_i ReLU(−x[i] + b) + a⁺ Σ_i ReLU(x[i] + b) depends on the
sample x only through the two piecewise-linear functions of b

    F⁺(b) = Σ_{x_j > −b} (x_j + b),   F⁻(b) = Σ_{x_j < b} (b − x_j),

and their slopes N^± (numbers of active units). Sorting each sample's coordinates once and keeping
prefix sums makes F^±, N^± an O(log d) binary search per sample per step instead of O(d); the GD loop
is compiled with numba and runs the lanes (step sizes) in parallel. ``features_direct`` is the
O(d) definition, used to cross-check the fast path (tests/test_network.py).

Conventions (spec §5 E0, §7 F6/F7): ``init_var`` is "paper" (a^± ~ N(0, 1/(2d)), as printed) or
"theory" (N(0, 1/(2d²)), so A₀ = Θ(1)); ``objective`` is "mean" (1/n Σ, used throughout) or "sum"
(the printed Σ; GD on it with step η is GD on the mean with step nη).
"""
from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass

import numba
import numpy as np

from verify.bench import benchmark

D, N, LAMBDA = 200, 300, 3.0  # the paper's sizes (E0)
TEST_SIZE = 5000               # not stated in the paper (§7 F24); recorded in evidence


# --------------------------------------------------------------------------- data (def1)

@dataclass(frozen=True)
class Data:
    x: np.ndarray      # (n, d)
    y: np.ndarray      # (n,) in {-1, +1}
    j: np.ndarray      # (n,) the signal coordinate

    @property
    def n(self) -> int:
        return self.x.shape[0]

    @property
    def d(self) -> int:
        return self.x.shape[1]


def sample(rng: np.random.Generator, n: int, d: int, lam: float = LAMBDA) -> Data:
    """def1 / eq. (1): y ~ unif{±1}, j ~ unif{1..d}, ξ ~ N(0, I_d), x = λ y e_j + ξ."""
    y = rng.choice(np.array([-1.0, 1.0]), size=n)
    j = rng.integers(0, d, size=n)
    x = rng.standard_normal((n, d))
    x[np.arange(n), j] += lam * y
    return Data(x, y, j)


def init_params(rng: np.random.Generator, d: int, init_var: str = "paper") -> tuple[float, float]:
    """(a⁻₀, a⁺₀) i.i.d. N(0, s²) with s² = 1/(2d) ("paper") or 1/(2d²) ("theory"); b₀ = 0."""
    var = {"paper": 1.0 / (2 * d), "theory": 1.0 / (2 * d * d)}[init_var]
    a = rng.normal(0.0, math.sqrt(var), size=2)
    return float(a[0]), float(a[1])


# --------------------------------------------------------------------------- network (def2)

def features_direct(x: np.ndarray, b: float):
    """F⁻, F⁺, N⁻, N⁺ per sample by the definition (O(nd)); ReLU'(u) = 1{u > 0}."""
    up, um = x + b, -x + b
    return (np.maximum(um, 0).sum(1), np.maximum(up, 0).sum(1),
            (um > 0).sum(1).astype(float), (up > 0).sum(1).astype(float))


def network(x: np.ndarray, am: float, ap: float, b: float) -> np.ndarray:
    """f(x; a⁻, a⁺, b) of eq. (2) for every row of x."""
    Fm, Fp, _, _ = features_direct(x, b)
    return am * Fm + ap * Fp


def ell_logi(z):
    return np.logaddexp(0.0, -np.asarray(z, float))


def loss(data: Data, am: float, ap: float, b: float, objective: str = "mean") -> float:
    """def3: (1/n) Σ ℓ_logi(y f(x)) ("mean") or Σ ("sum")."""
    s = ell_logi(data.y * network(data.x, am, ap, b))
    return float(s.mean() if objective == "mean" else s.sum())


def gradient_direct(data: Data, am: float, ap: float, b: float, objective: str = "mean"):
    """∇L in (a⁻, a⁺, b) from the definition (a.e.), for cross-checks."""
    Fm, Fp, Nm, Np_ = features_direct(data.x, b)
    z = data.y * (am * Fm + ap * Fp)
    w = -0.5 * (1.0 - np.tanh(0.5 * z)) * data.y  # ℓ_logi'(z) y = -σ(-z) y
    scale = 1.0 / data.n if objective == "mean" else 1.0
    return scale * np.array([w @ Fm, w @ Fp, w @ (am * Nm + ap * Np_)])


def hessian(data: Data, am: float, ap: float, b: float, objective: str = "mean") -> np.ndarray:
    """The a.e. 3x3 Hessian of L (def2, def3): mean of ℓ''(z)∇f∇fᵀ + ℓ'(z) y ∇²f, where the only
    nonzero entries of ∇²f are ∂²f/∂a^±∂b = N^± (ReLU'' = 0)."""
    Fm, Fp, Nm, Np_ = features_direct(data.x, b)
    z = data.y * (am * Fm + ap * Fp)
    sig = 0.5 * (1.0 + np.tanh(0.5 * z))
    l2 = sig * (1.0 - sig)                 # ℓ_logi''(z)
    l1y = -(1.0 - sig) * data.y            # ℓ_logi'(z) y
    grad_f = np.stack([Fm, Fp, am * Nm + ap * Np_], axis=1)
    H = np.einsum("i,ij,ik->jk", l2, grad_f, grad_f)
    H[0, 2] += l1y @ Nm
    H[2, 0] += l1y @ Nm
    H[1, 2] += l1y @ Np_
    H[2, 1] += l1y @ Np_
    scale = 1.0 / data.n if objective == "mean" else 1.0
    return scale * H


def sharpness(data: Data, am: float, ap: float, b: float, objective: str = "mean") -> float:
    return float(np.linalg.eigvalsh(hessian(data, am, ap, b, objective))[-1])


def accuracy(data: Data, am: float, ap: float, b: float) -> float:
    return float(np.mean(np.sign(network(data.x, am, ap, b)) == data.y))


# --------------------------------------------------------------------------- compiled GD

@dataclass(frozen=True)
class Sorted:
    """Each sample's coordinates sorted ascending, with prefix sums (prefix[:, k] = sum of first k)."""
    s: np.ndarray
    prefix: np.ndarray
    y: np.ndarray


def presort(data: Data) -> Sorted:
    s = np.sort(data.x, axis=1)
    prefix = np.concatenate([np.zeros((data.n, 1)), np.cumsum(s, axis=1)], axis=1)
    return Sorted(np.ascontiguousarray(s), np.ascontiguousarray(prefix), data.y.copy())


@numba.njit(cache=True)
def _features_sorted(s, prefix, b, out, idx, near):
    """out[i] = (F⁻, F⁺, N⁻, N⁺) for sample i from its sorted row.

    idx[i, 0] = #{x_j < b} and idx[i, 1] = #{x_j <= -b} are kept from the previous call and moved
    by walking (b changes little per GD step, so this is O(1) amortised; a cold start or a large
    jump costs at most O(d)). near[i] = (row[m−1], row[m], row[k−1], row[k]) at those counts (±inf
    past the ends; +inf, −inf, +inf, −inf forces a walk), then the prefix sums the features need at
    those counts, prefix[i, m] and prefix[i, d] − prefix[i, k]: the walk's four tests and the features
    read these instead of the rows, so a step that moves no count touches n·6 cached floats, not 2n
    scattered rows and 2n scattered prefix sums (the rows and prefix sums of the E0 sample, ~1 MB, do
    not stay in cache). Same counts, same values as walking every time."""
    n, d = s.shape
    for i in range(n):
        m = idx[i, 0]
        k = idx[i, 1]
        if near[i, 0] >= b or near[i, 1] < b or near[i, 2] > -b or near[i, 3] <= -b:
            row = s[i]
            while m > 0 and row[m - 1] >= b:
                m -= 1
            while m < d and row[m] < b:
                m += 1
            while k > 0 and row[k - 1] > -b:
                k -= 1
            while k < d and row[k] <= -b:
                k += 1
            idx[i, 0] = m
            idx[i, 1] = k
            near[i, 0] = row[m - 1] if m > 0 else -np.inf
            near[i, 1] = row[m] if m < d else np.inf
            near[i, 2] = row[k - 1] if k > 0 else -np.inf
            near[i, 3] = row[k] if k < d else np.inf
            near[i, 4] = prefix[i, m]
            near[i, 5] = prefix[i, d] - prefix[i, k]
        out[i, 0] = m * b - near[i, 4]
        out[i, 1] = near[i, 5] + (d - k) * b
        out[i, 2] = m
        out[i, 3] = d - k


def walk_cache(n: int) -> np.ndarray:
    """The ``near`` argument of :func:`_features_sorted` before its first call (forces a walk)."""
    return np.tile(np.array([np.inf, -np.inf, np.inf, -np.inf, 0.0, 0.0]), (n, 1))


@numba.njit(cache=True)
def _gd_lane(s, prefix, y, am, ap, b, eta, steps, scale, record):
    """Full-batch GD on def3 for one lane; if ``record`` has rows, store (a⁻, a⁺, b, L) per step."""
    n, d = s.shape
    feats = np.empty((n, 4))
    idx = np.empty((n, 2), dtype=np.int64)
    idx[:, 0] = d // 2
    idx[:, 1] = d // 2
    near = np.zeros((n, 6))
    for i in range(n):  # walk_cache(n), built inside the compiled function
        near[i, 0] = np.inf
        near[i, 1] = -np.inf
        near[i, 2] = np.inf
        near[i, 3] = -np.inf
    nrec = record.shape[0]
    for t in range(steps + 1):
        _features_sorted(s, prefix, b, feats, idx, near)
        ga = 0.0
        gp = 0.0
        gb = 0.0
        L = 0.0
        for i in range(n):
            z = y[i] * (am * feats[i, 0] + ap * feats[i, 1])
            # ℓ_logi(z) = log(1 + e^{-z}), ℓ_logi'(z) = -1/(1 + e^{z}), stably: e^{-z} for z > 0, e^{z}
            # otherwise, both e^{-|z|} (negation is exact: the same call on the same argument, but
            # for z = +0, now -0, and exp(±0) = 1; a NaN z may come out with the other sign bit, and
            # stops the lane either way)
            ez = math.exp(-abs(z))
            if t < nrec:
                L += math.log1p(ez) if z > 0 else -z + math.log1p(ez)
            # ℓ' = -e^{-z}/(1 + e^{-z}) for z > 0, -1/(1 + e^{z}) otherwise, as a select instead of a
            # branch on the sign of z, which the CPU mispredicts (the same bits, up to a NaN's sign;
            # 0.78x the time per step of Figure 1's lanes)
            w = -(ez if z > 0 else 1.0) / (1.0 + ez)
            w *= y[i]
            ga += w * feats[i, 0]
            gp += w * feats[i, 1]
            gb += w * (am * feats[i, 2] + ap * feats[i, 3])
        if t < nrec:
            record[t, 0] = am
            record[t, 1] = ap
            record[t, 2] = b
            record[t, 3] = L * scale
        if t == steps:
            break
        am, ap, b = am - eta * scale * ga, ap - eta * scale * gp, b - eta * scale * gb
        if not (abs(am) < 1e150 and abs(ap) < 1e150 and abs(b) < 1e150):
            return am, ap, b, t + 1
    return am, ap, b, steps


@numba.njit(cache=True, parallel=True)
def _gd_lanes(s, prefix, y, am0, ap0, eta, steps, scale):
    L = eta.shape[0]
    out = np.empty((L, 4))
    empty = np.empty((0, 4))
    for k in numba.prange(L):
        am, ap, b, used = _gd_lane(s, prefix, y, am0[k], ap0[k], 0.0, eta[k], steps[k], scale,
                                   empty)
        out[k, 0] = am
        out[k, 1] = ap
        out[k, 2] = b
        out[k, 3] = used
    return out


def gd_final(data: Data, a0: tuple[float, float], etas, steps, objective: str = "mean"):
    """Final (a⁻, a⁺, b) for every step size (lanes run in parallel); ``steps`` per lane.

    Returns an array (lanes, 4): a⁻, a⁺, b, steps actually run (fewer = diverged)."""
    srt = _presort_cached(data)
    etas = np.asarray(etas, float)
    steps = np.broadcast_to(np.asarray(steps, np.int64), etas.shape).copy()
    am0 = np.full(etas.shape, a0[0])
    ap0 = np.full(etas.shape, a0[1])
    scale = 1.0 / data.n if objective == "mean" else 1.0
    return _gd_lanes(srt.s, srt.prefix, srt.y, am0, ap0, etas, steps, scale)


def gd_path(data: Data, a0: tuple[float, float], eta: float, steps: int,
            objective: str = "mean") -> np.ndarray:
    """Trajectory rows (a⁻_t, a⁺_t, b_t, L_t), t = 0..steps."""
    srt = _presort_cached(data)
    rec = np.full((steps + 1, 4), np.nan)
    scale = 1.0 / data.n if objective == "mean" else 1.0
    _gd_lane(srt.s, srt.prefix, srt.y, a0[0], a0[1], 0.0, float(eta), int(steps), scale, rec)
    return rec


_SORT_CACHE: dict[int, tuple[Data, Sorted]] = {}


def _presort_cached(data: Data) -> Sorted:
    hit = _SORT_CACHE.get(id(data))
    if hit is None or hit[0] is not data:
        hit = (data, presort(data))
        _SORT_CACHE[id(data)] = hit
    return hit[1]


# --------------------------------------------------------------------------- Figure-1 sweep (E1)

ETA_STAR = 8 * math.pi / D ** 2  # 8π/d² for d = 200


def fig1_grid(full: bool) -> np.ndarray:
    """E1 step sizes: a zoom on (0, 1.5e-3] spaced 5e-5 (full) / 1e-4 (quick) that brackets
    8π/d² ≈ 6.28e-4, plus a coarse part up to 0.012."""
    zoom = np.arange(2, 31) * 5e-5 if full else np.arange(2, 16) * 1e-4
    coarse = np.array([2e-3, 3e-3, 4e-3, 5e-3, 6e-3, 8e-3, 1e-2, 1.2e-2] if full
                      else [2e-3, 4e-3, 8e-3, 1.2e-2])
    return np.round(np.concatenate([zoom, coarse]), 10)


@dataclass(frozen=True)
class Sweep:
    etas: np.ndarray
    steps: np.ndarray
    final: np.ndarray      # (lanes, 4): a⁻, a⁺, b, steps run
    test_acc: np.ndarray
    a0: tuple[float, float]
    seed: int
    init_var: str
    objective: str
    n: int
    d: int
    test_size: int


def fig1_sweep(seed: int, full: bool, init_var: str = "paper", objective: str = "mean",
               n: int = N, d: int = D, total_time: float = 10.0) -> Sweep:
    """E1: one training set and one initialisation (both from ``seed``), GD for ⌈10/η⌉ steps at
    every η of the grid; final b and test accuracy on a fresh sample of TEST_SIZE points.

    Cached under the full argument list: ``fig1_sweep(s, True)`` and ``fig1_sweep(s, True,
    "paper", "mean")`` are one sweep (an lru_cache on this function keyed them apart, and Figure 1's
    checks computed the printed sweep twice)."""
    return _fig1_sweep(int(seed), bool(full), init_var, objective, int(n), int(d), float(total_time))


@functools.lru_cache(maxsize=16)
def _fig1_sweep(seed: int, full: bool, init_var: str, objective: str, n: int, d: int,
                total_time: float) -> Sweep:
    rng = np.random.default_rng(seed)
    data = sample(rng, n, d)
    a0 = init_params(rng, d, init_var)
    test = sample(rng, TEST_SIZE, d)
    mean_etas = fig1_grid(full)
    # GD on the sum with step η is GD on the mean with step nη (def3.erratum); scan the sum n times
    # lower, with the same number of steps, so both scans cover mean-loss time ηT = 10
    etas = mean_etas / n if objective == "sum" else mean_etas
    steps = np.ceil(total_time / mean_etas - 1e-9).astype(np.int64)
    final = gd_final(data, a0, etas, steps, objective)
    acc = np.array([accuracy(test, *row[:3]) if np.all(np.isfinite(row[:3])) else np.nan
                    for row in final])
    for shared in (etas, steps, final, acc):  # one cached sweep serves several checks: none may edit it
        shared.flags.writeable = False
    return Sweep(etas, steps, final, acc, a0, seed, init_var, objective, n, d, TEST_SIZE)


@benchmark("ahn2023.fig1_sweep", target=120.0, unit="s", higher_is_better=False,
           description="Figure-1 sweep at the paper's sizes (d=200, n=300, 37 step sizes in "
                       "(0, 0.012], 10/η GD steps each), wall time incl. numba compile")
def _bench_fig1_sweep() -> dict:
    started = time.perf_counter()
    sweep = _fig1_sweep.__wrapped__(0, True, "paper", "mean", N, D, 10.0)
    seconds = time.perf_counter() - started
    return {"value": seconds, "lanes": int(len(sweep.etas)), "gd_steps": int(sweep.steps.sum())}
