"""祁阳落地扫: golden scoring of every group, factor, 醒 procedure, 王 win and payment rule.

RULEBOOK §4 (seed 003). Each expected value is derived by hand in the comment beside
it; the scorer under test is the game loop's own (engine.variants.luodisao._kernels).
"""

import numpy as np
import pytest

from engine.errors import UsageError
from engine.variants import get
from engine.variants.luodisao._kernels import pay_huangzhuang
from engine.zipai import layout as Z

V = get("luodisao")


def score(hand, rules=None, **kw):
    return V.score_hand(V.resolve(rules or {}), hand, **kw)


def brief(r):
    return r["huxi"], r["xing"], r["tun"], r["fan"], r["value"]


# --- the declaration ------------------------------------------------------------------------


def test_every_rulebook_option_exists_with_its_default():
    opts = {o.key: o for o in V.options}
    assert {k: o.default for k, o in opts.items()} == {
        "players": 3,
        "zuoxing": False,
        "kings": 1,
        "must_win": "discard",
        "xing": "gen",
        "shuangxing": False,
        "fan_combine": "multiply",
        "cap": 0,
        "huangzhuang": "pairwise",
        "huang_per_wang": 5,
        "tun_per_xing": 3,
        "pay_tianhu": 2,
        "pay_dihu": 2,
        "pay_zimo": 2,
        "pay_honghu": 2,
        "pay_yidianzhu": 3,
        "pay_quanhong": 4,
        "pay_heihu": 4,
        "pay_wangdiao": 4,
    }
    # payout options change only what a deal pays; the rest change play or the deck
    play = {"players", "zuoxing", "kings", "must_win", "xing"}
    assert {k for k, o in opts.items() if not o.payout} == play
    assert opts["players"].allowed == (2, 3, 4)
    assert opts["kings"].allowed == (0, 1, 2, 3, 4)
    assert set(opts["xing"].allowed) == {"gen", "fan", "shang", "xia"}
    assert set(opts["must_win"].allowed) == {"discard", "any", "none"}
    assert set(opts["cap"].allowed) == {0, 300, 600}
    assert set(opts["huangzhuang"].allowed) == {"pairwise", "pool"}
    assert set(opts["fan_combine"].allowed) == {"multiply", "add"}
    assert all(o.rulebook.startswith("§4") for o in V.options)


def test_declaration_shape():
    assert V.family == "zipai" and V.players == 3
    assert [p.name for p in V.patterns] == [
        "tianhu",
        "dihu",
        "zimo",
        "honghu",
        "yidianzhu",
        "quanhong",
        "heihu",
        "wangdiao",
        "wangdiaowang",
        "wangchuang",
        "wangchuangwang",
        "wangzha",
        "wangzhawang",
    ]
    assert V.extra_columns[:4] == ("huxi", "xing", "tun", "fan")
    assert len(V.extra_columns) <= 24
    assert V.n_players(V.resolve({"players": 4, "zuoxing": True})) == 4
    assert V.n_players(V.resolve({"players": 2})) == 2
    assert "Rules" in V.doc and "Engine simplifications" in V.doc


def test_zuoxing_needs_four_seats():
    with pytest.raises(UsageError, match="zuoxing=true .* players=4"):
        V.pack(V.resolve({"zuoxing": True}))
    assert V.pack(V.resolve({"zuoxing": True, "players": 4}))[Z.Z_ZUOXING] == 1


@pytest.mark.parametrize("bad", [{"kings": 5}, {"players": 5}, {"xing": "up"}, {"cap": 100}])
def test_bad_options_are_usage_errors(bad):
    with pytest.raises(UsageError):
        V.resolve(bad)


# --- 胡息 of every group through the scorer (RULEBOOK §4.2 rules 6-7) -----------------------

# Three table groups with no 胡息 (句 吃): the concealed cards form the group under test and
# a 大坎 of 陆 (6, so that every reading reaches the minimum); the win is on a discard of
# seat 1, its card the first of the group.
PLAIN = "chi:x3x4x5 chi:x4x5x6 chi:d3d4d5"


@pytest.mark.parametrize(
    "group, huxi",
    [
        ("x1x2x3", 3),  # 小一二三 3
        ("d1d2d3", 6),  # 大壹贰叁 6
        ("x2x7x10", 3),  # 小二七十 3
        ("d2d7d10", 6),  # 大贰柒拾 6
        ("x8x8x8", 1),  # the third 八 from a discard: 小碰 1
        ("d8d8d8", 3),  # 大碰 3
        ("x6x7x8", 0),  # 句 0
        ("d9x9x9", 0),  # 大小搭 0
    ],
)
def test_group_huxi_in_a_win(group, huxi):
    win = group[:2]
    r = score(group + " d6d6d6", win=win, table=PLAIN, from_seat=1)
    assert r["complete"] and r["huxi"] == huxi + 6


