"""The memory layout of a declared step kernel's blocks (:mod:`.stepkernel`): how many lane slots a
block has, and where row r of slot b lives.

The generated code is printed with two-index rows, ``F[r, b]`` (floats) and ``N[r, b]`` (integers),
and laid out flat here: one buffer, row r of slot b at ``r * width + b``. Every access of the loop over
the slots is then the same pointer plus a constant, so LLVM proves the rows apart at compile time and
vectorises that loop with no run-time alias checks — of which it allows only a few: two 2-D arrays of
rows, even of fixed width, needed one check per pair of rows and were not vectorised beyond a few rows
(the diagonal network's GD at d = 10, even2023: about 4× faster flat, in 64-slot blocks).
"""
from __future__ import annotations

import re

_WIDTH = 64  # lane slots per block: 8 AVX-512 / 16 AVX2 vectors of float64
_BLOCK_BYTES = 32 * 1024  # a block's rows at most (but 16 slots): the size of an L1 data cache
STRIDE = 64  # coordinates per row of C in the lane-by-lane engine (.steplanewise), by default
# doubles after each coordinate's rows in the per-coordinate buffer C[j, r * width + b] (.coordloop): one
# cache line. Without it row r of coordinate j starts at (K j + r) · width · 8 bytes (K rows per
# coordinate), a multiple of 256 B for 32 slots, so with few live slots (a row's first cache line only)
# the rows a step touches fall in 16 of the 64 sets of a 32 KB, 8-way L1 data cache (in 8 of them for
# 64 slots); the extra line moves each coordinate's rows on by one set (the diagonal network's SGD at
# E1, b = 1, 32 slots: 8 lanes ~8% faster, 32 lanes ~2%; interleaved medians, the same bits)
ROW_PAD = 8


def block_width(rows: int) -> int:
    """Lane slots per block for ``rows`` rows of state (8 bytes a slot): ``_WIDTH``, halved (down to 16: two
    AVX-512 vectors; 8-slot blocks ran 2x slower, mostly in the vector loops' scalar remainders)
    while the rows of a block exceed ``_BLOCK_BYTES``, so that the state a step touches stays near
    the core: the diagonal network's GD (even2023) ran ~1.8x slower in 64-slot blocks (~0.5 MB) than
    in 16-slot ones at d = 30, and 1.2x slower in 32-slot ones at d = 10; the ℓ(xy) kernels (38
    and 62 rows) keep 64."""
    width = _WIDTH
    while width > 16 and rows * width * 8 > _BLOCK_BYTES:
        width //= 2
    return width


_ROW = re.compile(r"\b([FN])\[([^\[\],]+), (b|:)\]")


def flat_rows(source: str, width: int) -> str:
    """The generated code's ``F[r, b]`` / ``N[r, b]`` (row r, slot b; ``N[r, :]``: all slots) laid out
    flat in rows of ``width`` slots, ``r * width + b``, folded when r is a literal."""
    def flat(m):
        array, row, col = m.groups()
        start = str(int(row) * width) if row.isdigit() else f"({row}) * {width}"
        return f"{array}[{start}:{start} + {width}]" if col == ":" else f"{array}[{start} + b]"

    out = _ROW.sub(flat, source)
    if re.search(r"\b[FN]\[[^\]]*,", out):
        raise AssertionError("step kernel: a two-index row access left in the generated source")
    return out


def stride_for(d: int) -> int:
    """The lane-by-lane engine's coordinates per row of ``C`` for ``d`` coordinates: :data:`STRIDE`, or
    the next power of two (a literal of the source, so one source and compile per row length: a call
    of d = 65 … 128 coordinates compiles the 128 source once)."""
    return STRIDE if d <= STRIDE else 1 << (int(d) - 1).bit_length()
