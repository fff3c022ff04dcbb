"""胡息 evaluation: golden hands (RULEBOOK §4.2, §4.4, §4.5) and the brute-force twin.

Golden tests run against both the kernel (:func:`engine.zipai.hand.evaluate`) and the
brute-force twin (``tests/oracles/zipai_bruteforce.py``), so a wrong expectation here and
a wrong kernel cannot agree by accident; a random-hand test checks that the two agree.
"""

import numpy as np
import pytest
from oracles import zipai_bruteforce as bf

from engine.zipai import cards, hand

pytestmark = pytest.mark.twin  # also run interpreted (.ci/run's NUMBA_DISABLE_JIT pass)

ONE = hand.Table(4, 0, 0)
"""Four groups on the table (no 胡息): the concealed cards form exactly one 门子."""


def _engine(*args, **kw):
    e = hand.evaluate(*args, **kw)
    return int(e.huxi), int(e.red), bool(e.wins), tuple(int(x) for x in e.huxi_by_red_kings)


def _twin(*args, **kw):
    e = bf.evaluate(*args, **kw)
    return e.huxi, e.red, e.wins, e.huxi_by_red_kings


@pytest.fixture(params=["kernel", "bruteforce"])
def evaluate(request):
    return {"kernel": _engine, "bruteforce": _twin}[request.param]


# --- every group and its 胡息 (RULEBOOK §4.2 rules 6-7, seed 基本牌型) -------------------


@pytest.mark.parametrize(
    "text, candidate, self_drawn, huxi",
    [
        ("x3x4x5", None, True, 0),  # 句: 「普通一句话:234、456这种...无胡息」
        ("d7d8d9", None, True, 0),
        ("一二三", None, True, 3),  # 小一二三 3
        ("壹贰参", None, True, 6),  # 大壹贰参 6
        ("x2x7x10", None, True, 3),  # 小二七十 3
        ("贰柒拾", None, True, 6),  # 大贰柒拾 6
        ("四四肆", None, True, 0),  # 大小搭: 「大大小或者小小大,例如四四肆,肆肆四」, 无胡息
        ("肆肆四", None, True, 0),
        ("x5x5x5", None, True, 3),  # 小字坎 3
        ("d5d5d5", None, True, 6),  # 大字坎 6
        ("x5x5", "x5", True, 3),  # third card self-drawn onto a pair: 啸 3
        ("d5d5", "d5", True, 6),  # 大字啸 6
        ("x5x5", "x5", False, 1),  # third card from another player: 碰 1
        ("d5d5", "d5", False, 3),  # 大字碰 3
        ("x5x5x5x5", None, True, 9),  # four alike dealt: 倾 9
        ("d5d5d5d5", None, True, 12),  # 大字倾 12
        ("x5x5x5", "x5", True, 9),  # self-drawn fourth card of a 坎: 倾
        ("d5d5d5", "d5", True, 12),
        ("x5x5x5", "x5", False, 6),  # fourth card from another player: 跑 6
        ("d5d5d5", "d5", False, 9),  # 大字跑 9
        ("x8x8", None, True, 0),  # 将
    ],
)
def test_each_group_and_its_huxi(evaluate, text, candidate, self_drawn, huxi):
    got = evaluate(text, table=ONE, candidate=candidate, self_drawn=self_drawn, min_huxi=0)
    assert got[0] == huxi


@pytest.mark.parametrize(
    "text",
    ["x1x2d3", "x2x7d10", "x4d4d5", "x1x3x5", "x9x10d1", "x4x4d5", "x8x9", "x5x5x5x6", "x1"],
)
def test_not_a_group(evaluate, text):
    assert evaluate(text, table=ONE, min_huxi=0)[:3] == (-1, -1, False)


