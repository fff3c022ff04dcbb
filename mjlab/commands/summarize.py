"""``mjlab summarize`` and ``mjlab sweep``: the analysis tables on the command line."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import UsageError

__all__ = ["run_summarize", "run_sweep", "big_patterns", "format_summary", "safe_name"]


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


def _meta_value(summary, key):
    """A summary's file metadata entry ``key``, decoded where it is stored as JSON text
    (None where it is absent or is not JSON).
    """
    import json

    raw = summary.meta.get(key)
    try:
        return json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return None


def _rules_text(summary) -> str:
    """The rule values of a summary's run, from its file metadata (``k=v k=v ...``)."""
    rules = _meta_value(summary, "rules")
    if not isinstance(rules, dict) or not rules:
        return "rules: not recorded with these records"
    return "rules: " + " ".join(f"{k}={_show(v)}" for k, v in sorted(rules.items()))


def _show(v) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


_EXTRA_WORDS = {
    "horses": "horses bought per deal",
    "horse_hits": "horses that hit per deal",
    "kongs": "kongs per deal",
}


def _extra_label(name: str) -> str:
    for kind, what in (("horse_money_", "horse money"), ("kong_money_", "kong money")):
        if name.startswith(kind):
            return f"{what}, seat {name[len(kind) :]} (points per deal)"
    return _EXTRA_WORDS.get(name, f"{name} per deal")


def format_summary(tables: dict, summary) -> str:
    """The text of ``mjlab summarize`` (every rate and mean with its 95% interval)."""
    from analysis._util import ROLE_HANZI, WIN_TYPE_HANZI
    from analysis.fairness import dealer_edge
    from analysis.schema import BOOKKEEPING

    out = [
        f"{summary.variant}  rules_id={summary.rules_id}  policies={_policies_text(summary)}  "
        f"deals={summary.n_deals:,}  wins={summary.n_wins:,}  (95% intervals; Wilson for "
        "rates, match-clustered for means)",
        _rules_text(summary),
    ]
    wt = tables["win_types"]
    per_deal = wt[wt["per"] == "deal"]
    out.append("\nwin types (per deal)")
    for _, r in per_deal.iterrows():
        name = f"{r['win_type']} {WIN_TYPE_HANZI.get(r['win_type'], '')}"
        out.append(f"  {_pad(name, 18)} {_pct(r['rate'], r['lo'], r['hi'])}")
    seats = tables["seats"]
    wins = seats[(seats["event"] == "win") & (seats["per"] == "deal")]
    out.append("\nwin rate by seat (per deal)")
    for _, r in wins.iterrows():
        out.append(f"  seat {r['seat']}     {_pct(r['rate'], r['lo'], r['hi'])}")
    roles = tables["roles"]
    rwins = roles[(roles["event"] == "win") & (roles["per"] == "deal")]
    out.append("\nwin rate by role (per deal)")
    for _, r in rwins.iterrows():
        out.append(
            f"  {_pad(_role(r['role'], ROLE_HANZI), 18)} {_pct(r['rate'], r['lo'], r['hi'])}"
        )
    out.append("\nmean delta per deal by seat (points)")
    for _, r in tables["payouts_seat"].iterrows():
        out.append(f"  seat {r['seat']}     {_mean(r)}")
    out.append("\nmean delta per deal by role (points)")
    for _, r in tables["payouts_role"].iterrows():
        out.append(f"  {_pad(_role(r['role'], ROLE_HANZI), 18)} {_mean(r)}")
    de = dealer_edge(summary).iloc[0]
    out.append(
        "\ndealer edge (the dealer's mean result per deal minus the mean of the non-dealers, "
        "points)"
    )
    out.append(f"  {'points':<10} {de['edge']:+8.3f}  [{de['lo']:+.3f}, {de['hi']:+.3f}]")
    out.append(
        f"  {'SD units':<10} {de['edge_sd']:+8.3f}  [{de['lo_sd']:+.3f}, {de['hi_sd']:+.3f}]"
        f"  (per-deal SD of a seat's result: {de['sd']:.3g} points)"
    )
    extras = tables.get("extras")
    if extras is not None and len(extras):
        extras = extras[~extras["extra"].isin(BOOKKEEPING)]
    if extras is not None and len(extras):
        clustered = bool(extras["clustered"].all()) if "clustered" in extras else False
        how = "match-clustered" if clustered else "per deal (stored without match totals)"
        out.append(f"\nextras, mean per deal ({how} intervals)")
        for _, r in extras.iterrows():
            out.append(f"  {_extra_label(r['extra']):<40} {_mean(r)}")
    pats = tables["patterns"]
    pats = pats[pats["per"] == "win"]
    if len(pats):
        out.append("\npattern frequency (per win)")
        hanzi = _pattern_hanzi(summary.variant)
        for _, r in pats.iterrows():
            name = f"{r['pattern']} {hanzi.get(r['pattern'], '')}"
            out.append(f"  {_pad(name, 24)} {_pct(r['rate'], r['lo'], r['hi'])}")
    out.extend(fairness_lines(tables["fairness"]))
    return "\n".join(out)


