"""诸暨麻将: golden 台 for every rule line (RULEBOOK §2, seed 001), payments, options, the
brute-force 台 twin, conformance and a golden replay."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from oracles import settlement as TW

from engine import tiles
from engine.errors import UsageError
from engine.hand._tables import kernel_tables
from engine.mahjong import layout as L
from engine.runs.testing import check_variant
from engine.variants import get, zhuji
from engine.variants._scoring import parse_melds
from engine.variants.zhuji import _kernels as K
from tests.oracles import hand_bruteforce as hb
from tests.oracles import zhuji_tai_bruteforce as bf

V = get("zhuji")
GOLDEN = Path(__file__).parents[3] / "golden"
SELF, DISCARD, ROB, KONG_DRAW = L.WIN_SELF_DRAW, L.WIN_DISCARD, L.WIN_ROB_KONG, L.WIN_KONG_DRAW
NO_CAI = {"caishen": 0}
"""No 财神 in play: no hand is 无财, so the ordinary 台 shows alone."""


def score(
    hand_text,
    *,
    melds="",
    seat=0,
    dealer=0,
    win_type=SELF,
    discarder=None,
    flags=(),
    rules=None,
    wild=(),
):
    """Score a hand in notation; tiles of the ``wild`` kinds are the 财神 held."""
    counts = tiles.parse(hand_text).astype(np.int64)
    kinds = [tiles.kind(w) for w in wild]
    wilds = int(sum(counts[k] for k in kinds))
    counts[kinds] = 0
    return V.score_hand(
        V.resolve(NO_CAI if rules is None else rules),
        counts,
        wilds,
        parse_melds(melds),
        0,
        win_type,
        seat,
        dealer,
        0,
        set(flags),
        discarder=discarder,
        wild_kinds=kinds,
    )


CAI = {"caishen": 2}
W2 = ("8p", "9p")  # the 财神 kinds of the 财神 examples


@pytest.mark.parametrize(
    "hand_text, ordinary, patterns",
    [
        ("777z123m456p789s11s", 1, ["zhong"]),  # 中发白成刻都算一台
        ("666z123m456p789s11s", 1, ["fa"]),
        ("555z123m456p789s11s", 1, ["bai"]),
        ("111z123m456p789s11s", 2, ["dongfeng"]),  # 东风每家二台
        ("222z123m456p789s11s", 0, []),  # 其它风牌都没有台头
        ("123m456p789s234m11s", 1, ["pinghu"]),  # 平胡算一台
        ("111m222p333s444m55s", 1, ["duiduihu"]),  # 对对胡算一台
        ("11123455678999m", 3, ["qingyise"]),  # 清一色时,算三台
        ("12233445556789m", 4, ["pinghu", "qingyise"]),  # 平胡清一色 四台
        ("11133355577799m", 4, ["duiduihu", "qingyise"]),  # 对对胡清一色 四台
        ("222z123456789m11m", 1, ["hunyise"]),  # 混一色 with no honor 台
    ],
)
def test_every_tai_line(hand_text, ordinary, patterns):
    r = score(hand_text)
    assert r["complete"] and r["ordinary"] == ordinary and r["patterns"] == patterns
    assert r["legal"] == (ordinary >= 3)


def test_seed_worked_example_east_red_half_flush():
    """Seed: 东风 2 + 红中 1 + 混一色 1 = 4 台; with the 万子 also all triplets 5 台."""
    r = score("111z777z123456m99m")
    assert r["value"] == 4 and r["patterns"] == ["zhong", "dongfeng", "hunyise"]
    assert r["legal"] and r["deltas"] == [12, -4, -4, -4]
    r = score("111z777z111444m99m")
    assert r["value"] == 5 and r["patterns"] == ["zhong", "dongfeng", "duiduihu", "hunyise"]


def test_three_tai_minimum():
    """3 台起胡: below 3 the hand cannot be declared (no payment)."""
    r = score("111z123m456p789s11s", seat=1, win_type=DISCARD, discarder=2)
    assert r["complete"] and not r["legal"] and r["deltas"] == [0, 0, 0, 0]
    r = score("111z777z123m456p11s", seat=1, win_type=DISCARD, discarder=2)
    assert r["legal"] and r["value"] == 3 and r["deltas"] == [0, 3, -3, 0]
    r = score("111z123m456p789s11s", rules={"caishen": 0, "min_tai": 2})
    assert r["legal"]


def test_quanzipai_is_exempt_and_worth_eight():
    """全字牌 needs no 3 台 (对对胡 1 + 白 1 = 2 here) and is an 8-台 hand."""
    r = score("222z333z444z555z11z")
    assert r["legal"] and r["ordinary"] == 2 and r["value"] == 8
    assert "quanzipai" in r["patterns"]
    r = score("222z333z444z555z11z", rules={"caishen": 0, "special8": "add"})
    assert r["value"] == 8 + 2


def test_caishen_in_different_roles():
    """A 财神 completes an honor triplet, a sequence or the pair; three of them alone
    make a 东 triplet (2 台) beside 三财神 (2 台); the best reading counts."""
    r = score("77z8p123m456p789s11s", rules=CAI, wild=W2)  # 中中 + 财神
    assert r["patterns"] == ["zhong"] and r["ordinary"] == 1
    r = score("123m456p78s8p234m11s", rules=CAI, wild=W2)  # 78s + 财神 = 789s
    assert r["patterns"] == ["pinghu"] and r["ordinary"] == 1
    r = score("123m456p789s234m8p9p", rules=CAI, wild=W2)  # a pair of 财神
    assert r["patterns"] == ["pinghu"]
    r = score("123m456p789s11z8p9p9p", rules=CAI, wild=W2)  # three 财神 as 东东东
    assert r["patterns"] == ["dongfeng", "sancaishen"] and r["value"] == 4
    r = score("11m889p", melds="chow:123m chow:456p chow:789s", rules=CAI, wild=W2)
    assert r["patterns"] == ["dongfeng", "sancaishen"] and r["ordinary"] == 4


def test_kong_bloom_and_robbed_kong_add_one():
    r = score("111z123m456p11s", melds="kong:7z", win_type=KONG_DRAW)
    assert r["patterns"] == ["zhong", "dongfeng", "gangkai"] and r["value"] == 4
    r = score("111z123m456p789s11s", seat=1, win_type=ROB, discarder=3)
    assert r["patterns"] == ["dongfeng", "qianggang"] and r["value"] == 3
    assert r["deltas"] == [0, 3, 0, -3]  # the kong player pays as a discarder


def test_eight_tai_hands():
    """天胡/地胡/全字牌/无财: max(8, ordinary), not stacking (special8=add: 8 + ordinary)."""
    r = score("111z777z123m456p11s", flags={"tianhu"})
    assert r["patterns"] == ["zhong", "dongfeng", "tianhu"] and r["value"] == 8
    r = score("111z777z123m456p11s", flags={"tianhu"}, rules={"caishen": 0, "special8": "add"})
    assert r["value"] == 11
    r = score("111z777z123m456p11s", seat=1, flags={"dihu"})
    assert "dihu" in r["patterns"] and r["value"] == 8
    r = score("111z123m456p789s11s", seat=1, flags={"dihu"})
    assert not r["legal"]  # 地胡 still needs 3 ordinary 台
    # 无财: 财神 in play, none held
    r = score("111z777z123456m99m", rules=CAI)
    assert r["patterns"] == ["zhong", "dongfeng", "hunyise", "wucai"] and r["value"] == 8
    r = score("111z777z111444m99m", rules={**CAI, "special8": "add"})
    assert r["value"] == 8 + 5
    r = score("111z777z123456m9m8p", rules=CAI, wild=W2)
    assert "wucai" not in r["patterns"] and r["value"] == 4
    # wucai=guiwei: the 财神 (8p) stands for its own kind
    r = score("111z777z123m456p88p", rules={**CAI, "wucai": "guiwei"}, wild=W2)
    assert "wucai" in r["patterns"] and r["value"] == 8
    one = {"caishen": 1, "wucai": "guiwei"}
    r = score("111z777z123m456p9m8p", rules=one, wild=("8p",))
    assert "wucai" not in r["patterns"] and r["value"] == 3


def cli_score(capsys, *argv):
    """``mjlab score zhuji ARGV --json`` through mjlab.cli.main (default rules)."""
    import json

    from mjlab.cli import main

    code = main(["score", "zhuji", *argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize(
    "argv, legal, value, ordinary, patterns",
    [
        # four 白 and two 财神: the second 白 triplet (copies 5-7) adds no 台 (§0.1, rule 13):
        # 白 1 + 混一色 1 = 2, below the 3-台 minimum
        (
            "77m5555z34m --melds 'chow:567m pong:4z' --win 5z --from 0 --seat 3 "
            "--wild 3m --wild 4m",
            False,
            2,
            2,
            ["bai", "hunyise"],
        ),
        # four 东 and two 财神: 东 2 once, so 2 台 and not declarable
        (
            "1111z123m456p11s8p9p --win 1s --self-draw --wild 8p --wild 9p",
            False,
            2,
            2,
            ["dongfeng"],
        ),
        # a 东 kong and three 财神: the 财神 read best as 中中中 (1), not as a second 东 (2)
        (
            "123m456p11s8p8p9p --melds kong:1z --win 1s --self-draw --wild 8p --wild 9p",
            True,
            5,
            5,
            ["zhong", "dongfeng", "sancaishen"],
        ),
        # an 8-台 hand carries the flags of the reading whose ordinary 台 it has (rule 13)
        (
            "5p23456666s34446z --win 5p --self-draw --flag tianhu --wild 3z --wild 4z",
            True,
            8,
            3,
            ["fa", "sancaishen", "tianhu"],
        ),
        (
            "5p23456666s34446z --win 5p --self-draw --wild 3z --wild 4z",
            True,
            3,
            3,
            ["fa", "sancaishen"],
        ),
        # 全字牌 (8) beats the reading of the 财神 pair as a suit's (混一色, 3 台): its flags
        # and its own ordinary 台 (白 1 + 对对胡 1) are reported
        (
            "222z333z444z555z8p9p --win 5z --self-draw --wild 8p --wild 9p",
            True,
            8,
            2,
            ["bai", "duiduihu", "quanzipai"],
        ),
    ],
)
def test_audit_cases_through_the_cli(capsys, argv, legal, value, ordinary, patterns):
    import shlex

    from mjlab.cli import main

    r = cli_score(capsys, *shlex.split(argv))
    assert r["complete"] and r["legal"] == legal
    assert (r["value"], r["ordinary"], r["patterns"]) == (value, ordinary, patterns)
    assert (any(r["deltas"]) and sum(r["deltas"]) == 0) == legal
    # the text form says whether the hand may be declared
    assert main(["score", "zhuji", *shlex.split(argv)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    verdict = "wins" if legal else "cannot be declared"
    assert first.startswith(f"{shlex.split(argv)[0]} {verdict} under zhuji: patterns ")


@pytest.mark.parametrize(
    "mode, discard_deltas",
    [
        ("discarder", [0, 4, -4, 0]),
        ("all_three", [-4, 12, -4, -4]),
        ("discarder_x3", [0, 12, -12, 0]),
    ],
)
def test_payments(mode, discard_deltas):
    rules = {"caishen": 0, "discard_pay": mode}
    hand_text = "111z777z123456m99m"
    assert score(hand_text, seat=1, rules=rules)["deltas"] == [-4, 12, -4, -4]
    r = score(hand_text, seat=1, win_type=DISCARD, discarder=2, rules=rules)
    assert r["deltas"] == discard_deltas
    r = score(hand_text, seat=1, win_type=ROB, discarder=2, rules=rules)
    assert r["value"] == 5 and sum(r["deltas"]) == 0 and r["deltas"][2] < 0


def test_bad_options():
    with pytest.raises(UsageError, match="discard_pay"):
        V.resolve({"discard_pay": "winner"})
    with pytest.raises(UsageError, match="caishen_fixed"):
        V.resolve({"caishen_fixed": "5z,5z"})
    with pytest.raises(UsageError, match="give caishen=1"):
        V.pack(V.resolve({"caishen_fixed": "5z"}))
    assert V.resolve({"caishen": 1, "caishen_fixed": "5Z"})["caishen_fixed"] == "5z"
    with pytest.raises(UsageError, match="baotai"):
        V.resolve({"baotai": "true"})


# ---- the brute-force twin ------------------------------------------------------------


def random_winning_hand(rng):
    """A random complete hand ``(counts, wilds, melds, win_type, first_turn)``: groups of a
    random pool (any kinds, one suit, one suit + honors, honors), some tiles turned to 财神."""
    while True:
        suit = int(rng.integers(3))
        pool = [
            np.arange(34),
            np.arange(9 * suit, 9 * suit + 9),
            np.concatenate([np.arange(9 * suit, 9 * suit + 9), np.arange(27, 34)]),
            np.arange(27, 34),
        ][int(rng.integers(4))]
        used = np.zeros(34, np.int64)
        melds = []
        for _ in range(int(rng.choice([0, 0, 0, 1, 1, 2, 3, 4]))):
            k = int(rng.choice(pool))
            t = int(rng.choice([bf.CHOW, bf.PONG, bf.KONG, bf.ADDKONG, bf.ANKONG]))
            if t == bf.CHOW and k >= 27:
                t = bf.PONG
            if t == bf.CHOW:
                k = k - k % 9 + min(k % 9, 6)
                used[k : k + 3] += 1
            else:
                used[k] += 3 if t == bf.PONG else 4
            melds.append((t, k))
        concealed = []
        for i in range(5 - len(melds)):
            k = int(rng.choice(pool))
            if i == 4 - len(melds):
                concealed += [k, k]
            elif k < 27 and rng.random() < 0.5:
                k = k - k % 9 + min(k % 9, 6)
                concealed += [k, k + 1, k + 2]
            else:
                concealed += [k, k, k]
        concealed = np.array(concealed)
        nw = min(int(rng.choice([0, 0, 1, 1, 2, 3, 3, 4, 5, 6, 8])), len(concealed))
        keep = np.ones(len(concealed), bool)
        keep[rng.choice(len(concealed), nw, replace=False)] = False
        counts = np.bincount(concealed[keep], minlength=34).astype(np.int64)
        if ((counts + used) > 4).any():
            continue
        wt = int(rng.choice([SELF, SELF, DISCARD, ROB, KONG_DRAW]))
        return counts, nw, melds, wt, bool(rng.random() < 0.05)


def _fast(counts, w, melds, wt, first, rules, wild_kinds, dealer=True):
    r = V.pack(V.resolve(rules))
    ctx = np.zeros(L.N_CTX, np.int64)
    ctx[L.X_WIN_TYPE], ctx[L.X_FIRST_TURN] = wt, int(first)
    ctx[L.X_DEALER] = 0 if dealer else 1
    ctx[L.X_WILD0] = wild_kinds[0]
    ctx[L.X_WILD1] = wild_kinds[1] if len(wild_kinds) > 1 else -1
    m8 = np.zeros((8, 3), np.int64)
    for i, (t, k) in enumerate(melds):
        m8[i] = (t, k, 1)
    out = np.zeros(K.N_OUT, np.int64)
    K.evaluate(r, ctx, counts, w, 4 - len(melds), m8, len(melds), kernel_tables(), out)
    bound = int(K.tai_upper_bound(ctx, counts, w, 4 - len(melds), m8, len(melds)))
    assert bound == 99 or bound >= out[K.O_ORDINARY]  # win_legal's quick refusal is sound
    # and the game's declaration check agrees with the full evaluation (8-台 hands such as
    # 无财 are legal whatever their ordinary 台)
    legal = K.win_legal(r, ctx.copy(), counts, w, 4 - len(melds), m8, len(melds), kernel_tables())
    assert bool(legal) == bool(out[K.O_LEGAL])
    return {
        "legal": bool(out[K.O_LEGAL]),
        "value": int(out[K.O_VALUE]),
        "ordinary": int(out[K.O_ORDINARY]),
        "quan": bool(out[K.O_QUAN]),
        "patterns": tuple(sorted(zhuji.pattern_names(zhuji.PATTERNS, int(out[K.O_BITS])))),
    }


def _honor_twice(counts, w, melds):
    """Whether some honor kind with 台 could read as two triplets (real tiles, melded
    pong or kong, and 财神 as the fifth to seventh copies): the case RULEBOOK §0.1
    counts once."""
    for k in bf.HONOR_TAI:
        melded = any(t != bf.CHOW and mk == k for t, mk in melds)
        if counts[k] + w >= (3 if melded else 6):
            return True
    return False


def agreement(n, seed):
    """Hands on which the fast scorer and the brute-force twin agree, and a tally."""
    rng = np.random.default_rng(seed)
    same = 0
    tally = {"legal": 0, "quan": 0, "special": 0, "pairs": 0, "honor_twice": 0}
    for i in range(n):
        counts, w, melds, wt, first = random_winning_hand(rng)
        rules = [{}, {"special8": "add"}, {"seven_pairs": True}, {"wucai": "guiwei"}][i % 4]
        free = np.flatnonzero(counts == 0)
        wild_kinds = [int(k) for k in rng.choice(free, 1 + int(rng.integers(2)), replace=False)]
        dealer = i % 3 != 0
        fast = _fast(counts, w, melds, wt, first, rules, wild_kinds, dealer)
        slow = bf.tai(
            counts,
            w,
            melds,
            win_type=wt,
            first_turn=first,
            dealer=dealer,
            wild_kinds=wild_kinds,
            wucai=rules.get("wucai", "strict"),
            special8=rules.get("special8", "max"),
            seven_pairs=rules.get("seven_pairs", False),
        )
        assert slow.pop("complete")
        # the pattern flags are those of a reading paid (any of equal value and 台)
        ties = slow.pop("patterns")
        if fast.pop("patterns") in ties and fast == slow:
            same += 1
        else:
            print("disagree:", counts.tolist(), w, melds, wt, first, rules, fast, slow)
        tally["legal"] += slow["legal"]
        tally["quan"] += slow["quan"]
        tally["special"] += slow["value"] >= 8
        tally["pairs"] += bool(rules.get("seven_pairs"))
        tally["honor_twice"] += _honor_twice(counts, w, melds)
    return same, tally


def test_brute_force_twin_counts_an_honor_kind_once():
    """The twin itself reads RULEBOOK §0.1: four 白 and two 财神 are one 白 (1 台) beside
    a chow and a 北 pong (2 台 with 混一色, not declarable); a 东 kong and three 财神 read
    best as a dragon triplet (东 2 + 1 + 三财神 2), any of the three."""
    counts = tiles.parse("77m5555z").astype(np.int64)
    r = bf.tai(counts, 2, [(bf.CHOW, 4), (bf.PONG, 30)], win_type=DISCARD)
    assert (r["legal"], r["value"], r["ordinary"]) == (False, 2, 2)
    assert r["patterns"] == [("bai", "hunyise")]
    counts = tiles.parse("123m456p11s").astype(np.int64)
    r = bf.tai(counts, 3, [(bf.KONG, 27)])
    assert (r["legal"], r["value"], r["ordinary"]) == (True, 5, 5)
    dragons = [tuple(sorted(("dongfeng", "sancaishen", d))) for d in ("bai", "fa", "zhong")]
    assert r["patterns"] == sorted(dragons)


def test_fast_tai_agrees_with_brute_force():
    same, tally = agreement(1500, seed=1)
    assert same == 1500
    assert min(tally.values()) > 20 and tally["legal"] < 1500


@pytest.mark.slow
def test_fast_tai_agrees_with_brute_force_on_ten_thousand_hands():
    same, _ = agreement(12_000, seed=2)
    assert same == 12_000


# ---- play -------------------------------------------------------------------------------


def brute_complete(counts, wilds, sets):
    return hb.hand_distance(counts, wilds, sets, ("standard", "seven_pairs")) == 0


@pytest.mark.parametrize(
    "rules",
    [
        {},
        {"caishen": 1, "caishen_discard": "forbid", "discard_pay": "all_three"},
        {"caishen": 2, "caishen_from": "indicator", "special8": "add", "wucai": "guiwei"},
        {"caishen": 2, "caishen_fixed": "5z,1m", "seven_pairs": True, "reserve": 20},
        {"caishen": 0, "min_tai": 0, "discard_pay": "discarder_x3", "pass_lock": "none"},
    ],
)
def test_conformance_every_policy_and_options(rules):
    assert check_variant("zhuji", matches=6, seed=5, rules=rules, complete=brute_complete) > 0


def test_every_win_is_legal_and_dealer_rotates():
    from engine.runs.run import simulate

    df = simulate("zhuji", 1500, seed=6, policies="value", progress=False).to_pandas()
    won = df[df.winner >= 0]
    assert ((won.tai_ordinary >= 3) | won.pat_quanzipai).all()
    assert (won.value >= won.tai_ordinary).all() and (df.refused > 0).any()
    nxt = df.groupby("match").shift(-1)
    ok = nxt.dealer.notna()
    expect = np.where(df.winner[ok] >= 0, df.winner[ok], df.dealer[ok])
    assert (nxt.dealer[ok].astype(int).to_numpy() == expect).all()


@pytest.mark.parametrize("rules", [{}, {"caishen": 1}])
def test_flags_match_the_ordinary_tai_on_a_hundred_thousand_deals(rules):
    """Every win's flags add up to its tai_ordinary and give its value and payments (the
    audit found 181 rows in 100,000 that did not, 156 of them paid below 3 台); every win
    is declarable."""
    from engine.runs.run import simulate

    resolved = V.resolve(rules)
    df = simulate("zhuji", 100_000, seed=16, rules=resolved, progress=False).to_pandas()
    assert TW.twin_mismatch(V, resolved, df) is None
    won = df[df.winner >= 0]
    assert len(won) > 80_000 and ((won.tai_ordinary >= 3) | won.pat_quanzipai).all()


@pytest.mark.parametrize(
    "rules, check",
    [
        ({}, lambda ind, a, b: a == tiles.next_kind(ind) and b == tiles.next_kind(a)),
        ({"caishen": 1}, lambda ind, a, b: a == tiles.next_kind(ind) and b == -1),
        ({"caishen_from": "indicator"}, lambda ind, a, b: a == ind and b == tiles.next_kind(a)),
        ({"caishen": 2, "caishen_fixed": "5z,1m"}, lambda ind, a, b: (ind, a, b) == (-1, 31, 0)),
        ({"caishen": 0}, lambda ind, a, b: a == b == -1),
    ],
)
def test_caishen_kinds(rules, check):
    from engine.play.mahjong.replay import replay_events

    for match in range(4):
        events = replay_events("zhuji", 3, match, 0, rules=rules)[0]
        rows = events[events[:, 0] == L.E_WILD]
        assert len(rows) == 1
        _, ind, a, b, _ = rows[0].tolist()
        assert check(ind, a, b)


def test_golden_replay(regen):
    """`mjlab replay zhuji --seed 7 --match 0` pinned line by line (--regen rewrites)."""
    from engine.play.mahjong.replay import replay

    out = replay("zhuji", 7, 0)
    path = GOLDEN / "zhuji.txt"
    if regen:
        path.write_text(out + "\n")
    assert path.exists(), f"{path.name} is missing: pytest --regen writes it"
    assert out.splitlines() == path.read_text().splitlines()


@pytest.mark.parametrize(
    "rules, wild",
    [
        ({}, "flip2"),
        pytest.param({"caishen": 1}, "flip", marks=pytest.mark.slow),
        ({"caishen": 2, "caishen_fixed": "5z,1m"}, "5z,1m"),
    ],
)
def test_exact_tianhu_needs_three_tai(rules, wild):
    """P(天胡) needs 3 ordinary 台; without that minimum it is engine.exact's P(complete)."""
    from engine.exact import p_complete

    p = zhuji.exact_tianhu(rules)
    complete = p_complete(136, 14, wild=wild, shapes=("standard",))["standard"]
    assert p["tianhu_complete"] == complete
    assert 0.1 < p["tianhu"] / complete < 0.6


