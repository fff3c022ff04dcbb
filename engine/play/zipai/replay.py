"""字牌 replays: one deal turn by turn, in words a person can check against the rules.

:func:`replay` plays one match up to a deal with the kernel's event log on and prints
that deal: the hands dealt, every card turned up and what happened to it (倾, 啸, 跑, 碰,
吃 with its 下火 groups, passes, dead cards), every discard, the win with its 胡息, 醒, 囤
and 番, or the 黄庄, the groups each seat ended with, and the payments. ``mjlab replay
luodisao`` prints it.
"""

from __future__ import annotations

import numpy as np

from engine import abi
from engine.play.drivers import replay_entry_points, replay_footer
from engine.play.zipai.testing import DRIVER
from engine.zipai import cards
from engine.zipai import layout as Z

__all__ = ["replay", "replay_events", "render"]

_HOW_QING = ("four dealt alike", "his 坎 and his own flip", "his 啸 and his own flip")
_HOW_PAO = ("onto his 坎", "onto his 啸", "onto his 碰")


def _c(k: int) -> str:
    """One card: notation and hanzi (``x3 三``, ``w 王``)."""
    if k < 0:
        return "?"
    return f"{cards.card_name(k)} {cards.card_hanzi(k)}"


def _hand(counts) -> str:
    counts = np.asarray(counts, dtype=np.int64)
    if not counts.any():
        return "-"
    text = cards.format(counts[:20].astype(np.uint8), int(counts[20]))
    return f"{text}  {cards.names(counts[:20].astype(np.uint8), int(counts[20]))}"


def _group(kinds) -> str:
    kinds = [k for k in kinds if k >= 0]
    return (
        "".join(cards.card_name(k) for k in kinds)
        + " "
        + "".join(cards.card_hanzi(k) for k in kinds)
    )


def render(variant: str, events, row, final, resolved, header: str) -> str:
    """回放 text of one logged deal (``events`` from the kernel log, its record ``row``)."""
    from engine.variants import get

    v = get(variant)
    seats = v.n_players(resolved)
    zx = int(row["zuoxing"])
    out = [
        header,
        f"dealer: seat {row['dealer']} (held {row['dealer_streak']} deals before this one)"
        + (f"; seat {zx} sits out (坐醒)" if zx >= 0 else ""),
    ]
    hands = {s: np.zeros(21, np.int64) for s in range(seats)}
    groups: dict[int, list[str]] = {s: [] for s in range(seats)}
    alike: dict[tuple[int, int], int] = {}
    turn = 0
    dealt_shown = False
    chi_index = 0

    def show_dealt():
        for s in range(seats):
            if s == zx:
                continue
            out.append(f"  seat {s} dealt: {_hand(hands[s])}")

    for code, a, b, c, d in events.tolist():
        if code != Z.EV_DEAL and not dealt_shown:
            show_dealt()
            dealt_shown = True
        if code == Z.EV_DEAL:
            hands[a][b] += c
        elif code == Z.EV_QING:
            text = f"倾 {_group([b] * 4)}"
            if c == 2:
                groups[a][alike[(a, b)]] = text
            else:
                alike[(a, b)] = len(groups[a])
                groups[a].append(text)
            out.append(f"     seat {a} lays 倾 of {_c(b)} ({_HOW_QING[c]}; no discard)")
        elif code == Z.EV_FLIP:
            turn += 1
            out.append(f"{turn:>3}. seat {a} turns up {_c(b)}")
        elif code == Z.EV_XIAO:
            name = "臭啸" if c else "啸"
            alike[(a, b)] = len(groups[a])
            groups[a].append(f"{name} {_group([b] * 3)}")
            note = " (he passed a 碰 of it: shown one up)" if c else ""
            out.append(f"     seat {a} {name}s {_c(b)} with the pair in his hand{note}")
        elif code == Z.EV_PAO:
            text = f"跑 {_group([b] * 4)}"
            if d == 0:
                alike[(a, b)] = len(groups[a])
                groups[a].append(text)
            else:
                groups[a][alike[(a, b)]] = text
            whose = "his own card" if c == a else f"seat {c}'s card"
            out.append(f"     seat {a} 跑s {_c(b)} {_HOW_PAO[d]} ({whose})")
        elif code == Z.EV_PENG:
            alike[(a, b)] = len(groups[a])
            groups[a].append(f"碰 {_group([b] * 3)}")
            out.append(f"     seat {a} 碰s {_c(b)} from seat {c}")
        elif code == Z.EV_CHI:
            whose = "his own card" if c == a else f"seat {c}'s card"
            out.append(f"     seat {a} 吃s {_c(b)} ({whose}):")
            chi_index = 0
        elif code == Z.EV_GROUP:
            kind = "吃" if chi_index == 0 else "比"
            chi_index += 1
            groups[a].append(f"{kind} {_group([b, c, d])}")
            out.append(f"       {kind} {_group([b, c, d])}")
        elif code == Z.EV_DISCARD:
            out.append(f"     seat {a} discards {_c(b)}")
        elif code == Z.EV_PASS:
            what = "吃" if c == 1 else "碰"
            out.append(f"     seat {a} passes the {what} of {_c(b)} (过张)")
        elif code == Z.EV_DEAD:
            out.append(f"     {_c(a)} is dead")
        elif code == Z.EV_SISHOU:
            out.append(f"     seat {a} has nothing to discard (死守)")
        elif code == Z.EV_MINGPAO:
            out.append(f"     seat {a} fed a 跑 onto a 啸 (冲明跑): no more 吃 or 碰 for him")
        elif code == Z.EV_DECLINE:
            out.append(f"     seat {a} could win on {_c(b)} and passes")
        elif code == Z.EV_WIN:
            how = abi.WIN_TYPE_NAMES[b].replace("_", " ")
            if b == abi.WIN_INSTANT:
                out.append(f"seat {a} wins at once (天胡) with the cards dealt")
            elif b == abi.WIN_SELF_DRAW:
                out.append(f"seat {a} wins (self-draw) on {_c(c)}")
            else:
                src = "turned up by" if int(row["win_on_flip"]) else "discarded by"
                out.append(f"seat {a} wins ({how}) on {_c(c)} {src} seat {d}")
        elif code == Z.EV_XING:
            card = "-" if a < 0 else _c(a)
            out.append(f"醒 card {card}: {b} 醒")
        elif code == Z.EV_SCORE:
            out.append(f"胡息 {a} + 3 × 醒 {b} = {c} 囤; 番 {d}; value {c * d}")
        elif code == Z.EV_HUANG:
            out.append("黄庄: the stock is empty, nobody won")
    if not dealt_shown:
        show_dealt()
    winner = int(row["winner"])
    if winner >= 0:
        pats = [c[4:] for c in v.pattern_columns() if row[c]]
        out.append(
            f"patterns: {', '.join(pats) or '(none)'}; red cards {int(row['red'])}; "
            f"value {row['value']} {v.value_unit}"
        )
    for s in range(seats):
        if s == zx:
            continue
        conc = _hand(final[Z.FZ_HAND + s])
        table = "; ".join(groups[s]) or "-"
        out.append(f"  seat {s} ends with: {conc}  table: {table}")
    out += replay_footer(v, row, seats, skip=("zuoxing",))
    return "\n".join(out)


replay_events, replay = replay_entry_points(DRIVER, render)
