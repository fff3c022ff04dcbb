"""Brute-force twin of :mod:`engine.hand`: ``shanten``, ``distance``, ``is_complete``, ``waits``.

Same signatures and results as the engine, computed from the definitions by plain
search, with no distance tables and no numba, so that it can serve as a test oracle.

Definitions (README, RULEBOOK §0.1):

- A *target* is a multiset of tiles forming a complete hand: ``sets`` sets (a triplet
  of a kind, or a sequence of three consecutive ranks of one suit) plus one pair for the
  ``standard`` shape; seven pairs (a kind may be two of them), thirteen orphans, or 不搭
  for the special shapes (``sets == 4`` only).
- The *cost* of a target for a hand is the number of its tiles the hand lacks:
  ``sum(max(target[k] - counts[k], 0))``. Tiles of the hand the target does not use
  are surplus (they will be discarded).
- There are four real tiles of a kind: a kind held ``c`` times can receive ``4 - c``
  real tiles. A wild fills one missing tile, anywhere, even a fifth copy (RULEBOOK
  §0.1). So with ``w`` wilds a target may hold at most ``w`` copies beyond the fourth
  of its kinds (its *excess*, all of them wilds), and the *distance* is
  ``max(min cost - w, 0)`` over the targets of the allowed shapes within that budget.
  ``shanten = distance - 1``.

:func:`hand_distance` searches that definition directly (the standard shape rank by
rank with the excess budget, :func:`standard_distance`); :func:`distance_by_substitution`
searches a second definition, every assignment of the wilds to kinds, each assigned
wild then held as a tile of its kind that real draws cannot add to. The two must agree.
Only the standard shape can want a fifth copy: seven pairs (four alike are two pairs),
thirteen orphans and 不搭 never use more than four of a kind.
"""

from __future__ import annotations

import itertools
from functools import cache, lru_cache

import numpy as np

__all__ = [
    "SHAPES",
    "DEFAULT_SHAPES",
    "shanten",
    "distance",
    "is_complete",
    "waits",
    "hand_distance",
    "standard_distance",
    "seven_pairs_distance",
    "thirteen_orphans_distance",
    "buda_distance",
    "distance_by_substitution",
    "suit_need",
    "suit_need_positional",
]

SHAPES = ("standard", "seven_pairs", "thirteen_orphans", "buda")
DEFAULT_SHAPES = ("standard", "seven_pairs", "thirteen_orphans")
MAX_SETS = 5
INF = 10**6

ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
"""Kinds of 十三幺: 1 and 9 of each suit, and the seven honors."""

SUITS = ((0, 9, True), (9, 18, True), (18, 27, True), (27, 34, False))
"""(first kind, end kind, sequences allowed) of m, p, s and the honors."""


# --- standard shape: sets + one pair ------------------------------------------------


def _groups_with(rank: int, n_ranks: int, sequences: bool):
    """The sets of one suit that contain ``rank``, as tuples of ranks."""
    groups = [(rank, rank, rank)]
    if sequences:
        for start in (rank - 2, rank - 1, rank):
            if start >= 0 and start + 2 < n_ranks:
                groups.append((start, start + 1, start + 2))
    return groups


@lru_cache(maxsize=1 << 20)
def suit_need(held: tuple, sequences: bool, k: int, p: int) -> int:
    """Fewest tiles to add to one suit's ``held`` counts so that k sets + p pairs form.

    Decomposition on the lowest held rank ``i``: either the target uses no tile of
    rank ``i`` (those tiles are surplus), or one of its groups contains rank ``i``; that
    group takes the held tiles it can and pays one for each tile it lacks, and the rest
    of the target is found for what is left. The cost is additive over this split, so
    the search covers every target exactly.
    """
    if k == 0 and p == 0:
        return 0
    i = next((r for r, c in enumerate(held) if c), None)
    if i is None:
        return 3 * k + 2 * p
    dropped = list(held)
    dropped[i] = 0
    best = suit_need(tuple(dropped), sequences, k, p)
    choices = []
    if k:
        choices += [(g, k - 1, p) for g in _groups_with(i, len(held), sequences)]
    if p:
        choices.append(((i, i), k, p - 1))
    for group, k2, p2 in choices:
        rest = list(held)
        cost = 0
        for r in group:
            if rest[r] > 0:
                rest[r] -= 1
            else:
                cost += 1
        best = min(best, cost + suit_need(tuple(rest), sequences, k2, p2))
    return best


