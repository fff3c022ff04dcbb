"""Hand evaluation: shanten, completeness, waits and ukeire, batched, with wild tiles.

Every function takes ``counts``: an array ``(..., 34)`` of tiles held per kind (the wild
tiles left out) and evaluates each hand along the leading dimensions.

- ``wilds``: the number of wild tiles (财神, 金, 鬼, ...) held besides ``counts``; an int
  or an array broadcastable to ``counts[..., 0]``. A wild fills any missing tile of the
  target hand, in any role, even a fifth copy of a kind whose four copies are held
  (RULEBOOK §0.1).
- ``sets``: the sets still to be formed by the concealed tiles: 4 minus exposed melds in
  13-tile games, 5 minus exposed melds in 16-tile games (0..5). A hand must hold
  ``3*sets + 1`` tiles (waiting) or ``3*sets + 2`` (after a draw), wilds included.
- ``shapes``: any of ``"standard"`` (sets plus one pair), ``"seven_pairs"`` (七对; four
  alike count as two pairs), ``"thirteen_orphans"`` (十三幺), ``"buda"`` (十三不搭: 14
  distinct tiles, tiles of one suit at least 3 ranks apart, honors all different). The
  three special shapes exist only for ``sets == 4`` with no exposed melds.

**Distance and shanten.** The distance of a hand is the fewest tiles it must draw (each
replacing a surplus tile) to become complete; shanten = distance - 1, so a complete
hand is -1 and a waiting (tenpai) hand is 0. There are four real tiles of a kind: a
kind held ``c`` times can receive only ``4 - c`` more, so ``234677889m9999p`` is
1-shanten, not waiting on a fifth 9p (the ``mahjong`` package agrees on every wild-free
hand). With ``w`` wilds the distance is that of the other tiles over the targets with at
most ``w`` copies beyond the fourth of a kind (each of them a wild), minus ``w`` (never
below 0). The cap counts the concealed ``counts`` only, not exposed melds.

Examples
--------
>>> from engine import tiles, hand
>>> int(hand.shanten(tiles.parse("123m456p789s1122z")))
0
>>> bool(hand.is_complete(tiles.parse("123m456p789s11222z")))
True
>>> [tiles.kind_name(k) for k in hand.waits(tiles.parse("123m456p789s1122z")).nonzero()[0]]
['1z', '2z']
>>> int(hand.shanten(tiles.parse("123m456p789s12z"), wilds=1))
0
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from . import _kernels
from ._tables import MAX_SETS, kernel_tables

__all__ = [
    "SHAPES",
    "DEFAULT_SHAPES",
    "shanten",
    "distance",
    "is_complete",
    "waits",
    "ukeire",
    "Ukeire",
    "shape_mask",
]

SHAPES = {
    "standard": _kernels.STANDARD,
    "seven_pairs": _kernels.SEVEN_PAIRS,
    "thirteen_orphans": _kernels.THIRTEEN_ORPHANS,
    "buda": _kernels.BUDA,
}
"""Shape names and their bits in a kernel's ``shapes`` mask."""

DEFAULT_SHAPES = ("standard", "seven_pairs", "thirteen_orphans")
"""Shapes used when none are named (the common 13-tile set)."""


def shape_mask(shapes: str | Iterable[str]) -> int:
    """The kernel bit mask of a shape name or a list of names (ValueError if unknown)."""
    if isinstance(shapes, str):
        shapes = (shapes,)
    mask = 0
    for name in shapes:
        if name not in SHAPES:
            raise ValueError(f"unknown shape {name!r}; known shapes: {', '.join(SHAPES)}")
        mask |= SHAPES[name]
    if mask == 0:
        raise ValueError("no shape given")
    return mask


def _prepare(counts, wilds, sets, sizes, shapes_mask=_kernels.STANDARD):
    """Validate and flatten: returns (counts2d uint8, wilds1d, sets1d, lead shape)."""
    counts = np.asarray(counts)
    if counts.ndim == 0 or counts.shape[-1] != 34:
        raise ValueError(f"counts must have shape (..., 34), got {counts.shape}")
    if not np.issubdtype(counts.dtype, np.integer):
        raise ValueError(f"counts must be integers, got dtype {counts.dtype}")
    lead = counts.shape[:-1]
    if counts.dtype != np.uint8:
        if counts.size and (counts.min() < 0 or counts.max() > 4):
            raise ValueError("counts must be 0..4 per kind")
    flat = np.ascontiguousarray(counts.reshape(-1, 34), dtype=np.uint8)
    try:
        w = np.ascontiguousarray(np.broadcast_to(np.asarray(wilds, np.int64), lead).reshape(-1))
        s = np.ascontiguousarray(np.broadcast_to(np.asarray(sets, np.int64), lead).reshape(-1))
    except ValueError as exc:
        raise ValueError(f"wilds/sets do not broadcast to the hands' shape {lead}") from exc
    if not (shapes_mask & _kernels.STANDARD) and s.size and (s != 4).any():
        raise ValueError(
            "seven_pairs, thirteen_orphans and buda exist only for sets=4 (13/14-tile "
            "concealed hands); include 'standard' to evaluate other hands"
        )
    bad = np.empty(flat.shape[0], np.int64)
    size_mask = sum(1 << (e - 1) for e in sizes)
    _batch(_kernels._check_batch, _kernels._check_serial, flat.shape[0])(flat, w, s, size_mask, bad)
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        code = int(bad[r])
        if code == 1:
            raise ValueError("counts must be 0..4 per kind")
        if code == 2:
            raise ValueError(f"wilds must be >= 0 and sets 0..{MAX_SETS}")
        n = int(flat[r].sum()) + int(w[r])
        want = " or ".join(str(3 * int(s[r]) + e) for e in sizes)
        raise ValueError(
            f"hand {r} holds {n} tiles (wilds included); with sets={int(s[r])} it must hold {want}"
        )
    return flat, w, s, lead


