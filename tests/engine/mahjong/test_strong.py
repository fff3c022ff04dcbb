"""The strong policy of the mahjong family: its kernels against twins, its models and files."""

from __future__ import annotations

import itertools
import json
import math

import numba
import numpy as np
import pytest

from engine import simulate, tiles, variants
from engine.errors import UsageError
from engine.hand._kernels import INF, _distance
from engine.hand._tables import kernel_tables
from engine.mahjong import params as P
from engine.mahjong.strong import (
    MAX_FI,
    N_OSUM,
    SSCR,
    WILDS_FREE,
    WILDS_NONE,
    WILDS_PAIR,
    best_discard,
    danger_bases,
    danger_features,
    discard_danger,
    discard_target_dists,
    target_dists,
)
from engine.play.bots import load_params, seat_bots
from engine.play.mahjong.loop import _one_wild_short
from engine.runs.testing import check_variant
from tests.oracles.hand_bruteforce import standard_distance

MAHJONG = ["tuidaohu", "lishui", "zhuji", "fuzhou"]
TAB = kernel_tables()


def _random_hand(rng, n):
    wall = np.repeat(np.arange(34), 4)
    rng.shuffle(wall)
    h = np.zeros(34, np.int64)
    for t in wall[:n]:
        h[t] += 1
    return h


def _triplets_brute(h, w, sets):
    """Fewest tiles (after wilds) to make ``sets`` triplets and a pair of distinct kinds."""
    best = 99
    kinds = range(34)
    for pair in kinds:
        need_pair = max(0, 2 - h[pair])
        costs = sorted(max(0, 3 - h[k]) for k in kinds if k != pair)
        best = min(best, need_pair + sum(costs[:sets]))
    return max(best - w, 0)


