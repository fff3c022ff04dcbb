"""The game engine: conformance over the registry, determinism, records, streams."""

import numpy as np
import pandas as pd
import pytest

from engine import rng, variants
from engine.play.family import MAHJONG, ZIPAI, family_of
from engine.runs.run import simulate
from engine.runs.testing import check_variant, settle_mismatch
from tests.oracles import hand_bruteforce as bf
from tests.oracles import settlement as TW
from tests.oracles import zipai_bruteforce as zbf


def brute_complete(counts, wilds, sets):
    return (
        bf.hand_distance(
            counts, wilds, sets, ("standard", "seven_pairs", "thirteen_orphans", "buda")
        )
        == 0
    )


ORACLES = {MAHJONG: brute_complete, ZIPAI: zbf.evaluate}
"""Each family's independent check of a winning hand (the brute-force twins)."""


def test_registry_matches_module_list():
    assert variants.names() == sorted(variants.MODULES)


def test_every_variant_has_a_golden_replay():
    """STYLE §5: each registered variant pins `mjlab replay` in tests/golden/<name>.txt."""
    from pathlib import Path

    golden = Path(__file__).parents[1] / "golden"
    missing = [n for n in variants.names() if not (golden / f"{n}.txt").exists()]
    assert not missing, f"no golden replay for {missing}; run its replay test with --regen"


@pytest.mark.parametrize("name", variants.names())
def test_conformance_every_policy(name):
    """Every tile accounted for, zero-sum, consistent winners, complete wins (brute force:
    the mahjong or the 字牌 twin), and every deal's value and payments paid again from
    its record row by the variant's settlement (``settle_mismatch``)."""
    v = variants.get(name)
    complete = ORACLES[family_of(v)]
    checked = check_variant(name, matches=12, seed=3, complete=complete)
    assert checked == 12 * 8 * len(v.policies)


def test_conformance_tuidaohu_options():
    for rules in (
        {"ghost": "shuang", "dianpao": True, "four_ghost_win": True, "no_ghost_double": True},
        {"ghost": "baiban", "horses": "winner:4", "huangzhuang_huanggang": True},
        {"ghost": "fan", "horses": "8", "horse_map": "mil"},
    ):
        assert (
            check_variant("tuidaohu", matches=8, seed=11, rules=rules, complete=brute_complete) > 0
        )


@pytest.mark.parametrize("name", variants.names())
def test_flags_reproduce_the_value_paid(name):
    """Every variant's record carries every input of its payment: its settlement paid
    again from the row gives the record (check_variant runs this on every deal), and so
    does the independent numpy twin of that settlement (tests/oracles/settlement.py); a
    record whose value, payments or flags were altered is caught at its row by both."""
    v = variants.get(name)
    rules = v.resolve({})
    players = v.n_players(rules)
    df = simulate(name, 2000, seed=5, progress=False).to_pandas()
    for mismatch in (settle_mismatch, TW.twin_mismatch):
        assert mismatch(v, rules, df) is None
        won = (df.winner >= 0).to_numpy()
        i = int(np.flatnonzero(won & (df.win_type != "kong_draw").to_numpy())[0])
        bad = df.copy()
        bad.loc[i, "value"] += 1
        assert mismatch(v, rules, bad)[0] == i
        bad = df.copy()
        w = int(df.winner[i])
        bad.loc[i, f"delta_{w}"] += 1
        bad.loc[i, f"delta_{(w + 1) % players}"] -= 1
        assert mismatch(v, rules, bad)[0] == i
        pats = v.pattern_columns()
        flagged = df[won & df[pats].any(axis=1).to_numpy()]
        j = int(flagged.value.idxmax())
        bad = df.copy()
        bad.loc[j, pats] = False
        assert mismatch(v, rules, bad)[0] == j


@pytest.mark.parametrize(
    "name, seed, match, deal",
    [("tuidaohu", 5, 1, 3), ("fuzhou", 3, 1, 5), ("fuzhou", 16, 14, 0), ("zhuji", 7, 0, 0)],
)
def test_a_replayed_deal_has_the_simulated_record(name, seed, match, deal):
    """The event log (robbed 补杠, unreplaced flowers, opening wins) is written beside the
    records and changes none of them: a replay's row equals the simulation's."""
    from engine.play.mahjong.replay import replay_events

    row = replay_events(name, seed, match, deal)[1]
    df = simulate(name, 16 * match + deal + 1, seed=seed, progress=False).to_pandas()
    sim = df[(df["match"] == match) & (df["deal"] == deal)].iloc[0]
    assert row.to_dict() == sim.to_dict()


def test_same_seed_same_records_whatever_workers_and_chunks():
    a = simulate("tuidaohu", 700, seed=9, policies="efficiency", workers=1, progress=False)
    b = simulate(
        "tuidaohu", 700, seed=9, policies="efficiency", workers=2, progress=False, chunk_matches=3
    )
    c = simulate(
        "tuidaohu",
        700,
        seed=9,
        policies="efficiency",
        workers=2,
        progress=False,
        chunk_matches=1000,
    )
    assert np.array_equal(a.rec, b.rec) and np.array_equal(a.rec, c.rec)
    d = simulate("tuidaohu", 700, seed=10, policies="efficiency", progress=False)
    assert not np.array_equal(a.rec, d.rec)


def test_walls_do_not_depend_on_policies():
    """The wall stream is separate from the bots': the first draws are identical."""
    from engine.play.mahjong.replay import replay_events

    ev_a = replay_events("tuidaohu", 5, 0, 0, policies="random")[0]
    ev_b = replay_events("tuidaohu", 5, 0, 0, policies="efficiency")[0]
    tiles_a = ev_a[ev_a[:, 0] == 2]  # E_TILE rows: the dealt hands
    tiles_b = ev_b[ev_b[:, 0] == 2]
    assert np.array_equal(tiles_a, tiles_b)


