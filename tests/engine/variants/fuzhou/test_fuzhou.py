"""福州麻将: 补花, 开金, 抢金, the reserve and the last group on scripted walls; scoring of
every special and formula; conformance; exact deal events (RULEBOOK §3, seed 002)."""

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from oracles import settlement as TW
from scipy.stats import binomtest

from engine import tiles, variants
from engine.errors import UsageError
from engine.hand._tables import kernel_tables
from engine.mahjong import layout as L
from engine.mahjong.params import N_BOT
from engine.play.bots import seat_bots
from engine.runs.testing import check_variant
from engine.variants import fuzhou as F
from engine.variants._scoring import parse_melds
from tests.oracles import hand_bruteforce as bf

V = variants.get("fuzhou")
TAB = kernel_tables()


# ---- scripted walls ----------------------------------------------------------------------


def seq(text: str) -> list[int]:
    """Physical kinds of space-separated single tiles, in order: ``"f1 1z 5m"``."""
    out = []
    for tok in text.split():
        out.append(33 + int(tok[1:]) if tok[0] == "f" else tiles.kind(tok))
    return out


def multiset(text: str) -> list[int]:
    """Physical kinds of a notation with flowers: ``"123m 11z f1"`` (order not kept)."""
    counts, fl = tiles.parse(text, flowers=True)
    return [k for k in range(34) for _ in range(counts[k])] + [34 + i for i in range(8) if fl[i]]


def wall_of(dealer: int, hands: dict, draws: str = "", tail: str = "") -> np.ndarray:
    """A 144-tile wall: the hands from the head (dealer first, 17 then 16 each), then the
    normal draws in order; ``tail`` is drawn from the tail end in order; other tiles fill
    the middle (suited kinds first, flowers last, so that the middle is never reached)."""
    head = []
    for j in range(4):
        s = (dealer + j) % 4
        h = multiset(hands[s])
        assert len(h) == (17 if s == dealer else 16), (s, len(h))
        head += h
    head += seq(draws)
    back = seq(tail)
    left = np.full(L.N_PHYS, 1, np.int64)
    left[:34] = 4
    for k in head + back:
        left[k] -= 1
    assert (left >= 0).all(), "a tile is used too often"
    middle = [k for k in range(L.N_PHYS) for _ in range(left[k])]
    wall = np.array(head + middle + back[::-1], np.int64)
    assert len(wall) == 144
    return wall


def play(wall, dealer=0, rules=None, policies="efficiency", wins=0, edit=None):
    """Play one deal on ``wall``: (record row, ctx, final zones, event log)."""
    from engine.play.mahjong.loop import FINAL_ZONES, play_preset

    r = V.pack(V.resolve(rules))
    if edit:
        for slot, value in edit.items():
            r[slot] = value
    res = V.resolve(rules)
    pols, bots = seat_bots(V, res, (policies,) * 4)
    rec = np.zeros(L.N_COLS, np.int32)
    final = np.zeros((FINAL_ZONES, L.N_PHYS), np.int16)
    log = np.zeros((L.MAX_EVENTS, L.EVENT_COLS), np.int32)
    no_obs = np.zeros((1, 1), np.int64)
    ctx = play_preset(r, pols, bots, wall, dealer, wins, TAB, rec, final, log, no_obs)
    used = int(np.flatnonzero(log[:, 0])[-1]) + 1
    return rec, ctx, final, log[:used]


def events(log, code):
    return [tuple(int(x) for x in row[1:]) for row in log if row[0] == code]


def dealt(log, seat):
    """The seat's hand after 补花 and 开金 (E_TILE rows): physical counts (42,)."""
    out = np.zeros(L.N_PHYS, np.int64)
    for s, k, n, _ in events(log, L.E_TILE):
        if s == seat:
            out[k] += n
    return out


def counts_of(text):
    return np.bincount(multiset(text), minlength=L.N_PHYS)


def bits_of(rec):
    return (int(rec[L.C_PAT_LO]) & 0x7FFFFFFF) | ((int(rec[L.C_PAT_HI]) & 0x7FFFFFFF) << 31)


def pats(rec):
    b = bits_of(rec)
    return {p.name for i, p in enumerate(F.PATTERNS) if (b >> i) & 1}


FAR = {  # hands far from complete (shanten >= 2 even with a gold), no flowers
    0: "147m 258m 147p 258p 147s 2s 9p",
    1: "147m 258m 147p 258p 147s 3m",
    2: "258m 369m 258p 369p 258s 6m",
    3: "147m 369m 147p 369p 147s 4p",
}


def test_far_hands_are_far():
    for s, text in FAR.items():
        c = tiles.parse(text)
        assert c.sum() == (17 if s == 0 else 16)
        assert int(bf.distance(c, 0 if s == 0 else 1, 5, ("standard",))) >= 3


# ---- 补花 and 开金 ----------------------------------------------------------------------------


def test_buhua_rounds_dealer_first_skipping_seats_without_new_flowers():
    """RULEBOOK §3.1 rule 4: rounds from the dealer; a seat that drew no new flower skips."""
    hands = {
        0: "147m 258m 369m 147p 25p 11z f1",  # 14 suited + 3 flowers
        1: "123456789p 567s 789s 2z",  # 1 flower
        2: FAR[2],  # none
        3: "147m 258m 147p 369s 2p 5z 6z 7z",  # 3 flowers
    }
    # round 1: seat 0 draws f2 (flower), 3s, 6s; seat 1 draws 3z (flower); seat 3 draws 1s 2s 3s
    # round 2: seat 0 draws f3 (flower); seat 1 draws 4s; seat 3 is skipped
    # round 3: seat 0 draws 8p; seat 1 is skipped. 开金: f4 goes to the dealer, 9s is turned.
    tail = "f2 3s 6s 3z 1s 2s 3s f3 4s 8p f4 9s"
    rec, ctx, final, log = play(wall_of(0, hands, tail=tail))
    fl = events(log, L.E_FLOWER)
    assert fl[:7] == [(0, 27, 0, 0), (0, 27, 0, 0), (0, 34, 0, 0), (1, 28, 0, 0)] + [
        (3, k, 0, 0) for k in (31, 32, 33)
    ]
    assert [f[:2] for f in fl[7:11]] == [(0, 35), (1, 29), (0, 36), (0, 37)]  # f2 3z f3 f4
    assert events(log, L.E_WILD)[0][:2] == (26, 26)  # indicator 9s, gold 9s
    assert (dealt(log, 0) == counts_of("147m 258m 369m 147p 25p 3s 6s 8p")).all()
    assert (dealt(log, 1) == counts_of("123456789p 567s 789s 4s")).all()  # its 9s is a gold
    assert (dealt(log, 3) == counts_of("147m 258m 147p 369s 2p 123s")).all()
    assert final[9, 27] == 2 and final[9, 34:38].tolist() == [1, 1, 1, 1]
    assert int(ctx[L.X_DEAL_MAX_WILDS]) == 1


