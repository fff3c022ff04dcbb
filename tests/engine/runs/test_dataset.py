"""Chunked, resumable runs (issue 10): kill and resume, foreign and damaged chunks, Dask."""

import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from analysis.summary import SummaryReducer
from engine.errors import UsageError
from engine.runs.dataset import load_chunks, run_dataset
from engine.runs.run import make_spec, simulate

ARGS = [
    "simulate",
    "tuidaohu",
    "--deals",
    "3200",
    "--seed",
    "21",
    "--policy",
    "random",
    "--chunk-matches",
    "10",
    "--quiet",
]


def _frame_equal(a: pd.DataFrame, b: pd.DataFrame):
    pd.testing.assert_frame_equal(
        a.reset_index(drop=True), b.reset_index(drop=True), check_categorical=False
    )


def test_dataset_equals_in_memory_run(tmp_path):
    spec = make_spec("tuidaohu", 3000, seed=5, policies="efficiency")
    res = run_dataset(spec, tmp_path / "d", chunk_matches=40, progress=False)
    assert res == {"chunks": 5, "skipped": 0, "played": 5, "deals": 3000}
    whole = simulate("tuidaohu", 3000, seed=5, policies="efficiency", progress=False)
    _frame_equal(load_chunks(tmp_path / "d"), whole.to_pandas())
    again = run_dataset(spec, tmp_path / "d", chunk_matches=40, progress=False)
    assert again["skipped"] == 5 and again["played"] == 0


def test_killed_run_resumes_to_the_same_dataset(tmp_path):
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "mjlab.cli", *ARGS, "--out", f"{out}/"]
    proc = subprocess.Popen(cmd, cwd=os.getcwd())
    deadline = time.time() + 240
    while time.time() < deadline:  # wait for a few complete chunks, then kill hard
        if out.exists() and len(list(out.glob("chunk-*.parquet"))) >= 3:
            break
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = len(list(out.glob("chunk-*.parquet")))
    assert done_before >= 1
    subprocess.run(cmd, check=True, cwd=os.getcwd())
    assert not list(out.glob(".*.tmp"))
    clean = tmp_path / "clean"
    subprocess.run(
        [sys.executable, "-m", "mjlab.cli", *ARGS, "--out", f"{clean}/"],
        check=True,
        cwd=os.getcwd(),
    )
    names = sorted(p.name for p in out.glob("chunk-*.parquet"))
    assert names == sorted(p.name for p in clean.glob("chunk-*.parquet"))
    _frame_equal(load_chunks(out), load_chunks(clean))


def test_foreign_and_damaged_chunks_are_refused(tmp_path):
    spec = make_spec("tuidaohu", 800, seed=1)
    folder = tmp_path / "d"
    run_dataset(spec, folder, chunk_matches=20, progress=False)
    before = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    other = make_spec("tuidaohu", 800, seed=2)
    with pytest.raises(UsageError, match="holds a different run.*seed"):
        run_dataset(other, folder, chunk_matches=20, progress=False)
    with pytest.raises(UsageError, match="different run.*rules"):
        run_dataset(
            make_spec("tuidaohu", 800, seed=1, rules={"ghost": "fan"}),
            folder,
            chunk_matches=20,
            progress=False,
        )
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == before
    victim = sorted(folder.glob("chunk-*.parquet"))[1]
    good = victim.read_bytes()
    victim.write_bytes(good[:200])  # a truncated chunk is played again, to the same bytes
    res = run_dataset(spec, folder, chunk_matches=20, progress=False)
    assert res["played"] == 1 and victim.read_bytes() == good
    (folder / "notes.parquet").write_bytes(b"not parquet")
    victim.unlink()
    with pytest.raises(UsageError, match="notes.parquet"):
        run_dataset(spec, folder, chunk_matches=20, progress=False)
    assert (folder / "notes.parquet").read_bytes() == b"not parquet"


def test_summary_only_chunks_merge_to_the_whole(tmp_path):
    import analysis

    spec = make_spec("tuidaohu", 2000, seed=8)
    run_dataset(spec, tmp_path / "s", chunk_matches=30, reducer=SummaryReducer, progress=False)
    merged = analysis.summarize(tmp_path / "s")
    whole = analysis.Summary.from_records(
        simulate("tuidaohu", 2000, seed=8, progress=False).to_pandas()
    )
    assert merged.n_deals == whole.n_deals == 2000
    a = analysis.pattern_frequencies(merged)
    b = analysis.pattern_frequencies(whole)
    assert np.array_equal(a["k"].to_numpy(), b["k"].to_numpy())


def test_dask_local_cluster_gives_identical_records(tmp_path):
    pytest.importorskip("dask.distributed")
    spec = make_spec("tuidaohu", 1500, seed=13, policies="efficiency")
    run_dataset(spec, tmp_path / "local", chunk_matches=30, progress=False)
    run_dataset(
        spec, tmp_path / "dask", chunk_matches=30, backend="dask", workers=2, progress=False
    )
    _frame_equal(load_chunks(tmp_path / "local"), load_chunks(tmp_path / "dask"))
    run_dataset(
        spec,
        tmp_path / "dask_s",
        chunk_matches=30,
        backend="dask",
        workers=2,
        reducer=SummaryReducer,
        progress=False,
    )
    run_dataset(
        spec, tmp_path / "local_s", chunk_matches=30, reducer=SummaryReducer, progress=False
    )
    import analysis

    assert analysis.summarize(tmp_path / "dask_s") == analysis.summarize(tmp_path / "local_s")


