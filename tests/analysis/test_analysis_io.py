import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import analysis
from analysis.io import META_KEY
from analysis.summary import Summary
from analysis.testing import synthetic_records
from engine.errors import UsageError


def _meta(variant="synthetic", rules_id="synth0", version="0.1.0", vv=1, seed=0, **extra):
    m = {
        "format": "mjlab-records",
        "format_version": 1,
        "package_version": version,
        "variant": variant,
        "variant_version": vv,
        "rules": {"caishen": 1},
        "rules_id": rules_id,
        "seed": seed,
        "policies": ["value"] * 4,
        **extra,
    }
    return {META_KEY: json.dumps(m).encode()}


def _write(df, path, **meta):
    table = pa.Table.from_pandas(df, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), **_meta(**meta)})
    pq.write_table(table, path, row_group_size=1000)


def test_load_file_and_folder(tmp_path):
    a = synthetic_records(50, seed=1)
    b = synthetic_records(50, seed=2)
    _write(a, tmp_path / "one.parquet", seed=1)
    df = analysis.load(tmp_path / "one.parquet")
    assert len(df) == len(a) and df.attrs["mjlab"]["rules"] == {"caishen": 1}
    folder = tmp_path / "run"
    folder.mkdir()
    _write(a.iloc[:400], folder / "part-000.parquet", seed=1)
    _write(a.iloc[400:], folder / "part-001.parquet", seed=1)
    (folder / ".part-002.parquet.tmp").write_bytes(b"partial")
    both = analysis.load(folder)
    assert len(both) == len(a)
    assert both.attrs["mjlab"]["seeds"] == [1]
    # the loaded frame summarises like the original
    s = analysis.summarize(folder)
    assert s == Summary.from_records(both, meta=s.meta)
    assert s.n_deals == len(both) and s.meta["package_version"] == '"0.1.0"'
    # files of two seeds are two runs: refused, not merged as one
    _write(b, folder / "part-002.parquet", seed=2)
    for read in (analysis.load, analysis.summarize):
        with pytest.raises(UsageError, match="different runs.*seed"):
            read(folder)


def test_summarize_merges_summary_only_chunks(tmp_path):
    whole_rows = synthetic_records(80, seed=1)
    a, b = whole_rows.iloc[:640], whole_rows.iloc[640:]
    run = {"seed": 1, "deals": 1280, "match_length": 16, "chunk_matches": 40}
    _write(a, tmp_path / "chunk-000000000-000000040.parquet", chunk=[0, 40], chunk_rows=640, **run)
    stored = Summary.from_records(b).to_dict()
    _write(
        b.iloc[:0],
        tmp_path / "chunk-000000040-000000080.parquet",
        summary=stored,
        format="mjlab-summary",
        chunk=[40, 80],
        chunk_rows=640,
        **run,
    )
    s = analysis.summarize(tmp_path)
    whole = Summary.from_records(a).merge(Summary.from_records(b))
    assert s.n_deals == whole.n_deals and s.delta_cross == whole.delta_cross
    with pytest.raises(UsageError, match="holds a summary"):
        analysis.load(tmp_path)


@pytest.mark.parametrize(
    "meta2,msg",
    [
        ({"variant": "other"}, "mix variants"),
        ({"rules_id": "zz"}, "mix rule sets"),
        ({"version": "9.9"}, "mix package versions"),
        ({"vv": 2}, "mix variant versions"),
        ({"policies": ["random"] * 4}, "mix policies"),
    ],
)
def test_mixed_files_are_refused(tmp_path, meta2, msg):
    a = synthetic_records(5, seed=1)
    _write(a, tmp_path / "a.parquet")
    _write(synthetic_records(5, seed=2), tmp_path / "b.parquet", **meta2)
    with pytest.raises(UsageError, match=msg):
        analysis.load(tmp_path)
    with pytest.raises(UsageError, match=msg):
        analysis.summarize(tmp_path)