def test_kaijin_on_flowers_goes_to_the_dealer_and_flips_again():
    """RULEBOOK §3.2 rule 5: a flower turned at 开金 counts for the dealer."""
    hands = dict(FAR)
    rec, ctx, final, log = play(wall_of(0, hands, tail="f5 6z 7s"))
    assert [f[:2] for f in events(log, L.E_FLOWER)[:2]] == [(0, 38), (0, 32)]
    assert events(log, L.E_WILD)[0][:2] == (tiles.kind("7s"), tiles.kind("7s"))
    assert dealt(log, 0).sum() == 17  # no replacement for a flower turned at 开金
    assert int(ctx[L.X_INDICATOR]) == tiles.kind("7s")
    # the dead indicator lies on the reserved tail: 17 live tiles are kept back
    kongs = int(ctx[L.X_MINGKONGS]) + 2 * int(ctx[L.X_ANKONGS])
    assert int(ctx[L.X_RESERVE]) == 17 + kongs


def test_four_identical_flowers_raise_the_reserve():
    hands = dict(FAR)
    hands[1] = "1111z 147m 258m 147p 258p"
    rec, ctx, final, log = play(wall_of(0, hands, tail="1s 2s 3s 6s 8s"))
    assert int(ctx[L.X_FLOWER_QUADS + 1]) == 1
    kongs = int(ctx[L.X_MINGKONGS]) + 2 * int(ctx[L.X_ANKONGS])
    assert int(ctx[L.X_RESERVE]) == 17 + 2 + kongs


def test_ankong_raises_the_reserve_by_two():
    """The dealer holding four 3s declares 暗杠 at once; the replacement comes from the tail."""
    hands = dict(FAR)
    hands[0] = "14m 25m 3333s 147p 258p 69s 9m"
    rec, ctx, final, log = play(wall_of(0, hands, tail="8s 5p"))
    assert events(log, L.E_KONG)[0] == (0, L.M_ANKONG, tiles.kind("3s"), 0)
    assert events(log, L.E_DRAW)[0] == (0, tiles.kind("5p"), 1, 0)
    assert int(ctx[L.X_RESERVE]) == 17 + int(ctx[L.X_MINGKONGS]) + 2 * int(ctx[L.X_ANKONGS])


# ---- opening wins: 天胡 > 三金倒 > 闲家抢金 (nearest first) > 庄家抢金 -------------------------

TIANHU = "123456789m 123456p 11s"  # complete with 17
WAIT_7P = "123456789m 123p 456p 7p"  # 16, waiting: takes the indicator as a gold
WAIT_8P = "123456789s 123p 456p 8p"
QIANG_DEALER = "123m 456m 789m 123s 456s 1p 5p"  # 17: drop 1p (or 5p), a gold pairs the other


def test_tianhu_beats_every_qiangjin():
    hands = {0: TIANHU, 1: WAIT_8P, 2: FAR[2], 3: FAR[3]}
    rec, ctx, final, log = play(wall_of(0, hands, tail="9s"))
    assert rec[L.C_WINNER] == 0 and rec[L.C_WIN_TYPE] == L.WIN_SELF_DRAW
    assert "tianhu" in pats(rec) and rec[L.C_TURNS] == 0
    assert rec[L.C_DELTA] == 3 * rec[L.C_VALUE]


def test_nearest_non_dealer_qiangjin_first():
    hands = {1: FAR[0], 2: WAIT_7P, 3: WAIT_8P, 0: FAR[1]}
    rec, ctx, final, log = play(wall_of(1, hands, tail="9p"), dealer=1)
    # dealer 1: seats 2 and 3 can both rob the gold; seat 2 is nearer in turn order
    assert rec[L.C_WINNER] == 2 and rec[L.C_WIN_TYPE] == L.WIN_INSTANT
    assert "qiangjin" in pats(rec) and "sanjindao" not in pats(rec)
    assert rec[L.C_WILDS] == 1 and int(ctx[L.X_ROB_INDICATOR]) == 1
    # the indicator moved from the wall to the winner's hand (the dealer holds a gold too)
    assert final[2, tiles.kind("9p")] == 1 and final[1, tiles.kind("9p")] == 1
    assert final[10, tiles.kind("9p")] == 2


def test_non_dealer_qiangjin_beats_dealer_qiangjin():
    hands = {0: QIANG_DEALER, 1: FAR[1], 2: FAR[2], 3: "123456789p 123s 456s 7s"}
    rec, ctx, final, log = play(wall_of(0, hands, tail="8s"))
    assert rec[L.C_WINNER] == 3 and "qiangjin" in pats(rec)
    assert events(log, L.E_DISCARD) == []


def test_dealer_qiangjin_discards_one_tile_and_takes_the_indicator():
    hands = {0: QIANG_DEALER, 1: FAR[1], 2: FAR[2], 3: FAR[3]}
    rec, ctx, final, log = play(wall_of(0, hands, tail="8s"))
    assert rec[L.C_WINNER] == 0 and rec[L.C_WIN_TYPE] == L.WIN_INSTANT
    assert "qiangjin" in pats(rec) and "tianhu" not in pats(rec)
    assert events(log, L.E_DISCARD) == [(0, tiles.kind("1p"), 0, 0)]
    assert final[8].sum() == 1 and final[0, tiles.kind("8s")] == 1
    assert rec[L.C_DELTA] == 3 * rec[L.C_VALUE]  # a self-draw: each other seat pays X


def test_sanjindao_at_the_deal_beats_qiangjin():
    hands = {0: FAR[0], 1: "123456789p 123s 456s 7s", 2: FAR[2], 3: "147m 369m 147p 369p 5s 999s"}
    rec, ctx, final, log = play(wall_of(0, hands, tail="9s"))
    assert rec[L.C_WINNER] == 3 and rec[L.C_WIN_TYPE] == L.WIN_INSTANT
    assert "sanjindao" in pats(rec) and "qiangjin" not in pats(rec)
    assert int(ctx[L.X_DEAL_MAX_WILDS]) == 3


