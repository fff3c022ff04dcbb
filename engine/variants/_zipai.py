"""Shared by the 字牌-family variants: ``mjlab score``'s arguments to a variant's scorer."""

from __future__ import annotations

from ..errors import UsageError

__all__ = ["score_request"]


def score_request(
    v,
    hand: str,
    *,
    win: str | None = None,
    rules=None,
    from_seat: int | None = None,
    melds: str = "",
    seat: int = 0,
    dealer: int = 0,
    streak: int = 0,
    wild=(),
    flowers: int = 0,
    xing_card: str | None = None,
    flags=(),
) -> dict:
    """One winning hand of the 字牌 family scored (``mjlab score``): ``hand`` and ``win`` in
    x1..x10 d1..d10 w notation, ``melds`` the table groups (``"peng:d3 pao:x5 chi:x1x2x3"``),
    ``flags`` among flip/tianhu/dihu, ``xing_card`` the 醒 card. Under 天胡 ``win`` is
    optional: it names the dealer's last dealt card (the 醒 card under 跟醒). The keywords
    are those of the mahjong family's ``score_request``; ``streak``, ``wild`` and ``flowers``
    must stay empty here.
    """
    if flowers:
        raise UsageError(f"--flowers: {v.name} has no flowers, got {flowers}")
    if streak:
        raise UsageError(f"--streak: {v.name}'s score takes no dealer streak")
    rules = v.resolve(rules)
    flagset = set(flags)
    unknown = flagset - {"flip", "tianhu", "dihu"}
    if unknown:
        raise UsageError(
            f"unknown --flag {sorted(unknown)[0]!r} for {v.name}; flags: flip, tianhu, dihu"
        )
    if wild:
        raise UsageError(f"{v.name}: 王 are written in HAND as w, not with --wild")
    try:
        return v.score_hand(
            rules,
            hand,
            win=win,
            table=melds,
            from_seat=from_seat,
            flip="flip" in flagset,
            tianhu="tianhu" in flagset,
            dihu="dihu" in flagset,
            xing_card=xing_card,
            seat=seat,
            dealer=dealer,
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
