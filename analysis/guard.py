"""A guard against bot artifacts: is ``strong`` still credible at each rule setting played?

mjlab answers "what does this rule change do" with bots, so a figure at a changed setting
could be a blind spot of the bot rather than an effect of the rule. At each setting a run
plays, the guard checks, on the same walls:

- **the rung**: ``strong`` against ``value`` in duplicate seating by dealer (each place
  from the dealer in turn, analysis.ladder); ``value`` beating ``strong`` by a resolved
  margin flags the setting;
- **the draw rates**: all-``strong`` tables against all-``value`` tables. Two competent
  players differ in how often a deal is drawn by about what they differ at the defaults;
  a setting where the gap moves by more than :data:`DRAW_SHIFT` (its interval clear of
  that margin) is flagged (诸暨 with one 财神 once drew 80% of deals under ``strong``
  and 9% under ``value``).

A flagged setting is reported as a possible bot artifact, never as a plain finding.
:func:`held_settings` lists the settings a bot is held to beyond the defaults (the
headline sweeps' values and a seeded sample of the sensitivity plan: ``mjlab ladder
--sample``).
Every interval takes the match as its unit (analysis.stats.ratio_ci).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from analysis.ladder import rung_frames, rung_row
from analysis.stats import ratio_ci
from engine.errors import UsageError

__all__ = ["DRAW_SHIFT", "bot_guard", "guard_text", "flagged", "held_settings"]

DRAW_SHIFT = 0.05
"""The draw-rate gap between all-strong and all-value tables may move this much from the
defaults' (an absolute share of deals) before the setting is flagged."""


def _draws_by_match(df: pd.DataFrame, n_match: int) -> tuple[np.ndarray, np.ndarray]:
    m = df["match"].to_numpy()
    drawn = (df["winner"].to_numpy() < 0).astype(np.float64)
    return (np.bincount(m, weights=drawn, minlength=n_match),
            np.bincount(m, minlength=n_match).astype(np.float64))  # fmt: skip


def _play(v, resolved, policy, deals, seed, workers):
    from engine.runs.run import simulate

    return simulate(v.name, deals, seed=seed, rules=resolved, policies=policy,
                    workers=workers, progress=False).to_pandas()  # fmt: skip


def _frames(v, resolved, deals, seed, workers, frames=None):
    """All-strong and all-value records at one setting (the first ``deals`` of those given)."""
    frames = {k: f.iloc[:deals].reset_index(drop=True) for k, f in (frames or {}).items()}
    for pol in ("strong", "value"):
        if pol not in frames:
            frames[pol] = _play(v, resolved, pol, deals, seed, workers)
    return frames


def _gap(frames):
    """Per match, all-strong draws less all-value draws, and the deals of each match."""
    n_match = max(int(f["match"].max()) + 1 for f in frames.values())
    ds, n = _draws_by_match(frames["strong"], n_match)
    dv, _ = _draws_by_match(frames["value"], n_match)
    return ds - dv, n


