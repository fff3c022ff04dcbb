"""The mahjong family's tuning spaces: which bot parameters ``mjlab tune`` searches.

:data:`SPACES` gives each tuned policy's dimensions; :func:`relevant` drops those the
rules make inert (no chow bias without chows, no feeding weight without discard wins,
no target without its patterns) and those a variant's defaults do not opt in to (passing
a win, kong slack, holding triplets for kongs, the value bot's safe tie-break).
"""

from __future__ import annotations

from engine._dims import Dim
from engine.mahjong import layout as L
from engine.mahjong.params import TARGETS

__all__ = ["SPACES", "relevant"]

SPACES = {
    "value": (
        Dim("flush", 0.0, 24.0, 3.0),
        Dim("half", 0.0, 16.0, 2.0),
        Dim("triplets", 0.0, 16.0, 2.0),
        Dim("pairs", 0.0, 12.0, 2.0),
        Dim("wild_pair", 0.0, 16.0, 2.0),
        Dim("chase_min_live", 0.0, 30.0, 4.0),
        Dim("pass_self", 0.0, 900.0, 60.0),
        Dim("kong_slack", 0.0, 4.0, 0.5),
        Dim("safe_ties", 0.0, 3.0, 0.5),
        Dim("claim_margin", 0.0, 3.0, 1.0),
    ),
    "strong": (
        Dim("alpha", 0.0, 3.0, 0.4),
        Dim("alpha_kong", 0.0, 3.0, 0.4),
        Dim("claim_bias", -2.0, 2.0, 0.3),
        Dim("chow_bias", -2.0, 2.0, 0.3),
        Dim("claim_closer", 0.0, 1.0, 0.5),
        Dim("kong_bias", -6.0, 6.0, 1.0),
        Dim("rob", 0.0, 4.0, 0.5),
        Dim("mult.0", 0.0, 1.5, 0.2),
        Dim("mult.1", 0.0, 3.0, 0.4),
        Dim("mult.2", 0.0, 3.0, 0.4),
        Dim("mult.3", 0.0, 3.0, 0.4),
        Dim("mult.4", 0.0, 3.0, 0.4),
        Dim("mult.5", 0.0, 3.0, 0.4),
        Dim("mult.6", 0.0, 3.0, 0.4),
        Dim("chase_min_live", 0.0, 30.0, 4.0),
        Dim("pass_self", 0.0, 900.0, 60.0),
        Dim("kong_hold", 0.0, 6.0, 1.0),
        Dim("tongbao", 0.0, 4.0, 0.5),
    ),
}
"""The parameters each policy tunes, with their boxes."""


def relevant(variant, resolved, policy: str) -> list[Dim]:
    """The dimensions that can change play under these rules (the rest stay put)."""
    packed = variant.pack(resolved)
    chow = packed[L.R_CHOW] == 1
    discard_win = packed[L.R_DISCARD_WIN] == 1
    wilds = packed[L.R_WILD_KINDS] > 0
    targets = variant.bot_targets or {}
    # a variant opts in to passing discard wins for a self-draw in its bots' defaults
    own = variant.bot_params(policy, resolved) if variant.bot_params else {}
    out = []
    for d in SPACES[policy]:
        base = d.name.split(".")[0]
        if d.name == "chow_bias" and not chow:
            continue
        if d.name == "alpha" and not discard_win:
            continue
        if d.name == "pass_self" and not (discard_win and "pass_self" in own):
            continue
        if d.name in ("kong_slack", "kong_hold", "tongbao") and d.name not in own:  # opt-in
            continue
        if d.name == "kong_bias" and float(own.get("kong_tempo", 0.0)) > 0:
            continue  # where a kong's tempo is weighed, its expected value alone decides
        if d.name == "safe_ties" and "safe_ties" not in own:  # where its defence is on
            continue
        if base in ("wild_pair", "chase_min_live") and not (wilds and targets.get("wild_pair")):
            continue
        if policy == "value" and base in ("flush", "half", "triplets", "pairs"):
            if not targets.get(base):
                continue
        if d.name.startswith("mult."):
            key = TARGETS[int(d.name[5:])]
            if key != "plain" and (not targets.get(key) or (key == "wild_pair" and not wilds)):
                continue
        out.append(d)
    return out