def _pad(text: str, width: int) -> str:
    """``text`` padded to ``width`` terminal columns (a 汉字 takes two)."""
    import unicodedata

    cols = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return text + " " * max(0, width - cols)


def _role(role: str, hanzi: dict) -> str:
    return f"{role} {hanzi[role]}" if role in hanzi else role


def _pattern_hanzi(variant: str) -> dict[str, str]:
    """``pattern name -> 汉字`` of a registered variant (empty for another)."""
    from engine import variants

    if variant not in variants.names():
        return {}
    return {p.name: p.hanzi for p in variants.get(variant).patterns}


def fairness_lines(fair) -> list[str]:
    """The fairness verdicts as text: one verdict for the dealer (its edge and whether it
    is fair within the margin), the joint test of the roles, then the engine sanity
    checks apart from the family.
    """
    if not len(fair):
        return []
    found = fair[fair["kind"] != "sanity"]
    out = [
        f"\nfairness ({len(found)} tests, Holm-adjusted together; each interval is at the "
        "level of its adjusted test, so it excludes 0 exactly when the edge is resolved)"
    ]
    label = {"dealer_edge": "dealer", "role_deltas": "roles"}
    for _, r in found.iterrows():
        if r["test"] == "dealer_equivalence":  # part of the dealer's verdict
            continue
        out.append(f"  {label.get(r['test'], r['test'])}: {r['verdict']}")
    sanity = fair[fair["kind"] == "sanity"]
    if len(sanity):
        out.append(
            "\nengine sanity checks (seats are interchangeable by construction; adjusted "
            "apart from the findings)"
        )
        for _, r in sanity.iterrows():
            out.append(f"  {r['test']}: {r['verdict']}")
    return out


def _policies_text(summary) -> str:
    """The records' policies by seat, from the file metadata (``value`` or ``a,b,c,d``)."""
    pols = _meta_value(summary, "policies")
    if not isinstance(pols, list) or not pols:
        return "not recorded"
    return pols[0] if len(set(pols)) == 1 else ",".join(map(str, pols))