@pytest.mark.parametrize(
    "table, huxi",
    [
        ("peng:x9", 1),
        ("peng:d9", 3),
        ("xiao:x9", 3),
        ("xiao:d9", 6),
        ("chouxiao:d9", 6),  # 臭啸 scores as a 啸
        ("qing:x9", 9),
        ("qing:d9", 12),
        ("pao:x9", 6),
        ("pao:d9", 9),
    ],
)
def test_table_group_huxi(table, huxi):
    # Concealed: 大坎 of 陆 (6) + 句 + 句 + 句, won on a discard of 四.
    r = score("d6d6d6 x3x4x5 x4x5x6 d3d4d5", win="x4", table=table, from_seat=1)
    assert r["complete"] and r["huxi"] == 6 + huxi


def test_below_six_huxi_is_no_win():
    # 5 门子 of plain 句 and 大小搭: 0 胡息 (seed 「普通一句话 ... 无胡息」).
    r = score("x3x4x5 x4x5x6 d3d4d5 d4d5d6 x9x9d9", win="x6", from_seat=1)
    assert not r["complete"] and r["value"] == 0 and r["deltas"] == [0, 0, 0]


# --- the seed's worked example (rule 20) -----------------------------------------------------


def test_seed_example_ten_huxi_two_xing_sixteen_tun():
    # 「结算10胡息,2醒,囤数=10+2×3=16」: 壹贰叁 6 + 小坎五 3 + 碰九 1 = 10 胡息; won on 四,
    # and the winner holds two 四 (四四肆): 跟醒 2. Two red cards (贰, 七): no colour factor.
    r = score("d1d2d3 x5x5x5 x4x4d4 x6x7x8", win="x4", table="peng:x9", from_seat=1)
    assert brief(r) == (10, 2, 16, 1, 16)
    # 放炮包赔: the discarder pays for both other players.
    assert r["deltas"] == [32, -32, 0] and r["patterns"] == []


# --- 醒 (rule 21) ----------------------------------------------------------------------------

SEED_HAND = dict(hand="d1d2d3 x5x5x5 x4x4d4 x6x7x8", win="x4", table="peng:x9", from_seat=1)


def test_genxing_counts_every_copy_the_winner_holds():
    # 跟醒: the 坎 五五五 and the winning 五 (in 五六七): 4 醒; 胡息 6 + 3 + 0 + 0 + 1 = 10.
    r = score("d1d2d3 x5x5x5 x4x4d4 x5x6x7", win="x5", table="peng:x9", from_seat=1)
    assert brief(r)[:3] == (10, 4, 22)
    # Table cards count too: won on 九 with the 碰 of 九 on the table: 3 + 1 = 4 醒.
    r = score("d1d2d3 x5x5x5 x4x4d4 x8x9x10", win="x9", table="peng:x9", from_seat=1)
    assert brief(r)[:3] == (10, 4, 22)


@pytest.mark.parametrize(
    "xing, card, want",
    [
        ("fan", "x5", 3),  # 翻醒: the turned card 五: the 坎 五五五
        ("fan", "d9", 0),  # no 玖 held
        ("shang", "x4", 3),  # 上醒 of 四 is 五
        ("xia", "x6", 3),  # 下醒 of 六 is 五
        ("shang", "d10", 1),  # 上醒 of 拾 wraps to 壹: one 壹 (壹贰叁)
        ("xia", "x1", 0),  # 下醒 of 一 wraps to 十: none held
        ("fan", "x9", 3),  # the 碰 九 on the table
    ],
)
def test_turned_xing_card(xing, card, want):
    r = score(**SEED_HAND, rules={"xing": xing}, xing_card=card)
    assert r["xing"] == want and r["tun"] == 10 + 3 * want


def test_fanxing_without_a_card_uses_the_winning_card():
    # 「胡海底是胡牌即为醒牌」: with no card left to turn, the winning card is the 醒 card.
    r = score(**SEED_HAND, rules={"xing": "fan"})
    assert r["xing"] == 2 and r["notes"]


def test_shuangxing_doubles():
    r = score(**SEED_HAND, rules={"shuangxing": True})
    assert brief(r) == (10, 4, 22, 1, 22)


# --- 番 factors (rule 22) ----------------------------------------------------------------------


def test_zimo_doubles_and_everyone_pays():
    # The seed hand self-drawn: 16 囤 × 自摸 2 = 32 from each of the two others.
    r = score(SEED_HAND["hand"], win="x4", table="peng:x9")
    assert r["fan"] == 2 and r["value"] == 32 and r["patterns"] == ["zimo"]
    assert r["deltas"] == [64, -32, -32]


