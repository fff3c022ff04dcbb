"""丽水麻将: golden scoring of every pattern and payment rule (RULEBOOK §1, seed 000)."""

from math import comb
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from oracles import settlement as TW

from engine import hand, tiles
from engine.errors import UsageError
from engine.mahjong import layout as L
from engine.runs.testing import check_variant
from engine.variants import get, lishui
from engine.variants._scoring import parse_melds
from engine.variants.lishui import _kernels as K
from tests.oracles import hand_bruteforce as bf

V = get("lishui")
GOLDEN = Path(__file__).parents[3] / "golden"
SELF, DISCARD, ROB, KONG_DRAW = L.WIN_SELF_DRAW, L.WIN_DISCARD, L.WIN_ROB_KONG, L.WIN_KONG_DRAW


def score(
    hand_text,
    *,
    melds="",
    seat=0,
    dealer=0,
    streak=0,
    win_type=SELF,
    discarder=None,
    flags=(),
    rules=None,
    wild=(),
    win_wild=False,
):
    """Score a hand written in notation; tiles of the ``wild`` kinds are the 财神 held."""
    counts = tiles.parse(hand_text).astype(np.int64)
    kinds = [tiles.kind(w) for w in wild]
    wilds = int(sum(counts[k] for k in kinds))
    counts[kinds] = 0
    return V.score_hand(
        V.resolve(rules or {}),
        counts,
        wilds,
        parse_melds(melds),
        -1 if win_wild else 0,
        win_type,
        seat,
        dealer,
        streak,
        set(flags),
        discarder=discarder,
        wild_kinds=kinds,
    )


PLAIN = "123m456p789s234m11z"


def test_plain_wins_one_and_two_bei():
    """平胡一倍, 自摸二倍; the dealer pays 底 x 倍, other 旁家 1 x 倍, 犯枪 one more."""
    r = score(PLAIN, seat=1, dealer=0)
    assert r["patterns"] == [] and r["value"] == 2 and r["base"] == 3
    assert r["deltas"] == [-6, 10, -2, -2]
    r = score(PLAIN, seat=1, dealer=0, win_type=DISCARD, discarder=2)
    assert r["value"] == 1 and r["deltas"] == [-3, 6, -2, -1]
    r = score(PLAIN, seat=0, dealer=0)
    assert r["deltas"] == [18, -6, -6, -6]
    r = score(PLAIN, seat=0, dealer=0, win_type=DISCARD, discarder=3)
    assert r["deltas"] == [10, -3, -3, -4]


@pytest.mark.parametrize(
    "hand_text, pattern, zimo, fei",
    [
        ("11123455678999m", ["qingyise"], 8, 4),
        ("11122233344455z", ["ziyise", "daduizi"], 8 + 4, 4 + 2),  # 字一色 is always 大对子 too
        ("1133557799m1122z", ["qiduizi"], 4, 2),
        ("111m222p333s44455z", ["daduizi"], 4, 2),
        ("147m258p369s12345z", ["buda"], 4, 2),
        ("11335577m99p1122z", ["qiduizi"], 4, 2),
        ("11113355779999p", ["qingyise", "qiduizi"], 8 + 4, 4 + 2),  # four alike = two pairs
    ],
)
def test_special_patterns_both_columns(hand_text, pattern, zimo, fei):
    """The table's 自摸 / 非自摸 values; two specials add up (特殊牌型的倍数相加)."""
    r = score(hand_text, seat=1, dealer=0)
    assert r["complete"] and r["patterns"] == pattern and r["value"] == zimo
    r = score(hand_text, seat=1, dealer=0, win_type=DISCARD, discarder=3)
    assert r["patterns"] == pattern and r["value"] == fei


def test_context_patterns_single_values():
    r = score(PLAIN, flags={"tianhu"})
    assert r["patterns"] == ["tianhu"] and r["value"] == 8
    r = score("1133557799m1122z", flags={"tianhu"})
    assert r["patterns"] == ["qiduizi", "tianhu"] and r["value"] == 12
    r = score(PLAIN, seat=2, dealer=0, flags={"dihu"})
    assert r["patterns"] == ["dihu"] and r["value"] == 4
    r = score("123m456p11z234m", melds="kong:7s", seat=2, win_type=KONG_DRAW)
    assert r["patterns"] == ["gangkai"] and r["value"] == 4
    with pytest.raises(UsageError, match="dealer"):
        score(PLAIN, seat=1, dealer=0, flags={"tianhu"})


