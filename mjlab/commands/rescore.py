"""``mjlab rescore``: pay recorded deals again under other payout options
(:mod:`analysis.rescoring` and :mod:`engine.runs.rescore` do the work).
"""

from __future__ import annotations

from pathlib import Path

from engine.errors import UsageError

__all__ = ["run_rescore"]


def _fmt(x: float) -> str:
    return "nan" if x != x else f"{x:.4g}"


def run_rescore(args) -> int:
    """Handle ``mjlab rescore PATH --rule K=V ... --out FILE [--gap] [--json]``."""
    import json
    import sys
    import time

    from analysis._util import jsonable
    from analysis.io import load
    from analysis.rescoring import cached_gap, effect_table, rescore_gap
    from engine import paths
    from engine.play import records
    from engine.runs import rescore as _rs
    from engine.runs.run import MAX_MATCH_LENGTH, MAX_MATCHES, _check_int
    from engine.variants import parse_rule_args

    changes = parse_rule_args(args.rule, args.rules)
    _check_int("--gap-deals", args.gap_deals, 2, MAX_MATCHES * MAX_MATCH_LENGTH)
    out_path = paths.check_output(args.out, "--out")
    if out_path.suffix != ".parquet":
        raise UsageError(f"--out {out_path}: give a .parquet file name")
    if out_path.resolve() in {p.resolve() for p in _inputs(args.path)}:
        raise UsageError(f"--out {out_path}: is one of the input files")
    if out_path.exists() and not args.force:
        raise UsageError(f"--out {out_path}: exists (give --force to replace it)")
    frame = load(args.path)
    meta = dict(frame.attrs["mjlab"])
    from engine.variants import get as get_variant

    v = get_variant(meta["variant"])
    changes = _rs.check_changes(v, changes)
    t0 = time.process_time()
    new, _ = _rs.rescore_frame(frame, v, meta["rules"], changes)
    cpu = time.process_time() - t0
    ident = _rs.rescored_identity(meta, changes)
    if "deals" in ident and ident["deals"] != len(new):
        del ident["deals"]  # an incomplete dataset: the file holds what was recorded
    records.write_parquet(new, out_path, ident)
    effects = effect_table(frame, new)
    policies = meta.get("policies") or []
    blind = _rs.is_exact(v, policies)
    gap = None
    if not blind:
        if args.gap:
            gap = rescore_gap(
                v.name,
                changes,
                policies=policies,
                deals=args.gap_deals,
                seed=int(meta.get("seed") or 0),
                rules=meta["rules"],
                match_length=meta.get("match_length"),
                progress=not args.quiet,
            )
        else:
            gap = cached_gap(v.name, v.resolve(meta["rules"]), policies, changes)
    if args.json:
        print(
            json.dumps(
                jsonable(
                    {
                        "out": str(out_path),
                        "deals": len(new),
                        "rescore_cpu_seconds": cpu,
                        "identity": ident,
                        "effects": effects,
                        "exact": blind,
                        "gap": gap,
                    }
                ),
                ensure_ascii=False,
                indent=2,
            )
        )
        return 0
    rate = len(new) / cpu if cpu > 0 else float("inf")
    shown = ", ".join(f"{k}={_rs._show(val)}" for k, val in changes.items())
    print(
        f"re-scored {len(new):,} {v.name} deals under {shown} in {cpu:.2f} CPU-s "
        f"({rate:,.0f} deals per CPU-second) -> {out_path} (rules_id {ident['rules_id']})"
    )
    print(f"{'metric':<15} {'recorded [95%]':>30} {'re-scored [95%]':>30} {'change [95%]':>30}")
    for r in effects.itertuples():
        print(
            f"{r.metric:<15} {_ci(r.recorded, r.recorded_lo, r.recorded_hi):>30} "
            f"{_ci(r.rescored, r.rescored_lo, r.rescored_hi):>30} "
            f"{_ci(r.change, r.change_lo, r.change_hi):>30}"
        )
    if blind:
        print(f"exact: {'/'.join(sorted(set(policies)))} play does not read the payouts")
    elif gap is not None:
        ident_g = gap.attrs.get("mjlab_gap", {})
        print(
            f"first-order: {'/'.join(sorted(set(policies)))} play reads the values; re-scoring "
            f"minus re-simulating ({ident_g.get('deals', '?'):,} deals, seed "
            f"{ident_g.get('seed', '?')}):"
        )
        width = max(15, *(len(m) for m in gap["metric"]))
        for r in gap.itertuples():
            print(f"  {r.metric:<{width}} {_ci(r.gap, r.gap_lo, r.gap_hi)}")
    else:
        print(
            f"first-order: {'/'.join(sorted(set(policies)))} play reads the values, so "
            "value-aware play may shift these; add --gap to measure the bias by simulation",
            file=sys.stderr,
        )
    return 0


def _ci(est: float, lo: float, hi: float) -> str:
    return f"{_fmt(est)} [{_fmt(lo)}, {_fmt(hi)}]"


def _inputs(path) -> list[Path]:
    from analysis.io import record_files

    try:
        return record_files(path)
    except UsageError:
        return []