def test_exact_tianhu_matches_sampled_hands():
    """The fixed-财神 deck (136 tiles, 8 财神): exact P(legal 天胡) against 200,000 dealt
    hands scored by the (brute-force checked) 台 kernel; a 4-sigma binomial bound."""
    from engine import hand

    rules = {"caishen": 2, "caishen_fixed": "5z,1m"}
    exact = float(zhuji.exact_tianhu(rules)["tianhu"])
    r = V.pack(V.resolve(rules))
    rng = np.random.default_rng(11)
    n = 200_000
    picks = np.argsort(rng.random((n, 136)), axis=1)[:, :14] // 4
    counts = np.zeros((n, 34), np.int64)
    np.add.at(counts, (np.repeat(np.arange(n), 14), picks.ravel()), 1)
    wilds = counts[:, 31] + counts[:, 0]
    counts[:, [0, 31]] = 0
    ok = np.flatnonzero(hand.is_complete(counts.astype(np.uint8), wilds, 4, ("standard",)))
    ctx = np.zeros(L.N_CTX, np.int64)
    ctx[L.X_WIN_TYPE], ctx[L.X_FIRST_TURN], ctx[L.X_WILD0], ctx[L.X_WILD1] = SELF, 1, 31, 0
    out = np.zeros(K.N_OUT, np.int64)
    melds = np.zeros((8, 3), np.int64)
    hits = 0
    for i in ok:
        K.evaluate(r, ctx, counts[i], int(wilds[i]), 4, melds, 0, kernel_tables(), out)
        hits += int(out[K.O_LEGAL])
    assert abs(hits - n * exact) <= 4 * np.sqrt(n * exact) + 1
    with pytest.raises(UsageError, match="seven_pairs"):
        zhuji.exact_tianhu({"seven_pairs": True})


