"""The drivers both families share (engine.play.drivers), through each family's LoopDriver.

The replay, conformance and fit drivers of the two families were twins; now each family
describes its loop once (``DRIVER`` in its ``testing`` module) and the shared drivers do
the rest. These tests check that each description plays exactly its own variants and
that a driven run is the run ``simulate`` plays.
"""

import pandas as pd
import pytest

from engine import variants
from engine.errors import UsageError
from engine.play import drivers as _drivers
from engine.play.family import family_of
from engine.play.mahjong import testing as game_testing
from engine.play.zipai import testing as zipai_testing
from engine.runs.run import simulate

DRIVERS = {"mahjong": game_testing.DRIVER, "zipai": zipai_testing.DRIVER}


def test_each_driver_plays_exactly_its_familys_variants():
    for name in variants.names():
        v = variants.get(name)
        for fam, drv in DRIVERS.items():
            assert drv.plays(v) == (family_of(v).name == fam), (name, fam)


@pytest.mark.parametrize(("fam", "other"), [("mahjong", "luodisao"), ("zipai", "lishui")])
def test_a_driver_refuses_the_other_familys_variant(fam, other):
    drv = DRIVERS[fam]
    with pytest.raises(UsageError, match=f"{other} is not a {drv.family} variant"):
        _drivers.replay_deal(drv, other, 1, 0, 0, None, "random", 16)


@pytest.mark.parametrize(
    ("variant", "driven"),
    [("lishui", game_testing.play_with_state), ("luodisao", zipai_testing.play_with_state)],
)
def test_a_driven_run_is_the_simulated_run(variant, driven):
    """Whole matches played by the driver (with every final state) give the records
    ``simulate`` gives for the same seed and match length, and one final state per deal
    of the driver's shape."""
    frame, final, errors = driven(variant, 3, seed=11, policies="random", match_length=4)
    assert errors == 0
    drv = DRIVERS[family_of(variants.get(variant)).name]
    assert final.shape == (12, *drv.final_shape) and final.any()
    ref = simulate(variant, 12, seed=11, policies="random", match_length=4, workers=1,
                   progress=False).to_pandas()  # fmt: skip
    cols = [c for c in ref.columns if c in frame.columns]
    assert "delta_0" in cols and "winner" in cols
    pd.testing.assert_frame_equal(
        frame[cols].reset_index(drop=True), ref[cols].reset_index(drop=True), check_dtype=False
    )


def test_the_replay_footer_lists_payments_then_the_nonzero_extras():
    v = variants.get("luodisao")
    row = {f"delta_{s}": d for s, d in enumerate((5, -3, -2))}
    row.update({e: 0 for e in v.extra_columns})
    row[v.extra_columns[0]] = 7
    lines = _drivers.replay_footer(v, row, 3)
    assert lines == ["payments: seat 0 +5  seat 1 -3  seat 2 -2", f"extras: {v.extra_columns[0]}=7"]
    assert _drivers.replay_footer(v, row, 3, skip=(v.extra_columns[0],)) == lines[:1]
