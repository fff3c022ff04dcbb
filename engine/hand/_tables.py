"""Per-suit distance tables for hand evaluation, built by code and cached on disk.

**What a row holds.** For one suit holding the counts ``c`` (``c[i]`` in 0..4 for the
suit's ranks 1..9, index ``idx = sum(c[i] * 5**i)``), ``row[e, 2*k + p]`` is the fewest
tiles that must be added so that a sub-multiset of the suit forms ``k`` sets (0..5;
顺子 or 刻子) plus ``p`` pairs (0 or 1), when at most ``e`` of the added tiles are copies
beyond the fourth of their kind. Tiles not used are surplus (they will be discarded).
The honors' rows are the same for seven kinds that form no sequences.

**The fifth copy.** There are four real tiles of a kind, so a wild-free hand can only
complete with targets that use at most four copies of each kind: a kind held ``c``
times can receive at most ``4 - c`` real tiles. A wild may stand for a fifth copy
(RULEBOOK §0.1), so a hand with ``w`` wilds may use targets with up to ``w`` copies
beyond the fourth (its *excess*), each of them a wild. ``e`` is that budget: level 0 is
the wild-free distance, and the rows stop changing at a small level
(:data:`SUIT_LEVELS`, :data:`HONOR_LEVELS`, checked when the tables are built), from
where on they are the distance with no cap at all. A hand's distance with ``w`` wilds
is ``max(row[min(w, LEVELS - 1)] - w, 0)`` of its combined row (every missing tile
beyond the excess is a real draw or another wild).

**How rows are built.** For each ``(k, p)`` every target (a multiset of ``k`` sets and
``p`` pairs, as a count vector ``T``) is listed once; ``T' = min(T, 4)`` is what real
tiles can supply and ``|T - T'|`` its excess, and ``G[T']`` keeps the least excess of
the targets with that capped vector. The cost of a target for a hand is separable over
the ranks (``sum max(T'_i - c_i, 0)`` plus the excess), so the rows for all ``5**9``
hands at once are one min-plus transform of ``G`` per rank::

    F_e[T'] = G[T'] if G[T'] <= e else INF
    row[e](c) = min over T' of F_e[T'] + sum_i max(T'_i - c_i, 0)

done rank by rank (:func:`_spread`), each rank in a single pass.

``buda[mask, t]`` (uint8, ``(512, 4)``) is, for the set ``mask`` of ranks held in one
suit, the most held ranks a 不搭 target of ``t`` ranks with pairwise gaps of at least 3
can keep (used by the 十三不搭 shape).

**Classes.** The ``(LEVELS, 12)`` rows take few distinct values (197 for the suits, 129
for the honors), and the set of rows obtained by min-plus combining any of them (excess
budgets added: ``out[e] = min over e1 + e2 = e of a[e1] (x) b[e2]``) is closed at a
few hundred. The kernels therefore work on class ids: ``suit_cls[idx]`` (uint8: the
suit classes are numbered first, so the large table is 2 MB) and ``honor_cls[idx]``
(uint16) name a row of ``vectors`` (uint8 ``(n_cls, LEVELS, 12)``), ``comb[a, b]``
(uint16 ``(n_cls, n_cls)``) is the class of the combination of classes ``a`` and ``b``,
and ``dist[a, e, k]`` (uint8 ``(n_cls, LEVELS, 6)``) its distance for ``k`` sets plus a
pair at excess level ``e`` (``dist0`` the same without the pair). A hand's
standard-shape distance with ``w`` wilds is then
``max(dist[comb[comb[comb[m, p], s], z], min(w, LEVELS - 1), sets] - w, 0)``.
"""

from __future__ import annotations

import itertools

import numpy as np

from engine.jit.cache import load_or_build, source_key
from engine.jit.njit import kernel

__all__ = [
    "tables",
    "kernel_tables",
    "N_SUIT",
    "N_HONOR",
    "MAX_SETS",
    "POW5",
    "LEVELS",
    "SUIT_LEVELS",
    "HONOR_LEVELS",
]

MAX_SETS = 5
"""Largest number of sets a table row covers (5 for 16-tile games)."""

N_SUIT = 5**9
"""Rows of the suit table (all count vectors of 9 ranks, 0..4 each)."""