def test_win_on_a_flipped_card_is_paid_by_everyone_without_zimo():
    # 底胡: a card seat 2 turned up; every other player pays 囤 × 番, no ×2.
    r = score(**{**SEED_HAND, "from_seat": 2}, flip=True)
    assert r["fan"] == 1 and r["value"] == 16 and r["deltas"] == [32, -16, -16]


@pytest.mark.parametrize(
    "hand, win, red, pattern, factor",
    [
        # 黑胡: no red card (伍 肆 捌 三四五 四五六): 4.
        ("d5d5d5 d4d4d4 x3x4x5 x4x5x6 d8d8d8", "x6", 0, "heihu", 4),
        # 一点朱: exactly one red (贰 in 壹贰叁): 3.
        ("d1d2d3 d4d4d4 x3x4x5 x4x5x6 d8d8d8", "x6", 1, "yidianzhu", 3),
        # 红胡: 7-9 red (二七十 ×2 + 贰): 2.
        ("x2x7x10 x2x7x10 d1d2d3 x4x5x6 d8d8d8", "x6", 7, "honghu", 2),
        # 全红: more than 9 red (二七十 ×2, 贰柒拾 ×2): 4.
        ("x2x7x10 x2x7x10 d2d7d10 d2d7d10 x4x5x6", "x6", 12, "quanhong", 4),
    ],
)
def test_colour_factors(hand, win, red, pattern, factor):
    r = score(hand, win=win, from_seat=1)
    assert r["red"] == red and r["patterns"] == [pattern] and r["fan"] == factor
    assert r["value"] == r["tun"] * factor


def test_two_to_six_red_cards_have_no_colour_factor():
    r = score("x2x7x10 d1d2d3 d4d4d4 x4x5x6 d8d8d8", win="x6", from_seat=1)  # 4 red
    assert r["red"] == 4 and r["patterns"] == [] and r["fan"] == 1


def test_factors_multiply_or_add():
    # 黑胡 4 × 自摸 2 = 8; under fan_combine=add: 4 + 2 = 6.
    hand = "d5d5d5 d4d4d4 x3x4x5 x4x5x6 d8d8d8"
    assert score(hand, win="x6")["fan"] == 8
    assert score(hand, win="x6", rules={"fan_combine": "add"})["fan"] == 6
    # One factor alone, or none, is the same either way.
    assert score(hand, win="x6", from_seat=1, rules={"fan_combine": "add"})["fan"] == 4
    r = score(
        SEED_HAND["hand"], win="x4", table="peng:x9", from_seat=1, rules={"fan_combine": "add"}
    )
    assert r["fan"] == 1


def test_tianhu_takes_its_single_largest_factor():
    # The dealer's 15 dealt cards: 一二三 3 + 贰柒拾 6 + 大小搭 + 大坎五 6 + 八九十 = 15 胡息.
    hand = "x1x2x3 d2d7d10 x4x4d4 d5d5d5 x8x9x10"
    r = score(hand, win=None, tianhu=True, xing_card="d5")
    # 5 red (二 贰柒拾 十): no colour factor, so 天胡 2; 醒 on 伍 (the last dealt card): 3.
    assert r["patterns"] == ["tianhu"] and r["fan"] == 2
    assert brief(r) == (15, 3, 24, 2, 48) and r["deltas"] == [96, -48, -48]
    # With 黑胡 (4 > 2) the largest single factor is 4, not 2 × 4.
    black = "x3x4x5 x4x5x6 d3d4d5 d6d6d6 d8d8d8"
    r = score(black, win=None, tianhu=True, xing_card="d8")
    assert set(r["patterns"]) == {"tianhu", "heihu"} and r["fan"] == 4


TIANHU_HAND = "x1x2x3 d2d7d10 x4x4d4 d5d5d5 x8x9x10"
"""The dealer's 15 dealt cards of test_tianhu_takes_its_single_largest_factor."""


def cli_score(capsys, *argv):
    """``mjlab score luodisao ARGV`` through mjlab.cli.main: (exit code, JSON or stderr)."""
    import json

    from mjlab.cli import main

    code = main(["score", "luodisao", *argv])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 and "--json" in argv else err)


def test_tianhu_scores_from_the_command_line(capsys):
    """README: ``mjlab score luodisao HAND --flag tianhu`` scores the dealer's dealt cards
    as the Python path does; ``--win`` then names the dealer's last dealt card (the 醒
    card under 跟醒), or ``--xing-card`` the 醒 card."""
    want = score(TIANHU_HAND, win=None, tianhu=True, xing_card="d5")
    for extra in (["--win", "d5"], ["--xing-card", "d5"], ["--win", "x1", "--xing-card", "d5"]):
        code, r = cli_score(capsys, TIANHU_HAND, "--flag", "tianhu", *extra, "--json")
        assert code == 0, r
        assert (r["patterns"], brief(r), r["deltas"]) == (["tianhu"], brief(want), [96, -48, -48])
    # the Python path takes the last dealt card as the winning card too
    assert brief(score(TIANHU_HAND, win="d5", tianhu=True)) == brief(want)
    code, err = cli_score(capsys, TIANHU_HAND, "--flag", "tianhu")
    assert code == 2 and "醒" in err and "--win" in err
    code, err = cli_score(capsys, TIANHU_HAND, "--flag", "tianhu", "--win", "d9")
    assert code == 2 and "among the hand" in err
    code, err = cli_score(capsys, TIANHU_HAND, "--flag", "tianhu", "--win", "d5", "--from", "1")
    assert code == 2 and "天胡" in err


