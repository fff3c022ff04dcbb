"""Records pinned by hash, every variant and policy: the safety net of a structural change.

Issue 18 moves the engine's modules without changing what they compute; this test pins
the kernel rows of every variant under each of its policies (and a mixed table) on a
fixed seed, so that a move that changes any record fails. ``pytest --regen`` rewrites
``tests/golden/record_hashes.json`` (only for a change that is meant to change play), and
refuses to where a variant's records changed but its ``Variant.version`` did not: records
of another play must not share a rules_id (the version is in it) with the old ones. The
file keeps the version each variant's hashes were made at (``_versions``).
"""

import hashlib
import json
from pathlib import Path

import pytest

from engine import simulate, variants

PATH = Path(__file__).parents[1] / "golden" / "record_hashes.json"
DEALS, SEED = 640, 18


def _cases():
    out = []
    for name in variants.names():
        v = variants.get(name)
        pols = list(v.policies)
        out += [(name, p) for p in pols]
        mixed = ",".join((pols * 4)[: v.players][::-1])
        out.append((name, mixed))
    return out


def _digest(name, policies):
    r = simulate(name, DEALS, seed=SEED, policies=policies, workers=1, progress=False)
    return hashlib.sha256(r.rec.tobytes()).hexdigest()


def _versions() -> dict[str, int]:
    return {n: variants.get(n).version for n in variants.names()}


def unversioned_changes(got: dict, want: dict, versions: dict) -> list[str]:
    """The cases whose hash changed while their variant's version stayed the one the
    pinned hashes were made at (``want["_versions"]``)."""
    made_at = want.get("_versions", {})
    return sorted(
        k for k, h in got.items()
        if k in want and want[k] != h and made_at.get(k.split("/")[0]) == versions[k.split("/")[0]]
    )  # fmt: skip


def test_record_hashes_are_pinned(regen):
    got = {f"{n}/{p}": _digest(n, p) for n, p in _cases()}
    versions = _versions()
    if regen:
        old = json.loads(PATH.read_text()) if PATH.exists() else {}
        stale = unversioned_changes(got, old, versions)
        assert not stale, (
            f"records changed for {stale} but the variant's version did not: bump "
            "Variant.version (its rules_id changes with it), then pytest --regen"
        )
        PATH.write_text(json.dumps({**got, "_versions": versions}, indent=1, sort_keys=True) + "\n")
    assert PATH.exists(), f"{PATH.name} is missing: pytest --regen writes it"
    want = json.loads(PATH.read_text())
    made_at = want.pop("_versions", None)
    assert sorted(got) == sorted(want), "the set of variants and policies changed"
    changed = sorted(k for k in got if got[k] != want[k])
    assert not changed, f"records changed: {changed}"
    assert made_at == versions, "a variant's version changed: pytest --regen records it"


def test_regen_refuses_a_change_without_a_version_bump():
    want = {"tiny/random": "a", "zhuji/value": "b", "_versions": {"tiny": 1, "zhuji": 3}}
    same = {"tiny/random": "a", "zhuji/value": "b"}
    assert unversioned_changes(same, want, {"tiny": 1, "zhuji": 3}) == []
    moved = {"tiny/random": "x", "zhuji/value": "y"}
    assert unversioned_changes(moved, want, {"tiny": 1, "zhuji": 3}) == [
        "tiny/random",
        "zhuji/value",
    ]
    assert unversioned_changes(moved, want, {"tiny": 2, "zhuji": 3}) == ["zhuji/value"]


@pytest.mark.parametrize("workers", [2])
def test_the_pinned_records_do_not_depend_on_workers(workers):
    name, pol = _cases()[0]
    r = simulate(name, DEALS, seed=SEED, policies=pol, workers=workers, progress=False)
    want = json.loads(PATH.read_text())[f"{name}/{pol}"]
    assert hashlib.sha256(r.rec.tobytes()).hexdigest() == want
