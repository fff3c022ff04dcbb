"""Handlers of ``mjlab fit`` and ``mjlab tune`` (the strong policy's models, tuning)."""

from __future__ import annotations

import sys

from engine.errors import UsageError

__all__ = ["run_fit", "run_tune"]


def run_fit(args) -> int:
    """``mjlab fit VARIANT [--deals N] [--seed S] [--policy P] [--dry-run]``."""
    from engine.runs import fit
    from engine.variants import parse_rule_args

    rules = parse_rule_args(args.rule, args.rules)
    if rules:
        return _refit(args, rules)
    res = fit.fit(
        args.variant, deals=args.deals, seed=args.seed, policy=args.policy,
        threads=2 if args.workers is None else args.workers, progress=not args.quiet,
    )  # fmt: skip
    s = res["summary"]
    print(
        f"{args.variant}: {s['hand_positions']:,} hand and {s['danger_positions']:,} danger "
        f"positions; win rate {s['win_rate']:.3f}, feeding rate {s['danger_rate']:.4f}"
    )
    if not args.dry_run:
        print(f"wrote {fit.write(args.variant, res)}")
    return 0


def _refit(args, rules) -> int:
    """``mjlab fit VARIANT --rule K=V ...``: strong's models refitted at other play options
    (engine.runs.adapt.refit), committed beside the variant's bot data; the deals, seed
    and policy are the committed fit's.
    """
    from engine.runs import adapt
    from engine.variants import get

    v = get(args.variant)
    resolved = v.resolve(rules)
    if not adapt.changes_play(v, resolved):
        raise UsageError(
            f"mjlab fit {args.variant}: {', '.join(sorted(rules))} changes no play option; "
            "payout options are priced from the run's rules without a refit"
        )
    for name in ("deals", "seed", "policy"):
        if getattr(args, name) != _FIT_DEFAULTS[name]:
            raise UsageError(f"mjlab fit --rule: --{name} is the committed fit's")
    res = adapt.refit(v, resolved, progress=not args.quiet)
    print(f"{args.variant} {v.rules_id(resolved)}: refitted at {', '.join(sorted(rules))}")
    if not args.dry_run:
        print(f"wrote {adapt.write_refit(v, resolved, res)}")
    return 0


_FIT_DEFAULTS = {"deals": 20_000, "seed": 1, "policy": "value"}
"""``mjlab fit``'s defaults (a refit at other rules takes the committed fit's instead)."""


def run_tune(args) -> int:
    """``mjlab tune VARIANT --policy strong|value [--deals N] [--seed S] ...``."""
    from engine.runs import tune
    from engine.variants import parse_rule_args

    rules = parse_rule_args(args.rule, args.rules)
    if rules:
        raise UsageError("mjlab tune: the committed parameters are tuned at default rules")
    res = tune.tune(
        args.variant, policy=args.policy, deals=args.deals, seed=args.seed,
        generations=args.generations, popsize=args.popsize, workers=args.workers,
        progress=not args.quiet, seating=args.seating, only=args.only, over=args.over,
    )  # fmt: skip
    last = res["tune"]["history"][-1]
    print(
        f"{args.variant} {args.policy}: last generation mean edge {last['mean_edge']:+.3f} "
        f"over {res['tune']['field']} (best {last['best_edge']:+.3f}); tuned "
        + ", ".join(f"{k}={v}" for k, v in last["mean"].items()),
        file=sys.stdout,
    )
    if not args.dry_run:
        print(f"wrote {tune.write(args.variant, args.policy, res)}")
    return 0
