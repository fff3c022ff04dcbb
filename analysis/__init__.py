"""mjlab analysis: pandas tables with intervals from per-deal records.

Pure functions on record frames (DESIGN schema, one row per deal) returning tidy
frames; those computable from counts, sums and sums of squares also accept a mergeable
:class:`Summary`. Every rate and mean comes with an interval.

>>> import analysis
>>> from analysis.testing import synthetic_records
>>> df = synthetic_records(100, seed=1)
>>> s = analysis.Summary.from_records(df)
>>> analysis.pattern_frequencies(s).columns.tolist()[:5]
['variant', 'rules_id', 'pattern', 'per', 'n']
"""

from __future__ import annotations

import importlib
import sys
import types

# each public name (``__all__``) and the module that defines it: imported on first use, so that
# ``from analysis.summary import ...`` (mjlab simulate) does not import SciPy and the
# rest of the analysis layer on every command that only plays deals
_WHERE = {
    "Summary": "summary",
    "WIN_TYPES": "schema",
    "big_hand_frequency": "frequencies",
    "cached_gap": "rescoring",
    "compare_variants": "compare",
    "dealer_edge": "fairness",
    "delta_histogram": "payouts",
    "design": "rule_search",
    "duplicate_gain": "skill",
    "extra_means": "payouts",
    "fairness_tests": "fairness",
    "gini": "payouts",
    "jsonable": "_util",
    "load": "io",
    "loss_probability": "payouts",
    "match_gini": "payouts",
    "match_payouts": "payouts",
    "match_risk": "risk",
    "match_table": "risk",
    "match_totals": "payouts",
    "pattern_frequencies": "frequencies",
    "payout_quantiles": "payouts",
    "payouts_by_role": "payouts",
    "payouts_by_seat": "payouts",
    "payouts_by_win_type": "payouts",
    "read_metadata": "io",
    "rescore": "rescoring",
    "rescore_gap": "rescoring",
    "seat_edges": "fairness",
    "seat_frequencies": "frequencies",
    "seating_match_edges": "risk",
    "skill_edge": "skill",
    "skill_gain": "risk",
    "strong_seats": "skill",
    "summarize": "io",
    "sweep": "sweep",
    "sweep_metrics": "sweep",
    "sweep_table": "sweep",
    "swinginess": "payouts",
    "validate_records": "schema",
    "value_histogram": "payouts",
    "wilds_frequencies": "frequencies",
    "win_type_frequencies": "frequencies",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        # a submodule (``analysis.payouts``), as after the eager imports this replaces
        try:
            return importlib.import_module(f"analysis.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"analysis.{name}":
                raise
        raise AttributeError(f"module 'analysis' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"analysis.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_WHERE))


class _Package(types.ModuleType):
    """The package, keeping a public name that is also a submodule's (``sweep``) for the
    function: the import system binds each submodule it loads to its parent's attribute,
    which would otherwise replace the function with its module.
    """

    def __setattr__(self, name, value):
        if name in _WHERE and isinstance(value, types.ModuleType):
            return  # reached through sys.modules; the attribute stays the function
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
