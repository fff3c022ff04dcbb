"""A pattern is one declaration: its bit, the big-hand mask and its record column follow.

Each variant declares its patterns once, beside their detectors in its kernel
module (``engine/variants/<v>/_kernels.py``); the kernels' ``P_*`` bits, ``N_PATTERNS`` and
``BIG_MASK`` are read from that declaration at import (numba freezes them), and the
variant's record columns ``pat_<name>`` come from the same tuple.
"""

from importlib import import_module

import pytest

from engine import variants
from engine.variants._base import MAX_PATTERNS, Pattern, big_mask, pattern_bits


@pytest.mark.parametrize("name", variants.names())
def test_the_bits_are_the_declaration(name):
    v = variants.get(name)
    K = import_module(f"engine.variants.{name}._kernels")
    assert v.hooks is None or v.hooks is K
    assert v.patterns is K.PATTERNS
    names = [p.name for p in v.patterns]
    for i, n in enumerate(names):
        assert getattr(K, f"P_{n.upper()}") == i == K.BIT[n]
    bits = {k: getattr(K, k) for k in dir(K) if k.startswith("P_") and k[2:].isupper()}
    assert sorted(bits.values()) == list(range(len(names))), "a P_ bit without a pattern"
    if hasattr(K, "N_PATTERNS"):
        assert len(names) == K.N_PATTERNS
    assert sum(1 << i for i, p in enumerate(v.patterns) if p.big) == K.BIG_MASK
    assert v.pattern_columns() == [f"pat_{n}" for n in names]


def test_a_pattern_declared_twice_or_too_many_is_refused():
    p = Pattern("a", "甲", "a")
    with pytest.raises(ValueError, match="declared twice"):
        pattern_bits((p, p))
    many = tuple(Pattern(f"p{i}", "乙", "") for i in range(MAX_PATTERNS + 1))
    with pytest.raises(ValueError, match="a record holds"):
        pattern_bits(many)
    assert big_mask((p, Pattern("b", "丙", "", big=True))) == 2