def suit_need_positional(
    held: tuple, sequences: bool, k: int, p: int, cap=None, excess: int = 0
) -> int:
    """The same as :func:`suit_need` by a second method: the target chosen rank by rank.

    At each rank choose how many triplets and sequences start there and whether the
    pair is there; sequences started at the two previous ranks also take a tile here.
    ``cap`` (optional: an int, or a tuple with one bound per rank) bounds the target's
    copies of each rank; at most ``excess`` copies beyond the caps are allowed in all.
    Returns ``INF`` when no target fits.
    """
    n = len(held)
    if cap is None:
        caps = (INF,) * n
    elif isinstance(cap, int):
        caps = (cap,) * n
    else:
        caps = tuple(cap)
    return _ranks_need(tuple(held), caps, sequences, 0, 0, k, p, excess)


@lru_cache(maxsize=1 << 22)
def _ranks_need(held: tuple, caps: tuple, sequences: bool, q1, q2, k, p, e) -> int:
    """Fewest tiles to add to the ranks ``held`` (the suit's last ``len(held)`` ranks)
    for ``k`` more sets and ``p`` more pairs, ``q1`` / ``q2`` sequences started one /
    two ranks before still needing the first rank (``q2`` also the second), at most
    ``e`` target copies beyond ``caps`` in all.

    Keyed on the rest of the suit only, so the search of one hand reuses what others
    found (hands share the tails of their suits).
    """
    if q1 == q2 == k == p == 0:
        return 0  # the rest is surplus
    if not held:
        return INF
    best = INF
    rest, rest_caps = held[1:], caps[1:]
    for t in range(k + 1):
        q_max = k - t if sequences and len(held) >= 3 else 0
        for q in range(q_max + 1):
            for pp in range(p + 1):
                target = 3 * t + q + q1 + q2 + 2 * pp
                over = max(target - caps[0], 0)
                if over > e:
                    continue
                cost = max(target - held[0], 0)
                if cost >= best:
                    continue
                sub = _ranks_need(rest, rest_caps, sequences, q, q1, k - t - q, p - pp, e - over)
                best = min(best, cost + sub)
    return best


def standard_distance(counts, sets: int, cap=None, excess: int = 0, pairs: int = 1) -> int:
    """Distance to ``sets`` sets plus one pair (``pairs=0``: the sets alone; no wilds
    subtracted); sets never span two suits.

    ``cap=None`` puts no bound on a kind's copies (the distance a wild for every
    missing tile would allow); ``cap=4`` allows four copies of a kind plus ``excess``
    beyond them in all (the distance with ``excess`` wilds); a 34-tuple bounds each kind
    on its own. The cost and the copies beyond the caps of a target add up over the
    suits, so the suits are taken one after the other, each with the sets, the pair and
    the part of the budget it takes: ``best[k][p][e]`` is the least cost of the suits so
    far forming ``k`` sets and ``p`` pairs with ``e`` copies beyond the caps.
    """
    counts = tuple(int(x) for x in counts)
    if cap is None or isinstance(cap, int):
        caps = (cap,) * 34
    else:
        caps = tuple(int(x) for x in cap)
    best = {(0, 0, 0): 0}
    for lo, hi, seq in SUITS:
        held, c = counts[lo:hi], caps[lo:hi]
        if not seq:
            # honors are interchangeable: sort (held, cap) pairs together (a cache key)
            order = sorted(range(hi - lo), key=lambda i: (held[i], c[i] or 0), reverse=True)
            held = tuple(held[i] for i in order)
            c = tuple(c[i] for i in order)
        row = _suit_rows(held, seq, sets, c if c[0] is not None else None, excess)
        new: dict = {}
        for (k0, p0, e0), v0 in best.items():
            for k1 in range(sets - k0 + 1):
                for p1 in range(pairs + 1 - p0):
                    for e1 in range(excess - e0 + 1):
                        v = v0 + row[k1][p1][e1]
                        key = (k0 + k1, p0 + p1, e0 + e1)
                        if v < new.get(key, INF):
                            new[key] = v
        best = new
    return min(best.get((sets, pairs, e), INF) for e in range(excess + 1))


