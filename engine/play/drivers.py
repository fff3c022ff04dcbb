"""The drivers both families share: replay a deal, play with the final state, check, collect.

Each family's loop kernel takes its own arguments and leaves its own final state, so
each family describes its loop once as a :class:`LoopDriver` (in its ``testing`` module):
which variants it plays, how it seats the policies, the shapes of its event log and final
state, and one call of its match and observation kernels in a common argument order.
Everything else, written once here, is the same for both families:

- :func:`replay_entry_points`: a family's ``replay_events`` (:func:`replay_deal`: one
  match played up to a deal with the event log on) and ``replay`` (``mjlab replay``: the
  family renders the text; :func:`replay_footer` gives its payment and extra lines);
- :func:`play_with_state`: whole matches with every deal's final state, as a frame;
- :func:`check_policies`: the conformance loop over the policies, each deal checked by
  the family, then the payments paid again from each record row by the variant's
  settlement;
- :func:`collect`: the fit's observation runs, blocks of matches on threads;
- :func:`fit_identity`: what a fitted model file says it was fitted from.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from engine import __version__, abi
from engine.errors import UsageError
from engine.play.records import check_replay_args, replayed_deal, settle_mismatch, to_frame

__all__ = [
    "LoopDriver",
    "replay_deal",
    "replay_entry_points",
    "replay_footer",
    "play_with_state",
    "check_policies",
    "collect",
    "fit_identity",
]


@dataclass(frozen=True)
class LoopDriver:
    """One family's loop as the shared drivers call it.

    Attributes
    ----------
    family : str
        The family's name in messages ("mahjong", "字牌").
    plays : callable
        ``plays(variant) -> bool``: whether this loop plays the variant.
    seat : callable
        ``seat(variant, resolved, policies, overrides=None) -> (policy codes, parameter
        rows)``, the rows under per-seat parameter ``overrides``; UsageError naming an
        unknown policy.
    final_shape : tuple of int
        ``(zones, width)`` of one deal's final state.
    max_events, event_cols : int
        The event log's rows and columns.
    play : callable
        ``play(packed, pols, bots, seed, match, n, rec, final, log, log_deal) -> errors``:
        the first ``n`` deals of match ``match`` (rows to ``rec``, final states to
        ``final``, the events of deal ``log_deal`` to ``log``).
    observe : callable
        ``observe(packed, pols, bots, seed, match_lo, n_matches, match_length, rec, obs)``:
        matches with observation rows written to ``obs``.
    """

    family: str
    plays: Callable
    seat: Callable
    final_shape: tuple[int, int]
    max_events: int
    event_cols: int
    play: Callable
    observe: Callable


def _variant(drv: LoopDriver, variant: str):
    from engine.variants import get

    v = get(variant)
    if not drv.plays(v):
        raise UsageError(f"{variant} is not a {drv.family} variant")
    return v


def replay_deal(
    drv: LoopDriver, variant: str, seed: int, match: int, deal: int, rules, policies, match_length,
    overrides=None,
):  # fmt: skip
    """Play match ``match`` up to ``deal`` with the event log on; ``(events, row, final,
    rules)`` of that deal (:func:`engine.play.records.replayed_deal`). ``overrides``: per
    seat, parameters over the committed ones (a run's adapted bots, engine.runs.adapt).
    """
    v = _variant(drv, variant)
    check_replay_args(seed, match, deal, match_length)
    resolved = v.resolve(rules)
    packed = v.pack(resolved)
    pols, bots = drv.seat(v, resolved, policies, overrides)
    n = deal + 1
    rec = np.zeros((n, abi.N_COLS), np.int32)
    final = np.zeros((n, *drv.final_shape), np.int16)
    log = np.zeros((drv.max_events, drv.event_cols), np.int32)
    drv.play(packed, pols, bots, seed, match, n, rec, final, log, deal)
    return replayed_deal(v, resolved, rec, log, final, seed=seed, match=match, deal=deal)


def replay_entry_points(drv: LoopDriver, render: Callable):
    """A family's ``(replay_events, replay)``: the logged deal, and its text as the
    family's ``render(variant, events, row, final, rules, header)`` tells it.
    """

    def replay_events(variant: str, seed: int, match: int, deal: int = 0, rules=None,
                      policies="value", match_length: int = 16, overrides=None):  # fmt: skip
        """Play match ``match`` up to ``deal`` with the event log on; ``(events, row,
        final, rules)``: the log's rows (int32 ``(n, event_cols)``), the deal's record
        row, where everything ended (int16 ``final_shape``) and the resolved rules.
        """
        return replay_deal(drv, variant, seed, match, deal, rules, policies, match_length,
                           overrides)  # fmt: skip

    def replay(variant: str, seed: int, match: int, deal: int = 0, rules=None,
               policies="value", match_length: int = 16, overrides=None) -> str:  # fmt: skip
        """The text of one deal, turn by turn (``mjlab replay``)."""
        events, row, final, resolved = replay_events(
            variant, seed, match, deal, rules, policies, match_length, overrides
        )
        header = replay_header(variant, seed, match, deal, row, policies)
        return render(variant, events, row, final, resolved, header)

    return replay_events, replay


def replay_header(variant: str, seed: int, match: int, deal: int, row, policies) -> str:
    """The first line of a replay's text."""
    return (
        f"mjlab replay {variant}  seed={seed} match={match} deal={deal}  "
        f"rules_id={row['rules_id']}  policies={policies}"
    )


def replay_footer(v, row, seats: int, skip: tuple[str, ...] = ()) -> list[str]:
    """The last lines of a replay's text: every seat's payment, then the extras that are
    not zero (but those in ``skip``, which the text has told already).
    """
    out = ["payments: " + "  ".join(f"seat {s} {int(row[f'delta_{s}']):+d}" for s in range(seats))]
    extras = [f"{e}={int(row[e])}" for e in v.extra_columns if e not in skip and int(row[e]) != 0]
    if extras:
        out.append("extras: " + " ".join(extras))
    return out


def play_with_state(drv: LoopDriver, variant: str, matches: int, seed: int = 0,
                    rules: Mapping | None = None, policies="value",
                    match_length: int = 8):  # fmt: skip
    """Play ``matches`` whole matches; ``(frame, final, errors)``: the records, every
    deal's final state (int16 ``(deals, *drv.final_shape)``) and the kernel's error count.
    """
    from engine.variants import get

    v = get(variant)
    resolved = v.resolve(rules)
    packed = v.pack(resolved)
    pols, bots = drv.seat(v, resolved, policies)
    n = matches * match_length
    rec = np.zeros((n, abi.N_COLS), np.int32)
    final = np.zeros((n, *drv.final_shape), np.int16)
    log = np.zeros((1, drv.event_cols), np.int32)
    errors = 0
    for m in range(matches):
        lo = m * match_length
        hi = lo + match_length
        errors += drv.play(packed, pols, bots, seed, m, match_length, rec[lo:hi], final[lo:hi],
                           log, -1)  # fmt: skip
    idx = np.arange(n)
    frame = to_frame(
        rec,
        idx // match_length,
        idx % match_length,
        seed=seed,
        variant=v,
        rules_id=v.rules_id(resolved),
        players=v.n_players(resolved),
    )
    return frame, final, int(errors)


def check_policies(variant, resolved, policies, play: Callable, check: Callable,
                   fail: Callable, rescore: Callable) -> int:  # fmt: skip
    """Play with every policy in turn (``play(policy) -> (frame, final)``; all the
    variant's policies by default), check every deal (``check(frame, final)`` raises on a
    violation) and then the payments paid again from each record row by the variant's
    settlement (``rescore``, the family's; ``fail(i, frame, what)`` raises); returns the
    deals checked.
    """
    checked = 0
    if isinstance(policies, str):
        policies = [policies]
    for pol in policies or variant.policies:
        frame, final = play(pol)
        check(frame, final)
        checked += len(frame)
        bad = settle_mismatch(variant, resolved, frame, rescore)
        if bad is not None:
            fail(bad[0], frame, bad[1])
    return checked


def collect(drv: LoopDriver, variant, resolved, deals: int, seed: int, policies, *,
            match_length: int, threads: int, block_matches: int, on_block, rows_per_deal: int,
            obs_width: int, split: Callable, overrides=None):  # fmt: skip
    """Play ``deals`` deals (whole matches) with observation on, in blocks of
    ``block_matches`` matches on ``threads`` threads; ``(hand rows, danger rows, records
    int32 (deals, N_COLS))``.

    ``split(rows) -> (hand rows, danger rows)`` picks the family's rows from a block's
    observation rows; ``on_block`` (or None) is called with the deals of each finished
    block; ``overrides`` are per-seat parameters over the committed ones. A block whose
    rows overflow ``rows_per_deal`` rows a deal is played again with at least twice the
    room (the matches are seeded, so the rows are the same; a family may count fewer
    drops than it dropped, as the mahjong danger rows stop at the first).
    """
    n_matches = -(-deals // match_length)
    packed = variant.pack(resolved)
    codes, bots = drv.seat(variant, resolved, policies, overrides)
    blocks = [(lo, min(n_matches, lo + block_matches)) for lo in range(0, n_matches, block_matches)]

    def play(block):
        lo, hi = block
        n = hi - lo
        room = n * match_length * rows_per_deal
        while True:
            rec = np.zeros((n * match_length, abi.N_COLS), np.int32)
            obs = np.zeros((room + 1, obs_width), np.int64)
            obs[0, 0] = obs[0, 2] = 1  # row 0 is the header
            drv.observe(packed, codes, bots, seed, lo, n, match_length, rec, obs)
            if obs[0, 3] == 0:
                break
            room = max(2 * room, room + int(obs[0, 3]))
        rows = obs[1 : obs[0, 0]]
        if on_block is not None:
            on_block(n * match_length)
        hand, danger = split(rows)
        return hand, danger, rec

    with ThreadPoolExecutor(max_workers=max(1, threads)) as ex:
        parts = list(ex.map(play, blocks))
    hand = np.concatenate([p[0] for p in parts])
    danger = np.concatenate([p[1] for p in parts])
    rec = np.concatenate([p[2] for p in parts])
    return hand, danger, rec


def fit_identity(v, resolved, policy: str, rec: np.ndarray, deals: int, seed: int) -> dict:
    """What a fitted model was fitted from: the variant and its versions, the rules, the
    observed policy, the deals played, the seed and the command that repeats the fit.
    """
    from engine.play.bots import strong_version

    return {
        "variant": v.name,
        "variant_version": v.version,
        "strong_version": strong_version(v),
        "package_version": __version__,
        "rules": resolved,
        "policy": policy,
        "deals": int(rec.shape[0]),
        "seed": int(seed),
        "command": f"mjlab fit {v.name} --deals {deals} --seed {seed} --policy {policy}",
    }