def test_a_win_needs_its_winning_card_on_the_command_line(capsys):
    code, err = cli_score(capsys, "x1x2x3", "--self-draw")
    assert code == 2 and "--win" in err
    from mjlab.cli import main

    assert main(["score", "zhuji", "123m456p789s11122z", "--self-draw"]) == 2
    assert "--win" in capsys.readouterr().err
    assert main(["score", "zhuji", "123m456p789s11122z", "--win", "1m", "--xing-card", "x1"]) == 2
    assert "--xing-card" in capsys.readouterr().err


def test_dihu_doubles_a_win_on_the_dealers_first_discard():
    r = score(**{**SEED_HAND, "from_seat": 0}, seat=1, dealer=0, dihu=True)
    assert r["patterns"] == ["dihu"] and r["fan"] == 2 and r["value"] == 32
    with pytest.raises(UsageError, match="地胡"):
        score(**SEED_HAND, dihu=True, dealer=2)


# --- 王 wins (rule 19) -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hand, win, table, kings, pattern, want",
    [
        # 王钓: a 跑 (大伍 9) on the table, 一二三 3 + 贰柒拾 6 + 四五六 and a lone 王; the drawn
        # 八 pairs with it. 18 胡息; 醒: 八 and the 王 standing for it, 2; 24 囤 × 4.
        ("x1x2x3 d2d7d10 x4x5x6 w x8", "x8", "pao:d5", 1, "wangdiao", (18, 2, 24, 4, 96)),
        # 王钓王: the drawn card is a 王 too: the pair stands for 伍伍, a fifth and sixth 伍
        # beside the 跑: 4 + 2 = 6 醒; 36 囤 × 8.
        ("x1x2x3 d2d7d10 x4x5x6 w w", "w", "pao:d5", 2, "wangdiaowang", (18, 6, 36, 8, 288)),
        # 王闯: two 王 and the drawn 叁 make 叁叁叁 (6): 9 + 6 = 15 胡息; 醒 叁 ×3; 24 × 8.
        ("x1x2x3 d2d7d10 x4x5x6 d8d9d10 w w d3", "d3", "", 2, "wangchuang", (15, 3, 24, 8, 192)),
        # 王炸: three 王 and the drawn 叁 are a 倾 (12): 21 胡息; 醒 4; 33 × 16.
        ("x1x2x3 d2d7d10 x4x5x6 x7x8x9 w w w d3", "d3", "", 3, "wangzha", (21, 4, 33, 16, 528)),
    ],
)
def test_wang_wins(hand, win, table, kings, pattern, want):
    r = score(hand, win=win, table=table, rules={"kings": kings})
    assert r["patterns"] == [pattern] and brief(r) == want
    # The 王 factor replaces 自摸's ×2: every other player pays the value.
    assert r["deltas"][1] == r["deltas"][2] == -want[4]


def test_wang_chuang_wang_and_wang_zha_wang():
    # 王闯王: three 王 form the last 门子, best as 拾拾拾 (6): 9 + 6 = 15 胡息, 醒 2 拾 + 3 王 = 5,
    # and the 王 as 拾 make 8 red cards: 红胡 2 × 16 = 32; 30 囤 × 32 = 960.
    r = score("x1x2x3 d2d7d10 x4x5x6 d8d9d10 w w w", win="w", rules={"kings": 3})
    assert set(r["patterns"]) == {"wangchuangwang", "honghu"}
    assert brief(r) == (15, 5, 30, 32, 960)
    # 王炸王: four 王 as a 倾 of 拾 (12): 21 胡息, 醒 1 + 4, 9 red: 36 囤 × 32 × 2.
    r = score("x1x2x3 d2d7d10 x4x5x6 x7x8x9 w w w w", win="w", rules={"kings": 4})
    assert set(r["patterns"]) == {"wangzhawang", "honghu"}
    assert brief(r) == (21, 5, 36, 64, 2304)


def test_wang_factor_is_used_only_when_it_pays_more():
    # The same 王钓 hand drawn... a plain self-draw reading gives ×2 < ×4: 王钓 wins.
    r = score("x1x2x3 d2d7d10 x4x5x6 w x8", win="x8", table="pao:d5")
    assert r["shape"] == "wangdiao" and "zimo" not in r["patterns"]


