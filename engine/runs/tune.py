"""Tuning a policy's parameters by self-play (``mjlab tune``), with CMA-ES (``cma``).

A candidate parameter vector plays in one seat against the *field*, the policy a rung
below on the ladder (``strong`` against ``value``, ``value`` against ``efficiency``), in
duplicate seating: the candidate sits in each seat in turn on the same walls, and its
mean result per deal over the seatings is the objective. Every candidate of one
generation plays the same deals (common random numbers), so the comparison between
them is paired; each generation plays new deals, so the search does not fit the noise
of one deal set. CMA-ES (Hansen's ``cma`` package) searches a box around the current
parameters; the result is the distribution's mean after the last generation (more
robust to evaluation noise than the best single candidate).

Everything is a pure function of the variant, the policy, the deals, the generations,
the population and the seed, so the committed parameters are reproduced by the command
stored with them.
"""

from __future__ import annotations

import math

import numpy as np

from engine import __version__, abi
from engine._dims import Dim
from engine.errors import UsageError
from engine.play.family import family_of

__all__ = ["FIELD", "tune", "duplicate_edge"]

FIELD = {"strong": "value", "value": "efficiency"}
"""The policy each tuned policy plays against."""


def _relevant(variant, resolved, policy: str) -> list[Dim]:
    """The dimensions that can change play under these rules (the family says which)."""
    return family_of(variant).relevant(variant, resolved, policy)


def _params(dims: list[Dim], x: np.ndarray, start: dict) -> dict:
    """The parameter mapping of point ``x`` (other parameters as in ``start``)."""
    out = {k: (list(v) if isinstance(v, list | tuple) else v) for k, v in start.items()}
    for d, v in zip(dims, x, strict=True):
        v = float(min(max(v, d.lo), d.hi))
        if "." in d.name:
            base, i = d.name.split(".")
            out[base][int(i)] = v
        else:
            out[d.name] = v
    return out


def _point(dims: list[Dim], params: dict) -> np.ndarray:
    x = []
    for d in dims:
        if "." in d.name:
            base, i = d.name.split(".")
            x.append(float(params[base][int(i)]))
        else:
            x.append(float(params.get(d.name, 0.0)))
    return np.array(x)


def duplicate_edge(
    variant: str,
    policy: str,
    field: str,
    deals: int,
    seed: int,
    params: dict | None = None,
    rules: dict | None = None,
    workers: int | None = None,
    match_length: int = 16,
    seating: str = "seat",
) -> tuple[float, float]:
    """``(edge, se)``: mean points per deal of ``policy`` (with ``params``) seated in each
    seat in turn among ``field`` seats, on the same walls; the standard error takes the
    match averaged over the seatings as its unit. ``seating="dealer"`` counts the seat
    from each deal's dealer (engine.runs.run.simulate), so on every wall the candidate holds
    each role's cards once however the dealer moves: a far less noisy objective.
    """
    from engine.runs.run import place_seats, simulate
    from engine.variants import get

    v = get(variant)
    resolved = v.resolve(rules)
    seats = v.n_players(resolved)
    per_match = None
    n_match = None
    for s in range(seats):
        pols = [field] * seats
        pols[s] = policy
        run = simulate(
            variant, deals, seed=seed, rules=resolved, policies=pols, workers=workers,
            progress=False, match_length=match_length,
            bot_params={s: params} if params else None, seating=seating,
        )  # fmt: skip
        seat = place_seats(run.rec[:, abi.C_DEALER], s, seats, seating)
        x = run.rec[np.arange(run.rec.shape[0]), abi.C_DELTA + seat].astype(np.float64)
        sums = np.bincount(run.match, weights=x)
        per_match = sums if per_match is None else per_match + sums
        n_match = np.bincount(run.match).astype(np.float64)
    t = per_match / seats
    edge = float(t.sum() / n_match.sum())
    m = t.size
    u = t - edge * n_match
    se = float(math.sqrt((u * u).sum() / (m * (m - 1))) / n_match.mean()) if m > 1 else math.nan
    return edge, se