def test_two_golds_cannot_rob_as_sanjindao():
    """「上手有两张金牌,不能以胡三金倒的胡型来抢金」: a robbed third gold is no 三金倒."""
    hands = {0: FAR[0], 1: "123456789m 123p 45p 99s", 2: FAR[2], 3: FAR[3]}
    rec, ctx, final, log = play(wall_of(0, hands, tail="9s"))
    assert rec[L.C_WINNER] == 1 and "qiangjin" in pats(rec) and "jinque" in pats(rec)
    assert "sanjindao" not in pats(rec) and rec[L.C_WILDS] == 3


# ---- the last group ----------------------------------------------------------------------

LAST = {  # jin=0; the dealer holds only 's' tiles, the others none: no claim on his discard
    0: "1122334455667788s 9s",
    1: "114477m 114477p 258m 2p",
    2: "225588m 336699p 369m 5p",
    3: "123456789m 123p 456p 7p",  # waiting on 7p
}


def last_group(left):
    """The reserve that leaves ``left`` live tiles beyond it after the dealer's discard."""
    return {L.R_RESERVE: 144 - 65 - left}


def test_last_group_draws_in_turn_without_discards_and_wins_automatically():
    wall = wall_of(0, LAST, draws="3m f1 7p 9m")
    rec, ctx, final, log = play(wall, rules={"jin": 0}, edit=last_group(4))
    assert int(ctx[L.X_LAST_GROUP]) == 1
    draws = events(log, L.E_DRAW)
    assert [d[:2] for d in draws] == [(1, tiles.kind("3m")), (2, 34), (3, tiles.kind("7p"))]
    assert all(d[2] == 0 for d in draws)  # from the wall: the flower is not replaced
    assert len(events(log, L.E_DISCARD)) == 1  # the dealer's only
    assert rec[L.C_WINNER] == 3 and rec[L.C_WIN_TYPE] == L.WIN_SELF_DRAW
    assert rec[L.C_TURNS] == 3 and final[9, 34] == 1


def test_last_group_without_a_winner_is_a_draw_and_pays_nothing():
    wall = wall_of(0, LAST, draws="3m f1 9m 8p")
    rec, ctx, final, log = play(wall, rules={"jin": 0}, edit=last_group(4))
    assert rec[L.C_WINNER] == -1 and rec[L.C_TURNS] == 4
    assert (rec[L.C_DELTA : L.C_DELTA + 4] == 0).all()
    assert final[10].sum() == int(ctx[L.X_RESERVE])  # exactly the reserve is left


def test_shortened_last_group():
    """Fewer than four live tiles beyond the reserve (after a late 明杠): only those."""
    wall = wall_of(0, LAST, draws="3m f1 7p 9m")
    rec, ctx, final, log = play(wall, rules={"jin": 0}, edit=last_group(2))
    assert [d[0] for d in events(log, L.E_DRAW)] == [1, 2]
    assert rec[L.C_WINNER] == -1 and final[10].sum() == int(ctx[L.X_RESERVE])


# ---- properties over shuffled walls --------------------------------------------------------


def shuffled(rng):
    wall = np.array([k for k in range(34) for _ in range(4)] + list(range(34, 42)), np.int64)
    return rng.permutation(wall)


@pytest.mark.parametrize("policy", ["random", "efficiency", "value"])
def test_reserve_gold_and_last_group_rules_on_shuffled_walls(policy, rng):
    """Over shuffled walls: reserve = 17 + 明杠 + 2·暗杠 + 2·(four alike) and never drawn into;
    a discarded gold is never claimed or won and its discarder never wins on a discard;
    no discard after the last group starts; golds never in a meld."""
    for _ in range(60):
        dealer = int(rng.integers(4))
        rec, ctx, final, log = play(shuffled(rng), dealer=dealer, policies=policy)
        quads = sum(int(ctx[L.X_FLOWER_QUADS + s]) for s in range(4))
        kongs = int(ctx[L.X_MINGKONGS]) + 2 * int(ctx[L.X_ANKONGS])
        assert int(ctx[L.X_RESERVE]) == 17 + kongs + 2 * quads
        # the dead indicator lies in the wall zone unless a 抢金 took it
        live_left = int(final[10].sum()) - 1 + int(ctx[L.X_ROB_INDICATOR])
        assert live_left >= int(ctx[L.X_RESERVE])
        gold = int(ctx[L.X_WILD0])
        gave_gold = set()
        last_draws = 0
        for code, a, b, c, _d in log.tolist():
            if code == L.E_DISCARD and b == gold:
                gave_gold.add(a)
            if code == L.E_CLAIM:
                assert c != gold
            if code == L.E_WIN and b in (L.WIN_DISCARD, L.WIN_ROB_KONG):
                assert a not in gave_gold and c != gold
        assert final[4:8, gold].sum() == 0
        if ctx[L.X_LAST_GROUP]:
            # after the last discard only draws (at most four) and the end
            tail = log[np.flatnonzero(log[:, 0] == L.E_DISCARD)[-1] + 1 :]
            last_draws = int((tail[:, 0] == L.E_DRAW).sum())
            assert 1 <= last_draws <= 4 and not (tail[:, 0] == L.E_CLAIM).any()
            assert not (tail[:, 3] == 1)[tail[:, 0] == L.E_DRAW].any()  # no tail draws
        if rec[L.C_WINNER] < 0 and live_left == int(ctx[L.X_RESERVE]):
            assert ctx[L.X_LAST_GROUP] == 1


def test_youjin_minnan_rules_on_shuffled_walls(rng):
    """While a seat 游s nobody wins on a discard; a 游 win is a self-draw at its level."""
    seen = 0
    for _ in range(150):
        rec, ctx, final, log = play(shuffled(rng), rules={"youjin": "minnan"}, policies="value")
        level = {}
        for code, a, b, _c, _d in log.tolist():
            if code == L.E_YOUJIN:
                assert b == level.get(a, 0) + 1
                level[a] = b
            if code == L.E_CLAIM:
                assert a not in level
            if code == L.E_WIN:
                if level:
                    assert b not in (L.WIN_DISCARD, L.WIN_ROB_KONG)
                if a in level:
                    seen += 1
                    names = ["danyou", "shuangyou", "sanyou"]
                    assert names[level[a] - 1] in pats(rec)
                    mult = F.YOUJIN_MULT[level[a] - 1]
                    assert rec[L.C_VALUE] % mult == 0
    assert seen > 0


