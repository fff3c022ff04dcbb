"""``mjlab design``: search rule settings for a fairness target (:mod:`analysis.rule_search`)."""

from __future__ import annotations

from engine.errors import UsageError

__all__ = ["run_design"]


def run_design(args) -> int:
    """Handle ``mjlab design VARIANT --vary K=V1,V2 ... --target C [--keep C] ...``."""
    import json

    from analysis._util import jsonable
    from analysis.rule_search import _values, design, design_plot, format_design
    from engine import paths
    from engine.runs.run import MAX_MATCH_LENGTH, MAX_MATCHES, _check_int
    from engine.variants import get as get_variant
    from engine.variants import parse_rule_args
    from mjlab.commands.export import check_export, export

    get_variant(args.variant)
    fmt = check_export(args)
    _check_int("--skill-deals", args.skill_deals, 2, MAX_MATCHES * MAX_MATCH_LENGTH)
    vary = dict(_values(raw) for raw in args.vary)
    if len(vary) != len(args.vary):
        raise UsageError("--vary: an option is given twice")
    fixed = parse_rule_args(args.rule, args.rules)
    both = set(fixed) & set(vary)
    if both:
        raise UsageError(f"--rule and --vary both set {', '.join(sorted(both))}")
    if args.plot is not None:
        paths.check_output(args.plot, "--plot")
        if not args.plot.endswith(".png"):
            raise UsageError(f"--plot {args.plot}: give a .png file name")
    table = design(
        args.variant,
        vary,
        target=args.target,
        keep=args.keep,
        deals=args.deals,
        seed=args.seed,
        rules=fixed,
        policies=args.policy.split(",") if "," in args.policy else args.policy,
        simulate_all=args.simulate_all,
        max_settings=args.max_settings,
        skill_deals=args.skill_deals,
        workers=args.workers,
        progress=not args.quiet,
        bot_check=not args.no_bot_check,
    )
    if args.plot is not None:
        design_plot(table, args.plot)
    if fmt in ("csv", "xlsx"):
        meta = table.attrs["design"]
        export({"design": table}, fmt, args.export, {k: meta[k] for k in meta if k != "rules"})
        return 0
    if fmt == "json":
        print(
            json.dumps(
                jsonable({"design": table.attrs["design"], "settings": table}),
                ensure_ascii=False,
                indent=2,
            )
        )
        return 0
    print(format_design(table))
    if args.plot:
        print(f"\nplot: {args.plot}")
    return 0
