"""The settings a bot is held to (analysis.guard.held_settings, ``mjlab ladder --sample``)."""

import json

import pytest

from analysis.guard import held_settings
from analysis.sensitivity import option_plan
from engine import variants
from engine.errors import UsageError
from mjlab.cli import main


@pytest.mark.parametrize("name", variants.names())
def test_headline_values_come_first_then_distinct_sampled_settings(name):
    v = variants.get(name)
    defaults = v.resolve({})
    got = held_settings(name, 5, 3)
    heads = [s for s in got if s["source"] == "headline"]
    sampled = [s for s in got if s["source"] == "sampled"]
    assert got == heads + sampled and len(sampled) == 5
    keys = {k for h in v.headline_sweeps for k in h.keys if k in v.option_map}
    assert {k for s in heads for k in s["rules"]} <= keys
    plan = {(r["option"], repr(r["value"])) for r in option_plan(v)[0]}
    seen = set()
    for s in got:
        ((k, val),) = s["rules"].items()
        assert val != defaults[k]
        assert (k, repr(val)) not in seen
        seen.add((k, repr(val)))
        v.resolve(s["rules"])  # playable on its own
        if s["source"] == "sampled":
            assert (k, repr(val)) in plan
    # the same seed draws the same settings; another seed, in general, others
    assert held_settings(name, 5, 3) == got
    assert held_settings(name, 0, 3) == heads


def test_the_sample_seed_changes_the_draw():
    draws = {tuple(s["setting"] for s in held_settings("tuidaohu", 6, seed)) for seed in range(5)}
    assert len(draws) > 1


def test_too_large_a_sample_is_refused():
    with pytest.raises(UsageError, match="settings beyond its headline sweeps"):
        held_settings("zhuji", 10_000, 0)


@pytest.mark.parametrize(
    "argv,msg",
    [
        (["--sample", "2", "--rule", "caishen=1"], "give no --rule"),
        (["--sample", "-1"], "--sample"),
        (["--sample", "100000"], "--sample"),
        (["--sample", "1", "--sample-seed", "-3"], "--sample-seed"),
        (["--sample-seed", "3"], "give --sample N"),
    ],
)
def test_bad_sample_arguments_get_one_line(argv, msg, capsys):
    code = main(["ladder", "zhuji", "--policies", "value,strong", "--deals", "64", *argv])
    err = capsys.readouterr().err
    assert code == 2 and msg in err and len(err.strip().splitlines()) == 1


def test_the_ladder_plays_each_held_setting(capsys):
    """One block per setting, by the seeded draw, its rules in its ladder; JSON says
    whether every rung held at every setting."""
    argv = ["ladder", "zhuji", "--policies", "value,strong", "--deals", "64", "--quiet"]
    assert main([*argv, "--sample", "1", "--sample-seed", "5", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    want = held_settings("zhuji", 1, 5)
    assert [s["setting"] for s in body["settings"]] == [s["setting"] for s in want]
    for s, w in zip(body["settings"], want, strict=True):
        ((k, val),) = w["rules"].items()
        assert s["ladder"]["rules"][k] == val and s["ladder"]["deals_per_seating"] == 64
        assert len(s["ladder"]["rungs"]) == 1
    assert body["holds"] == all(s["ladder"]["holds"] for s in body["settings"])
    assert main([*argv, "--sample", "0"]) == 0
    text = capsys.readouterr().out
    assert text.count("== caishen=") == 2 and "settings" in text.splitlines()[-1]