def _tianhu_check(rules, deals):
    """Simulated 天胡 rate vs the exact value, inside a 4-sigma binomial bound from N."""
    from engine.runs.run import simulate

    p = float(V.exact(V.resolve(rules))["tianhu"])
    df = simulate("zhuji", deals, seed=99, rules=rules, policies="random", progress=False)
    k = int(df.to_pandas()["pat_tianhu"].sum())
    sigma = (deals * p * (1 - p)) ** 0.5
    assert abs(k - deals * p) <= 4 * sigma + 1, (k, deals * p, sigma)
    return deals * p


def test_simulated_tianhu_matches_exact():
    assert _tianhu_check({}, 100_000) > 20


@pytest.mark.slow
def test_simulated_tianhu_matches_exact_large():
    _tianhu_check({}, 2_000_000)
    _tianhu_check({"caishen": 1}, 2_000_000)


def test_the_three_tai_minimum_counts_ordinary_tai_even_for_wucai():
    # RULEBOOK §2.3 rule 12: an 8-台 hand other than 全字牌 still needs 3 ordinary 台
    r = zhuji.pack(zhuji.VARIANT.resolve({}))
    m8 = np.zeros((8, 3), np.int64)
    tab = kernel_tables()
    cases = (
        ("123m456p789s234s55m", 0, False),  # 无财, but 平胡 alone: 1 ordinary 台
        ("111z111m222p333s55m", 0, True),  # 无财 with 东 2 + 对对胡 1: worth 8
        ("123m456p789s23s55m", 1, False),  # a 财神 held: 平胡 1 台
    )
    for text, w, legal in cases:
        ctx = np.zeros(L.N_CTX, np.int64)
        ctx[L.X_WIN_TYPE] = L.WIN_SELF_DRAW
        ctx[L.X_WILD0], ctx[L.X_WILD1] = tiles.kinds("8p")[0], tiles.kinds("9p")[0]
        counts = np.bincount(tiles.kinds(text), minlength=34).astype(np.int64)
        assert bool(K.win_legal(r, ctx, counts, w, 4, m8, 0, tab)) is legal, text


