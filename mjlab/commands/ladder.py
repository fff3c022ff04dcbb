"""``mjlab ladder``: each policy against the one below it (:mod:`analysis.ladder`)."""

from __future__ import annotations

__all__ = ["run_ladder"]


def run_ladder(args) -> int:
    """Handle ``mjlab ladder VARIANT [--deals N] [--seed S] [--json]``."""
    import json
    import sys

    from analysis.ladder import ladder
    from engine.play.bots import load_params
    from engine.variants import get, parse_rule_args

    rules = parse_rule_args(args.rule, args.rules)
    pols = None if args.policies is None else [p.strip() for p in args.policies.split(",")]
    params = None
    if args.bot_params is not None:
        data = load_params(args.bot_params, get(args.variant))
        params = {data["bot"]["policy"]: {**(data.get("model") or {}), **data["params"]}}
    lad = ladder(
        args.variant, deals=args.deals, seed=args.seed, rules=rules, policies=pols,
        workers=args.workers, progress=not args.quiet, params=params,
    )  # fmt: skip
    if args.json:
        json.dump(lad.to_dict(), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(lad.text())
    return 0
