"""The analysis package imports its submodules on first use (issue 21.1: a command that
only plays deals should not import SciPy and the whole analysis layer)."""

import subprocess
import sys

import analysis


def test_every_public_name_resolves_to_its_module_and_sweep_stays_the_function():
    import analysis.sweep  # noqa: F401 - the import binds a submodule to its parent

    assert callable(analysis.sweep) and analysis.sweep.__module__ == "analysis.sweep"
    for name in analysis.__all__:
        value = getattr(analysis, name)
        assert getattr(value, "__module__", "analysis").startswith("analysis"), name
    assert set(analysis.__all__) <= set(dir(analysis))


def test_an_unknown_name_is_an_attribute_error():
    try:
        analysis.no_such_table  # noqa: B018
    except AttributeError as e:
        assert "no_such_table" in str(e)
    else:
        raise AssertionError("no AttributeError")


def _fresh(*lines: str) -> list[str]:
    """The words a new Python process prints running ``lines`` (a user's process: no
    other test has imported anything in it)."""
    code = "\n".join(lines) + "\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.split()


def test_the_summary_reducer_imports_without_scipy():
    assert _fresh(
        "import sys",
        "from analysis.summary import SummaryReducer",
        "print('scipy.stats' in sys.modules, 'analysis.fairness' in sys.modules)",
    ) == ["False", "False"]


def test_a_submodule_is_an_attribute_after_import_analysis_alone():
    assert _fresh(
        "import analysis",
        "print(callable(analysis.payouts.role_matrix), analysis.rescoring.__name__)",
    ) == ["True", "analysis.rescoring"]


def test_a_summary_has_its_tables_in_a_process_that_imported_only_the_summary():
    # the table builders register from their own modules, which nothing imported yet
    assert _fresh(
        "from analysis.summary import TABLE_ORDER, Summary",
        "from analysis.testing import synthetic_records",
        "t = Summary.from_records(synthetic_records(50, seed=1)).tables()",
        "print(sorted(t) == sorted(TABLE_ORDER))",
    ) == ["True"]


def test_mjlab_summarize_in_a_fresh_process(tmp_path):
    from mjlab.cli import main

    run = tmp_path / "run"
    assert main(["simulate", "tiny", "--deals", "64", "--out", f"{run}/", "--quiet"]) == 0
    words = _fresh(
        "import sys",
        "from mjlab.cli import main",
        f"sys.exit(main(['summarize', {str(run)!r}]))",
    )
    assert "tiny" in words