def test_a_deals_memo_of_refused_hands_gives_the_full_evaluations_answer():
    # one ctx across calls, as in a deal: refused hands are remembered per seat and the
    # allowed one is reused by patterns; every answer must equal a fresh evaluation's,
    # also for hands whose legality turns on the context (杠开/抢杠 add a 台, seat, 天胡)
    rng = np.random.default_rng(5)
    r = zhuji.pack(zhuji.VARIANT.resolve({}))
    tab = kernel_tables()
    types = [L.WIN_SELF_DRAW, L.WIN_DISCARD, L.WIN_ROB_KONG, L.WIN_KONG_DRAW]

    def fresh_eval(counts, w, melds, seat, wt, first):
        ctx = np.zeros(L.N_CTX, np.int64)
        ctx[L.X_WILD0], ctx[L.X_WILD1] = tiles.kinds("8p")[0], tiles.kinds("9p")[0]
        ctx[L.X_WINNER], ctx[L.X_WIN_TYPE], ctx[L.X_FIRST_TURN] = seat, wt, int(first)
        m8 = np.zeros((8, 3), np.int64)
        for j, (t, k) in enumerate(melds):
            m8[j] = (t, k, 1)
        out = np.zeros(K.N_OUT, np.int64)
        K.evaluate(r, ctx, counts, w, 4 - len(melds), m8, len(melds), tab, out)
        return ctx, m8, out

    borderline, others = [], []
    while len(borderline) < 6 or len(others) < 6:
        counts, w, melds, _, _ = hand = random_winning_hand(rng)
        legal = {fresh_eval(counts, w, melds, 0, t, False)[2][K.O_LEGAL] for t in types}
        (borderline if len(legal) == 2 else others).append(hand)
    hands = borderline[:6] + others[:6]
    ctx = fresh_eval(*hands[0][:3], 0, types[0], False)[0]
    refused = 0
    for i in range(800):
        counts, w, melds, _, _ = hands[int(rng.integers(len(hands)))]
        seat, wt, first = int(rng.integers(4)), types[int(rng.integers(4))], rng.random() < 0.2
        _, m8, out = fresh_eval(counts, w, melds, seat, wt, first)
        ctx[L.X_WINNER], ctx[L.X_WIN_TYPE], ctx[L.X_FIRST_TURN] = seat, wt, int(first)
        sets = 4 - len(melds)
        legal = bool(K.win_legal(r, ctx, counts, w, sets, m8, len(melds), tab))
        assert legal == bool(out[K.O_LEGAL]), i
        refused += not legal
        assert ctx[K.S_REFUSED] == refused
        if legal:
            bits = K.patterns(r, ctx, counts, w, sets, m8, len(melds), tab)
            assert bits == out[K.O_BITS] and ctx[L.X_VALUE] == max(0, out[K.O_VALUE])
    assert 0 < refused < 800