def test_jinque_beats_nearer_seats_on_a_discard():
    """RULEBOOK §3.3 rule 9: head bump, except that a 金雀 win beats nearer players."""
    from engine.play.mahjong import hooks
    from engine.play.mahjong.loop import _discard_winner

    r = V.pack(V.resolve({}))
    hooks.bind(int(r[L.R_VARIANT]), TAB)  # the loop binds them before a run; here by hand
    ctx = np.zeros(L.N_CTX, np.int64)
    hand = np.zeros((4, 34), np.int64)
    hand[1] = tiles.parse(WAIT_7P)  # a plain wait on 7p, nearer to the discarder
    hand[2] = tiles.parse("123s 456s 789s 123p 56p")  # and two golds: 7p makes 金雀
    wslot = np.zeros((4, 2), np.int64)
    wslot[2, 0] = 2
    melds = np.zeros((4, 8, 3), np.int64)
    nmeld = np.zeros(4, np.int64)
    pols = np.full(4, L.P_EFFICIENCY, np.int64)
    bots = np.zeros((4, N_BOT))
    k = tiles.kind("7p")
    visible = np.zeros(34, np.int64)
    no_log = np.zeros((1, 5), np.int32)
    waitd = np.full(4, -1, np.int64)  # the seats' waiting distances, not known yet
    args = (r, ctx, pols, bots, 30, hand, wslot, melds, nmeld, 0, k, 4, 5, TAB, L.WIN_DISCARD,
            visible, no_log, waitd)  # fmt: skip
    assert _discard_winner(*args) == 2
    r2 = r.copy()
    r2[L.R_WIN_PRIORITY] = 0
    assert _discard_winner(r2, *args[1:]) == 1
    # a value bot in seat 1 passes the win for a self-draw (value.pass_self): without the
    # 7p its hand waits on 1p (11p 234p 567p), 4p (44p 567p) and 7p, 3 unseen copies each:
    # 9 outs x 30 live tiles = 270
    from engine.mahjong.params import B_PASS_SELF

    pols2, bots2 = pols.copy(), bots.copy()
    pols2[1] = L.P_VALUE
    bots2[1, B_PASS_SELF] = 270
    args2 = (r2, ctx, pols2, bots2, *args[4:])
    assert _discard_winner(*args2) == 2
    bots2[1, B_PASS_SELF] = 271
    assert _discard_winner(*args2) == 1
    assert (hand[1] == tiles.parse(WAIT_7P)).all()  # left unchanged
    ctx[L.X_WILD_DISCARDED + 2] = 1  # seat 2 discarded a gold: self-draw only
    assert _discard_winner(*args) == 1
    assert (hand[1] == tiles.parse(WAIT_7P)).all()  # hands unchanged


# ---- scoring: every special, every formula option (RULEBOOK §3.5) --------------------------

PLAIN = "123456789m 123p 456p 77s"  # complete, 17 tiles
ONE_GOLD = "123456789m 123p 456p 7s"  # complete with one gold
NO_SHAPE = "13579m 2468p 13579s"  # 14 tiles: with three golds only 三金倒


def score(
    hand=PLAIN,
    golds=0,
    win_type="self_draw",
    seat=1,
    dealer=0,
    streak=0,
    flags=(),
    melds="",
    flowers=0,
    rules=None,
    discarder=None,
):
    counts = tiles.parse(hand).astype(np.int64)
    return V.score_hand(
        V.resolve(rules or {}),
        counts,
        golds,
        parse_melds(melds),
        -1,
        win_type,
        seat,
        dealer,
        streak,
        set(flags),
        discarder=discarder,
        flowers=flowers,
    )


def test_qq_formula_and_who_pays():
    r = score(flowers=3, golds=1, hand="123456789m 123p 456p 7s")  # a gold pairs 7s
    assert r["complete"] and r["patterns"] == [] and r["huafan"] == 3
    assert r["value"] == (5 + 3 + 1 + 0) * 2 and r["deltas"] == [-18, 54, -18, -18]
    r = score(flowers=3, win_type="discard", discarder=2, streak=2)
    assert r["value"] == (5 + 3 + 0 + 2) * 2 and r["deltas"] == [0, 20, -20, 0]


def test_flower_sets_count_six():
    r = score(flowers="1111z f1f2f3f4 f5 2z")
    assert r["huafan"] == 6 + 6 + 2
    assert score(flowers="f5f6f7f8")["huafan"] == 6
    assert score(flowers="f1f2f3 f5f6f7")["huafan"] == 6
    assert score(flowers=4)["huafan"] == 4  # a plain count: no sets


def test_kongs_count_in_huafan():
    r = score(hand="123456789m 77s", melds="kong:1p ankong:9s", flowers=2)
    assert r["huafan"] == 2 + 1 + 2 and r["value"] == (5 + 5) * 2
    assert "wuhua" not in r["patterns"]
    r = score(hand="123456789m 123p 77s", melds="addkong:5p")
    assert r["huafan"] == 1 and r["patterns"] == []


@pytest.mark.parametrize(
    "kw, pattern, special",
    [
        (dict(), "wuhua", 30),  # no flower, no gold, no kong
        (dict(flowers=1), "yizhanghua", 15),
        (dict(golds=1, hand="123456789m 123p 456p 7s"), "yizhanghua", 15),
        (dict(seat=0, flags=["tianhu"], flowers=2), "tianhu", 30),
        (dict(win_type="discard", discarder=0, flags=["dihu"], flowers=2), "dihu", 30),
        (
            dict(flags=["qiangjin"], golds=1, flowers=2, hand="123456789m 123p 456p 7s"),
            "qiangjin",
            30,
        ),
        (
            dict(flags=["sanjindao"], golds=3, flowers=2, hand="13579m 2468p 13579s"),
            "sanjindao",
            40,
        ),
        (dict(golds=2, flowers=2, hand="123456789m 123p 456p"), "jinque", 60),
    ],
)
def test_qq_specials(kw, pattern, special):
    r = score(**kw)
    assert r["complete"] and pattern in r["patterns"] and r["special"] == special
    golds = kw.get("golds", 0)
    flowers = kw.get("flowers", 0)
    assert r["value"] == (5 + flowers + golds) * 2 + special


