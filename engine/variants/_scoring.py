"""The hand calculator behind ``mjlab score``: parse the inputs, call a variant's scorer.

Each mahjong variant exposes ``score_hand(rules, counts, wilds, melds, win_kind, win_type,
seat, dealer, streak, flags, **extra) -> dict`` with keys ``complete``, ``patterns``,
``value``, ``deltas``. This module turns the command line (notation, ``--melds``,
``--wild``, ``--self-draw``/``--from``) into those arguments.
"""

from __future__ import annotations

import numpy as np

from engine.mahjong import layout as L

from .. import tiles
from ..errors import UsageError

__all__ = [
    "parse_melds",
    "score_request",
    "MELD_WORDS",
    "win_context",
    "melds8",
    "pattern_names",
    "settle_hand",
    "check_flags",
    "MAX_STREAK",
]

MAX_STREAK = 32767
"""Largest ``--streak`` (the records' int16 ``dealer_streak``)."""

MELD_WORDS = {
    "chow": L.M_CHOW,
    "pong": L.M_PONG,
    "kong": L.M_KONG,
    "addkong": L.M_ADDKONG,
    "ankong": L.M_ANKONG,
}
"""``--melds`` words: chow:123m, pong:5z, kong:1p (明杠 from a discard), addkong:3m (补杠),
ankong:9s (暗杠)."""


def parse_melds(text: str, from_seat: int = -1) -> np.ndarray:
    """``"pong:5z chow:123m ankong:9s"`` -> int64 (n, 3) rows (type, kind, from seat)."""
    rows = []
    for item in (text or "").split():
        if ":" not in item:
            raise UsageError(f"meld {item!r}: expected TYPE:TILES such as pong:5z or chow:123m")
        word, body = item.split(":", 1)
        if word not in MELD_WORDS:
            raise UsageError(
                f"meld {item!r}: unknown type {word!r}; types: {', '.join(MELD_WORDS)}"
            )
        try:
            counts = tiles.parse(body)
        except ValueError as exc:
            raise UsageError(f"meld {item!r}: {exc}") from None
        kinds = np.repeat(np.arange(34), counts)
        t = MELD_WORDS[word]
        if t == L.M_CHOW:
            ok = (
                len(kinds) == 3
                and kinds[0] < 27
                and kinds[2] - kinds[0] == 2
                and kinds[1] - kinds[0] == 1
                and kinds[0] // 9 == kinds[2] // 9
            )
            if not ok:
                raise UsageError(f"meld {item!r}: a chow is three consecutive suited tiles")
            kind = int(kinds[0])
        else:
            if len(set(kinds.tolist())) != 1 or len(kinds) not in (1, 3, 4):
                raise UsageError(f"meld {item!r}: name one tile kind, e.g. {word}:5z")
            kind = int(kinds[0])
        rows.append((t, kind, from_seat))
    if len(rows) > 5:
        raise UsageError("at most 5 melds")
    return np.array(rows, np.int64).reshape(-1, 3)


def meld_tile_counts(melds: np.ndarray) -> np.ndarray:
    """Tiles used by the melds per kind (34,)."""
    out = np.zeros(34, np.int64)
    for t, k, _ in melds:
        if t == L.M_CHOW:
            out[k : k + 3] += 1
        elif t == L.M_PONG:
            out[k] += 3
        else:
            out[k] += 4
    return out