def test_record_schema_and_zero_sum():
    run = simulate("tuidaohu", 400, seed=1, policies="value", progress=False)
    df = run.to_pandas()
    assert len(df) == 400
    for col in (
        "run_seed",
        "match",
        "deal",
        "variant",
        "rules_id",
        "dealer",
        "dealer_streak",
        "winner",
        "win_type",
        "discarder",
        "turns",
        "wilds_in_hand",
        "value",
        "delta_0",
        "delta_3",
        "horses",
        "horse_hits",
        "kongs",
    ):
        assert col in df.columns
    assert df[[f"delta_{s}" for s in range(4)]].sum(axis=1).eq(0).all()
    assert set(df["win_type"].astype(str)) <= {"self_draw", "kong_draw", "rob_kong", "none"}
    assert (df["deal"] < 16).all() and df["match"].max() == 24
    # dealer rotation: the winner deals next, a draw passes the deal to the next seat
    nxt = df.shift(-1)
    same = nxt["match"] == df["match"]
    won = same & (df["winner"] >= 0)
    assert (nxt.loc[won, "dealer"] == df.loc[won, "winner"]).all()
    drawn = same & (df["winner"] < 0)
    assert (nxt.loc[drawn, "dealer"] == (df.loc[drawn, "dealer"] + 1) % 4).all()
    kept = won & (df["winner"] == df["dealer"])
    assert (nxt.loc[kept, "dealer_streak"] == df.loc[kept, "dealer_streak"] + 1).all()
    # horses: min(4, 1 + streak)
    assert (df["horses"] == np.minimum(4, 1 + df["dealer_streak"])).all()


def test_parquet_round_trip(tmp_path):
    import pyarrow.parquet as pq

    from engine.play.records import read_metadata

    run = simulate("tuidaohu", 64, seed=2, progress=False)
    path = tmp_path / "r.parquet"
    run.to_parquet(path)
    meta = read_metadata(path)
    assert meta["variant"] == "tuidaohu" and meta["seed"] == 2
    assert meta["rules"]["ghost"] == "none" and meta["rules_id"] == run.rules_id
    back = pq.read_table(path).to_pandas()
    pd.testing.assert_frame_equal(back, run.to_pandas(), check_categorical=False)
    assert not list(tmp_path.glob("*.tmp"))


def test_rng_streams_are_keyed_and_uniform():
    a = rng.stream(7, 3, 2, rng.WALL)
    b = rng.stream(7, 3, 2, rng.WALL)
    assert rng.next_u64(a) == rng.next_u64(b)
    c = rng.stream(7, 3, 2, rng.BOTS)
    d = rng.stream(7, 3, 2, rng.WALL)
    assert rng.next_u64(c) != rng.next_u64(d)
    s = rng.stream(1, 0, 0, rng.WALL)
    n = 60_000
    draws = np.array([rng.below(s, 6) for _ in range(n)])
    counts = np.bincount(draws, minlength=6)
    # chi-square with 5 dof: P(stat > 25) < 2e-4
    stat = ((counts - n / 6) ** 2 / (n / 6)).sum()
    assert stat < 25


def _state_drawing(x: int) -> np.ndarray:
    """A xoshiro256** state whose next output is ``x`` (the output is ``rotl(s1 * 5, 7) * 9``
    of word 1 alone, and 5 and 9 are invertible modulo 2**64).
    """
    mask = (1 << 64) - 1
    y = x * pow(9, -1, 1 << 64) & mask
    y = ((y >> 7) | (y << 57)) & mask  # rotr 7
    s1 = y * pow(5, -1, 1 << 64) & mask
    return np.array([0x1234, s1, 0x5678, 0x9ABC], np.uint64)


@pytest.mark.parametrize("n", [1, 2, 3, 6, 14, 136, 1000, 2**32 + 7, 2**62 + 1, 2**63 - 1])
def test_below_keeps_and_rejects_exactly_the_draws_of_its_rejection_limit(n):
    # the reference: reject at or above 2**64 - 1 - (2**64 - 1) % n, else the remainder
    top = (1 << 64) - 1
    limit = top - top % n
    for x in {0, 1, n - 1, top - n - 1, top - n, top - n + 1, limit - 1, limit, top - 1, top}:
        if not 0 <= x <= top:
            continue
        state = _state_drawing(x)
        probe = state.copy()
        assert int(rng.next_u64(probe)) == x
        got = rng.below(state, n)
        if x < limit:
            assert got == x % n, (n, x)
            assert np.array_equal(state, probe)  # one draw taken
        else:  # rejected: the next draw decides
            again = rng.next_u64(probe.copy())
            assert got == int(again) % n or int(again) >= limit, (n, x)
            assert not np.array_equal(state, probe)


def test_bad_inputs_raise_usage_errors():
    from engine.errors import UsageError

    with pytest.raises(UsageError, match="unknown variant"):
        simulate("nope", 10)
    with pytest.raises(UsageError, match="unknown rule option 'ghosts'"):
        simulate("tuidaohu", 10, rules={"ghosts": "fan"})
    with pytest.raises(UsageError, match="allowed values: none, baiban, fan, shuang"):
        simulate("tuidaohu", 10, rules={"ghost": "two"})
    with pytest.raises(UsageError, match="policy"):
        simulate("tuidaohu", 10, policies="genius")
    with pytest.raises(UsageError, match="deals"):
        simulate("tuidaohu", 0)