def test_caishenhui_three_caishen_self_drawn():
    """财神会: a self-drawn win holding three 财神 (RULEBOOK §1.5 rule 23)."""
    hand_text = "123m3456p78s11z999p"  # 9p is the 财神: 3 held
    r = score(hand_text, wild=("9p",))
    assert r["patterns"] == ["caishenhui"] and r["value"] == 4
    r = score(hand_text, wild=("9p",), seat=1, win_type=DISCARD, discarder=0)
    assert r["patterns"] == [] and r["value"] == 1
    # option caishenhui=drawn: any self-draw completed by drawing a 财神
    two = "123m3456p789s11z99p"
    assert score(two, wild=("9p",))["patterns"] == []
    r = score(two, wild=("9p",), win_wild=True, rules={"caishenhui": "drawn"})
    assert r["patterns"] == ["caishenhui"]


def test_seed_caishenhui_plus_buda_is_eight():
    """Seed: 「胡牌的人牌型同时为财神会和不搭,那么就是4倍+4倍,等于8倍」."""
    r = score("147m25p36s1234z999m", wild=("9m",))
    assert r["patterns"] == ["buda", "caishenhui"] and r["value"] == 8


def test_seed_second_streak_seven_pairs_each_pays_twenty():
    """Seed: 牢庄第二局七对子自摸: 4 倍 x 底 5 = 20 from each; a 旁家's same hand: 20 from
    the dealer."""
    r = score("1133557799m1122z", seat=0, dealer=0, streak=1)
    assert r["base"] == 5 and r["deltas"] == [60, -20, -20, -20]
    r = score("1133557799m1122z", seat=2, dealer=0, streak=1)
    assert r["deltas"] == [-20, -4, 28, -4]


@pytest.mark.parametrize(
    "streak, cap, base",
    [(0, "9", 3), (1, "9", 5), (2, "9", 7), (3, "9", 9), (5, "9", 9), (5, "none", 13)],
)
def test_base_grows_with_the_dealer_streak(streak, cap, base):
    r = score(PLAIN, streak=streak, rules={"base_cap": cap})
    assert r["base"] == base and r["deltas"][0] == 3 * 2 * base


def test_baiban_stands_in_for_the_caishen_kind():
    """白板代财神: with 1m the 财神, a 白板 is a 1m (sets, 清一色)."""
    hand_text = "23m456p789s234s115z"
    assert not score(hand_text)["complete"]
    r = score(hand_text, wild=("1m",))
    assert r["complete"] and r["value"] == 2
    r = score("1123455678999m5z", wild=("1m",))
    assert r["patterns"] == ["qingyise"]
    # the 财神 is 白板 itself: no stand-in, the 白板 are the 财神
    r = score("123m456p789s234m1z5z", wild=("5z",))
    assert r["complete"] and r["value"] == 2


def test_best_reading_is_scored():
    """A hand read as plain, 七对子 or 大对子 scores its best reading."""
    r = score("112233m445566p77z")  # 3 sequences... or seven pairs
    assert r["patterns"] == ["qiduizi"] and r["value"] == 4
    r = score("111222333m44455z", wild=())  # 123m x3 or triplets: 大对子 wins
    assert r["patterns"] == ["daduizi"]


def test_rob_kong_kong_player_pays_all_at_four():
    """抢杠: 4 倍 plus patterns (非自摸), all paid by the kong player, no 犯枪."""
    r = score(PLAIN, seat=1, dealer=0, win_type=ROB, discarder=2)
    assert r["patterns"] == ["qianggang"] and r["value"] == 4
    assert r["deltas"] == [0, 3 * 4 + 4 + 4, -(3 * 4 + 4 + 4), 0]
    r = score("11123455678999m", seat=1, dealer=0, win_type=ROB, discarder=3)
    assert r["value"] == 4 + 4


def _settle(
    bits=0,
    *,
    winner,
    dealer=0,
    win_type=SELF,
    discarder=-1,
    chows=(),
    pay=None,
    rules=None,
    ctx=None,
):
    r = V.pack(V.resolve(rules or {}))
    ctx = np.zeros(L.N_CTX, np.int64) if ctx is None else ctx
    ctx[L.X_WINNER], ctx[L.X_DEALER], ctx[L.X_WIN_TYPE] = winner, dealer, win_type
    ctx[L.X_DISCARDER] = discarder if win_type == DISCARD else -1
    ctx[L.X_ROBBED] = discarder if win_type == ROB else -1
    for a, b in chows:  # seat a chowed three times from seat b
        ctx[L.X_CHOWS + 4 * a + b] = 3
    pay = np.zeros((4, 4), np.int64) if pay is None else pay
    delta = np.zeros(4, np.int64)
    extra = np.zeros(L.MAX_EXTRA, np.int64)
    value = K.settle(r, ctx, pay, bits, 4, delta, extra)
    return int(value), delta.tolist(), extra


