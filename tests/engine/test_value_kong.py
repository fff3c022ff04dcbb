"""Kongs made against the hand's distance (``value.kong_slack``).

In 推倒胡 a kong pays money on its own (暗杠 2 from each, 补杠 1 from each, 放杠 3 from the
feeder), as much as a plain self-draw; the value bot may make a kong while the hand gets
at most ``kong_slack`` tiles farther. These tests check the rule in the records.
"""

import numpy as np

from engine.runs.run import simulate


def _frame(slack, deals=6000):
    over = {0: {"kong_slack": slack}}
    pols = ["value"] + ["efficiency"] * 3
    return simulate(
        "tuidaohu", deals, seed=13, policies=pols, bot_params=over, workers=1, progress=False
    ).to_pandas()


def test_slack_makes_more_kongs_and_their_money():
    none, some = _frame(0.0), _frame(4.0)
    # seat 0's kong money, deal by deal on the same walls: with slack it kongs more often
    k0, k1 = none["kong_money_0"].to_numpy(), some["kong_money_0"].to_numpy()
    d = k1 - k0
    se = d.std(ddof=1) / np.sqrt(len(d))
    assert d.mean() > 3 * se > 0


def test_kong_slack_is_tuned_only_where_the_variant_opts_in():
    from engine.play.bots import _defaults
    from engine.runs import tune
    from engine.variants import get

    for name in ("lishui", "zhuji", "fuzhou", "tuidaohu"):
        v = get(name)
        opted = "kong_slack" in _defaults(v, "value", v.resolve({}))
        dims = {d.name for d in tune._relevant(v, v.resolve({}), "value")}
        assert ("kong_slack" in dims) == opted, name
    assert _defaults(get("tuidaohu"), "value", get("tuidaohu").resolve({}))["kong_slack"] == 1.0


def test_safe_ties_deal_in_less():
    """``value.safe_ties``: the value bot breaks discard ties toward tiles with fewer
    unseen copies, and so feeds fewer wins (丽水, the same walls with and without)."""

    def fed(slack):
        over = {0: {"safe_ties": slack}}
        df = simulate(
            "lishui", 20000, seed=17, policies=["value"] + ["efficiency"] * 3, bot_params=over,
            workers=1, progress=False,
        ).to_pandas()  # fmt: skip
        w = df["win_type"].astype(str).to_numpy()
        return ((df["discarder"].to_numpy() == 0) & (w == "discard")).astype(float)

    d = fed(1.5) - fed(0.0)
    se = d.std(ddof=1) / np.sqrt(len(d))
    assert d.mean() < -3 * se < 0


def test_safe_ties_is_tuned_only_where_the_variant_opts_in():
    """The value retune moves ``value.safe_ties`` only where the variant's defaults turn
    the defence on (丽水); elsewhere the efficiency order stays and the tuner leaves it."""
    from engine.play.bots import _defaults
    from engine.runs import tune
    from engine.variants import get

    seen = []
    for name in ("lishui", "zhuji", "fuzhou", "tuidaohu"):
        v = get(name)
        opted = "safe_ties" in _defaults(v, "value", v.resolve({}))
        dims = {d.name for d in tune._relevant(v, v.resolve({}), "value")}
        assert ("safe_ties" in dims) == opted, name
        seen.append(opted)
    assert seen == [True, False, False, False]
