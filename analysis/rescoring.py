"""Re-scoring recorded deals under other payout options, and the bias of doing so.

:func:`rescore` pays the recorded deals again under changed payout options (pattern
values, bases and caps, per-role multipliers, kong and horse money, penalties, the
scoring formula): see :mod:`engine.runs.rescore`. It is exact for value-blind play
(``efficiency``, ``random``). For ``value`` and ``strong``, whose play reads the values,
:func:`rescore_gap` measures the first-order bias: it re-scores a default run and
simulates the changed rules on the same seed (common random numbers), and gives the
difference of each headline metric with its paired interval. The result is cached, so
``mjlab rescore`` can print it next to a re-score of the same variant, policies and
change.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from engine.errors import UsageError
from engine.runs import rescore as _rs

__all__ = ["rescore", "rescore_gap", "cached_gap", "GAP_METRICS"]

GAP_METRICS = ("dealer_edge", "flow", "value_per_win", "draw_rate")
"""The headline metrics whose re-score bias :func:`rescore_gap` measures."""

GAP_VERSION = 2
"""Bumped when what :func:`rescore_gap` measures changes (2: the paid patterns' shares);
:func:`cached_gap` ignores gaps cached by another version."""


def _source(records) -> tuple[pd.DataFrame, dict[str, Any]]:
    """(frame, identity) of a Run, a loaded frame (``attrs["mjlab"]``) or a path."""
    from engine.runs.run import Run

    if isinstance(records, Run):
        return records.to_pandas(), records.metadata()
    if isinstance(records, (str, Path)):
        from analysis.io import load

        records = load(records)
    if isinstance(records, pd.DataFrame):
        meta = records.attrs.get("mjlab")
        if not meta or "rules" not in meta:
            raise UsageError(
                "rescore needs the records' rule options: pass a Run, a path, or a frame "
                "from analysis.load (its attrs['mjlab'] holds them)"
            )
        return records, dict(meta)
    raise UsageError(f"rescore: records must be a Run, a frame or a path, not {type(records)}")


def rescore(records, **changes) -> pd.DataFrame:
    """The records paid again under changed payout options.

    Parameters
    ----------
    records : Run, DataFrame or path
        Records of one variant and rule set: an ``engine.simulate`` run, a frame from
        :func:`analysis.load` (which keeps the identity in ``attrs["mjlab"]``), or a
        record file or dataset folder.
    **changes
        Payout options and their new values (``mjlab variants`` marks them ``payout``).

    Returns
    -------
    DataFrame
        The same deals with value, deltas and the variant's scoring columns recomputed
        and ``rules_id`` naming the new rule set; ``attrs["mjlab"]`` is the identity
        with the new options and a ``rescored`` entry (source rules_id and changes).
        Exact for ``efficiency``/``random`` play; see :func:`rescore_gap` otherwise.

    Raises
    ------
    UsageError
        An unknown option or value, or an option that changes play (simulate it).

    Examples
    --------
    >>> import engine, analysis
    >>> run = engine.simulate("zhuji", deals=50, seed=1, policies="efficiency", progress=False)
    >>> out = analysis.rescore(run, discard_pay="all_three")
    >>> out.attrs["mjlab"]["rescored"]["changes"]
    {'discard_pay': 'all_three'}
    """
    frame, meta = _source(records)
    frame, _ = _rs.rescore_frame(frame, meta["variant"], meta["rules"], changes)
    frame.attrs["mjlab"] = _rs.rescored_identity(meta, changes)
    return frame


def _gap_key(variant, rules, policies, changes, deals, seed, match_length) -> str:
    blob = json.dumps(
        {
            "variant": variant,
            "rules": dict(sorted(rules.items())),
            "policies": list(policies),
            "changes": dict(sorted(changes.items())),
            "deals": deals,
            "seed": seed,
            "match_length": match_length,
            "version": GAP_VERSION,
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _gap_dir() -> Path:
    from engine.jit.cache import cache_dir

    return Path(cache_dir()) / "rescore-gaps"


def rescore_gap(
    variant: str,
    changes: Mapping[str, Any],
    *,
    policies="value",
    deals: int = 20_000,
    seed: int = 0,
    rules: Mapping | None = None,
    match_length: int | None = None,
    workers: int | None = None,
    progress: bool = False,
    cache: bool = True,
) -> pd.DataFrame:
    """The bias of re-scoring against re-simulating a payout change, with intervals.

    Plays ``deals`` deals under ``rules`` and under ``rules`` with ``changes`` on the
    same seed, re-scores the first under the changes, and tabulates each of
    :data:`GAP_METRICS`, and the share of deals won with each pattern whose payout
    changes (``pattern:<p>``), for both with the difference re-scored minus re-simulated,
    paired by deal (``analysis.sweep_table``'s ``diff``, ``diff_lo``, ``diff_hi``).
    For value-blind policies the difference is exactly 0.

    Returns
    -------
    DataFrame
        One row per metric: ``metric, rescored, simulated, gap, gap_lo, gap_hi, n``,
        with the identity (variant, policies, changes, deals, seed) in ``attrs``.
        Saved in the cache (``MJLAB_CACHE_DIR/rescore-gaps``) unless ``cache=False``.
    """
    from analysis.sweep import two_frame_table
    from engine import simulate
    from engine.runs.run import DEFAULT_MATCH_LENGTH
    from engine.variants import get as get_variant

    v = get_variant(variant)
    changes = _rs.check_changes(v, changes)
    base = v.resolve(rules)
    pol = [policies] * v.n_players(base) if isinstance(policies, str) else list(policies)
    ml = DEFAULT_MATCH_LENGTH if match_length is None else match_length
    common = dict(
        deals=deals, seed=seed, policies=pol, match_length=ml, workers=workers, progress=progress
    )
    played = simulate(variant, rules=base, **common)
    fresh = simulate(variant, rules={**base, **changes}, **common).to_pandas()
    again = rescore(played, **changes)
    table = two_frame_table(
        {"rescored": again, "simulated": fresh},
        baseline="simulated",
        metrics=GAP_METRICS + _paid_patterns(v, changes, fresh),
    )
    rows = [
        {
            "metric": r["metric"],
            "rescored": r["rescored"],
            "simulated": r["simulated"],
            "gap": r["diff"],
            "gap_lo": r["diff_lo"],
            "gap_hi": r["diff_hi"],
            "n": int(r["n_pairs"]),
        }
        for r in table.to_dict("records")
    ]
    out = pd.DataFrame(rows)
    ident = {
        "variant": variant,
        "rules": base,
        "policies": pol,
        "changes": changes,
        "deals": deals,
        "seed": seed,
        "match_length": ml,
        "version": GAP_VERSION,
    }
    out.attrs["mjlab_gap"] = ident
    if cache:
        from engine.fileio import write_bytes
        from engine.jit.cache import private_makedirs

        key = _gap_key(variant, base, pol, changes, deals, seed, ml)
        folder = private_makedirs(_gap_dir())
        payload = {"identity": ident, "rows": rows}
        write_bytes(folder / f"{key}.json", json.dumps(payload, default=str, indent=1).encode())
    return out


def _paid_patterns(v, changes: Mapping[str, Any], frame: pd.DataFrame) -> tuple[str, ...]:
    """``pattern:<p>`` for each pattern whose payout ``changes`` move and the records
    carry: value-aware play chases a pattern that pays more, so the share of deals won
    with it is where re-scoring (which keeps the recorded play) is first biased.
    """
    pats = (v.payout_pattern.get(k) for k in changes)
    seen = dict.fromkeys(p for p in pats if p and f"pat_{p}" in frame.columns)
    return tuple(f"pattern:{p}" for p in seen)


def cached_gap(variant: str, rules: Mapping, policies, changes: Mapping) -> pd.DataFrame | None:
    """The largest cached :func:`rescore_gap` for this variant, rule set, policies and
    changes (any deals, seed and match length), or None.
    """
    folder = _gap_dir()
    if not folder.is_dir():
        return None
    want = {
        "variant": variant,
        "rules": json.loads(json.dumps(dict(rules), default=str)),
        "policies": list(policies),
        "changes": json.loads(json.dumps(dict(changes), default=str)),
        "version": GAP_VERSION,
    }
    best = None
    for f in sorted(folder.glob("*.json")):
        try:
            data = json.loads(f.read_text())
        except (OSError, ValueError):
            continue
        ident = data.get("identity", {})
        if all(ident.get(k) == val for k, val in want.items()):
            if best is None or ident.get("deals", 0) > best[0]:
                best = (ident.get("deals", 0), data)
    if best is None:
        return None
    out = pd.DataFrame(best[1]["rows"])
    out.attrs["mjlab_gap"] = best[1]["identity"]
    return out


def effect_table(before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """Each headline metric recorded and re-scored, and the change, paired by deal."""
    from analysis.sweep import two_frame_table

    t = two_frame_table(
        {"recorded": before, "rescored": after}, baseline="recorded", metrics=GAP_METRICS
    )
    return t.drop(columns="n_pairs").rename(
        columns={"diff": "change", "diff_lo": "change_lo", "diff_hi": "change_hi"}
    )


WIDE = 8
"""An integer option with more allowed values than this is a long range, swept at a few
of them: :func:`option_values` for a what-if (re-scored, cheap), and
:func:`analysis.sensitivity.swept_values` for the sensitivity table (simulated)."""


def option_values(opt) -> list:
    """The values a what-if sweeps for one payout option: all of them, or for a long
    integer range its ends, the default's neighbours and twice the default.
    """
    allowed = list(opt.allowed)
    if len(allowed) <= WIDE:
        return allowed
    d = opt.default
    pick = {allowed[0], allowed[-1], d, *(x for x in (d - 1, d + 1, 2 * d) if x in allowed)}
    return sorted(pick)


def whatif_table(records, *, options=None, level: float = 0.95) -> pd.DataFrame:
    """The dealer edge under each value of each payout option, re-scored from ``records``.

    Parameters
    ----------
    records : Run, DataFrame or path
        As :func:`rescore`.
    options : sequence of str, optional
        Payout options to sweep (default: all of the variant's, with :func:`option_values`).

    Returns
    -------
    DataFrame
        One row per option and value: ``option, value, is_recorded, edge, lo, hi,
        diff, diff_lo, diff_hi, move`` (the change from the recorded rules, paired deal
        by deal; matches are the units; ``move`` is the option's largest |diff|).
        Sorted by ``move`` (largest first), then by the option's value order.
    """
    import numpy as np

    from analysis.stats import z_value
    from analysis.sweep import _dealer_edge, _match_codes, _se
    from engine.variants import get as get_variant

    frame, meta = _source(records)
    v = get_variant(meta["variant"])
    rules = v.resolve(meta["rules"])
    keys = list(options) if options is not None else list(_rs.payout_keys(v))
    codes = _match_codes(frame)
    z = z_value(level)

    def mean_se(y):  # the mean and its match-clustered SE, as the sweep tables'
        return float(y.mean()), _se(y, codes)

    base = _dealer_edge(frame)
    rows = []
    for key in keys:
        opt = v.option_map[key]
        if not opt.payout:
            raise UsageError(f"whatif: {key} is not a payout option of {v.name}")
        for val in option_values(opt):
            if val == rules[key]:
                e, d = base, np.zeros_like(base)
            else:
                new, _ = _rs.rescore_frame(frame, v, rules, {key: val})
                e = _dealer_edge(new)
                d = e - base
            est, se = mean_se(e)
            diff, dse = mean_se(d)
            rows.append(
                {
                    "option": key,
                    "value": val,
                    "is_recorded": val == rules[key],
                    "edge": est,
                    "lo": est - z * se,
                    "hi": est + z * se,
                    "diff": diff,
                    "diff_lo": diff - z * dse,
                    "diff_hi": diff + z * dse,
                }
            )
    out = pd.DataFrame(rows)
    if out.empty:
        return out.assign(move=[])
    out["move"] = out.groupby("option")["diff"].transform(lambda s: s.abs().max())
    out["_order"] = range(len(out))
    out = out.sort_values(["move", "_order"], ascending=[False, True], kind="stable")
    return out.drop(columns="_order").reset_index(drop=True)
