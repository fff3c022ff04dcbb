"""engine.play.records: the record frame's columns back to kernel rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine import abi
from engine.errors import UsageError
from engine.play.records import name_codes, to_rows
from engine.runs.run import simulate
from engine.variants import get


@pytest.mark.parametrize("categorical", [True, False])
def test_name_codes_index_each_value_and_mark_the_rest(categorical):
    names = ("none", "self_draw", "discard")
    values = ["discard", None, "none", "tsumo", "self_draw", "discard", "none"]
    s = pd.Series(values, dtype="category" if categorical else object)
    want = [names.index(x) if x in names else -1 for x in values]
    assert name_codes(s, names).tolist() == want
    assert name_codes(s, names).dtype == np.int64


def test_to_rows_is_the_inverse_of_the_records_frame_and_ignores_its_attrs():
    run = simulate("tuidaohu", 64, seed=3, policies="random", progress=False, workers=1)
    frame = run.to_pandas()
    rows = to_rows(get("tuidaohu"), frame)
    want = {name: i for i, name in enumerate(abi.WIN_TYPE_NAMES)}
    assert rows[:, abi.C_WIN_TYPE].tolist() == [want[str(x)] for x in frame["win_type"]]
    assert np.array_equal(rows[:, abi.C_VALUE], frame["value"].to_numpy())
    frame.attrs["mjlab"] = {"rules": {"any": [1, 2, 3]}}
    assert np.array_equal(to_rows(get("tuidaohu"), frame), rows)
    assert frame.attrs["mjlab"] == {"rules": {"any": [1, 2, 3]}}  # the caller's frame keeps them
    bad = frame.astype({"win_type": str})
    bad.loc[5, "win_type"] = "tsumo"
    with pytest.raises(UsageError, match="tuidaohu: unknown win_type 'tsumo'"):
        to_rows(get("tuidaohu"), bad)
