"""The two game families as objects: what a variant's family plays, checks and fits with.

A variant names its family (``Variant.family``); :func:`family_of` gives the
:class:`Family` record, so the engine calls ``family_of(v).check(...)`` instead of testing
the family's name. Each family's entry points live in its own package (``engine.play.mahjong``
for mahjong, ``engine.zipai`` for 字牌) and take the same arguments in both.

>>> from engine import variants
>>> family_of(variants.get("luodisao")).name, family_of(variants.get("zhuji")).package
('zipai', 'engine.play.mahjong')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from engine.hand._tables import kernel_tables
from engine.mahjong import layout as game_layout
from engine.mahjong import params as game_params
from engine.play.mahjong import audit as game_audit
from engine.play.mahjong import fit as game_fit
from engine.play.mahjong import loop as game_loop
from engine.play.mahjong import replay as game_replay
from engine.play.mahjong import rescore as game_rescore
from engine.play.mahjong import testing as game_testing
from engine.play.mahjong import tuning as game_tuning
from engine.play.zipai import audit as zipai_audit
from engine.play.zipai import fit as zipai_fit
from engine.play.zipai import loop as zipai_loop
from engine.play.zipai import replay as zipai_replay
from engine.play.zipai import rescore as zipai_rescore
from engine.play.zipai import testing as zipai_testing
from engine.play.zipai import tuning as zipai_tuning
from engine.variants import _scoring as game_scoring
from engine.variants import _zipai as zipai_scoring
from engine.zipai import layout as zipai_layout
from engine.zipai import params as zipai_params

__all__ = ["Family", "FAMILIES", "MAHJONG", "ZIPAI", "family_of"]


@dataclass(frozen=True, eq=False)
class Family:
    """A game family: its kernels and the entry points every variant of it shares.

    Parameters
    ----------
    name : str
        The name variants declare (``Variant.family``).
    package : str
        The package of its kernels (named by the cold-start compile notice).
    play_matches : kernel
        ``play_matches`` of its game loop (``.serial`` is the one-thread version).
    params : module
        Its bot parameter layout (``N_BOT``, the blocks' keys).
    strong_version : int
        Version of its strong policy's parameter layout and meaning; a parameter file made
        for another version is refused.
    replay : callable
        ``replay(variant, seed, match, deal, rules, policies, match_length) -> str``: one
        deal told turn by turn (``mjlab replay``).
    check : callable
        ``check(variant, resolved, matches, seed, policies, complete) -> int``: conformance
        of every deal (engine.runs.testing.check_variant, which looks the variant up,
        resolves its rules and gives the defaults); ``complete`` is the family's
        independent check of a winning hand (mahjong ``complete(counts34, wilds, sets)``;
        字牌 ``complete(counts, kings, *, table, candidate, self_drawn)``).
    score : callable
        ``score(variant, hand, *, win, rules, from_seat, melds, seat, dealer, ...) -> dict``:
        one winning hand in notation checked and scored (``mjlab score``).
    tune_spaces : mapping
        The tuned dimensions of each policy (``mjlab tune``).
    relevant : callable
        ``relevant(variant, resolved, policy) -> list[Dim]``: the dimensions that can
        change play under these rules.
    fit : callable
        ``fit(variant, resolved, deals, seed, policy, threads, progress) -> dict``: the
        strong policy's models (``mjlab fit``).
    by_dealer_slot : int
        The packed-rules slot of the run setting ``seating="dealer"`` (engine.runs.run).
    tables : callable
        ``tables() -> tuple``: the ``tab`` argument its ``play_matches`` takes (the
        mahjong hand tables; the 字牌 loop reads none, and a first 落地扫 run does not
        build them).
    refit : callable
        ``refit(variant, resolved, deals, seed, policy, threads, progress, base,
        base_rules) -> dict``: :attr:`fit` under other rules, keeping what of the ``base``
        model (the committed one, fitted under ``base_rules``) does not depend on the
        difference (engine.runs.adapt).
    audit : callable or None
        ``audit(variant, resolved, seed, deals, policies, match_length, overrides) ->
        dict``: the decision audit's counts (``mjlab audit``); None where the family has
        none yet.
    values : callable or None
        ``values(variant, resolved, rec) -> dict``: the blocks of the strong model that
        price a win under ``resolved`` (what each target's win brings, what feeding one
        costs, the stake), from records played under those rules; None where the
        family's strong reads the payouts from the packed rules itself.
    rescore : callable
        ``rescore(variant, packed, rec)``: the kernel rows ``rec`` (int64 (n, N_COLS))
        paid again under the packed rules by the variant's own settlement, in place
        (engine.runs.rescore).
    """

    name: str
    package: str
    play_matches: Any
    params: ModuleType
    strong_version: int
    replay: Callable[..., str]
    check: Callable[..., int]
    score: Callable[..., dict]
    tune_spaces: Mapping[str, tuple]
    relevant: Callable[..., list]
    fit: Callable[..., dict]
    by_dealer_slot: int
    tables: Callable[[], tuple]
    refit: Callable[..., dict]
    audit: Callable[..., dict] | None
    values: Callable[..., dict] | None
    rescore: Callable[..., None]

    def __repr__(self) -> str:
        return f"Family({self.name!r})"


MAHJONG = Family(
    name="mahjong",
    package="engine.play.mahjong",
    play_matches=game_loop.play_matches,
    params=game_params,
    strong_version=game_params.STRONG_VERSION,
    replay=game_replay.replay,
    check=game_testing.check_mahjong_variant,
    score=game_scoring.score_request,
    tune_spaces=game_tuning.SPACES,
    relevant=game_tuning.relevant,
    fit=game_fit.fit_mahjong,
    by_dealer_slot=game_layout.R_BY_DEALER,
    tables=kernel_tables,
    refit=game_fit.refit_mahjong,
    audit=game_audit.audit_mahjong,
    values=game_fit.value_blocks,
    rescore=game_rescore.rescore_rows,
)
"""The mahjong family (麻将: tuidaohu, lishui, zhuji, fuzhou)."""

ZIPAI = Family(
    name="zipai",
    package="engine.zipai",
    play_matches=zipai_loop.play_matches,
    params=zipai_params,
    strong_version=zipai_params.STRONG_VERSION,
    replay=zipai_replay.replay,
    check=zipai_testing.check_zipai_variant,
    score=zipai_scoring.score_request,
    tune_spaces=zipai_tuning.SPACES,
    relevant=zipai_tuning.relevant,
    fit=zipai_fit.fit_zipai,
    by_dealer_slot=zipai_layout.Z_BY_DEALER,
    tables=zipai_loop.no_tables,
    refit=lambda v, resolved, deals, seed, policy, threads, progress, base, base_rules=None: (
        zipai_fit.fit_zipai(v, resolved, deals, seed, policy, threads, progress)
    ),
    audit=zipai_audit.audit_zipai,
    values=None,
    rescore=zipai_rescore.rescore_rows,
)
"""The 字牌 family (luodisao)."""

FAMILIES = {f.name: f for f in (MAHJONG, ZIPAI)}
"""Every family by the name variants declare."""


def family_of(variant) -> Family:
    """The :class:`Family` of ``variant`` (a registered variant's declared family)."""
    try:
        return FAMILIES[variant.family]
    except KeyError:
        raise ValueError(
            f"variant {variant.name}: unknown family {variant.family!r}; "
            f"families: {', '.join(FAMILIES)}"
        ) from None
