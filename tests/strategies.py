"""Hypothesis strategies for hands, as counts (at most 4 of a kind, the right total).

Every strategy draws ``(counts, wilds, sets)``: ``counts`` a ``(34,)`` uint8 array of the
real tiles (wild tiles left out, as :mod:`engine.hand` takes them), ``wilds`` 0..3 and
``sets`` 0..5, with ``counts.sum() + wilds == 3*sets + 1`` (waiting) or ``3*sets + 2``
(after a draw).
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

__all__ = [
    "ORPHANS",
    "TRIPLETS",
    "SEQUENCES",
    "MELDS",
    "BUDA_SUIT_RANKS",
    "to_counts",
    "hands",
    "complete_hands",
    "waiting_hands",
]

ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
"""Kinds of 十三幺: 1 and 9 of each suit, and the honors."""

TRIPLETS = tuple((k, k, k) for k in range(34))
SEQUENCES = tuple((9 * s + r, 9 * s + r + 1, 9 * s + r + 2) for s in range(3) for r in range(7))
MELDS = TRIPLETS + SEQUENCES
"""Every set as a tuple of kinds: 34 triplets and 21 sequences."""

BUDA_SUIT_RANKS = tuple(
    ranks
    for n in (2, 3)
    for ranks in itertools.combinations(range(9), n)
    if all(b - a >= 3 for a, b in itertools.pairwise(ranks))
)
"""Two or three ranks of one suit pairwise at least 3 apart (14, 147, 258, 369, 148, ...)."""

_BUDA_SIZES = ((3, 3, 3), (3, 3, 2), (3, 2, 3), (2, 3, 3), (3, 2, 2), (2, 3, 2), (2, 2, 3))
"""Ranks taken from m, p, s in a 不搭 hand; the honors fill the rest of the 14 (5..7)."""

# Pools of tile ids (tile id // 4 = kind): where the real tiles of a hand come from.
_WALL = tuple(range(136))
_POOLS = (
    _WALL,
    tuple(range(0, 36)),  # one suit: long sequences, 九莲-like shapes
    tuple(range(36, 72)) + tuple(range(108, 136)),  # one suit and the honors
    tuple(range(108, 136)),  # honors only
    tuple(4 * k + i for k in ORPHANS for i in range(4)),  # terminals and honors
)


def to_counts(kinds) -> np.ndarray:
    """Counts ``(34,)`` uint8 of a list of kinds (ValueError if a kind exceeds 4)."""
    counts = np.bincount(np.asarray(list(kinds), dtype=np.int64), minlength=34)
    if counts.max(initial=0) > 4:
        raise ValueError("more than four copies of a kind")
    return counts.astype(np.uint8)


ANY_SETS = st.integers(0, 5)
"""Sets still to form: 0..5 (13/14-tile games use 4 minus melds, 16/17-tile games 5)."""

ANY_WILDS = st.integers(0, 3)
"""Wild tiles held besides the counts."""


def _fixed(value):
    return value if isinstance(value, st.SearchStrategy) else st.just(value)


@st.composite
def hands(draw, sets=ANY_SETS, wilds=ANY_WILDS, sizes=(1, 2)):
    """Any legal hand: real tiles drawn without replacement from a pool of the wall.

    ``sets``/``wilds`` may be ints or strategies; ``sizes`` the allowed ``n - 3*sets``
    (1: waiting, 2: after a draw).
    """
    s = draw(_fixed(sets))
    n = 3 * s + draw(st.sampled_from(sizes))
    w = min(draw(_fixed(wilds)), n)
    pool = draw(st.sampled_from(_POOLS))
    ids = draw(st.lists(st.sampled_from(pool), min_size=n - w, max_size=n - w, unique=True))
    return to_counts(i // 4 for i in ids), w, s


@st.composite
def _target(draw, sets, shape):
    """The kinds of a complete hand of ``shape`` (may need more than 4 copies)."""
    if shape == "standard":
        groups = draw(st.lists(st.sampled_from(MELDS), min_size=sets, max_size=sets))
        pair = draw(st.integers(0, 33))
        return [k for g in groups for k in g] + [pair, pair]
    if shape == "seven_pairs":
        pairs = draw(st.lists(st.integers(0, 33), min_size=7, max_size=7))
        return [k for p in pairs for k in (p, p)]
    if shape == "thirteen_orphans":
        return list(ORPHANS) + [draw(st.sampled_from(ORPHANS))]
    # buda: ranks pairwise >= 3 apart in each suit, distinct honors, 14 kinds
    kinds = []
    for suit, size in enumerate(draw(st.sampled_from(_BUDA_SIZES))):
        ranks = draw(st.sampled_from([r for r in BUDA_SUIT_RANKS if len(r) == size]))
        kinds += [9 * suit + r for r in ranks]
    honors = draw(st.permutations(range(27, 34)))
    return kinds + list(honors[: 14 - len(kinds)])


@st.composite
def complete_hands(draw, sets=ANY_SETS, wilds=ANY_WILDS, shape="standard"):
    """A complete hand of ``shape`` (``sets`` is 4 for the special shapes).

    Returns ``(counts, wilds, sets)``. Wilds replace tiles of the target; a target that
    needs a fifth copy of a kind keeps it only as a wild.
    """
    s = 4 if shape != "standard" else draw(_fixed(sets))
    kinds = draw(_target(s, shape))
    w = min(draw(_fixed(wilds)), len(kinds))
    replaced = draw(st.lists(st.integers(0, len(kinds) - 1), min_size=w, max_size=w, unique=True))
    real = [k for i, k in enumerate(kinds) if i not in replaced]
    counts = np.bincount(np.asarray(real, dtype=np.int64), minlength=34)
    assume(counts.max(initial=0) <= 4)
    return counts.astype(np.uint8), w, s


@st.composite
def waiting_hands(draw, sets=ANY_SETS, wilds=ANY_WILDS, shape="standard"):
    """A complete hand less one real tile: ``(counts, wilds, sets, missing_kind)``.

    Drawing ``missing_kind`` completes it again, so its shanten is 0.
    """
    counts, w, s = draw(complete_hands(sets, wilds, shape))
    assume(counts.sum() > 0)
    missing = draw(st.sampled_from(np.flatnonzero(counts).tolist()))
    counts = counts.copy()
    counts[missing] -= 1
    return counts, w, s, missing