def test_tongbao_partner_pays_every_share():
    """统包: A fed B three chows; whoever of A, B wins, the other pays all shares."""
    # B = seat 1 chowed seat 0 (the dealer) three times; B wins on seat 2's discard
    _, delta, extra = _settle(winner=1, win_type=DISCARD, discarder=2, chows=[(1, 0)])
    assert delta == [-5, 6, -1, 0]  # shares 3 + 1 + 1 all from seat 0; 犯枪 stays with 2
    assert extra[K.E_TONGBAO_MONEY : K.E_TONGBAO_MONEY + 4].tolist() == [-2, 0, 1, 1]
    assert extra[K.E_FANQIANG_MONEY : K.E_FANQIANG_MONEY + 4].tolist() == [0, 1, -1, 0]
    # A = seat 0 (the dealer) wins by self-draw: B pays everyone's 3 x 2
    _, delta, extra = _settle(winner=0, chows=[(1, 0)])
    assert delta == [18, -18, 0, 0]
    # no pair involving the winner: nothing shifts
    _, delta, _ = _settle(winner=3, chows=[(1, 0)])
    assert delta == [-6, -2, -2, 10]


def test_beigen_fine_and_options():
    """被跟: four identical discards in a row fine the first discarder 1 to each."""

    def run(mode, total, run_len=4):
        r = V.pack(V.resolve({"beigen": mode}))
        ctx = np.zeros(L.N_CTX, np.int64)
        ctx[L.X_RUN_LEN], ctx[L.X_RUN_START], ctx[L.X_DISCARDS_TOTAL] = run_len, 2, total
        pay = np.zeros((4, 4), np.int64)
        K.on_discard(r, ctx, pay, 1, 5, 4)
        return pay[2].tolist(), int(ctx[L.X_GEN])

    assert run("always", 9) == ([1, 1, 0, 1], 1)
    assert run("always", 9, run_len=3) == ([0, 0, 0, 0], 0)
    # every run is counted (the re-score input), whatever is paid
    assert run("first_round", 9) == ([0, 0, 0, 0], 1)
    assert run("first_round", 4) == ([1, 1, 0, 1], 1)
    assert run("none", 4) == ([0, 0, 0, 0], 1)


def test_kong_money_option():
    r = V.pack(V.resolve({"kong_pay": 1}))
    ctx = np.zeros(L.N_CTX, np.int64)
    pay = np.zeros((4, 4), np.int64)
    K.on_kong(r, ctx, pay, 1, L.M_KONG, 2, 4)
    K.on_kong(r, ctx, pay, 3, L.M_ANKONG, 3, 4)
    _, delta, extra = _settle(
        winner=-1, win_type=L.WIN_NONE, pay=pay, rules={"kong_pay": 1}, ctx=ctx
    )
    assert delta == [-3, 3 - 2, -3, 6 - 1]
    assert extra[K.E_KONG_MONEY : K.E_KONG_MONEY + 4].tolist() == delta
    r0 = V.pack(V.resolve({}))
    pay = np.zeros((4, 4), np.int64)
    K.on_kong(r0, ctx, pay, 1, L.M_KONG, 2, 4)
    assert not pay.any()


def test_bad_options_exit_with_usage_errors():
    with pytest.raises(UsageError, match="caishen_discard"):
        V.resolve({"caishen_discard": "maybe"})
    with pytest.raises(UsageError, match="allowed values: 0, 1, 2"):
        V.resolve({"caishen": "3"})


def brute_complete(counts, wilds, sets):
    return bf.hand_distance(counts, wilds, sets, ("standard", "seven_pairs", "buda")) == 0


@pytest.mark.parametrize(
    "rules",
    [
        {},
        {"caishen": 0},
        {"caishen": 2, "caishen_indicator_live": True, "caishen_discard": "penalty"},
        {
            "beigen": "first_round",
            "base_cap": "none",
            "kong_pay": 2,
            "reserve": 14,
            "caishenhui": "drawn",
            "tiles": 144,
            "pass_lock": "none",
        },
    ],
)
def test_conformance_every_policy_and_options(rules):
    assert check_variant("lishui", matches=6, seed=5, rules=rules, complete=brute_complete) > 0