@pytest.mark.parametrize(
    "text, huxi, red",
    [
        ("peng:x3", 1, 0),
        ("peng:d3", 3, 0),
        ("peng:d7d7d7", 3, 3),
        ("xiao:x2", 3, 3),
        ("xiao:d2", 6, 3),
        ("qing:x9", 9, 0),
        ("qing:d10", 12, 4),
        ("pao:x5x5x5x5", 6, 0),
        ("pao:d5", 9, 0),
        ("chi:x1x2x3", 3, 1),
        ("chi:d1d2d3", 6, 1),
        ("chi:x2x7x10", 3, 3),
        ("chi:d10d7d2", 6, 3),
        ("chi:x4x4d4", 0, 0),
        ("chi:x5x6x7", 0, 1),
    ],
)
def test_table_groups(text, huxi, red):
    assert hand.parse_table(text) == hand.Table(1, huxi, red)


def test_table_sums_and_errors():
    assert hand.parse_table("peng:d3 pao:x5 chi:x2x7x10") == hand.Table(3, 12, 3)
    assert hand.parse_table("") == hand.Table(0, 0, 0)
    for bad, needle in [
        ("chi:x1x2x4", "吃"),
        ("pao:x3x3x3", "pao"),
        ("kan:x3", "unknown"),
        ("peng:x3 junk", "junk"),
        ("peng:w", "王"),
        ("peng:x1 " * 6, "at most 5"),
    ]:
        with pytest.raises(ValueError, match=needle):
            hand.parse_table(bad)


def test_table_groups_count_toward_huxi_and_red(evaluate):
    # 跑 大伍 on the table (9) + 一二三 3 + 贰柒拾 6 + 大小搭 0 + 将 0.
    got = evaluate("x1x2x3 d2d7d10 x4x4d4 x8x8", table="pao:d5")
    assert got[:3] == (18, 4, True)
    got = evaluate("x1x2x3 d2d7d10 x4x4d4 x8x8", table=hand.Table(1, 9, 2))
    assert got[:3] == (18, 6, True)


# --- the seed page's examples ------------------------------------------------------------


def test_seed_full_hand(evaluate):
    # 15 cards, five 3-card 门子: 一二三 3, 贰柒拾 6, 大小搭 0, 大字坎 6, 句 0.
    assert evaluate("x1x2x3 d2d7d10 x4x4d4 d5d5d5 x8x9x10")[:3] == (15, 5, True)


def test_seed_sequences_have_no_huxi(evaluate):
    # 「普通一句话:234、456这种,算牌型但无胡息」: five 门子 but 0 胡息 < 6, no win.
    assert evaluate("x2x3x4 x4x5x6 d2d3d4 d4d5d6 x7x8x9")[:3] == (0, 3, False)


def test_seed_ten_huxi(evaluate):
    # 10 胡息 (the seed's 「结算10胡息,2醒,囤数=10+2×3=16」; 醒 and 囤 are the scorer's).
    got = evaluate("d1d2d3 x5x5x5 x4x4d4 x6x7x8", table="peng:x9")
    assert got[:3] == (10, 2, True)


def test_minimum_is_a_parameter(evaluate):
    text = "x1x2x3 d2d7d10 x4x4d4 d5d5d5 x8x9x10"
    assert evaluate(text, min_huxi=15)[2] is True
    assert evaluate(text, min_huxi=16)[2] is False
    # 一二三 3 + 二七十 3 reach the default 6; 一二三 alone does not.
    assert evaluate("x1x2x3 x2x7x10 x4x5x6 d4d5d6 d7d8d9")[:3] == (6, 5, True)
    assert evaluate("x1x2x3 x3x4x5 x4x5x6 d4d5d6 d7d8d9")[:3] == (3, 2, False)


# --- 王 (RULEBOOK §4.4; the 王 wins of rule 19 as shapes) ---------------------------------


def test_wang_diao(evaluate):
    # 王钓: after a 跑, the other 门子 complete and a lone 王 pairs with the drawn card.
    got = evaluate("x1x2x3 d2d7d10 x4x5x6 w", table="pao:d5", candidate="x8")
    assert got == (18, 4, True, (18, -1, -1, -1, -1))


