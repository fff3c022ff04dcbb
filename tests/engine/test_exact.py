"""engine.exact: published counts, brute-force twins, Monte Carlo agreement, CLI codes."""

from __future__ import annotations

import functools
import itertools
import json
from fractions import Fraction
from math import comb, sqrt

import numpy as np
import pytest
from oracles import hand_bruteforce as bf

from engine import exact, hand, tiles
from mjlab.cli import main

C136_14 = comb(136, 14)

# --- published figures ---------------------------------------------------------------------


def test_published_tenhou_counts():
    # 我打麻将の研究室 "天和の確率" (http://wandm.syakuhati.com/chunmahu.html) counts the
    # 14-tile hands from 136 tiles: 一般形 (4 sets + pair) 11353128141498, 七対 (four alike
    # as two pairs) 1569298171584, 複合形 (both) 1318439178, 十三幺 1308622848, out of
    # C(136, 14) = 4250305029168216000.
    p = exact.p_complete(tiles=136, hand=14)
    counts = {k: v * C136_14 for k, v in p.items()}
    assert counts["standard"] == 11353128141498
    assert counts["seven_pairs"] == 1569298171584
    assert counts["thirteen_orphans"] == 1308622848 == 13 * comb(4, 2) * 4**12
    assert counts["any"] == 11353128141498 + 1569298171584 - 1318439178 + 1308622848
    # Seven pairs in closed form: j kinds held four times (two pairs each), 7 - 2j twice.
    pairs = sum(comb(34, j) * comb(34 - j, 7 - 2 * j) * 6 ** (7 - 2 * j) for j in range(4))
    assert counts["seven_pairs"] == pairs
    # The commonly quoted 天和 odds, "about 1 in 330,000 (~0.0003%)" for standard + seven
    # pairs + thirteen orphans (riichi.wiki/Tenhou_and_chiihou; ja.wikipedia 天和):
    assert p["any"] == Fraction(269217010349, 88548021441004500)
    assert 325_000 < 1 / p["any"] < 335_000


def test_published_sixteen_tile_count():
    # 我打麻将の研究室, Taiwanese 16-tile mahjong (https://wandm.syakuhati.com/taimahu.html):
    # 一般形 (5 sets + pair) 17-tile hands from 136 tiles: 1554490175889888 out of
    # C(136, 17) = 1845382436487682488000.
    p = exact.p_complete(tiles=136, hand=17)
    assert p["standard"] * comb(136, 17) == 1554490175889888
    assert p["any"] == p["standard"]


# --- exact identities -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw",
    [
        dict(tiles=136, hand=13),
        dict(tiles=136, hand=13, shapes="standard"),
        dict(tiles=136, hand=14, wild="5m,5p"),
        dict(tiles=108, hand=16, wild="flip2"),
        dict(tiles=136, hand=13, wild="flip"),
    ],
)
def test_shanten_distribution_sums_to_one(kw):
    dist = exact.shanten_distribution(**kw)
    assert sum(dist.values()) == 1
    assert all(isinstance(v, Fraction) and 0 < v < 1 for v in dist.values())
    assert list(dist) == sorted(dist)


def test_hand_counts_total_and_complete_matches_shanten():
    copies = exact.deck(136)
    copies[tiles.kind("5m")] = 3
    n = exact.hand_counts(copies, 14, [tiles.kind("5m")])
    assert sum(map(sum, n)) == comb(135, 14)
    p = exact.p_complete(136, 14, wild="5m", wild_copies=3)
    dist = exact.shanten_distribution(136, 14, wild="5m", wild_copies=3)
    assert dist[-1] == p["any"]
    assert sum(n[w][d] for w in range(len(n)) for d in range(w + 1)) == p["any"] * comb(135, 14)


def test_flip_is_the_average_over_indicators():
    # wild="flip2": the indicator (one of the 108 tiles, uniformly) is set aside and the
    # next two kinds are wild; average the 27 decks by hand.
    expected = Fraction(0)
    for ind in range(27):
        copies = exact.deck(108)
        copies[ind] -= 1
        first = tiles.next_kind(ind)
        n = exact.hand_counts(copies, 11, [first, tiles.next_kind(first)], "standard")
        good = sum(n[w][d] for w in range(len(n)) for d in range(w + 1))
        expected += Fraction(4, 108) * Fraction(good, comb(107, 11))
    assert exact.p_complete(108, 11, wild="flip2")["standard"] == expected


