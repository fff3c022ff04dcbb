"""Re-scoring recorded deals under changed payout options (the designer's bench).

A payout option (:attr:`engine.variants.RuleOption.payout`) changes only what a deal
pays, not how a value-blind policy plays it. So the deals recorded under one rule set,
with their patterns, winners, feeders and the variant's scoring extras, can be paid
again under another by the variant's own settlement kernel, the one the game loop pays a
deal with, run over the record rows (the family's ``rescore``: the mahjong variants'
``restore`` and ``settle`` hooks, the 字牌 variants' ``settle_row``): every column the
payout options fix (value, deltas, the patterns they price and the variant's scoring
columns) is paid again from the rest of the record. For ``efficiency`` and ``random`` play the
re-scored records equal a fresh simulation under the new options, column for column
(``tests/engine/runs/test_rescore.py`` sweeps every payout option of every variant); value-aware
policies (``value``, ``strong``) may play differently under other values, and
:func:`analysis.rescore_gap` measures that first-order bias.

An option that changes play (wilds, claims, legality minimums, the wall) is refused
with a message that says to simulate instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from engine.errors import UsageError
from engine.variants import get as get_variant

__all__ = [
    "payout_keys",
    "check_changes",
    "rescore_frame",
    "settled_columns",
    "rescored_identity",
    "is_exact",
]


def is_exact(variant, policies) -> bool:
    """Whether re-scoring records played by ``policies`` is exact: every one of them is
    blind to the payout options in this variant (``Variant.value_blind``).
    """
    v = get_variant(variant) if isinstance(variant, str) else variant
    return all(p in v.value_blind for p in policies)


def payout_keys(variant) -> tuple[str, ...]:
    """The keys of a variant's payout options (re-scorable), in declaration order."""
    v = get_variant(variant) if isinstance(variant, str) else variant
    return tuple(o.key for o in v.options if o.payout)


def check_changes(variant, changes: Mapping[str, Any]) -> dict[str, Any]:
    """Parse and validate payout changes; UsageError naming the first bad one.

    Unknown options and bad values get the variant's usual message; an option that
    changes play is refused with the command that would simulate it instead.
    """
    v = get_variant(variant) if isinstance(variant, str) else variant
    if not changes:
        raise UsageError(f"rescore {v.name}: no option to change (give --rule KEY=VALUE)")
    options = v.option_map
    out: dict[str, Any] = {}
    for key, value in changes.items():
        if key not in options:
            known = ", ".join(payout_keys(v)) or "none"
            raise UsageError(f"unknown rule option {key!r} for {v.name}; payout options: {known}")
        opt = options[key]
        parsed = opt.parse(value)
        if not opt.payout:
            raise UsageError(
                f"rule option {key} changes how {v.name} is played, so recorded deals cannot "
                f"be re-scored under it; simulate instead: mjlab simulate {v.name} "
                f"--rule {key}={_show(parsed)} (same --seed for common random numbers)"
            )
        out[key] = parsed
    return out


def _show(v) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def rescore_frame(
    frame: pd.DataFrame, variant, rules: Mapping[str, Any], changes: Mapping[str, Any]
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Re-score a record frame played under ``rules`` with ``changes`` applied.

    Parameters
    ----------
    frame : DataFrame
        Records of one variant and rule set (the DESIGN schema).
    variant : str or Variant
        Its variant.
    rules : mapping
        The options the records were played under (resolved or not).
    changes : mapping
        Payout options and their new values (:func:`check_changes`).

    Returns
    -------
    (DataFrame, dict)
        A new frame with every column the payout options fix recomputed, and
        ``rules_id`` set to the new rule set's; the new resolved options.
    """
    from engine.play.records import without_attrs

    v = get_variant(variant) if isinstance(variant, str) else variant
    changes = check_changes(v, changes)
    old = v.resolve(rules)
    new = {**old, **changes}
    got = settled_columns(v, new, frame)
    out = frame.copy(deep=False)
    plain = without_attrs(frame)
    for col, values in got.items():
        was = plain[col]
        if not np.array_equal(values, was.to_numpy()):
            out[col] = values.astype(was.dtype, copy=False)
    rid = v.rules_id(new)
    out["rules_id"] = pd.Categorical.from_codes(np.zeros(len(out), np.int8), [rid])
    return out, new


def settled_columns(variant, resolved: Mapping[str, Any], frame: pd.DataFrame) -> dict:
    """The columns a deal's settlement writes (value, deltas, patterns, extras), of every
    record of ``frame`` paid again under the resolved options by the variant's own
    settlement kernel (its family's ``rescore``). UsageError if the records lack a column
    it reads (records of an older version).
    """
    from engine.play.family import family_of
    from engine.play.records import settled_columns as settled

    return settled(variant, resolved, frame, family_of(variant).rescore)


def rescored_identity(meta: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """The identity of re-scored records: the source's, with the new options and rules_id
    and a ``rescored`` entry naming the source rule set and the changes (so a re-scored
    file never mixes silently with simulated records of the same options).
    """
    v = get_variant(meta["variant"])
    changes = check_changes(v, changes)
    new = {**v.resolve(meta["rules"]), **changes}
    prior = meta.get("rescored")
    source = prior["from_rules_id"] if prior else meta["rules_id"]
    base = dict(prior["changes"]) if prior else {}
    base.update(changes)
    drop = ("rows", "summary", "_range", "seeds", "chunk", "chunk_rows", "chunk_matches")
    out = {k: val for k, val in meta.items() if k not in drop}
    out["rules"] = new
    out["rules_id"] = v.rules_id(new)
    out["rescored"] = {"from_rules_id": source, "changes": base}
    return out
