"""Small helpers shared by the analysis modules (not public)."""

from __future__ import annotations

import pandas as pd

ROLE_NAMES = {
    4: ("dealer", "xiajia", "duijia", "shangjia"),
    3: ("dealer", "xiajia", "shangjia"),
    2: ("dealer", "opponent"),
}
"""Role label of each distance from the dealer in turn order (下家 follows the dealer)."""

ROLE_PROSE = {
    "dealer": "the dealer",
    "xiajia": "the seat after the dealer (下家)",
    "duijia": "the seat opposite the dealer (对家)",
    "shangjia": "the seat before the dealer (上家)",
    "opponent": "the non-dealer",
}


ROLE_HANZI = {
    "dealer": "庄家",
    "xiajia": "下家",
    "duijia": "对家",
    "shangjia": "上家",
    "non_dealer": "闲家",
    "opponent": "闲家",
    "any": "任一家",
}
"""Chinese name of each role label, shown beside the pinyin."""

WIN_TYPE_HANZI = {
    "self_draw": "自摸",
    "discard": "点炮",
    "rob_kong": "抢杠",
    "kong_draw": "杠上开花",
    "instant": "天胡/地胡",
    "none": "流局",
}
"""Chinese name of each win type, shown beside the record's label."""


def with_identity(
    variant: str, rules_id: str, rows: list[dict], columns: list[str] | None = None
) -> pd.DataFrame:
    """A tidy frame whose first columns are ``variant, rules_id``."""
    cols = None if columns is None else ["variant", "rules_id", *columns]
    recs = [{"variant": variant, "rules_id": rules_id, **r} for r in rows]
    return pd.DataFrame.from_records(recs, columns=cols)


def jsonable(obj):
    """Plain JSON-able data from frames, dicts, lists and numpy scalars.

    DataFrames become lists of row dicts; NaN and infinities become None (strict JSON).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> jsonable({"t": pd.DataFrame({"a": [1, 2], "b": [0.5, np.nan]})})
    {'t': [{'a': 1, 'b': 0.5}, {'a': 2, 'b': None}]}
    """
    import math

    import numpy as np

    if isinstance(obj, pd.DataFrame):
        return [jsonable(r) for r in obj.to_dict(orient="records")]
    if isinstance(obj, pd.Series):
        return jsonable(obj.to_dict())
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [jsonable(v) for v in obj.tolist()]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    return obj