def test_wilds_raise_the_odds():
    base = exact.p_complete()["any"]
    one = exact.p_complete(wild="5m")["any"]
    one_dead = exact.p_complete(wild="5m", wild_copies=3)["any"]
    two = exact.p_complete(wild="5m,5p")["any"]
    assert base < one_dead < one < two
    # Which kind is wild matters: an honor wild helps sets less than a middle tile but
    # takes away no sequence material.
    assert exact.p_complete(wild="7z")["any"] != one


# --- brute force over every hand of a small problem -------------------------------------------


def _multisets(kinds, copies, size):
    """All count vectors (n, 34) of ``size`` tiles over ``kinds`` with weights."""
    combos = np.array(list(itertools.combinations_with_replacement(kinds, size)), np.int64)
    rows = np.arange(len(combos))[:, None] * 34
    counts = np.bincount((rows + combos).ravel(), minlength=len(combos) * 34)
    counts = counts.reshape(len(combos), 34)
    binom = np.array([[comb(q, c) for c in range(size + 1)] for q in range(5)], np.int64)
    weight = np.ones(len(counts), np.int64)
    for k in kinds:
        weight *= binom[copies[k]][counts[:, k]]
    keep = weight > 0
    return counts[keep], weight[keep]


def _brute_shanten_distribution(copies, size, wild_kinds, shapes):
    counts, weight = _multisets([k for k in range(34) if copies[k]], copies, size)
    wilds = counts[:, wild_kinds].sum(axis=1)
    plain = counts.copy()
    plain[:, wild_kinds] = 0
    sh = hand.shanten(plain.astype(np.uint8), wilds=wilds, sets=size // 3, shapes=shapes)
    total = comb(int(sum(copies)), size)
    assert int(weight.sum()) == total
    out = {}
    for s in np.unique(sh):
        out[int(s)] = Fraction(int(weight[sh == s].sum()), total)
    return out


def test_brute_force_five_tile_hands_with_two_wild_kinds():
    # Every 5-tile hand (one set and a pair) from 135 tiles, 5m (3 live) and 5p wild.
    copies = exact.deck(136)
    copies[tiles.kind("5m")] = 3
    wild = [tiles.kind("5m"), tiles.kind("5p")]
    brute = _brute_shanten_distribution(copies, 5, wild, ("standard",))
    got = exact.shanten_distribution(136, 5, wild="5m,5p", wild_copies=(3, 4))
    assert got == brute
    assert exact.p_complete(136, 5, wild="5m,5p", wild_copies=(3, 4))["any"] == brute[-1]


def test_brute_force_four_tile_hands():
    brute = _brute_shanten_distribution(exact.deck(108), 4, [], ("standard",))
    assert exact.shanten_distribution(108, 4) == brute


def test_brute_force_special_shapes_on_a_small_deck():
    # A 31-tile deck: every orphan kind twice (so the special shapes are possible) but 1m
    # four times, and 2m three times; 7z wild; every 14-tile hand, each shape on its own.
    copies = np.zeros(34, np.int64)
    for k in tiles.ORPHANS:
        copies[k] = 2
    copies[tiles.kind("1m")] = 4
    copies[tiles.kind("2m")] = 3
    wild = [tiles.kind("7z")]
    kinds = [k for k in range(34) if copies[k]]
    g1, g2 = kinds[:7], kinds[7:]
    v1 = np.array(list(itertools.product(*[range(copies[k] + 1) for k in g1])), np.int64)
    v2 = np.array(list(itertools.product(*[range(copies[k] + 1) for k in g2])), np.int64)
    i, j = np.nonzero(v1.sum(1)[:, None] + v2.sum(1)[None, :] == 14)
    counts = np.zeros((len(i), 34), np.int64)
    counts[:, g1] = v1[i]
    counts[:, g2] = v2[j]
    binom = np.array([[comb(q, c) for c in range(5)] for q in range(5)], np.int64)
    weight = np.ones(len(counts), np.int64)
    for k in kinds:
        weight *= binom[copies[k]][counts[:, k]]
    assert int(weight.sum()) == comb(31, 14) == comb(int(copies.sum()), 14)
    wilds = counts[:, wild].sum(axis=1)
    plain = counts.copy()
    plain[:, wild] = 0
    for shapes in (("standard",), ("seven_pairs",), ("thirteen_orphans",), exact.EXACT_SHAPES):
        sh = hand.shanten(plain.astype(np.uint8), wilds=wilds, sets=4, shapes=shapes)
        n = exact.hand_counts(copies, 14, wild, shapes)
        got: dict[int, int] = {}
        for w, row in enumerate(n):
            for d, x in enumerate(row):
                if x:
                    s = max(d - w, 0) - 1
                    got[s] = got.get(s, 0) + x
        brute = {int(s): int(weight[sh == s].sum()) for s in np.unique(sh)}
        assert got == brute, shapes


@functools.cache
def _complete(c: tuple[int, ...], wilds: int, sets: int, pair: int) -> bool:
    """Plain recursive decomposition (no tables): can ``c`` + wilds form the target?

    The lowest held rank ``i`` belongs to the pair, a triplet, or a run through ``i``;
    wilds fill the missing tiles (runs may take a wild for a held tile too).
    """
    i = next((k for k in range(len(c)) if c[k]), None)
    if i is None:
        return wilds == 3 * sets + 2 * pair

    def take(ranks, need, sets_left, pair_left):
        rest = list(c)
        for r in ranks:
            rest[r] -= 1
        return _complete(tuple(rest), wilds - need, sets_left, pair_left)

    if pair:
        for real in range(1, min(2, c[i]) + 1):
            if 2 - real <= wilds and take([i] * real, 2 - real, sets, 0):
                return True
    if sets:
        for real in range(1, min(3, c[i]) + 1):
            if 3 - real <= wilds and take([i] * real, 3 - real, sets - 1, pair):
                return True
        for start in range(max(i - 2, 0), min(i, 6) + 1):  # runs through rank i
            others = [r for r in range(start, start + 3) if r > i]
            for k in range(len(others) + 1):
                for real in itertools.combinations(others, k):
                    if any(c[r] == 0 for r in real):
                        continue
                    need = 2 - k
                    if need <= wilds and take([i, *real], need, sets - 1, pair):
                        return True
    return False


@pytest.mark.parametrize("size", [8, 11])
def test_brute_force_one_suit_deck_against_recursive_decomposition(size):
    # A deck of the 36 m tiles with 5m wild: every hand checked by plain recursion.
    copies = np.zeros(34, np.int64)
    copies[:9] = 4
    five = tiles.kind("5m")
    counts, weight = _multisets(range(9), copies, size)
    good = 0
    for row, w in zip(counts, weight, strict=True):
        c = [int(x) for x in row[:9]]
        wilds = c[five]
        c[five] = 0
        if _complete(tuple(c), wilds, size // 3, 1):
            good += int(w)
    n = exact.hand_counts(copies, size, [five], "standard")
    assert sum(n[w][d] for w in range(len(n)) for d in range(w + 1)) == good


# --- independent counts: no distance tables -----------------------------------------------


def _shanten_counts(n):
    """``{shanten: hands}`` of a :func:`engine.exact.hand_counts` table (wilds applied)."""
    out: dict[int, int] = {}
    for w, row in enumerate(n):
        for d, x in enumerate(row):
            if x:
                s = max(d - w, 0) - 1
                out[s] = out.get(s, 0) + x
    return out


@pytest.mark.parametrize("suit", ["m", "z"])
def test_one_suit_deck_counts_agree_with_the_mahjong_package(suit):
    """Every 13-tile hand of one suit's 36 tiles (or the honors' 28), weighted by the
    tile sets it stands for, counted by the ``mahjong`` package (its own algorithm, four
    real tiles of a kind): the exact counts must be the same. One suit is where a kind
    held four times most often leaves a hand short of a fifth copy (1111m 234m ...).
    """
    from mahjong.shanten import Shanten  # a dev dependency (pyproject [dev])

    kinds = range(9) if suit == "m" else range(27, 34)
    copies = np.zeros(34, np.int64)
    copies[list(kinds)] = 4
    counts, weight = _multisets(kinds, copies, 13)
    calc = Shanten()
    theirs = np.array([calc.calculate_shanten_for_regular_hand(c.tolist()) for c in counts])
    want: dict[int, int] = {}
    for s in np.unique(theirs):
        want[int(s)] = int(weight[theirs == s].sum())
    assert sum(want.values()) == comb(int(copies.sum()), 13)
    got = _shanten_counts(exact.hand_counts(copies, 13, [], "standard"))
    assert got == want
    # the deck meets the fifth-copy case: a count that lets a draw be a fifth copy of a
    # kind held four times (no cap on copies) would call some of these hands closer
    # (checked on a sample of the hands holding four alike)
    quads = np.flatnonzero(counts.max(axis=1) == 4)
    quads = np.random.default_rng(5).choice(quads, min(len(quads), 2_000), replace=False)
    uncapped = np.array([bf.standard_distance(counts[i], 4) - 1 for i in quads])
    assert (uncapped < theirs[quads]).sum() >= 10


def test_honor_deck_with_a_wild_kind_agrees_with_the_direct_search():
    """Every 11-tile hand of the 28 honors with 7z wild, counted by the brute force
    (targets with at most as many copies beyond the fourth as wilds held, no tables)."""
    copies = np.zeros(34, np.int64)
    copies[27:34] = 4
    wild = tiles.kind("7z")
    counts, weight = _multisets(range(27, 34), copies, 11)
    want: dict[int, int] = {}
    for row, x in zip(counts, weight, strict=True):
        c = row.copy()
        w = int(c[wild])
        c[wild] = 0
        s = bf.hand_distance(c, w, 3, ("standard",)) - 1
        want[s] = want.get(s, 0) + int(x)
    assert sum(want.values()) == comb(28, 11)
    assert _shanten_counts(exact.hand_counts(copies, 11, [wild], "standard")) == want


# --- Monte Carlo agreement ----------------------------------------------------------------------

NEXT = np.array([tiles.next_kind(k) for k in range(34)], np.int64)


def _deal(rng, deck_kinds, size, deals):
    """Kinds of the first ``size`` tiles of ``deals`` shuffled decks (partial Fisher-Yates)."""
    n_tiles = len(deck_kinds)
    perm = np.broadcast_to(np.arange(n_tiles, dtype=np.int16), (deals, n_tiles)).copy()
    rows = np.arange(deals)
    u = rng.random((deals, size))
    for j in range(size):
        r = j + (u[:, j] * (n_tiles - j)).astype(np.int64)
        held = perm[rows, j].copy()
        perm[rows, j] = perm[rows, r]
        perm[rows, r] = held
    return deck_kinds[perm[:, :size]]


def _simulate(rng, deals, n_tiles, size, wild=(), wild_copies=4, shape_sets=None, chunk=100_000):
    """Shanten counts of ``deals`` random deals by engine.hand.shanten, per shape set.

    Returns ``[{shanten: deals}]``, one dict per entry of ``shape_sets`` (default: the
    deck's default shapes only).
    """
    base = exact.deck(n_tiles)
    if shape_sets is None:
        shape_sets = [exact.default_shapes(n_tiles, size)]
    flip = isinstance(wild, str) and wild in exact.FLIP_MODES
    named = [] if flip else [tiles.kind(w) for w in wild]
    copies = base.copy()
    for k, q in zip(named, np.broadcast_to(wild_copies, len(named)), strict=True):
        copies[k] = q
    deck_kinds = np.repeat(np.arange(34), copies)
    hits: list[dict[int, int]] = [{} for _ in shape_sets]
    done = 0
    while done < deals:
        m = min(chunk, deals - done)
        dealt = _deal(rng, deck_kinds, size + flip, m)
        rows = np.arange(m)
        if flip:
            ind, dealt = dealt[:, 0], dealt[:, 1:]
            wk = {"flip0": [ind], "flip": [NEXT[ind]], "flip2": [NEXT[ind], NEXT[NEXT[ind]]]}
            wild_cols = wk[wild]
        else:
            wild_cols = [np.full(m, k) for k in named]
        counts = np.bincount((rows[:, None] * 34 + dealt).ravel(), minlength=m * 34)
        counts = counts.reshape(m, 34)
        wilds = np.zeros(m, np.int64)
        for col in wild_cols:
            wilds += counts[rows, col]
            counts[rows, col] = 0
        counts = counts.astype(np.uint8)
        for out, shapes in zip(hits, shape_sets, strict=True):
            sh = hand.shanten(counts, wilds=wilds, sets=size // 3, shapes=shapes)
            for s, x in zip(*np.unique(sh, return_counts=True), strict=True):
                out[int(s)] = out.get(int(s), 0) + int(x)
        done += m
    return hits


def _assert_agrees(hits, deals, dist):
    """Every shanten's frequency lies within 4 binomial sigmas of its exact probability."""
    assert set(hits) <= set(dist), (hits, dist)
    for s, p in dist.items():
        p = float(p)
        sigma = sqrt(p * (1 - p) / deals)
        got = hits.get(s, 0) / deals
        assert abs(got - p) <= 4 * sigma + 0.5 / deals, (s, got, p, sigma)


MC_CASES = [
    # (tiles, hand, wild, wild_copies); each checked for the standard shape and for all
    (136, 13, (), 4),
    (136, 14, "flip2", 4),  # 诸暨 caishen=2: P(complete) ~ 9e-4
    (136, 14, "flip0", 4),  # 丽水 财神 / 福州 金: the indicator's kind, 3 live
    (136, 14, ("7z",), 3),
    (108, 17, "flip", 4),  # P(complete) ~ 1.6e-3
    (136, 8, ("5m", "5p"), (3, 4)),  # P(complete) ~ 2.5e-3
]


def _check_case(case, deals, seed, chunk=100_000):
    n_tiles, size, wild, wild_copies = case
    shape_sets = [("standard",), exact.default_shapes(n_tiles, size)]
    rng = np.random.default_rng(seed)
    hits = _simulate(rng, deals, n_tiles, size, wild, wild_copies, shape_sets, chunk)
    for got, shapes in zip(hits, shape_sets, strict=True):
        dist = exact.shanten_distribution(n_tiles, size, wild, wild_copies, shapes)
        _assert_agrees(got, deals, dist)


@pytest.mark.parametrize("case", MC_CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}-{c[3]}")
def test_monte_carlo_agrees_with_exact(case):
    _check_case(case, deals=200_000, seed=20261129 + case[1])


@pytest.fixture
def slow_enabled(request):
    if "slow" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("large-N statistics run with `pytest -m slow` (issue 2)")


@pytest.mark.slow
@pytest.mark.parametrize(
    "case", [(136, 14, (), 4), (136, 13, "flip2", 4)], ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}"
)
def test_monte_carlo_ten_million_deals(case, slow_enabled):
    # 天和 without wilds: ~30 complete hands expected in 10M deals, 4 sigma ~ 22.
    _check_case(case, deals=10_000_000, seed=7 + case[1], chunk=250_000)


# --- command line ---------------------------------------------------------------------------


def test_cli_json(capsys):
    assert main(["exact", "--tiles", "136", "--hand", "14", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tiles"] == 136 and out["hand"] == 14 and out["wild"] == []
    p = exact.p_complete(136, 14)
    for name in (*exact.EXACT_SHAPES, "any"):
        assert Fraction(out[name]["fraction"]) == p[name]
        assert out[name]["p"] == pytest.approx(float(p[name]), rel=1e-15)


def test_cli_wild_copies_and_flip(capsys):
    assert main(["exact", "--wild", "5m", "--wild-copies", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dealt_from"] == 135 and out["wild"] == ["5m"]
    assert Fraction(out["any"]["fraction"]) == exact.p_complete(wild="5m", wild_copies=3)["any"]
    assert main(["exact", "--tiles", "108", "--wild", "flip2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hand"] == 17 and out["wild"] == "flip2"
    assert Fraction(out["standard"]["fraction"]) == exact.p_complete(108, wild="flip2")["any"]


def test_cli_shanten(capsys):
    assert main(["exact", "--shanten", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hand"] == 13
    assert set(out["shanten"]) == {*exact.EXACT_SHAPES, "any"}
    for dist in out["shanten"].values():
        assert sum(Fraction(v["fraction"]) for v in dist.values()) == 1
    assert main(["exact", "--shanten"]) == 0
    assert "shanten" in capsys.readouterr().out


def test_cli_text(capsys):
    assert main(["exact", "--tiles", "136", "--hand", "14"]) == 0
    text = capsys.readouterr().out
    assert "any" in text and "269217010349/88548021441004500" in text


@pytest.mark.parametrize(
    "argv",
    [
        ["exact", "--hand", "13"],  # a complete hand holds 3k+2 tiles
        ["exact", "--hand", "15"],
        ["exact", "--hand", "20"],
        ["exact", "--tiles", "144"],
        ["exact", "--wild", "8z"],
        ["exact", "--wild", "5m,5m"],
        ["exact", "--tiles", "108", "--wild", "1z"],
        ["exact", "--wild-copies", "3"],
        ["exact", "--wild", "flip", "--wild-copies", "3"],
        ["exact", "nosuchvariant"],
        ["exact", "tuidaohu", "--tiles", "136"],
        ["exact", "--shanten", "--hand", "12"],
    ],
)
def test_cli_bad_input_exits_2(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("mjlab") and len(err.strip().splitlines()) == 1