def test_summarize_says_when_a_dataset_is_incomplete(tmp_path, capsys):
    from mjlab.cli import main

    spec = make_spec("tuidaohu", 640, seed=4, policies="random")
    run_dataset(spec, tmp_path / "s", chunk_matches=10, reducer=SummaryReducer, progress=False)
    assert main(["summarize", str(tmp_path / "s")]) == 0
    assert "incomplete" not in capsys.readouterr().err
    chunks = sorted((tmp_path / "s").glob("chunk-*.parquet"))
    chunks[-1].unlink()  # as if the run had been stopped before its last chunk
    assert main(["summarize", str(tmp_path / "s"), "--json"]) == 0
    out = capsys.readouterr()
    assert "incomplete dataset: 480 of the run's 640 deals" in out.err
    import json

    doc = json.loads(out.out)
    assert doc["deals"] == 480 and doc["planned_deals"] == 640


# --------------------------------------------------------------------- issue 46: content, not names
def _flip_positions(size: int, n: int, seed: int) -> list[int]:
    """``n`` byte positions of a file of ``size`` bytes, seeded: its first and last 16
    bytes (the Parquet magic and footer length) always, the rest drawn at random.
    """
    ends = [*range(16), *range(size - 16, size)]
    rest = np.setdiff1d(np.arange(size), ends)
    drawn = np.random.default_rng(seed).choice(rest, n - len(ends), replace=False)
    return sorted([*ends, *drawn.tolist()])


def _flip_every_sampled_byte(tmp_path, n: int, seed: int):
    """Flip each sampled byte of a small chunk in turn (an XOR with a random mask): the
    summary refuses the folder naming the chunk, and a resume plays it again, to the
    clean bytes and the clean summary, every time."""
    import contextlib
    import io

    import analysis

    spec = make_spec("tuidaohu", 64, seed=3, policies="random")
    folder = tmp_path / "flip"
    run_dataset(spec, folder, chunk_matches=1, progress=False)
    clean = analysis.summarize(folder)
    files = {p.name: p.read_bytes() for p in folder.iterdir()}
    victim = sorted(folder.glob("chunk-*.parquet"))[1]
    good = victim.read_bytes()
    masks = np.random.default_rng(seed + 1).integers(1, 256, len(good))
    keys = [good.rindex(b"mjlab.sha256") + 5, good.rindex(b'{"file": "') + 3]  # the checksum's
    positions = sorted({*_flip_positions(len(good), n, seed), *keys})
    for pos in positions:
        damaged = bytearray(good)
        damaged[pos] ^= int(masks[pos])
        victim.write_bytes(bytes(damaged))
        with pytest.raises(UsageError, match=victim.name):
            analysis.summarize(folder)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            res = run_dataset(spec, folder, chunk_matches=1, progress=False)
        assert res["played"] == 1, (pos, res, err.getvalue())
        assert victim.name in err.getvalue() and "playing it again" in err.getvalue(), pos
        assert {p.name: p.read_bytes() for p in folder.iterdir()} == files, pos
        assert analysis.summarize(folder) == clean, pos
    return len(positions)


def test_a_flipped_byte_anywhere_in_a_chunk_is_replayed(tmp_path):
    assert _flip_every_sampled_byte(tmp_path, 200, seed=46) >= 200


@pytest.mark.slow
def test_two_thousand_flipped_bytes_each_replayed(tmp_path):
    assert _flip_every_sampled_byte(tmp_path, 2000, seed=4646) >= 2000


def test_a_renamed_column_is_refused_by_summarize_and_replayed(tmp_path, capsys):
    """A flip in the footer that renames a column (outside the old data checksum)."""
    import analysis

    spec = make_spec("tuidaohu", 64, seed=3, policies="random")
    folder = tmp_path / "col"
    run_dataset(spec, folder, chunk_matches=1, progress=False)
    victim = sorted(folder.glob("chunk-*.parquet"))[2]
    good = victim.read_bytes()
    footer = len(good) - 8 - int.from_bytes(good[-8:-4], "little")
    at = good.index(b"dealer_streak", footer)
    victim.write_bytes(good[:at] + b"dealer_streal" + good[at + 13 :])
    with pytest.raises(UsageError, match=f"{victim.name}.*damaged"):
        analysis.summarize(folder)
    res = run_dataset(spec, folder, chunk_matches=1, progress=False)
    assert res["played"] == 1 and victim.read_bytes() == good
    assert "playing it again" in capsys.readouterr().err


def test_resume_touches_only_its_own_chunk_names(tmp_path, capsys):
    """Copies of a chunk under other names are the user's: never deleted or changed."""
    spec = make_spec("tuidaohu", 64, seed=3, policies="random")
    folder = tmp_path / "own"
    run_dataset(spec, folder, chunk_matches=1, progress=False)
    first = sorted(folder.glob("chunk-*.parquet"))[0]
    hidden = {".backup.parquet": first.read_bytes(), "_backup.parquet": first.read_bytes()}
    for name, data in hidden.items():
        (folder / name).write_bytes(data)
    res = run_dataset(spec, folder, chunk_matches=1, progress=False)
    assert res["skipped"] == 4  # hidden names are skipped, as summarize skips them
    assert {n: (folder / n).read_bytes() for n in hidden} == hidden
    for name in ("backup.parquet", f"{first.stem} (copy).parquet"):
        copy = folder / name
        copy.write_bytes(first.read_bytes())
        with pytest.raises(UsageError, match=rf"{re.escape(name)}.*copy of.*\[0, 1\)"):
            run_dataset(spec, folder, chunk_matches=1, progress=False)
        assert copy.read_bytes() == first.read_bytes()
        with pytest.raises(UsageError, match=re.escape(name)):
            run_dataset(spec, folder, chunk_matches=1, progress=False, force=True)
        assert copy.read_bytes() == first.read_bytes()
        copy.unlink()
    assert {n: (folder / n).read_bytes() for n in hidden} == hidden