def test_wang_holders_only_self_draw():
    with pytest.raises(UsageError, match="only by self-draw"):
        score("x1x2x3 d2d7d10 x4x5x6 w x8", win="x8", table="pao:d5", from_seat=1)
    with pytest.raises(UsageError, match="never discarded"):
        score("x1x2x3 d2d7d10 x4x5x6 w w", win="w", table="pao:d5", from_seat=1, rules={"kings": 2})


def test_fourth_card_of_a_kan_must_qing_so_no_wang_shape():
    # Before the draw: 一二三, 贰柒拾 and the 坎 伍伍伍 formed, a lone 王, a 跑 on the table.
    # Any drawn card pairs with the 王 (王钓) ... except a fourth 伍, which must join its 坎
    # (倾 before 胡, rule 9): then the 王 is alone and the hand does not win.
    hand = "x1x2x3 d2d7d10 d5d5d5 w"
    assert score(hand + " x8", win="x8", table="pao:x9")["shape"] == "wangdiao"
    assert not score(hand + " d5", win="d5", table="pao:x9")["complete"]


# --- payments (rule 23) -----------------------------------------------------------------------


@pytest.mark.parametrize("cap", [300, 600])
def test_caps(cap):
    # 王炸 528 per payer: each payer loses at most the cap.
    r = score("x1x2x3 d2d7d10 x4x5x6 x7x8x9 w w w d3", win="d3", rules={"kings": 3, "cap": cap})
    per = min(528, cap)
    assert r["deltas"] == [2 * per, -per, -per] and r["capped"] == (528 > cap)


def test_discarder_total_is_capped():
    # 黑胡 84 × 2 players = 168 for the discarder; 4 players: 84 × 3 = 252; cap 300 no cut.
    hand = "d5d5d5 d4d4d4 x3x4x5 x4x5x6 d8d8d8"
    r = score(hand, win="x6", from_seat=1, rules={"players": 4, "cap": 300})
    assert r["deltas"] == [252, -252, 0, 0] and not r["capped"]
    # Self-drawn: 168 each from three players; under cap 300 no cut either.
    r = score(hand, win="x6", rules={"players": 4, "cap": 300})
    assert r["deltas"] == [504, -168, -168, -168]


def test_big_discard_is_capped_in_total():
    # 坎 伍 6 + 坎 肆 6 + 坎 捌 6 + 四五六 0 + 倾 玖 12 = 30 胡息; 醒 六 1: 33 囤; no red: 黑胡 ×4
    # = 132 per player; with four seats the discarder owes 3 × 132 = 396 > 300.
    r = score(
        "d5d5d5 d4d4d4 d8d8d8 x4x5x6",
        win="x6",
        table="qing:d9",
        from_seat=1,
        rules={"players": 4, "cap": 300},
    )
    assert r["value"] == 132 and r["deltas"] == [300, -300, 0, 0] and r["capped"]


def test_zuoxing_seat_takes_half_the_xing_part():
    # 4 seats, 坐醒: dealer 0, seat 2 sits out. Seed hand self-drawn by seat 0: 32 per payer
    # from seats 1 and 3; the 醒 part of one payment is 3 × 2 醒 × 番 2 = 12: seat 2 gets 6.
    rules = {"players": 4, "zuoxing": True}
    r = score(SEED_HAND["hand"], win="x4", table="peng:x9", rules=rules)
    assert r["deltas"] == [64 - 6, -32, 6, -32] and r["zuoxing_money"] == 6
    with pytest.raises(UsageError, match="坐醒"):
        score(SEED_HAND["hand"], win="x4", table="peng:x9", rules=rules, seat=2)


# --- 黄庄 王 payments (rule 24) ------------------------------------------------------------------


def _huang(kings, pool=False, dealer=0, seats=3, zx=-1, per=5):
    rules = V.pack(
        V.resolve({"huangzhuang": "pool" if pool else "pairwise", "huang_per_wang": per})
    )
    active = np.array([1 if s < seats and s != zx else 0 for s in range(4)], np.int64)
    delta = np.zeros(4, np.int64)
    money = np.zeros(4, np.int64)
    k = np.zeros(4, np.int64)
    k[: len(kings)] = kings
    pay_huangzhuang(rules, seats, active, dealer, k, delta, money)
    assert delta.sum() == 0
    return delta[:seats].tolist()


