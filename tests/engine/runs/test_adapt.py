"""Bots that read the rules they play (engine.runs.adapt, issue 44.1-2)."""

from __future__ import annotations

import json
import math
from types import SimpleNamespace

import numpy as np
import pytest

from engine import variants
from engine.play.bots import _defaults
from engine.play.family import family_of
from engine.runs import adapt
from engine.runs.run import make_spec
from mjlab.cli import main

MAHJONG = ("tuidaohu", "zhuji", "lishui", "fuzhou")


@pytest.fixture(autouse=True)
def _fresh(monkeypatch, tmp_path):
    """Each test starts from an empty adaptation cache (in memory and on disk)."""
    monkeypatch.setenv("MJLAB_CACHE_DIR", str(tmp_path / "cache"))
    adapt._adaptation.cache_clear()
    yield
    adapt._adaptation.cache_clear()


@pytest.mark.parametrize("name", MAHJONG)
def test_the_pilot_reproduces_the_committed_win_values(name):
    """Played again at the fit's rules, the pilot's records price every win exactly as the
    committed model does: the pilot is the fit's own play."""
    v = variants.get(name)
    data, fit_rules = adapt._fit_identity(v)
    fit = data["fit"]
    rec = adapt.pilot_records(v, fit_rules, int(fit["deals"]), int(fit["seed"]), fit["policy"])
    got = family_of(v).values(v, fit_rules, rec)
    for block in ("value", "loss", "stake"):
        assert got[block] == data["model"][block], block


@pytest.mark.parametrize("name", [*MAHJONG, "luodisao", "tiny"])
def test_the_fits_own_rules_adapt_nothing(name):
    v = variants.get(name)
    ad = adapt.adaptation(v, v.resolve({}))
    assert (ad.how, ad.params, ad.changed) == ("committed", {}, ())
    spec = make_spec(name, 16, policies="strong" if "strong" in v.policies else "value")
    assert adapt.seat_overrides(v, spec.rules, spec.policies) == {}


def test_a_payout_change_reprices_strong_and_moves_the_value_bonuses():
    v = variants.get("tuidaohu")
    base = adapt._fit_identity(v)[0]["model"]["value"]
    ad = adapt.adaptation(v, v.resolve({"pay_qingyise": 8}))
    assert ad.how == "values" and ad.changed == ("pay_qingyise",)
    value = np.reshape(ad.params["strong"]["value"], (-1, 2))
    old = np.reshape(base, (-1, 2))
    # the pilot plays value bots blind to the payouts: a plain win is worth what it was,
    # a 清一色 win up to four times (8 against 2; kong money does not grow, and the few
    # 清一色 wins are shrunk toward the plain worth)
    assert value[0].tolist() == old[0].tolist()
    assert (value[1] > 2 * old[1]).all() and (value[1] < 4 * old[1]).all()
    # the value bot chases 清一色 harder by BETA quarter tiles per doubling of its worth
    # against a plain win; the other targets' worth did not move, nor do their bonuses
    ratio = (value[1].mean() / value[0].mean()) / (old[1].mean() / old[0].mean())
    bonus = _defaults(v, "value", v.resolve({}))["flush"]
    assert ad.params["value"] == {"flush": round(bonus + adapt.BETA * math.log2(ratio), 4)}


def test_adapted_rows_are_what_the_run_plays():
    """The run's bot rows (and so its identity) carry the adaptation, seat by seat, under
    the run's own overrides."""
    base = make_spec("tuidaohu", 16, policies="strong").bots()[1]
    spec = make_spec("tuidaohu", 16, rules={"pay_qingyise": 8}, policies="strong")
    rows = spec.bots()[1]
    assert not np.array_equal(rows, base)
    assert (
        spec.identity()["bots_id"]
        != make_spec("tuidaohu", 16, policies="strong").identity()["bots_id"]
    )
    mine = make_spec("tuidaohu", 16, rules={"pay_qingyise": 8}, policies="strong",
                     bot_params={0: {"alpha": 0.25}})  # fmt: skip
    got = mine.bots()[1]
    assert np.array_equal(got[1:], rows[1:]) and not np.array_equal(got[0], rows[0])


def _fake_family(calls):
    def fit(v, resolved, deals, seed, policy, threads, progress, base, base_rules):
        assert base_rules == adapt._fit_identity(v)[1]
        calls.append((dict(resolved), deals, seed, policy))
        model = {"value": [float(resolved["caishen"])] * 14, "stake": [1.0, 2.0]}
        return {"model": model, "identity": {"rules": dict(resolved)}, "summary": {}}

    real = family_of(variants.get("zhuji"))
    return SimpleNamespace(refit=fit, values=real.values, package=real.package,
                           play_matches=real.play_matches, tables=real.tables)  # fmt: skip


