"""Hand-made deals: play a stacked deck (tests, documentation, examples).

:func:`play_deck` deals the given hands and stock instead of a shuffle and plays the deal
with the bots, returning its record, event log and text, so a test can set up any
situation of RULEBOOK §4 (a forced 倾, a 冲明跑, a 王钓) and check what the engine did.

>>> from engine.play.zipai.scenario import play_deck
>>> d = play_deck(
...     {0: "x1x2x3 d2d7d10 x4x4d4 d5d5d5 x8x9x10"},  # the dealer's 15 cards win at once
...     rules={"kings": 0},
... )
>>> str(d.row["win_type"]), int(d.row["huxi"])
('instant', 15)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from engine import abi
from engine.errors import UsageError
from engine.zipai import cards
from engine.zipai import layout as Z

__all__ = ["Deal", "stack_deck", "play_deck"]


class Deal(NamedTuple):
    """一局 one played deal: its record row, event log, final card zones and replay text."""

    row: pd.Series
    events: np.ndarray
    final: np.ndarray
    text: str


def _seat_order(dealer: int, seats: int, zx: int) -> list[int]:
    order, s = [], dealer
    while len(order) < seats - (1 if zx >= 0 else 0):
        order.append(s)
        s = (s + 1) % seats
        if s == zx:
            s = (s + 1) % seats
    return order


def stack_deck(hands, stock="", *, dealer=0, seats=3, kings=1, zuoxing=False) -> np.ndarray:
    """摆牌 the deck (int64 card codes, stock order) dealing ``hands``, flipping ``stock``.

    ``hands``: ``{seat: notation}``; the dealer holds 15 cards, the others 14; seats left
    out are filled from the unused cards. ``stock``: the first cards turned up, in order.
    The other cards follow in kind order (王 last). ValueError on a wrong count.
    """
    zx = (dealer + 2) % seats if zuoxing else -1
    left = np.full(21, 4, np.int64)
    left[20] = kings
    parsed = {}
    for seat, text in hands.items():
        c, k = cards.parse(text)
        want = 15 if seat == dealer else 14
        if int(c.sum()) + k != want:
            raise ValueError(f"seat {seat} holds {int(c.sum()) + k} cards, the deal gives {want}")
        parsed[seat] = np.concatenate([np.repeat(np.arange(20), c), np.full(k, 20)])
        left[:20] -= c
        left[20] -= k
    flips = []
    if stock:
        c, k = cards.parse(stock.replace(",", " "), allow_empty=True)
        # Keep the written order: parse token by token.
        for tok in stock.replace(",", " ").split():
            for name in _split(tok):
                flips.append(cards.card(name))
        left[:20] -= c
        left[20] -= k
    if (left < 0).any():
        bad = int(np.flatnonzero(left < 0)[0])
        raise ValueError(f"more copies of {cards.card_name(bad)} than the deck holds")
    rest = list(np.repeat(np.arange(21), left))
    deck = []
    for seat in _seat_order(dealer, seats, zx):
        want = 15 if seat == dealer else 14
        if seat in parsed:
            deck += list(parsed[seat])
        else:
            deck += rest[:want]
            rest = rest[want:]
    deck += flips + rest
    return np.array(deck, np.int64)


def _split(token: str) -> list[str]:
    """Card names of one notation token (``x1x2d3`` -> x1 x2 d3; hanzi one by one)."""
    out, i = [], 0
    while i < len(token):
        ch = token[i]
        if ch in "xd":
            j = i + 1
            while j < len(token) and token[j].isdigit():
                j += 1
            out.append(token[i:j])
            i = j
        else:
            out.append(ch)
            i += 1
    return out


def play_deck(
    hands,
    stock="",
    *,
    dealer=0,
    rules=None,
    policies="value",
    seed=0,
    variant="luodisao",
    params=None,
) -> Deal:
    """摆牌 play one deal of a stacked deck (:func:`stack_deck`) with the bots.

    ``params``: ``{policy: {parameter: value}}``, overrides of the committed parameters for
    every seat playing that policy.
    """
    from engine.play.records import to_frame
    from engine.play.zipai.loop import play_match
    from engine.play.zipai.replay import render
    from engine.play.zipai.testing import _seat_bots
    from engine.variants import get

    v = get(variant)
    resolved = v.resolve(rules)
    packed = v.pack(resolved)
    seats = v.n_players(resolved)
    if not 0 <= dealer < seats:
        raise UsageError(f"dealer must be 0..{seats - 1}")
    deck = stack_deck(
        hands,
        stock,
        dealer=dealer,
        seats=seats,
        kings=resolved["kings"],
        zuoxing=resolved["zuoxing"],
    )
    pols, bots = _seat_bots(v, resolved, policies)
    if params:
        from engine.play.bots import seat_bots

        names = [abi.POLICY_NAMES[c] for c in pols]
        over = {s: params[p] for s, p in enumerate(names) if p in params}
        pols, bots = seat_bots(v, resolved, names, over)
    rec = np.zeros((1, abi.N_COLS), np.int32)
    final = np.zeros((1, Z.N_ZONES, 21), np.int16)
    log = np.zeros((Z.MAX_EVENTS, Z.EVENT_COLS), np.int32)
    play_match(
        packed, pols, seed, 0, 1, rec, final, log, 0, deck, dealer, bots, np.zeros((1, 1), np.int64)
    )
    used = int(np.flatnonzero(log[:, 0])[-1]) + 1 if log[:, 0].any() else 0
    frame = to_frame(
        rec,
        np.array([0]),
        np.array([0]),
        seed=seed,
        variant=v,
        rules_id=v.rules_id(resolved),
        players=seats,
    )
    row = frame.iloc[0]
    text = render(variant, log[:used], row, final[0], resolved, f"stacked deal of {variant}")
    return Deal(row, log[:used], final[0], text)