def tune(
    variant: str,
    policy: str = "strong",
    deals: int = 2000,
    seed: int = 1,
    generations: int = 10,
    popsize: int | None = None,
    rules: dict | None = None,
    workers: int | None = None,
    progress: bool = True,
    seating: str = "seat",
    only: list[str] | None = None,
    over: str | None = None,
) -> dict:
    """Tune ``policy``'s parameters for ``variant`` against its field (module docstring).

    ``seating="dealer"`` seats the candidate by place from each deal's dealer
    (:func:`duplicate_edge`); the committed files made before it used ``"seat"``.
    ``only`` names the dimensions searched (the rest keep their starting values, the
    committed ones): a retune of a new parameter or two without the noise of re-searching
    every other.

    ``over`` (``"K=V1,V2,..."``, a play option and its values) makes the objective the
    mean of the candidate's edges at each of those settings, the other options as
    ``rules`` sets them, each on the generation's walls: parameters that hold across the
    settings a designer compares, where one tuned at the defaults can lose elsewhere (诸暨
    at 0 and 1 财神). The defaults' value need not be among them.

    Returns ``{"params": tuned mapping, "start": starting mapping, "tune": identity and
    the history of generations}``.
    """
    import cma

    from engine.play.bots import _defaults
    from engine.variants import get

    if policy not in FIELD:
        raise UsageError(f"mjlab tune: policy {policy!r} has no parameters to tune")
    v = get(variant)
    if policy not in v.policies:
        raise UsageError(f"mjlab tune: {variant} has no {policy} policy")
    from engine.runs.run import MAX_MATCHES, MAX_SEED, _check_int

    # generation g plays seed * 1000 + g (common random numbers within a generation)
    seed = _check_int("--seed", seed, 0, (MAX_SEED - 10_000) // 1000)
    deals = _check_int("--deals", deals, 16, MAX_MATCHES)
    generations = _check_int("--generations", generations, 1, 10_000)
    if popsize is not None:
        popsize = _check_int("--popsize", popsize, 2, 10_000)
    if workers is not None:
        workers = _check_int("--workers", workers, 1, 256)
    if seating not in ("seat", "dealer"):
        raise UsageError(f"unknown seating {seating!r}; seatings: seat, dealer")
    resolved = v.resolve(rules)
    settings, over_values = _design(v, over, rules) if over is not None else ([resolved], None)
    start = _defaults(v, policy, resolved)
    dims = _relevant(v, resolved, policy)
    # a tuned parameter that cannot change play under these rules is not kept
    keep = {d.name.split(".")[0] for d in dims}
    start = {k: val for k, val in start.items() if k in _tuned_keys(policy, v) and k in keep}
    if not dims:
        raise UsageError(f"mjlab tune: no {policy} parameter changes play in {variant}")
    base = None
    if only is not None:
        only = list(dict.fromkeys(n for n in only if n))
        names = [d.name for d in dims]
        unknown = [n for n in only if n not in names]
        if unknown or not only:
            what = f"{', '.join(unknown)} is not a" if unknown else "name a"
            raise UsageError(
                f"mjlab tune --only: {what} tuned {policy} parameter of {variant}; "
                f"parameters: {', '.join(names)}"
            )
        dims = [d for d in dims if d.name in only]
        # the other parameters stay as the committed run left them: name that run
        from engine.play.bots import committed

        base = ((committed(v, policy) or {}).get("tune") or {}).get("command")
    scale = np.array([d.step for d in dims])
    x0 = _point(dims, start) / scale
    lo = np.array([d.lo for d in dims]) / scale
    hi = np.array([d.hi for d in dims]) / scale
    x0 = np.clip(x0, lo, hi)
    opts = {"seed": int(seed) + 1, "bounds": [lo.tolist(), hi.tolist()], "verbose": -9}
    if popsize:
        opts["popsize"] = int(popsize)
    es = cma.CMAEvolutionStrategy(x0.tolist(), 1.0, opts)
    field = FIELD[policy]
    bar = None
    total = generations * es.popsize
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=total, unit="candidate", desc=f"tune {variant} {policy}")
    history = []
    try:
        for g in range(generations):
            xs = es.ask()
            gseed = int(seed) * 1000 + g
            fs = []
            for x in xs:
                p = _params(dims, np.asarray(x) * scale, start)
                edges = [
                    duplicate_edge(
                        variant, policy, field, deals, gseed, p, r, workers, seating=seating
                    )[0]
                    for r in settings
                ]
                fs.append(-float(np.mean(edges)))
                if bar is not None:
                    bar.update(1)
            es.tell(xs, fs)
            mean = {
                d.name: round(float(c * sc), 4)
                for d, c, sc in zip(dims, es.result.xfavorite, scale, strict=True)
            }
            history.append(
                {
                    "generation": g,
                    "best_edge": -min(fs),
                    "mean_edge": -float(np.mean(fs)),
                    "mean": mean,
                }
            )
    finally:
        if bar is not None:
            bar.close()
    tuned = _params(dims, np.asarray(es.result.xfavorite) * scale, start)
    ident = {
        "variant": v.name,
        "variant_version": v.version,
        "policy": policy,
        "field": field,
        "rules": resolved,
        "deals_per_seating": int(deals),
        "generations": int(generations),
        "popsize": int(es.popsize),
        "seed": int(seed),
        "package_version": __version__,
        "cma_version": cma.__version__,
        "dims": [d.name for d in dims],
        "command": f"mjlab tune {v.name} --policy {policy} --deals {deals} --seed {seed} "
        f"--generations {generations}"
        + (f" --popsize {popsize}" if popsize else "")
        + (f" --seating {seating}" if seating != "seat" else "")
        + (f" --only {','.join(d.name for d in dims)}" if only is not None else "")
        + (f" --over {over_values[0]}={','.join(over_values[1])}" if over_values else ""),
        **({"seating": seating} if seating != "seat" else {}),
        **({"over": {over_values[0]: over_values[1]}} if over_values else {}),
        **({"start_from": base} if base else {}),
    }
    return {"params": tuned, "start": start, "tune": {**ident, "history": history}}


