"""``mjlab bench``: hand evaluation and simulation speed (:mod:`engine.runs.bench` measures)."""

from __future__ import annotations

__all__ = ["run_bench"]


def run_bench(args) -> int:
    """Handle ``mjlab bench``."""
    from engine import variants as registry
    from engine.errors import UsageError
    from engine.fileio import print_json
    from engine.runs.bench import (
        bench_hand,
        bench_minimal,
        bench_simulate,
        machine,
        random_over_minimal,
        strong_over_value,
    )

    if args.variants is not None and args.only == "hand":
        raise UsageError(
            "--variants names the variants whose simulation is measured; "
            "it does not go with --only hand"
        )
    names = None if args.variants is None else registry.chosen(args.variants)
    result: dict = {"machine": machine()}
    if args.only in (None, "hand"):
        result["hand"] = bench_hand(args.quick)
    if args.only in (None, "simulate"):
        result["simulate"] = bench_simulate(args.quick, names)
        result["strong_over_value"] = strong_over_value(result["simulate"])
        result["minimal_loop"] = bench_minimal(args.quick)
        result["random_over_minimal"] = random_over_minimal(
            result["simulate"], result["minimal_loop"]
        )
    result["load_average_after"] = machine()["load_average"]
    if args.json:
        print_json(result)
        return 0
    m = result["machine"]
    load = m["load_average"]
    load_text = "n/a" if load is None else " ".join(f"{x:.2f}" for x in load)
    print(
        f"[machine] {m['usable_cores']} usable cores of {m['cpu_count']}, "
        f"{m['numba_threads']} numba threads, load average {load_text} (1, 5, 15 min)"
    )
    print("Rates per CPU-second (all threads' CPU time) and per wall-second.")
    for section in ("hand", "simulate", "strong_over_value", "minimal_loop"):
        if section not in result:
            continue
        print(f"[{section}]")
        if section == "minimal_loop":
            print(f"  {'deal, draw, discard':<32} {_pair(result[section])}  deals")
            for key, value in result["random_over_minimal"].items():
                print(f"  {key:<12} random / minimal    {value:>14.3f}  per CPU-s")
            continue
        for key, value in result[section].items():
            if isinstance(value, dict) and "per_cpu_s" in value:
                print(f"  {key:<32} {_pair(value)}")
            elif isinstance(value, dict):
                for k2, v2 in value.items():
                    print(f"  {key:<12} {k2:<19} {_pair(v2)}  deals")
            elif section == "strong_over_value":
                print(f"  {key:<12} strong / value      {value:>14.3f}  per CPU-s")
            elif isinstance(value, float):
                print(f"  {key:<32} {value:>14,.1f}")
            else:
                print(f"  {key:<32} {value!s:>14}")
    after = result["load_average_after"]
    if after is not None:
        print(f"[machine] load average after: {' '.join(f'{x:.2f}' for x in after)}")
    return 0


def _pair(rate: dict) -> str:
    return f"{rate['per_cpu_s']:>14,.0f} /CPU-s {rate['per_wall_s']:>14,.0f} /wall-s"