@lru_cache(maxsize=1 << 18)
def _suit_rows(held: tuple, sequences: bool, sets: int, cap, excess: int) -> tuple:
    """``rows[k][p][e]``: the need of one suit for ``k`` sets and ``p`` pairs with at
    most ``e`` copies beyond ``cap``, for k in 0..sets and e in 0..excess (``cap=None``:
    no bound, :func:`suit_need`).
    """
    if cap is None:
        return tuple(
            tuple((suit_need(held, sequences, k, p),) * (excess + 1) for p in (0, 1))
            for k in range(sets + 1)
        )
    return tuple(
        tuple(
            tuple(suit_need_positional(held, sequences, k, p, cap, e) for e in range(excess + 1))
            for p in (0, 1)
        )
        for k in range(sets + 1)
    )


# --- special shapes (sets == 4: a 14-tile target) -------------------------------------


def seven_pairs_distance(counts) -> int:
    """Distance to seven pairs (七对); a kind may give two pairs (four alike).

    A target gives ``t`` pairs to each kind (summing to 7) and keeps ``min(held, 2t)``
    tiles of it; the search tries every share of the seven pairs among the held kinds
    (pairs left over go to kinds not held, which always exist). Which kinds hold the
    counts does not matter, so the counts are sorted first (a cache key).
    """
    return _seven_pairs(tuple(sorted(int(c) for c in counts if c)))


@cache
def _seven_pairs(held: tuple) -> int:
    best = [0] * 8  # best[left]: most tiles kept by `left` pairs on the kinds seen so far
    for c in held:
        # more than ceil(c / 2) pairs on this kind would keep no more of its tiles
        most = (c + 1) // 2
        new = list(best)
        for left in range(1, 8):
            for t in range(1, min(left, most) + 1):
                new[left] = max(new[left], best[left - t] + min(c, 2 * t))
        best = new
    return 14 - best[7]


def thirteen_orphans_distance(counts) -> int:
    """Distance to thirteen orphans (十三幺): one of each orphan kind plus one more."""
    singles = sum(min(counts[k], 1) for k in ORPHANS)  # one of each kind
    # the fourteenth tile doubles one orphan kind: it keeps a held second copy if any
    return 14 - max(singles + min(max(counts[k] - 1, 0), 1) for k in ORPHANS)


_BUDA_RANKS = [
    ranks
    for size in range(10)
    for ranks in itertools.combinations(range(9), size)
    if all(b - a >= 3 for a, b in itertools.pairwise(ranks))
]
"""Rank sets one suit may hold in 不搭: ranks pairwise at least 3 apart."""


def buda_distance(counts) -> int:
    """Distance to 不搭 (十三不搭): 14 distinct kinds, same-suit ranks pairwise >= 3 apart.

    A target is a choice of allowed ranks in each suit plus distinct honors, 14 kinds in
    all; it keeps one tile of each kind it shares with the hand. The best keep for each
    number of kinds taken from a suit (or from the honors) is found by enumeration, then
    every split of the 14 kinds among the four suits is tried.
    """
    best_by_size = [_buda_keep(tuple(bool(c) for c in counts[lo:hi]), seq) for lo, hi, seq in SUITS]
    m, p, s, z = best_by_size
    keep = 0
    for tm, tp, ts in itertools.product(m, p, s):
        tz = 14 - tm - tp - ts
        if tz in z:
            keep = max(keep, m[tm] + p[tp] + s[ts] + z[tz])
    return 14 - keep


@cache
def _buda_keep(held: tuple, suited: bool) -> dict:
    """{number of kinds the target takes from this suit: most of them the hand holds}."""
    if suited:
        options = _BUDA_RANKS
    else:
        options = [c for n in range(8) for c in itertools.combinations(range(7), n)]
    best = {}
    for ranks in options:
        kept = sum(1 for r in ranks if held[r])
        best[len(ranks)] = max(best.get(len(ranks), 0), kept)
    return best


# --- one hand ------------------------------------------------------------------------


def hand_distance(counts, wilds=0, sets=4, shapes=DEFAULT_SHAPES) -> int:
    """Distance of one hand (no validation), wilds applied: targets with at most
    ``wilds`` copies beyond the fourth of a kind.
    """
    shapes = _shape_names(shapes)
    counts = [int(c) for c in counts]
    best = INF
    if "standard" in shapes:
        best = standard_distance(counts, sets, cap=4, excess=int(wilds))
    if sets == 4:
        if "seven_pairs" in shapes:
            best = min(best, seven_pairs_distance(counts))
        if "thirteen_orphans" in shapes:
            best = min(best, thirteen_orphans_distance(counts))
        if "buda" in shapes:
            best = min(best, buda_distance(counts))
    if best == INF:
        raise ValueError(f"no shape among {shapes} applies to sets={sets}")
    return max(best - int(wilds), 0)


