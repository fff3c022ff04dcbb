"""Fitting the strong policy's models from the engine's own ground truth (``mjlab fit``).

The simulator knows every hidden hand, so the models the strong policy needs are fitted
on simulated positions whose outcome is exact, by the variant's family
(:attr:`engine.play.family.Family.fit`: :func:`engine.play.mahjong.fit.fit_mahjong` describes the
mahjong models, :func:`engine.play.zipai.fit.fit_zipai` the 字牌 ones). Everything is a pure
function of the variant, its rules, the policies, the deal count and the seed, so
:func:`fit` reproduces committed models exactly; :func:`write` stores them in the
package (``engine/variants/<variant>/strong.json``) with the command that made them.
"""

from __future__ import annotations

import json
from pathlib import Path

from engine import variants
from engine.errors import UsageError
from engine.play.bots import strong_version
from engine.play.family import family_of
from engine.runs.run import MAX_MATCHES, MAX_SEED, _check_int

__all__ = ["fit", "write", "botdata_path"]


def botdata_path(variant: str, policy: str) -> Path:
    """Where the committed parameters of ``policy`` for ``variant`` live."""
    from engine.play.bots import BOTDATA

    return BOTDATA / variant / f"{policy}.json"


def fit(
    variant_name: str,
    deals: int = 20_000,
    seed: int = 1,
    rules: dict | None = None,
    policy: str = "value",
    threads: int = 2,
    progress: bool = False,
) -> dict:
    """Fit the strong policy's models for ``variant_name`` (see the module docstring).

    Returns the model as a mapping of parameter name to a list of floats (the
    ``strong.*`` model blocks of the family's parameter layout) plus ``"identity"`` and
    ``"summary"`` (positions seen, base rates).
    """
    seed = _check_int("--seed", seed, 0, MAX_SEED)
    deals = _check_int("--deals", deals, 16, MAX_MATCHES)
    threads = _check_int("--workers", threads, 1, 256)
    v = variants.get(variant_name)
    if deals < 16:
        raise UsageError(f"--deals must be at least 16, got {deals}")
    return family_of(v).fit(v, v.resolve(rules), deals, seed, policy, threads, progress)


def write(variant_name: str, fitted: dict, path: Path | None = None) -> Path:
    """Store a fitted model in ``strong.json`` (keeping tuned parameters already there)."""
    path = path or botdata_path(variant_name, "strong")
    data = {}
    if path.exists():
        data = json.loads(path.read_text(encoding="utf-8"))
    version = strong_version(variants.get(variant_name))
    data["bot"] = {"variant": variant_name, "policy": "strong", "version": version}
    data["model"] = fitted["model"]
    data["fit"] = {**fitted["identity"], **fitted["summary"]}
    data.setdefault("params", {})
    data.setdefault("tune", None)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path
