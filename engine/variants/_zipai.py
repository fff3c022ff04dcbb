"""Shared by the 字牌-family variants: ``mjlab score``'s arguments to a variant's scorer."""

from __future__ import annotations

from ..errors import UsageError
from ._base import parse_rule_args

__all__ = ["score_from_args"]


def score_from_args(v, args) -> dict:
    """``mjlab score`` for the 字牌 family: HAND and --win in x1..x10 d1..d10 w notation,
    --melds the table groups (``"peng:d3 pao:x5 chi:x1x2x3"``), --flag flip/tianhu/dihu,
    --xing-card the 醒 card. Under 天胡 --win is optional: it names the dealer's last dealt
    card (the 醒 card under 跟醒).
    """
    if args.flowers:
        raise UsageError(f"--flowers: {v.name} has no flowers, got {args.flowers}")
    if args.streak:
        raise UsageError(f"--streak: {v.name}'s score takes no dealer streak")
    rules = v.resolve(parse_rule_args(args.rule, args.rules))
    flags = set(args.flag)
    unknown = flags - {"flip", "tianhu", "dihu"}
    if unknown:
        raise UsageError(
            f"unknown --flag {sorted(unknown)[0]!r} for {v.name}; flags: flip, tianhu, dihu"
        )
    if args.wild:
        raise UsageError(f"{v.name}: 王 are written in HAND as w, not with --wild")
    try:
        return v.score_hand(
            rules,
            args.hand,
            win=args.win,
            table=args.melds,
            from_seat=args.from_seat,
            flip="flip" in flags,
            tianhu="tianhu" in flags,
            dihu="dihu" in flags,
            xing_card=getattr(args, "xing_card", None),
            seat=args.seat,
            dealer=args.dealer,
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