def run_summarize(args) -> int:
    """Handle ``mjlab summarize PATH [--json] [--plot DIR]``."""
    import json

    import analysis
    from analysis._util import jsonable
    from analysis.fairness import dealer_edge
    from analysis.io import planned_deals
    from analysis.schema import BOOKKEEPING
    from engine import fileio, paths
    from mjlab.commands.export import check_export, export

    fmt = check_export(args)
    if args.plot is not None:
        paths.check_output(args.plot, "--plot", folder=True)
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
    extras = tables.get("extras")
    if extras is not None:  # codes and bit fields a re-score reads are not results
        tables["extras"] = extras[~extras["extra"].isin(BOOKKEEPING)].reset_index(drop=True)
    risk = _match_risk(args, summary)
    head = {
        "variant": summary.variant,
        "rules_id": summary.rules_id,
        "policies": _policies_text(summary),
        "deals": summary.n_deals,
        "planned_deals": planned,
        "intervals": "95%; Wilson for rates, match-clustered t for means; fairness "
        "intervals at the level of their adjusted test",
    }
    if args.plot is not None:
        from analysis.plots import save_figures

        with fileio.staged_folder(args.plot) as stage:  # a full disk leaves no figure
            save_figures(summary, stage)
    if fmt == "json":
        print(
            json.dumps(
                jsonable({**head, **tables, "match_risk": risk}),
                ensure_ascii=False,
                indent=2,
            )
        )
        return 0
    if fmt in ("csv", "xlsx"):
        out = {"dealer_edge": dealer_edge(summary), **tables, "match_risk": risk}
        export(out, fmt, args.export, head)
        return 0
    print(format_summary(tables, summary))
    print("\n" + _match_risk_text(risk, summary))
    return 0


def _loss_amounts(raw: str | None) -> list[float] | None:
    """``--loss X[,X...]``: positive amounts (None: the variant's stated amounts)."""
    if raw is None:
        return None
    out = []
    for part in raw.split(","):
        try:
            x = float(part)
        except ValueError:
            x = float("nan")
        if not x >= 0 or x == float("inf"):
            raise UsageError(f"--loss: {part.strip()!r} is not an amount >= 0 (e.g. --loss 20,50)")
        if x in out:
            raise UsageError(f"--loss: the amount {part.strip()} is given twice")
        out.append(x)
    return out


def _match_risk(args, summary):
    """The :func:`analysis.risk.match_risk` table of the records, or None without rows."""
    from analysis import risk

    amounts = _loss_amounts(getattr(args, "loss", None))
    mt = risk.load_match_table(args.path)
    if mt is None or len(mt) < 2:
        return None
    if amounts is None:
        amounts = risk.stated_amounts(summary.variant, mt)
    return risk.match_risk(mt, amounts)


def _match_risk_text(table, summary) -> str:
    from analysis import risk

    if table is None:
        return (
            "match risk: not available (it needs the rows of at least two whole matches; "
            "a --summary-only dataset keeps no per-match results)"
        )
    deals = summary.n_deals / max(1, int(table.loc[table["stat"] == "mean", "n"].max()))
    return risk.format_match_risk(table, deals)


def _sweep_values(rule_args) -> tuple[str, list[str], dict[str, str]]:
    """The swept option, its values (as given) and the fixed ones: the one ``--rule
    K=V1,V2,...`` with several values, or a lone ``--rule K=V`` (V against the default).
    """
    swept = [r for r in rule_args if "=" in r and "," in r.split("=", 1)[1]]
    if not swept and len(rule_args) == 1 and "=" in rule_args[0]:
        swept = list(rule_args)  # one value, compared with the option's default
    if len(swept) != 1:
        raise UsageError(
            "mjlab sweep needs one swept option: --rule K=V1,V2,... (or a lone --rule K=V, "
            "compared with the default); other --rule K=V hold options fixed"
        )
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
    if not vals:
        raise UsageError(f"--rule {key}: give a value")
    return key.strip(), vals, fixed


_UNSAFE = re.compile(r"[^A-Za-z0-9._=+-]")


def safe_name(text: str) -> str:
    """``text`` as a file-name part that every OS accepts (``winner:2`` -> ``winner-2``).

    Characters other than ASCII letters, digits and ``. _ = + -`` become ``-``.

    Examples
    --------
    >>> safe_name("horses=winner:2")
    'horses=winner-2'
    """
    return _UNSAFE.sub("-", str(text))