@pytest.mark.parametrize(
    "kings, want",
    [
        ((0, 0, 0), [0, 0, 0]),
        ((1, 0, 0), [-10, 5, 5]),  # 「一张王霸赔付5倍基础分」 to each seat with none
        ((2, 1, 0), [-15, 0, 15]),  # 2 vs 1: 5; 2 vs 0: 10; 1 vs 0: 5 (「王多赔差值给王少的」)
        ((1, 1, 0), [-5, -5, 10]),
        ((4, 0, 0), [-40, 20, 20]),  # four 王: 20 to each
        ((2, 2, 0), [-10, -10, 20]),
    ],
)
def test_huangzhuang_pairwise(kings, want):
    assert _huang(kings) == want


@pytest.mark.parametrize(
    "kings, dealer, want",
    [
        ((1, 0, 0), 0, [-5, 3, 2]),  # 5 split between two: the remainder to the first in turn
        ((1, 0, 0), 2, [-5, 2, 3]),  # ... order from the dealer
        ((2, 1, 0), 0, [-10, -5, 15]),
        ((1, 1, 1), 0, [0, 0, 0]),  # nobody without 王: nothing moves
    ],
)
def test_huangzhuang_pool(kings, dealer, want):
    assert _huang(kings, pool=True, dealer=dealer) == want


def test_huangzhuang_four_seats_and_zuoxing():
    assert _huang((1, 0, 0, 0), seats=4) == [-15, 5, 5, 5]
    # The sitting-out seat neither pays nor receives.
    assert _huang((1, 0, 0, 0), seats=4, zx=2) == [-10, 5, 0, 5]


# --- payout options (issue 22): each pays what its rule says --------------------------------

BLACK = "d5d5d5 d4d4d4 x3x4x5 x4x5x6 d8d8d8"
"""黑胡 on 六: 坎伍 6 + 坎肆 6 + 三四五 0 + 四五六 0 + 坎捌 6 = 18 胡息, 醒 六 1: 21 囤."""


@pytest.mark.parametrize(
    "hand, key, value, want",
    [
        # 黑胡 21 囤 × pay_heihu
        (BLACK, "pay_heihu", 5, 21 * 5),
        (BLACK, "pay_heihu", 1, 21),
        # 一点朱: 壹贰叁 6 + 坎肆 6 + 0 + 0 + 坎捌 6 = 18 胡息, 醒 1: 21 囤 × pay_yidianzhu
        ("d1d2d3 d4d4d4 x3x4x5 x4x5x6 d8d8d8", "pay_yidianzhu", 7, 21 * 7),
        # 红胡 (7 red): 二七十 3 + 二七十 3 + 壹贰叁 6 + 0 + 坎捌 6 = 18, 醒 1: 21 囤
        ("x2x7x10 x2x7x10 d1d2d3 x4x5x6 d8d8d8", "pay_honghu", 5, 21 * 5),
        # 全红 (12 red): 3 + 3 + 贰柒拾 6 + 6 + 0 = 18, 醒 1: 21 囤
        ("x2x7x10 x2x7x10 d2d7d10 d2d7d10 x4x5x6", "pay_quanhong", 9, 21 * 9),
    ],
)
def test_pay_colour_factors(hand, key, value, want):
    r = score(hand, win="x6", from_seat=1, rules={key: value})
    assert r["tun"] == 21 and r["fan"] == value and r["value"] == want
    # a discard: the discarder pays it for both other players
    assert r["deltas"] == [2 * want, -2 * want, 0]
    # the default factor is the seed's
    assert score(hand, win="x6", from_seat=1)["fan"] == V.option_map[key].default


def test_pay_zimo_and_dihu():
    # The seed hand (16 囤) self-drawn: × pay_zimo 3 = 48 from each other player.
    r = score(SEED_HAND["hand"], win="x4", table="peng:x9", rules={"pay_zimo": 3})
    assert r["value"] == 48 and r["deltas"] == [96, -48, -48]
    # 黑胡 self-drawn under add: 4 + pay_zimo 5 = 9 番.
    r = score(BLACK, win="x6", rules={"pay_zimo": 5, "fan_combine": "add"})
    assert r["fan"] == 9 and r["value"] == 21 * 9
    # 地胡 on the dealer's first discard: 16 囤 × pay_dihu 5 = 80, the dealer pays for two.
    r = score(**{**SEED_HAND, "from_seat": 0}, seat=1, dealer=0, dihu=True, rules={"pay_dihu": 5})
    assert r["value"] == 80 and r["deltas"] == [-160, 160, 0]


def test_pay_tianhu_is_its_single_factor():
    # TIANHU_HAND: 24 囤, no colour: 番 = pay_tianhu.
    r = score(TIANHU_HAND, win=None, tianhu=True, xing_card="d5", rules={"pay_tianhu": 5})
    assert r["fan"] == 5 and r["value"] == 120 and r["deltas"] == [240, -120, -120]
    # 黑胡 天胡: max(pay_tianhu, 黑胡 4): 3 -> 4, 6 -> 6.
    black = "x3x4x5 x4x5x6 d3d4d5 d6d6d6 d8d8d8"
    for t, fan in ((3, 4), (6, 6)):
        r = score(black, win=None, tianhu=True, xing_card="d8", rules={"pay_tianhu": t})
        assert r["fan"] == fan