def test_penalty_columns_add_up_inside_delta():
    """Every penalty is in its own columns (summing to 0) and inside delta_*."""
    from engine.runs.run import simulate

    rules = {"caishen_discard": "penalty", "kong_pay": 1}
    runs = [
        simulate("lishui", n, seed=3, rules=rules, policies=pol, progress=False).to_pandas()
        for n, pol in ((800, "random"), (2000, "efficiency"))
    ]
    df = pd.concat(runs, ignore_index=True)
    for name in ("beigen_money", "wuda_money", "fanqiang_money", "tongbao_money", "kong_money"):
        cols = df[[f"{name}_{s}" for s in range(4)]].to_numpy()
        assert (cols.sum(axis=1) == 0).all(), name
    assert (df[[f"wuda_money_{s}" for s in range(4)]].to_numpy() != 0).any()
    assert (df["beigen"] > 0).any()
    drawn = df[df.winner < 0]
    parts = sum(
        drawn[[f"{n}_{s}" for s in range(4)]].to_numpy()
        for n in ("beigen_money", "wuda_money", "kong_money")
    )
    assert (drawn[[f"delta_{s}" for s in range(4)]].to_numpy() == parts).all()
    assert set(df.base.unique()) <= {3, 5, 7, 9}


def test_dealer_keeps_the_deal_only_by_winning():
    from engine.runs.run import simulate

    df = simulate("lishui", 800, seed=4, policies="efficiency", progress=False).to_pandas()
    nxt = df.groupby("match").shift(-1)
    ok = nxt.dealer.notna()
    kept = df.winner[ok] == df.dealer[ok]
    expect = np.where(kept, df.dealer[ok], (df.dealer[ok] + 1) % 4)
    assert (nxt.dealer[ok].astype(int).to_numpy() == expect).all()
    assert (df.base == np.minimum(3 + 2 * df.dealer_streak, 9)).all()
    assert (df.dealer_streak > 0).any()


def test_exact_tianhu():
    """P(天胡) exactly; the stand-in makes the deck the same for every indicator."""
    from engine.exact import p_complete

    p = V.exact(V.resolve({}))
    base = p_complete(136, 14, wild="5z", wild_copies=3, shapes=("standard", "seven_pairs"))
    assert p["tianhu_standard_or_qiduizi"] == base["any"]
    assert p["tianhu"] == p["tianhu_standard_or_qiduizi"] + p["tianhu_buda"]
    assert 8e-5 < float(p["tianhu"]) < 9.5e-5
    assert lishui.exact_tianhu({"caishen_indicator_live": True})["tianhu"] == p["tianhu"]
    none = lishui.exact_tianhu({"caishen": 0})["tianhu"]
    assert none < p["tianhu"] < lishui.exact_tianhu({"caishen": 2})["tianhu"]


def _tianhu_check(rules, deals):
    """Simulated 天胡 rate vs the exact value, inside a 4-sigma binomial bound from N."""
    from engine.runs.run import simulate

    p = float(V.exact(V.resolve(rules))["tianhu"])
    df = simulate("lishui", deals, seed=99, rules=rules, policies="random", progress=False)
    k = int(df.to_pandas()["pat_tianhu"].sum())
    sigma = (deals * p * (1 - p)) ** 0.5
    assert abs(k - deals * p) <= 4 * sigma + 1, (k, deals * p, sigma)
    return deals * p


def test_simulated_tianhu_matches_exact_with_two_caishen_kinds():
    assert _tianhu_check({"caishen": 2}, 60_000) > 40


@pytest.mark.slow
def test_simulated_tianhu_matches_exact_large():
    _tianhu_check({}, 2_000_000)
    _tianhu_check({"caishen": 2, "caishen_indicator_live": True}, 1_000_000)


@pytest.mark.parametrize("w", [0, 1, 2, 3])
def test_exact_buda_counts_match_the_evaluator(w):
    """The 不搭 count by rank frames agrees with engine.hand on random distinct-kind hands:
    among hands of 14 - w different kinds (4 copies each) the 不搭-complete share is
    buda[w] / (C(34, 14 - w) 4^(14 - w) C(3, w))."""
    copies = np.full(34, 4, np.int64)
    exact = lishui._buda_counts(copies, 3)[w] / (comb(34, 14 - w) * 4 ** (14 - w) * comb(3, w))
    rng = np.random.default_rng(w)
    n = 200_000
    picks = np.argsort(rng.random((n, 34)), axis=1)[:, : 14 - w]
    counts = np.zeros((n, 34), np.uint8)
    np.put_along_axis(counts, picks, 1, axis=1)
    hits = hand.is_complete(counts, w, 4, ("buda",)).sum()
    sd = np.sqrt(n * exact * (1 - exact))
    assert abs(hits - n * exact) <= 4 * sd + 1