SHOWN_METRICS = (
    "draw_rate",
    "turns",
    "value_per_win",
    "flow",
    "dealer_edge",
    "dealer_edge_sd",
    "big_hand_per_win",
)
"""The metrics ``mjlab sweep`` prints (``--json`` and ``--plot`` hold every metric)."""


def run_sweep(args) -> int:
    """Handle ``mjlab sweep VARIANT --rule K=V1,V2,... --deals N --out DIR``.

    Every value's rules are checked before anything is played or written. The baseline
    (``--baseline V``, default the option's default value) is played even when the list
    leaves it out. The folder holds one sweep: each file carries the sweep's identity
    (variant, option, values, the other rules, deals, seed, policies); rerunning the
    same command reuses the files that are complete and verified, and a folder holding
    another sweep is refused unless ``--force``. The folder is locked while the sweep
    writes it.
    """
    from analysis.sweep import metric_doc, sweep_table
    from mjlab.commands.export import check_export, export

    fmt = check_export(args)
    plan = _plan_sweep(args)
    frames = _play_sweep(plan, args)
    table = sweep_table(
        frames,
        option=plan.key,
        baseline=plan.baseline,
        big=big_patterns(plan.variant.name),
        paired=plan.paired,
    )
    metrics = list(dict.fromkeys(table["metric"]))
    docs = {m: metric_doc(m) for m in metrics}
    guard = _sweep_guard(plan, args, frames)
    if args.plot is not None:
        from engine import fileio

        with fileio.staged_folder(args.plot) as stage:  # a full disk leaves no figure
            _sweep_plots(table, stage, plan.variant.name, plan.key, docs)
    if fmt == "json":
        print(_sweep_json(plan, args, table, docs, guard))
    elif fmt in ("csv", "xlsx"):
        about = {
            "variant": plan.variant.name,
            "option": plan.key,
            "baseline": plan.baseline,
            "policies": args.policy,
            "rules_ids": _rules_ids(plan),
            "deals": args.deals,
            "seed": args.seed,
            "intervals": "95% estimates; differences at the level of their Holm-adjusted "
            "test (diff_level), unadjusted 95% in raw_lo/raw_hi",
        }
        export({"sweep": table, "bot_check": guard}, fmt, args.export, about)
    else:
        print(_sweep_text(plan, args, table, docs, metrics))
        if guard is not None:
            from analysis.guard import guard_text

            print("\n" + guard_text(guard))
    return 0


def _sweep_guard(plan: _SweepPlan, args, frames: dict):
    """The bot check at every non-default value the sweep played (analysis.guard), where
    strong plays and the variant has value bots to check it against; None otherwise or
    with ``--no-bot-check``.
    """
    from analysis.guard import bot_guard

    pols = [p.strip() for p in args.policy.split(",")]
    if args.no_bot_check or "strong" not in pols or "value" not in plan.variant.policies:
        return None
    defaults = plan.variant.resolve({})
    settings, played = [], {}
    for parsed, spec in zip(plan.parsed, plan.specs, strict=True):
        if spec.rules == defaults:
            continue
        if pols == ["strong"]:
            played[len(settings)] = {"strong": frames[parsed]}
        settings.append(spec.rules)
    if not settings:
        return None
    return bot_guard(plan.variant.name, settings, args.deals, args.seed, args.workers,
                     played=played)  # fmt: skip


@dataclass(frozen=True)
class _SweepPlan:
    """A checked sweep: the option, its values (as given and parsed, the baseline
    included), one run spec and one file name per value, and the sweep's identity.
    """

    variant: Any  # the registered Variant
    option: Any  # its RuleOption being swept
    key: str
    values: list[str]  # as given on the command line
    parsed: list  # the option's values, parsed
    baseline: Any
    specs: list  # engine.runs.run specs, one per value
    names: list[str]  # record file names, one per value
    out: Path
    sweep_id: dict
    paired: bool


