"""The variant registry: every variant declared once, by name (``mjlab variants`` lists them).

A variant is one folder here, ``engine/variants/<name>/`` (its declaration in
``__init__.py``, its kernels in ``_kernels.py``), and one name in ``_registry.MODULES``.

>>> from engine import variants
>>> "tuidaohu" in variants.names()
True
"""

from __future__ import annotations

from importlib import import_module

from ._base import HeadlineSweep, Pattern, ReportBudget, RuleOption, Variant, parse_rule_args
from ._registry import MODULES, chosen, get, listed, mark_loaded, names, register

for _m in MODULES:
    import_module(f"{__name__}.{_m}")
mark_loaded()

__all__ = [
    "Variant",
    "RuleOption",
    "Pattern",
    "ReportBudget",
    "HeadlineSweep",
    "get",
    "chosen",
    "names",
    "listed",
    "register",
    "parse_rule_args",
    "MODULES",
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
        "listed": v.listed,
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
                "payout": o.payout,
                "changes_deal": o.changes_deal,
            }
            for o in v.options
        ],
        "patterns": [
            {"name": p.name, "hanzi": p.hanzi, "big": p.big, "doc": p.doc} for p in v.patterns
        ],
        "extras": list(v.extra_columns),
    }
