"""Bots that read the rules they play: the committed bot data adapted to a run's rules.

The committed models and tuned parameters (``engine/variants/<variant>/``) are made at
the variant's default rules (the fit's identity names them). A run under other rules
plays, for each policy that reads the rules:

- ``strong`` with the model blocks that price a win under the run's rules (``value``:
  what a win of each target brings, by winner-deals; ``loss``: what feeding a win costs;
  ``stake``: what a seat loses when another wins) taken from a **pilot**: the committed
  fit's deals, seed and observed policy played again under the run's rules (``strong``
  with the refit's model where a committed refit fitted its values on strong's own
  play), its records settled by the variant's own scoring
  (:attr:`engine.play.family.Family.values`). Where
  a **play option** differs from the fit's (anything that is not a payout option:
  wilds, minimums, claims, locks, the wall, players), the chances to win move too, so
  the model is **refitted** under the run's rules (the committed fit's deals, seed and
  policy with these rules; :attr:`engine.play.family.Family.refit` keeps what does not
  depend on them: the mahjong danger models, unless the rules make other tiles wild).
  The tuned scalar weights stay.
- ``value`` with each target bonus moved by how the run's rules change that target's
  worth against a plain win: :data:`BETA` quarter tiles of distance per doubling
  (a tile farther costs about half the chance to win, so a doubled worth pays for one
  tile), never below 0.

Every adaptation is a pure function of the variant, its rules and the committed bot
data, cached on disk by the rules and a checksum of the committed file (a damaged cached
file is rebuilt, with a message); runs at the fit's rules use the committed data
untouched, so their records are those of the committed bots. The pilots and refits play
unadapted bots (the committed data at the run's rules), so nothing here recurses.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import sys
from collections.abc import Mapping, Sequence

import numpy as np

from engine import abi
from engine.play.bots import BOTDATA, committed, seat_bots
from engine.play.family import family_of

__all__ = [
    "BETA",
    "Adaptation",
    "adaptation",
    "changes_play",
    "describe",
    "play_key",
    "refit",
    "refit_path",
    "seat_overrides",
    "write_refit",
]

BETA = 4.0
"""Quarter tiles of a value bonus per doubling of a target's worth against a plain win."""

VALUE_TARGETS = ("flush", "half", "triplets", "pairs", "wild_pair")
"""The strong targets (engine.mahjong.params.TARGETS) that carry a value-bot bonus."""

MAX_BONUS = 40.0
"""The largest value bonus an adaptation gives (ten tiles)."""


class Adaptation:
    """What a run's rules change in its bots.

    Attributes
    ----------
    params : dict
        Per policy, the parameters that replace the committed ones (``{}``: none).
    how : str
        ``"committed"`` (the fit's own rules, or nothing to adapt), ``"values"`` (payout
        options only: the pilot's win values) or ``"refit"`` (a play option: the whole
        model refitted under the run's rules).
    changed : tuple of str
        The options that differ from the fit's rules.
    """

    def __init__(self, params: dict, how: str, changed: tuple[str, ...]):
        self.params = params
        self.how = how
        self.changed = changed

    def __repr__(self) -> str:
        return f"Adaptation({self.how}, changed={self.changed})"


def _fit_identity(v):
    """``(committed strong data, the fit's resolved rules)``, or None without a model."""
    if "strong" not in v.policies or not (BOTDATA / v.name / "strong.json").exists():
        return None
    data = committed(v, "strong")
    fit = data.get("fit") or {}
    if "rules" not in fit:
        return None
    return data, v.resolve(fit["rules"])


def _file_digest(v, policy: str) -> str:
    path = BOTDATA / v.name / f"{policy}.json"
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.exists() else "none"