def score_request(
    variant,
    hand: str,
    *,
    win: str | None = None,
    rules=None,
    from_seat: int | None = None,
    melds: str = "",
    seat: int = 0,
    dealer: int = 0,
    streak: int = 0,
    wild=(),
    flowers: int = 0,
    xing_card: str | None = None,
    flags=(),
) -> dict:
    """Check one winning hand given in notation and score it with the variant's scorer.

    ``hand`` holds the concealed tiles including the winning tile ``win``; ``rules``
    maps option keys to values (validated here); ``from_seat`` is the discarder (None:
    a self-draw); ``melds`` the exposed melds (``"pong:5z kong:1p"``); ``wild`` the wild
    kinds; ``flags`` the context patterns (``tianhu``, ``gangkai`` ...). UsageError
    (worded for ``mjlab score``) names what is wrong.
    """
    if variant.score_hand is None:
        raise UsageError(f"`mjlab score` is not available for {variant.name} yet")
    rules = variant.resolve(rules)
    if win is None:
        raise UsageError(f"{variant.name}: name the winning tile with --win TILE")
    if xing_card is not None:
        raise UsageError(f"--xing-card is for the 字牌 family, not {variant.name}")
    try:
        counts = tiles.parse(hand).astype(np.int64)
        win_kind = tiles.kind(win)
        wild_kinds = sorted({tiles.kind(w) for w in wild})
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if counts[win_kind] == 0:
        raise UsageError(
            f"the winning tile {win} must be among the HAND tiles "
            "(HAND = concealed tiles including the winning tile)"
        )
    players = variant.n_players(rules)
    for name, place in (("--seat", seat), ("--dealer", dealer)):
        if not 0 <= place < players:
            raise UsageError(f"{name} must be 0..{players - 1}, got {place}")
    if not 0 <= streak <= MAX_STREAK:
        raise UsageError(f"--streak must be 0..{MAX_STREAK}, got {streak}")
    check_flags(variant, flags)
    if not 0 <= flowers <= variant.flower_tiles:
        if variant.flower_tiles == 0:
            raise UsageError(f"--flowers: {variant.name} has no flowers, got {flowers}")
        raise UsageError(f"--flowers must be 0..{variant.flower_tiles}, got {flowers}")
    if from_seat is not None:
        if not 0 <= from_seat < players or from_seat == seat:
            raise UsageError(f"--from must be another seat 0..{players - 1}, got {from_seat}")
    melds = parse_melds(melds)
    used = meld_tile_counts(melds)
    if ((counts + used) > 4).any():
        bad = tiles.kind_name(int(np.flatnonzero(counts + used > 4)[0]))
        raise UsageError(f"more than four {bad} between HAND and --melds")
    wilds = int(sum(counts[k] for k in wild_kinds))
    win_is_wild = win_kind in wild_kinds
    plain = counts.copy()
    plain[wild_kinds] = 0
    flagset = set(flags)
    if from_seat is None:
        win_type = L.WIN_KONG_DRAW if "gangkai" in flagset else L.WIN_SELF_DRAW
    else:
        win_type = L.WIN_ROB_KONG if "qianggang" in flagset else L.WIN_DISCARD
    try:
        return variant.score_hand(
            rules,
            plain,
            wilds,
            melds,
            -1 if win_is_wild else win_kind,
            win_type,
            seat,
            dealer,
            streak,
            flagset,
            discarder=from_seat,
            wild_kinds=wild_kinds,
            flowers=flowers,
        )
    except UsageError:
        raise
    except ValueError as exc:  # the hand checks of the scorer (tile count...)
        raise UsageError(f"{variant.name}: {exc}") from None


def check_flags(variant, flags) -> None:
    """UsageError naming a ``--flag`` the variant's scorer does not know."""
    unknown = sorted(set(flags) - set(variant.score_flags))
    if unknown:
        known = ", ".join(variant.score_flags) or "none"
        raise UsageError(f"unknown --flag {unknown[0]!r} for {variant.name}; flags: {known}")


# --- what every mahjong variant's score_hand shares ----------------------------------


def win_context(seat: int, dealer: int, win_type: int, melds, feeder=None, flags=()) -> np.ndarray:
    """The engine ctx array of one winning hand: the fields every variant's kernels read.

    As the game loop sets them: the winner, dealer and win type; the feeding seat
    ``feeder`` (the discarder, or the robbed kong player, who pays as a discarder) in
    X_DISCARDER and, for a robbed kong, in X_ROBBED; the first-turn flag (``tianhu`` or
    ``dihu`` among ``flags``); the number of kongs among ``melds``. Everything else is
    zero, for the variant to set (streaks, wild kinds, flowers, ...).
    """
    feeder = -1 if feeder is None or win_type not in (L.WIN_DISCARD, L.WIN_ROB_KONG) else feeder
    ctx = np.zeros(L.N_CTX, np.int64)
    ctx[L.X_WINNER] = seat
    ctx[L.X_DEALER] = dealer
    ctx[L.X_WIN_TYPE] = win_type
    ctx[L.X_DISCARDER] = feeder
    ctx[L.X_ROBBED] = feeder if win_type == L.WIN_ROB_KONG else -1
    ctx[L.X_FIRST_TURN] = int(bool({"tianhu", "dihu"} & set(flags)))
    ctx[L.X_KONGS] = sum(1 for m in melds if m[0] in (L.M_KONG, L.M_ADDKONG, L.M_ANKONG))
    return ctx


def melds8(melds) -> np.ndarray:
    """Exposed melds as the engine's int64 (8, 3) table (type, kind, from seat)."""
    m8 = np.zeros((8, 3), np.int64)
    m8[: len(melds)] = melds
    return m8


def pattern_names(patterns, bits: int) -> list[str]:
    """Names of the patterns whose bit is set in ``bits`` (bit i = ``patterns[i]``)."""
    return [p.name for i, p in enumerate(patterns) if (int(bits) >> i) & 1]


def settle_hand(settle, packed, ctx, bits: int) -> tuple[int, list[int], np.ndarray]:
    """Run a variant's ``settle`` kernel on one win (4 seats).

    Returns ``(value, deltas, extra)``: the kernel's value, the zero-sum points per seat,
    and its extra-columns array (variant-specific entries such as 底 or 花番).
    """
    pay = np.zeros((4, 4), np.int64)
    delta = np.zeros(4, np.int64)
    extra = np.zeros(L.MAX_EXTRA, np.int64)
    value = int(settle(packed, ctx, pay, int(bits), 4, delta, extra))
    return value, [int(x) for x in delta], extra