SERIAL_BELOW = 512
"""Batches smaller than this run on the calling thread (no thread start-up cost)."""


def _batch(parallel, serial, n):
    return serial if n < SERIAL_BELOW else parallel


def shanten(counts, wilds=0, sets=4, shapes=DEFAULT_SHAPES):
    """Shanten number of each hand (-1 complete, 0 waiting, ...), as int8 ``(...)``.

    Hands hold ``3*sets + 1`` or ``3*sets + 2`` tiles, wilds included.
    """
    flat, w, s, lead = _prepare(counts, wilds, sets, (1, 2), shape_mask(shapes))
    out = np.empty(flat.shape[0], np.int8)
    _batch(_kernels._shanten_batch, _kernels._shanten_serial, flat.shape[0])(
        flat, w, s, shape_mask(shapes), kernel_tables(), out
    )
    return out.reshape(lead)


def distance(counts, wilds=0, sets=4, shapes=DEFAULT_SHAPES):
    """Tiles still needed (shanten + 1), as int8 ``(...)``."""
    return (shanten(counts, wilds, sets, shapes) + 1).astype(np.int8)


def is_complete(counts, wilds=0, sets=4, shapes=DEFAULT_SHAPES):
    """Whether each ``3*sets + 2``-tile hand is a complete (winning) shape, bool ``(...)``."""
    flat, w, s, lead = _prepare(counts, wilds, sets, (2,), shape_mask(shapes))
    out = np.empty(flat.shape[0], np.int8)
    _batch(_kernels._shanten_batch, _kernels._shanten_serial, flat.shape[0])(
        flat, w, s, shape_mask(shapes), kernel_tables(), out
    )
    return (out == -1).reshape(lead)


def waits(counts, wilds=0, sets=4, shapes=DEFAULT_SHAPES):
    """Kinds whose draw completes each ``3*sets + 1``-tile hand, bool ``(..., 34)``.

    A kind of which all four copies are held is never a wait (no fifth real tile).
    """
    flat, w, s, lead = _prepare(counts, wilds, sets, (1,), shape_mask(shapes))
    out = np.zeros((flat.shape[0], 34), np.bool_)
    _kernels._waits_batch(flat, w, s, shape_mask(shapes), kernel_tables(), out)
    return out.reshape(lead + (34,))


class Ukeire(NamedTuple):
    """Result of :func:`ukeire` (leading dimensions ``...`` of the input).

    Attributes
    ----------
    shanten : int8 (..., 34)
        Shanten after discarding kind ``d``; 127 where ``d`` is not held.
    improving : bool (..., 34, 34)
        ``improving[..., d, j]``: after discarding ``d``, drawing ``j`` lowers the shanten.
    tiles : int16 (..., 34)
        Unseen tiles among the improving draws of each discard.
    """

    shanten: np.ndarray
    improving: np.ndarray
    tiles: np.ndarray

    def best(self):
        """Discards with the lowest shanten, then the most improving tiles (bool mask)."""
        sh = self.shanten.astype(np.int64)
        key = sh * 1000 - self.tiles
        return key == key.min(axis=-1, keepdims=True)


def ukeire(counts, wilds=0, sets=4, shapes=DEFAULT_SHAPES, unseen=None):
    """For every possible discard of a ``3*sets + 2``-tile hand, the draws that help.

    Parameters
    ----------
    unseen : array (..., 34), optional
        Copies of each kind the player cannot see; default ``4 - counts`` (only his own
        hand is visible). Pass ``4 - counts - visible`` to account for discards and melds.

    Returns
    -------
    Ukeire
        Shanten after each discard, the improving draws, and how many tiles they are.
    """
    flat, w, s, lead = _prepare(counts, wilds, sets, (2,), shape_mask(shapes))
    if unseen is None:
        un = 4 - flat.astype(np.int64)
    else:
        un = np.broadcast_to(np.asarray(unseen, dtype=np.int64), lead + (34,)).reshape(-1, 34)
        un = np.ascontiguousarray(np.clip(un, 0, 4))
    n = flat.shape[0]
    sh = np.empty((n, 34), np.int8)
    imp = np.empty((n, 34, 34), np.bool_)
    tiles_n = np.empty((n, 34), np.int16)
    _kernels._ukeire_batch(flat, w, s, shape_mask(shapes), un, kernel_tables(), sh, imp, tiles_n)
    return Ukeire(
        sh.reshape(lead + (34,)), imp.reshape(lead + (34, 34)), tiles_n.reshape(lead + (34,))
    )
