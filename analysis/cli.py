"""``mjlab summarize`` and ``mjlab sweep``: the analysis tables on the command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

from analysis._util import jsonable
from engine.errors import UsageError

__all__ = ["run_summarize", "run_sweep", "big_patterns", "format_summary"]


def big_patterns(variant: str) -> list[str]:
    """The ``pat_*`` columns a variant counts as big hands."""
    from engine import variants

    if variant not in variants.names():
        return []
    return [f"pat_{p.name}" for p in variants.get(variant).patterns if p.big]


def _pct(rate, lo, hi) -> str:
    return f"{100 * rate:6.2f}%  [{100 * lo:.2f}, {100 * hi:.2f}]"


def _mean(row) -> str:
    return f"{row['mean']:+8.3f}  [{row['lo']:+.3f}, {row['hi']:+.3f}]"


def format_summary(tables: dict[str, pd.DataFrame], summary) -> str:
    """The text of ``mjlab summarize`` (every rate and mean with its 95% interval)."""
    out = [
        f"{summary.variant}  rules_id={summary.rules_id}  deals={summary.n_deals:,}  "
        f"wins={summary.n_wins:,}  (95% intervals; Wilson for rates, match-clustered "
        "for means)"
    ]
    wt = tables["win_types"]
    per_deal = wt[wt["per"] == "deal"]
    out.append("\nwin types (per deal)")
    for _, r in per_deal.iterrows():
        out.append(f"  {r['win_type']:<10} {_pct(r['rate'], r['lo'], r['hi'])}")
    seats = tables["seats"]
    wins = seats[(seats["event"] == "win") & (seats["per"] == "deal")]
    out.append("\nwin rate by seat (per deal)")
    for _, r in wins.iterrows():
        out.append(f"  seat {r['seat']}     {_pct(r['rate'], r['lo'], r['hi'])}")
    roles = tables["roles"]
    rwins = roles[(roles["event"] == "win") & (roles["per"] == "deal")]
    out.append("\nwin rate by role (per deal)")
    for _, r in rwins.iterrows():
        out.append(f"  {r['role']:<10} {_pct(r['rate'], r['lo'], r['hi'])}")
    out.append("\nmean delta per deal by seat (points)")
    for _, r in tables["payouts_seat"].iterrows():
        out.append(f"  seat {r['seat']}     {_mean(r)}")
    out.append("\nmean delta per deal by role (points)")
    for _, r in tables["payouts_role"].iterrows():
        out.append(f"  {r['role']:<10} {_mean(r)}")
    pats = tables["patterns"]
    pats = pats[pats["per"] == "win"]
    if len(pats):
        out.append("\npattern frequency (per win)")
        for _, r in pats.iterrows():
            out.append(f"  {r['pattern']:<16} {_pct(r['rate'], r['lo'], r['hi'])}")
    fair = tables["fairness"]
    if len(fair):
        out.append("\nfairness")
        for _, r in fair.iterrows():
            out.append(f"  {r['verdict']}")
    return "\n".join(out)


def run_summarize(args) -> int:
    """Handle ``mjlab summarize PATH [--json] [--plot DIR]``."""
    import analysis
    from analysis.io import planned_deals
    from engine import fileio

    if args.plot:
        fileio.check_writable(args.plot, "--plot")
    summary = analysis.summarize(args.path)
    planned = planned_deals(args.path)
    incomplete = planned is not None and summary.n_deals < planned
    if incomplete:
        print(
            f"incomplete dataset: {summary.n_deals:,} of the run's {planned:,} deals "
            "(rerun the same mjlab simulate command to play the rest)",
            file=sys.stderr,
        )
    tables = summary.tables()
    if args.plot:
        plot_dir = Path(args.plot)
        if plot_dir.exists() and not plot_dir.is_dir():
            raise UsageError(f"--plot {plot_dir}: exists and is not a folder")
        from analysis.plots import save_figures

        save_figures(summary, plot_dir)
    if args.json:
        print(
            json.dumps(
                jsonable(
                    {
                        "variant": summary.variant,
                        "rules_id": summary.rules_id,
                        "deals": summary.n_deals,
                        "planned_deals": planned,
                        **tables,
                    }
                ),
                ensure_ascii=False,
                indent=2,
            )
        )
        return 0
    print(format_summary(tables, summary))
    return 0


def _sweep_values(rule_args) -> tuple[str, list[str], dict[str, str]]:
    swept = [r for r in rule_args if "=" in r and "," in r.split("=", 1)[1]]
    if len(swept) != 1:
        raise UsageError("mjlab sweep needs exactly one --rule K=V1,V2,... with several values")
    key, values = swept[0].split("=", 1)
    fixed = {}
    for r in rule_args:
        if r is swept[0]:
            continue
        if "=" not in r:
            raise UsageError(f"--rule expects KEY=VALUE, got {r!r}")
        k, v = r.split("=", 1)
        fixed[k.strip()] = v.strip()
    vals = [v.strip() for v in values.split(",") if v.strip()]
    if len(vals) < 2:
        raise UsageError(f"--rule {key}: give at least two values")
    return key.strip(), vals, fixed


def run_sweep(args) -> int:
    """Handle ``mjlab sweep VARIANT --rule K=V1,V2,... --deals N --out DIR``.

    Every value's rules are checked before anything is played or written. The folder
    holds one sweep: each file carries the sweep's identity (variant, option, values,
    the other rules, deals, seed, policies); rerunning the same command reuses the files
    that are complete and verified, and a folder holding another sweep is refused
    unless ``--force``. The folder is locked while the sweep writes it.
    """
    from analysis.sweep import sweep_table
    from engine import fileio, variants
    from engine.run import MAX_WORKERS, check_memory, make_spec
    from engine.variants import parse_rule_args

    v = variants.get(args.variant)
    key, values, fixed = _sweep_values(args.rule)
    base = parse_rule_args([], args.rules)
    base.update(fixed)
    option = v.option_map.get(key)
    if option is None:
        raise UsageError(
            f"unknown rule option {key!r} for {v.name}; options: {', '.join(sorted(v.option_map))}"
        )
    parsed = [option.parse(x) for x in values]
    dup = next((x for i, x in enumerate(parsed) if x in parsed[:i]), None)
    if dup is not None:
        raise UsageError(f"--rule {key}: the value {dup} is given twice")
    if key in base:
        raise UsageError(f"--rule {key}: swept and fixed at once")
    if args.deals < 2:
        raise UsageError("--deals must be at least 2 for paired intervals")
    if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
        raise UsageError(f"--workers must be 1..{MAX_WORKERS}, got {args.workers}")
    specs = [
        make_spec(v.name, args.deals, args.seed, {**base, key: value}, args.policy)
        for value in parsed
    ]  # every combination of the swept value with the fixed rules, checked up front
    check_memory(
        args.deals,
        "give fewer --deals (a sweep holds every value's records in memory)",
        copies=len(values),
    )
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} exists and is not a folder")
    fileio.check_writable(out, "--out")
    if args.plot:
        fileio.check_writable(args.plot, "--plot")
    fixed_rules = {k: x for k, x in specs[0].rules.items() if k != key}
    sweep_id = {
        "variant": v.name,
        "option": key,
        "values": [str(x) for x in parsed],
        "rules": fixed_rules,
        "deals": args.deals,
        "seed": args.seed,
        "policies": list(specs[0].policies),
    }
    names = [f"{key}={raw}.parquet" for raw in values]
    default = option.default if option.default in parsed else parsed[0]
    created = not out.exists()
    out.mkdir(exist_ok=True)
    try:
        lock = fileio.OutputLock(out, f"sweep {v.name} {key}={','.join(values)}").acquire()
    except BaseException:
        _rmdir_if_empty(out, created)
        raise
    try:
        reuse = _sweep_folder(out, sweep_id, dict(zip(names, specs, strict=True)), args.force)
        frames = _sweep_frames(out, names, specs, parsed, reuse, sweep_id, args.workers)
    except BaseException:
        lock.release()
        _rmdir_if_empty(out, created)
        raise
    lock.release()
    table = sweep_table(frames, option=key, default=default, big=big_patterns(v.name))
    if args.plot:
        import matplotlib.pyplot as plt

        from analysis.plots import draw_sweep, save_figure, style

        plot_dir = Path(args.plot)
        plot_dir.mkdir(parents=True, exist_ok=True)
        for metric in ("draw_rate", "dealer_delta", "value_per_win"):
            with style():
                fig, ax = plt.subplots()
                draw_sweep(table, metric=metric, ax=ax)
                save_figure(fig, plot_dir / f"{v.name}-{key}-{metric}.png")
                plt.close(fig)
    if args.json:
        print(
            json.dumps(
                jsonable(
                    {
                        "variant": v.name,
                        "option": key,
                        "default": default,
                        "deals": args.deals,
                        "seed": args.seed,
                        "table": table,
                    }
                ),
                ensure_ascii=False,
                indent=2,
            )
        )
        return 0
    print(
        f"{v.name}: {key} in {values} ({args.deals:,} deals each, seed {args.seed}, the same "
        "walls for every value; differences are paired)"
    )
    show = table[
        table["metric"].isin(["draw_rate", "turns", "value_per_win", "dealer_delta", "flow"])
    ]
    for _, r in show.iterrows():
        diff = (
            ""
            if r["is_default"]
            else (
                f"  diff {r['diff']:+.4f} [{r['diff_lo']:+.4f}, {r['diff_hi']:+.4f}]"
                f" (unpaired ±{(r['unpaired_hi'] - r['unpaired_lo']) / 2:.4f})"
            )
        )
        out_line = (
            f"  {r['metric']:<14} {key}={r['option_value']!s:<10} "
            f"{r['estimate']:.4f} [{r['lo']:.4f}, {r['hi']:.4f}]{diff}"
        )
        print(out_line)
    return 0


def _rmdir_if_empty(folder: Path, created: bool) -> None:
    if created:
        try:
            folder.rmdir()
        except OSError:
            pass


def _sweep_folder(out: Path, sweep_id: dict, expected: dict, force: bool) -> set[str]:
    """Names of the files in a sweep folder that are complete, verified and reusable.

    Files of another sweep are refused, or removed with ``force``; a damaged file of
    this sweep is played again; a file that is not mjlab output is always refused.
    """
    from engine import fileio
    from engine.dataset import check_claims, differs, run_identity

    reuse, remove = set(), []
    for f in sorted(out.iterdir()):
        if f.name.startswith(".") or f.suffix != ".parquet" or not f.is_file():
            continue
        try:
            pm = fileio.read_meta(f)
        except UsageError as exc:
            raise UsageError(
                f"--out {out}: holds {f.name}, which is not a sweep file "
                f"({str(exc).split(': ', 1)[-1]}); use another --out"
            ) from None
        theirs = pm.meta.get("sweep")
        if differs(theirs, sweep_id) and fileio.meta_intact(pm):  # else damaged: played again
            if not force:
                what = "no sweep" if not isinstance(theirs, dict) else _differs(theirs, sweep_id)
                raise UsageError(
                    f"--out {out}: holds another sweep ({f.name}: {what}); "
                    "use another --out, or --force to replace it"
                )
            remove.append(f)
            continue
        spec = expected.get(f.name)
        ident = {k: x for k, x in run_identity(pm.meta).items() if k != "sweep"}
        try:
            if spec is None or differs(ident, spec.identity()):
                raise UsageError(f"{f}: not one of this sweep's values")
            check_claims(pm)
            fileio.verify(pm)
        except UsageError as exc:
            print(f"mjlab: {exc}; playing it again", file=sys.stderr)
            remove.append(f)
            continue
        reuse.add(f.name)
    if remove and force:
        print(f"mjlab: --out {out}: --force: removing {len(remove)} file(s)", file=sys.stderr)
    for f in remove:
        f.unlink(missing_ok=True)
    return reuse


def _differs(theirs: dict, ours: dict) -> str:
    from engine.dataset import differs

    diff = differs(theirs, ours)
    return f"differs in {', '.join(diff)}"


def _sweep_frames(out, names, specs, parsed, reuse, sweep_id, workers) -> dict:
    """Each value's record frame: read back when reusable, else played and written."""
    import pyarrow.parquet as pq

    from engine import records
    from engine.run import simulate

    frames = {}
    for name, spec, value in zip(names, specs, parsed, strict=True):
        path = out / name
        if name in reuse:
            frames[value] = pq.read_table(path).to_pandas()
            continue
        run = simulate(
            spec.variant,
            spec.deals,
            seed=spec.seed,
            rules=spec.rules,
            policies=spec.policies,
            workers=workers,
            progress=False,
        )
        df = run.to_pandas()
        records.write_parquet(df, path, {**run.metadata(), "sweep": sweep_id})
        frames[value] = df
    return frames
