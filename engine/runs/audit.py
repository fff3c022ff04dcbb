"""The decision audit (``mjlab audit``): what a policy chose wherever it had a choice.

A family's audit (:attr:`engine.play.family.Family.audit`) replays the deals with the event
log on and counts, for the policy at every seat: the 碰, 明杠, 吃, 暗杠 and 补杠 open to it,
made and declined (honor 碰 apart); the legal wins it passed, and why; the wilds it
discarded; the live waits it kept or broke; its deal-ins, and those against an opponent
visibly close to winning. The bots play the run's rules as any run does (adapted to them,
:mod:`engine.runs.adapt`). :mod:`analysis.audit` turns the counts into rates with
intervals.
"""

from __future__ import annotations

from engine.errors import UsageError
from engine.play.bots import resolve_policies
from engine.play.family import family_of
from engine.runs.adapt import describe, seat_overrides
from engine.runs.run import MAX_MATCHES, MAX_SEED, _check_int
from engine.variants import get as get_variant

__all__ = ["audit"]


def audit(variant: str, deals: int = 400, seed: int = 7, rules=None, policy: str = "strong",
          match_length: int = 16) -> dict:  # fmt: skip
    """The decision audit of ``policy`` at every seat over ``deals`` deals of ``variant``.

    Returns ``{"variant", "rules_id", "rules", "policy", "deals", "seed", "bots",
    "counts"}``; ``counts`` maps each counter of the family's audit to its count.
    UsageError on bad input or where the family has no audit.
    """
    v = get_variant(variant)
    deals = _check_int("--deals", deals, 1, MAX_MATCHES)
    seed = _check_int("--seed", seed, 0, MAX_SEED)
    match_length = _check_int("--match-length", match_length, 1, 256)
    fam = family_of(v)
    if fam.audit is None:
        raise UsageError(f"mjlab audit: the {fam.name} family ({variant}) has no decision audit")
    resolved = v.resolve(rules)
    v.pack(resolved)
    if "," in policy:
        raise UsageError("mjlab audit: --policy takes one policy (it plays every seat)")
    pols = resolve_policies(v, policy, v.n_players(resolved))
    overrides = seat_overrides(v, resolved, pols)
    counts = fam.audit(v, resolved, seed, deals, pols, match_length, overrides)
    return {
        "variant": v.name,
        "rules_id": v.rules_id(resolved),
        "rules": resolved,
        "policy": policy,
        "deals": deals,
        "seed": seed,
        "bots": describe(v, resolved, pols),
        "counts": counts,
    }
