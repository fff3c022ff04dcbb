"""广东推倒胡: golden scoring of every pattern and payment rule (RULEBOOK §5, seed 004)."""

import numpy as np
import pytest

from engine import tiles
from engine.errors import UsageError
from engine.game import _layout as L
from engine.variants import _tuidaohu as K
from engine.variants import get
from engine.variants._scoring import parse_melds

V = get("tuidaohu")


def score(
    hand,
    *,
    melds="",
    seat=0,
    dealer=0,
    win_type=L.WIN_SELF_DRAW,
    discarder=None,
    flags=(),
    rules=None,
    wild=(),
):
    rules = V.resolve(rules or {})
    counts = tiles.parse(hand).astype(np.int64)
    wild_kinds = [tiles.kind(w) for w in wild]
    wilds = int(sum(counts[k] for k in wild_kinds))
    counts[wild_kinds] = 0
    return V.score_hand(
        rules,
        counts,
        wilds,
        parse_melds(melds),
        -1,
        win_type,
        seat,
        dealer,
        0,
        set(flags),
        discarder=discarder,
    )


def test_small_self_draw_each_pays_two():
    r = score("123m456p789s11122z")
    assert r["complete"] and r["patterns"] == [] and r["value"] == 2
    assert r["deltas"] == [6, -2, -2, -2]


@pytest.mark.parametrize(
    "hand, melds, pattern",
    [
        ("11123455678999m", "", "qingyise"),
        ("11122233344455z", "", "ziyise"),
        ("1133557799m1122z", "", "qidui"),
        ("11113355779999p", "", "qidui"),  # four alike count as two pairs (seed 七对子)
        ("111m222p333s44455z", "", "sianke"),
        ("55z", "ankong:1m kong:2p addkong:3s ankong:4s", "shibaluohan"),
        ("123m55p555666777z", "", "dasanyuan"),
        ("123m111222333z44z", "", "xiaosixi"),
        ("11m111222333444z", "", "dasixi"),
        ("19m19p19s12345677z", "", "shisanyao"),
    ],
)
def test_every_big_hand_doubles(hand, melds, pattern):
    r = score(hand, melds=melds)
    assert r["complete"], hand
    assert pattern in r["patterns"]
    assert r["value"] == 4 and r["deltas"] == [12, -4, -4, -4]


def test_big_hands_never_stack():
    r = score("11122233344455z")  # 字一色 + 大三元-free but 四暗刻 too
    assert {"ziyise", "sianke"} <= set(r["patterns"])
    assert r["value"] == 4


def test_hunyise_is_small():
    r = score("123m456m789m11z555z")
    assert "hunyise" in r["patterns"] and r["value"] == 2


def test_tianhu_flag():
    r = score("123m456p789s11122z", flags={"tianhu"})
    assert "tianhu" in r["patterns"] and r["value"] == 4


def test_rob_kong_robbed_pays_three_shares():
    r = score("123m456p789s11122z", seat=2, win_type=L.WIN_ROB_KONG, discarder=1)
    assert "qianggang" in r["patterns"]
    assert r["deltas"] == [0, -6, 6, 0]


def test_kong_bloom_after_fanggang_feeder_pays_all():
    r = score("123m456p789s11122z", seat=3, win_type=L.WIN_DISCARD, discarder=0, flags={"fanggang"})
    assert "gangkai" in r["patterns"]
    assert r["deltas"] == [-6, 0, 0, 6]
    r = score("123m456p789s11122z", seat=3, win_type=L.WIN_KONG_DRAW)
    assert r["deltas"] == [-2, -2, -2, 6]


def test_discard_win_needs_dianpao():
    with pytest.raises(UsageError, match="dianpao"):
        score("123m456p789s11122z", seat=1, win_type=L.WIN_DISCARD, discarder=0)
    r = score(
        "123m456p789s11122z", seat=1, win_type=L.WIN_DISCARD, discarder=0, rules={"dianpao": "true"}
    )
    assert r["value"] == 1 and r["deltas"] == [-1, 1, 0, 0]