# ---- the payout options (issue 22): each one's worked example, paid as the rule says ----


def test_pay_special8_option():
    """pay_special8: the 台 of an 8-台 hand, max(value, ordinary) or value + ordinary."""
    r = score("222z333z444z555z11z", rules={"caishen": 0, "pay_special8": 11})
    assert "quanzipai" in r["patterns"] and r["value"] == 11
    assert r["deltas"] == [33, -11, -11, -11]
    r = score("222z333z444z555z11z", rules={"caishen": 0, "pay_special8": 11, "special8": "add"})
    assert r["value"] == 11 + 2
    r = score("111z777z123m456p11s", flags={"tianhu"}, rules={"caishen": 0, "pay_special8": 2})
    assert r["legal"] and r["value"] == 3  # max(2, ordinary 3)
    r = score("111z777z123456m99m", rules={**CAI, "pay_special8": 5})
    assert "wucai" in r["patterns"] and r["value"] == 5  # max(5, ordinary 4)


def test_tai_cap_option():
    """tai_cap: a win pays at most this many 台; the flags and ordinary 台 stay."""
    rules = {**CAI, "special8": "add"}
    r = score("111z777z111444m99m", rules={**rules, "tai_cap": 6})
    assert r["ordinary"] == 5 and "wucai" in r["patterns"]
    assert r["value"] == 6 and r["deltas"] == [18, -6, -6, -6]
    r = score("111z777z111444m99m", rules={**rules, "tai_cap": 20})
    assert r["value"] == 13
    r = score("111z777z123m456p11s", seat=1, win_type=DISCARD, discarder=2, rules={"tai_cap": 2})
    assert r["value"] == 2 and r["deltas"] == [0, 2, -2, 0]


