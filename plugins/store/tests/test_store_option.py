"""``--store URL`` on the train pack's commands, in this process: the option is added through
the train pack's ``tensorweave_train_arguments`` hook and its value reaches this pack through
``tensorweave_train_options``; a plugin that raises in those hooks is contained."""

from __future__ import annotations

import types

import pytest

import tensorweave as tw
from tensorweave_store.db import urls
from tensorweave_train import parse_command_line as parse
from tensorweave_train.commands.arguments import run_parser as _run_parser
from tensorweave_train.commands.train import train_parser as _train_parser


@pytest.fixture(autouse=True)
def _no_selection():
    urls.select(None)
    yield
    urls.select(None)


def test_store_on_train_and_resume_selects_the_store_until_the_next_command() -> None:
    args, overrides = parse(["--store", "sqlite:////tmp/a.db", "--train.epochs=2"], _train_parser())
    assert args.store == "sqlite:////tmp/a.db" and overrides == ["--train.epochs=2"]
    assert urls.default_url() == "sqlite:////tmp/a.db"  # as TENSORWEAVE_STORE would be
    parse(["runs/x", "--store=sqlite:////tmp/b.db"], _run_parser("resume", "…"))
    assert urls.default_url(env={}) != "sqlite:////tmp/b.db"  # an explicit env: not touched
    assert urls.selected() == "sqlite:////tmp/b.db"
    parse(["runs/x"], _run_parser("evaluate", "…"))  # the next command, without --store
    assert urls.selected() is None


def test_store_is_offered_only_where_a_store_is_used() -> None:
    for command in ("evaluate", "predict", "resume"):
        assert "--store" in _run_parser(command, "…").format_help()
    assert "--store" in _train_parser().format_help()
    assert "--store" not in _run_parser("plot", "…").format_help()


def test_a_plugin_raising_in_the_option_hooks_is_contained() -> None:
    def tensorweave_train_arguments(parser, command):
        raise RuntimeError("broken options plugin")

    def tensorweave_train_options(options, command):
        raise RuntimeError("broken options plugin")

    broken = types.ModuleType("broken_options")
    broken.tensorweave_train_arguments = tw.hookimpl(tensorweave_train_arguments)
    broken.tensorweave_train_options = tw.hookimpl(tensorweave_train_options)
    tw.plugins.register(broken, name="broken-options:plugin")
    try:
        with pytest.warns(RuntimeWarning, match="broken options plugin"):
            args, _ = parse(["--store", "sqlite:////tmp/c.db"], _train_parser())
    finally:
        tw.plugins.unregister(broken)
    assert args.store == "sqlite:////tmp/c.db"  # the store's own hooks still ran
    assert urls.selected() == "sqlite:////tmp/c.db"