def pilot_records(v, resolved, deals: int, seed: int, policy: str, match_length: int = 16,
                  model: Mapping | None = None):  # fmt: skip
    """The records (int32 ``(deals, N_COLS)``) of ``deals`` deals of ``policy`` at every
    seat under ``resolved``, the bots unadapted (the committed data at these rules, with
    ``model``'s blocks over them at every seat when given).
    """
    fam = family_of(v)
    players = v.n_players(resolved)
    seats = None if model is None else {s: dict(model) for s in range(players)}
    pols, bots = seat_bots(v, resolved, (policy,) * players, seats)
    n_matches = -(-deals // match_length)
    n_last = deals - (n_matches - 1) * match_length
    rec = np.zeros((deals, abi.N_COLS), np.int32)
    from engine.jit.warmup import expect

    with expect(fam.package):
        fam.play_matches.serial(v.pack(resolved), pols, bots, seed, 0, n_matches,
                                match_length, n_last, fam.tables(), rec)  # fmt: skip
    return rec


def _cached_model(v, resolved, kind: str, build) -> dict:
    """The model blocks ``build()`` makes, cached on disk by the rules and the committed
    files (checksummed: a damaged copy is rebuilt with a message).
    """
    from engine.jit.cache import load_or_build

    blob = json.dumps(
        {"rules": v.rules_id(resolved), "kind": kind, "strong": _file_digest(v, "strong"),
         "version": v.version, "adapt": _SOURCE},
        sort_keys=True,
    )  # fmt: skip
    key = hashlib.sha256(blob.encode()).hexdigest()[:16]
    name = f"bots-{v.name}-{v.rules_id(resolved)}-{kind}"

    def arrays():
        return {k: np.asarray(val, np.float64) for k, val in build().items()}

    got = load_or_build(name, key, arrays)
    return {k: (float(a) if a.ndim == 0 else a.tolist()) for k, a in got.items()}


ADAPTED = frozenset({"strong", "value"})
"""The policies whose parameters an adaptation sets (the others read no model)."""

_SOURCE = "5"
"""Bumped when what an adaptation computes changes (a key of the disk cache)."""


def changes_play(v, resolved) -> bool:
    """Whether ``resolved`` differs from the committed fit's rules in a play option (so
    that the strong models are refitted there, not only re-priced).
    """
    found = _fit_identity(v)
    if found is None:
        return False
    fit_rules = found[1]
    return any(resolved[o.key] != fit_rules[o.key] for o in v.options if not o.payout)


def play_key(v, resolved) -> str:
    """A short hash of the play options of ``resolved`` (payout options left out): the
    name of a committed refit (:func:`refit_path`).
    """
    play = {o.key: resolved[o.key] for o in v.options if not o.payout}
    blob = json.dumps({"variant": v.name, "version": v.version, "play": play}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:10]


def refit_path(v, resolved):
    """Where a committed refit of ``v``'s strong models at these play options lives."""
    return BOTDATA / v.name / "refits" / f"strong-{play_key(v, resolved)}.json"


def _base_digest(model: Mapping) -> str:
    """What a refit keeps of the committed model (its danger blocks), as a digest."""
    kept = {k: model[k] for k in ("danger", "kong_danger") if k in model}
    return hashlib.sha256(json.dumps(kept, sort_keys=True).encode()).hexdigest()[:16]


def refit(v, resolved, progress: bool = False) -> dict:
    """The strong models of ``v`` refitted under ``resolved`` rules (the committed fit's
    deals, seed and policy, :attr:`Family.refit`): ``{"model", "fit", "base"}``.
    """
    data, fit_rules = _fit_identity(v)
    fit = data["fit"]
    res = family_of(v).refit(v, resolved, int(fit["deals"]), int(fit["seed"]), fit["policy"],
                             2, progress, data["model"], fit_rules)  # fmt: skip
    return {"model": res["model"], "fit": {**res["identity"], **res["summary"]},
            "base": _base_digest(data["model"])}  # fmt: skip


def write_refit(v, resolved, result: dict):
    """Commit a refit (:func:`refit`) beside the variant's bot data; its path."""
    path = refit_path(v, resolved)
    path.parent.mkdir(parents=True, exist_ok=True)
    defaults = v.resolve({})
    shown = {k: str(x).lower() if isinstance(x, bool) else x for k, x in resolved.items()}
    cmd = " ".join(f"--rule {k}={shown[k]}" for k in sorted(resolved) if resolved[k] != defaults[k])
    fit = dict(result["fit"])
    fit["command"] = f"mjlab fit {v.name} {cmd}"
    body = {"bot": {"variant": v.name, "policy": "strong", "refit_of": play_key(v, resolved)},
            "model": result["model"], "fit": fit, "base": result["base"]}  # fmt: skip
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def _committed_refit(v, resolved, data) -> dict | None:
    """The committed refit at these play options, if one was made from this model."""
    path = refit_path(v, resolved)
    if not path.exists():
        return None
    got = json.loads(path.read_text(encoding="utf-8"))
    if got.get("base") != _base_digest(data["model"]):
        return None  # made from another committed model: stale
    return got


def _strong_model(v, resolved, data, play_changed: bool) -> dict:
    fit = data["fit"]
    fam = family_of(v)
    base_rules = v.resolve(fit["rules"])
    model: dict = {}
    pilot_policy, pilot_model = fit["policy"], None
    if play_changed:
        committed_refit = _committed_refit(v, resolved, data)
        if committed_refit is not None:
            model = dict(committed_refit["model"])
            base_rules = v.resolve(committed_refit["fit"]["rules"])
            if "self_play" in committed_refit["fit"]:  # its values came from strong's play
                pilot_policy, pilot_model = committed_refit["fit"]["self_play"]["policy"], model
        else:

            def build():
                print(
                    f"mjlab: fitting the strong models of {v.name} under these rules "
                    f"(rules_id {v.rules_id(resolved)}, {int(fit['deals']):,} deals; once, "
                    "then cached)",
                    file=sys.stderr,
                )
                return refit(v, resolved, sys.stderr.isatty())["model"]

            return _cached_model(v, resolved, "refit", build)
    if fam.values is None:  # the family's strong reads the payouts from the packed rules
        return model
    if all(resolved[k] == base_rules[k] for k in resolved):
        return model

    def build():
        rec = pilot_records(v, resolved, int(fit["deals"]), int(fit["seed"]), pilot_policy,
                            model=pilot_model)  # fmt: skip
        return fam.values(v, resolved, rec)

    return {**model, **_cached_model(v, resolved, "values", build)}


def _worth(value: Sequence[float]) -> np.ndarray:
    """Each target's mean worth (value blocks ``[target, winner deals]``), both roles."""
    a = np.asarray(value, np.float64).reshape(-1, 2)
    return a.mean(axis=1)


def _value_bonuses(v, resolved, base_value, new_value) -> dict:
    """The value bot's target bonuses under ``resolved``: its own defaults (the variant's
    and the committed file's) moved by :data:`BETA` per doubling of each target's worth
    against a plain win (``base_value`` at the fit's rules, ``new_value`` at these).
    Under 游金 the strong model's wild target is the 游 shape and its worth the mean of
    its 游 and 金雀 wins: the value bot's 金雀 bonus moves with that mean there.
    """
    from engine.play.bots import _defaults

    params = _defaults(v, "value", resolved)
    old, new = _worth(base_value), _worth(new_value)
    if old[0] <= 0 or new[0] <= 0:
        return {}
    out = {}
    for t, key in enumerate(("plain", *VALUE_TARGETS)):
        if t == 0 or key not in params:
            continue
        if old[t] <= 0 or new[t] <= 0:
            continue
        shift = BETA * math.log2((new[t] / new[0]) / (old[t] / old[0]))
        moved = min(max(float(params[key]) + shift, 0.0), MAX_BONUS)
        if moved != float(params[key]):
            out[key] = round(moved, 4)
    return out


@functools.lru_cache(maxsize=256)
def _adaptation(variant_name: str, rules_json: str) -> Adaptation:
    from engine.variants import get

    v = get(variant_name)
    resolved = v.resolve(json.loads(rules_json))
    found = _fit_identity(v)
    if found is None:
        return Adaptation({}, "committed", ())
    data, fit_rules = found
    changed = tuple(k for k in resolved if resolved[k] != fit_rules[k])
    if not changed:
        return Adaptation({}, "committed", ())
    options = v.option_map
    play_changed = any(not options[k].payout for k in changed)
    model = _strong_model(v, resolved, data, play_changed)
    params: dict[str, dict] = {}
    if model:
        params["strong"] = model
        if "value" in v.policies and "value" in (data.get("model") or {}):
            bonuses = _value_bonuses(v, resolved, data["model"]["value"], model["value"])
            if bonuses:
                params["value"] = bonuses
    return Adaptation(params, "refit" if play_changed else "values", changed)


def adaptation(v, resolved: Mapping) -> Adaptation:
    """How the bots of ``v`` read ``resolved`` rules (see the module docstring)."""
    return _adaptation(v.name, json.dumps(dict(resolved), sort_keys=True))


def seat_overrides(v, resolved: Mapping, policies: Sequence[str],
                   overrides: Mapping[int, Mapping] | None = None) -> dict[int, dict]:  # fmt: skip
    """Per-seat parameters of a run: the adaptation of each seat's policy to ``resolved``,
    then the run's own ``overrides`` of that seat on top. Only a run with a seat that
    reads the adaptation (:data:`ADAPTED`) computes it: an efficiency or random run
    under changed rules fits nothing.
    """
    params = adaptation(v, resolved).params if ADAPTED.intersection(policies) else {}
    out: dict[int, dict] = {}
    for s, policy in enumerate(policies):
        merged = {**params.get(policy, {}), **dict((overrides or {}).get(s, {}))}
        if merged:
            out[s] = merged
    return out


def describe(v, resolved: Mapping, policies: Sequence[str] | None = None) -> str:
    """One line on how the bots read these rules (for CLI headers and the report); with
    ``policies``, none of which reads a model (:data:`ADAPTED`), says so and fits nothing.
    """
    if policies is not None and not ADAPTED.intersection(policies):
        return f"bots: {', '.join(sorted(set(policies)))} read no fitted model"
    ad = adaptation(v, resolved)
    if ad.how == "committed":
        return "bots: the committed models (fitted at these rules)"
    what = ", ".join(ad.changed)
    if ad.how == "values":
        return f"bots: win values re-priced under the run's payouts ({what})"
    return f"bots: strong models refitted under the run's rules ({what})"