ALT_HAND = "111z777z666z55z8p9p9p"
"""Honors and three 财神: read as 全字牌 (东中发白 triplets, a pair of 财神: 5 + 对对胡 1 +
三财神 2 = 8 ordinary 台) or, the pair of 财神 taken as a suit's, 混一色 (9 台)."""


def _kernel_record(rules, hand_text=ALT_HAND, seat=0, dealer=0):
    """One self-drawn win through the kernels as in play: the record row's columns."""
    counts = tiles.parse(hand_text).astype(np.int64)
    kinds = [tiles.kind(w) for w in W2]
    w = int(counts[kinds].sum())
    counts[kinds] = 0
    res = V.resolve(rules)
    r = V.pack(res)
    from engine.variants._scoring import melds8, settle_hand, win_context

    ctx = win_context(seat, dealer, SELF, np.zeros((0, 3), np.int64))
    ctx[L.X_WILD0], ctx[L.X_WILD1] = kinds
    bits = int(K.patterns(r, ctx, counts, w, 4, melds8(np.zeros((0, 3))), 0, kernel_tables()))
    value, deltas, extra = settle_hand(K.settle, r, ctx, bits)
    row = dict(
        winner=seat, discarder=-1, dealer=dealer, win_type="self_draw", wilds_in_hand=w,
        value=value, **{f"delta_{s}": deltas[s] for s in range(4)},
    )  # fmt: skip
    for i, p in enumerate(zhuji.PATTERNS):
        row[f"pat_{p.name}"] = bool((bits >> i) & 1)
    for i, name in enumerate(V.extra_columns):
        row[name] = int(extra[i])
    return row


