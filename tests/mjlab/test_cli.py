"""The parser of :mod:`mjlab.cli`: one builder and one handler for every command."""

import argparse

import pytest

from mjlab import cli, commands


def test_builders_and_handlers_name_the_same_commands():
    assert set(cli._BUILDERS) == set(cli._COMMANDS)
    sub = next(a for a in cli._build_parser()._actions if a.dest == "command")
    assert list(sub.choices) == list(cli._BUILDERS)


@pytest.mark.parametrize("name", list(cli._BUILDERS))
def test_each_builder_adds_its_own_command(name):
    sub = argparse.ArgumentParser().add_subparsers(dest="command")
    cli._BUILDERS[name](sub)
    assert list(sub.choices) == [name]


@pytest.mark.parametrize("name", sorted(cli._COMMANDS))
def test_each_command_dispatches_to_its_handler(name, monkeypatch):
    assert cli._COMMANDS[name] is getattr(commands, f"run_{name}")
    assert f"run_{name}" in commands.__all__
    sub = next(a for a in cli._build_parser()._actions if a.dest == "command")
    argv = [name]
    for action in sub.choices[name]._actions:
        if not action.option_strings:
            argv += [] if action.nargs in ("?", "*") else ["1"]
        elif action.required:
            argv += [action.option_strings[0], "1"]
    seen = []
    for other in cli._COMMANDS:
        monkeypatch.setitem(cli._COMMANDS, other, lambda args, other=other: seen.append(other))
    assert cli.main(argv) == 0
    assert seen == [name]
