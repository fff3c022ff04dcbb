"""Bots per seat: policy codes and parameter rows for the kernels.

A seat's bot is a policy (``random``, ``efficiency``, ``value``, ``strong``) and a row of
float64 parameters laid out by its family (:mod:`engine.mahjong.params` for the mahjong
family, :mod:`engine.zipai.params` for 字牌). :func:`seat_bots` builds both arrays for a
run from the variant's defaults (:attr:`engine.variants.Variant.bot_params`) and any
overrides, so the same policy can play with different parameters in different seats
(tuning plays a candidate against the field this way).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from engine import abi
from engine.errors import UsageError

__all__ = [
    "BOTDATA",
    "POLICY_NAMES",
    "committed",
    "file_overrides",
    "layout_of",
    "load_params",
    "policy_codes",
    "resolve_policies",
    "seat_bots",
]

BOTDATA = Path(__file__).resolve().parents[1] / "variants"
"""Where the committed bot parameters are: ``<variant>/<policy>.json`` (fitted models,
tuned values) and ``<variant>/refits/``, each in its variant's folder (``Variant.folder``)."""


def strong_version(variant) -> int:
    """The strong parameter version of ``variant``'s family."""
    return variant.bot_layout.STRONG_VERSION


POLICY_NAMES = abi.POLICY_NAMES
"""Every policy name, in code order (the kernels' ``P_*`` codes)."""


def layout_of(variant):
    """The parameter layout module of ``variant``'s family (``N_BOT`` and the keys)."""
    return variant.bot_layout


def resolve_policies(
    variant, policies: str | Sequence[str], players: int | None = None
) -> tuple[str, ...]:
    """One policy name per seat from ``"value"``, ``"value,random,..."`` or a sequence.

    ``players`` is the seat count under the resolved rules (default: the variant's).
    """
    if isinstance(policies, str):
        parts = [p.strip() for p in policies.split(",")]
    else:
        parts = list(policies)
    players = variant.players if players is None else players
    if len(parts) == 1:
        parts = parts * players
    if len(parts) != players:
        raise UsageError(f"--policy needs 1 or {players} names, got {len(parts)}")
    for p in parts:
        if p not in variant.policies:
            raise UsageError(f"unknown policy {p!r}; policies: {', '.join(variant.policies)}")
    return tuple(parts)


def policy_codes(policies: Sequence[str]) -> np.ndarray:
    """int64 policy codes of a sequence of policy names (already validated)."""
    return np.array([POLICY_NAMES.index(p) for p in policies], np.int64)


PARAMS_FILE_BYTES = 8 << 20
"""The largest bot parameter file read (the committed ones are about 140 kB)."""

PARAMS_DEPTH = 12
"""The deepest nesting of lists and objects a bot parameter file may have (they have 5)."""


@functools.lru_cache(maxsize=64)
def _read(path: Path, mtime_ns: int, size: int) -> dict:
    from engine import paths

    raw = paths.read_input(path, "bot parameter file", PARAMS_FILE_BYTES)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"bot parameter file {path} is not readable JSON: {exc}") from None
    except RecursionError:
        raise UsageError(f"bot parameter file {path} is nested too deeply") from None
    _check_schema(data, path)
    return data


def _depth(data) -> int:
    """How deeply lists and objects nest in ``data`` (walked without recursion)."""
    deepest, todo = 0, [(data, 1)]
    while todo:
        node, d = todo.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, d)
            if d <= PARAMS_DEPTH:
                todo.extend((x, d + 1) for x in (node.values() if isinstance(node, dict) else node))
    return deepest