def distance_by_substitution(counts, wilds=0, sets=4, shapes=DEFAULT_SHAPES) -> int:
    """Distance by every assignment of the wilds to kinds (the definition of a wild).

    Each wild becomes a tile of its kind, a fifth copy allowed; the real tiles still to
    draw are at most ``4 - held`` of a kind, so a kind given ``a`` wilds may reach
    ``4 + a`` copies in the target. Slow (``C(33 + wilds, wilds)`` hands), for checking
    :func:`hand_distance` on a sample.
    """
    shapes = _shape_names(shapes)
    real = [int(c) for c in counts]
    best = INF
    for kinds in itertools.combinations_with_replacement(range(34), int(wilds)):
        held = list(real)
        caps = [4] * 34
        for k in kinds:
            held[k] += 1
            caps[k] += 1
        d = INF
        if "standard" in shapes:
            d = standard_distance(held, sets, cap=tuple(caps))
        if sets == 4:
            if "seven_pairs" in shapes:
                d = min(d, seven_pairs_distance(held))
            if "thirteen_orphans" in shapes:
                d = min(d, thirteen_orphans_distance(held))
            if "buda" in shapes:
                d = min(d, buda_distance(held))
        best = min(best, d)
    if best == INF:
        raise ValueError(f"no shape among {shapes} applies to sets={sets}")
    return best


# --- the engine's signatures, batched by looping -----------------------------------


def _shape_names(shapes):
    if isinstance(shapes, str):
        shapes = (shapes,)
    shapes = tuple(shapes)
    for name in shapes:
        if name not in SHAPES:
            raise ValueError(f"unknown shape {name!r}")
    if not shapes:
        raise ValueError("no shape given")
    return shapes


def _rows(counts, wilds, sets, sizes):
    """Validate like the engine; yield (index, counts row, wilds, sets)."""
    counts = np.asarray(counts)
    if counts.ndim == 0 or counts.shape[-1] != 34:
        raise ValueError(f"counts must have shape (..., 34), got {counts.shape}")
    if counts.size and (counts.min() < 0 or counts.max() > 4):
        raise ValueError("counts must be 0..4 per kind")
    lead = counts.shape[:-1]
    w = np.broadcast_to(np.asarray(wilds), lead)
    s = np.broadcast_to(np.asarray(sets), lead)
    out = []
    for index in np.ndindex(*lead):
        row, wi, si = counts[index], int(w[index]), int(s[index])
        if wi < 0 or not 0 <= si <= MAX_SETS:
            raise ValueError(f"bad wilds={wi} or sets={si}")
        n = int(row.sum()) + wi
        if n not in [3 * si + e for e in sizes]:
            raise ValueError(f"hand {index} holds {n} tiles, not right for sets={si}")
        out.append((index, row, wi, si))
    return lead, out


def distance(counts, wilds=0, sets=4, shapes=DEFAULT_SHAPES):
    """Tiles still needed (shanten + 1) of each hand, int8 ``(...)``."""
    lead, rows = _rows(counts, wilds, sets, (1, 2))
    out = np.empty(lead, np.int8)
    for index, row, w, s in rows:
        out[index] = hand_distance(row, w, s, shapes)
    return out


def shanten(counts, wilds=0, sets=4, shapes=DEFAULT_SHAPES):
    """Shanten number (distance - 1) of each hand, int8 ``(...)``."""
    return (distance(counts, wilds, sets, shapes) - 1).astype(np.int8)


def is_complete(counts, wilds=0, sets=4, shapes=DEFAULT_SHAPES):
    """Whether each ``3*sets + 2``-tile hand is complete, bool ``(...)``."""
    lead, rows = _rows(counts, wilds, sets, (2,))
    out = np.empty(lead, np.bool_)
    for index, row, w, s in rows:
        out[index] = hand_distance(row, w, s, shapes) == 0
    return out


def waits(counts, wilds=0, sets=4, shapes=DEFAULT_SHAPES):
    """Kinds whose draw completes each ``3*sets + 1``-tile hand, bool ``(..., 34)``.

    A kind of which the hand holds all four copies is never a wait.
    """
    lead, rows = _rows(counts, wilds, sets, (1,))
    out = np.zeros(lead + (34,), np.bool_)
    for index, row, w, s in rows:
        c = row.astype(np.int64)
        for k in range(34):
            if c[k] >= 4:
                continue
            c[k] += 1
            out[index + (k,)] = hand_distance(c, w, s, shapes) == 0
            c[k] -= 1
    return out