def test_wang_diao_wang(evaluate):
    # 王钓王: the drawn card is a 王 too; the two 王 are the pair (of any colour), or one
    # of them is 七 in 五六七 and the other pairs 四.
    got = evaluate("x1x2x3 d2d7d10 x4x5x6 w", table="pao:d5", candidate="w")
    assert got == (18, 4, True, (18, 18, 18, -1, -1))


def test_wang_chuang(evaluate):
    # 王闯: two 王 and the drawn card form the fifth 门子 (a 坎 of 大叁, or 壹贰叁).
    got = evaluate("x1x2x3 d2d7d10 x4x5x6 d8d9d10 w w", candidate="d3")
    assert got[:3] == (15, 5, True)
    assert got[3][:2] == (15, 15)


def test_wang_zha(evaluate):
    # 王炸: three 王 and the drawn card are four alike, a 倾 (大: 12).
    got = evaluate("x1x2x3 d2d7d10 x4x5x6 x7x8x9 w w w", candidate="d3")
    assert got[:3] == (21, 5, True)


def test_wang_takes_the_colour_it_stands_for(evaluate):
    # 王 as 二 (red) or 五 (black): same 胡息; the red count with the better colour
    # factor (黑胡 over 一点朱) is reported, both are kept.
    assert evaluate("x3x4 w", table=ONE, min_huxi=0) == (0, 0, True, (0, 0, -1, -1, -1))
    assert evaluate("x1x2 w", table=ONE, min_huxi=0) == (3, 1, True, (3, -1, -1, -1, -1))
    assert evaluate("d2d7 w", table=ONE, min_huxi=0) == (6, 3, True, (-1, 6, -1, -1, -1))
    # A 王 can be a fifth copy: 倾 of 五 + 四(王 as 五)六.
    assert evaluate("x5x5x5x5 x4x6 w", table=hand.Table(3, 0, 0))[0] == 9


def test_wang_on_a_kan_makes_four(evaluate):
    # 坎 + 王 is four alike (倾 12 for 大), or the 王 goes elsewhere.
    assert evaluate("d5d5d5 w", table=ONE)[0] == 12
    assert evaluate("d5d5d5 x1x2 w", table=hand.Table(3, 0, 0))[0] == 9


# --- the pair (将, RULEBOOK §4.5 rule 16) ---------------------------------------------------


def test_one_pair_after_a_pao(evaluate):
    # 4 (跑 on the table) + 3 + 3 + 3 + 2.
    got = evaluate("x1x2x3 d2d7d10 x4x5x6 x8x8", table="pao:d5")
    assert got[:3] == (18, 4, True)


def test_never_two_pairs(evaluate):
    assert evaluate("x1x2x3 x8x8 x9x9", table="pao:d5 pao:d6")[:3] == (-1, -1, False)


def test_card_count_decides_the_shape(evaluate):
    # 15 cards: five 3-card 门子; 16 cards: a 4-card group; 14 cards: one pair.
    assert evaluate("x1x2x3 d2d7d10 x4x5x6 d8d9d10 x8x8x8")[0] == 12
    assert evaluate("x1x2x3 d2d7d10 x4x5x6 d8d9d10 x8x8x8x8")[0] == 18
    assert evaluate("x1x2x3 d2d7d10 x4x5x6 d8d9d10 x8x8")[0] == 9
    assert evaluate("x1x2x3 d2d7d10 x4x5x6 d8d9d10 x8")[0] == -1


# --- 坎 never split (RULEBOOK §4.3 rule 12) -------------------------------------------------


def test_kan_never_split(evaluate):
    two = hand.Table(3, 0, 0)
    # x1x1 + x1x2x3 would need the 坎 split.
    assert evaluate("x1x1x1 x2x3", table=two, min_huxi=0)[0] == -1
    # The same shape with a 王 in place of one x1 is no 坎: 将 + 一二三.
    assert evaluate("x1x1 w x2x3", table=two, min_huxi=0)[0] == 3
    # Four dealt alike stay one 4-card group.
    assert evaluate("x5x5x5x5 x6x7", table=two, min_huxi=0)[0] == -1


