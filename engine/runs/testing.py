"""Conformance checks over the variant registry (STYLE §5), usable from tests.

:func:`check_variant` plays deals of a variant with every policy and checks DESIGN's
conservation rules on every deal, through the variant's family
(:attr:`engine.play.family.Family.check`: :func:`engine.play.mahjong.testing.check_mahjong_variant`,
:func:`engine.play.zipai.testing.check_zipai_variant`): every tile or card accounted for,
deltas summing to 0, winner / win_type / discarder consistent, ``pat_*`` set only with a
winner, the value paid and the payments paid again from the record row by the variant's
own settlement (:func:`settle_mismatch`: the record carries every input of its payment;
the tests check that settlement against an independent numpy twin), and (given a
``complete`` function, e.g. the brute-force twin of the tests) the winning hand really
complete.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from engine.play.family import family_of
from engine.play.records import ConformanceError
from engine.play.records import settle_mismatch as _settle_mismatch
from engine.variants import get as get_variant

__all__ = ["check_variant", "settle_mismatch", "ConformanceError"]


def settle_mismatch(variant, resolved: Mapping, frame):
    """The first deal whose record disagrees with its settlement paid again from the record
    row, as ``(i, message)``, or None (:func:`engine.play.records.settle_mismatch`).
    """
    return _settle_mismatch(variant, resolved, frame, family_of(variant).rescore)


def check_variant(
    variant: str,
    matches: int = 50,
    seed: int = 0,
    rules: Mapping | None = None,
    policies=None,
    complete: Callable | None = None,
) -> int:
    """Check every deal of ``matches`` matches per policy; returns the deals checked.

    Parameters
    ----------
    complete : callable, optional
        An independent completeness check of the winning hand, in the family's terms
        (:attr:`engine.play.family.Family.check` documents each; the brute-force twins of the
        tests are ``tests/oracles``).
    """
    v = get_variant(variant)
    return family_of(v).check(v, v.resolve(rules), matches, seed, policies, complete)
