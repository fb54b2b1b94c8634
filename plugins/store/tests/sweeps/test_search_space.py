"""What a sweep searches: every ``--param`` path checked against the config before a trial."""

from __future__ import annotations

from pathlib import Path

import pytest

from tensorweave.cli import main as cli_main
from tensorweave_store.sweeps.search_space import SweepError, SweepSpec, check_paths, parse_param
from tensorweave_store.sweeps.study import check_params

CONFIG = {
    "optimizer": {"@optimizers": "Adam.v1", "learning_rate": 0.01, "@provider": "x 1"},
    "dims": {"hidden": 16},
    "model": {"nodes": {"h1": {"@layers": "FC.v1", "n_units": 16}}, "inputs": ["x"]},
    "train": {"epochs": 2},
}


@pytest.mark.parametrize(
    "path", ["optimizer.learning_rate", "dims.hidden", "model.nodes.h1.n_units", "model.inputs.0"]
)
def test_a_path_the_config_has_passes(path: str) -> None:
    check_paths([parse_param(f"{path}=choice(1,2)")], CONFIG)


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        (
            "optimizer.learnin_rate",
            "the config has no 'learnin_rate' under optimizer (Adam.v1); "
            "did you mean optimizer.learning_rate?",
        ),
        ("dims.hiden", "no 'hiden' under dims; did you mean dims.hidden?"),
        ("model.nodes.h2.n_units", "no 'h2' under model.nodes; there: h1"),
        ("trian.epochs", "no 'trian' under the top level; did you mean train.epochs?"),
        ("train.epochs.x", "train.epochs is a value (2), not a section"),
        ("model.nodes.h1.zzz", "no 'zzz' under model.nodes.h1 (FC.v1); there: n_units"),
    ],
)
def test_a_path_the_config_lacks_names_the_closest(path: str, problem: str) -> None:
    with pytest.raises(SweepError) as err:
        check_paths(
            [parse_param(f"{path}=choice(1,2)"), parse_param("dims.hidden=int(1,3)")], CONFIG
        )
    assert str(err.value).startswith(f"--param {path}: ") and problem in str(err.value)
    assert "Fix: search a path of the config" in str(err.value)


def test_every_wrong_path_is_named_at_once() -> None:
    search = [
        parse_param("optimizer.learnin_rate=uniform(0,1)"),
        parse_param("dims.hiden=int(1,3)"),
    ]
    with pytest.raises(SweepError) as err:
        check_paths(search, CONFIG)
    assert "optimizer.learnin_rate" in str(err.value) and "dims.hiden" in str(err.value)


def test_the_filled_config_counts_and_an_override_adds_a_path() -> None:
    """A component's default (Adam's beta_1, not written in the digits config) can be
    searched; a train setting the config does not set cannot, until the command gives it."""
    check_params(SweepSpec("digits", ["optimizer.beta_1=uniform(0.8,0.99)"]))
    with pytest.raises(SweepError, match="no 'shuffle' under train"):
        check_params(SweepSpec("digits", ["train.shuffle=choice(true,false)"]))
    check_params(
        SweepSpec(
            "digits", ["train.shuffle=choice(true,false)"], overrides=["--train.shuffle=true"]
        )
    )


def test_the_sweep_command_refuses_a_wrong_path_before_any_trial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TENSORWEAVE_RUNS", str(tmp_path / "runs"))
    store = f"sqlite:///{tmp_path}/s.db"
    args = ["sweep", "digits", "--param", "optimizer.learnin_rate=loguniform(1e-4,1e-1)"]
    assert cli_main([*args, "--trials", "2", "--store", store]) == 2
    err = capsys.readouterr().err
    assert "did you mean optimizer.learning_rate?" in err
    assert not (tmp_path / "s.db").exists() and not (tmp_path / "runs").exists()