def _one_row(row):
    import pandas as pd

    df = pd.DataFrame([row])
    df["win_type"] = pd.Categorical(df["win_type"], categories=list(L.WIN_TYPE_NAMES))
    return df


def test_the_alternative_reading_is_recorded_and_chosen_again():
    """The 8-台 value can change which reading is paid (全字牌 or 混一色); the record keeps
    the other one, so the twin chooses as the kernel does under the new value."""
    base = _kernel_record(CAI)
    assert base["pat_hunyise"] and not base["pat_quanzipai"] and base["value"] == 9
    assert base["tai_ordinary"] == 9 and base["alt_tai"] == 8
    assert (base["score_in"] >> K.BIT["quanzipai"]) & 1
    high = {**CAI, "pay_special8": 10}
    fresh = _kernel_record(high)
    assert fresh["pat_quanzipai"] and fresh["value"] == 10 and fresh["alt_tai"] == 9
    got = TW.zhuji(V.resolve(high), _one_row(base))
    for col, want in fresh.items():
        if col in got:
            assert int(np.asarray(got[col])[0]) == int(want), col
    # and back: the re-scored record re-scores to the first
    again = {**base, **{k: np.asarray(v)[0] for k, v in got.items()}}
    back = TW.zhuji(V.resolve(CAI), _one_row(again))
    for col, want in base.items():
        if col in back:
            assert int(np.asarray(back[col])[0]) == int(want), col


