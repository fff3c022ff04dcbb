"""engine.hand: golden hands in notation, batching, input validation, table pins.

The golden tests run against the engine and against the brute-force twin
(``tests/oracles/hand_bruteforce.py``), so that a wrong expectation here and a wrong
kernel cannot agree by accident.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np
import pytest
from oracles import hand_bruteforce

from engine import hand, tiles
from engine.hand._tables import HONOR_LEVELS, SUIT_LEVELS, suit_rows

pytestmark = pytest.mark.twin  # also run interpreted (.ci/run's NUMBA_DISABLE_JIT pass)

ALL = ("standard", "seven_pairs", "thirteen_orphans", "buda")


@pytest.fixture(params=["engine", "bruteforce"])
def impl(request):
    """The implementation under test: the table kernels or the brute-force twin."""
    return hand if request.param == "engine" else hand_bruteforce


def kinds(text):
    """Kind names of a bool (34,) mask, e.g. ['1z', '2z']."""
    return [tiles.kind_name(k) for k in np.flatnonzero(text)]


def names(text):
    """The kind names of a notation string, in kind order, without repeats."""
    return [tiles.kind_name(k) for k in np.flatnonzero(tiles.parse(text))]


# --- complete hands -----------------------------------------------------------------

COMPLETE = [
    # (hand, wilds, sets, shapes)
    ("123m456p789s11222z", 0, 4, ("standard",)),
    ("11122233344455m", 0, 4, ("standard",)),  # one suit, pair 55m
    ("1133m2255p4466s77z", 0, 4, ("seven_pairs",)),
    ("1111m2255p4466s77z", 0, 4, ("seven_pairs",)),  # four alike are two pairs
    ("1111m2222p4444s77z", 0, 4, ("seven_pairs",)),
    ("19m19p19s12345677z", 0, 4, ("thirteen_orphans",)),
    ("119m19p19s1234567z", 0, 4, ("thirteen_orphans",)),
    ("147m258p369s12345z", 0, 4, ("buda",)),
    ("148m259p36s234567z", 0, 4, ("buda",)),  # 3 + 3 + 2 suited, 6 honors
    ("14m25p369s1234567z", 0, 4, ("buda",)),  # all seven honors
    ("123m456p789s1122z", 1, 4, ("standard",)),  # the wild is 1z or 2z
    ("123m456p789s11z", 3, 4, ("standard",)),  # three wilds are a set
    ("1111m234p567s789s", 1, 4, ("standard",)),  # the wild is a fifth 1m
    ("", 14, 4, ("standard",)),  # nothing but wilds
    ("1133m2255p4466s7z", 1, 4, ("seven_pairs",)),
    ("19m19p19s1234567z", 1, 4, ("thirteen_orphans",)),
    ("147m258p369s1234z", 1, 4, ("buda",)),
    ("123456789m123p11555z", 0, 5, ("standard",)),  # 17 tiles, five sets
    ("111222333444555m11z", 0, 5, ("standard",)),
    ("123456789m123p11z", 3, 5, ("standard",)),
    ("55z", 0, 0, ("standard",)),  # sets=0: a pair
    ("5z", 1, 0, ("standard",)),
    ("11155z", 0, 1, ("standard",)),
]


@pytest.mark.parametrize(("text", "wilds", "sets", "shapes"), COMPLETE)
def test_complete_hands(impl, text, wilds, sets, shapes):
    counts = tiles.parse(text, allow_empty=True)
    assert impl.is_complete(counts, wilds, sets, shapes)
    assert impl.shanten(counts, wilds, sets, shapes) == -1
    # a complete hand of any shape is complete when every shape is allowed
    assert impl.is_complete(counts, wilds, sets, ALL)


@pytest.mark.parametrize(
    ("text", "shapes"),
    [
        ("1133m2255p4466s77z", ("standard", "thirteen_orphans", "buda")),
        ("19m19p19s12345677z", ("standard", "seven_pairs", "buda")),
        ("147m258p369s12345z", hand.DEFAULT_SHAPES),  # 不搭 is not a default shape
        ("1111m2222p4444s77z", ("standard",)),
        ("123m456p789s12345z", ALL),
        ("11m22p33s44556677z", ("standard", "thirteen_orphans")),  # seven pairs only
        ("147m258p368s12345z", ("buda",)),  # 6s and 8s are only 2 apart
        ("147m258p369s11234z", ("buda",)),  # an honor twice
    ],
)
def test_not_complete(impl, text, shapes):
    assert not impl.is_complete(tiles.parse(text), 0, 4, shapes)


# --- shanten and waits ----------------------------------------------------------------

WAITING = [
    # (hand, wilds, sets, shapes, waits)
    ("123m456p789s1122z", 0, 4, hand.DEFAULT_SHAPES, "12z"),  # 对倒 (shanpon)
    ("123m456p789s1222z", 0, 4, hand.DEFAULT_SHAPES, "1z"),  # 单骑 (tanki)
    ("13m456p789s11222z", 0, 4, hand.DEFAULT_SHAPES, "2m"),  # 嵌张 (kanchan)
    ("23m456p789s11222z", 0, 4, hand.DEFAULT_SHAPES, "14m"),  # 两面 (ryanmen)
    ("1112345678999m", 0, 4, hand.DEFAULT_SHAPES, "123456789m"),  # 九莲宝灯: all nine
    ("19m19p19s1234567z", 0, 4, hand.DEFAULT_SHAPES, "19m19p19s1234567z"),  # 13-sided
    ("19m19p19s1234566z", 0, 4, hand.DEFAULT_SHAPES, "7z"),
    ("1111m2255p4466s7z", 0, 4, hand.DEFAULT_SHAPES, "7z"),  # 1111m is two pairs
    ("1133m2255p4466s7z", 0, 4, ("seven_pairs",), "7z"),
    ("147m258p369s1234z", 0, 4, ("buda",), "567z"),  # suits full: a new honor
    ("147m258p36s12345z", 0, 4, ("buda",), "9s67z"),
    ("123m456p789s122z", 1, 4, hand.DEFAULT_SHAPES, "12z"),  # 1z1zW + 22z or 222z + 1zW
    ("123m456p789s12z", 2, 4, ("standard",), "12z"),  # 1zWW + 2z2z or 2zWW + 1z1z
    ("123m456p789s1z", 3, 4, ("standard",), "123456789m123456789p123456789s1234567z"),
    ("123456789m123p1155z", 0, 5, ("standard",), "15z"),  # 16 tiles, five sets
    ("1112345678999m111z", 0, 5, ("standard",), "123456789m"),
    ("5z", 0, 0, ("standard",), "5z"),  # sets=0: a single tile waits on its pair
]


@pytest.mark.parametrize(("text", "wilds", "sets", "shapes", "expected"), WAITING)
def test_waits(impl, text, wilds, sets, shapes, expected):
    counts = tiles.parse(text)
    assert impl.shanten(counts, wilds, sets, shapes) == 0
    assert kinds(impl.waits(counts, wilds, sets, shapes)) == names(expected)


@pytest.mark.parametrize("text", ["234677889m9999p", "1111m234p567p789s"])
def test_a_wait_only_on_a_fifth_copy_is_not_tenpai(impl, text):
    """234m 678m 789m 999p + 9p needs a fifth 9p: there is none without a wild.

    Both hands are one tile from tenpai (the ``mahjong`` package agrees), wait on
    nothing, and complete with one wild standing for the fifth copy (RULEBOOK §0.1).
    """
    counts = tiles.parse(text)
    assert impl.shanten(counts, 0, 4, ("standard",)) == 1
    assert not impl.waits(counts, 0, 4, ("standard",)).any()
    assert impl.is_complete(counts, 1, 4, ("standard",))


@pytest.mark.parametrize(
    ("text", "wilds", "sets", "shapes", "expected"),
    [
        # every tile isolated: the best target keeps one tile of each of its five groups,
        # distance 14 - 5, shanten 8 (the most a 13-tile hand can be)
        ("147m258p369s1234z", 0, 4, ("standard",), 8),
        ("147m258p369s1234z", 0, 4, ("buda",), 0),
        ("159m159p159s1357z", 0, 4, ("standard",), 8),
        ("1133m2255p4467s57z", 0, 4, ("seven_pairs",), 1),
        ("1133m2255p4467s57z", 0, 4, ("standard",), 3),
        ("19m19p19s1234567z", 0, 4, ("standard",), 8),
        ("19m19p19s1234567z", 0, 4, ("seven_pairs",), 6),
        ("1m", 3, 1, ("standard",), 0),  # 4 of the 5 tiles of a set and a pair
        ("123m456p789s1122z", 3, 5, ("standard",), 0),  # 16 tiles with three wilds
    ],
)
def test_shanten_numbers(impl, text, wilds, sets, shapes, expected):
    assert impl.shanten(tiles.parse(text), wilds, sets, shapes) == expected


def test_distance_is_shanten_plus_one():
    counts = tiles.parse("1133m2255p4467s57z")
    assert hand.distance(counts) == hand.shanten(counts) + 1 == 2


def test_four_alike_are_two_pairs_for_seven_pairs_waits():
    # 1111m and 2222p are four pairs, 33s and 44s two more: 5z waits for the seventh
    counts = tiles.parse("1111m2222p3344s5z")
    assert kinds(hand.waits(counts, 0, 4, ("seven_pairs",))) == ["5z"]


# --- batches and broadcasting -----------------------------------------------------------


def test_batch_shapes_and_broadcast_wilds():
    a = tiles.parse("123m456p789s1122z")  # 13 tiles: tenpai
    b = tiles.parse("123m456p789s112z")  # 12 tiles: needs one wild
    batch = np.stack([np.stack([a, a, a]), np.stack([b, b, b])])  # (2, 3, 34)
    wilds = np.array([[0], [1]])  # broadcasts to (2, 3)
    out = hand.shanten(batch, wilds)
    assert out.shape == (2, 3) and out.dtype == np.int8
    np.testing.assert_array_equal(out, [[0, 0, 0], [0, 0, 0]])
    w = hand.waits(batch, wilds)
    assert w.shape == (2, 3, 34) and w.dtype == np.bool_
    assert kinds(w[0, 1]) == ["1z", "2z"]
    # b + a wild: 11z + W and 2z wait on 2z; 11z and 2z + W wait on 1z
    assert kinds(w[1, 2]) == ["1z", "2z"]
    # per-hand wilds along the last axis
    ws = hand.shanten(np.stack([tiles.parse("123m456p789s11z"), b]), np.array([3, 2]))
    np.testing.assert_array_equal(ws, [-1, -1])


def test_per_hand_sets():
    counts = np.stack([tiles.parse("123m456p789s1122z"), tiles.parse("123456789m123p1155z")])
    np.testing.assert_array_equal(hand.shanten(counts, 0, np.array([4, 5])), [0, 0])


def test_scalar_hand_gives_scalar_results():
    counts = tiles.parse("123m456p789s11222z")
    assert hand.shanten(counts).shape == ()
    assert hand.is_complete(counts).shape == ()
    assert hand.waits(tiles.parse("123m456p789s1122z")).shape == (34,)


def test_empty_batch():
    empty = np.zeros((0, 34), np.uint8)
    assert hand.shanten(empty).shape == (0,)
    assert hand.waits(empty).shape == (0, 34)


def test_any_integer_dtype():
    counts = tiles.parse("123m456p789s1122z")
    for dtype in (np.int8, np.int32, np.int64, np.uint16):
        assert hand.shanten(counts.astype(dtype)) == 0


def test_ukeire_shapes_and_best_discard():
    counts = tiles.parse("123m456p789s11225z")
    u = hand.ukeire(counts)
    assert u.shanten.shape == (34,) and u.improving.shape == (34, 34) and u.tiles.shape == (34,)
    five = tiles.kind("5z")
    assert u.shanten[five] == 0 and kinds(u.improving[five]) == ["1z", "2z"]
    assert u.tiles[five] == 4  # two 1z and two 2z unseen
    assert kinds(u.best()) == ["5z"]
    assert u.shanten[tiles.kind("3p")] == 127  # not held
    batch = hand.ukeire(np.stack([counts, counts]), np.array([0, 0]))
    assert batch.improving.shape == (2, 34, 34)


# --- one hand: the fast path -------------------------------------------------------------


def _single_hands(seed, n):
    """``n`` legal one-hand calls ``(counts uint8 (34,), wilds, sets, shapes, size)``."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        sets = 4 if i % 5 else int(rng.integers(0, 6))
        size = 1 + i % 2
        wilds = int(rng.choice(4, p=(0.5, 0.25, 0.15, 0.1)))
        real = max(3 * sets + size - wilds, 0)
        wilds = 3 * sets + size - real
        counts = np.bincount(rng.choice(136, real, replace=False) // 4, minlength=34)
        if i % 7 == 0 and real >= 4:  # four alike: the fifth-copy cap at work
            counts = np.zeros(34, np.int64)
            counts[int(rng.integers(0, 34))] = 4
            while counts.sum() < real:
                k = int(rng.integers(0, 34))
                counts[k] += counts[k] < 4
        shapes = ALL if sets == 4 and i % 3 == 0 else ("standard",)
        out.append((counts.astype(np.uint8), wilds, sets, shapes, size))
    return out


def test_one_hand_calls_agree_with_the_batch():
    rows = _single_hands(41, 600)
    for size in (1, 2):
        for shapes in (ALL, ("standard",)):
            pick = [r for r in rows if r[4] == size and r[3] == shapes]
            counts = np.array([r[0] for r in pick])
            w = np.array([r[1] for r in pick])
            s = np.array([r[2] for r in pick])
            sh = hand.shanten(counts, w, s, shapes)
            if size == 1:
                wt = hand.waits(counts, w, s, shapes)
            else:
                done = hand.is_complete(counts, w, s, shapes)
                u = hand.ukeire(counts, w, s, shapes)
            for i, (c, wi, si, _, _) in enumerate(pick):
                one = hand.shanten(c, wi, si, shapes)
                assert type(one) is np.int8 and one == sh[i]
                if size == 1:
                    np.testing.assert_array_equal(hand.waits(c, wi, si, shapes), wt[i])
                else:
                    got = hand.is_complete(c, wi, si, shapes)
                    assert type(got) is np.bool_ and got == done[i]
                    v = hand.ukeire(c, wi, si, shapes)
                    np.testing.assert_array_equal(v.shanten, u.shanten[i])
                    np.testing.assert_array_equal(v.improving, u.improving[i])
                    np.testing.assert_array_equal(v.tiles, u.tiles[i])
    assert {r[2] for r in rows} == {0, 1, 2, 3, 4, 5} and {r[1] for r in rows} >= {0, 1, 2, 3}


def test_one_hand_calls_skip_the_batch_set_up(monkeypatch):
    """A (34,) uint8 hand with int wilds and sets never reaches the batch validation."""
    h13 = tiles.parse("123m456p789s1122z")
    h14 = tiles.parse("123m456p789s11225z")
    want = (hand.shanten(h13), hand.waits(h13), hand.is_complete(h14), hand.ukeire(h14))

    def no_batch(*args, **kwargs):
        raise AssertionError("the batch path was taken")

    monkeypatch.setattr(hand, "_prepare", no_batch)
    monkeypatch.setattr(hand, "_shanten_rows", no_batch)
    assert hand.shanten(h13) == want[0] == 0
    first = hand.waits(h13)
    np.testing.assert_array_equal(first, want[1])
    assert hand.is_complete(h14) == want[2] == np.False_
    np.testing.assert_array_equal(hand.ukeire(h14).tiles, want[3].tiles)
    # each call returns its own array
    hand.waits(tiles.parse("111m456p789s1122z"))
    np.testing.assert_array_equal(first, want[1])
    # anything else is the batch path: a list, another dtype, a numpy int, a view
    for call in (
        lambda: hand.shanten(h13.tolist()),
        lambda: hand.shanten(h13.astype(np.int64)),
        lambda: hand.shanten(h13, np.int64(0)),
        lambda: hand.shanten(np.stack([h13, h13], axis=1)[:, 0]),
    ):
        with pytest.raises(AssertionError, match="batch path"):
            call()


# --- the batched path: checks and distance in one pass ----------------------------------


def _batch_rows(seed, n):
    """``n`` random rows ``(counts uint8 (n, 34), wilds, sets)`` of every kind the batch
    path meets: sets 0..5, 3*sets+1 or +2 tiles, 0..4 wilds, tiles dealt from the whole
    set, from one suit or from the honors (many four alike: the fifth-copy cap), and a
    tenth of them bad (a count above 4, a size off by one, wilds -1, sets 6).
    """
    rng = np.random.default_rng(seed)
    sets = rng.integers(0, 6, n)
    sets[rng.random(n) < 0.5] = 4
    size = 1 + rng.integers(0, 2, n)
    wilds = np.minimum(rng.choice(5, n, p=(0.5, 0.2, 0.15, 0.1, 0.05)), 3 * sets + size)
    real = 3 * sets + size - wilds
    pool = rng.integers(0, 3, n)  # 0: every tile, 1: one suit (36 tiles), 2: honors (28)
    real = np.where(pool == 2, np.minimum(real, 28), real)
    wilds = 3 * sets + size - real
    keys = rng.random((n, 136))
    keys[pool == 1, 36:] = 2.0
    keys[pool == 2, :108] = 2.0
    picks = np.argsort(keys, axis=1)
    take = np.arange(136)[None, :] < real[:, None]
    rows = np.repeat(np.arange(n), 136)[take.ravel()]
    counts = np.zeros((n, 34), np.uint8)
    np.add.at(counts, (rows, (picks // 4).ravel()[take.ravel()]), 1)
    bad = rng.random(n) < 0.1
    how = rng.integers(0, 4, n)
    for r in np.flatnonzero(bad):
        if how[r] == 0:
            counts[r, rng.integers(0, 34)] = rng.integers(5, 256)
        elif how[r] == 1:
            wilds[r] += 1 if rng.random() < 0.5 or wilds[r] == 0 else -1
        elif how[r] == 2:
            wilds[r] = -1
        else:
            sets[r] = 6
    return counts, wilds.astype(np.int64), sets.astype(np.int64)


def test_checked_batch_kernel_equals_the_check_then_distance_path():
    """The batched shanten kernel (checks and distance in one pass over the counts) gives
    what the check pass and :func:`_distance` give, row by row: the same shanten for
    every good hand and :data:`BAD` exactly on the rows the check pass rejects, for every
    shape mask, size mask, per-row and scalar wilds and sets, serial and parallel.
    """
    from engine.hand import _kernels as k
    from engine.hand._tables import kernel_tables

    tab = kernel_tables()
    counts, wilds, sets = _batch_rows(2026, 40_000)
    seen_bad = 0
    for mask in range(1, 16):
        for size_mask in (1, 2, 3):
            bad = np.empty(len(counts), np.int64)
            k._check_serial(counts, wilds, sets, size_mask, bad)
            ok = bad == 0  # the reference reads the tables unchecked: good rows only
            ref = np.empty(int(ok.sum()), np.int8)
            k._shanten_serial(np.ascontiguousarray(counts[ok]), wilds[ok], sets[ok], mask, tab, ref)
            want = np.full(len(counts), k.BAD, np.int8)
            want[ok] = ref
            for kern in (k._shanten_checked, k._shanten_checked.serial):
                got = np.full(len(counts), 77, np.int8)
                n_bad = kern(counts, wilds, 1, sets, 1, size_mask, mask, tab, got)
                assert n_bad == np.count_nonzero(bad)
                np.testing.assert_array_equal(got, want)
            seen_bad += n_bad
    assert seen_bad > 0
    # scalar wilds and sets (read with step 0) on hands that hold the right number
    for w, s_ in ((0, 4), (1, 4), (2, 4), (0, 5), (3, 1)):
        sel = (wilds == w) & (sets == s_)
        assert sel.sum() > 50
        sub = np.ascontiguousarray(counts[sel])
        ws = np.full(len(sub), w, np.int64)
        ss = np.full(len(sub), s_, np.int64)
        bad = np.empty(len(sub), np.int64)
        k._check_serial(sub, ws, ss, 3, bad)
        ok = bad == 0
        ref = np.empty(int(ok.sum()), np.int8)
        k._shanten_serial(np.ascontiguousarray(sub[ok]), ws[ok], ss[ok], 7, tab, ref)
        want = np.full(len(sub), k.BAD, np.int8)
        want[ok] = ref
        got = np.empty(len(sub), np.int8)
        one = np.array([w], np.int64), np.array([s_], np.int64)
        assert k._shanten_checked(sub, one[0], 0, one[1], 0, 3, 7, tab, got) == (bad != 0).sum()
        np.testing.assert_array_equal(got, want)


def test_batched_shanten_agrees_with_the_bruteforce_on_random_wild_hands():
    """The public batched path against the brute-force twin: wilds, sets and shapes."""
    counts, wilds, sets = _batch_rows(7, 3000)
    good = (
        (counts.max(axis=1) <= 4)
        & (wilds >= 0)
        & (sets <= 5)
        & np.isin(counts.sum(axis=1) + wilds - 3 * sets, (1, 2))
    )
    counts, wilds, sets = counts[good], wilds[good], sets[good]
    assert (wilds > 0).sum() > 500 and len(counts) > 2000
    for shapes in (("standard",), ALL):
        got = hand.shanten(counts, wilds, sets, shapes)
        want = hand_bruteforce.shanten(counts, wilds, sets, shapes)
        np.testing.assert_array_equal(got, want)
        done = np.flatnonzero(counts.sum(axis=1) + wilds == 3 * sets + 2)
        np.testing.assert_array_equal(
            hand.is_complete(counts[done], wilds[done], sets[done], shapes), want[done] == -1
        )


def test_batched_bad_rows_raise_the_checked_paths_errors():
    counts, wilds, sets = _batch_rows(11, 2000)
    for r in range(0, 2000, 97):
        one = (counts[r : r + 1], wilds[r : r + 1], sets[r : r + 1])
        try:
            hand._prepare(*one, (1, 2), hand.shape_mask(hand.DEFAULT_SHAPES))
        except ValueError as exc:
            with pytest.raises(ValueError, match=re.escape(str(exc))):
                hand.shanten(*one)
        else:
            assert hand.shanten(*one).shape == (1,)


# --- input validation -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: hand.shanten(tiles.parse("123m456p789s11z")), "tiles"),  # 11 tiles
        (lambda: hand.shanten(tiles.parse("123m456p789s1122z"), sets=5), "tiles"),
        (lambda: hand.shanten(tiles.parse("123m456p789s1122z"), wilds=2), "tiles"),
        (lambda: hand.is_complete(tiles.parse("123m456p789s1122z")), "tiles"),  # 13
        (lambda: hand.waits(tiles.parse("123m456p789s11222z")), "tiles"),  # 14
        (lambda: hand.ukeire(tiles.parse("123m456p789s1122z")), "tiles"),
        (lambda: hand.shanten(np.full(34, 5, np.uint8)), "0..4"),
        (lambda: hand.shanten(np.full(34, 5, np.int64)), "0..4"),
        (lambda: hand.shanten(np.full(34, -1, np.int64)), "0..4"),
        (lambda: hand.shanten(np.zeros(33, np.uint8)), "34"),
        (lambda: hand.shanten(np.zeros(34, np.float64)), "integer"),
        (lambda: hand.shanten(tiles.parse("123m456p789s1122z"), sets=6), "sets"),
        (lambda: hand.shanten(tiles.parse("123m456p789s1122z"), sets=-1), "sets"),
        (lambda: hand.shanten(tiles.parse("123m456p789s112z"), wilds=-1), "wilds"),
        (lambda: hand.shanten(tiles.parse("1122z"), wilds=np.array([1, 2])), "broadcast"),
        (lambda: hand.shanten(tiles.parse("123m456p789s1122z"), shapes=("pairs",)), "shape"),
        (lambda: hand.shanten(tiles.parse("123m456p789s1122z"), shapes=()), "shape"),
        (lambda: hand.shanten(tiles.parse("123m456p789s1122z"), shapes="seven"), "shape"),
    ],
)
def test_bad_input_raises_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_wrong_size_message_names_what_is_expected():
    with pytest.raises(ValueError, match=r"holds 11 tiles.*sets=4.*13 or 14"):
        hand.shanten(tiles.parse("123m456p789s11z"))


def test_special_shapes_alone_need_four_sets():
    """Seven pairs, 十三幺 and 不搭 exist only for ``sets == 4``; asking for them alone
    on a 16/17-tile hand has no answer and must say so, not return a number.

    (The engine returned 98 here when this test was written: INF - 1 of the kernel.)
    """
    counts = tiles.parse("1133m2255p4466s77z 11m")  # 17 tiles, sets=5
    with pytest.raises(ValueError):
        hand.shanten(counts, 0, 5, ("seven_pairs",))
    with pytest.raises(ValueError):
        hand_bruteforce.shanten(counts, 0, 5, ("seven_pairs",))
    # with the standard shape among them, the special ones are simply not used
    assert hand.shanten(counts, 0, 5, ALL) == hand.shanten(counts, 0, 5, ("standard",))


# --- table pins -------------------------------------------------------------------------


def _index(counts):
    return int(sum(int(c) * 5**i for i, c in enumerate(counts)))


# rows: [k=0 p=0, k=0 p=1, k=1 p=0, k=1 p=1, ..., k=5 p=1] of wild-free hands (at most
# four copies of a kind in the target), worked out by hand
SUIT_ROWS = {
    # an empty suit: k sets cost 3k, the pair 2 more
    (0, 0, 0, 0, 0, 0, 0, 0, 0): [0, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17],
    # 111: the pair or the set are there; set + pair: 111 + 2 new (or 11 + 1xx)
    (3, 0, 0, 0, 0, 0, 0, 0, 0): [0, 0, 0, 2, 3, 5, 6, 8, 9, 11, 12, 14],
    # 44: a pair; one set 444 costs 1
    (0, 0, 0, 2, 0, 0, 0, 0, 0): [0, 0, 1, 3, 4, 6, 7, 9, 10, 12, 13, 15],
    # 123456789: three sets; a pair takes one tile and breaks a set (11 + 234 567 89x)
    (1, 1, 1, 1, 1, 1, 1, 1, 1): [0, 1, 0, 1, 0, 1, 0, 2, 3, 5, 6, 8],
    # 九莲 1112345678999: four sets + one tile from the pair (tenpai)
    (3, 1, 1, 1, 1, 1, 1, 1, 3): [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4],
    # every rank four times: 36 tiles hold 5 sets and a pair
    (4, 4, 4, 4, 4, 4, 4, 4, 4): [0] * 12,
    # 1111: a set and a pair is 111 + a new pair (2), never 111 + 1 and a fifth 1; two
    # sets 111 + 1 with 23 (2); two sets and a pair 111 + 123 + a new pair (4)
    (4, 0, 0, 0, 0, 0, 0, 0, 0): [0, 0, 0, 2, 2, 4, 5, 7, 8, 10, 11, 13],
}

HONOR_ROWS = {
    (0, 0, 0, 0, 0, 0, 0): [0, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17],
    (3, 0, 0, 0, 0, 0, 0): [0, 0, 0, 2, 3, 5, 6, 8, 9, 11, 12, 14],
    # 1 2 3 (no sequences among honors): a pair costs 1 and a set 2 while they last
    (1, 1, 1, 0, 0, 0, 0): [0, 1, 2, 3, 4, 5, 6, 8, 9, 11, 12, 14],
    # 1111 2222 3333: three sets and a pair need a new pair (2), 4 sets + pair 444 + 55
    (4, 4, 4, 0, 0, 0, 0): [0, 0, 0, 0, 0, 0, 0, 2, 3, 5, 6, 8],
}

# the same rows when wilds allow copies beyond the fourth: {(counts, level): row}
LEVEL_ROWS = {
    # one wild: 111 + 1 and the wild as a fifth 1 (1); 111 + 123 + 11 wants two (4)
    ((4, 0, 0, 0, 0, 0, 0, 0, 0), 1): [0, 0, 0, 1, 2, 4, 5, 7, 8, 10, 11, 13],
    # three sets and a pair: the pair is a held fourth copy and a fifth (1 at level 1);
    # at level 5 each set or pair beyond 111 222 333 starts from a held fourth copy and
    # costs only the copies beyond it
    ((4, 4, 4, 0, 0, 0, 0), 1): [0, 0, 0, 0, 0, 0, 0, 1, 3, 4, 6, 7],
    ((4, 4, 4, 0, 0, 0, 0), 5): [0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5],
}

# sha256 of the row tables' bytes (uint8, C order, every excess level); update only
# with a reviewed reason
SUIT_SHA256 = "0aa50e44ded769254a7e131ad62f565dc744849bada11a7de63161190a958f53"
HONOR_SHA256 = "2da9c7257de5b8065dbc9949f7a61af08ec3d4c9f555c86461a246868482470c"


def test_suit_table_known_entries():
    suit = suit_rows(9)
    assert suit.shape == (5**9, SUIT_LEVELS + 1, 12) and suit.dtype == np.uint8
    for counts, row in SUIT_ROWS.items():
        assert suit[_index(counts), 0].tolist() == row, counts


def test_honor_table_known_entries():
    honor = suit_rows(7)
    assert honor.shape == (5**7, HONOR_LEVELS + 1, 12) and honor.dtype == np.uint8
    for counts, row in HONOR_ROWS.items():
        assert honor[_index(counts), 0].tolist() == row, counts


def test_table_level_entries():
    for (counts, lv), row in LEVEL_ROWS.items():
        table = suit_rows(len(counts))
        assert table[_index(counts), lv].tolist() == row, (counts, lv)


def test_hand_rows_match_the_bruteforce():
    """The hand-computed pins are also what the brute force says (no typo in them)."""
    bf = hand_bruteforce
    for rows, seq in ((SUIT_ROWS, True), (HONOR_ROWS, False)):
        for counts, row in rows.items():
            got = [bf.suit_need_positional(counts, seq, k, p, 4) for k in range(6) for p in (0, 1)]
            assert got == row, counts
    for (counts, lv), row in LEVEL_ROWS.items():
        seq = len(counts) == 9
        got = [bf.suit_need_positional(counts, seq, k, p, 4, lv) for k in range(6) for p in (0, 1)]
        assert got == row, (counts, lv)


def test_table_rows_match_the_bruteforce_on_random_counts():
    """Every excess level of sampled rows, against the rank-by-rank search (and the top
    level against the search with no cap)."""
    bf = hand_bruteforce
    rng = np.random.default_rng(31)
    for n_ranks, table in ((9, suit_rows(9)), (7, suit_rows(7))):
        seq = n_ranks == 9
        for _ in range(60):
            counts = tuple(int(x) for x in rng.choice(5, n_ranks, p=(0.3, 0.2, 0.15, 0.15, 0.2)))
            got = table[_index(counts)]
            for lv in range(table.shape[1]):
                want = [
                    bf.suit_need_positional(counts, seq, k, p, 4, lv)
                    for k in range(6)
                    for p in (0, 1)
                ]
                assert got[lv].tolist() == want, (counts, lv)
            top = [bf.suit_need(counts, seq, k, p) for k in range(6) for p in (0, 1)]
            assert got[-1].tolist() == top, counts


def test_table_checksums():
    for n_ranks, want in ((9, SUIT_SHA256), (7, HONOR_SHA256)):
        data = np.ascontiguousarray(suit_rows(n_ranks), dtype=np.uint8).tobytes()
        assert hashlib.sha256(data).hexdigest() == want, f"table of {n_ranks} ranks changed"
