"""A family is an object looked up from the variant, never a string the engine tests.

Both families (mahjong, 字牌) give the same entry points with the same arguments, so the
registry-wide tests (conformance in tests/engine/test_engine.py, record hashes, replays) run
every variant of both through one signature.
"""

import dataclasses
import re
from pathlib import Path

import pytest

from engine import variants
from engine.play.family import FAMILIES, MAHJONG, ZIPAI, Family, family_of

ENGINE = Path(__file__).resolve().parents[3] / "engine"


def test_every_variant_has_a_registered_family():
    seen = {}
    for name in variants.names():
        fam = family_of(variants.get(name))
        assert FAMILIES[fam.name] is fam
        seen.setdefault(fam.name, []).append(name)
    assert sorted(seen) == ["mahjong", "zipai"]
    assert sorted(seen["zipai"]) == ["luodisao"]
    assert {MAHJONG, ZIPAI} == set(FAMILIES.values())


@pytest.mark.parametrize("fam", [MAHJONG, ZIPAI], ids=lambda f: f.name)
def test_a_family_gives_every_entry_point(fam):
    optional = {"values": "its strong reads the payouts from the packed rules"}
    for f in dataclasses.fields(Family):
        value = getattr(fam, f.name)
        assert value is not None or f.name in optional, f"{fam.name}.{f.name} is missing"
    for name in ("replay", "check", "score", "relevant", "fit", "refit", "audit"):
        assert callable(getattr(fam, name)), name
    assert hasattr(fam.play_matches, "serial")
    assert fam.params.N_BOT > 0 and fam.strong_version >= 1
    assert "strong" in fam.tune_spaces
    assert fam.package.startswith("engine.")


def test_an_unknown_family_is_named():
    v = dataclasses.replace(variants.get("tuidaohu"), family="tiles")
    with pytest.raises(ValueError, match="unknown family 'tiles'"):
        family_of(v)


def test_no_engine_module_tests_a_family_by_its_name():
    pat = re.compile(r"""family\s*[!=]=\s*["']|["']\s*[!=]=\s*\w*\.?family\b""")
    hits = [
        f"{p.relative_to(ENGINE)}:{i}"
        for p in ENGINE.rglob("*.py")
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if pat.search(line)
    ]
    assert not hits, f"family tested by name: {hits}"