def test_only_the_largest_special_counts():
    # three golds that read as a set of their own, as the pair, and 三金倒: 金龙 120 alone
    r = score(hand="123456789m 123p 55p", golds=3, flags=["sanjindao"], flowers=1)
    assert {"sanjindao", "jinque", "jinlong"} <= set(r["patterns"])
    assert r["special"] == 120 and r["value"] == (5 + 1 + 3) * 2 + 120


def test_sanjindao_needs_no_shape_and_robbed_gold_is_no_sanjindao():
    r = score(hand="13579m 2468p 13579s", golds=3, flags=["sanjindao"])
    assert r["complete"] and r["patterns"] == ["sanjindao"]
    assert not score(hand="13579m 2468p 13579s", golds=3)["complete"]
    r = score(hand="123456789m 123p 45p", golds=3, flags=["qiangjin"])
    assert "sanjindao" not in r["patterns"] and {"qiangjin", "jinque"} <= set(r["patterns"])


def test_rob_kong_is_a_discard_win_by_the_kong_player():
    r = score(flowers=2, flags=["qianggang"], discarder=3)
    assert "qianggang" in r["patterns"] and r["deltas"] == [0, 14, 0, -14]


def test_xinxiuding_formula():
    """新修订: (底番 1 + 花 + 金 + 杠 + 连庄) x (2 on a self-draw) + special, all three pay
    (RULEBOOK §3.5 rule 22; the 底番 1 is the seed's 「刚开始底番为1番」)."""
    rules = {"scoring": "xinxiuding"}
    r = score(flowers=3, golds=1, hand="123456789m 123p 456p 7s", rules=rules, streak=1)
    assert r["value"] == (1 + 3 + 1 + 1) * 2 and r["deltas"] == [-12, 36, -12, -12]
    # a discard win: the non-special part is not doubled, and all three pay
    r = score(flowers=3, rules=rules, win_type="discard", discarder=2)
    assert r["value"] == 1 + 3 and r["deltas"] == [-4, 12, -4, -4]
    # no flower, gold, kong or 连庄 on a discard: the 底番 alone, never 0
    r = score(rules=rules, win_type="discard", discarder=2)
    assert r["value"] == 1 and r["deltas"] == [-1, 3, -1, -1]
    for kw, special in [
        (dict(golds=3, flags=["sanjindao"], hand="13579m 2468p 13579s"), 10),
        (dict(golds=1, flags=["qiangjin"], hand="123456789m 123p 456p 7s"), 20),
        (dict(golds=2, hand="123456789m 123p 456p"), 30),
        (dict(seat=0, flags=["tianhu"]), 40),
        (dict(), 0),  # no 平胡 special in 新修订
    ]:
        r = score(rules=rules, flowers=2, **kw)
        assert r["special"] == special
        assert r["value"] == (1 + 2 + kw.get("golds", 0)) * 2 + special


@pytest.mark.parametrize("youjin", ["none", "minnan"])
@pytest.mark.parametrize("scoring", ["qq", "xinxiuding", "multiplier"])
def test_no_win_is_worth_zero(scoring, youjin):
    """Under every formula the barest win (a discard, no flower, gold, kong or 连庄) is
    worth something, and so is every simulated win (the audit found 10 of 29,751 新修订
    wins worth 0 before the 底番); the flags and columns reproduce every value and
    payment."""
    from engine.runs.run import simulate

    rules = {"scoring": scoring, "youjin": youjin}
    bare = score(rules=rules, win_type="discard", discarder=2)
    assert bare["complete"] and bare["huafan"] == 0 and bare["value"] > 0
    assert score(rules=rules)["value"] > 0
    resolved = V.resolve(rules)
    df = simulate("fuzhou", 20_000, seed=3, rules=resolved, progress=False).to_pandas()
    won = df[df.winner >= 0]
    assert len(won) > 19_000 and (won.value > 0).all()
    assert TW.twin_mismatch(V, resolved, df) is None


def test_multiplier_formula():
    rules = {"scoring": "multiplier"}
    r = score(flowers=3, rules=rules, win_type="discard", discarder=2)
    assert r["value"] == 1 + 3 and r["deltas"] == [0, 4, -4, 0]
    for kw, mult in [
        (dict(golds=3, flags=["sanjindao"], hand="13579m 2468p 13579s"), 3),
        (dict(golds=2, hand="123456789m 123p 456p"), 4),
        (dict(golds=1, flags=["qiangjin"], hand="123456789m 123p 456p 7s"), 5),
        (dict(golds=3, flags=["sanjindao"], hand="123456789m 123p 55p"), 6),
        (dict(), 1),
    ]:
        r = score(rules=rules, flowers=2, **kw)
        assert r["special"] == mult
        assert r["value"] == (1 + 2 + kw.get("golds", 0)) * 2 * mult


@pytest.mark.parametrize("flag, mult", [("danyou", 4), ("shuangyou", 8), ("sanyou", 16)])
def test_youjin_multiplies_x(flag, mult):
    rules = {"youjin": "minnan"}
    r = score(golds=1, flowers=2, hand="123456789m 123p 456p 7s", flags=[flag], rules=rules)
    assert flag in r["patterns"]
    assert r["value"] == (5 + 2 + 1) * 2 * mult
    with pytest.raises(UsageError, match="youjin"):
        score(golds=1, hand="123456789m 123p 456p 7s", flags=[flag])


def test_score_hand_bad_inputs():
    with pytest.raises(UsageError, match="flowers"):
        score(hand="123456789m 123p 456p 11z")
    with pytest.raises(UsageError, match="from"):
        score(win_type="discard")
    with pytest.raises(UsageError, match="tianhu"):
        score(flags=["tianhu"], seat=1)
    r = score(hand="123456789m 123p 456p 78s")
    assert not r["complete"] and r["value"] == 0


# ---- options, conformance, rotation --------------------------------------------------------


