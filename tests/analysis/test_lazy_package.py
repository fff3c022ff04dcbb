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
