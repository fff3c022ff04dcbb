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

**One hand.** A single ``(34,)`` uint8 hand with int ``wilds`` and ``sets`` takes a
fast path (the checks run inside one compiled call): see :func:`shanten`.

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


def _flatten(counts):
    """Check the shape and dtype of ``counts``: returns (counts2d uint8, lead shape)."""
    counts = np.asarray(counts)
    if counts.ndim == 0 or counts.shape[-1] != 34:
        raise ValueError(f"counts must have shape (..., 34), got {counts.shape}")
    if not np.issubdtype(counts.dtype, np.integer):
        raise ValueError(f"counts must be integers, got dtype {counts.dtype}")
    lead = counts.shape[:-1]
    if counts.dtype != np.uint8:
        if counts.size and (counts.min() < 0 or counts.max() > 4):
            raise ValueError("counts must be 0..4 per kind")
    return np.ascontiguousarray(counts.reshape(-1, 34), dtype=np.uint8), lead


def _per_row(value, lead) -> np.ndarray:
    """``wilds`` or ``sets`` as one int64 per hand (ValueError if it does not broadcast)."""
    try:
        return np.ascontiguousarray(np.broadcast_to(np.asarray(value, np.int64), lead).reshape(-1))
    except ValueError as exc:
        raise ValueError(f"wilds/sets do not broadcast to the hands' shape {lead}") from exc


def _check_special(shapes_mask, s) -> None:
    if not (shapes_mask & _kernels.STANDARD) and s.size and (s != 4).any():
        raise ValueError(
            "seven_pairs, thirteen_orphans and buda exist only for sets=4 (13/14-tile "
            "concealed hands); include 'standard' to evaluate other hands"
        )


def _prepare(counts, wilds, sets, sizes, shapes_mask=_kernels.STANDARD):
    """Validate and flatten: returns (counts2d uint8, wilds1d, sets1d, lead shape)."""
    flat, lead = _flatten(counts)
    w = _per_row(wilds, lead)
    s = _per_row(sets, lead)
    _check_special(shapes_mask, s)
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


def _scalar_or_rows(value, lead) -> tuple[np.ndarray, int]:
    """``(array, step)``: a scalar as a one-element array read with step 0, otherwise
    :func:`_per_row` with step 1.
    """
    if np.ndim(value) == 0:
        return np.asarray(value, np.int64).reshape(1), 0
    return _per_row(value, lead), 1


def _shanten_rows(counts, wilds, sets, sizes, mask):
    """Shanten of every hand, the checks of :func:`_prepare` done in the kernel's own
    pass over the counts: ``(int8 (n,), lead shape)``.

    The batched path of :func:`shanten` and :func:`is_complete`. A hand that fails a
    check sends the call through :func:`_prepare`, which raises the error naming it (the
    same error as ever).
    """
    flat, lead = _flatten(counts)
    w, w_step = _scalar_or_rows(wilds, lead)
    s, s_step = _scalar_or_rows(sets, lead)
    _check_special(mask, s)
    size_mask = sum(1 << (e - 1) for e in sizes)
    out = np.empty(flat.shape[0], np.int8)
    kern = _kernels._shanten_checked
    if flat.shape[0] < SERIAL_BELOW:
        kern = kern.serial
    if kern(flat, w, w_step, s, s_step, size_mask, mask, kernel_tables(), out):
        _prepare(counts, wilds, sets, sizes, mask)
        raise AssertionError("a hand failed the kernel's checks but not _prepare's")
    return out, lead


SERIAL_BELOW = 512
"""Batches smaller than this run on the calling thread (no thread start-up cost)."""


def _batch(parallel, serial, n):
    return serial if n < SERIAL_BELOW else parallel


# --- one hand: the fast path ------------------------------------------------------------
#
# A single hand given as a (34,) uint8 array (what engine.tiles.parse returns) with int
# wilds and sets skips the batch set-up: a few attribute checks here, the range and size
# checks inside one compiled call, straight to the kernel's entry point. A hand that
# fails a check takes the batch path, which raises the error naming the fault, so the
# results and errors are the same either way.

_U8 = np.dtype(np.uint8)
_ONE = (34,)
_STRIDE = (1,)
_SHANTEN = tuple(np.int8(x) for x in range(-1, 127))
"""The int8 results, made once (numpy scalars are immutable)."""
_BOOL = (np.bool_(False), np.bool_(True))
_MASKS: dict = {}
_FAST: dict = {}


def _mask_fast(shapes) -> int:
    """:func:`shape_mask`, remembered for hashable ``shapes`` (0 if they are unknown)."""
    try:
        return _MASKS[shapes]
    except KeyError:
        pass
    except TypeError:  # a list: not cached
        return _mask_or_zero(shapes)
    mask = _MASKS[shapes] = _mask_or_zero(shapes)
    return mask