def _number(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and np.isfinite(float(x))


def _check_schema(data, path: Path) -> None:
    """UsageError naming the file and the entry unless ``data`` has a bot parameter file's
    shape: ``bot`` (``variant``, ``policy``, an integer ``version``), ``params`` and an
    optional ``model`` mapping names to a finite number or a flat list of them.
    """
    where = f"bot parameter file {path}"
    if _depth(data) > PARAMS_DEPTH:
        raise UsageError(f"{where} is nested more than {PARAMS_DEPTH} levels deep")
    if not isinstance(data, dict) or "params" not in data or "bot" not in data:
        raise UsageError(f"{path} is not an mjlab bot parameter file")
    bot = data["bot"]
    if not isinstance(bot, dict):
        raise UsageError(f"{where}: 'bot' is not an object")
    for key in ("variant", "policy"):
        if not isinstance(bot.get(key), str):
            raise UsageError(f"{where}: 'bot' has no {key} name")
    version = bot.get("version")
    if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
        raise UsageError(f"{where}: 'bot' has a version that is not an integer")
    for part in ("params", "model"):
        table = data.get(part)
        if table is None and part == "model":
            continue
        if not isinstance(table, dict):
            raise UsageError(f"{where}: {part!r} is not an object of parameter values")
        for name, value in table.items():
            flat = value if isinstance(value, list) else [value]
            if not flat or not all(_number(x) for x in flat):
                raise UsageError(
                    f"{where}: {part}.{name[:40]} is not a finite number or a flat list of them"
                )


def load_params(path, variant=None, policy: str | None = None) -> dict:
    """The parameter file at ``path`` (JSON), checked against ``variant`` and ``policy``.

    The file is checked before it is read (a regular file of at most
    :data:`PARAMS_FILE_BYTES`; a FIFO or a device is never opened) and its content by
    shape (:data:`PARAMS_DEPTH` levels at most; ``bot``, ``params`` and ``model`` as a
    parameter file has them). A file made for another variant, policy or parameter
    version, or one that is not a parameter file, raises UsageError naming what is wrong.
    """
    if not os.fspath(path).strip():
        raise UsageError("--bot-params is empty: give a file name")
    path = Path(path)
    try:
        st = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        raise UsageError(f"bot parameter file not found: {path}") from None
    except OSError as exc:
        raise UsageError(f"bot parameter file {path}: {exc.strerror}") from None
    data = _read(path, st.st_mtime_ns, st.st_size)
    bot = data["bot"]
    if variant is not None and bot.get("variant") != variant.name:
        raise UsageError(f"{path} holds parameters for {bot.get('variant')}, not {variant.name}")
    if policy is not None and bot.get("policy") != policy:
        raise UsageError(f"{path} holds {bot.get('policy')} parameters, not {policy}")
    if bot.get("policy") == "strong" and variant is not None:
        want = strong_version(variant)
        if bot.get("version") != want:
            raise UsageError(
                f"{path} was made for strong parameters version {bot.get('version')}; this "
                f"is version {want}: refit and retune (mjlab fit, mjlab tune)"
            )
    return data


def file_overrides(variant, policies: Sequence[str], path) -> dict[int, dict]:
    """Per-seat overrides from a parameter file: every seat playing the file's policy.

    A file for another variant or version, or whose policy no seat plays, is refused.
    """
    data = load_params(path, variant)
    policy = data["bot"].get("policy")
    seats = [s for s, p in enumerate(policies) if p == policy]
    if not seats:
        raise UsageError(f"{path} holds {policy} parameters, but no seat plays {policy}")
    params = {**(data.get("model") or {}), **(data.get("params") or {})}
    return {s: params for s in seats}


def committed(variant, policy: str) -> dict | None:
    """The committed parameter file of ``policy`` for ``variant``, or None."""
    path = BOTDATA / variant.name / f"{policy}.json"
    return load_params(path, variant, policy) if path.exists() else None


def _defaults(variant, policy: str, resolved) -> dict:
    """A policy's parameters: the variant's defaults, then the committed file's."""
    params = dict(variant.bot_params(policy, resolved) if variant.bot_params else {})
    data = committed(variant, policy)
    if data is not None:
        params.update(data.get("model") or {})
        params.update(data.get("params") or {})
    elif policy == "strong":
        raise UsageError(
            f"the strong policy has no fitted model for {variant.name}: "
            f"run `mjlab fit {variant.name}`"
        )
    return params


def _row(layout, policy: str, params: Mapping[str, Any]) -> np.ndarray:
    row = np.zeros(layout.N_BOT, np.float64)
    slots = layout.slots(policy)
    for key, value in params.items():
        if key not in slots:
            known = ", ".join(sorted(slots)) or "none"
            raise UsageError(f"policy {policy} has no parameter {key!r}; parameters: {known}")
        first, n = slots[key]
        arr = np.asarray(value, np.float64).reshape(-1)
        if arr.size != n:
            raise UsageError(f"parameter {policy}.{key} takes {n} values, got {arr.size}")
        if not np.isfinite(arr).all():
            raise UsageError(f"parameter {policy}.{key} must be finite")
        row[first : first + n] = arr
    return row


def seat_bots(
    variant,
    resolved: Mapping[str, Any],
    policies: Sequence[str],
    overrides: Mapping[int, Mapping[str, Any]] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(codes int64 (seats,), rows float64 (4, N_BOT))`` for a run's seats.

    Row ``s`` holds the defaults of seat ``s``'s policy under ``resolved`` options,
    updated by ``overrides[s]`` (a mapping of parameter name to value) when given.
    """
    layout = layout_of(variant)
    rows = np.zeros((4, layout.N_BOT), np.float64)
    for s, policy in enumerate(policies):
        params = _defaults(variant, policy, resolved)
        params.update((overrides or {}).get(s, {}))
        rows[s] = _row(layout, policy, params)
    return policy_codes(policies), rows