def test_a_play_option_refits_once_then_loads_the_cached_model(monkeypatch, capsys, tmp_path):
    calls = []
    monkeypatch.setattr(adapt, "family_of", lambda v: _fake_family(calls))
    monkeypatch.setattr(adapt, "refit_path", lambda v, r: tmp_path / "no-committed-refit.json")
    v = variants.get("zhuji")
    fit = adapt._fit_identity(v)[0]["fit"]
    ad = adapt.adaptation(v, v.resolve({"caishen": 1}))
    assert ad.how == "refit" and ad.changed == ("caishen",)
    assert calls == [(v.resolve({"caishen": 1}), fit["deals"], fit["seed"], fit["policy"])]
    assert ad.params["strong"]["value"] == [1.0] * 14
    assert "fitting the strong models of zhuji" in capsys.readouterr().err
    adapt._adaptation.cache_clear()  # a new process: the disk cache answers
    again = adapt.adaptation(v, v.resolve({"caishen": 1}))
    assert len(calls) == 1 and again.params == ad.params


def test_a_damaged_cached_model_is_rebuilt_with_a_message(monkeypatch, capsys, tmp_path):
    calls = []
    monkeypatch.setattr(adapt, "family_of", lambda v: _fake_family(calls))
    monkeypatch.setattr(adapt, "refit_path", lambda v, r: tmp_path / "no-committed-refit.json")
    v = variants.get("zhuji")
    adapt.adaptation(v, v.resolve({"caishen": 0}))
    (path,) = (tmp_path / "cache").glob("bots-zhuji-*-refit-*")
    raw = bytearray(path.read_bytes())
    raw[-5] ^= 0xFF
    path.write_bytes(bytes(raw))
    adapt._adaptation.cache_clear()
    capsys.readouterr()
    ad = adapt.adaptation(v, v.resolve({"caishen": 0}))
    assert len(calls) == 2 and ad.params["strong"]["value"] == [0.0] * 14
    assert "damaged" in capsys.readouterr().err


def test_a_run_whose_seats_read_no_model_fits_nothing(monkeypatch, tmp_path):
    """An efficiency run under a play change (the re-scoring tests' 鬼 runs) needs no
    strong model: nothing is fitted, priced or described as refitted."""
    calls = []
    monkeypatch.setattr(adapt, "family_of", lambda v: _fake_family(calls))
    monkeypatch.setattr(adapt, "refit_path", lambda v, r: tmp_path / "no-committed-refit.json")
    v = variants.get("zhuji")
    rules = v.resolve({"caishen": 1})
    assert adapt.seat_overrides(v, rules, ["efficiency"] * 4) == {}
    assert adapt.seat_overrides(v, rules, ["random"] * 4, {2: {"x": 1.0}}) == {2: {"x": 1.0}}
    assert "read no fitted model" in adapt.describe(v, rules, ["efficiency"] * 4)
    assert calls == []
    # one seat that reads it is enough to fit, and only that seat gets the model
    got = adapt.seat_overrides(v, rules, ["efficiency", "strong", "efficiency", "random"])
    assert len(calls) == 1 and set(got) == {1}


def test_describe_names_how_the_bots_read_the_rules(monkeypatch):
    v = variants.get("tuidaohu")
    assert "committed" in adapt.describe(v, v.resolve({}))
    assert "pay_qingyise" in adapt.describe(v, v.resolve({"pay_qingyise": 8}))


def test_a_committed_refit_is_played_without_fitting_and_a_stale_one_is_ignored(
    monkeypatch, tmp_path
):
    calls = []
    monkeypatch.setattr(adapt, "family_of", lambda v: _fake_family(calls))
    v = variants.get("zhuji")
    resolved = v.resolve({"caishen": 1})
    where = tmp_path / "strong-x.json"
    monkeypatch.setattr(adapt, "refit_path", lambda v, r: where)
    made = adapt.refit(v, resolved)
    assert len(calls) == 1
    made["model"]["value"] = [7.0] * 14
    assert adapt.write_refit(v, resolved, made) == where
    body = json.loads(where.read_text(encoding="utf-8"))
    assert body["fit"]["command"] == "mjlab fit zhuji --rule caishen=1"
    ad = adapt.adaptation(v, resolved)
    assert len(calls) == 1 and ad.params["strong"]["value"] == [7.0] * 14
    # a payout change on top of the committed refit re-prices the win values from a pilot
    adapt._adaptation.cache_clear()
    both = adapt.adaptation(v, v.resolve({"caishen": 1, "discard_pay": "all_three"}))
    assert len(calls) == 1 and both.params["strong"]["value"] != [7.0] * 14
    # made from another committed model: refitted instead
    body["base"] = "0" * 16
    where.write_text(json.dumps(body), encoding="utf-8")
    adapt._adaptation.cache_clear()
    adapt.adaptation(v, resolved)
    assert len(calls) == 2