def test_golden_replay(regen):
    """`mjlab replay lishui --seed 7 --match 0` pinned line by line (--regen rewrites)."""
    from engine.play.mahjong.replay import replay

    out = replay("lishui", 7, 0)
    path = GOLDEN / "lishui.txt"
    if regen:
        path.write_text(out + "\n")
    assert path.exists(), f"{path.name} is missing: pytest --regen writes it"
    assert out.splitlines() == path.read_text().splitlines()


# ---- the payout options (issue 22): each one's worked example, paid as the rule says ----

SHAPE_HANDS = {
    "qingyise": "11123455678999m",
    "qiduizi": "1133557799m1122z",
    "buda": "147m258p369s12345z",
    "daduizi": "111222m333p444s55z",
}


def _others(v, base=3, dealer=0, seat=1, discarder=None, fanqiang=1):
    """Deltas by hand: a non-dealer's win of v 倍 (dealer pays 底 x v, the others v; the
    discarder adds the 犯枪 fine)."""
    d = [0, 0, 0, 0]
    for s in range(4):
        if s != seat:
            d[s] = -(base if s == dealer else 1) * v
    if discarder is not None:
        d[discarder] -= fanqiang
    d[seat] = -sum(d)
    return d


@pytest.mark.parametrize("name", sorted(SHAPE_HANDS))
def test_pay_shape_pattern_options(name):
    """pay_<pattern>: its 非自摸 倍; self-drawn, pay_zimo_x (2) times that."""
    hand_text = SHAPE_HANDS[name]
    rules = {f"pay_{name}": 13}
    r = score(hand_text, seat=1, dealer=0, win_type=DISCARD, discarder=3, rules=rules)
    assert r["patterns"] == [name] and r["value"] == 13
    assert r["deltas"] == _others(13, discarder=3)
    r = score(hand_text, seat=1, dealer=0, rules=rules)
    assert r["patterns"] == [name] and r["value"] == 26 and r["deltas"] == _others(26)
    r = score(hand_text, seat=1, dealer=0, rules={**rules, "pay_zimo_x": 3})
    assert r["value"] == 39


def test_pay_zimo_x_and_plain_options():
    """pay_plain: the plain discard win's 倍; pay_zimo_x multiplies the 自摸 column (the
    plain win and the shape patterns), not the single-valued patterns."""
    r = score(PLAIN, seat=1, dealer=0, rules={"pay_zimo_x": 3})
    assert r["value"] == 3 and r["deltas"] == _others(3)
    r = score("11122233344455z", seat=1, dealer=0, rules={"pay_zimo_x": 1})
    assert r["patterns"] == ["ziyise", "daduizi"] and r["value"] == 4 + 2
    r = score(PLAIN, flags={"tianhu"}, rules={"pay_zimo_x": 4})
    assert r["value"] == 8  # 天胡 has one value
    r = score(PLAIN, seat=1, dealer=0, win_type=DISCARD, discarder=2, rules={"pay_plain": 3})
    assert r["value"] == 3 and r["deltas"] == _others(3, discarder=2)
    r = score(PLAIN, seat=1, dealer=0, rules={"pay_plain": 3})
    assert r["value"] == 6


def test_pay_pattern_zero_falls_back_to_plain_and_the_best_reading_changes():
    """At 0 倍 a pattern is worth nothing: the plain 倍 counts, and the best reading is
    chosen under the new values (a seven-pairs hand that is also plain)."""
    r = score("1133557799m1122z", rules={"pay_qiduizi": 0})
    assert r["patterns"] == ["qiduizi"] and r["value"] == 2  # no other reading: plain 2
    r = score("112233m445566p77z", rules={"pay_qiduizi": 0})
    assert r["value"] == 2
    r = score("112233m445566p77z", rules={"pay_zimo_x": 1, "pay_plain": 3})
    assert r["patterns"] == [] and r["value"] == 3  # plain 3 beats 七对子 at 1 x 2
    r = score("112233m445566p77z", rules={"pay_zimo_x": 1, "pay_plain": 2})
    assert r["patterns"] == [] and r["value"] == 2  # a tie keeps the first (standard) reading
    r = score("112233m445566p77z", rules={"pay_qiduizi": 3, "pay_zimo_x": 1})
    assert r["patterns"] == ["qiduizi"] and r["value"] == 3


