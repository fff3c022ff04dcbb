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


# ---- every declared pattern fires on a worked hand, through ``mjlab score`` ---------------

T_GHOST4 = "--rule ghost=shuang --rule four_ghost_win=true --wild 6z --wild 7z"
L_CAI = "--wild 9p"
Z_NOCAI = "--rule caishen=0"
Z_CAI = "--rule caishen=2 --wild 8p --wild 9p"
F_YOU = "123456789m123p456p7s9s --win 9s --seat 1 --wild 9s --rule youjin=minnan"

WORKED = {
    "tuidaohu": {
        "tianhu": "123m456m789m123p55p --win 5p --flag tianhu",
        "qingyise": "123456789m12399m --win 9m",
        "ziyise": "111222333555z66z --win 6z",
        "qidui": "1122m3344p5566s77z --win 7z",
        "sianke": "111m222p333s444s55z --win 5z",
        "shibaluohan": "55z --win 5z --melds 'ankong:1m ankong:2p ankong:3s ankong:4s'",
        "dasanyuan": "555666777z123m99p --win 9p",
        "xiaosixi": "111222333z44z123m --win 3m",
        "dasixi": "111222333444z55m --win 5m",
        "shisanyao": "119m19p19s1234567z --win 1m",
        "sigui": f"1m1m2m3m4m5m9p9p6z6z7z7z8s8s --win 8s {T_GHOST4} --flag sigui",
        "hunyise": "123456m789m111z22z --win 2z",
        "gangkai": "123m456p789s55z --melds ankong:9m --win 5z --flag gangkai",
        "qianggang": "123m456p789s111z55z --win 3m --from 1 --flag qianggang",
        "wugui": "123m456p789s111z55z --win 5z --rule ghost=fan --rule no_ghost_double=true",
    },
    "lishui": {
        "qingyise": "11113355779999p --win 1p",
        "ziyise": "11122233344455z --win 5z",
        "qiduizi": "1133557799m1122z --win 1z",
        "daduizi": "111m222p333s44455z --win 5z",
        "buda": "147m258p369s12345z --win 5z",
        "tianhu": "123m456p789s234m11z --win 1z --flag tianhu",
        "dihu": "123m456p789s234m11z --win 1z --seat 2 --flag dihu",
        "gangkai": "123m456p11z234m --melds kong:7s --seat 2 --win 1z --flag gangkai",
        "caishenhui": f"123m3456p78s11z999p --win 1m {L_CAI}",
        "qianggang": "123m456p789s234m11z --win 1z --seat 1 --from 2 --flag qianggang",
    },
    "zhuji": {
        "zhong": f"777z123m456p789s11s --win 1s {Z_NOCAI}",
        "fa": f"666z123m456p789s11s --win 1s {Z_NOCAI}",
        "bai": f"555z123m456p789s11s --win 1s {Z_NOCAI}",
        "dongfeng": f"111z123m456p789s11s --win 1s {Z_NOCAI}",
        "pinghu": f"123m456p789s234m11s --win 1s {Z_NOCAI}",
        "duiduihu": f"111m222p333s444m55s --win 5s {Z_NOCAI}",
        "qingyise": f"11123455678999m --win 9m {Z_NOCAI}",
        "hunyise": f"222z123456789m11m --win 1m {Z_NOCAI}",
        "sancaishen": f"123m456p789s11z8p9p9p --win 1z {Z_CAI}",
        "gangkai": f"111z123m456p11s --melds kong:7z --win 1s --flag gangkai {Z_NOCAI}",
        "qianggang": f"111z123m456p789s11s --win 1s --seat 1 --from 3 --flag qianggang {Z_NOCAI}",
        "tianhu": f"111z777z123m456p11s --win 1s --flag tianhu {Z_NOCAI}",
        "dihu": f"111z777z123m456p11s --win 1s --seat 1 --flag dihu {Z_NOCAI}",
        "quanzipai": "222z333z444z555z8p9p --win 5z --wild 8p --wild 9p",
        "wucai": "111z777z123456m99m --win 9m --rule caishen=2",
        "qidui": f"11335577m99m2244m --win 1m --rule seven_pairs=true {Z_NOCAI}",
    },
    "fuzhou": {
        "tianhu": "123456789m123p456p77s --win 7s --seat 0 --flag tianhu --flowers 2",
        "dihu": "123456789m123p456p77s --win 7s --seat 1 --from 0 --flag dihu --flowers 2",
        "qiangjin": "123456789m123p456p7s9s --win 7s --seat 1 --wild 9s --flag qiangjin",
        "sanjindao": "13579m2468p13579s9s9s9s --win 1m --seat 1 --wild 9s --flag sanjindao",
        "jinque": "123456789m123p456p9s9s --win 1m --seat 1 --wild 9s --flowers 2",
        "jinlong": "123456789m123p55p9s9s9s --win 5p --seat 1 --wild 9s --flowers 1",
        "wuhua": "123456789m123p456p77s --win 7s --seat 1",
        "yizhanghua": "123456789m123p456p77s --win 7s --seat 1 --flowers 1",
        "danyou": f"{F_YOU} --flag danyou",
        "shuangyou": f"{F_YOU} --flag shuangyou",
        "sanyou": f"{F_YOU} --flag sanyou",
        "qianggang": "123456789m123p456p77s --win 7s --seat 1 --from 2 --flag qianggang",
    },
    "tiny": {
        "pengpeng": "111m222p333s444z55z --win 5z --from 1",
        "qingyise": "123456789m12399m --win 9m --from 1",
        "zimo": "123m456p789s111z55z --win 5z --self-draw",
    },
    "luodisao": {
        "tianhu": "'x1x2x3 d2d7d10 x4x4d4 d5d5d5 x8x9x10' --flag tianhu --win d5",
        "dihu": "'d1d2d3 x5x5x5 x4x4d4 x6x7x8' --win x4 --melds peng:x9 --from 0 --seat 1 "
        "--flag dihu",
        "zimo": "'d5d5d5 d4d4d4 x3x4x5 x4x5x6 d8d8d8' --win x6 --self-draw",
        "honghu": "'x2x7x10 x2x7x10 d1d2d3 x4x5x6 d8d8d8' --win x6 --from 1",
        "yidianzhu": "'d1d2d3 d4d4d4 x3x4x5 x4x5x6 d8d8d8' --win x6 --from 1",
        "quanhong": "'x2x7x10 x2x7x10 d2d7d10 d2d7d10 x4x5x6' --win x6 --from 1",
        "heihu": "'d5d5d5 d4d4d4 x3x4x5 x4x5x6 d8d8d8' --win x6 --from 1",
        "wangdiao": "'x1x2x3 d2d7d10 x4x5x6 w x8' --win x8 --melds pao:d5",
        "wangdiaowang": "'x1x2x3 d2d7d10 x4x5x6 w w' --win w --melds pao:d5 --rule kings=2",
        "wangchuang": "'x1x2x3 d2d7d10 x4x5x6 d8d9d10 w w d3' --win d3 --rule kings=2",
        "wangchuangwang": "'x1x2x3 d2d7d10 x4x5x6 d8d9d10 w w w' --win w --rule kings=3",
        "wangzha": "'x1x2x3 d2d7d10 x4x5x6 x7x8x9 w w w d3' --win d3 --rule kings=3",
        "wangzhawang": "'x1x2x3 d2d7d10 x4x5x6 x7x8x9 w w w w' --win w --rule kings=4",
    },
}
"""A worked hand for every declared pattern of every variant, as ``mjlab score VARIANT``
arguments (the hands of each variant's own scoring tests, where they have one)."""


def _score_json(capsys, name: str, argv: str) -> dict:
    import json
    import shlex

    from mjlab.cli import main

    code = main(["score", name, *shlex.split(argv), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_every_declared_pattern_has_a_worked_hand():
    """The table below covers each registered variant's declaration, and nothing else."""
    for name in variants.names():
        declared = [p.name for p in variants.get(name).patterns]
        assert sorted(WORKED.get(name, {})) == sorted(declared), name
    assert sorted(WORKED) == variants.names()


@pytest.mark.parametrize(
    ("name", "pattern"), [(n, p) for n, cases in sorted(WORKED.items()) for p in cases]
)
def test_every_pattern_bit_fires_on_its_worked_hand(capsys, name, pattern):
    """``mjlab score`` finds the pattern on its worked hand (the bit the kernels set, named
    by the declaration), and the hand is a win worth something."""
    r = _score_json(capsys, name, WORKED[name][pattern])
    assert r["complete"], r
    assert pattern in r["patterns"], r["patterns"]
    assert r["value"] > 0
