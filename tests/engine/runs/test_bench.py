"""engine.runs.bench: every rate comes per CPU-second and per wall-second, with the machine.

No speed is asserted (a shared machine's speed wanders): the tests check that the
figures are there, positive and consistent with their own times.
"""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from engine.runs import bench
from mjlab.cli import main


def _check_rate(rate, n):
    assert set(rate) == {"per_cpu_s", "per_wall_s", "cpu_s", "wall_s"}
    assert rate["cpu_s"] > 0 and rate["wall_s"] > 0
    assert rate["per_cpu_s"] == pytest.approx(n / rate["cpu_s"])
    assert rate["per_wall_s"] == pytest.approx(n / rate["wall_s"])


def test_measure_counts_cpu_time_not_sleep():
    def work():
        time.sleep(0.05)  # wall time only
        sum(range(200_000))  # CPU time

    rate = bench.measure(work, 10, repeat=2)
    _check_rate(rate, 10)
    assert rate["wall_s"] >= 0.05 and rate["cpu_s"] < rate["wall_s"]


def test_machine_reports_cores_threads_and_load():
    m = bench.machine()
    assert m["usable_cores"] >= 1 and m["cpu_count"] >= m["usable_cores"]
    assert m["numba_threads"] >= 1
    assert m["load_average"] is None or len(m["load_average"]) == 3


def test_bench_hand_quick_has_cpu_and_wall_rates():
    out = bench.bench_hand(quick=True)
    for key, n in (
        ("shanten_batch", out["hands"]),
        ("shanten_batch_1thread", out["hands"]),
        ("ukeire_batch_1thread", out["hands"] // 10),
        ("shanten_single_call", 20_000),
        ("is_complete_single_call", 20_000),
        ("waits_single_call", 4_000),
        ("ukeire_single_call", 1_000),
    ):
        _check_rate(out[key], n)
    if out["mahjong_package"] is not None:
        _check_rate(out["mahjong_package"], 2_000)
        want = out["shanten_batch"]["per_cpu_s"] / out["mahjong_package"]["per_cpu_s"]
        assert out["speedup_vs_mahjong_per_core"] == pytest.approx(want)


def test_bench_simulate_reports_each_policy():
    out = bench.bench_simulate(quick=True, variants=["fuzhou"])
    assert set(out) == {"fuzhou"}
    assert set(out["fuzhou"]) == {"random", "efficiency", "value", "strong"}
    for rate in out["fuzhou"].values():
        assert rate["per_cpu_s"] > 0 and rate["per_wall_s"] > 0
    ratio = bench.strong_over_value(out)["fuzhou"]
    want = out["fuzhou"]["strong"]["per_cpu_s"] / out["fuzhou"]["value"]["per_cpu_s"]
    assert ratio == pytest.approx(want, abs=1e-3)


def test_cli_json_has_the_machine(capsys):
    assert main(["bench", "--quick", "--only", "hand", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["machine"]["usable_cores"] >= 1
    assert "per_cpu_s" in out["hand"]["shanten_batch"]
    assert "load_average_after" in out


def test_the_minimal_loop_deals_draws_and_discards_at_random():
    from engine import rng
    from engine.runs._minimal import MINIMAL_TURNS, minimal_deals

    out = np.zeros(40, np.int64)
    assert minimal_deals(np.int64(5), np.int64(40), out) == 40 * MINIMAL_TURNS == 40 * 70
    again = np.zeros(40, np.int64)
    minimal_deals(np.int64(5), np.int64(40), again)
    assert np.array_equal(out, again)
    other = np.zeros(40, np.int64)
    minimal_deals(np.int64(6), np.int64(40), other)
    assert not np.array_equal(out, other)
    # deal 3 replayed step by step here: the same shuffle, deal and random discards
    state = rng.stream(5, 0, 3, rng.WALL)
    wall = np.arange(136, dtype=np.int64) // 4
    rng.shuffle(state, wall, 136)
    hands = np.zeros((4, 34), np.int64)
    for s in range(4):
        np.add.at(hands[s], wall[13 * s : 13 * s + 13], 1)
    check = 0
    for turn in range(70):
        seat = turn % 4
        hands[seat, wall[52 + turn]] += 1
        tiles = np.repeat(np.arange(34), hands[seat])  # the 14 held, by kind
        kind = int(tiles[rng.below(state, np.int64(14))])
        hands[seat, kind] -= 1
        check += kind * (turn + 1)
    assert hands.sum() == 52 and hands.min() >= 0
    assert out[3] == check


def test_random_over_minimal_is_the_mahjong_random_rate_over_the_minimal_one():
    minimal = {"per_cpu_s": 500_000.0}
    sim = {
        "tuidaohu": {"random": {"per_cpu_s": 80_000.0}, "value": {"per_cpu_s": 20_000.0}},
        "luodisao": {"random": {"per_cpu_s": 90_000.0}},  # the 字牌 family: not comparable
        "zhuji": {"value": {"per_cpu_s": 10_000.0}},  # no random policy measured
    }
    assert bench.random_over_minimal(sim, minimal) == {"tuidaohu": 0.16}


def test_cli_bench_names_the_variants_it_measures(capsys):
    assert main(["bench", "--only", "simulate", "--variants", "nope"]) == 2
    assert "unknown variant 'nope'" in capsys.readouterr().err
    assert main(["bench", "--only", "simulate", "--variants", " , "]) == 2
    assert "--variants" in capsys.readouterr().err
    assert main(["bench", "--only", "hand", "--variants", "fuzhou"]) == 2
    assert "does not go with --only hand" in capsys.readouterr().err


def test_cli_json_gives_the_minimal_loop_beside_the_variants(capsys):
    argv = ["bench", "--quick", "--only", "simulate", "--variants", "fuzhou", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["simulate"]) == {"fuzhou"}
    _check_rate(out["minimal_loop"], 10_000)
    want = out["simulate"]["fuzhou"]["random"]["per_cpu_s"] / out["minimal_loop"]["per_cpu_s"]
    assert out["random_over_minimal"] == {"fuzhou": pytest.approx(want, abs=1e-4)}
