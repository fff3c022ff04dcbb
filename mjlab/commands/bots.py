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
        raise UsageError("mjlab fit: the committed models are fitted at default rules")
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
        progress=not args.quiet, seating=args.seating, only=args.only,
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