def _plan_sweep(args) -> _SweepPlan:
    """Check every input and every value's rules before anything is played or written."""
    from engine import paths, variants
    from engine.runs.run import MAX_WORKERS, check_memory, make_spec
    from engine.variants import parse_rule_args

    v = variants.get(args.variant)
    key, values, fixed = _sweep_values(args.rule)
    base = parse_rule_args([], args.rules)
    base.update(fixed)
    option, parsed, baseline = _swept_values(v, key, values, base, args.baseline)
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
    names = [f"{safe_name(key)}={safe_name(raw)}.parquet" for raw in values]
    if len(set(names)) < len(names):  # two values the same once made safe: number them
        names = [f"{safe_name(key)}-{i}.parquet" for i in range(len(values))]
    out = paths.check_output(args.out, "--out", folder=True)
    if args.plot is not None:
        paths.check_output(args.plot, "--plot", folder=True)
    sweep_id = {
        "variant": v.name,
        "option": key,
        "values": [str(x) for x in parsed],
        "rules": {k: x for k, x in specs[0].rules.items() if k != key},
        "deals": args.deals,
        "seed": args.seed,
        "policies": list(specs[0].policies),
    }
    return _SweepPlan(
        v, option, key, values, parsed, baseline, specs, names, out, sweep_id,
        paired=not option.changes_deal,
    )  # fmt: skip


def _swept_values(v, key: str, values: list[str], base: dict, raw_baseline):
    """The swept option, its parsed values and the baseline; ``values`` (as given) gets
    the baseline inserted first when the list leaves it out (it is always played).
    """
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
    baseline = option.default if raw_baseline is None else option.parse(raw_baseline)
    if baseline not in parsed:
        parsed.insert(0, baseline)
        values.insert(0, str(raw_baseline if raw_baseline is not None else baseline))
    if len(parsed) < 2:
        raise UsageError(
            f"--rule {key}={values[0]} is the baseline itself; give another value to compare "
            "with it (or several: K=V1,V2,...)"
        )
    return option, parsed, baseline


def _play_sweep(plan: _SweepPlan, args) -> dict:
    """Every value's records (reused from the folder where complete and verified), the
    folder locked while it is written and removed again if this call made it and fails.
    """
    from engine import fileio

    out = plan.out
    created = not out.exists()
    try:
        out.mkdir(exist_ok=True)
    except OSError as exc:
        raise fileio.os_fault(exc, out) from exc
    label = f"sweep {plan.variant.name} {plan.key}={','.join(plan.values)}"
    try:
        lock = fileio.OutputLock(out, label).acquire()
    except BaseException:
        _rmdir_if_empty(out, created)
        raise
    try:
        expected = dict(zip(plan.names, plan.specs, strict=True))
        reuse = _sweep_folder(out, plan.sweep_id, expected, args.force)
        frames = _sweep_frames(
            out, plan.names, plan.specs, plan.parsed, reuse, plan.sweep_id, args.workers,
            not args.quiet,
        )  # fmt: skip
    except BaseException:
        lock.release()
        _rmdir_if_empty(out, created)
        raise
    lock.release()
    return frames


def _sweep_json(plan: _SweepPlan, args, table, docs: dict, guard=None) -> str:
    """``--json``: the sweep's settings, the metric definitions and the whole table."""
    import json

    from analysis._util import jsonable

    n_tests = int(table["p"].notna().sum())
    return json.dumps(
        jsonable(
            {
                "variant": plan.variant.name,
                "option": plan.key,
                "baseline": plan.baseline,
                "option_default": plan.option.default,
                "values": plan.parsed,
                "paired": plan.paired,
                "deals": args.deals,
                "seed": args.seed,
                "adjust": f"holm over the {n_tests} differences of this sweep",
                "policies": args.policy,
                "rules_ids": _rules_ids(plan),
                "metrics": docs,
                "table": table,
                "bot_check": guard,
            }
        ),
        ensure_ascii=False,
        indent=2,
    )


