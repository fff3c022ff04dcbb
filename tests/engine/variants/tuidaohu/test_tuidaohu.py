"""广东推倒胡: golden scoring of every pattern and payment rule (RULEBOOK §5, seed 004)."""

import numpy as np
import pytest
from oracles import settlement as TW

from engine import tiles
from engine.errors import UsageError
from engine.mahjong import layout as L
from engine.variants import get
from engine.variants import tuidaohu as TD
from engine.variants._scoring import parse_melds
from engine.variants.tuidaohu import _kernels as K

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
    from engine.runs.run import simulate

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

    from engine.play.mahjong.replay import replay

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
    杠爆全包, the feeder in ``kong_feeder``): the payers' win money is one of the two shapes,
    and moving a share from one payer to another is caught."""
    from engine.runs.run import simulate

    rules = V.resolve({})
    df = simulate("tuidaohu", 20_000, seed=1, progress=False).to_pandas()
    assert TW.twin_mismatch(V, rules, df) is None
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
        assert TW.twin_mismatch(V, rules, bad)[0] == i


# ---- payout options (issue 22): worked hands, twin = kernel, re-scoring --------------


def test_pay_options_in_worked_hands():
    """Each payout option pays what RULEBOOK §5.3 says with its value in place."""
    r = score("123m456p789s11122z", rules={"pay_base": 3, "pay_zimo": 4})  # 3 x 自摸 4
    assert r["value"] == 12 and r["deltas"] == [36, -12, -12, -12]
    r = score("11123455678999m", rules={"pay_qingyise": 5})  # 清一色 x5, self-drawn x2
    assert r["value"] == 10 and r["deltas"] == [30, -10, -10, -10]
    r = score("11122233344455z", rules={"pay_ziyise": 6, "pay_sianke": 3})  # the largest
    assert {"ziyise", "sianke"} <= set(r["patterns"]) and r["value"] == 2 * 6
    rules = {"ghost": "baiban", "no_ghost_double": "true", "pay_wugui": 3}  # 无鬼 x3
    r = score("123m456p789s11122z", rules=rules)
    assert "wugui" in r["patterns"] and r["value"] == 2 * 3
    r = score("123m456p789s11122z", seat=2, win_type=L.WIN_ROB_KONG, discarder=1,
              rules={"pay_qianggang": 2})  # fmt: skip
    assert r["value"] == 2 and r["deltas"] == [0, -4, 4, 0]  # the robbed seat pays 2 shares
    r = score("123m456p789s11122z", seat=3, win_type=L.WIN_DISCARD, discarder=0,
              flags={"fanggang"}, rules={"pay_gangbao": 1})  # fmt: skip
    assert r["deltas"] == [-2, 0, 0, 2]  # the feeder pays one share


def test_pay_kong_money_and_horse_factor():
    rules = {"pay_fanggang": 5, "pay_bugang": 2, "pay_angang": 4}
    r = V.pack(V.resolve(rules))
    pay = np.zeros((4, 4), np.int64)
    ctx = np.zeros(L.N_CTX, np.int64)
    K.on_kong(r, ctx, pay, 1, L.M_KONG, 2, 4)  # 放杠: seat 2 pays 5
    K.on_kong(r, ctx, pay, 0, L.M_ADDKONG, 0, 4)  # 补杠: 2 from each
    K.on_kong(r, ctx, pay, 3, L.M_ANKONG, 3, 4)  # 暗杠: 4 from each
    delta, extra = _settle(pay.copy(), winner=-1, dealer=0, win_type=L.WIN_NONE, rules=rules)
    assert delta == [6 - 4, 5 - 2 - 4, -5 - 2 - 4, 12 - 2]
    # the tallies a record keeps: seat 1 made a 明杠 on seat 2's discard (k = 1), seat 0
    # a 补杠, seat 3 an 暗杠
    tally = [int(ctx[K.S_TALLY + s]) for s in range(4)]
    assert tally == [1, 1 << K.TALLY_FANGGANG, 0, 1 << K.TALLY_ANGANG]
    ctx[L.X_WINNER] = ctx[L.X_KONG_FROM] = -1
    extra = np.zeros(L.MAX_EXTRA, np.int64)
    K.settle(r, ctx, pay.copy(), 0, 4, np.zeros(4, np.int64), extra)
    assert extra[K.E_KONG_TALLY : K.E_KONG_TALLY + 4].tolist() == tally
    assert extra[K.E_KONG_FEEDER] == -1
    # the dealer's horse on seat 1 copies seat 1's self-draw twice over (pay_horse=2)
    pay = np.zeros((4, 4), np.int64)
    delta, extra = _settle(pay, winner=1, dealer=0, horses=("2m",), rules={"pay_horse": 2})
    assert delta == [-2 + 2 * 4, 6, -2 - 4, -2 - 4]
    assert extra[K.E_HORSE_TILES] == 1 << (K.HORSE_CLASS_BITS * 1)  # one horse of class 1


_BIG_HANDS = {
    "tianhu": ("123m456p789s11122z", "", {"tianhu"}),
    "qingyise": ("11123455678999m", "", ()),
    "ziyise": ("11122233344455z", "", ()),
    "qidui": ("1133557799m1122z", "", ()),
    "sianke": ("111m222p333s44455z", "", ()),
    "shibaluohan": ("55z", "ankong:1m kong:2p addkong:3s ankong:4s", ()),
    "dasanyuan": ("123m55p555666777z", "", ()),
    "xiaosixi": ("123m111222333z44z", "", ()),
    "dasixi": ("11m111222333444z", "", ()),
    "shisanyao": ("19m19p19s12345677z", "", ()),
}


@pytest.mark.parametrize("name", sorted(_BIG_HANDS))
def test_recompute_pays_every_big_hand_as_the_kernel(name):
    """大胡 too rare to meet in a simulated sample (十八罗汉, 大四喜 ...): the twin, on
    the flags of a scored hand (self-drawn by seat 1, dealer 0, with no kong or horse
    money), pays what the kernel pays under its multiplier."""
    import pandas as pd

    hand, melds, flags = _BIG_HANDS[name]
    seat = 0 if name == "tianhu" else 1
    rules = {f"pay_{name}": 7, "pay_base": 2}
    r = score(hand, melds=melds, flags=flags, seat=seat, rules=rules)
    assert name in r["patterns"] and r["value"] == 2 * 2 * 7
    row = {"winner": seat, "discarder": -1, "dealer": 0, "win_type": "self_draw",
           "wilds_in_hand": 0, "kong_feeder": -1, "horse_tiles": 0, "horses": 0}  # fmt: skip
    row |= {f"kong_tally_{s}": 0 for s in range(4)}
    row |= {f"pat_{p.name}": p.name in r["patterns"] for p in V.patterns}
    frame = pd.DataFrame([row])
    frame["win_type"] = pd.Categorical(frame["win_type"], categories=list(L.WIN_TYPE_NAMES))
    got = TW.tuidaohu(V.resolve({**rules, "horses": "0"}), frame)
    assert got["value"][0] == r["value"]
    assert [got[f"delta_{s}"][0] for s in range(4)] == r["deltas"]


def _sim(rules, deals=1000, policies="efficiency"):
    from engine.runs.run import simulate

    return simulate("tuidaohu", deals, seed=7, policies=policies, rules=rules, progress=False)


@pytest.mark.parametrize("key", sorted(TD.RESCORE_CONTEXT))
def test_rescore_under_the_rules_where_the_option_pays(key):
    """The payout options idle without 鬼 (无鬼, 四鬼胡), re-scored where they pay: equal to
    a fresh efficiency simulation, and moving the payments."""
    import pandas as pd

    import analysis

    context = TD.RESCORE_CONTEXT[key]
    run = _sim(context)
    base = run.to_pandas()
    opt = V.option_map[key]
    for value in [a for a in opt.allowed if a != opt.default][:2]:
        got = analysis.rescore(run, **{key: value})
        want = _sim({**context, key: value}).to_pandas()
        pd.testing.assert_frame_equal(got, want, check_exact=True)
        assert (got["value"] != base["value"]).any(), (key, value)


@pytest.mark.parametrize(
    "rules, change",
    [
        ({"huangzhuang_huanggang": True}, {"huangzhuang_huanggang": False}),
        ({"horse_map": "mil", "pay_fanggang": 6}, {"horse_map": "seed", "pay_fanggang": 3}),
        ({"horses": "winner:4", "horse_map": "mil"}, {"horse_map": "seed", "pay_horse": 3}),
    ],
)
def test_rescore_does_not_depend_on_the_source_rules(rules, change):
    """The records carry the inputs (kong tallies, horse tiles), not only their money: a
    run re-scored back to other options equals a run played under them."""
    import pandas as pd

    import analysis

    got = analysis.rescore(_sim(rules, 800), **change)
    want = _sim({**rules, **change}, 800).to_pandas()
    pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_the_horse_count_changes_the_wall():
    """``horses`` (the count) is a play option: the horses leave the tail before play, so
    the deals played differ (``mjlab design --vary horses=...`` must simulate them)."""
    a = _sim({"horses": "2"}, 300).to_pandas()
    b = _sim({"horses": "6"}, 300).to_pandas()
    assert not V.option_map["horses"].payout
    assert not a["turns"].equals(b["turns"]) and not a["winner"].equals(b["winner"])


@pytest.mark.parametrize("policy", ["value", "strong"])
def test_value_aware_bots_read_the_payout_options(policy):
    """The value and strong bots read the run's payouts (engine.runs.adapt): a payout
    change moves some of their decisions, so the re-scored default run (the first-order
    answer) differs from the run played under the change, in play and not only in money."""
    import analysis
    from engine.runs.run import simulate

    change = {"pay_qidui": 4, "pay_fanggang": 5, "horse_map": "mil"}
    run = simulate("tuidaohu", 600, seed=11, policies=policy, progress=False)
    want = simulate("tuidaohu", 600, seed=11, policies=policy, rules=change, progress=False)
    want = want.to_pandas()
    got = analysis.rescore(run, **change)
    assert not got["turns"].equals(want["turns"]) or not got["winner"].equals(want["winner"])


def test_pay_option_defaults_are_the_pattern_declarations():
    """Each pattern with a ``pay_<name>`` option declares its default as ``value`` (every
    大胡 ×2, 无鬼 ×2, 抢杠胡's 3 shares), and the default packed table holds it."""
    v = get("tuidaohu")
    defaults = v.defaults()
    packed = v.pack(v.resolve({}))
    valued = {p.name: p.value for p in K.PATTERNS if p.value}
    priced = {k[4:]: d for k, d in defaults.items() if k[4:] in K.BIT}
    assert valued == priced
    assert priced == {**{p.name: 2 for p in K.PATTERNS if p.big}, "wugui": 2, "qianggang": 3}
    for i, p in enumerate(K.PATTERNS):
        assert packed[K.T_BIG + i] == (p.value if p.big else 1)
    assert packed[K.T_WUGUI] == valued["wugui"] and packed[K.T_QIANGGANG] == valued["qianggang"]