def test_ghosts_and_no_ghost_double():
    rules = {"ghost": "baiban", "no_ghost_double": "true"}
    r = score("123m456p789s1112z5z", rules=rules, wild=("5z",))
    assert r["complete"] and "wugui" not in r["patterns"] and r["value"] == 2
    r = score("123m456p789s11122z", rules=rules)
    assert "wugui" in r["patterns"] and r["value"] == 4
    r = score("1112345678999m5z", rules=rules, wild=("5z",))
    assert "qingyise" in r["patterns"]


def _settle(pay, *, winner, dealer, win_type=L.WIN_SELF_DRAW, horses=(), bits=0, rules=None):
    r = V.pack(V.resolve(rules or {}))
    ctx = np.zeros(L.N_CTX, np.int64)
    ctx[L.X_WINNER], ctx[L.X_DEALER], ctx[L.X_WIN_TYPE] = winner, dealer, win_type
    ctx[L.X_DISCARDER] = ctx[L.X_ROBBED] = ctx[L.X_KONG_FROM] = -1
    ctx[L.X_NHORSE] = len(horses)
    for i, h in enumerate(horses):
        ctx[L.X_HORSE + i] = tiles.kind(h)
    delta = np.zeros(4, np.int64)
    extra = np.zeros(L.MAX_EXTRA, np.int64)
    K.settle(r, ctx, pay, bits, 4, delta, extra)
    return delta.tolist(), extra


def test_kong_money():
    pay = np.zeros((4, 4), np.int64)
    r = V.pack(V.resolve({}))
    ctx = np.zeros(L.N_CTX, np.int64)
    K.on_kong(r, ctx, pay, 1, L.M_KONG, 2, 4)  # 放杠: seat 2 pays 3
    K.on_kong(r, ctx, pay, 0, L.M_ADDKONG, 0, 4)  # 补杠: 1 from each
    K.on_kong(r, ctx, pay, 3, L.M_ANKONG, 3, 4)  # 暗杠: 2 from each
    delta, extra = _settle(pay.copy(), winner=-1, dealer=0, win_type=L.WIN_NONE)
    assert delta == [3 - 2, 3 - 1 - 2, -3 - 1 - 2, 6 - 1]
    assert extra[K.E_KONG_MONEY : K.E_KONG_MONEY + 4].tolist() == delta
    voided, _ = _settle(
        pay.copy(),
        winner=-1,
        dealer=0,
        win_type=L.WIN_NONE,
        rules={"huangzhuang_huanggang": "true"},
    )
    assert voided == [0, 0, 0, 0]


def test_dealer_horse_copies_the_hit_seat():
    """Seed §8.5: the dealer wins or loses whatever the seat his horse names wins or loses."""
    pay = np.zeros((4, 4), np.int64)  # settle adds the win: seat 1 self-draws a small hand
    delta, extra = _settle(pay, winner=1, dealer=0, horses=("2m",))  # 2 -> 下家 = seat 1
    assert delta == [-2 + 4, 6, -4, -4]
    assert extra[K.E_HORSE_HITS] == 1
    pay = np.zeros((4, 4), np.int64)  # the dealer self-draws; a horse on himself doubles
    delta, _ = _settle(pay, winner=0, dealer=0, horses=("1z",))
    assert delta == [12, -4, -4, -4]


def test_horse_maps():
    r_seed = V.pack(V.resolve({}))
    r_mil = V.pack(V.resolve({"horse_map": "mil"}))
    names = "1m 2p 3s 4m 5m 9s 1z 2z 3z 4z 7z 6z 5z".split()
    offsets = [int(K.horse_offset(r_seed, tiles.kind(t))) for t in names]
    assert offsets == [0, 1, 2, 3, 0, 0, 0, 1, 2, 3, 0, 1, 2]
    assert [int(K.horse_offset(r_mil, tiles.kind(t))) for t in ("7z", "6z", "5z")] == [1, 2, 3]