def test_not_a_record_file(tmp_path):
    bad = tmp_path / "x.parquet"
    bad.write_text("hello")
    with pytest.raises(UsageError, match="not a Parquet file"):
        analysis.load(bad)
    plain = tmp_path / "plain.parquet"
    synthetic_records(2).to_parquet(plain)
    with pytest.raises(UsageError, match="not a mjlab record file"):
        analysis.load(plain)
    odd = tmp_path / "odd.parquet"
    _write(synthetic_records(2), odd, format="something-else")
    with pytest.raises(UsageError, match="unknown mjlab format"):
        analysis.load(odd)
    with pytest.raises(UsageError, match="no such file"):
        analysis.load(tmp_path / "missing.parquet")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UsageError, match="no .parquet files"):
        analysis.load(empty)


@pytest.mark.parametrize(
    "mutate,msg",
    [
        (lambda d: d.drop(columns=["winner"]), "missing column"),
        (lambda d: d.assign(delta_0=d["delta_0"] + 1), "sum to"),
        (lambda d: d.assign(winner=d["winner"].where(d["winner"] < 0, 7)), "winner outside"),
        (lambda d: d.astype({"win_type": str}).assign(win_type="tsumo"), "unknown win_type"),
        (lambda d: d.assign(pat_pinghu=True), "drawn deal"),
        (lambda d: __import__("pandas").concat([d, d.iloc[:1]]), "appears twice"),
        (lambda d: d.assign(pat_pinghu=d["pat_pinghu"].astype(int)), "should be boolean"),
    ],
)
def test_bad_rows_are_named(tmp_path, mutate, msg):
    df = mutate(synthetic_records(5, seed=1))
    _write(df, tmp_path / "f.parquet")
    with pytest.raises(UsageError, match=msg):
        analysis.load(tmp_path / "f.parquet")


def test_rows_must_match_metadata(tmp_path):
    _write(synthetic_records(3, seed=1), tmp_path / "f.parquet", variant="lishui")
    with pytest.raises(UsageError, match="metadata says"):
        analysis.load(tmp_path / "f.parquet")


def test_columns_subset(tmp_path):
    _write(synthetic_records(3, seed=1), tmp_path / "f.parquet")
    df = analysis.load(tmp_path / "f.parquet", columns=["winner", "delta_0"])
    assert list(df.columns) == ["winner", "delta_0"]


def test_the_schema_is_the_engines_record_columns():
    """analysis reads the columns the engine writes (one list, engine.play.records), the
    pairing key first."""
    from analysis import schema
    from engine.play.records import FIXED_COLUMNS

    assert schema.REQUIRED is FIXED_COLUMNS
    assert schema.REQUIRED[: len(schema.IDENTITY)] == schema.IDENTITY


def test_summarize_reduces_batch_by_batch(tmp_path, monkeypatch):
    """A file of one row group is read a batch of rows at a time (``BATCH_ROWS``), each
    batch summarised and merged as it comes: no frame larger than a batch is summarised,
    and batches that split matches give the summary of the whole file at once.
    """
    import analysis.io as aio
    from analysis import risk

    rows = synthetic_records(40, seed=3)
    path = tmp_path / "one.parquet"
    table = pa.Table.from_pandas(rows, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), **_meta(seed=3)})
    pq.write_table(table, path, row_group_size=len(rows))
    assert pq.ParquetFile(path).num_row_groups == 1
    whole = analysis.summarize(path)
    assert whole == Summary.from_records(rows, meta=whole.meta)
    matches = risk.load_match_table(path)
    sizes = []
    real = Summary.from_records.__func__

    def spy(cls, df, **kw):
        sizes.append(len(df))
        return real(cls, df, **kw)

    monkeypatch.setattr(Summary, "from_records", classmethod(spy))
    monkeypatch.setattr(aio, "BATCH_ROWS", 37)  # not a multiple of the 16-deal match
    batched = analysis.summarize(path)
    assert max(sizes) == 37 and sum(sizes) == len(rows) and len(sizes) > 10
    assert batched == whole
    for name, t in whole.tables().items():
        pd.testing.assert_frame_equal(batched.tables()[name], t, obj=name)
    pd.testing.assert_frame_equal(risk.load_match_table(path), matches)
