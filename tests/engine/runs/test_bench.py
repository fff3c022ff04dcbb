"""engine.runs.bench: every rate comes per CPU-second and per wall-second, with the machine.

No speed is asserted (a shared machine's speed wanders): the tests check that the
figures are there, positive and consistent with their own times.
"""

from __future__ import annotations

import json
import time

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
