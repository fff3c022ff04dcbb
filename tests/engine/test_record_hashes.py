"""Records pinned by hash, every variant and policy: the safety net of a structural change.

Issue 18 moves the engine's modules without changing what they compute; this test pins
the kernel rows of every variant under each of its policies (and a mixed table) on a
fixed seed, so that a move that changes any record fails. ``pytest --regen`` rewrites
``tests/golden/record_hashes.json`` (only for a change that is meant to change play).
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


def test_record_hashes_are_pinned(regen):
    got = {f"{n}/{p}": _digest(n, p) for n, p in _cases()}
    if regen:
        PATH.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    assert PATH.exists(), f"{PATH.name} is missing: pytest --regen writes it"
    want = json.loads(PATH.read_text())
    assert sorted(got) == sorted(want), "the set of variants and policies changed"
    changed = sorted(k for k in got if got[k] != want[k])
    assert not changed, f"records changed: {changed}"


@pytest.mark.parametrize("workers", [2])
def test_the_pinned_records_do_not_depend_on_workers(workers):
    name, pol = _cases()[0]
    r = simulate(name, DEALS, seed=SEED, policies=pol, workers=workers, progress=False)
    want = json.loads(PATH.read_text())[f"{name}/{pol}"]
    assert hashlib.sha256(r.rec.tobytes()).hexdigest() == want
