"""Runs that read the policies by place from the dealer (``seating="dealer"``).

Duplicate seating gives a policy each role's cards on every wall only when its place
is counted from each deal's dealer; these tests check that the kernels seat the
policies (and their parameter rows) that way, and that the run identity says so.
"""

import pandas as pd
import pytest

from engine import fileio
from engine.errors import UsageError
from engine.runs.run import make_spec, simulate
from engine.variants import get
from mjlab.cli import main


def _run(variant, pols, seating, deals=160, match_length=1, **kw):
    return simulate(
        variant, deals, seed=5, policies=pols, match_length=match_length, workers=1,
        progress=False, seating=seating, **kw,
    ).to_pandas()  # fmt: skip


@pytest.mark.parametrize("variant", ["lishui", "luodisao"])
def test_dealer_seating_is_seat_seating_turned_to_the_dealer(variant):
    """With one-deal matches the dealer comes from the match stream alone, so each
    deal of a by-dealer run equals that deal of a by-seat run whose policies start at
    its dealer's seat."""
    v = get(variant)
    players = v.n_players(v.resolve({}))
    places = ["value"] + ["random"] * (players - 1)
    by = _run(variant, places, "dealer")
    seen = 0
    for d in range(players):
        seats = [places[(s - d) % players] for s in range(players)]
        fixed = _run(variant, seats, "seat")
        mask = (by["dealer"] == d).to_numpy()
        assert (fixed["dealer"].to_numpy()[mask] == d).all()
        pd.testing.assert_frame_equal(
            by[mask].reset_index(drop=True), fixed[mask].reset_index(drop=True)
        )
        seen += int(mask.sum())
        assert mask.any()
    assert seen == len(by)
    # and it is not the by-seat run: the value bot moved with the dealer
    assert not by.equals(_run(variant, places, "seat"))


def test_dealer_seating_moves_parameter_rows_with_the_policy():
    """A parameter override given for place 0 follows the dealer like the policy."""
    over = {0: {"flush": 0.0, "triplets": 9.0}}
    by = _run("lishui", ["value"] * 4, "dealer", bot_params=over)
    for d in range(4):
        fixed = _run("lishui", ["value"] * 4, "seat", bot_params={d: over[0]})
        mask = (by["dealer"] == d).to_numpy()
        pd.testing.assert_frame_equal(
            by[mask].reset_index(drop=True), fixed[mask].reset_index(drop=True)
        )
    assert not by.equals(_run("lishui", ["value"] * 4, "seat", bot_params=over))


def test_seating_is_part_of_the_run_identity(tmp_path):
    seat = make_spec("lishui", 64, seed=1).identity()
    dealer = make_spec("lishui", 64, seed=1, seating="dealer").identity()
    assert "seating" not in seat  # by-seat runs keep the identity they always had
    assert dealer["seating"] == "dealer" and {**dealer, "seating": None} != seat
    with pytest.raises(UsageError, match="unknown seating 'chair'"):
        make_spec("lishui", 64, seating="chair")
    out = tmp_path / "d/"
    base = ["simulate", "lishui", "--deals", "64", "--seed", "1", "--quiet", "--out", f"{out}/"]
    assert main([*base, "--seating", "dealer"]) == 0
    chunks = sorted(out.glob("*.parquet"))
    assert chunks and all(fileio.read_meta(f).meta["seating"] == "dealer" for f in chunks)
    # the same folder with the other seating is another run: refused, not mixed
    assert main(base) == 2


def test_tune_objective_by_dealer_is_the_duplicate_skill_edge():
    """The tuner's objective with ``seating="dealer"`` is analysis.skill_edge's
    duplicate edge of the same runs, and the tuned file's command says how it was made."""
    import analysis
    from engine.runs import tune

    edge, se = tune.duplicate_edge(
        "tuidaohu", "value", "efficiency", 320, 7, {"flush": 2.0}, workers=1, seating="dealer"
    )
    frames = {}
    for place in range(4):
        pols = ["efficiency"] * 4
        pols[place] = "value"
        frames[place] = simulate(
            "tuidaohu", 320, seed=7, policies=pols, workers=1, progress=False,
            seating="dealer", bot_params={place: {"flush": 2.0}},
        ).to_pandas()  # fmt: skip
    dup = analysis.skill_edge(frames, seating="dealer").set_index("format").loc["duplicate"]
    assert edge == pytest.approx(dup["edge"]) and se == pytest.approx(dup["se"])
    res = tune.tune(
        "tuidaohu", "value", deals=32, seed=1, generations=1, popsize=2, workers=1,
        progress=False, seating="dealer",
    )  # fmt: skip
    assert res["tune"]["command"].endswith("--seating dealer")
    assert res["tune"]["seating"] == "dealer"
    with pytest.raises(UsageError, match="unknown seating"):
        tune.tune("tuidaohu", "value", deals=32, generations=1, seating="chair", progress=False)