def test_pay_wangdiao_prices_the_seed_reading():
    # 王钓 (18 胡息, 2 醒: 24 囤) × pay_wangdiao 6 = 144 from each.
    hand = dict(hand="x1x2x3 d2d7d10 x4x5x6 w x8", win="x8", table="pao:d5")
    r = score(**hand, rules={"pay_wangdiao": 6})
    assert r["shape"] == "wangdiao" and r["value"] == 144 and r["deltas"] == [288, -144, -144]
    # The reading is the seed table's choice (王钓 ×4 over 自摸 ×2), so at pay_wangdiao=1
    # it stays 王钓 and pays 24 × 1, though the plain 自摸 reading would pay 24 × 2.
    r = score(**hand, rules={"pay_wangdiao": 1})
    assert r["shape"] == "wangdiao" and r["patterns"] == ["wangdiao"] and r["value"] == 24


def test_tun_per_xing():
    # The seed hand on a discard: 10 胡息 + 5 × 2 醒 = 20 囤; 0 per 醒: 10.
    assert brief(score(**SEED_HAND, rules={"tun_per_xing": 5})) == (10, 2, 20, 1, 20)
    assert brief(score(**SEED_HAND, rules={"tun_per_xing": 0})) == (10, 2, 10, 1, 10)
    # 坐醒: the 醒 part of one payment is 5 × 2 醒 × 自摸 2 = 20, half to the sitting-out seat;
    # each payer owes (10 + 10) × 2 = 40.
    rules = {"players": 4, "zuoxing": True, "tun_per_xing": 5}
    r = score(SEED_HAND["hand"], win="x4", table="peng:x9", rules=rules)
    assert r["deltas"] == [80 - 10, -40, 10, -40] and r["zuoxing_money"] == 10


@pytest.mark.parametrize(
    "kings, pool, want",
    [
        ((1, 0, 0), False, [-14, 7, 7]),  # pairwise: 7 per 王 to each seat with none
        ((2, 1, 0), False, [-21, 0, 21]),  # 7 + 14 and 7: 2 vs 1, 2 vs 0, 1 vs 0
        ((1, 0, 0), True, [-7, 4, 3]),  # pool: 7 split two, the odd point to the 下家
        ((0, 0, 0), True, [0, 0, 0]),
    ],
)
def test_huang_per_wang(kings, pool, want):
    assert _huang(kings, pool=pool, per=7) == want


def test_recompute_huang_money_matches_the_kernel():
    """The twin's 黄庄 money from ``wang_held`` equals pay_huangzhuang's, for every
    holding, dealer, seat count, 坐醒, method and amount per 王."""
    import pandas as pd
    from oracles.settlement import RecordView, _huang_money

    rng = np.random.default_rng(3)
    for seats, zuoxing in ((2, False), (3, False), (4, False), (4, True)):
        for pool in (False, True):
            n = 400
            k = rng.integers(0, 3, (n, seats))
            dealer = rng.integers(0, seats, n)
            zx = (dealer + 2) % seats if zuoxing else np.full(n, -1)
            k = np.where(np.arange(seats)[None, :] == zx[:, None], 0, k)
            per = int(rng.integers(0, 33))
            rules = V.resolve(
                {
                    "players": seats,
                    "zuoxing": zuoxing,
                    "huangzhuang": "pool" if pool else "pairwise",
                    "huang_per_wang": per,
                }
            )
            frame = pd.DataFrame(
                {
                    "winner": -1,
                    "discarder": -1,
                    "dealer": dealer,
                    "win_type": "none",
                    "wang_held": (k * 10 ** np.arange(seats)).sum(axis=1),
                }
            )
            r = RecordView(frame, seats)
            active = np.arange(seats)[None, :] != zx[:, None]
            got = _huang_money(rules, r, seats, active)
            for i in range(n):
                want = _huang(
                    tuple(k[i]), pool=pool, dealer=int(dealer[i]), seats=seats,
                    zx=int(zx[i]), per=per,
                )  # fmt: skip
                assert got[i].tolist() == want, (seats, zuoxing, pool, per, k[i], dealer[i])


def test_score_command_takes_payout_options(capsys):
    code, r = cli_score(capsys, BLACK, "--win", "x6", "--from", "1", "--rule", "pay_heihu=5",
                        "--json")  # fmt: skip
    assert code == 0, r
    assert (r["fan"], r["value"], r["deltas"]) == (5, 105, [210, -210, 0])


