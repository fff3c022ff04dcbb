"""An extra record column is one declaration: its index and its record columns follow.

Each variant declares its extras once (``Extra(name, width, doc)``), beside the kernels
that write them (``engine/variants/<v>/_kernels.py``); the kernels' indices (``E_*``, the
字牌 variant's ``X_*``) are read from that declaration at import, and the variant's record
columns come from the same tuple, a block of width 4 as ``<name>_0`` .. ``<name>_3``.
"""

from importlib import import_module

import pytest

from engine import abi, variants
from engine.variants._base import Extra, extra_columns, extra_index


def _index_constants(K, prefix):
    """The module's ``<prefix>NAME = int`` constants whose NAME is a declared extra's."""
    names = {x.name.upper(): x.name for x in K.EXTRAS}
    names.update({"ON_FLIP": "win_on_flip"})  # luodisao's X_ON_FLIP names win_on_flip
    out = {}
    for attr in dir(K):
        if attr.startswith(prefix) and attr[len(prefix) :] in names:
            out[names[attr[len(prefix) :]]] = getattr(K, attr)
    return out


@pytest.mark.parametrize("name", variants.names())
def test_the_indices_are_the_declaration(name):
    v = variants.get(name)
    K = import_module(f"engine.variants.{name}._kernels")
    if not v.extras:
        assert not getattr(K, "EXTRAS", ())
        return
    assert v.extras is K.EXTRAS
    prefix = "X_" if v.family == "zipai" else "E_"
    got = _index_constants(K, prefix)
    at = 0
    for x in v.extras:  # each index is the widths declared before it, added up
        assert got[x.name] == at == extra_index(v.extras)[x.name], x.name
        at += x.width
    assert set(got) == {x.name for x in v.extras}, "an extra without its index constant"
    assert len(v.extra_columns) == at <= abi.MAX_EXTRA
    assert all(x.doc for x in v.extras), "every extra says what it holds"


@pytest.mark.parametrize("name", ["tuidaohu", "luodisao"])
def test_the_record_columns_are_the_declaration(name):
    """A record's extra columns are the declared ones, in index order, each holding what
    the kernel wrote at its index."""
    from engine import simulate

    v = variants.get(name)
    run = simulate(name, deals=16, seed=3, policies="random", progress=False)
    df = run.to_pandas()
    cols = list(v.extra_columns)
    assert list(df.columns[-len(cols) :]) == cols
    for i, c in enumerate(cols):
        assert (df[c].to_numpy() == run.rec[:, abi.C_EXTRA + i]).all(), c


def test_widths_names_and_limits():
    xs = (Extra("a", doc="a"), Extra("money", 4, "m"), Extra("b", doc="b"))
    assert extra_index(xs) == {"a": 0, "money": 1, "b": 5}
    assert extra_columns(xs) == ("a", "money_0", "money_1", "money_2", "money_3", "b")
    with pytest.raises(ValueError, match="declared twice"):
        extra_index((Extra("a"), Extra("a")))
    with pytest.raises(ValueError, match="width"):
        extra_index((Extra("a", 0),))
    with pytest.raises(ValueError, match="a record holds"):
        extra_index(tuple(Extra(f"x{i}", 4) for i in range(abi.MAX_EXTRA // 4 + 1)))
    with pytest.raises(ValueError, match="named twice"):
        extra_columns((Extra("m", 2), Extra("m_0")))
