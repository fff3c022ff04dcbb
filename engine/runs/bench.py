"""``mjlab bench``: measured speed of hand evaluation and simulation.

Every figure is given twice: per second of CPU time (``time.process_time`` around the
timed work, the CPU of every thread of the process) and per second of wall time. On a
shared machine the wall rate wanders with the load while the CPU rate stays close to
the engine's own speed, so compare CPU rates, and compare them only within one run
(or alternate runs of two checkouts): the machine's speed itself varies. The run also
reports the load average before and after and the cores it could use. Ratios to the
``mahjong`` package are per core: both sides' CPU-second rates. Each figure is the best
of a few repeats (the repeat with the highest CPU rate). Nothing here asserts a speed:
the numbers are reported (``--json``) and quoted in notes.
"""

from __future__ import annotations

import os
import time

import numba
import numpy as np

from engine import hand

__all__ = [
    "bench_hand",
    "bench_minimal",
    "bench_simulate",
    "machine",
    "random_hands",
    "measure",
    "random_over_minimal",
    "strong_over_value",
]


def random_hands(n: int, size: int, seed: int = 0, tiles: int = 136) -> np.ndarray:
    """``n`` random hands of ``size`` tiles dealt from a full set, counts ``(n, 34)`` uint8."""
    rng = np.random.default_rng(seed)
    kinds = np.arange(tiles) // 4
    out = np.zeros((n, 34), np.uint8)
    batch = 100_000
    for lo in range(0, n, batch):
        hi = min(n, lo + batch)
        picks = np.argsort(rng.random((hi - lo, tiles)), axis=1)[:, :size]
        rows = np.repeat(np.arange(hi - lo), size)
        np.add.at(out[lo:hi], (rows, kinds[picks].ravel()), 1)
    return out


def measure(fn, n: int, repeat: int = 3) -> dict:
    """Rates of ``fn()`` processing ``n`` items: ``{"per_cpu_s", "per_wall_s", "cpu_s",
    "wall_s"}`` of the repeat with the least CPU time.

    CPU time is :func:`time.process_time` (all threads of this process).
    """
    best = None
    for _ in range(repeat):
        c0 = time.process_time()
        w0 = time.perf_counter()
        fn()
        wall = time.perf_counter() - w0
        cpu = time.process_time() - c0
        if best is None or cpu < best[0]:
            best = (cpu, wall)
    cpu, wall = best
    return {
        "per_cpu_s": n / cpu if cpu > 0 else float("inf"),
        "per_wall_s": n / wall if wall > 0 else float("inf"),
        "cpu_s": cpu,
        "wall_s": wall,
    }


def machine() -> dict:
    """The cores this process may use, numba's threads, and the load average."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        usable = os.cpu_count()
    try:
        load = list(os.getloadavg())
    except OSError:
        load = None
    return {
        "cpu_count": os.cpu_count(),
        "usable_cores": usable,
        "numba_threads": numba.get_num_threads(),
        "load_average": load,
    }


def _calls(fn, arg, n: int) -> dict:
    """Rates of ``n`` single calls ``fn(arg)`` from Python."""

    def loop():
        for _ in range(n):
            fn(arg)

    return measure(loop, n)


def bench_hand(quick: bool = False) -> dict:
    """Hands per CPU-second and per wall-second of ``shanten`` (batched, all threads and
    one thread), ``ukeire`` (one thread), single calls from Python, and the ``mahjong``
    package (pure Python, one core).
    """
    from engine import tiles

    n = 200_000 if quick else 1_000_000  # fewer: the threads' start-up would dominate
    hands13 = random_hands(n, 13, seed=1)
    hands14 = random_hands(n // 10, 14, seed=2)
    hand.shanten(hands13[:8])
    hand.ukeire(hands14[:8])
    threads = numba.get_num_threads()
    out: dict = {"hands": n}
    out["shanten_batch"] = measure(lambda: hand.shanten(hands13), n)
    numba.set_num_threads(1)
    try:
        out["shanten_batch_1thread"] = measure(lambda: hand.shanten(hands13), n)
        m = len(hands14)
        out["ukeire_batch_1thread"] = measure(lambda: hand.ukeire(hands14), m)
    finally:
        numba.set_num_threads(threads)
    k = 20_000 if quick else 200_000
    one13 = tiles.parse("123m456p789s1122z")
    one14 = tiles.parse("123m456p789s11225z")
    out["shanten_single_call"] = _calls(hand.shanten, one13, k)
    out["is_complete_single_call"] = _calls(hand.is_complete, one14, k)
    out["waits_single_call"] = _calls(hand.waits, one13, k // 5)
    out["ukeire_single_call"] = _calls(hand.ukeire, one14, k // 20)
    try:
        from mahjong.shanten import Shanten
    except ImportError:
        out["mahjong_package"] = None
        return out
    sub = hands13[: (2_000 if quick else 20_000)]
    calc = Shanten()
    lists = [row.tolist() for row in sub]
    rate = measure(lambda: [calc.calculate_shanten(x) for x in lists], len(sub), repeat=1)
    out["mahjong_package"] = rate
    # per core: both rates per CPU-second
    out["speedup_vs_mahjong_per_core"] = out["shanten_batch"]["per_cpu_s"] / rate["per_cpu_s"]
    out["single_call_vs_mahjong_per_core"] = (
        out["shanten_single_call"]["per_cpu_s"] / rate["per_cpu_s"]
    )
    return out


def bench_simulate(quick: bool = False, variants=None) -> dict:
    """Deals per CPU-second and per wall-second of each variant with each policy."""
    from engine import variants as registry
    from engine.runs.run import simulate

    out: dict = {}
    for name in variants or registry.listed():
        var = registry.get(name)
        deals = var.bench_deals // (20 if quick else 1)
        out[name] = {}
        for policy in var.policies:
            simulate(name, deals=64, seed=1, policies=policy, progress=False)
            out[name][policy] = measure(
                lambda name=name, policy=policy, deals=deals: simulate(
                    name, deals=deals, seed=2, policies=policy, progress=False
                ),
                deals,
                repeat=1,
            )
    return out


def bench_minimal(quick: bool = False) -> dict:
    """Deals per CPU-second and per wall-second of the minimal deal loop
    (:mod:`engine.runs._minimal`: deal, draw and discard at random, one thread).
    """
    from engine.runs._minimal import minimal_deals

    deals = 200_000 // (20 if quick else 1)
    out = np.empty(deals, np.int64)
    minimal_deals(np.int64(1), np.int64(64), out)  # compiled (or loaded) first
    return measure(lambda: minimal_deals(np.int64(2), np.int64(deals), out), deals)


def random_over_minimal(sim: dict, minimal: dict) -> dict:
    """Per mahjong variant, the random policy's deals per CPU-second over the minimal
    loop's: the share of the minimal loop's speed the game loop keeps with its claims,
    win checks, rule hooks and records.
    """
    from engine import variants as registry
    from engine.play.family import MAHJONG, family_of

    return {
        name: round(rates["random"]["per_cpu_s"] / minimal["per_cpu_s"], 4)
        for name, rates in sim.items()
        if "random" in rates and family_of(registry.get(name)) is MAHJONG
    }


def strong_over_value(sim: dict) -> dict:
    """Per variant, the strong policy's deals per CPU-second over the value policy's."""
    return {
        name: round(rates["strong"]["per_cpu_s"] / rates["value"]["per_cpu_s"], 3)
        for name, rates in sim.items()
        if "strong" in rates and "value" in rates and rates["value"]["per_cpu_s"] > 0
    }
