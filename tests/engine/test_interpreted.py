"""The game loops interpreted give the compiled loops' records (the NUMBA_DISABLE_JIT pass).

.ci/run runs the ``twin`` tests a second time with ``NUMBA_DISABLE_JIT=1``, so that the
kernel code runs as plain Python where coverage and a debugger can see it. This test is what
makes that pass check the loops: it plays a deal of every variant with every policy
interpreted, in this process, and compares the records with the compiled kernels' records
from a child process. A Python semantics the kernels lean on that differs when compiled
(integer overflow, a narrowing store, float evaluation order) shows as a different hash.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import INTERPRETED

from engine import variants

pytestmark = pytest.mark.twin

POLICIES = ("random", "efficiency", "value", "strong")


def _play_hashes(cases) -> dict:
    """sha256 of the records of 2 deals of each ``(variant, policy)`` in ``cases``."""
    from engine.runs import run

    out = {}
    for v, p in cases:
        with warnings.catch_warnings(), np.errstate(over="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)  # interpreted wrap-around arithmetic
            frame = run.simulate(v, deals=2, seed=5, policies=p, progress=False, workers=1)
        text = frame.to_pandas().to_csv(index=False).encode()
        out[f"{v}/{p}"] = hashlib.sha256(text).hexdigest()
    return out


_CHILD = (
    "import json, sys; sys.path[:0] = sys.argv[1:3]; from test_interpreted import "
    "_play_hashes; print(json.dumps(_play_hashes(json.loads(sys.argv[3]))))"
)


def _compiled_hashes(cases) -> dict:
    """:func:`_play_hashes` from the compiled kernels (a child process without the flag)."""
    env = dict(os.environ)
    env.pop("NUMBA_DISABLE_JIT", None)
    here = Path(__file__).resolve()
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(here.parent), str(here.parents[1]), json.dumps(cases)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not INTERPRETED, reason="runs in the NUMBA_DISABLE_JIT=1 pass of .ci/run")
def test_interpreted_loops_give_the_compiled_records():
    cases = [(v, p) for v in variants.names() for p in variants.get(v).policies]
    mine = _play_hashes(cases)  # in this process, so that coverage sees the loop code run
    compiled = _compiled_hashes(cases)
    assert sorted(compiled) == sorted(mine)
    differ = sorted(k for k in mine if mine[k] != compiled[k])
    assert not differ, f"interpreted records differ from compiled ones in {differ}"
    for p in POLICIES:  # each variant played deals of its own
        those = [mine[f"{v}/{q}"] for v, q in cases if q == p]
        assert len(set(those)) == len(those) > 1
