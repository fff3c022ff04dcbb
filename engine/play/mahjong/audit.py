"""The decision audit of the mahjong family (``mjlab audit``): what the bots chose where
they had a choice.

Each deal is replayed with the event log on; the loop logs, beside what happened, every
choice a seat had (``E_OPTION`` rows, engine.mahjong.layout ``OPT_*``): a 碰, 明杠 or 吃
of a discard open to it, a 暗杠 or 补杠 open to the seat in turn, a legal win passed
(and why), and, at each discard from fourteen tiles that could keep a live wait, whether
the discard kept one. From the other events it counts the wilds discarded and the
deal-ins, among them those against an opponent visibly close to winning (three or more
melds shown, or 游金 declared).

The counts are of the seats' decisions over ``deals`` deals; a rate is a count over the
choices it was made from (the command line adds its interval).
"""

from __future__ import annotations

from collections import Counter

from engine.mahjong import layout as L
from engine.play.drivers import replay_deal
from engine.play.mahjong.testing import DRIVER

__all__ = ["COUNTS", "audit_mahjong"]

COUNTS = (
    "deals", "decisions",
    "pong_made", "pong_declined", "honor_pong_made", "honor_pong_declined",
    "mingkong_made", "mingkong_declined", "chow_made", "chow_declined",
    "ankong_made", "ankong_declined", "addkong_made", "addkong_declined",
    "win_passed_discard", "win_passed_self", "win_passed_rob",
    "passed_for_jinque", "passed_for_self_draw", "passed_for_youjin",
    "wild_discarded", "wait_kept", "wait_broken",
    "deal_in", "deal_in_visible",
)  # fmt: skip
"""The counters of an audit, in the order the command line prints them."""

_OPT_COUNT = {
    L.OPT_MINGKONG: "mingkong",
    L.OPT_CHOW: "chow",
    L.OPT_ANKONG: "ankong",
    L.OPT_ADDKONG: "addkong",
}
_PASS_COUNT = {
    L.OPT_PASS_DISCARD: "win_passed_discard",
    L.OPT_PASS_SELF: "win_passed_self",
    L.OPT_PASS_ROB: "win_passed_rob",
}
_WHY = {
    L.PASS_JINQUE: "passed_for_jinque",
    L.PASS_SELF_DRAW: "passed_for_self_draw",
    L.PASS_YOUJIN: "passed_for_youjin",
}
VISIBLE_MELDS = 3
"""Melds shown that make an opponent visibly close to winning (four or fewer tiles hidden
in a 13-tile game)."""


def _count_deal(events, out: Counter) -> None:
    """Add one logged deal's choices to ``out``."""
    wilds: set[int] = set()
    melds: Counter = Counter()
    youjin: set[int] = set()
    for code, a, b, c, d in events.tolist():
        if code == L.E_WILD:
            wilds |= {x for x in (b, c) if x >= 0}
        elif code == L.E_CLAIM or (code == L.E_KONG and b == L.M_ANKONG and d == 0):
            melds[a] += 1
        elif code == L.E_YOUJIN:
            youjin.add(a)
        elif code == L.E_DISCARD and b in wilds:
            out["wild_discarded"] += 1
        elif code == L.E_WIN and d >= 0 and b in (L.WIN_DISCARD, L.WIN_ROB_KONG):
            out["deal_in"] += 1
            if melds[a] >= VISIBLE_MELDS or a in youjin:
                out["deal_in_visible"] += 1
        elif code == L.E_OPTION:
            out["decisions"] += 1
            taken = d == 1
            if b == L.OPT_PONG:
                key = "honor_pong" if c >= 27 else "pong"
                out[f"{key}_{'made' if taken else 'declined'}"] += 1
            elif b in _OPT_COUNT:
                out[f"{_OPT_COUNT[b]}_{'made' if taken else 'declined'}"] += 1
            elif b in _PASS_COUNT:
                out[_PASS_COUNT[b]] += 1
                out[_WHY[d]] += 1
            elif b == L.OPT_WAIT:
                out["wait_kept" if taken else "wait_broken"] += 1


def audit_mahjong(variant, resolved, seed: int, deals: int, policies, match_length: int = 16,
                  overrides=None) -> dict[str, int]:  # fmt: skip
    """The decision counts (:data:`COUNTS`) of ``deals`` deals of ``variant`` under
    ``resolved`` rules, ``policies`` at the seats (with per-seat parameter ``overrides``),
    the deals of seed ``seed`` in matches of ``match_length``.
    """
    out: Counter = Counter({k: 0 for k in COUNTS})
    n_matches = -(-deals // match_length)
    done = 0
    for m in range(n_matches):
        for d in range(min(match_length, deals - done)):
            events, _, _, _ = replay_deal(DRIVER, variant.name, seed, m, d, resolved, policies,
                                          match_length, overrides)  # fmt: skip
            _count_deal(events, out)
            out["deals"] += 1
        done += match_length
    return {k: int(out[k]) for k in COUNTS}
