"""``mjlab bench``: measured speed of hand evaluation and simulation.

Figures are deals (or hands) per second of wall time, measured in one run so that
ratios between them are meaningful on a shared machine. Nothing here asserts a speed:
the numbers are reported (``--json``) and quoted in notes.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from . import hand

__all__ = ["bench_hand", "bench_simulate", "run_cli", "random_hands"]


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


def _rate(fn, n: int, repeat: int = 3) -> float:
    """Best-of-``repeat`` items per second of ``fn()`` processing ``n`` items."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return n / best


def bench_hand(quick: bool = False) -> dict:
    """Hands/s of ``shanten`` (all threads), ``ukeire`` (one thread), and the mahjong package."""
    n = 20_000 if quick else 1_000_000
    hands13 = random_hands(n, 13, seed=1)
    hands14 = random_hands(n // 10, 14, seed=2)
    hand.shanten(hands13[:8])
    hand.ukeire(hands14[:8])
    threads = numba.get_num_threads()
    out = {"threads": threads, "hands": n}
    out["shanten_hands_per_s"] = _rate(lambda: hand.shanten(hands13), n)
    numba.set_num_threads(1)
    try:
        out["shanten_hands_per_s_1thread"] = _rate(lambda: hand.shanten(hands13), n)
        m = len(hands14)
        out["ukeire_hands_per_s_1thread"] = _rate(lambda: hand.ukeire(hands14), m)
    finally:
        numba.set_num_threads(threads)
    try:
        from mahjong.shanten import Shanten
    except ImportError:
        out["mahjong_package"] = None
        return out
    sub = hands13[: (2_000 if quick else 20_000)]
    calc = Shanten()
    lists = [row.tolist() for row in sub]
    rate = _rate(lambda: [calc.calculate_shanten(x) for x in lists], len(sub), repeat=1)
    out["mahjong_package_hands_per_s"] = rate
    out["speedup_vs_mahjong_package"] = out["shanten_hands_per_s"] / rate
    return out


def bench_simulate(quick: bool = False) -> dict:
    """Deals/s of each registered variant with each policy (all threads)."""
    from . import variants
    from .run import simulate

    out: dict = {}
    for name in variants.names():
        var = variants.get(name)
        deals = var.bench_deals // (20 if quick else 1)
        out[name] = {}
        for policy in var.policies:
            simulate(name, deals=64, seed=1, policies=policy, progress=False)
            t0 = time.perf_counter()
            simulate(name, deals=deals, seed=2, policies=policy, progress=False)
            out[name][policy] = deals / (time.perf_counter() - t0)
    return out


def run_cli(args) -> int:
    """Handle ``mjlab bench``."""
    from .cli import print_json

    result: dict = {}
    if args.only in (None, "hand"):
        result["hand"] = bench_hand(args.quick)
    if args.only in (None, "simulate"):
        try:
            result["simulate"] = bench_simulate(args.quick)
        except ImportError:
            result["simulate"] = {}
    if args.json:
        print_json(result)
        return 0
    for section, values in result.items():
        print(f"[{section}]")
        for key, value in values.items():
            if isinstance(value, dict):
                for k2, v2 in value.items():
                    print(f"  {key:<12} {k2:<12} {v2:>14,.0f} deals/s")
            elif isinstance(value, float):
                print(f"  {key:<36} {value:>14,.1f}")
            else:
                print(f"  {key:<36} {value!s:>14}")
    return 0