def test_a_payout_change_over_a_self_play_refit_pilots_the_policy_its_values_came_from(
    monkeypatch,
):
    v = variants.get("zhuji")
    data, _ = adapt._fit_identity(v)
    seen = []

    def pilot(v, resolved, deals, seed, policy, match_length=16, model=None):
        seen.append((policy, model))
        raise LookupError("stop after the pilot is chosen")

    monkeypatch.setattr(adapt, "pilot_records", pilot)
    monkeypatch.setattr(adapt, "_cached_model", lambda v, resolved, kind, build: build())
    cases = [({"caishen": 1}, True), ({"min_tai": 2}, False)]  # self-play refit or not
    for rules, twice in cases:
        committed = adapt._committed_refit(v, v.resolve(rules), data)
        assert committed is not None and ("self_play" in committed["fit"]) == twice
        with pytest.raises(LookupError):
            adapt._strong_model(v, v.resolve({**rules, "discard_pay": "all_three"}), data, True)
        policy, model = seen[-1]
        assert policy == ("strong" if twice else data["fit"]["policy"]), rules
        assert (model == committed["model"]) if twice else model is None


def test_fit_with_a_rule_refits_and_a_payout_only_rule_is_refused(capsys):
    assert main(["fit", "tuidaohu", "--rule", "pay_qingyise=8", "--dry-run"]) == 2
    assert "changes no play option" in capsys.readouterr().err


def test_a_refit_fits_the_danger_models_again_only_where_other_tiles_are_wild(monkeypatch):
    from engine.play.mahjong import fit as mfit

    seen, again = [], []
    monkeypatch.setattr(mfit, "fit_mahjong", lambda *a, danger=None: seen.append(danger) or {})
    monkeypatch.setattr(mfit, "_self_play", lambda v, resolved, *a: again.append(v.name) or {})
    base = {"danger": [1.0], "kong_danger": [2.0]}
    cases = [  # variant, rules, danger kept, win tables fitted again on strong's play
        ("zhuji", {"caishen": 1}, False, True),
        ("zhuji", {"caishen_from": "indicator"}, False, True),
        ("zhuji", {"caishen": 0}, False, False),
        ("zhuji", {"min_tai": 1}, True, False),
        ("tuidaohu", {"ghost": "fan"}, False, False),
        ("tuidaohu", {"ghost": "baiban"}, False, False),
        ("tuidaohu", {"horses": "4"}, True, False),
        ("lishui", {"caishen": 2}, False, False),
        ("fuzhou", {"jin": 0}, False, False),
    ]
    for name, rules, kept, self_play in cases:
        v = variants.get(name)
        fit_rules = adapt._fit_identity(v)[1]
        n = len(again)
        mfit.refit_mahjong(v, v.resolve(rules), 8, 1, "value", 1, False, base, fit_rules)
        assert (seen[-1] is base) == kept, (name, rules)
        assert (len(again) > n) == self_play, (name, rules)
    # without the fit's rules (an older caller) the danger models are kept
    mfit.refit_mahjong(v, v.resolve({"jin": 0}), 8, 1, "value", 1, False, base)
    assert seen[-1] is base


@pytest.mark.parametrize("name", MAHJONG + ("luodisao",))
def test_each_committed_refit_is_current(name):
    """A committed refit names its own play options, was made from the committed model,
    and, where other tiles are wild than under the fit's rules, has danger models of its
    own (a mahjong refit made before they were refitted there is stale: regenerate it
    with the command it names)."""
    v = variants.get(name)
    data, fit_rules = adapt._fit_identity(v)
    folder = adapt.refit_path(v, fit_rules).parent
    for path in sorted(folder.glob("strong-*.json")):
        body = json.loads(path.read_text(encoding="utf-8"))
        resolved = v.resolve(body["fit"]["rules"])
        assert path == adapt.refit_path(v, resolved), path.name
        assert body["bot"]["refit_of"] == adapt.play_key(v, resolved)
        assert body["base"] == adapt._base_digest(data["model"]), path.name
        assert body["fit"]["command"].startswith(f"mjlab fit {name} --rule ")
        if name not in MAHJONG:
            continue  # a 字牌 refit fits every model again
        from engine.play.mahjong.fit import has_wilds, same_wilds

        kept = body["model"]["danger"] == data["model"]["danger"]
        assert kept == same_wilds(v, resolved, fit_rules), (path.name, body["fit"]["command"])
        twice = v.refit_self_play and not kept and has_wilds(v, resolved)
        assert ("self_play" in body["fit"]) == twice, (path.name, body["fit"]["command"])
