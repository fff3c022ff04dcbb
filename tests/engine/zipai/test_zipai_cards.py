import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.zipai import cards


def test_parse_contract_example():
    counts, kings = cards.parse("x1x2x3 d10 w")
    assert counts.shape == (20,) and counts.dtype == np.uint8
    assert kings == 1
    assert int(counts.sum()) == 4
    assert counts[cards.card("d10")] == 1
    assert cards.format(counts, kings) == "x1x2x3d10w"


def test_kind_index_layout():
    assert [cards.card(n) for n in ("x1", "x10", "d1", "d10", "w")] == [0, 9, 10, 19, 20]
    assert [cards.card_name(k) for k in (0, 9, 10, 19, 20)] == ["x1", "x10", "d1", "d10", "w"]
    assert cards.N_KINDS == 20


@pytest.mark.parametrize(
    "text, needle",
    [
        ("y3", "'y'"),
        ("x0", "'x0'"),
        ("x11", "'x11'"),
        ("d11", "'d11'"),
        ("d0", "'d0'"),
        ("x1x1x1x1x1", "fifth copy of x1"),
        ("d7 d7 d7 d7 d7", "fifth copy of d7"),
        ("wwwww", "fifth 王"),
        ("", "empty"),
        ("   ", "empty"),
        ("3", "'3'"),
        ("x", "'x'"),
        ("x1!", "'!'"),
        ("w3", "'w3'"),
    ],
)
def test_parse_errors_name_the_token(text, needle):
    with pytest.raises(ValueError) as info:
        cards.parse(text)
    assert needle in str(info.value)


def test_allow_empty():
    counts, kings = cards.parse("", allow_empty=True)
    assert counts.sum() == 0 and kings == 0


def test_hanzi_names_and_parse():
    counts, kings = cards.parse("x1x2x3 d10 w")
    assert cards.names(counts, kings) == "一二三拾王"
    assert cards.format(*cards.parse("四四肆")) == "x4x4d4"
    assert cards.format(*cards.parse("肆肆四")) == "x4d4d4"
    assert cards.format(*cards.parse("壹贰参")) == cards.format(*cards.parse("壹贰叁")) == "d1d2d3"
    assert cards.names(*cards.parse("x2x7x10d2d7d10")) == "二七十贰柒拾"
    assert [cards.card_hanzi(k) for k in (0, 9, 10, 19, 20)] == list("一十壹拾王")


def test_red_cards():
    assert [cards.card_name(k) for k in np.flatnonzero(cards.RED)] == [
        "x2",
        "x7",
        "x10",
        "d2",
        "d7",
        "d10",
    ]
    assert cards.is_red(cards.card("d7")) and not cards.is_red(cards.card("x3"))
    counts, _ = cards.parse("x2x2x7 d10 x3 d3")
    assert int(cards.red_count(counts)) == 4
    batch = np.stack([counts, np.zeros(20, np.uint8)])
    assert cards.red_count(batch).tolist() == [4, 0]
    # 24 of the 80 cards are red.
    assert int(cards.red_count(np.full(20, 4))) == 24


def test_format_checks_shape():
    with pytest.raises(ValueError, match="shape"):
        cards.format(np.zeros(34, np.uint8))
    with pytest.raises(ValueError, match="one card"):
        cards.card("x1x2")
    with pytest.raises(ValueError, match="range"):
        cards.card_name(21)


@given(
    st.lists(st.integers(0, 4), min_size=20, max_size=20),
    st.integers(0, 4),
)
def test_format_parse_roundtrip(counts, kings):
    counts = np.array(counts, np.uint8)
    text = cards.format(counts, kings)
    if not text:
        return
    back, k = cards.parse(text)
    assert np.array_equal(back, counts) and k == kings
    back, k = cards.parse(cards.names(counts, kings))
    assert np.array_equal(back, counts) and k == kings
