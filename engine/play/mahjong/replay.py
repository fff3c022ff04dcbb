"""Replays of the mahjong family: one deal told turn by turn (``mjlab replay``).

:func:`replay` plays one match up to a deal with the event log on and prints that deal
turn by turn, so a person can check the rules by reading.
"""

from __future__ import annotations

import numpy as np

from engine import tiles
from engine.mahjong import layout as L
from engine.play.drivers import replay_entry_points, replay_footer
from engine.play.mahjong.testing import DRIVER

__all__ = ["replay", "replay_events", "render"]


def _t(phys: int) -> str:
    if phys < 0:
        return "?"
    if phys >= 34:
        return f"f{phys - 33}"
    return f"{tiles.kind_name(phys)} {tiles.glyph(phys)}"


def _flower(phys: int) -> str:
    if phys >= 34:
        return f"f{phys - 33} {tiles.FLOWER_NAMES[phys - 34]}"
    return f"{tiles.kind_name(phys)} {tiles.glyph(phys)}"


def _hand_text(counts) -> str:
    counts = np.asarray(counts[:34])
    return f"{tiles.format(counts) or '-'}  {tiles.glyphs(counts)}"


def render(variant: str, events, row, final, resolved, header: str) -> str:
    """The text of one logged deal (``events`` from the kernel log, its record ``row``)."""
    from engine.variants import get

    v = get(variant)
    players = v.n_players(resolved)
    out = [
        header,
        f"dealer: seat {row['dealer']} (held {row['dealer_streak']} deals before this one)",
    ]
    hands: dict[int, np.ndarray] = {s: np.zeros(42, np.int64) for s in range(players)}
    turn = 0
    dealt = False
    names = L.MELD_NAMES
    setup = (L.E_DEAL, L.E_TILE, L.E_WILD, L.E_FLOWER)
    for code, a, b, c, d in events.tolist():
        if not dealt and code not in setup:
            # the hands after 补花 and 开金, before the first move (or an opening win)
            dealt = True
            for s in range(players):
                out.append(f"  seat {s} dealt: {_hand_text(hands[s])}")
        if code == L.E_WILD:
            if b >= 0:
                wild = tiles.kind_name(b) + (f", {tiles.kind_name(c)}" if c >= 0 else "")
                ind = f" (indicator {_t(a)})" if a >= 0 else ""
                out.append(f"wild kinds: {wild}{ind}")
        elif code == L.E_TILE:
            hands[a][b] += c
        elif code == L.E_DRAW:
            turn += 1
            src = "the tail" if c else "the wall"
            out.append(f"{turn:>3}. seat {a} draws {_t(b)} from {src}")
        elif code == L.E_DISCARD:
            if turn == 0:
                turn = 1
                size = 3 * int(v.pack(resolved)[L.R_SETS]) + 2
                out.append(f"{turn:>3}. seat {a} (dealer) plays from {size} tiles")
            out.append(f"     seat {a} discards {_t(b)}")
        elif code == L.E_CLAIM:
            out.append(f"     seat {a} claims {names[b]} with {_t(c)} from seat {d}")
        elif code == L.E_KONG:
            robbed = ": robbed" if d == 1 else ""
            out.append(f"     seat {a} declares {names[b]} of {_t(c)}{robbed}")
        elif code == L.E_WIN:
            how = L.WIN_TYPE_NAMES[b].replace("_", " ")
            fed = f" fed by seat {d}" if d >= 0 else ""
            on = f"on {_t(c)}" if c >= 0 else "with the dealt tiles"
            out.append(f"seat {a} wins ({how}) {on}{fed}")
        elif code == L.E_DRAWN_GAME:
            out.append("drawn deal (流局): no live tile left")
        elif code == L.E_HORSE:
            out.append(f"horse: {_t(a)}")
        elif code == L.E_FLOWER:
            how = "no replacement" if c == 1 else "补花"
            out.append(f"     seat {a} shows flower {_flower(b)} ({how})")
        elif code == L.E_YOUJIN:
            out.append(f"     seat {a} 游金 level {b}")
        elif code == L.E_PENALTY:
            out.append(f"penalty: seat {a} pays {b} to each other seat")
    winner = int(row["winner"])
    if winner >= 0:
        hand = final[11]
        pats = [c[4:] for c in v.pattern_columns() if row[c]]
        out.append(
            f"winning hand (concealed, wilds apart): {_hand_text(hand)}  wilds={int(hand[34])}"
        )
        out.append(f"patterns: {', '.join(pats) or '(none)'}; value {row['value']} {v.value_unit}")
    for s in range(players):
        out.append(
            f"  seat {s} ends with: {_hand_text(final[s])}  melds: "
            f"{_hand_text(final[4 + s]) if final[4 + s].any() else '-'}"
        )
    out += replay_footer(v, row, players)
    return "\n".join(out)


replay_events, replay = replay_entry_points(DRIVER, render)