def test_pay_rare_pattern_options():
    """pay_ziyise (a shape pattern, added to 大对子 here), pay_tianhu and pay_dihu (one
    value each)."""
    r = score("11122233344455z", seat=1, dealer=0, win_type=DISCARD, discarder=3,
              rules={"pay_ziyise": 13})  # fmt: skip
    assert r["patterns"] == ["ziyise", "daduizi"] and r["value"] == 13 + 2
    assert r["deltas"] == _others(15, discarder=3)
    r = score(PLAIN, flags={"tianhu"}, rules={"pay_tianhu": 11})
    assert r["value"] == 11 and r["deltas"] == [99, -33, -33, -33]  # 底 3 x 11 from each
    r = score(PLAIN, seat=1, dealer=0, flags={"dihu"}, rules={"pay_dihu": 7})
    assert r["value"] == 7 and r["deltas"] == _others(7)


def test_pay_context_pattern_options():
    """pay_gangkai / qianggang / caishenhui: one value each, added to the others."""
    r = score(
        "123m456p11z234m", melds="kong:7s", seat=2, win_type=KONG_DRAW, rules={"pay_gangkai": 9}
    )
    assert r["patterns"] == ["gangkai"] and r["value"] == 9
    assert r["deltas"] == _others(9, seat=2)
    r = score(PLAIN, seat=1, dealer=0, win_type=ROB, discarder=2, rules={"pay_qianggang": 6})
    assert r["value"] == 6 and r["deltas"] == [0, 3 * 6 + 6 + 6, -(3 * 6 + 6 + 6), 0]
    r = score("123m3456p78s11z999p", wild=("9p",), rules={"pay_caishenhui": 5})
    assert r["patterns"] == ["caishenhui"] and r["value"] == 5
    assert r["deltas"] == [45, -15, -15, -15]  # the dealer wins: 底 3 x 5 from each


@pytest.mark.parametrize(
    "rules, streak, base",
    [
        ({"pay_base": 4}, 0, 4),
        ({"pay_base": 4}, 1, 6),
        ({"pay_base_step": 1}, 2, 5),
        ({"pay_base_step": 0}, 3, 3),
        ({"pay_base": 1, "pay_base_step": 4}, 1, 5),
        ({"base_cap": "7"}, 3, 7),
        ({"base_cap": "3"}, 2, 3),
        ({"base_cap": "13", "pay_base_step": 3}, 5, 13),
    ],
)
def test_pay_base_options(rules, streak, base):
    """底 = pay_base + pay_base_step x streak, at most base_cap; the dealer's self-drawn
    plain win takes 底 x 2 from each."""
    r = score(PLAIN, streak=streak, rules=rules)
    assert r["base"] == base and r["deltas"] == [3 * 2 * base, *[-2 * base] * 3]


def test_pay_fanqiang_option():
    r = score(PLAIN, seat=1, dealer=0, win_type=DISCARD, discarder=2, rules={"pay_fanqiang": 4})
    assert r["deltas"] == _others(1, discarder=2, fanqiang=4)
    r = score(PLAIN, seat=1, dealer=0, win_type=DISCARD, discarder=2, rules={"pay_fanqiang": 0})
    assert r["deltas"] == [-3, 5, -1, -1]


def test_pay_beigen_option():
    """pay_beigen: the fine of each 被跟 (four identical discards in a row)."""
    r = V.pack(V.resolve({"pay_beigen": 3}))
    ctx = np.zeros(L.N_CTX, np.int64)
    ctx[L.X_RUN_LEN], ctx[L.X_RUN_START], ctx[L.X_DISCARDS_TOTAL] = 4, 2, 9
    pay = np.zeros((4, 4), np.int64)
    K.on_discard(r, ctx, pay, 1, 5, 4)
    assert pay[2].tolist() == [3, 3, 0, 3]
    rules = {"pay_beigen": 3}
    _, delta, extra = _settle(winner=-1, win_type=L.WIN_NONE, pay=pay, rules=rules, ctx=ctx)
    assert delta == [3, 3, -9, 3]
    # the record keeps the units (one point each), the input of a re-score
    assert extra[K.E_BEIGEN_MONEY : K.E_BEIGEN_MONEY + 4].tolist() == [1, 1, -3, 1]


def _frame(rows):
    """A record frame of hand-made deals (the columns settlement twin reads)."""
    df = pd.DataFrame(rows)
    df["win_type"] = pd.Categorical(df["win_type"], categories=list(L.WIN_TYPE_NAMES))
    for name in V.pattern_columns():
        if name not in df:
            df[name] = False
    for col in V.extra_columns:
        if col not in df:
            df[col] = 0
    return df


