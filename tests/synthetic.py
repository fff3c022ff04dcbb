"""A stand-in variant for the tests of the tables that read a variant's rule options
(:mod:`analysis.sensitivity`, :mod:`analysis.recommend`) over the synthetic records of
:mod:`analysis.testing`."""

from __future__ import annotations

from types import SimpleNamespace

from engine.variants._base import RuleOption

DM = RuleOption("dm", 2, (1, 2), "dealer multiplier")
"""The dealer multiplier (``synthetic_records(dealer_multiplier=...)``)."""

NOOP = RuleOption("noop", False, (False, True), "does nothing")
"""An option whose values play the same records."""


def synthetic_variant(option: RuleOption) -> SimpleNamespace:
    """A variant named ``synthetic`` with the rule options ``dm``, ``option`` and ``noop``
    (in that order), as the tables read one: ``name`` and ``option_map``."""
    return SimpleNamespace(name="synthetic", option_map={o.key: o for o in (DM, option, NOOP)})