def test_every_rulebook_option_exists():
    opts = V.option_map
    rules = {"jin", "scoring", "youjin", "draw_adds_lianzhuang"}
    assert {k for k in opts if not k.startswith("pay_")} == rules
    assert {k for k in opts if k.startswith("pay_")} == set(F.RESCORE_CONTEXT) | {
        "pay_base_qq",
        *(f"pay_{n}_qq" for n in F.SPECIALS["qq"] if n != "dihu"),
    }
    assert [k for k in opts if opts[k].payout] == [k for k in opts if k not in ("jin", "youjin")]
    assert opts["jin"].allowed == (0, 1, 2) and opts["jin"].default == 1
    assert opts["scoring"].allowed == ("qq", "xinxiuding", "multiplier")
    assert opts["youjin"].allowed == ("none", "minnan")
    assert V.pattern_columns()[:6] == [
        "pat_tianhu",
        "pat_dihu",
        "pat_qiangjin",
        "pat_sanjindao",
        "pat_jinque",
        "pat_jinlong",
    ]
    assert {"flowers", "golds", "lianzhuang"} <= set(V.extra_columns)
    with pytest.raises(UsageError, match="scoring"):
        V.resolve({"scoring": "sichuan"})


def brute_complete(counts, wilds, sets):
    return bf.hand_distance(counts, wilds, sets, ("standard",)) == 0


@pytest.mark.parametrize(
    "rules",
    [
        {"youjin": "minnan"},
        {"jin": 0},
        {"jin": 2, "scoring": "multiplier"},
        {"scoring": "xinxiuding", "draw_adds_lianzhuang": True},
    ],
)
def test_conformance_options(rules):
    """Every tile (flowers included) accounted for, zero-sum, complete wins, all policies."""
    assert check_variant("fuzhou", matches=4, seed=7, rules=rules, complete=brute_complete) > 0


def test_dealer_keeps_the_deal_on_a_win_or_draw_and_lianzhuang_counts_wins():
    from engine.runs.run import simulate

    for rules in ({}, {"draw_adds_lianzhuang": True}):
        df = simulate("fuzhou", 3000, seed=4, rules=rules, policies="efficiency").to_pandas()
        for _, m in df.groupby("match"):
            rows = m.to_dict("records")
            for a, b in zip(rows, rows[1:], strict=False):
                if a["winner"] == a["dealer"]:
                    assert b["dealer"] == a["dealer"] and b["lianzhuang"] == a["lianzhuang"] + 1
                elif a["winner"] < 0:
                    add = 1 if rules else 0
                    assert b["dealer"] == a["dealer"] and b["lianzhuang"] == a["lianzhuang"] + add
                else:
                    assert b["dealer"] == (a["dealer"] + 1) % 4 and b["lianzhuang"] == 0
        assert (df.loc[df.deal == 0, "lianzhuang"] == 0).all()
        assert (df.value[df.winner < 0] == 0).all()


def test_value_bot_never_discards_a_gold_the_random_bot_does():
    from engine.runs.run import simulate

    value = simulate("fuzhou", 3000, seed=2, policies="value").to_pandas()
    assert value.gold_discards.sum() == 0
    rnd = simulate("fuzhou", 1000, seed=2, policies="random").to_pandas()
    assert rnd.gold_discards.sum() > 0


# ---- exact deal events vs simulation -------------------------------------------------------


def test_exact_events():
    e = F.exact_events({})
    from engine import exact

    assert e["tianhu"] == exact.p_complete(108, 17, wild="flip0", shapes=("standard",))["standard"]
    assert e["sanjindao_deal"] == Fraction(
        sum(n * (n - 1) * (n - 2) for n in (17, 16, 16, 16)), 107 * 106 * 105
    )
    assert F.exact_events({"jin": 0})["sanjindao_deal"] == 0
    assert 0 < F.exact_events({"jin": 0})["tianhu"] < e["tianhu"]
    assert "exchangeability" in e["note"] and "hypergeometric" in e["note"]


def test_simulated_deal_events_match_exact():
    from engine.runs.run import simulate

    n = 24_000
    df = simulate("fuzhou", n, seed=11, policies="efficiency").to_pandas()
    e = F.exact_events({})
    for observed, p in (
        (int(df.pat_tianhu.sum()), float(e["tianhu"])),
        (int((df.deal_max_golds >= 3).sum()), float(e["sanjindao_deal"])),
    ):
        assert binomtest(observed, n, p).pvalue > 1e-3, (observed, n * p)


def test_replay_of_an_opening_sanjindao_shows_the_dealt_hands():
    """`mjlab replay fuzhou --seed 3 --match 1 --deal 5`: seat 0 holds the three golds
    after 开金 and wins at once; the dealt hands are printed and no winning tile is
    claimed ("on ?")."""
    from engine.play.mahjong.replay import replay

    lines = replay("fuzhou", 3, 1, 5).splitlines()
    i = lines.index("seat 0 wins (instant) with the dealt tiles")
    dealt = [j for j, line in enumerate(lines) if line.startswith("  seat ") and " dealt: " in line]
    assert len(dealt) == 4 and max(dealt) < i
    assert lines[dealt[0]].startswith("  seat 0 dealt: 244789m16777p13789s")
    assert not any("?" in line for line in lines)


def test_replay_labels_only_replaced_flowers_bu_hua():
    """A flower drawn in the last group is dead: no replacement, so no "(补花)" (seed 16,
    match 49, deal 0: seat 2 draws 4z in the last group; earlier a flower drawn in play is
    replaced from the tail)."""
    from engine.play.mahjong.replay import replay

    lines = replay("fuzhou", 16, 49, 0).splitlines()
    i = lines.index(" 41. seat 2 draws 4z 🀃 from the wall")
    assert lines[i + 1] == "     seat 2 shows flower 4z 🀃 (no replacement)"
    assert lines[i + 2] == "drawn deal (流局): no live tile left"
    j = lines.index("  8. seat 2 draws 1z 🀀 from the wall")
    assert lines[j + 1 : j + 3] == [
        "     seat 2 shows flower 1z 🀀 (补花)",
        "  9. seat 2 draws 2z 🀁 from the tail",
    ]


def test_replay_golden(regen):
    """`mjlab replay fuzhou --seed 7 --match 0` is pinned line by line (--regen rewrites)."""
    from engine.play.mahjong.replay import replay

    out = replay("fuzhou", 7, 0) + "\n"
    path = Path(__file__).parents[3] / "golden" / "fuzhou.txt"
    if regen:
        path.write_text(out)
    assert path.exists(), f"{path.name} is missing: pytest --regen writes it"
    assert out.splitlines() == path.read_text().splitlines()