# --- input checks --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, needle",
    [
        (dict(hand="x1x2x3", win="x4"), "among the hand"),
        (dict(hand="x1x2x3", win="x1", table="kan:x3"), "unknown word"),
        (dict(hand="x1x1x1", win="x1", table="qing:x1"), "more than four"),
        (dict(hand="x1x2x3 w w", win="x1"), "kings=1"),
        (dict(hand="x1x2x3", win="x1", from_seat=0), "another playing seat"),
        (dict(hand="x1x2x3", win="x1", tianhu=True, from_seat=1), "天胡"),
        (dict(hand="x1x2x3", win="x4", tianhu=True), "among the hand"),
        (dict(hand="x1x2x3", win="x1", flip=True), "from_seat"),
    ],
)
def test_bad_input(kw, needle):
    with pytest.raises(UsageError, match=needle):
        score(**kw)


# --- the 醒 王 count of the 胡息 search against brute force ----------------------------------


def _xing_bruteforce(counts, kings, need, cand, self_drawn, xk, pair_ok=True):
    """best[j][x] by enumerating every split (as tests/oracles/zipai_bruteforce does).

    ``x``: the 王 standing for kind ``xk`` in the split (its copies beyond the real ones).
    """
    import itertools

    from oracles import zipai_bruteforce as bf

    real = [int(c) for c in counts]
    if 0 <= cand < 20:
        real[cand] += 1
    if cand == 20:
        kings += 1
    other = cand if (0 <= cand < 20 and not self_drawn) else -1
    locks = {k: int(counts[k]) for k in range(20) if counts[k] >= 3}
    if 0 <= cand < 20 and self_drawn and counts[cand] == 3:
        locks[cand] = 4
    total = sum(real) + kings
    vals = {n: v for n, v in bf._DEFAULT.items()}
    best = [[-1] * 5 for _ in range(5)]
    seen = set()

    def value(split):
        places = [None] if other < 0 else [i for i, g in enumerate(split) if other in g[0]]
        out = None
        for gi in places:
            ok = all(
                any(
                    len(g[0]) - (1 if i == gi else 0) >= n
                    for i, g in enumerate(split)
                    if g[1] in ("alike3", "alike4") and g[0][0] == k
                )
                for k, n in locks.items()
            )
            if ok:
                h = sum(bf._value(vals, g[1], g[2], i == gi) for i, g in enumerate(split))
                out = h if out is None else max(out, h)
        return out

    def finish(split):
        key = tuple(sorted(g[0] for g in split))
        pairs = sum(g[1] == "jiang" for g in split)
        if key in seen or pairs > (1 if pair_ok else 0):
            return
        seen.add(key)
        u = [sum(g[3][k] for g in split) for k in range(20)]
        if sum(u) != total or any(u[k] < real[k] for k in range(20)):
            return
        j = sum(u[k] - real[k] for k in range(20) if bf._RED[k])
        x = u[xk] - real[xk] if xk >= 0 else 0
        h = value(split)
        if h is not None and h > best[j][x]:
            best[j][x] = h

    groups = bf.UNIVERSE
    for split in itertools.combinations_with_replacement(range(len(groups)), need):
        sz = sum(len(groups[i][0]) for i in split)
        if sz == total:
            finish([groups[i] for i in split])
    return best


def test_xing_wang_count_matches_bruteforce():
    """The search's best2[j, x] (j 王 as red cards, x 王 as the 醒 kind), with and without
    the pair allowed, equals brute force."""
    from engine.zipai import cards
    from engine.zipai import huxi as _huxi
    from engine.zipai.hand import values_table

    rng = np.random.default_rng(8)
    values = values_table()
    ws = _huxi._workspace()
    best2 = np.zeros((5, 5), np.int64)
    checked = wins = 0
    while checked < 150:
        need = int(rng.integers(1, 3))
        kings = int(rng.integers(1, 4))
        n = 3 * need - kings + int(rng.integers(-1, 2))
        if n < 1:
            continue
        counts = np.zeros(20, np.int64)
        for k in rng.choice(np.repeat(np.arange(20), 4), size=n, replace=False):
            counts[k] += 1
        cand = int(rng.choice(np.flatnonzero(counts)))
        counts[cand] -= 1
        own = bool(rng.random() < 0.5)
        xk = int(rng.choice([cand, int(rng.integers(20))]))
        pair_ok = bool(rng.random() < 0.7)  # 0: the 王钓 shape's other 门子
        wvx = _huxi._wang_values_x(values, xk)
        _huxi._evaluate_core(counts, kings, need, cand, own, pair_ok, xk, values, wvx, best2, ws)
        want = _xing_bruteforce(counts, kings, need, cand, own, xk, pair_ok)
        assert best2.tolist() == want, (cards.format(counts.astype(np.uint8), kings), cand, xk)
        checked += 1
        wins += int((best2 >= 0).any())
    assert wins > 50
