"""``mjlab ladder``: each policy against the one below it (:mod:`analysis.ladder`)."""

from __future__ import annotations

from engine.errors import UsageError

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
    if args.sample is not None:
        return _held(args, rules, pols, params)
    if args.sample_seed is not None:
        raise UsageError("mjlab ladder --sample-seed draws the --sample settings: give --sample N")
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


def _held(args, rules, pols, params) -> int:
    """``mjlab ladder VARIANT --sample N [--sample-seed S]``: the ladder at each setting of
    analysis.guard.held_settings, one block per setting, and a last line naming those
    where a rung does not hold.
    """
    import json
    import sys

    from analysis.guard import held_settings
    from analysis.ladder import ladder

    if rules:
        raise UsageError("mjlab ladder --sample: the settings are drawn; give no --rule/--rules")
    seed = 0 if args.sample_seed is None else args.sample_seed
    settings = held_settings(args.variant, args.sample, seed)
    out = []
    for s in settings:
        lad = ladder(
            args.variant, deals=args.deals, seed=args.seed, rules=s["rules"], policies=pols,
            workers=args.workers, progress=not args.quiet, params=params,
        )  # fmt: skip
        out.append({**s, "ladder": lad})
        if not args.json:
            print(f"== {s['setting']} ({s['source']})")
            print(lad.text(), flush=True)
    failed = [o["setting"] for o in out if not o["ladder"].holds()]
    if args.json:
        body = {
            "variant": args.variant, "sample": args.sample, "sample_seed": seed,
            "holds": not failed,
            "settings": [{k: (v.to_dict() if k == "ladder" else v) for k, v in o.items()}
                         for o in out],
        }  # fmt: skip
        json.dump(body, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(
            f"every rung holds at all {len(out)} settings"
            if not failed
            else f"a rung does not hold at {len(failed)} of {len(out)} settings: "
            + "; ".join(failed)
        )
    return 0