# ---- payout options (issue 22): worked hands, twin = kernel, re-scoring --------------


def test_pay_base_and_specials_of_each_formula():
    """Each payout option pays what RULEBOOK §3.5 rule 22 says with its value in place."""
    r = score(flowers=3, rules={"pay_base_qq": 8})  # QQ: (底 8 + 花 3) x 2, each pays
    assert r["special"] == 0 and r["value"] == (8 + 3) * 2 and r["deltas"] == [-22, 66, -22, -22]
    r = score(rules={"pay_wuhua_qq": 50})  # 平胡无花无杠 50
    assert r["special"] == 50 and r["value"] == 5 * 2 + 50
    r = score(flowers=1, rules={"pay_yizhanghua_qq": 0})  # 平胡一张花 worth nothing
    assert "yizhanghua" in r["patterns"] and r["value"] == (5 + 1) * 2
    rules = {"pay_sanjindao_qq": 200}  # 三金倒 raised above 金龙: the largest alone counts
    r = score(hand="123456789m 123p 55p", golds=3, flags=["sanjindao"], flowers=1, rules=rules)
    assert r["special"] == 200 and r["value"] == (5 + 1 + 3) * 2 + 200
    xin = {"scoring": "xinxiuding", "pay_base_xinxiuding": 3}  # a discard: 底 3 + 花 3, all pay
    r = score(flowers=3, rules=xin, win_type="discard", discarder=2)
    assert r["value"] == 3 + 3 and r["deltas"] == [-6, 18, -6, -6]
    r = score(seat=0, flags=["tianhu"], flowers=2, rules={**xin, "pay_tianhu_xinxiuding": 45})
    assert r["special"] == 45 and r["value"] == (3 + 2) * 2 + 45
    mul = {"scoring": "multiplier", "pay_base_multiplier": 2, "pay_jinque_multiplier": 7}
    r = score(golds=2, flowers=2, hand="123456789m 123p 456p", rules=mul)  # 金雀 x7
    assert r["special"] == 7 and r["value"] == (2 + 2 + 2) * 2 * 7
    you = {"youjin": "minnan", "pay_shuangyou": 10}
    r = score(golds=1, flowers=2, hand="123456789m 123p 456p 7s", flags=["shuangyou"], rules=you)
    assert r["value"] == (5 + 2 + 1) * 2 * 10


def test_mjlab_score_reads_a_payout_option(capsys):
    from mjlab.cli import main

    code = main(["score", "fuzhou", "123456789m123p456p77s", "--win", "7s", "--flowers", "3",
                 "--seat", "1", "--rule", "pay_base_qq=8", "--json"])  # fmt: skip
    import json

    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["value"] == (8 + 3) * 2 and out["deltas"] == [-22, 66, -22, -22]


_SPECIAL_HANDS = {
    "wuhua": dict(),
    "yizhanghua": dict(flowers=1),
    "tianhu": dict(seat=0, flags=["tianhu"], flowers=2),
    "dihu": dict(win_type="discard", discarder=0, flags=["dihu"], flowers=2),
    "qiangjin": dict(flags=["qiangjin"], golds=1, flowers=2, hand="123456789m 123p 456p 7s"),
    "sanjindao": dict(flags=["sanjindao"], golds=3, flowers=2, hand="13579m 2468p 13579s"),
    "jinque": dict(golds=2, flowers=2, hand="123456789m 123p 456p"),
    "jinlong": dict(golds=3, flags=["sanjindao"], flowers=1, hand="123456789m 123p 55p"),
    "danyou": dict(golds=1, flowers=2, hand="123456789m 123p 456p 7s", flags=["danyou"]),
    "sanyou": dict(golds=1, hand="123456789m 123p 456p 7s", flags=["sanyou"], streak=2),
}


def _frame_of(hands, rules):
    """A record frame of scored hands (the columns the twin reads), as the kernel pays."""
    import pandas as pd

    rows = []
    for kw in hands:
        r = score(rules=rules, **kw)
        assert r["complete"]
        wt = {"discard": "discard", "self_draw": "self_draw"}[kw.get("win_type", "self_draw")]
        if {"qiangjin", "sanjindao"} & set(kw.get("flags", ())):
            wt = "instant"
        golds = kw.get("golds", 0)
        streak = kw.get("streak", 0)
        row = {"winner": kw.get("seat", 1), "discarder": kw.get("discarder", -1), "dealer": 0,
               "win_type": wt, "huafan": r["huafan"], "golds": golds,
               "dealer_streak": streak, "dealer_wins": streak}  # fmt: skip
        for p in V.patterns:
            row[f"pat_{p.name}"] = p.name in r["patterns"]
        rows.append((row, r))
    frame = pd.DataFrame([row for row, _ in rows])
    frame["win_type"] = pd.Categorical(frame["win_type"], categories=list(L.WIN_TYPE_NAMES))
    return frame, [r for _, r in rows]


@pytest.mark.parametrize("formula", F.SCORING)
def test_recompute_pays_every_special_as_the_kernel(formula):
    """Specials too rare to meet in a simulated sample (金龙, 地胡 ...): the twin, on the
    flags and columns of a scored hand, pays what the kernel pays under each option."""
    for name, default in F.SPECIALS[formula].items():
        rules = {"scoring": formula, f"pay_{name}_{formula}": default + 3, "youjin": "minnan"}
        rules |= {"pay_base_" + formula: F.BASES[formula] + 1, "pay_danyou": 5, "pay_sanyou": 9}
        hands = [_SPECIAL_HANDS[name], _SPECIAL_HANDS["danyou"], _SPECIAL_HANDS["sanyou"]]
        frame, scored = _frame_of(hands, rules)
        assert scored[0]["special"] == default + 3 or name == "jinlong" and formula == "qq"
        got = TW.fuzhou(V.resolve(rules), frame)
        for i, r in enumerate(scored):
            assert got["value"][i] == r["value"] and got["special"][i] == r["special"]
            assert [got[f"delta_{s}"][i] for s in range(4)] == r["deltas"]


def _sim(rules, deals=1000):
    from engine.runs.run import simulate

    return simulate("fuzhou", deals, seed=7, policies="efficiency", rules=rules, progress=False)