N_HONOR = 5**7
"""Rows of the honor table."""

POW5 = np.array([5**i for i in range(9)], dtype=np.int64)
"""Place values of the base-5 index, rank 1 first."""

SUIT_LEVELS = 1
"""Excess level from which a suit's rows no longer change (checked at build time)."""

HONOR_LEVELS = 5
"""Excess level from which the honors' rows no longer change (checked at build time)."""

LEVELS = 1 + 3 * SUIT_LEVELS + HONOR_LEVELS
"""Excess levels a row keeps (0 .. LEVELS - 1): a hand of three suits and the honors
uses at most ``SUIT_LEVELS`` excess in each suit and ``HONOR_LEVELS`` in the honors
before more budget stops helping, so its top level is its distance with no cap."""

_INF = 100
"""Infeasible entry while spreading (the transform adds at most 4 a rank: < 256)."""

_COLS = 2 * (MAX_SETS + 1)


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


def _least_excess(n_ranks: int, sequences: bool) -> np.ndarray:
    """``G[2*k + p, idx]``: the least excess of a target of ``k`` sets and ``p`` pairs
    whose counts capped at 4 have the index ``idx`` (``_INF`` if none), uint8.
    """
    melds = _melds(n_ranks, sequences)
    pow5 = POW5[:n_ranks]
    g = np.full((_COLS, 5**n_ranks), _INF, np.uint8)
    level = np.zeros((1, n_ranks), np.int64)  # the distinct targets of k sets
    for k in range(MAX_SETS + 1):
        if k:
            level = np.unique((level[:, None, :] + melds[None]).reshape(-1, n_ranks), axis=0)
        pairs = (level[:, None, :] + 2 * np.eye(n_ranks, dtype=np.int64)[None]).reshape(-1, n_ranks)
        for p, targets in ((0, level), (1, pairs)):
            capped = np.minimum(targets, 4)
            excess = (targets - capped).sum(axis=1)
            np.minimum.at(g[2 * k + p], capped @ pow5, excess.astype(np.uint8))
    return g


