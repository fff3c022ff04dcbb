"""The 字牌 decision audit (engine.play.zipai.audit): counts on logs whose counts are known.

- Hand-made event logs, each built so that the count it tests is known by construction
  (a 吃 that spends a pair for no 胡息, a wait broken while its cards are live and the
  same discard once they are all seen, a deal-in to a table of three groups, passed wins
  on a discard, another's flip and one's own).
- Played deals: the audit's claim and pass counts equal the lines of the replay text
  (an independent reading of the same log), and the hands and tables it rebuilds from
  the log are the kernel's own final state.
- Which keys the rules allow, the per-policy keys of a mixed table, determinism.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine import abi
from engine.play.zipai import audit as A
from engine.play.zipai.replay import render, replay_events
from engine.play.zipai.scenario import play_deck
from engine.variants import get
from engine.zipai import cards
from engine.zipai import layout as Z

V = get("luodisao")


def _deal(hands: dict[int, str]) -> list[list[int]]:
    """EV_DEAL rows of ``{seat: notation}``."""
    rows = []
    for s, text in hands.items():
        counts, kings = cards.parse(text)
        for k in range(20):
            if counts[k]:
                rows.append([Z.EV_DEAL, s, k, int(counts[k]), 0])
        if kings:
            rows.append([Z.EV_DEAL, s, 20, kings, 0])
    return rows


def _c(name: str) -> int:
    return cards.card(name)


# The dealer's 15 cards wait on 肆 / 柒 (陆伍 + 一二三, 贰柒拾, 四五六, 七八九) once 玖 or
# 伍 / 陆 is gone: discarding 玖 keeps the wait, 伍 breaks it.
DEALER = "x1x2x3 d2d7d10 x4x5x6 x7x8x9 d5d6 d9"
OTHERS = {
    1: "x1x1 x10x10x10 d1d1 d3 d8 x2 x3 d3 d8 d9",
    2: "x4x4 x5 x6 x7 x8 x9 d4 d4 x2 x3 x10 d1 d9",
}


def _audit(rows, rules=None, policies="value"):
    return A.audit_events(V, V.resolve(rules or {"kings": 0}), np.array(rows), policies)


@pytest.mark.parametrize(("discard", "broken"), [("d5", 1), ("d6", 1), ("d9", 0)])
def test_a_discard_that_leaves_a_live_wait_unmade_is_counted(discard, broken):
    rows = _deal({0: DEALER, **OTHERS}) + [[Z.EV_DISCARD, 0, _c(discard), 0, 0]]
    got = _audit(rows)
    assert got["wait_broken_live"] == broken
    assert got["decisions"] == 1


def test_a_wait_on_cards_all_seen_is_not_live():
    """Every 肆 and 柒 the dealer cannot hold is seen (dead): his wait is not live, so
    breaking it is no blunder."""
    seen = []
    for k, n in ((_c("d4"), 4), (_c("d7"), 3)):
        for _ in range(n):
            seen += [[Z.EV_FLIP, 1, k, 0, 0], [Z.EV_DEAD, k, 1, 0, 0]]
    rows = _deal({0: DEALER, 1: OTHERS[1]}) + seen + [[Z.EV_DISCARD, 0, _c("d5"), 0, 0]]
    assert _audit(rows)["wait_broken_live"] == 0
    # one 柒 left unseen: live again
    rows = _deal({0: DEALER, 1: OTHERS[1]}) + seen[:-2] + [[Z.EV_DISCARD, 0, _c("d5"), 0, 0]]
    assert _audit(rows)["wait_broken_live"] == 1


def _chi(seat, card, owner, *groups):
    rows = [[Z.EV_CHI, seat, _c(card), owner, len(groups)]]
    for g in groups:
        a, b, c = (_c(x) for x in g.split())
        rows.append([Z.EV_GROUP, seat, a, b, c])
    return rows


def test_chi_counts_and_pairs_spent_for_no_huxi():
    """Seat 1 holds 一一 二二 三 五五 六: 吃 of 四 with 三五 (句, 0 胡息) spends a 五 of his
    pair; a later 吃 of 三 with 一二 (一二三, 3 胡息) spends a pair too but makes 胡息; a
    吃 of 七 with 五六 ... he passes."""
    hands = {0: DEALER, 1: "x1x1 x2x2 x3 x5x5 x6 d1 d2 d3 d8 d9 d10", 2: OTHERS[2]}
    rows = _deal(hands)
    rows += [[Z.EV_DISCARD, 0, _c("x4"), 0, 0]]
    rows += _chi(1, "x4", 0, "x3 x4 x5")
    rows += [[Z.EV_DISCARD, 1, _c("d8"), 0, 0], [Z.EV_DEAD, _c("d8"), 1, 0, 0]]
    rows += [[Z.EV_FLIP, 2, _c("x3"), 0, 0]]
    rows += _chi(1, "x3", 2, "x1 x2 x3")
    rows += [[Z.EV_DISCARD, 1, _c("d9"), 0, 0], [Z.EV_DEAD, _c("d9"), 1, 0, 0]]
    rows += [[Z.EV_FLIP, 2, _c("x7"), 0, 0], [Z.EV_PASS, 1, _c("x7"), 1, 0]]
    rows += [[Z.EV_PASS, 2, _c("x7"), 2, 0], [Z.EV_DEAD, _c("x7"), 2, 0, 0]]
    got = _audit(rows)
    assert (got["chi_made"], got["chi_declined"], got["chi_zero_huxi"]) == (2, 1, 1)
    assert got["pair_spent_zero_huxi_chi"] == 1
    assert (got["peng_made"], got["peng_declined"]) == (0, 1)


def test_a_deal_in_to_a_visibly_close_table():
    """Seat 2 碰s three times (three table groups); seat 1's discard he wins on is a deal-in
    against a visibly close table. The same win with one table group is a plain deal-in."""
    hands = {0: DEALER, 1: OTHERS[1], 2: "x4x4 x8x8 d4d4 x5 x6 x7 x9 d1 d9 d10 x2"}
    head = _deal(hands)
    pengs = []
    for k, out in (("x4", "x2"), ("x8", "d10"), ("d4", "d9")):
        pengs += [[Z.EV_FLIP, 0, _c(k), 0, 0], [Z.EV_PENG, 2, _c(k), 0, 0]]
        pengs += [[Z.EV_DISCARD, 2, _c(out), 0, 0], [Z.EV_DEAD, _c(out), 2, 0, 0]]
    win = [[Z.EV_DISCARD, 1, _c("d3"), 0, 0], [Z.EV_WIN, 2, abi.WIN_DISCARD, _c("d3"), 1]]
    got = _audit(head + pengs + win)
    assert (got["deal_in"], got["deal_in_visible"], got["peng_made"]) == (1, 1, 3)
    got = _audit(head + pengs[:4] + win)
    assert (got["deal_in"], got["deal_in_visible"], got["peng_made"]) == (1, 0, 1)
    # a win on a card the feeder turned up is paid by all: no deal-in
    flip = [[Z.EV_FLIP, 1, _c("d3"), 0, 0], [Z.EV_WIN, 2, abi.WIN_DISCARD, _c("d3"), 1]]
    assert _audit(head + pengs + flip)["deal_in"] == 0


def test_passed_wins_by_where_the_card_came_from():
    rows = _deal({0: DEALER, **OTHERS})
    rows += [[Z.EV_DISCARD, 0, _c("d9"), 0, 0], [Z.EV_DECLINE, 2, _c("d9"), 0, 0]]
    rows += [[Z.EV_DEAD, _c("d9"), 0, 0, 0]]
    rows += [[Z.EV_FLIP, 1, _c("x10"), 0, 0], [Z.EV_DECLINE, 2, _c("x10"), 0, 0]]
    rows += [[Z.EV_DEAD, _c("x10"), 1, 0, 0]]
    rows += [[Z.EV_FLIP, 2, _c("d2"), 0, 0], [Z.EV_DECLINE, 2, _c("d2"), 0, 0]]
    got = _audit(rows, {"kings": 0, "must_win": "none"})
    assert got["win_passed"] == 3
    assert got["win_passed_discard"] == got["win_passed_flip"] == got["win_passed_self_draw"] == 1


def test_keys_follow_what_the_rules_allow_and_mixed_tables_count_per_policy():
    rows = _deal({0: DEALER, **OTHERS}) + [[Z.EV_DISCARD, 0, _c("d5"), 0, 0]]
    default = _audit(rows, {"kings": 0})
    assert "win_passed" in default and "win_passed_discard" not in default  # 放炮必胡
    assert not any(k.startswith("win_passed") for k in _audit(rows, {"must_win": "any"}))
    assert "win_passed_discard" in _audit(rows, {"must_win": "none"})
    assert not any("wang" in k for k in default)  # a 王 is never discarded
    mixed = _audit(rows, {"kings": 0}, "value,efficiency,efficiency")
    assert mixed["value:wait_broken_live"] == mixed["wait_broken_live"] == 1
    assert mixed["efficiency:wait_broken_live"] == 0 and mixed["value:decisions"] == 1
    assert set(default) <= set(A.KEYS)


# ---- played deals ------------------------------------------------------------------------


def _lines(text: str, needle: str) -> int:
    return sum(needle in line for line in text.splitlines())


@pytest.mark.parametrize(
    ("rules", "policies"),
    [({}, "value"), ({}, "strong,value,efficiency"), ({"kings": 2, "must_win": "none"}, "value"),
     ({"players": 4}, "strong")],
)  # fmt: skip
def test_played_deals_agree_with_the_replay_text_and_the_final_state(rules, policies):
    """Over 24 logged deals: 吃 / 碰 made and passed and the passed wins equal the replay
    text's lines; the hands and table cards the audit rebuilds from the log equal the
    kernel's final zones (the winning card aside)."""
    resolved = V.resolve(rules)
    tally = A._Tally(V, resolved, policies)
    totals = dict.fromkeys(("chi", "chi_pass", "peng", "peng_pass", "declines"), 0)
    for m in range(3):
        for d in range(8):
            events, row, final, _ = replay_events("luodisao", 4, m, d, rules, policies)
            text = render("luodisao", events, row, final, resolved, "")
            totals["chi"] += _lines(text, " 吃s ")
            totals["chi_pass"] += _lines(text, "passes the 吃")
            totals["peng"] += _lines(text, " 碰s ")
            totals["peng_pass"] += _lines(text, "passes the 碰")
            totals["declines"] += _lines(text, "and passes")
            st = A._Deal(tally.packed, tally.values, tally.seats, resolved["kings"])
            A._walk(np.asarray(events), st, tally.names, tally.must_win, tally.counts)
            tally.deals += 1
            for s in range(tally.seats):
                assert (st.hand[s] == final[Z.FZ_HAND + s]).all(), (m, d, s)
                table = np.zeros(21, np.int64)
                for typ, kind, _ in st.tab[s]:
                    if typ != Z.T_CHI:
                        table[kind] += 4 if typ in (Z.T_QING, Z.T_PAO) else 3
                chi = final[Z.FZ_TABLE + s].astype(np.int64) - table
                assert (chi >= 0).all() and chi.sum() == 3 * sum(
                    1 for g in st.tab[s] if g[0] == Z.T_CHI
                )
    got = tally.result()
    assert got["chi_made"] == totals["chi"] and got["chi_declined"] == totals["chi_pass"]
    assert got["peng_made"] == totals["peng"] and got["peng_declined"] == totals["peng_pass"]
    assert got.get("win_passed", 0) == totals["declines"]
    assert got["deals"] == 24 and got["chi_made"] + got["peng_made"] > 0


