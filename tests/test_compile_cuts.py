"""Compile-time cuts (issue 21.1) that leave every record byte-identical.

- A kernel called from kernels with different constants compiles once, for the plain
  types (engine._numba: numba would compile one version per constant).
- A parallel kernel has a serial twin with cache files of its own.
"""

import numba
import numpy as np

from engine import _numba
from engine._numba import kernel, parallel_kernel


@kernel
def _scaled(x, k):
    return x * k


@kernel
def _two_sites(x):
    return _scaled(x, 3) + _scaled(x, 4) + _scaled(x, x)


def test_a_callee_compiles_once_whatever_constants_its_callers_pass(tmp_path, monkeypatch):
    monkeypatch.setattr(_numba, "_COMPILED", tmp_path)  # a cold cache for these kernels
    assert _two_sites(5) == 5 * 3 + 5 * 4 + 5 * 5
    assert [str(s) for s in _scaled.signatures] == ["(int64, int64)"]


@parallel_kernel
def _squares(out):
    for i in numba.prange(out.shape[0]):
        out[i] = i * i


def test_a_parallel_kernels_serial_twin_computes_the_same_in_its_own_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(_numba, "_COMPILED", tmp_path)
    a, b = np.zeros(1000, np.int64), np.zeros(1000, np.int64)
    _squares(a)
    _squares.serial(b)
    assert np.array_equal(a, b) and b[999] == 999 * 999
    assert _squares.targetoptions.get("parallel") and not _squares.serial.targetoptions.get(
        "parallel"
    )
    names = sorted(p.name for p in tmp_path.rglob("*.nbi"))
    assert len(names) == 2 and any(".serial-" in n for n in names), names