@kernel
def _spread(f, n_ranks):
    """Min-plus transform in place: ``f[c] <- min over t of f[t] + sum max(t_i - c_i, 0)``.

    f : uint8 (5**n_ranks, n_cols), rows indexed by base-5 count vectors (compiled).
    Rank by rank, with ``f_t`` the five entries along that rank,
    ``out_c = min(min_{t <= c} f_t, min_{t > c} f_t + t - c)``: a prefix minimum, and a
    suffix minimum that gains one a step. Entries grow by at most 4 a rank, so an
    infeasible start below 256 - 4 * n_ranks stays in range.
    """
    size, n_cols = f.shape
    stride = 1
    for _ in range(n_ranks):
        block = 5 * stride
        for hi in range(size // block):
            for lo in range(stride):
                r0 = hi * block + lo
                r1 = r0 + stride
                r2 = r1 + stride
                r3 = r2 + stride
                r4 = r3 + stride
                for j in range(n_cols):
                    f0 = f[r0, j]
                    f1 = f[r1, j]
                    f2 = f[r2, j]
                    f3 = f[r3, j]
                    f4 = f[r4, j]
                    p1 = min(f0, f1)
                    p2 = min(p1, f2)
                    p3 = min(p2, f3)
                    s3 = f4 + 1
                    s2 = min(f3, s3) + 1
                    s1 = min(f2, s2) + 1
                    s0 = min(f1, s1) + 1
                    f[r0, j] = min(f0, s0)
                    f[r1, j] = min(p1, s1)
                    f[r2, j] = min(p2, s2)
                    f[r3, j] = min(p3, s3)
                    f[r4, j] = min(p3, f4)
        stride = block


def _rows(n_ranks: int, sequences: bool, n_levels: int) -> np.ndarray:
    """Rows ``(5**n_ranks, n_levels + 2, 12)`` uint8 of one suit: excess levels
    ``0 .. n_levels``, then the rows with no cap (for the build's checks).
    """
    g = _least_excess(n_ranks, sequences)
    cols = [np.where(g <= e, g, _INF).astype(np.uint8) for e in range(n_levels + 1)]
    cols.append(g)
    f = np.ascontiguousarray(np.concatenate(cols).T)
    _spread(f, n_ranks)
    return f.reshape(5**n_ranks, n_levels + 2, _COLS)


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


@kernel
def _combine_rows(a, b, out):
    """``out[i, j]``: the row of the union of two suits with rows ``a[i]`` and ``b[j]``.

    a, b : uint8 (n, LEVELS, 12); out : uint8 (na, nb, LEVELS, 12) (compiled). Sets add,
    the pair comes from either side, excess budgets add (``e1 + e2 = e``)::

        out[e, 2k]     = min a[e1, 2k1] + b[e2, 2k2]
        out[e, 2k + 1] = min a[e1, 2k1] + b[e2, 2k2 + 1], a[e1, 2k1 + 1] + b[e2, 2k2]
    """
    n_levels = a.shape[1]
    n_cols = a.shape[2]
    n_k = n_cols // 2
    acc = np.empty(n_cols, np.int64)
    for i in range(a.shape[0]):
        for j in range(b.shape[0]):
            for e in range(n_levels):
                for c in range(n_cols):
                    acc[c] = 255
                for e1 in range(e + 1):
                    e2 = e - e1
                    for k in range(n_k):
                        for k1 in range(k + 1):
                            k2 = k - k1
                            a0 = np.int64(a[i, e1, 2 * k1])
                            a1 = np.int64(a[i, e1, 2 * k1 + 1])
                            b0 = np.int64(b[j, e2, 2 * k2])
                            b1 = np.int64(b[j, e2, 2 * k2 + 1])
                            x = a0 + b0
                            if x < acc[2 * k]:
                                acc[2 * k] = x
                            x = min(a0 + b1, a1 + b0)
                            if x < acc[2 * k + 1]:
                                acc[2 * k + 1] = x
                for c in range(n_cols):
                    out[i, j, e, c] = acc[c]


def _row_hash(rows: np.ndarray) -> np.ndarray:
    """One uint64 per row of a uint8 (n, ...) array, from its bytes read as 64-bit words
    mixed by fixed odd multipliers. Callers check that equal hashes mean equal rows.
    """
    flat = np.ascontiguousarray(rows).reshape(len(rows), -1)
    pad = -flat.shape[1] % 8
    if pad:
        flat = np.concatenate([flat, np.zeros((len(flat), pad), np.uint8)], axis=1)
    words = flat.view(np.uint64)
    h = np.zeros(len(rows), np.uint64)
    for i in range(words.shape[1]):
        h = (h ^ words[:, i]) * np.uint64(0x9E3779B97F4A7C15)
        h ^= h >> np.uint64(29)
    return h


def _unique_rows(rows: np.ndarray, inverse: bool = False):
    """The distinct rows of a uint8 (n, ...) array, in hash order (and, with ``inverse``,
    the position of each row among them).
    """
    h = _row_hash(rows)
    _, first, where = np.unique(h, return_index=True, return_inverse=True)
    out = rows[first]
    where = where.reshape(-1)
    if not np.array_equal(out[where], rows):
        raise AssertionError("row hash collision")
    return (out, where) if inverse else out


def _levels(rows: np.ndarray, n_levels: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of one suit as ``(LEVELS, 12)`` rows, and each count vector's.

    rows : the ``n_levels + 2`` levels of :func:`_rows` (the last with no cap). Checks
    that ``n_levels`` is where the rows stop changing: the level tables are only exact
    if more excess never helps.
    """
    if not np.array_equal(rows[:, n_levels], rows[:, -1]):
        raise AssertionError(f"rows still change above excess level {n_levels}")
    if n_levels and np.array_equal(rows[:, n_levels - 1], rows[:, -1]):
        raise AssertionError(f"rows stop changing below excess level {n_levels}")
    uniq, where = _unique_rows(np.ascontiguousarray(rows[:, : n_levels + 1]), inverse=True)
    pick = np.minimum(np.arange(LEVELS), n_levels)
    return np.ascontiguousarray(uniq[:, pick]), where


def _classes(suit, honor) -> dict[str, np.ndarray]:
    """Compress the row tables into class ids closed under combination.

    suit, honor : ``(distinct rows (n, LEVELS, 12), row of each count vector)`` from
    :func:`_levels`.
    """
    vectors = _unique_rows(np.concatenate([suit[0], honor[0]]))
    n = len(vectors)
    while True:
        combined = np.empty((n, n) + vectors.shape[1:], np.uint8)
        _combine_rows(vectors, vectors, combined)
        grown = _unique_rows(np.concatenate([vectors, combined.reshape(-1, *vectors.shape[1:])]))
        if len(grown) == n:
            break
        vectors = grown
        n = len(vectors)
    keys = _row_hash(vectors)
    order = np.argsort(keys)
    sorted_keys = keys[order]

    def ids(rows):
        flat = np.ascontiguousarray(rows).reshape(-1, *vectors.shape[1:])
        pos = np.searchsorted(sorted_keys, _row_hash(flat))
        found = order[np.minimum(pos, n - 1)]
        if not np.array_equal(vectors[found], flat):  # every row is a class
            raise AssertionError("a row outside the classes")
        return found

    comb = ids(combined).reshape(n, n)
    suit_ids = ids(suit[0])[suit[1]]
    honor_ids = ids(honor[0])[honor[1]]
    # renumber so that the suit classes come first: the 5**9-entry suit table then fits
    # uint8 (half the memory the kernels read at random, ~2 MB)
    first = np.unique(suit_ids)
    perm = np.concatenate([first, np.setdiff1d(np.arange(n), first)])
    new_id = np.empty(n, np.int64)
    new_id[perm] = np.arange(n)
    assert len(first) <= 256
    vectors = vectors[perm]
    comb_new = np.empty_like(comb)
    comb_new[new_id[:, None], new_id[None, :]] = new_id[comb]
    return {
        "suit_cls": new_id[suit_ids].astype(np.uint8),
        "honor_cls": new_id[honor_ids].astype(np.uint16),
        "vectors": vectors,
        "comb": comb_new.astype(np.uint16),
        "dist": np.ascontiguousarray(vectors[:, :, 1::2]),
        "dist0": np.ascontiguousarray(vectors[:, :, 0::2]),
    }


def _build_all() -> dict[str, np.ndarray]:
    suit = _levels(_rows(9, True, SUIT_LEVELS), SUIT_LEVELS)
    honor = _levels(_rows(7, False, HONOR_LEVELS), HONOR_LEVELS)
    return {**_classes(suit, honor), "buda": _build_buda()}


_TABLES: dict[str, np.ndarray] | None = None


def tables() -> dict[str, np.ndarray]:
    """The hand tables, loaded from the disk cache or built (a few seconds) and cached.

    Keys: ``suit_cls``, ``honor_cls``, ``vectors``, ``comb``, ``dist``, ``dist0`` and
    ``buda`` (see the module docstring).
    """
    global _TABLES
    if _TABLES is None:
        import sys

        _TABLES = load_or_build("hand-tables", source_key(sys.modules[__name__]), _build_all)
    return _TABLES


def suit_rows(n_ranks: int = 9) -> np.ndarray:
    """The rows of every count vector of a suit (``n_ranks=9``) or of the honors (7).

    uint8 ``(5**n_ranks, n_levels + 1, 12)``: excess levels ``0 .. SUIT_LEVELS`` (or
    ``HONOR_LEVELS``), from where the rows do not change. Level 0 is the wild-free row.
    """
    t = tables()
    if n_ranks == 9:
        return t["vectors"][:, : SUIT_LEVELS + 1][t["suit_cls"]]
    if n_ranks == 7:
        return t["vectors"][:, : HONOR_LEVELS + 1][t["honor_cls"]]
    raise ValueError(f"a suit has 9 ranks and the honors 7, not {n_ranks}")


def kernel_tables() -> tuple:
    """The tuple ``(suit_cls, honor_cls, comb, dist, buda, dist0)`` every hand kernel takes.

    ``dist[a, e, k]`` / ``dist0[a, e, k]``: the distance of class ``a`` at excess level
    ``e`` for ``k`` sets with / without the pair.
    """
    t = tables()
    return (t["suit_cls"], t["honor_cls"], t["comb"], t["dist"], t["buda"], t["dist0"])