def _mask_or_zero(shapes) -> int:
    try:
        return shape_mask(shapes)
    except (ValueError, TypeError):
        return 0  # the checked path raises


def _one(counts, wilds, sets) -> bool:
    """Whether a call may take the fast path: one C-contiguous (34,) uint8 array and
    plain ints in range (the kernel checks the counts and the size).
    """
    return (
        counts.__class__ is np.ndarray
        and counts.shape == _ONE
        and counts.dtype is _U8
        and counts.strides == _STRIDE
        and wilds.__class__ is int
        and sets.__class__ is int
        and 0 <= wilds <= 255
        and 0 <= sets <= MAX_SETS
    )


def _entry(name: str):
    """The compiled entry point of one-hand kernel ``name`` for (34,) uint8 counts.

    Calling a numba function first matches the argument types against its compiled
    versions; the entry point of the one version these calls use skips that (about half
    of a call's cost). If numba does not expose it, the function itself is used.
    """
    fn = _FAST.get(name)
    if fn is not None:
        return fn
    import numba

    kern = getattr(_kernels, name)
    tab = kernel_tables()
    c = np.zeros(34, np.uint8)
    args = [c, 0, 0, _kernels.STANDARD, tab]
    if name == "waits_one":
        args.append(np.zeros(34, np.bool_))
    elif name == "ukeire_one":
        args += [np.zeros(34, np.int8), np.zeros((34, 34), np.bool_), np.zeros(34, np.int16)]
    kern(*args)  # compile or load the version for these types
    try:
        sig = tuple(numba.typeof(a) for a in args)
        entry = kern.overloads[sig].entry_point
    except (AttributeError, KeyError):
        entry = kern
    fn = _FAST[name] = (entry, tab)
    return fn


def shanten(counts, wilds=0, sets=4, shapes=DEFAULT_SHAPES):
    """Shanten number of each hand (-1 complete, 0 waiting, ...), as int8 ``(...)``.

    Hands hold ``3*sets + 1`` or ``3*sets + 2`` tiles, wilds included. One hand given
    as a ``(34,)`` uint8 array with int ``wilds`` and ``sets`` takes a fast path (no
    batch set-up, about half a microsecond); its result is an int8 scalar.
    """
    if _one(counts, wilds, sets):
        mask = _mask_fast(shapes)
        if mask:
            entry, tab = _FAST.get("shanten_one") or _entry("shanten_one")
            r = entry(counts, wilds, sets, mask, tab)
            if r != _kernels.BAD:
                return _SHANTEN[r + 1]
    out, lead = _shanten_rows(counts, wilds, sets, (1, 2), shape_mask(shapes))
    return out.reshape(lead) if lead else out[0]


def distance(counts, wilds=0, sets=4, shapes=DEFAULT_SHAPES):
    """Tiles still needed (shanten + 1), as int8 ``(...)``."""
    return (shanten(counts, wilds, sets, shapes) + 1).astype(np.int8)


def is_complete(counts, wilds=0, sets=4, shapes=DEFAULT_SHAPES):
    """Whether each ``3*sets + 2``-tile hand is a complete (winning) shape, bool ``(...)``.

    One ``(34,)`` uint8 hand takes the fast path of :func:`shanten`.
    """
    if _one(counts, wilds, sets):
        mask = _mask_fast(shapes)
        if mask:
            entry, tab = _FAST.get("complete_one") or _entry("complete_one")
            r = entry(counts, wilds, sets, mask, tab)
            if r != _kernels.BAD:
                return _BOOL[r]
    out, lead = _shanten_rows(counts, wilds, sets, (2,), shape_mask(shapes))
    return (out == -1).reshape(lead) if lead else out[0] == -1


def waits(counts, wilds=0, sets=4, shapes=DEFAULT_SHAPES):
    """Kinds whose draw completes each ``3*sets + 1``-tile hand, bool ``(..., 34)``.

    A kind of which all four copies are held is never a wait (no fifth real tile). One
    ``(34,)`` uint8 hand takes the fast path of :func:`shanten`.
    """
    if _one(counts, wilds, sets):
        mask = _mask_fast(shapes)
        if mask:
            entry, tab = _FAST.get("waits_one") or _entry("waits_one")
            out = np.empty(34, np.bool_)
            if entry(counts, wilds, sets, mask, tab, out) != _kernels.BAD:
                return out
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

    One ``(34,)`` uint8 hand without ``unseen`` takes the fast path of :func:`shanten`.
    """
    if unseen is None and _one(counts, wilds, sets):
        mask = _mask_fast(shapes)
        if mask:
            entry, tab = _FAST.get("ukeire_one") or _entry("ukeire_one")
            sh = np.empty(34, np.int8)
            imp = np.empty((34, 34), np.bool_)
            tiles_n = np.empty(34, np.int16)
            if entry(counts, wilds, sets, mask, tab, sh, imp, tiles_n) != _kernels.BAD:
                return Ukeire(sh, imp, tiles_n)
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