def _sweep_text(plan: _SweepPlan, args, table, docs: dict, metrics: list) -> str:
    """The printed sweep: a header in words, then each of :data:`SHOWN_METRICS` per value."""
    key, baseline = plan.key, plan.baseline
    n_tests = int(table["p"].notna().sum())
    base_word = "the option's default" if baseline == plan.option.default else "--baseline"
    pairing = (
        "the same walls for every value, so differences are paired deal by deal"
        if plan.paired
        else f"{key} changes the cards dealt, so the values deal different cards from the "
        "same seed and differences are unpaired (two independent samples)"
    )
    ids = ", ".join(f"{key}={x} {i}" for x, i in _rules_ids(plan).items())
    lines = [
        f"{plan.variant.name}: {key} in {[str(x) for x in plan.parsed]} ({args.deals:,} deals "
        f"each, seed {args.seed}, policies {args.policy}); baseline {key}={baseline} "
        f"({base_word}); {pairing}. "
        f"Estimates with 95% intervals; p_adj is Holm-adjusted over the {n_tests} differences "
        "of this sweep, and the interval beside it is adjusted the same way (it excludes 0 "
        "exactly when p_adj < 0.05).",
        f"rules_id: {ids}",
    ]
    show = table[table["metric"].isin(SHOWN_METRICS)]
    for metric, g in show.groupby("metric", sort=False):
        lines.append(f"\n{metric}: {docs[metric]}")
        lines.extend(_sweep_row_text(key, r) for _, r in g.iterrows())
    lines.append(
        f"\n(every metric of the sweep, {len(metrics)} in all, is in --json"
        + (f" and plotted in {args.plot})" if args.plot else ")")
    )
    return "\n".join(lines)


def _rules_ids(plan: _SweepPlan) -> dict:
    """``value -> rules_id`` of each value the sweep plays."""
    return {
        str(x): plan.variant.rules_id(spec.rules)
        for x, spec in zip(plan.parsed, plan.specs, strict=True)
    }


def _sweep_row_text(key: str, r) -> str:
    """One value's line of a metric: estimate, interval, and the difference from the
    baseline with its adjusted p (and the unpaired half-width when paired).
    """
    label = f"{key}={r['option_value']!s}"
    if r["is_baseline"]:
        tail = "  (baseline)"
    else:
        kind = "paired" if r["paired"] else "unpaired"
        tail = (
            f"  diff {r['diff']:+.4f} [{r['diff_lo']:+.4f}, {r['diff_hi']:+.4f}] {kind}"
            f", adjusted p {_p(r['p_adj'])}"
        )
        if r["paired"]:
            tail += f" (unpaired ±{(r['unpaired_hi'] - r['unpaired_lo']) / 2:.4f})"
    return f"  {label:<18} {r['estimate']:.4f} [{r['lo']:.4f}, {r['hi']:.4f}]{tail}"


def _p(p) -> str:
    from analysis.stats import format_p

    return format_p(float(p)).removeprefix("p ")


def _sweep_plots(table, plot_dir: Path, variant: str, key: str, docs: dict) -> None:
    """One figure per metric of the sweep, named safely, titled with its definition."""
    import textwrap

    import matplotlib.pyplot as plt

    from analysis.plots import draw_sweep, save_figure, style

    for metric, doc in docs.items():
        with style():
            fig, ax = plt.subplots()
            draw_sweep(table, metric=metric, ax=ax)
            ax.set_title("\n".join(textwrap.wrap(f"{metric}: {doc}", 60)), fontsize=8)
            save_figure(fig, plot_dir / f"{safe_name(f'{variant}-{key}-{metric}')}.png")
            plt.close(fig)


def _rmdir_if_empty(folder: Path, created: bool) -> None:
    if created:
        try:
            folder.rmdir()
        except OSError:
            pass


_SWEEP_FILE = re.compile(r"^[A-Za-z0-9._+-]+(=[A-Za-z0-9._=+-]+|-\d+)\.parquet$")
"""The names a sweep gives its files (``KEY=VALUE.parquet``, or ``KEY-I.parquet``)."""