def test_recompute_refuses_records_without_the_inputs():
    row = _kernel_record(CAI)
    del row["alt_tai"], row["score_in"]
    with pytest.raises(UsageError, match="lack alt_tai, score_in"):
        TW.zhuji(V.resolve(CAI), _one_row(row))


def test_conformance_under_changed_payouts():
    rules = {"pay_special8": 5, "tai_cap": 6, "wucai": "guiwei", "special8": "add"}
    assert check_variant("zhuji", matches=4, seed=9, rules=rules) > 0


def test_rescore_from_other_payout_rules_equals_simulation():
    """Records played under other payout options (8-台 hands worth 0, a 3-台 cap, 无财
    归位, special8=add, all three pay) re-score to the defaults as a fresh simulation."""
    import pandas as pd

    import analysis
    from engine.runs.run import simulate

    other = {
        "pay_special8": 0,
        "tai_cap": 3,
        "wucai": "guiwei",
        "special8": "add",
        "discard_pay": "all_three",
    }
    kw = dict(deals=1500, seed=4, policies="efficiency", progress=False)
    played = simulate("zhuji", rules=other, **kw)
    back = {k: V.option_map[k].default for k in other}
    got = analysis.rescore(played, **back).reset_index(drop=True)
    want = simulate("zhuji", **kw).to_pandas().reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_tai_tables_are_the_pattern_declarations():
    """A pattern's 台 is written once, as its declared ``value``: the ordinary 台 table,
    the honor triplets', the constants the kernels add, pay_special8's default and the
    packed default table are all read from it (and they are the seed's, RULEBOOK §2.3)."""
    seed = {"zhong": 1, "fa": 1, "bai": 1, "dongfeng": 2, "pinghu": 1, "duiduihu": 1,
            "qingyise": 3, "hunyise": 1, "sancaishen": 2, "gangkai": 1, "qianggang": 1}  # fmt: skip
    declared = {p.name: p.value for p in K.PATTERNS}
    assert TW.TAI == seed == {n: t for n, t in declared.items() if n not in K.SPECIAL8 and t}
    assert K.TAI.tolist() == [TW.TAI.get(p.name, 0) for p in K.PATTERNS]
    for name in ("pinghu", "duiduihu", "qingyise", "hunyise", "sancaishen", "gangkai", "qianggang"):
        assert getattr(K, f"TAI_{name.upper()}") == declared[name]
    honors = {27 + i: int(t) for i, t in enumerate(K.HONOR_TAI) if t}
    assert honors == bf.HONOR_TAI
    assert [K.TAI[b] if b >= 0 else 0 for b in K._HONOR_BIT] == K.HONOR_TAI.tolist()
    assert K.WILD_TRIPLETS_TAI[:3].tolist() == [0, 2, 3]
    v = get("zhuji")
    assert {declared[n] for n in K.SPECIAL8} == {v.defaults()["pay_special8"]} == {8}
    packed = v.pack(v.resolve({}))
    for slot in (K.Z_PAY_TIANHU, K.Z_PAY_DIHU, K.Z_PAY_QUANZIPAI, K.Z_PAY_WUCAI):
        assert packed[slot] == K.SPECIAL8_TAI


def test_eight_tai_hands_declaring_two_values_are_refused(monkeypatch):
    odd = tuple(replace(p, value=9) if p.name == "wucai" else p for p in K.PATTERNS)
    monkeypatch.setattr(K, "PATTERNS", odd)
    with pytest.raises(ValueError, match="one value"):
        K._special8_tai()