def test_winner_horses():
    pay = np.zeros((4, 4), np.int64)
    delta, extra = _settle(
        pay, winner=2, dealer=0, horses=("1m", "5p", "2m", "3m"), rules={"horses": "winner:4"}
    )
    # 1m and 5p name the winner himself: each payer pays his amount again, twice
    assert delta == [-6, -6, 18, -6] and extra[K.E_HORSE_HITS] == 2


def _tianhu_check(ghost, deals):
    """Simulated 天胡 rate vs the exact value, inside a 4-sigma binomial bound from N."""
    from engine.run import simulate

    p = float(V.exact(V.resolve({"ghost": ghost}))["tianhu"])
    df = simulate(
        "tuidaohu", deals, seed=99, rules={"ghost": ghost}, policies="random", progress=False
    ).to_pandas()
    k = int(df["pat_tianhu"].sum())
    sigma = (deals * p * (1 - p)) ** 0.5
    assert abs(k - deals * p) <= 4 * sigma + 1, (k, deals * p, sigma)
    return k, deals * p


def test_simulated_tianhu_matches_exact_with_two_ghost_kinds():
    k, expected = _tianhu_check("shuang", 60_000)
    assert expected > 40  # the test has power: tens of events expected


@pytest.mark.slow
def test_simulated_tianhu_matches_exact_large():
    _tianhu_check("shuang", 2_000_000)
    _tianhu_check("fan", 2_000_000)


def test_replay_prints_a_robbed_kong():
    """`mjlab replay tuidaohu --seed 5 --match 1 --deal 3` ends in a robbed 补杠: the
    robbed seat's draw and its 补杠 attempt are printed just before the win."""
    import re

    from engine.game import replay

    lines = replay("tuidaohu", 5, 1, 3).splitlines()
    wins = [i for i, x in enumerate(lines) if "wins (rob kong)" in x]
    assert len(wins) == 1
    i = wins[0]
    m = re.fullmatch(r"seat (\d) wins \(rob kong\) on (\S+ \S+) fed by seat (\d)", lines[i])
    assert m, lines[i]
    tile, robbed = m.group(2), m.group(3)
    assert re.fullmatch(rf" *\d+\. seat {robbed} draws {tile} from the wall", lines[i - 2])
    assert lines[i - 1] == f"     seat {robbed} declares addkong of {tile}: robbed"
    assert m.group(1) != robbed


def test_recompute_checks_who_paid_a_gangkai():
    """杠上开花 is paid by each other seat, or after a 放杠 by the feeder alone (3 shares,
    杠爆全包); the record does not name the feeder, but the payers' win money must be one
    of the two shapes: moving a share from one payer to another is caught."""
    from engine.run import simulate
    from engine.testing import recompute_mismatch

    rules = V.resolve({})
    df = simulate("tuidaohu", 20_000, seed=1, progress=False).to_pandas()
    assert recompute_mismatch(V, rules, df) is None
    side = np.stack([df[f"kong_money_{s}"] + df[f"horse_money_{s}"] for s in range(4)], 1)
    win_money = df[[f"delta_{s}" for s in range(4)]].to_numpy() - side
    value = df["value"].to_numpy()
    kong_draw = (df["win_type"] == "kong_draw").to_numpy()
    fed = kong_draw & (win_money == -3 * value[:, None]).any(axis=1)
    each = kong_draw & ((win_money == -value[:, None]).sum(axis=1) == 3)
    assert fed.sum() > 50 and each.sum() > 50 and (fed | each)[kong_draw].all()
    for rows in (fed, each):
        i = int(np.flatnonzero(rows)[0])
        w = int(df["winner"].iat[i])
        a, b = [s for s in range(4) if s != w][:2]
        bad = df.copy()
        bad.loc[i, f"delta_{a}"] += 1
        bad.loc[i, f"delta_{b}"] -= 1
        assert recompute_mismatch(V, rules, bad)[0] == i
