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

import numpy as np
import pytest
from conftest import INTERPRETED

from engine import variants

pytestmark = pytest.mark.twin

POLICIES = ("random", "efficiency", "value", "strong")

_PLAY = """
import hashlib, json, sys, warnings
import numpy as np
from engine import run
out = {}
for v, p in json.loads(sys.argv[1]):
    with warnings.catch_warnings(), np.errstate(over="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # interpreted wrap-around arithmetic
        frame = run.simulate(v, deals=2, seed=5, policies=p, progress=False, workers=1)
    out[v + "/" + p] = hashlib.sha256(frame.to_pandas().to_csv(index=False).encode()).hexdigest()
print(json.dumps(out))
"""


def _compiled_hashes(cases) -> dict:
    """The records' hashes from the compiled kernels (a child process without the flag)."""
    env = dict(os.environ)
    env.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run(
        [sys.executable, "-c", _PLAY, json.dumps(cases)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not INTERPRETED, reason="runs in the NUMBA_DISABLE_JIT=1 pass of .ci/run")
def test_interpreted_loops_give_the_compiled_records():
    from engine import run

    cases = [(v, p) for v in variants.names() for p in POLICIES]
    mine = {}
    for v, p in cases:  # in this process, so that coverage sees the loop code run
        with warnings.catch_warnings(), np.errstate(over="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            frame = run.simulate(v, deals=2, seed=5, policies=p, progress=False, workers=1)
        text = frame.to_pandas().to_csv(index=False).encode()
        mine[v + "/" + p] = hashlib.sha256(text).hexdigest()
    compiled = _compiled_hashes(cases)
    differ = sorted(k for k in mine if mine[k] != compiled[k])
    assert not differ, f"interpreted records differ from compiled ones in {differ}"
    for p in POLICIES:  # each variant played deals of its own
        assert len({mine[v + "/" + p] for v in variants.names()}) == len(variants.names())
