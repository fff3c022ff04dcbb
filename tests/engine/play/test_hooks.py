"""The game loop reaches the variants through one dispatch that the variants fill.

Each mahjong variant's kernel module owns its ``KERNEL_ID`` and its hook kernels; the
dispatch (:mod:`engine.play.mahjong.hooks`) calls them through a table it fills per variant.
These tests check that every registered variant is reached by exactly the hooks it
defines, that an unbound variant raises, that a no-op hook a variant lacks is skipped,
and that a clash is refused.
"""

import pytest

from engine import variants
from engine.jit.njit import kernel
from engine.play.mahjong import hooks as H

HOOKS = {  # dispatch kernel -> (old slot prefix, the variant modules' attribute)
    "deal_setup": ("DS", "deal_setup"),
    "win_patterns": ("PT", "patterns"),
    "win_priority": ("PR", "win_priority"),
    "win_legal": ("WL", "win_legal"),
    "on_kong": ("OK", "on_kong"),
    "on_discard": ("OD", "on_discard"),
    "settle": ("ST", "settle"),
    "four_wild_win": ("FW", "four_wild_win"),
    "restore": ("RS", "restore"),
}


def _mahjong():
    return [variants.get(n) for n in variants.names() if variants.get(n).family == "mahjong"]


def test_every_mahjong_variant_is_dispatched_by_its_own_id():
    vs = _mahjong()
    assert {v.name for v in vs} == {"fuzhou", "lishui", "tiny", "tuidaohu", "zhuji"}
    assert sorted(H.KERNELS) == sorted(v.kernel_id for v in vs)
    for v in vs:
        assert H.KERNELS[v.kernel_id] is v.hooks
        assert v.pack(v.defaults())[0] == v.hooks.KERNEL_ID  # rules[R_VARIANT]


def test_every_zipai_variant_is_dispatched_by_its_own_id():
    """The 字牌 loop's table (engine.play.zipai.hooks) holds the 字牌 variants by id, read
    from ``rules[Z_VARIANT]``; no id is in both families' tables by accident."""
    from engine.play.zipai import hooks as ZH
    from engine.zipai.layout import Z_VARIANT

    vs = [variants.get(n) for n in variants.names() if variants.get(n).family == "zipai"]
    assert {v.name for v in vs} == {"luodisao"}
    assert sorted(ZH.KERNELS) == sorted(v.kernel_id for v in vs)
    for v in vs:
        assert ZH.KERNELS[v.kernel_id] is v.hooks
        assert v.pack(v.defaults())[Z_VARIANT] == v.hooks.KERNEL_ID
        for hook, (attr, *_) in ZH.HOOKS.items():
            assert ZH.HOOK_TABLE.variant_kernel(hook, v.kernel_id) is getattr(v.hooks, attr)


@pytest.mark.parametrize("hook", sorted(HOOKS))
def test_each_hook_calls_the_kernel_of_the_variants_that_define_it(hook):
    attr, default = HOOKS[hook][1], H.HOOKS[hook][1]
    assert H.HOOKS[hook][0] == attr
    for i, mod in H.KERNELS.items():
        want = getattr(mod, attr, default)
        assert H.variant_kernel(hook, i) is want
    assert H.variant_kernel(hook, H.IDS - 1) is default  # an id no variant owns
    assert any(hasattr(m, attr) for m in H.KERNELS.values()), f"no variant defines {attr}"


@kernel
def _four_wilds(rules):
    return H.four_wild_win(rules)


def test_a_hook_of_an_unbound_variant_raises_and_binding_fills_it():
    import numpy as np

    from engine.hand._tables import kernel_tables
    from engine.mahjong.layout import R_VARIANT

    rules = np.zeros(R_VARIANT + 1, np.int64)
    rules[R_VARIANT] = H.IDS - 1  # no variant: never bound by the loop
    with pytest.raises(RuntimeError, match="not bound"):
        _four_wilds(rules)
    H.bind(H.IDS - 1, kernel_tables())
    assert _four_wilds(rules) is False  # the default
    with pytest.raises(ValueError, match="outside"):
        H.bind(H.IDS, kernel_tables())


@kernel
def _discard_money(rules, ctx, pay):
    H.on_discard(rules, ctx, pay, 0, 5, 4)


def test_a_no_op_hook_a_variant_does_not_define_is_skipped_not_called():
    import numpy as np

    from engine.hand._tables import kernel_tables
    from engine.mahjong.layout import R_VARIANT

    h = H._ORDER.index("on_discard")
    for name, own in (("lishui", True), ("tuidaohu", False)):
        vid = variants.get(name).kernel_id
        H.bind(vid, kernel_tables())
        addr = H.TABLE.address(h, vid)
        assert (addr > H.SKIP) if own else (addr == H.SKIP), (name, addr)
        rules = np.zeros(R_VARIANT + 1, np.int64)
        rules[R_VARIANT] = vid
        if not own:  # the call site skips it: nothing is paid
            pay = np.zeros((4, 4), np.int64)
            _discard_money(rules, np.zeros(8, np.int64), pay)
            assert not pay.any()


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
