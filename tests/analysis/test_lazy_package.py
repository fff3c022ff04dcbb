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


def test_the_summary_reducer_imports_without_scipy():
    code = (
        "import sys\n"
        "from analysis.summary import SummaryReducer\n"
        "print('scipy.stats' in sys.modules, 'analysis.fairness' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_a_submodule_is_an_attribute_after_import_analysis_alone():
    code = (
        "import analysis\n"
        "print(callable(analysis.payouts.role_matrix), analysis.rescoring.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "analysis.rescoring"]


def test_a_summary_has_its_tables_in_a_process_that_imported_only_the_summary():
    # the table builders register from their own modules, which nothing imported yet
    code = (
        "from analysis.summary import Summary\n"
        "from analysis.testing import synthetic_records\n"
        "t = Summary.from_records(synthetic_records(50, seed=1)).tables()\n"
        "print(sorted(t) == sorted(__import__('analysis.summary').summary.TABLE_ORDER))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True"]


def test_mjlab_summarize_in_a_fresh_process(tmp_path):
    # in-process tests had imported every analysis module already; a user's process has not
    from engine.cli import main

    run = tmp_path / "run"
    assert main(["simulate", "tiny", "--deals", "64", "--out", f"{run}/", "--quiet"]) == 0
    code = f"import sys\nfrom engine.cli import main\nsys.exit(main(['summarize', {str(run)!r}]))\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "tiny" in out.stdout