def test_recompute_pays_kong_and_beigen_money_from_the_inputs():
    """Kong money from the recorded kong units, 被跟 under each mode from its units and the
    first-round bit: worked by hand on a drawn deal."""
    units = (1 << K.IN_KONG_SHIFT) | (2 << (K.IN_KONG_SHIFT + 4 * 3))  # 明杠 seat 0, 暗杠 3
    row = dict(
        winner=-1, discarder=-1, dealer=1, dealer_streak=0, win_type="none", wilds_in_hand=0,
        score_in=units | K.IN_BEIGEN_FIRST,
        beigen=2, beigen_money_0=2, beigen_money_1=-6, beigen_money_2=2, beigen_money_3=2,
    )  # fmt: skip
    f = _frame([row])

    def deltas(**rules):
        got = TW.lishui(V.resolve(rules), f)
        return [int(got[f"delta_{s}"][0]) for s in range(4)]

    # kong money: 0 takes n from each, 3 takes 2n from each (units 1 and 2)
    kong = [3 - 2, -1 - 2, -1 - 2, 6 - 1]
    assert deltas() == [2, -6, 2, 2]
    assert deltas(kong_pay=2) == [b + 2 * k for b, k in zip([2, -6, 2, 2], kong, strict=True)]
    assert deltas(pay_beigen=2) == [4, -12, 4, 4]
    assert deltas(beigen="first_round") == [1, -3, 1, 1]  # the dealer (seat 1) paid first
    assert deltas(beigen="none") == [0, 0, 0, 0]
    got = TW.lishui(V.resolve({"kong_pay": 1}), f)
    assert [int(got[f"kong_money_{s}"][0]) for s in range(4)] == kong


def test_recompute_chooses_the_reading_again():
    """A win recorded as 七对子 that is also plain: under pay_plain=3, pay_zimo_x=1 the
    plain reading (3 倍) beats 七对子 (2), the 七对子 flag drops."""
    row = dict(
        winner=1, discarder=-1, dealer=0, dealer_streak=0, win_type="self_draw",
        wilds_in_hand=0, pat_qiduizi=True, score_in=K.IN_STANDARD | K.IN_QIDUIZI,
    )  # fmt: skip
    f = _frame([row])
    got = TW.lishui(V.resolve({}), f)
    assert int(got["value"][0]) == 4 and bool(got["pat_qiduizi"][0])
    got = TW.lishui(V.resolve({"pay_plain": 3, "pay_zimo_x": 1}), f)
    assert int(got["value"][0]) == 3 and not bool(got["pat_qiduizi"][0])
    assert [int(got[f"delta_{s}"][0]) for s in range(4)] == _others(3)


def test_recompute_refuses_records_without_the_inputs():
    f = _frame([dict(winner=-1, discarder=-1, dealer=0, dealer_streak=0, win_type="none")])
    with pytest.raises(UsageError, match="lack the score_in column"):
        TW.lishui(V.resolve({}), f.drop(columns=["score_in"]))


def test_conformance_under_changed_payouts():
    """The kernels pay the changed table and the twin agrees on every deal."""
    rules = {
        "pay_qiduizi": 1,
        "pay_buda": 9,
        "pay_plain": 2,
        "pay_zimo_x": 1,
        "pay_base": 2,
        "pay_base_step": 3,
        "base_cap": "11",
        "pay_fanqiang": 2,
        "pay_beigen": 2,
        "kong_pay": 1,
    }
    assert check_variant("lishui", matches=4, seed=9, rules=rules, complete=brute_complete) > 0


def test_rescore_from_other_payout_rules_equals_simulation():
    """The re-score inputs do not depend on the payout options: records played under
    other ones (被跟 off, kong money, other 倍 and 底, fines 0) re-score to the defaults
    exactly as a fresh simulation pays them."""
    import analysis
    from engine.runs.run import simulate

    other = {
        "beigen": "none",
        "kong_pay": 2,
        "pay_qiduizi": 0,
        "pay_zimo_x": 1,
        "pay_plain": 3,
        "base_cap": "none",
        "pay_base_step": 5,
        "caishenhui": "drawn",
        "pay_beigen": 0,
        "pay_fanqiang": 0,
    }
    kw = dict(deals=1500, seed=4, policies="efficiency", progress=False)
    played = simulate("lishui", rules=other, **kw)
    back = {k: V.option_map[k].default for k in other}
    got = analysis.rescore(played, **back).reset_index(drop=True)
    want = simulate("lishui", **kw).to_pandas().reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want, check_exact=True)