@pytest.mark.parametrize("seed", range(4))
def test_target_distances_equal_their_definitions(seed):
    rng = np.random.default_rng(seed)
    out = np.zeros(P.N_TARGET, np.int64)
    for _ in range(150):
        sets = int(rng.choice([4, 3]))
        h = _random_hand(rng, 3 * sets + 1)
        w = int(rng.integers(0, 2))
        if w:
            h[np.flatnonzero(h)[0]] -= 1  # one tile becomes the wild
        melds = 4 - sets
        mask = int(rng.choice([0, 1, 8])) if melds else 0
        trip = int(rng.integers(0, 2)) if melds else 1
        minfo = np.array([mask, trip, melds, 0], np.int64)
        shapes = 3 if sets == 4 else 1
        target_dists(h, w, sets, shapes, TAB, minfo, True, out)
        assert out[P.T_PLAIN] == _distance(h, w, sets, shapes, TAB)
        flush = half = 99
        for t in range(3):
            suit = np.zeros(34, np.int64)
            suit[9 * t : 9 * t + 9] = h[9 * t : 9 * t + 9]
            if mask & ~(1 << t) == 0:
                flush = min(flush, _distance(suit, w, sets, 1, TAB))
            if mask & ~(1 << t) & 7 == 0:
                suit[27:] = h[27:]
                half = min(half, _distance(suit, w, sets, 1, TAB))
        assert out[P.T_FLUSH] == flush
        assert out[P.T_HALF] == half
        if trip:
            assert out[P.T_TRIPLETS] == _triplets_brute(h, w, sets)
        else:
            assert out[P.T_TRIPLETS] == 99
        if sets == 4 and melds == 0:
            pairs = int((h // 2).sum())
            singles = int((h % 2).sum())
            need = max(7 - pairs, 0)
            assert out[P.T_PAIRS] == max(need + max(need - singles, 0) - w, 0)


@numba.njit(cache=False)
def _features(osum, ks, unseen, nws, lbs, out, counts):
    fi = np.zeros(MAX_FI, np.int64)
    r = 0
    for k in ks:
        for u in unseen:
            for nw in nws:
                for lb in lbs:
                    n = danger_features(osum, k, u, nw, lb, fi)
                    counts[r] = n
                    for i in range(n):
                        out[r, i] = fi[i]
                    r += 1


@pytest.mark.parametrize("melds,discards", [(0, 0), (2, 7), (4, 20)])
def test_danger_features_are_one_hot_groups_inside_the_layout(melds, discards):
    osum = np.zeros(N_OSUM, np.int64)
    osum[0] = melds
    osum[1] = discards
    osum[2] = (1 << 3) | (1 << 30) | (1 << 14)  # he discarded 4m, 4z (北), 6p
    osum[3] = 2 if melds else 0
    ks = np.arange(34)
    unseen = np.arange(4)
    nws = np.arange(3)
    lbs = np.arange(5)
    n = 34 * 4 * 3 * 5
    out = np.full((n, MAX_FI), -1, np.int64)
    counts = np.zeros(n, np.int64)
    _features(osum, ks, unseen, nws, lbs, out, counts)
    groups = [range(1, 6), range(6, 12), range(12, 18), range(20, 24), range(26, 29), range(29, 34)]
    groups += [range(36, 61), range(61, 79)]
    for r in range(n):
        idx = out[r, : counts[r]]
        assert (idx >= 0).all() and (idx < P.N_FEATURES).all()
        assert len(set(idx.tolist())) == len(idx)
        assert idx[0] == 0
        for g in groups:
            assert sum(i in g for i in idx) == 1
    # the kind he discarded carries feature 18; 7m (4m + 3) is suji of a discard
    row = {
        (k, u, nw, lb): i
        for i, (k, u, nw, lb) in enumerate(itertools.product(ks, unseen, nws, lbs))
    }
    assert 18 in out[row[(3, 2, 0, 0)]]
    assert 18 not in out[row[(4, 2, 0, 0)]]
    assert 19 in out[row[(6, 2, 0, 0)]]


def _random_osums(rng, n_opp):
    osums = np.zeros((4, N_OSUM), np.int64)
    for j in range(n_opp):
        disc = rng.choice(34, int(rng.integers(0, 12)), replace=False)
        osums[j, 0] = rng.integers(0, 5)
        osums[j, 1] = len(disc)
        osums[j, 2] = sum(1 << int(x) for x in disc)
        osums[j, 3] = rng.integers(0, 16)
        osums[j, 4] = rng.integers(0, 2)
        osums[j, 5] = rng.integers(0, 2)
        osums[j, 8] = sum(1 << int(x) for x in disc[-3:])
        osums[j, 9] = sum(1 << int(x) for x in disc[:6])
    return osums


@numba.njit(cache=False)
def _listed(osum, k, u, nw, lb):
    fi = np.zeros(MAX_FI, np.int64)
    n = danger_features(osum, k, u, nw, lb, fi)
    return fi[:n].copy()


def _sigmoid(z):
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


@pytest.mark.parametrize("seed", range(3))
def test_the_danger_of_a_discard_is_its_features_weights_summed_in_order(seed):
    """discard_danger sums each logit's weights as it lists the features: equal, to the
    last bit, to the sums over danger_features' list in its order (the fit's model)."""
    rng = np.random.default_rng(seed)
    bot = _bot("lishui").copy()
    bot[P.M_DANGER : P.M_DANGER + P.N_FEATURES] = rng.normal(0, 1.5, P.N_FEATURES)
    bot[P.M_KONGDANGER : P.M_KONGDANGER + P.N_FEATURES] = rng.normal(0, 1.5, P.N_FEATURES)
    bot[P.M_LOSS : P.M_LOSS + 4] = rng.uniform(1, 10, 4)
    bot[P.S_FEED_KONG] = 3.0
    fi = np.zeros(MAX_FI, np.int64)
    zb = np.zeros(8)
    for _ in range(60):
        n_opp = int(rng.integers(1, 4))
        osums = _random_osums(rng, n_opp)
        nw, lb, dealer = int(rng.integers(0, 3)), int(rng.integers(0, 5)), int(rng.integers(0, 2))
        danger_bases(bot, osums, n_opp, nw, lb, fi, zb)
        for k in rng.choice(34, 6, replace=False):
            u = int(rng.integers(0, 4))
            for can_win, can_kong in itertools.product((False, True), repeat=2):
                got = discard_danger(
                    bot, osums, n_opp, int(k), u, nw, zb, can_win, can_kong, dealer, fi
                )
                keep, loss, kong = 1.0, 0.0, 0.0
                for j in range(n_opp):
                    listed = _listed(osums[j], int(k), u, nw, lb)
                    # the tile-free features come first; the kind's start at its class
                    nb = int(np.flatnonzero((listed >= 12) & (listed < 18))[0])
                    za, zk = 0.0, 0.0
                    for f in listed[:nb]:
                        za += bot[P.M_DANGER + f]
                        zk += bot[P.M_KONGDANGER + f]
                    assert zb[j] == za and zb[4 + j] == zk
                    for f in listed[nb:]:
                        za += bot[P.M_DANGER + f]
                        zk += bot[P.M_KONGDANGER + f]
                    if can_win:
                        p = _sigmoid(za)
                        keep *= 1.0 - p
                        loss += p * bot[P.M_LOSS + dealer * 2 + osums[j, 4]]
                    if can_kong and u >= 3:
                        kong += _sigmoid(zk) * bot[P.S_FEED_KONG]
                assert got == (1.0 - keep, loss, kong)


def _bot(variant="lishui", **params):
    v = variants.get(variant)
    _, rows = seat_bots(v, v.resolve({}), ("strong",) * 4, {0: params})
    return rows[0]


def _choose(hand, bot, danger=False, osums=None, tb=5):
    h = tiles.parse(hand).astype(np.int64)
    sscr = np.zeros(SSCR, np.int64)
    fsc = np.zeros(64)
    if osums is None:
        osums = np.zeros((4, N_OSUM), np.int64)
    minfo = np.array([0, 1, 0, 0], np.int64)
    k, ev = best_discard(
        h, 0, 4, 1, TAB, bot, 4 - h, minfo, False, tb, 0, danger, osums, 3, 0, 2, True, False,
        np.zeros(0, np.uint64), sscr, fsc,
    )  # fmt: skip
    return tiles.kind_name(k), ev, fsc[:34].copy()


@pytest.mark.parametrize("variant", MAHJONG)
def test_a_discard_skipped_for_its_bound_could_not_have_been_chosen(variant):
    """best_discard skips the danger of a discard whose value bound, max(value, 0), is
    below the best so far. Against the same bot with the bound off (alpha_kong a
    negative 1e-300, which moves no value by a bit here), random positions give the same
    choice and value, the same values where computed, and a true value below the best
    where skipped."""
    rng = np.random.default_rng(17)
    bot = _bot(variant).copy()
    bot[P.S_ALPHA_KONG] = 0.0
    off = bot.copy()
    off[P.S_ALPHA_KONG] = -1e-300
    skipped = 0
    for _ in range(300):
        h = _random_hand(rng, 14)
        unseen = np.maximum(4 - h - rng.integers(0, 2, 34), 0)
        osums = _random_osums(rng, 3)
        tb = int(rng.integers(0, P.N_T))
        can_win, can_kong = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
        got = []
        for b in (bot, off):
            sscr = np.zeros(SSCR, np.int64)
            fsc = np.zeros(64)
            minfo = np.array([0, 0, 0, 0], np.int64)
            bs = np.array([5, 7, 11, 13], np.uint64)
            k, ev = best_discard(
                h, 0, 4, 1, TAB, b, unseen, minfo, WILDS_NONE, tb, 0, True, osums, 3, 0, 2,
                can_win, can_kong, bs, sscr, fsc,
            )  # fmt: skip
            got.append((k, ev, fsc[:34].copy(), bs.copy()))
        (k, ev, vals, bs), (k_off, ev_off, vals_off, bs_off) = got
        assert (k, ev) == (k_off, ev_off) and (bs == bs_off).all()
        cut = np.isneginf(vals) & (h > 0)
        skipped += int(cut.sum())
        assert (vals[~cut] == vals_off[~cut]).all()
        assert (vals_off[cut] < ev).all()
    assert skipped > 300  # the bound does skip


def test_strong_keeps_a_waiting_hand_and_takes_the_widest_wait():
    # 2345m: discarding 9p leaves the 2-5m wait (two sides); the 1z discard leaves a lone
    # 9p wait: with no danger the strong bot keeps the wider wait
    kind, _, _ = _choose("2345m123p456s789s1z", _bot(mult=[1.0] + [0.0] * (P.N_TARGET - 1)))
    assert kind == "1z"
    kind, _, _ = _choose("2345m123p456s78s9p1z", _bot(mult=[1.0] + [0.0] * (P.N_TARGET - 1)))
    assert kind in ("9p", "1z")


def test_strong_folds_from_a_far_hand_to_a_safe_tile():
    """With the danger model saying an opponent waits on dragons, a far hand throws the
    tile he discarded (genbutsu) rather than the dragon its hand has no use for."""
    weights = np.full(P.N_FEATURES, 0.0)
    weights[0] = -4.0
    weights[13] = 6.0  # dragons very dangerous
    weights[18] = -8.0  # a tile he discarded is safe
    bot = _bot(
        danger=weights.tolist(), alpha=3.0, mult=[1.0] + [0.0] * (P.N_TARGET - 1), loss=[4.0] * 4
    )
    osums = np.zeros((4, N_OSUM), np.int64)
    osums[:3, 0] = 2  # two melds each
    osums[:3, 1] = 12
    osums[:3, 2] = 1 << tiles.kind("9m")
    hand = "19m258p369s12355z"  # far from complete; 9m discarded by all
    kind_safe, _, ev = _choose(hand, bot, danger=True, osums=osums)
    kind_push, _, _ = _choose(hand, bot, danger=False, osums=osums)
    assert kind_push != "9m"  # without danger 9m is a useful-ish tile kept or a tie
    assert kind_safe in ("9m", "1m")
    assert ev[tiles.kind("5z")] < ev[tiles.kind("9m")]


@pytest.mark.parametrize("variant", MAHJONG)
def test_strong_plays_legal_deals_among_the_other_policies(variant):
    assert check_variant(variant, matches=4, seed=5, policies=["strong,value,efficiency,random"])


def test_strong_records_do_not_depend_on_workers():
    a = simulate("zhuji", 700, seed=3, policies="strong,value,efficiency,strong", workers=1,
                 progress=False)  # fmt: skip
    b = simulate("zhuji", 700, seed=3, policies="strong,value,efficiency,strong", workers=2,
                 progress=False, chunk_matches=7)  # fmt: skip
    assert (a.rec == b.rec).all()


def test_a_seat_override_changes_only_that_seat_and_the_identity():
    base = simulate("lishui", 400, seed=2, policies="strong", progress=False)
    tuned = simulate("lishui", 400, seed=2, policies="strong", progress=False,
                     bot_params={1: {"alpha": 0.0}})  # fmt: skip
    assert base.metadata()["bots_id"] != tuned.metadata()["bots_id"]
    assert (base.rec != tuned.rec).any()
    with pytest.raises(UsageError, match="no parameter 'nosuch'"):
        simulate("lishui", 16, policies="strong", bot_params={0: {"nosuch": 1}}, progress=False)
    with pytest.raises(UsageError, match="seats are 0..3"):
        simulate("lishui", 16, policies="strong", bot_params={5: {"alpha": 1}}, progress=False)


def test_parameter_files_for_another_variant_or_version_are_refused(tmp_path):
    v = variants.get("lishui")
    good = json.loads((load_params.__globals__["BOTDATA"] / "lishui" / "strong.json").read_text())
    other = dict(good, bot={**good["bot"], "variant": "zhuji"})
    path = tmp_path / "p.json"
    path.write_text(json.dumps(other))
    with pytest.raises(UsageError, match="for zhuji, not lishui"):
        load_params(path, v, "strong")
    old = dict(good, bot={**good["bot"], "version": 0})
    path.write_text(json.dumps(old))
    with pytest.raises(UsageError, match="version 0"):
        load_params(path, v, "strong")
    path.write_text("[1, 2]")
    with pytest.raises(UsageError, match="not an mjlab bot parameter file"):
        load_params(path, v, "strong")
    path.write_text("{not json")
    with pytest.raises(UsageError, match="not readable JSON"):
        load_params(path, v, "strong")


@pytest.mark.parametrize("variant", MAHJONG)
def test_strong_replay_golden(variant, capsys, regen):
    """A strong table's deal, pinned line by line (``pytest --regen`` rewrites it)."""
    from pathlib import Path

    from mjlab.cli import main

    code = main(["replay", variant, "--seed", "7", "--match", "0", "--policy", "strong"])
    out = capsys.readouterr().out
    assert code == 0 and "policies=strong" in out
    path = Path(__file__).parents[2] / "golden" / f"{variant}-strong.txt"
    if regen:
        path.write_text(out)
    assert path.exists(), f"{path.name} is missing: pytest --regen writes it"
    assert out.splitlines() == path.read_text().splitlines()


@pytest.mark.parametrize(
    "variant,n_small",
    [(v, 800) for v in MAHJONG]
    + [pytest.param(v, 6400, marks=pytest.mark.slow, id=f"{v}-6400") for v in MAHJONG],
)
def test_a_small_refit_reproduces_the_committed_model_within_its_noise(variant, n_small):
    """``mjlab fit`` at small N, with the committed run's seed, rules and policy, gives the
    committed rates and plain-win values within 4 standard errors of the difference (800
    deals in the default run, whose time is budgeted; 6,400 in the slow one)."""
    from engine.play.bots import committed
    from engine.runs.fit import fit

    v = variants.get(variant)
    data = committed(v, "strong")
    ident, model = data["fit"], data["model"]
    assert ident["command"].startswith(f"mjlab fit {variant} ")
    small = fit(variant, deals=n_small, seed=ident["seed"], rules=ident["rules"],
                policy=ident["policy"])  # fmt: skip
    s = small["identity"], small["summary"]
    assert s[0]["rules"] == ident["rules"] and s[0]["deals"] == n_small
    shrink = np.sqrt(1.0 + n_small / ident["deals"])  # both sides are noisy
    for key in ("win_rate", "danger_rate"):
        p, q = ident[key], s[1][key]
        n = n_small if key == "win_rate" else s[1]["danger_positions"]
        se = np.sqrt(max(q * (1 - q), 1e-4) / n) * shrink
        # danger positions of one deal are correlated: allow a design effect of 4
        se *= 2.0 if key == "danger_rate" else 1.0
        assert abs(p - q) <= 4 * se, (key, p, q, se)
    vs = np.asarray(small["model"]["value"]).reshape(P.N_TARGET, 2)
    vc = np.asarray(model["value"]).reshape(P.N_TARGET, 2)
    for dl in (0, 1):
        n, sd = s[1]["plain_wins"][dl], s[1]["plain_value_sd"][dl]
        if n < 30:
            continue
        se = sd / np.sqrt(n) * shrink
        assert abs(vs[P.T_PLAIN, dl] - vc[P.T_PLAIN, dl]) <= 4 * se, (dl, vs, vc, se)


def test_a_fit_is_a_function_of_its_seed():
    from engine.runs.fit import fit

    a = fit("lishui", deals=320, seed=4)
    b = fit("lishui", deals=320, seed=4)
    c = fit("lishui", deals=320, seed=5)
    assert a["model"] == b["model"]
    assert a["model"]["value"] != c["model"]["value"]


@numba.njit(cache=False)
def _compare_target_dists(hands, wilds, sets, shapes, minfo, wildgame, fast, slow):
    for r in range(hands.shape[0]):
        h = hands[r].copy()
        held = np.int64(0)
        for k in range(34):
            held |= np.int64(h[k] > 0) << k
        discard_target_dists(h, wilds[r], sets, shapes, TAB, minfo[r], wildgame, held, fast[r])
        for k in range(34):
            if h[k] == 0:
                continue
            h[k] -= 1
            target_dists(h, wilds[r], sets, shapes, TAB, minfo[r], wildgame, slow[r, k])
            h[k] += 1


@pytest.mark.parametrize("wildgame", [WILDS_PAIR, WILDS_FREE])
def test_the_wild_target_is_its_definition(wildgame, twin_n):
    """The wild target's distance of a ``3*sets+1``-tile hand against the brute-force
    sets distance (tests/oracles): 金雀 leaves two wilds as the pair, 游金 one wild free
    (sets complete with the rest of the wilds, then any tile); a 游金 distance of 1 is
    exactly the shape the game loop starts 游金 from (loop._one_wild_short)."""
    n = twin_n(400)
    rng = np.random.default_rng(61 + wildgame)
    keep = 2 if wildgame == WILDS_PAIR else 1
    out = np.zeros(P.N_TARGET, np.int64)
    youing = 0
    for r in range(n):
        sets = int(rng.choice([4, 4, 3, 2]))
        w = int(rng.choice([0, 1, 1, 2, 3]))
        if r % 3 == 0:  # the sets alone, the wilds but one filling gaps: the 游金 shape
            h = _near_complete(rng, sets, pair=False, swaps=0)
            h[rng.choice(np.flatnonzero(h < 4))] += 1 - min(w, 1)
            for _ in range(w - 1):
                h[rng.choice(np.flatnonzero(h))] -= 1
        else:
            h = _near_complete(rng, sets)
            for _ in range(1 + w):  # the discard, then the tiles that are wilds
                h[rng.choice(np.flatnonzero(h))] -= 1
        minfo = np.array([0, 1, 4 - sets, 0], np.int64)
        target_dists(h, w, sets, 1, TAB, minfo, wildgame, out)
        filled = max(w - keep, 0)
        missing = standard_distance(h, sets, cap=4, excess=filled, pairs=0)
        want = max(missing - filled, 0) if w >= keep else missing + keep - w
        if wildgame == WILDS_FREE:
            want += 1  # then any tile (with no wild, the wild first: missing + 1 + 1)
        assert out[P.T_WILDPAIR] == want, (tiles.format(h), w, sets)
        if wildgame == WILDS_FREE:
            assert (out[P.T_WILDPAIR] == 1) == _one_wild_short(h, w, sets, TAB, 1)
            youing += out[P.T_WILDPAIR] == 1
    assert wildgame != WILDS_FREE or youing > n // 20  # the shape itself is among them
    h = _near_complete(rng, 4)
    h[rng.choice(np.flatnonzero(h))] -= 1  # thirteen tiles, none wild
    target_dists(h, 0, 4, 1, TAB, np.zeros(4, np.int64), WILDS_NONE, out)
    assert out[P.T_WILDPAIR] == INF  # no wilds in the deal: closed


def _near_complete(rng, sets, pair=True, swaps=2):
    """Sets and a pair of ``3*sets+2`` tiles, ``swaps`` of them swapped for random kinds
    (``pair=False``: the sets alone)."""
    while True:
        h = np.zeros(34, np.int64)
        h[rng.integers(34)] += 2 if pair else 0
        for _ in range(sets):
            k = int(rng.integers(34))
            if k < 27 and k % 9 < 7 and rng.random() < 0.6:
                h[k : k + 3] += 1
            else:
                h[k] += 3
        if h.max() <= 4:
            break
    for _ in range(swaps):
        h[rng.choice(np.flatnonzero(h))] -= 1
        h[rng.choice(np.flatnonzero(h < 4))] += 1
    return h


@pytest.mark.parametrize("shapes", [1, 3, 7, 15, 9])
@pytest.mark.parametrize("sets", [4, 5, 3, 2])
@pytest.mark.parametrize("wildgame", [WILDS_PAIR, WILDS_NONE, WILDS_FREE])
def test_discard_target_dists_equal_each_remaining_hand_alone(shapes, sets, wildgame, twin_n):
    n = twin_n(1200)
    rng = np.random.default_rng(sets * 100 + shapes + 7 * wildgame)
    wilds = rng.choice([0, 0, 1, 2, 3], size=n).astype(np.int64)
    hands = np.zeros((n, 34), np.int64)
    for r in range(n):
        h = _random_hand(rng, 3 * sets + 2) if r % 2 else _near_complete(rng, sets)
        for _ in range(wilds[r]):  # tiles that are wilds leave the counts
            h[rng.choice(np.flatnonzero(h))] -= 1
        hands[r] = h
    minfo = np.stack(
        [
            rng.choice([0, 1, 2, 4, 8, 3, 9], size=n),
            rng.integers(0, 2, size=n),
            rng.choice([0, 0, 1, 2], size=n),
            np.zeros(n, np.int64),
        ],
        axis=1,
    ).astype(np.int64)
    fast = np.zeros((n, 34 * P.N_TARGET), np.int64)
    slow = np.zeros((n, 34, P.N_TARGET), np.int64)
    _compare_target_dists(hands, wilds, sets, shapes, minfo, wildgame, fast, slow)
    fast = fast.reshape(n, 34, P.N_TARGET)
    held = hands > 0
    bad = np.argwhere((fast != slow) & held[:, :, None])
    assert bad.size == 0, (
        f"first mismatch: {tiles.format(hands[bad[0][0]])} w {wilds[bad[0][0]]} minfo "
        f"{minfo[bad[0][0]]}, discard {bad[0][1]}, target {bad[0][2]}: "
        f"{fast[tuple(bad[0])]} vs {slow[tuple(bad[0])]}"
    )
    assert held.sum() > 4 * n  # several discards a hand


def test_under_youjin_strong_keeps_the_gold_free_for_a_youjin():
    """福州 under ``youjin=minnan`` (issue 44: value beat strong there by 0.95 points a
    deal): 56678m 222456p 66778s and a gold. Both 2p and 5m leave a waiting hand; 5m
    also leaves 678m 222p 456p 678s with 6m, 67s and the gold, one tile (5s, 8s) from
    complete sets with the gold free, which 游s (×4 from every seat, then any draw
    wins). With the refit it plays there (wild target = the 游 shape, its wins 单游 /
    双游 / 三游), strong throws 5m; with the default rules' model, which knows only
    金雀, it throws 2p."""
    from engine.runs.adapt import seat_overrides

    v = variants.get("fuzhou")
    h = tiles.parse("56678m222456p66778s").astype(np.int64)
    picks = {}
    for youjin, wildgame in (("none", WILDS_PAIR), ("minnan", WILDS_FREE)):
        rules = v.resolve({"youjin": youjin})
        _, rows = seat_bots(v, rules, ("strong",) * 4, seat_overrides(v, rules, ["strong"] * 4))
        k, _ = best_discard(
            h, 1, 5, 1, TAB, rows[0], 4 - h, np.zeros(4, np.int64), wildgame, 6, 0, False,
            np.zeros((4, N_OSUM), np.int64), 3, 1, 2, True, False, np.zeros(0, np.uint64),
            np.zeros(SSCR, np.int64), np.zeros(64),
        )  # fmt: skip
        out = np.zeros(P.N_TARGET, np.int64)
        h[k] -= 1
        target_dists(h, 1, 5, 1, TAB, np.zeros(4, np.int64), WILDS_FREE, out)
        h[k] += 1
        picks[youjin] = (tiles.kind_name(k), int(out[P.T_PLAIN]), int(out[P.T_WILDPAIR]))
    assert picks == {"none": ("2p", 1, 3), "minnan": ("5m", 1, 2)}


@pytest.mark.parametrize(
    ("youjin", "wild0", "want"),
    [("minnan", 5, WILDS_FREE), ("none", 5, WILDS_PAIR), ("minnan", -1, WILDS_NONE)],
)
def test_the_game_loop_hands_strong_the_wild_target_of_its_rules(youjin, wild0, want):
    """What the loop's view tells strong's kernels the wild target measures: the 游 shape
    under 游金 with golds in play, 金雀 without 游金, nothing in a deal without wilds."""
    from engine.mahjong import layout as L
    from engine.play.mahjong import loop

    v = variants.get("fuzhou")
    rules = v.pack(v.resolve({"youjin": youjin}))
    ctx = np.zeros(L.N_CTX, np.int64)
    ctx[L.X_WILD0] = wild0
    ctx[L.X_WILD1] = -1
    ws = loop.workspace(144)
    view = np.zeros(10, np.int64)
    loop._strong_view(rules, ctx, 0, ws[5], ws[6], ws[7], ws[8], ws[10], 40, 4, ws[17], view)
    assert view[7] == want