def test_a_stacked_deal_of_known_decisions():
    """The dealer's first discard 壹 (seat 1 holds 壹壹 inside 壹贰叁, a whole group): the
    efficiency bot passes the 碰, which the audit counts with the deal's other passes."""
    d = play_deck({0: "x1x1x1 x3x3x3 x5x5x5 d8d8d8 x6x7 d1",
                   1: "d1d1 d2d3 d6d6d6 x8x9x10 x2x7x10 x4"}, "d1",
                  rules={"kings": 0}, policies="efficiency")  # fmt: skip
    first = d.text.splitlines().index("     seat 1 passes the 碰 of d1 壹 (过张)")
    assert "seat 0 discards d1" in d.text.splitlines()[first - 1]
    got = A.audit_events(V, V.resolve({"kings": 0}), d.events, "efficiency")
    assert got["peng_declined"] == _lines(d.text, "passes the 碰") >= 1
    assert got["chi_declined"] == _lines(d.text, "passes the 吃")
    assert got["deals"] == 1


def test_audit_is_a_pure_function_of_its_arguments():
    rules = V.resolve({})
    a = A.audit_zipai("luodisao", rules, 3, 20, "value", match_length=8)
    b = A.audit_zipai(V, rules, 3, 20, "value", match_length=8)
    assert a == b and a["deals"] == 20 and a["decisions"] > 0
