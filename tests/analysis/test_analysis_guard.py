"""The bot guard (analysis.guard): strong against value at each setting a run plays."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis import guard as G


def _fake_setting(results):
    """A stand-in for the guard's play at one setting: the rung and the draws by match."""

    def setting(v, resolved, deals, seed, workers, level, frames=None):
        key = tuple(sorted((k, resolved[k]) for k in resolved if resolved[k] != v.defaults()[k]))
        edge, gap = results[key]
        rung = {"edge": edge[0], "edge_lo": edge[1], "edge_hi": edge[2]}
        n = np.full(200, 16.0)
        return rung, np.full(200, gap * 16.0), n, {}

    return setting


def test_a_setting_where_value_beats_strong_or_draws_move_is_flagged(monkeypatch):
    results = {
        (): ((0.5, 0.3, 0.7), 0.01),
        (("caishen", 1),): ((0.2, -0.1, 0.5), 0.45),  # strong draws far more than value
        (("caishen", 0),): ((-0.6, -0.9, -0.3), 0.02),  # value beats strong
        (("min_tai", 2),): ((0.4, 0.1, 0.7), 0.03),  # fine
    }
    monkeypatch.setattr(G, "_setting", _fake_setting(results))
    out = G.bot_guard("zhuji", [{"caishen": 1}, {"caishen": 0}, {"min_tai": 2}], deals=3200)
    assert out["setting"].tolist() == ["caishen=1", "caishen=0", "min_tai=2"]
    assert out["flag"].tolist() == [True, True, False]
    assert "draw rate" in out["why"][0] and "value beats strong" in out["why"][1]
    assert G.flagged(out) == ["caishen=1", "caishen=0"]
    text = G.guard_text(out)
    assert text.count("POSSIBLE BOT ARTIFACT") == 2 and "min_tai=2" in text


def test_a_shift_within_the_margin_is_not_flagged(monkeypatch):
    results = {(): ((0.5, 0.3, 0.7), 0.01), (("caishen", 1),): ((0.3, 0.1, 0.5), 0.01 + 0.04)}
    monkeypatch.setattr(G, "_setting", _fake_setting(results))
    out = G.bot_guard("zhuji", [{"caishen": 1}], deals=3200)
    assert not out["flag"].any()
    assert out["shift"][0] == pytest.approx(0.04)


def test_the_guard_plays_both_bots_and_the_rung():
    from engine.runs.run import simulate

    kept = {}
    out = G.bot_guard("tuidaohu", [{"pay_qingyise": 8}], deals=256, seed=3, keep=kept)
    assert isinstance(out, pd.DataFrame) and len(out) == 1
    # the records it keeps are the runs of that setting (the report's sensitivity screen
    # reuses the value bots' first deals): a fresh run of fewer deals is their head
    assert sorted(kept) == [0] and sorted(kept[0]) == ["strong", "value"]
    for pol in ("strong", "value"):
        assert len(kept[0][pol]) == 256
        again = simulate("tuidaohu", 128, seed=3, rules={"pay_qingyise": 8}, policies=pol,
                         workers=1, progress=False).to_pandas()  # fmt: skip
        pd.testing.assert_frame_equal(kept[0][pol].iloc[:128].reset_index(drop=True), again)
    r = out.iloc[0]
    assert r["setting"] == "pay_qingyise=8"
    assert r["edge_lo"] <= r["edge"] <= r["edge_hi"]
    assert r["shift_lo"] <= r["shift"] <= r["shift_hi"]
    assert -1 <= r["draw_gap"] <= 1


@pytest.mark.slow
def test_zhuji_with_one_caishen_is_flagged_or_credible():
    """With one 财神 strong once drew 80% of deals where value drew 9%: the guard either
    finds strong credible there or says the figure may be the bot's."""
    out = G.bot_guard("zhuji", [{"caishen": 1}], deals=4000, seed=11)
    r = out.iloc[0]
    credible = r["edge_lo"] > 0 and abs(r["shift"]) < G.DRAW_SHIFT
    assert credible or r["flag"]