def _setting(v, resolved, deals, seed, workers, level, frames=None):
    """The guard's figures at one setting: the rung, both policies' draws by match and
    the all-strong and all-value records (``{"strong": df, "value": df}``).
    """
    frames = _frames(v, resolved, deals, seed, workers, frames)
    seats = v.n_players(resolved)
    per = max(deals // seats, 32)
    rung = rung_row(rung_frames(v, resolved, "strong", "value", per, seed, workers=workers),
                    "strong", "value", level)  # fmt: skip
    gap, n = _gap(frames)
    return rung, gap, n, frames


def bot_guard(
    variant: str,
    settings: Sequence[Mapping],
    deals: int,
    seed: int = 0,
    workers: int | None = None,
    level: float = 0.95,
    played: Mapping[int, Mapping[str, pd.DataFrame]] | None = None,
    base: Mapping[str, pd.DataFrame] | None = None,
    keep: dict[int, dict[str, pd.DataFrame]] | None = None,
) -> pd.DataFrame:
    """The guard at each of ``settings`` (rule mappings) against the defaults.

    ``deals`` per all-strong and all-value run (``deals / players`` per seating of the
    rung), all on seed ``seed``; ``played`` maps a setting's index to the record frames
    already played there (``{"strong": df, "value": df}``, either or both; their first
    ``deals`` rows), which are used instead of playing them again, and ``base`` those of
    the defaults; ``keep``, when given, receives each setting's all-strong and all-value
    records by index (for reuse: a run of the same setting, policy and seed plays the
    same deals). Returns one row per setting: ``setting`` (its options that differ
    from the defaults), the rung's ``edge`` / ``edge_lo`` / ``edge_hi`` (strong over
    value, points per deal), ``draw_gap`` (the draw rate of all-strong tables less that
    of all-value tables), its ``shift`` from the defaults' with ``shift_lo`` /
    ``shift_hi``, ``flag`` and ``why``.
    """
    from engine.variants import get

    v = get(variant)
    defaults = v.resolve({})
    if base is not None:  # the defaults' draws only: their rung is not needed
        gap0, _ = _gap(_frames(v, defaults, deals, seed, workers, base))
    else:
        _, gap0, _, _ = _setting(v, defaults, deals, seed, workers, level)
    rows = []
    for i, rules in enumerate(settings):
        resolved = v.resolve(rules)
        label = ", ".join(f"{k}={resolved[k]}" for k in resolved if resolved[k] != defaults[k])
        rung, gap, n, frames = _setting(v, resolved, deals, seed, workers, level,
                                        (played or {}).get(i))  # fmt: skip
        if keep is not None:
            keep[i] = frames
        m = min(len(gap), len(gap0))  # the same deals in matches of the same length
        shift = ratio_ci(gap[:m] - gap0[:m], n[:m], level)
        why = []
        if rung["edge_hi"] < 0:
            why.append("value beats strong")
        if shift["lo"] > DRAW_SHIFT or shift["hi"] < -DRAW_SHIFT:
            why.append(f"strong's draw rate moves {shift['estimate']:+.1%} against value's")
        rows.append({
            "setting": label or "(defaults)",
            "edge": rung["edge"], "edge_lo": rung["edge_lo"], "edge_hi": rung["edge_hi"],
            "draw_gap": float(gap.sum() / n.sum()),
            "shift": shift["estimate"], "shift_lo": shift["lo"], "shift_hi": shift["hi"],
            "flag": bool(why), "why": "; ".join(why),
        })  # fmt: skip
    return pd.DataFrame(rows)


def flagged(guard: pd.DataFrame) -> list[str]:
    """The settings the guard flags as possible bot artifacts."""
    return guard.loc[guard["flag"], "setting"].tolist()


def guard_text(guard: pd.DataFrame) -> str:
    """The guard as text: one line per setting, flagged ones marked."""
    lines = ["bot check (strong against value at each setting; see analysis.guard):"]
    for r in guard.itertuples():
        mark = "POSSIBLE BOT ARTIFACT: " + r.why if r.flag else "ok"
        lines.append(
            f"  {r.setting}: strong - value {r.edge:+.3f} [{r.edge_lo:+.3f}, {r.edge_hi:+.3f}] "
            f"per deal; draw-rate gap (strong - value) {r.draw_gap:+.1%}, "
            f"{r.shift:+.1%} [{r.shift_lo:+.1%}, {r.shift_hi:+.1%}] from the defaults'  {mark}"
        )
    return "\n".join(lines)


def held_settings(variant: str, sample: int = 10, seed: int = 0) -> list[dict]:
    """The settings a bot is held to beyond the defaults: every non-default value of the
    variant's headline sweeps (``Variant.headline_sweeps``, as the balance report plays
    them), then ``sample`` settings drawn without replacement, by a generator seeded
    with ``seed``, from the rest of its sensitivity plan (one option at a non-default
    value: analysis.sensitivity.option_plan).

    Returns ``{"setting": "K=V", "rules": {K: V}, "source": "headline" | "sampled"}``
    per setting, headline values first, the sampled ones in the order drawn.
    """
    from analysis.report._config import plan_sweeps
    from analysis.sensitivity import option_plan
    from engine.runs.run import MAX_SEED, _check_int
    from engine.variants import get

    v = get(variant)
    sample = _check_int("--sample", sample, 0, 10_000)
    seed = _check_int("--sample-seed", seed, 0, MAX_SEED)
    defaults = v.resolve({})
    out, seen = [], set()

    def add(key, val, source):
        if (key, repr(val)) in seen or val == defaults[key]:
            return
        seen.add((key, repr(val)))
        shown = str(val).lower() if isinstance(val, bool) else val
        out.append({"setting": f"{key}={shown}", "rules": {key: val}, "source": source})

    plans, _ = plan_sweeps([v.name])
    for plan in plans:
        for val in plan["values"]:
            add(plan["option"], val, "headline")
    rest = [r for r in option_plan(v)[0] if (r["option"], repr(r["value"])) not in seen]
    if sample > len(rest):
        raise UsageError(
            f"--sample {sample}: {v.name} has {len(rest)} settings beyond its headline sweeps"
        )
    for i in np.random.default_rng(seed).choice(len(rest), size=sample, replace=False):
        add(rest[int(i)]["option"], rest[int(i)]["value"], "sampled")
    return out
