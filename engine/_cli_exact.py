"""``mjlab exact``: the command, with its variant form (``mjlab exact VARIANT``).

The combinatorics are :mod:`engine.exact`, a floor that knows no variant; a variant's
deal events (``Variant.exact``) are looked up here, in the command layer, so that no
module below the commands imports upward.
"""

from __future__ import annotations

from fractions import Fraction

from . import exact
from .errors import UsageError
from .fileio import print_json
from .variants import get, parse_rule_args

__all__ = ["run_cli"]


def run_cli(args) -> int:
    """``mjlab exact [VARIANT]``: a variant's deal events, or :func:`engine.exact.run_cli`."""
    if getattr(args, "variant", None):
        return _variant_cli(args, print_json)
    return exact.run_cli(args)


def _variant_cli(args, print_json) -> int:
    """``mjlab exact VARIANT``: the variant's deal events (天胡 ...) under its rules."""
    v = get(args.variant)
    if v.exact is None:
        raise UsageError(f"exact {v.name}: no exact deal events for this variant yet")
    if args.tiles is not None or args.hand is not None or args.wild or args.shanten:
        raise UsageError(
            "exact VARIANT takes its deck and wilds from the rules; "
            "use --rule K=V instead of --tiles/--hand/--wild/--shanten"
        )
    rules = v.resolve(parse_rule_args(args.rule, getattr(args, "rules", None)))
    events = v.exact(rules)
    out = {"variant": v.name, "rules_id": v.rules_id(rules), "rules": rules}
    for name, value in events.items():
        if isinstance(value, Fraction):
            out[name] = {"p": float(value), "fraction": f"{value.numerator}/{value.denominator}"}
        else:
            out[name] = value
    if args.json:
        print_json(out)
        return 0
    print(f"{v.name} (rules_id {out['rules_id']}): exact probabilities of deal events")
    for name, value in out.items():
        if isinstance(value, dict) and "p" in value:
            p = value["p"]
            one_in = f"  (1 in {1 / p:,.0f})" if p > 0 else ""
            print(f"  {name:<24} {p:.6e}  = {value['fraction']}{one_in}")
        elif name == "note":
            print(f"  note: {value}")
    return 0