def test_kan_and_the_fourth_card(evaluate):
    two = hand.Table(3, 0, 0)
    # From another player, the fourth x1 may go elsewhere (胡 before 跑): 坎 3 + 一二三 3.
    assert evaluate("x1x1x1 x2x3", table=two, candidate="x1", self_drawn=False)[0] == 6
    # Self-drawn, it must join the 坎 (倾 before 胡): x2x3 are left alone.
    assert evaluate("x1x1x1 x2x3", table=two, candidate="x1", self_drawn=True)[0] == -1
    # A 王 is free: 坎 3 + (王 as 一) 二三 3.
    assert evaluate("x1x1x1 x2x3 w", table=two)[0] == 6


# --- the API --------------------------------------------------------------------------------


def test_batched_matches_single():
    texts = [
        "x1x2x3 d2d7d10 x4x4d4 d5d5d5 x8x9x10",
        "x2x3x4 x4x5x6 d2d3d4 d4d5d6 x7x8x9",
        "x1x2x3 d2d7d10 x4x5x6 d8d9d10 x8",
        "x1x1x1 x2x3 x4x5x6 d1d2d3 d4d5d6",
        "x3x4x5 d7d8d9",
        "d1",
    ]
    counts = np.stack([cards.parse(t)[0] for t in texts]).reshape(2, 3, 20)
    kings = np.array([[0, 0, 1], [0, 1, 2]])
    cand = np.array([[-1, 5, 7], [0, 12, 20]])
    own = np.array([[True, False, True], [False, True, True]])
    table = hand.Table(np.array([[0, 0, 0], [0, 3, 4]]), 3, 1)
    e = hand.evaluate(counts, kings, table=table, candidate=cand, self_drawn=own)
    assert e.huxi.shape == (2, 3) and e.huxi_by_red_kings.shape == (2, 3, 5)
    for i in np.ndindex(2, 3):
        one = hand.evaluate(
            counts[i],
            kings[i],
            table=hand.Table(table.groups[i], 3, 1),
            candidate=int(cand[i]),
            self_drawn=bool(own[i]),
        )
        assert int(one.huxi) == e.huxi[i] and int(one.red) == e.red[i]
        assert bool(one.wins) == e.wins[i] and int(one.red_base) == e.red_base[i]


def test_values_option(evaluate):
    # A house rule worth 0 for 一二三 and 2 for 小碰 (rules are data).
    values = {"yiersan": (0, 0), "peng": (2, 3)}
    assert evaluate("x1x2x3", table=ONE, min_huxi=0, values=values)[0] == 0
    got = evaluate("x5x5", table=ONE, candidate="x5", self_drawn=False, values=values)
    assert got[0] == 2
    with pytest.raises(ValueError, match="peng <= kan"):
        hand.values_table({"peng": (9, 9)})