def _design(v, over: str, rules=None) -> tuple[list[dict], tuple[str, list[str]]]:
    """The resolved settings of ``--over K=V1,V2,...`` and ``(K, [V1, V2, ...])``.

    UsageError unless ``K`` is a play option of ``v`` (a payout option changes no play
    the tune could see) and each value is one of its values, given once, two or more.
    """
    from engine.variants import parse_rule_args

    key, sep, vals = str(over).partition("=")
    key = key.strip()
    values = [x.strip() for x in vals.split(",")]
    if not sep or not key or any(not x for x in values):
        raise UsageError(f"mjlab tune --over: give K=V1,V2,... (got {over!r})")
    if len(values) < 2 or len(set(values)) != len(values):
        raise UsageError(f"mjlab tune --over {key}: give two or more different values")
    opt = v.option_map.get(key)
    if opt is None:
        raise UsageError(
            f"mjlab tune --over: {v.name} has no rule option {key!r}; see `mjlab variants {v.name}`"
        )
    if opt.payout:
        raise UsageError(
            f"mjlab tune --over {key}: a payout option changes no play; give a play option"
        )
    settings = [
        v.resolve({**(rules or {}), **parse_rule_args([f"{key}={x}"], None)}) for x in values
    ]
    return settings, (key, values)


def _tuned_keys(policy: str, variant) -> set[str]:
    spaces = family_of(variant).tune_spaces
    return {d.name.split(".")[0] for d in spaces.get(policy, ())}


def write(variant: str, policy: str, result: dict, path=None):
    """Store tuned parameters in ``engine/variants/<variant>/<policy>.json`` (a fitted
    model already there is kept), with the identity of the run that made them.
    """
    import json

    from engine.play.bots import BOTDATA, strong_version
    from engine.variants import get as get_variant

    path = path or BOTDATA / variant / f"{policy}.json"
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    version = strong_version(get_variant(variant))
    data["bot"] = {"variant": variant, "policy": policy, "version": version}
    data["params"] = {
        k: ([round(float(x), 4) for x in v] if isinstance(v, list) else round(float(v), 4))
        for k, v in result["params"].items()
    }
    data["tune"] = result["tune"]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path
