"""The game loop reaches the variants through one dispatch that the variants fill.

Each mahjong variant's kernel module owns its ``KERNEL_ID`` and its hook kernels; the
dispatch (:mod:`engine.game._hooks`) lays them out in numbered slots that numba freezes.
These tests check that every registered variant is reached by exactly the hooks it
defines, that the switch of every hook covers every slot, and that a clash is refused.
"""

import ast
import inspect

import pytest

from engine import variants
from engine.game import _hooks as H

HOOKS = {  # dispatch kernel -> (slot prefix, the variant modules' attribute)
    "deal_setup": ("DS", "deal_setup"),
    "win_patterns": ("PT", "patterns"),
    "win_priority": ("PR", "win_priority"),
    "win_legal": ("WL", "win_legal"),
    "on_kong": ("OK", "on_kong"),
    "on_discard": ("OD", "on_discard"),
    "settle": ("ST", "settle"),
    "four_wild_win": ("FW", "four_wild_win"),
}


def _mahjong():
    return [variants.get(n) for n in variants.names() if variants.get(n).hooks is not None]


def test_every_mahjong_variant_is_dispatched_by_its_own_id():
    vs = _mahjong()
    assert {v.name for v in vs} == {"fuzhou", "lishui", "tiny", "tuidaohu", "zhuji"}
    assert sorted(H.KERNELS) == sorted(v.kernel_id for v in vs)
    for v in vs:
        assert H.KERNELS[v.kernel_id] is v.hooks
        assert v.pack(v.defaults())[0] == v.hooks.KERNEL_ID  # rules[R_VARIANT]


@pytest.mark.parametrize("hook", sorted(HOOKS))
def test_each_hook_slot_holds_the_variants_that_define_it(hook):
    prefix, attr = HOOKS[hook]
    ids = [getattr(H, f"{prefix}{k}") for k in range(H.SLOTS)]
    fns = [getattr(H, f"{prefix.lower()}{k}") for k in range(H.SLOTS)]
    want = sorted(i for i, m in H.KERNELS.items() if hasattr(m, attr))
    assert sorted(i for i in ids if i != -1) == want
    for i, f in zip(ids, fns, strict=True):
        if i != -1:
            assert f is getattr(H.KERNELS[i], attr)
        else:
            assert f.__name__.startswith("_"), f"an empty slot of {hook} calls {f}"
    assert want, f"no variant defines {attr}"


@pytest.mark.parametrize("hook", sorted(HOOKS))
def test_the_switch_of_each_hook_covers_every_slot(hook):
    prefix, _ = HOOKS[hook]
    tree = ast.parse(inspect.getsource(getattr(H, hook).py_func))
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    for k in range(H.SLOTS):
        assert f"{prefix}{k}" in names and f"{prefix.lower()}{k}" in names, (hook, k)


def test_an_id_claimed_twice_is_refused(monkeypatch):
    a, b = _mahjong()[:2]

    class Impostor:
        KERNEL_ID = a.kernel_id
        __name__ = "impostor"

    fake = b.__class__(**{**b.__dict__, "hooks": Impostor, "kernel_id": a.kernel_id})
    monkeypatch.setattr(H, "loaded", lambda: [a, fake])
    with pytest.raises(ValueError, match="claimed by"):
        H._kernel_modules()


def test_the_dispatch_refuses_a_registry_still_loading(monkeypatch):
    from engine.variants import _registry

    monkeypatch.setattr(_registry, "_LOADED", [False])
    with pytest.raises(ImportError, match="finished loading"):
        _registry.loaded()
