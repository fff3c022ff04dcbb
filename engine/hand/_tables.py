"""Per-suit distance tables for hand evaluation, built by code and cached on disk.

``suit[idx, 2*k + p]`` (uint8, shape ``(5**9, 12)``) is the fewest tiles that must be
added to a suit holding the counts whose base-5 number is ``idx`` (``idx = sum(c[i] *
5**i)``, ``c[i]`` in 0..4 for the suit's ranks 1..9) so that a sub-multiset of it forms
``k`` sets (0..5; 顺子 or 刻子) plus ``p`` pairs (0 or 1). Tiles not used are surplus (they
will be discarded). ``honor[idx, 2*k + p]`` (shape ``(5**7, 12)``) is the same for the
seven honors, which form no sequences.

The tables are filled layer by layer: a target of ``k`` sets is one set ``m`` plus a
target of ``k - 1`` sets, and taking ``min(m, c)`` of the held tiles for ``m`` is never
worse than any other assignment, so::

    d[k][p](c) = min over sets m of  sum(max(m - c, 0)) + d[k-1][p](max(c - m, 0))
    d[0][1](c) = min over kinds i of max(2 - c[i], 0),   d[0][0](c) = 0

``buda[mask, t]`` (uint8, ``(512, 4)``) is, for the set ``mask`` of ranks held in one
suit, the most held ranks a 不搭 target of ``t`` ranks with pairwise gaps of at least 3
can keep (used by the 十三不搭 shape).

**Classes.** The 12-entry rows take few distinct values (152 for the suits, 83 for the
honors), and the set of rows obtained by min-plus combining any of them is closed at a
few hundred vectors. The kernels therefore work on class ids: ``suit_cls[idx]`` (uint8:
the suit classes are numbered first, so the large table is 2 MB) and ``honor_cls[idx]``
(uint16) name a row of ``vectors`` (uint8 ``(n_cls, 12)``), ``comb[a, b]`` (uint16
``(n_cls, n_cls)``) is the class of the combination of classes ``a`` and ``b``, and
``dist[a, k]`` (uint8 ``(n_cls, 6)``) its distance for ``k`` sets plus a pair.
A hand's standard-shape distance is then ``dist[comb[comb[comb[m, p], s], z], sets]``.
"""

from __future__ import annotations

import itertools

import numpy as np

from .._cache import load_or_build, source_key
from .._numba import kernel

__all__ = ["tables", "kernel_tables", "N_SUIT", "N_HONOR", "MAX_SETS", "POW5"]

MAX_SETS = 5
"""Largest number of sets a table row covers (5 for 16-tile games)."""

N_SUIT = 5**9
"""Rows of the suit table (all count vectors of 9 ranks, 0..4 each)."""

N_HONOR = 5**7
"""Rows of the honor table."""

POW5 = np.array([5**i for i in range(9)], dtype=np.int64)
"""Place values of the base-5 index, rank 1 first."""


def _melds(n_ranks: int, sequences: bool) -> np.ndarray:
    """All sets of one suit as count vectors ``(n_melds, n_ranks)``."""
    out = []
    for i in range(n_ranks):
        m = np.zeros(n_ranks, np.int64)
        m[i] = 3
        out.append(m)
    if sequences:
        for i in range(n_ranks - 2):
            m = np.zeros(n_ranks, np.int64)
            m[i : i + 3] = 1
            out.append(m)
    return np.array(out)


@kernel
def _build(n_ranks, melds):
    """Fill the distance table for a suit of ``n_ranks`` ranks (compiled).

    melds : int64 (n_melds, n_ranks) count vectors of the allowed sets.
    Returns uint8 (5**n_ranks, 12).
    """
    size = 5**n_ranks
    out = np.empty((size, 2 * (MAX_SETS + 1)), np.uint8)
    digits = np.empty((size, n_ranks), np.int64)
    pow5 = np.empty(n_ranks, np.int64)
    p = 1
    for i in range(n_ranks):
        pow5[i] = p
        p *= 5
    for idx in range(size):
        x = idx
        for i in range(n_ranks):
            digits[idx, i] = x % 5
            x //= 5
    for idx in range(size):
        out[idx, 0] = 0
        best = 2
        for i in range(n_ranks):
            need = 2 - digits[idx, i]
            if need < 0:
                need = 0
            if need < best:
                best = need
        out[idx, 1] = best
    n_melds = melds.shape[0]
    for k in range(1, MAX_SETS + 1):
        for pair in range(2):
            col = 2 * k + pair
            prev = 2 * (k - 1) + pair
            for idx in range(size):
                best = 255
                for j in range(n_melds):
                    cost = 0
                    rest = idx
                    for i in range(n_ranks):
                        need = melds[j, i]
                        if need == 0:
                            continue
                        have = digits[idx, i]
                        if have >= need:
                            rest -= need * pow5[i]
                        else:
                            rest -= have * pow5[i]
                            cost += need - have
                    total = cost + out[rest, prev]
                    if total < best:
                        best = total
                out[idx, col] = best
    return out