@pytest.mark.parametrize("key", sorted(F.RESCORE_CONTEXT))
def test_rescore_under_the_rules_where_the_option_pays(key):
    """The payout options idle under the defaults (another formula's table, 游金, 地胡 with
    jin=0), re-scored where they pay: equal to a fresh efficiency simulation, and moving
    the payments whenever the sample holds what they pay for."""
    import pandas as pd

    import analysis

    context = F.RESCORE_CONTEXT[key]
    run = _sim(context)
    base = run.to_pandas()
    opt = V.option_map[key]
    name = F.PAYOUT_PATTERN.get(key)
    present = name is None or bool(base[f"pat_{name}"].any())
    for value in (opt.default + 1, opt.allowed[0] if opt.allowed[0] != opt.default else 2):
        got = analysis.rescore(run, **{key: value})
        want = _sim({**context, key: value}).to_pandas()
        pd.testing.assert_frame_equal(got, want, check_exact=True)
        assert (got["value"] != base["value"]).any() == present, (key, value)


def test_draw_adds_lianzhuang_is_re_scored_both_ways():
    """连庄数 with or without the kept draws: the records keep both counts (lianzhuang and
    dealer_wins, with dealer_streak), so either rule re-scores into the other exactly."""
    import pandas as pd

    import analysis

    plain, plus = _sim({}, 1500), _sim({"draw_adds_lianzhuang": True}, 1500)
    a, b = plain.to_pandas(), plus.to_pandas()
    assert (b["lianzhuang"] == b["dealer_streak"]).all()
    assert (a["lianzhuang"] == a["dealer_wins"]).all() and (
        b["dealer_wins"] == a["lianzhuang"]
    ).all()
    assert (b["lianzhuang"] > a["lianzhuang"]).any()
    got = analysis.rescore(plus, draw_adds_lianzhuang=False)
    pd.testing.assert_frame_equal(got, a, check_exact=True)
    pd.testing.assert_frame_equal(analysis.rescore(plain, draw_adds_lianzhuang=True), b)


def test_play_options_are_not_payout_options():
    """jin and youjin change who may win on what: the deals themselves differ."""
    a = _sim({}, 300).to_pandas()
    for rules in ({"jin": 2}, {"youjin": "minnan"}):
        b = _sim(rules, 300).to_pandas()
        assert not a["winner"].equals(b["winner"]) or not a["turns"].equals(b["turns"]), rules
        assert not V.option_map[next(iter(rules))].payout


def test_strong_reads_the_payout_options():
    """strong prices its wins under the run's payouts (engine.runs.adapt): a fresh
    simulation under changed payouts is not its re-score, the first-order gap of a payout
    option is real for it (issue 44)."""
    import analysis
    from engine.runs.run import simulate

    change = {"scoring": "xinxiuding", "pay_jinque_qq": 90}
    run = simulate("fuzhou", 600, seed=11, policies="strong", progress=False)
    want = simulate("fuzhou", 600, seed=11, policies="strong", rules=change, progress=False)
    got = analysis.rescore(run, **change)
    played = want.to_pandas()
    assert not (got["winner"].equals(played["winner"]) and got["turns"].equals(played["turns"]))


def test_payout_table_is_the_pattern_declarations():
    """A special's value under each formula and a 游金 level's multiplier are written once,
    on the pattern: SPECIALS, YOUJIN_MULT, the pay_* defaults and the packed table are
    read from them (and they are the seed's, RULEBOOK §3.4 rule 19, §3.5 rules 21-22)."""
    seed = {
        "qq": {"tianhu": 30, "dihu": 30, "qiangjin": 30, "wuhua": 30, "yizhanghua": 15,
               "sanjindao": 40, "jinque": 60, "jinlong": 120},
        "xinxiuding": {"sanjindao": 10, "qiangjin": 20, "jinque": 30, "tianhu": 40},
        "multiplier": {"sanjindao": 3, "jinque": 4, "qiangjin": 5, "jinlong": 6},
    }  # fmt: skip
    assert F.SPECIALS == seed
    assert [list(t) for t in F.SPECIALS.values()] == [list(t) for t in seed.values()]
    declared = {(p.name, f): val for p in F.K.PATTERNS for f, val in p.values}
    defaults = V.defaults()
    priced = {(n, f): d for f in F.SCORING for n in F.K.BIT if (d := defaults.get(f"pay_{n}_{f}"))}
    assert priced == declared == {(n, f): val for f, t in seed.items() for n, val in t.items()}
    you = ("danyou", "shuangyou", "sanyou")
    assert F.YOUJIN_MULT == (4, 8, 16) == tuple(F.K.PATTERNS[F.K.BIT[n]].value for n in you)
    assert tuple(defaults[f"pay_{n}"] for n in you) == F.YOUJIN_MULT
    for formula in F.SCORING:
        packed = V.pack(V.resolve({"scoring": formula, "youjin": "minnan"}))
        for name, val in seed[formula].items():
            assert packed[F.K.F_SPECIAL + F.K.BIT[name]] == val
        assert tuple(packed[F.K.F_YOU_MULT : F.K.F_YOU_MULT + 3]) == F.YOUJIN_MULT


def test_a_special_priced_under_an_unknown_formula_is_refused(monkeypatch):
    odd = F.K.PATTERNS + (F.K.Pattern("x", "x", "x", values=(("nosuch", 1),)),)
    monkeypatch.setattr(F.K, "PATTERNS", odd)
    with pytest.raises(ValueError, match="unknown formula"):
        F._specials()


def test_strong_chases_jinque_only_where_its_outs_pay():
    """strong passes a complete hand holding two golds for 金雀 only where the chance of
    the chase (its live outs in the draws left) times 金雀's worth beats the win now."""
    from engine.play.mahjong.loop import _chase_pays

    _, rows = seat_bots(V, V.resolve({}), ("strong",) * 4)
    bot = rows[0]
    h = tiles.parse("123m456m789m123p45p9s").astype(np.int64)  # with two golds: complete
    visible = np.zeros(34, np.int64)
    # discarding 9s waits for 3p or 6p (7 unseen) to make the golds the pair
    assert _chase_pays(bot, 80, h, 2, 5, TAB, visible, 4)
    assert not _chase_pays(bot, 4, h, 2, 5, TAB, visible, 4)  # one draw left
    visible[tiles.kind("3p")] = 3
    visible[tiles.kind("6p")] = 4
    assert not _chase_pays(bot, 80, h, 2, 5, TAB, visible, 4)  # every out is seen