def _sweep_folder(out: Path, sweep_id: dict, expected: dict, force: bool) -> set[str]:
    """Names of the files in a sweep folder that are complete, verified and reusable.

    A rerun touches only the names a sweep gives its files: a damaged file of this
    sweep is played again; files of another sweep are refused, or removed with
    ``force``. Any other ``.parquet`` file (a copy under another name, someone else's
    file) is never touched, not even with ``force``: the folder is refused naming it.
    Hidden names are never read.
    """
    from analysis.summary import SummaryReducer
    from engine import fileio
    from engine.runs.dataset import check_claims, differs, run_identity

    def refuse(f: Path, what: str) -> UsageError:
        return UsageError(
            f"--out {out}: holds {f.name}, {what}; a sweep touches only its own file names, "
            "use another --out"
        )

    reuse, remove = set(), []
    for f in sorted(out.iterdir()):
        if f.name.startswith((".", "_")) or f.suffix != ".parquet" or not f.is_file():
            continue
        ours = f.name in expected
        try:
            pm = fileio.read_meta(f)
            fileio.verify(pm)
        except UsageError as exc:
            if ours and fileio.damaged_output(f, exc):
                print(f"mjlab: {exc}; playing it again", file=sys.stderr)
                remove.append(f)
                continue
            raise refuse(f, f"which is not a sweep file ({str(exc).split(': ', 1)[-1]})") from None
        theirs = pm.meta.get("sweep")
        if differs(theirs, sweep_id):
            what = "no sweep" if not isinstance(theirs, dict) else _differs(theirs, sweep_id)
            if not force or not isinstance(theirs, dict) or not _SWEEP_FILE.match(f.name):
                raise UsageError(
                    f"--out {out}: holds another sweep ({f.name}: {what}); "
                    + ("use another --out, or --force to replace it" if not force else
                       "--force replaces only files named as a sweep names them")
                )  # fmt: skip
            remove.append(f)
            continue
        if not ours:
            raise refuse(f, "a copy of a file of this sweep under another name")
        spec = expected[f.name]
        ident = {k: x for k, x in run_identity(pm.meta).items() if k != "sweep"}
        try:
            if differs(ident, spec.identity()):
                raise UsageError(f"{f}: not one of this sweep's values")
            check_claims(pm, reducer=SummaryReducer)
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
    from engine.runs.dataset import differs

    diff = differs(theirs, ours)
    return f"differs in {', '.join(diff)}"


def _sweep_frames(out, names, specs, parsed, reuse, sweep_id, workers, progress) -> dict:
    """Each value's record frame: read back when reusable, else played and written."""
    import pyarrow.parquet as pq

    from engine.play import records
    from engine.runs.run import simulate

    todo = sum(spec.deals for name, spec in zip(names, specs, strict=True) if name not in reuse)
    bar = None
    if progress and todo:
        from tqdm.auto import tqdm

        bar = tqdm(total=todo, unit="deal", unit_scale=True, desc=f"sweep {sweep_id['option']}")
    frames = {}
    try:
        for name, spec, value in zip(names, specs, parsed, strict=True):
            path = out / name
            if name in reuse:
                frames[value] = pq.read_table(path).to_pandas()
                continue
            if bar is not None:
                bar.set_postfix_str(f"{sweep_id['option']}={value}")
            run = simulate(
                spec.variant,
                spec.deals,
                seed=spec.seed,
                rules=spec.rules,
                policies=spec.policies,
                workers=workers,
                progress=False,
                chunk_matches=64,
                on_chunk=None if bar is None else bar.update,
            )
            df = run.to_pandas()
            records.write_parquet(df, path, {**run.metadata(), "sweep": sweep_id})
            frames[value] = df
    finally:
        if bar is not None:
            bar.close()
    return frames