def test_one_rotation_seats_the_kernels_and_the_rows():
    """``engine.abi.seat_by_dealer`` (both loops) and ``engine.runs.run.place_seats`` (the
    tuner, analysis.strong_seats) put place ``j`` at seat ``(dealer + j) % players``,
    reading the policies cyclically; a by-seat run keeps the place as the seat."""
    import numpy as np

    from engine.abi import seat_by_dealer
    from engine.runs.run import place_seats

    pols = np.array([3, 1, 2], np.int64)
    bots = np.arange(6, dtype=np.float64).reshape(3, 2)
    for players in (3, 4):
        for dealer in range(players):
            got = np.full(4, -1, np.int64)
            rows = np.full((4, 2), -1.0)
            seat_by_dealer(pols, bots, dealer, players, got, rows)
            for j in range(players):
                s = (dealer + j) % players
                assert got[s] == pols[j % 3]
                assert (rows[s] == bots[j % 3]).all()
                dealers = np.array([dealer, (dealer + 1) % players])
                want = (dealers + j) % players
                assert (place_seats(dealers, j, players, "dealer") == want).all()
                assert (place_seats(dealers, j, players, "seat") == j).all()
            assert (got[players:] == -1).all()
    with pytest.raises(UsageError, match="unknown seating 'table'"):
        place_seats(np.zeros(2), 0, 4, "table")


def test_a_tune_over_a_design_scores_each_candidate_by_its_mean_edge(monkeypatch):
    """``over="K=V1,V2,..."``: every candidate plays each setting on the generation's walls
    and is scored by the mean of its edges there; the command and identity name it."""
    from engine.runs import tune

    calls = []

    def fake(variant, policy, field, deals, seed, params, rules, workers, seating):
        calls.append((seed, rules["caishen"], rules["reserve"]))
        return {0: 0.3, 1: -0.6, 2: 0.9}[rules["caishen"]], 0.01

    monkeypatch.setattr(tune, "duplicate_edge", fake)
    res = tune.tune(
        "zhuji", "strong", deals=32, seed=3, generations=2, popsize=2, progress=False,
        seating="dealer", over="caishen=0,1,2", rules={"reserve": 10},
    )  # fmt: skip
    for h in res["tune"]["history"]:
        assert h["best_edge"] == pytest.approx(0.2) and h["mean_edge"] == pytest.approx(0.2)
    # 2 generations x 2 candidates x 3 settings, each generation on its own walls, the
    # other options as the run's rules set them
    assert sorted(calls) == sorted(
        (3000 + g, c, 10) for g in range(2) for _ in range(2) for c in (0, 1, 2)
    )
    assert res["tune"]["command"].endswith("--seating dealer --over caishen=0,1,2")
    assert res["tune"]["over"] == {"caishen": ["0", "1", "2"]}


@pytest.mark.parametrize(
    "over,msg",
    [
        ("caishen=1", "two or more different values"),
        ("caishen=1,1", "two or more different values"),
        ("caishen", "give K=V1,V2"),
        ("nope=1,2", "has no rule option 'nope'"),
        ("pay_special8=8,16", "a payout option changes no play"),
        ("caishen=1,7", "caishen=7 is not allowed"),
    ],
)
def test_a_bad_design_is_refused_in_one_line(over, msg, capsys):
    from mjlab.cli import main

    code = main(["tune", "zhuji", "--over", over, "--generations", "1", "--dry-run", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and msg in err and len(err.strip().splitlines()) == 1