def _build_buda() -> np.ndarray:
    """Most held ranks a gap-3 target of t ranks (t = 0..3) keeps, per held-rank mask."""
    targets = [
        c
        for t in range(4)
        for c in itertools.combinations(range(9), t)
        if all(b - a >= 3 for a, b in zip(c, c[1:], strict=False))
    ]
    out = np.zeros((512, 4), np.uint8)
    for mask in range(512):
        for t in range(4):
            out[mask, t] = max(sum((mask >> r) & 1 for r in c) for c in targets if len(c) == t)
    return out


def _combine_all(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Min-plus combination of every row of ``a`` with every row of ``b`` -> (len a, len b, 12)."""
    a = a.astype(np.int64)
    b = b.astype(np.int64)
    out = np.full((len(a), len(b), 2 * (MAX_SETS + 1)), 255, np.int64)
    for k in range(MAX_SETS + 1):
        for k1 in range(k + 1):
            k2 = k - k1
            no_pair = a[:, None, 2 * k1] + b[None, :, 2 * k2]
            pair = np.minimum(
                a[:, None, 2 * k1] + b[None, :, 2 * k2 + 1],
                a[:, None, 2 * k1 + 1] + b[None, :, 2 * k2],
            )
            out[:, :, 2 * k] = np.minimum(out[:, :, 2 * k], no_pair)
            out[:, :, 2 * k + 1] = np.minimum(out[:, :, 2 * k + 1], pair)
    return out


def _row_keys(rows: np.ndarray) -> np.ndarray:
    """Pack rows of 12 entries below 32 into one int64 each (5 bits an entry)."""
    rows = rows.astype(np.int64)
    return sum(rows[..., i] << (5 * i) for i in range(rows.shape[-1]))


def _unique_rows(rows: np.ndarray) -> np.ndarray:
    """Distinct rows of a uint8 (n, 12) array (entries below 32), in key order."""
    keys = np.unique(_row_keys(rows))
    return np.stack([(keys >> (5 * i)) & 31 for i in range(rows.shape[-1])], 1).astype(np.uint8)


def _classes(suit: np.ndarray, honor: np.ndarray) -> dict[str, np.ndarray]:
    """Compress the row tables into class ids closed under combination."""
    vectors = _unique_rows(np.concatenate([suit, honor]))
    while True:
        combined = _combine_all(vectors, vectors).reshape(-1, vectors.shape[1])
        grown = _unique_rows(np.concatenate([vectors, combined.astype(np.uint8)]))
        if len(grown) == len(vectors):
            break
        vectors = grown
    keys = _row_keys
    order = np.argsort(keys(vectors))
    sorted_keys = keys(vectors)[order]

    def ids(rows):
        k = keys(rows)
        pos = np.searchsorted(sorted_keys, k)
        assert np.array_equal(sorted_keys[pos], k)
        return order[pos].astype(np.uint16)

    combined = _combine_all(vectors, vectors).astype(np.uint8)
    comb = ids(combined.reshape(-1, vectors.shape[1])).reshape(len(vectors), len(vectors))
    suit_ids = ids(suit)
    honor_ids = ids(honor)
    # renumber so that the suit classes come first: the 5**9-entry suit table then fits
    # uint8 (half the memory the kernels read at random, ~2 MB)
    first = np.unique(suit_ids)
    perm = np.concatenate([first, np.setdiff1d(np.arange(len(vectors)), first)])
    new_id = np.empty(len(vectors), np.int64)
    new_id[perm] = np.arange(len(vectors))
    assert len(first) <= 256
    vectors = vectors[perm]
    comb_new = np.empty_like(comb)
    comb_new[new_id[:, None], new_id[None, :]] = new_id[comb]
    return {
        "suit_cls": new_id[suit_ids].astype(np.uint8),
        "honor_cls": new_id[honor_ids].astype(np.uint16),
        "vectors": vectors,
        "comb": comb_new.astype(np.uint16),
        "dist": np.ascontiguousarray(vectors[:, 1::2]),
        "dist0": np.ascontiguousarray(vectors[:, 0::2]),
    }


def _build_all() -> dict[str, np.ndarray]:
    suit = _build(9, _melds(9, True))
    honor = _build(7, _melds(7, False))
    return {**_classes(suit, honor), "buda": _build_buda()}


_TABLES: dict[str, np.ndarray] | None = None


def tables() -> dict[str, np.ndarray]:
    """The hand tables, loaded from the disk cache or built (a few seconds) and cached.

    Keys: ``suit_cls``, ``honor_cls``, ``vectors``, ``comb``, ``dist``, ``buda`` (see the
    module docstring) and the expanded row tables ``suit`` and ``honor``.
    """
    global _TABLES
    if _TABLES is None:
        import sys

        t = load_or_build("hand-tables", source_key(sys.modules[__name__]), _build_all)
        t["suit"] = t["vectors"][t["suit_cls"]]
        t["honor"] = t["vectors"][t["honor_cls"]]
        _TABLES = t
    return _TABLES


def kernel_tables() -> tuple:
    """The tuple ``(suit_cls, honor_cls, comb, dist, buda, dist0)`` every hand kernel takes.

    ``dist0[a, k]`` is the distance of class ``a`` for ``k`` sets and no pair.
    """
    t = tables()
    return (t["suit_cls"], t["honor_cls"], t["comb"], t["dist"], t["buda"], t["dist0"])
