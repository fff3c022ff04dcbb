"""The variant registry and the ``mjlab variants`` command.

>>> from engine import variants
>>> "tuidaohu" in variants.names()
True
"""

from __future__ import annotations

from importlib import import_module

from ._base import Pattern, RuleOption, Variant, parse_rule_args
from ._registry import MODULES, get, mark_loaded, names, register

for _m in MODULES:
    import_module(f"{__name__}.{_m}")
mark_loaded()

__all__ = [
    "Variant",
    "RuleOption",
    "Pattern",
    "get",
    "names",
    "register",
    "parse_rule_args",
    "MODULES",
    "run_cli",
    "describe",
]


def describe(name: str) -> dict:
    """A JSON-able description of a variant: options with defaults and allowed values."""
    v = get(name)
    return {
        "name": v.name,
        "long_name": v.long_name,
        "version": v.version,
        "family": v.family,
        "players": v.players,
        "value_unit": v.value_unit,
        "rulebook": v.rulebook_section,
        "policies": list(v.policies),
        "options": [
            {
                "key": o.key,
                "default": o.default,
                "allowed": list(o.allowed),
                "doc": o.doc,
                "rulebook": o.rulebook,
            }
            for o in v.options
        ],
        "patterns": [
            {"name": p.name, "hanzi": p.hanzi, "big": p.big, "doc": p.doc} for p in v.patterns
        ],
        "extras": list(v.extras),
    }


def run_score_cli(args) -> int:
    """Handle ``mjlab score``."""
    from ..cli import print_json
    from ..family import family_of

    v = get(args.variant)
    result = family_of(v).score(v, args)
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


def run_cli(args) -> int:
    """Handle ``mjlab variants``."""
    from ..cli import print_json

    data = [describe(n) for n in names()]
    if args.json:
        print_json(data)
        return 0
    for d in data:
        print(
            f"{d['name']}  {d['long_name']}  (version {d['version']}, RULEBOOK {d['rulebook']},"
            f" value in {d['value_unit']})"
        )
        for o in d["options"]:
            allowed = "|".join(
                str(a).lower() if isinstance(a, bool) else str(a) for a in o["allowed"]
            )
            default = str(o["default"]).lower() if isinstance(o["default"], bool) else o["default"]
            print(f"  {o['key']}={default}  [{allowed}]  {o['doc']} ({o['rulebook']})")
        pats = ", ".join(f"{p['hanzi']} {p['name']}" for p in d["patterns"])
        print(f"  patterns: {pats}")
        print()
    return 0