@pytest.mark.parametrize(
    "kwargs, needle",
    [
        (dict(counts=np.full(20, 5)), "0..4"),
        (dict(counts=np.zeros(34, np.uint8)), "shape"),
        (dict(counts="x1x1x1x1", candidate="x1"), "fifth copy"),
        (dict(counts="x1 wwww", candidate="w"), "王"),
        (dict(counts="x1 w", candidate="w", self_drawn=False), "self-drawn"),
        (dict(counts="x1", table=hand.Table(6, 0, 0)), "0..5"),
        (dict(counts="x1", candidate=21), "candidate"),
        (dict(counts="x1", values={"foo": (1, 1)}), "unknown group"),
    ],
)
def test_bad_input(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        hand.evaluate(**kwargs)


# --- the kernel agrees with the brute-force twin --------------------------------------------


def _random_hand(rng):
    """One random evaluation problem: built from groups (then perturbed) or dealt."""
    t = int(rng.choice([0, 0, 1, 2, 3]))
    need = 5 - t
    kings = int(rng.choice(4, p=[0.35, 0.35, 0.2, 0.1]))
    counts = np.zeros(20, np.int64)
    if rng.random() < 0.6:
        pair = rng.random() < 0.4
        for i in range(need):
            for _ in range(50):
                g = bf.UNIVERSE[rng.integers(len(bf.UNIVERSE))]
                if (g[1] == "jiang") != (pair and i == 0):
                    continue
                c = counts + np.array(g[3])
                if c.max() <= 4:
                    counts = c
                    break
        for _ in range(int(rng.integers(0, 3))):
            if counts.sum() and rng.random() < 0.5:
                counts[rng.choice(np.flatnonzero(counts))] -= 1
                k = rng.integers(20)
                counts[k] += counts[k] < 4
        w = 0
        while w < kings and counts.sum():
            counts[rng.choice(np.flatnonzero(counts))] -= 1
            w += 1
        kings = w
    else:
        n = max(int(rng.integers(3 * need - 1, 4 * need + 1)) - kings, 0)
        for k in rng.choice(np.repeat(np.arange(20), 4), size=n, replace=False):
            counts[k] += 1
    cand, own = -1, True
    r = rng.random()
    if r < 0.7 and counts.sum():
        cand = int(rng.choice(np.flatnonzero(counts)))
        counts[cand] -= 1
        own = bool(rng.random() < 0.5)
    elif r < 0.75 and kings > 0:
        kings -= 1
        cand = 20
    table = (t, int(rng.integers(0, 13)) if t else 0, int(rng.integers(0, 4)) if t else 0)
    return counts, kings, table, cand, own


def test_kernel_agrees_with_bruteforce():
    rng = np.random.default_rng(20261129)
    n = 10_000
    hands = [_random_hand(rng) for _ in range(n)]
    counts = np.array([h[0] for h in hands], np.uint8)
    kings = np.array([h[1] for h in hands])
    table = hand.Table(*(np.array([h[2][i] for h in hands]) for i in range(3)))
    cand = np.array([h[3] for h in hands])
    own = np.array([h[4] for h in hands])
    e = hand.evaluate(counts, kings, table=table, candidate=cand, self_drawn=own)
    mismatches = []
    for i, (c, k, t, ca, o) in enumerate(hands):
        want = bf.evaluate(c, k, table=t, candidate=ca, self_drawn=o)
        got = (
            int(e.huxi[i]),
            int(e.red[i]),
            bool(e.wins[i]),
            tuple(int(x) for x in e.huxi_by_red_kings[i]),
            int(e.red_base[i]),
        )
        if got != tuple(want):
            mismatches.append((cards.format(c, k), t, ca, o, got, tuple(want)))
    assert not mismatches, mismatches[:5]
    # The sample exercises what it should: wins, splits without a win, 0-3 王 (and a
    # 王 candidate), candidates of both origins.
    total_kings = kings + (cand == 20)
    assert e.wins.sum() > 2500 and ((e.huxi >= 0) & ~e.wins).sum() > 100
    assert set(np.unique(total_kings)) == {0, 1, 2, 3}
    for w in range(4):
        assert e.wins[total_kings == w].sum() > 100
    assert (cand == 20).sum() > 100 and ((cand >= 0) & (cand < 20) & ~own).sum() > 2000


def test_kernel_agrees_with_bruteforce_on_other_values():
    # Any 胡息 table with 碰 <= 坎 and 跑 <= 倾 (the kernel's pruning relies on it).
    rng = np.random.default_rng(7)
    for _ in range(300):
        values = {name: tuple(int(x) for x in rng.integers(0, 13, 2)) for name in hand.GROUPS}
        values["peng"] = tuple(map(min, values["peng"], values["kan"]))
        values["pao"] = tuple(map(min, values["pao"], values["qing"]))
        c, k, t, ca, o = _random_hand(rng)
        want = bf.evaluate(c, k, table=t, candidate=ca, self_drawn=o, values=values)
        e = hand.evaluate(c, k, table=t, candidate=ca, self_drawn=o, values=values)
        assert int(e.huxi) == want.huxi
        assert tuple(int(x) for x in e.huxi_by_red_kings) == want.huxi_by_red_kings