AMBIGUOUS = (
    # (hand, 财神 kinds, seat, win type): hands with more than one reading
    ("112233m445566p77z", (), 1, SELF),  # plain or 七对子
    ("112233m445566p7z9p", ("9p",), 0, SELF),  # plain or 七对子, a 财神 pair
    ("112233m445566p7z9p", ("9p",), 2, DISCARD),
    ("1122m3344p5566s7z9p", ("9p",), 1, SELF),  # 七对子 or not
    ("147m258p369s1234z9p", ("9p",), 3, SELF),  # 不搭 with a 财神
    ("11223344z5566z9p9p", ("9p",), 1, SELF),  # 字一色 七对子
    ("1112223334445m9p", ("9p",), 1, DISCARD),  # 清一色 大对子
    ("123m3456p78s11z999p", ("9p",), 0, SELF),  # 财神会 (three held)
    ("123m3456p789s11z99p", ("9p",), 0, SELF),  # a drawn 财神 (caishenhui=drawn)
)
SETTINGS = (
    {},
    {"pay_qiduizi": 0},
    {"pay_plain": 3, "pay_zimo_x": 1},
    {"pay_buda": 9, "pay_qiduizi": 1},
    {"pay_qingyise": 0, "pay_zimo_x": 4},
    {"caishenhui": "drawn", "pay_caishenhui": 7},
)


def _kernel_row(rules, hand_text, wild, seat, win_type, dealer=0):
    """One win through the kernels as in play (patterns, then settle): its record row."""
    from engine.hand._tables import kernel_tables
    from engine.variants._scoring import melds8, settle_hand, win_context

    counts = tiles.parse(hand_text).astype(np.int64)
    kinds = [tiles.kind(w) for w in wild]
    w = int(counts[kinds].sum())
    counts[kinds] = 0
    r = V.pack(V.resolve(rules))
    feeder = (seat + 1) % 4 if win_type == DISCARD else None
    ctx = win_context(seat, dealer, win_type, np.zeros((0, 3), np.int64), feeder=feeder)
    ctx[L.X_WILD0] = kinds[0] if kinds else -1
    ctx[L.X_WILD1] = -1
    ctx[L.X_WIN_PHYS] = kinds[0] if kinds else int(np.flatnonzero(counts)[0])  # a 财神 drawn
    bits = int(K.patterns(r, ctx, counts, w, 4, melds8(np.zeros((0, 3))), 0, kernel_tables()))
    value, deltas, extra = settle_hand(K.settle, r, ctx, bits)
    names = {SELF: "self_draw", DISCARD: "discard"}
    row = dict(
        winner=seat, discarder=-1 if feeder is None else feeder, dealer=dealer, dealer_streak=0,
        win_type=names[win_type], wilds_in_hand=w, value=value,
        **{f"delta_{s}": deltas[s] for s in range(4)},
    )  # fmt: skip
    for i, p in enumerate(lishui.PATTERNS):
        row[f"pat_{p.name}"] = bool((bits >> i) & 1)
    for i, name in enumerate(V.extra_columns):
        row[name] = int(extra[i])
    return row


@pytest.mark.parametrize("source", range(len(SETTINGS)))
def test_recompute_chooses_as_the_kernel_from_any_source(source):
    """Hands with several readings, recorded under one payout setting and re-scored under
    each other: the twin gives what the kernels pay under that setting, column by column."""
    rows = [_kernel_row(SETTINGS[source], *h) for h in AMBIGUOUS]
    frame = _frame(rows)
    for target in SETTINGS:
        got = TW.lishui(V.resolve(target), frame)
        for j, h in enumerate(AMBIGUOUS):
            want = _kernel_row(target, *h)
            for col, values in got.items():
                assert int(np.asarray(values)[j]) == int(want[col]), (h, target, col)


def test_bei_tables_and_option_defaults_are_the_pattern_declarations():
    """A pattern's 倍 is written once, as its declared ``value``: the seed's two columns,
    the pay_* defaults and the packed default table are all read from it."""
    seed = {"qingyise": (8, 4), "ziyise": (8, 4), "qiduizi": (4, 2), "daduizi": (4, 2),
            "buda": (4, 2), "tianhu": (8, 8), "dihu": (4, 4), "gangkai": (4, 4),
            "caishenhui": (4, 4), "qianggang": (4, 4)}  # fmt: skip
    v = get("lishui")
    defaults = v.defaults()
    packed = v.pack(v.resolve({}))
    assert [p.name for p in K.PATTERNS] == list(seed)
    for i, p in enumerate(K.PATTERNS):
        zimo = p.value * (defaults["pay_zimo_x"] if p.name in lishui.SHAPE_PATTERNS else 1)
        assert (K.BEI_ZIMO[i], K.BEI_FEI_ZIMO[i]) == (zimo, p.value) == seed[p.name]
        assert defaults[f"pay_{p.name}"] == p.value
        assert packed[K.L_BEI_ZIMO + i] == zimo and packed[K.L_BEI_FEI + i] == p.value
