import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import tiles


def test_parse_contract_example():
    c = tiles.parse("123m456p789s11z 222z")
    assert c.shape == (34,) and c.dtype == np.uint8
    assert int(c.sum()) == 14
    assert c[tiles.kind("2z")] == 3
    assert tiles.format(c) == "123m456p789s11222z"


def test_kind_index_layout():
    assert tiles.kind("1m") == 0
    assert tiles.kind("9m") == 8
    assert tiles.kind("1p") == 9
    assert tiles.kind("1s") == 18
    assert tiles.kind("1z") == 27
    assert tiles.kind("7z") == 33


@pytest.mark.parametrize(
    "text, needle",
    [
        ("123x", "'x'"),
        ("0m", "0m"),
        ("8z", "8z"),
        ("9z", "9z"),
        ("11111m", "fifth copy of 1m"),
        ("", "empty"),
        ("   ", "empty"),
        ("12", "'12'"),
        ("1m!", "'!'"),
        ("f9", "f9"),
    ],
)
def test_parse_errors_name_the_token(text, needle):
    with pytest.raises(ValueError, match=None) as info:
        tiles.parse(text, flowers=True)
    assert needle in str(info.value)


def test_flowers_only_when_asked():
    with pytest.raises(ValueError, match="flower"):
        tiles.parse("1m f1")
    counts, flowers = tiles.parse("1m f1 f8", flowers=True)
    assert counts.sum() == 1 and flowers.tolist() == [1, 0, 0, 0, 0, 0, 0, 1]
    assert tiles.format(counts, flowers) == "1mf1f8"
    with pytest.raises(ValueError, match="twice"):
        tiles.parse("f2 f2", flowers=True)


def test_glyphs():
    assert (
        tiles.glyphs(tiles.parse("1m1p1s1z7z"))
        == "\U0001f007\U0001f019\U0001f010\U0001f000\U0001f004"
    )
    assert tiles.glyph(tiles.kind("5z")) == "\U0001f006"  # 白


def test_next_kind_cycles():
    names = lambda ks: [tiles.kind_name(tiles.next_kind(tiles.kind(k))) for k in ks]  # noqa: E731
    assert names(["9m", "1p", "4z", "1z", "7z", "6z", "5z"]) == [
        "1m",
        "2p",
        "1z",
        "2z",
        "6z",
        "5z",
        "7z",
    ]


@st.composite
def counts_strategy(draw):
    c = draw(st.lists(st.integers(0, 4), min_size=34, max_size=34))
    if sum(c) == 0:
        c[0] = 1
    return np.array(c, np.uint8)


@given(counts_strategy())
def test_format_parse_round_trip(c):
    assert np.array_equal(tiles.parse(tiles.format(c)), c)
