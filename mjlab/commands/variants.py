"""``mjlab variants``, ``mjlab score`` and ``mjlab replay``: the command handlers.

They read a variant from the registry and reach its family's entry points
(:func:`engine.play.family.family_of`): the variant's description, one hand scored, one
deal replayed turn by turn.
"""

from __future__ import annotations

from engine.errors import UsageError

__all__ = ["run_variants", "run_score", "run_replay"]


def run_score(args) -> int:
    """Handle ``mjlab score``."""
    from engine.fileio import print_json
    from engine.play.family import family_of
    from engine.variants import get, parse_rule_args

    v = get(args.variant)
    if v.score_hand is None:
        raise UsageError(f"`mjlab score` is not available for {v.name} yet")
    result = family_of(v).score(
        v,
        args.hand,
        win=args.win,
        rules=parse_rule_args(args.rule, args.rules),
        from_seat=args.from_seat,
        melds=args.melds,
        seat=args.seat,
        dealer=args.dealer,
        streak=args.streak,
        wild=args.wild,
        flowers=args.flowers,
        xing_card=args.xing_card,
        flags=args.flag,
    )
    assumed = []
    if not args.self_draw and args.from_seat is None:
        assumed.append("self_draw")
        result = {**result, "assumed": assumed}
    if args.json:
        print_json(result)
        return 0
    if assumed:
        print("assumed: a self-draw win (give --self-draw, or --from SEAT for a win on a discard)")
    if not result["complete"]:
        print(f"{args.hand}: not a complete hand under {v.name}")
        return 0
    pats = ", ".join(result["patterns"]) or "(none)"
    worth = f"patterns {pats}; value {result['value']} {v.value_unit}"
    if result.get("legal") is False:
        # a complete hand a variant's minimum refuses (诸暨 3 台) is scored but not paid
        ordinary = result.get("ordinary")
        below = f" (ordinary {ordinary} {v.value_unit} is below the minimum)" if ordinary else ""
        print(
            f"{args.hand} cannot be declared under {v.name}: {worth}; NOT a legal win{below}, "
            "no payments"
        )
        return 0
    print(f"{args.hand} wins under {v.name}: {worth}")
    print("payments: " + "  ".join(f"seat {s}: {d:+d}" for s, d in enumerate(result["deltas"])))
    for note in result.get("notes", ()):
        print(f"note: {note}")
    return 0


def run_variants(args) -> int:
    """Handle ``mjlab variants``."""
    from engine.fileio import print_json
    from engine.variants import describe, listed

    data = [describe(n) for n in listed()]
    if args.json:
        print_json(data)
        return 0
    for d in data:
        print(
            f"{d['name']}  {d['long_name']}  (version {d['version']}, RULEBOOK {d['rulebook']},"
            f" value in {d['value_unit']})"
        )
        for o in d["options"]:
            allowed = _allowed_text(o["allowed"])
            default = str(o["default"]).lower() if isinstance(o["default"], bool) else o["default"]
            kind = "  (payout: re-scorable)" if o["payout"] else ""
            print(f"  {o['key']}={default}  [{allowed}]{kind}  {o['doc']} ({o['rulebook']})")
        pats = ", ".join(f"{p['hanzi']} {p['name']}" for p in d["patterns"])
        print(f"  patterns: {pats}")
        print()
    return 0


def _allowed_text(allowed) -> str:
    """``a|b|c``, or ``lo..hi`` for a run of more than 8 consecutive integers."""
    ints = all(isinstance(a, int) and not isinstance(a, bool) for a in allowed)
    if ints and len(allowed) > 8 and list(allowed) == list(range(allowed[0], allowed[-1] + 1)):
        return f"{allowed[0]}..{allowed[-1]}"
    return "|".join(str(a).lower() if isinstance(a, bool) else str(a) for a in allowed)


def run_replay(args) -> int:
    """Handle ``mjlab replay``."""
    from engine.play.bots import resolve_policies
    from engine.play.family import family_of
    from engine.runs.adapt import seat_overrides
    from engine.runs.run import DEFAULT_MATCH_LENGTH
    from engine.variants import get, parse_rule_args

    rules = parse_rule_args(args.rule, args.rules)
    length = DEFAULT_MATCH_LENGTH if args.match_length is None else args.match_length
    v = get(args.variant)
    resolved = v.resolve(rules)
    # the bots as a run under these rules plays them (engine.runs.adapt)
    pols = resolve_policies(v, args.policy, v.n_players(resolved))
    overrides = seat_overrides(v, resolved, pols) or None
    replay_text = family_of(v).replay
    print(replay_text(args.variant, args.seed, args.match, args.deal, rules, args.policy, length,
                      overrides))  # fmt: skip
    return 0
