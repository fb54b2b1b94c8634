"""Ensembles: voters, several runs predicting together, from Python and ``tensorweave predict``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tensorweave as tw
import tensorweave_train as twt
from tensorweave.cli import main as cli_main
from tensorweave_train.runs.ensemble import Ensemble, majority_vote, mean_probabilities

pytestmark = pytest.mark.usefixtures("cli")

TINY = ["--data.limit=150", "--data.workers=0", "--train.epochs=1", "--train.batch_size=64"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("ensemble")
    out = []
    for i, hidden in enumerate((8, 16)):
        where = root / f"run{i}"
        cfg = twt.load_config("digits", [*TINY, f"--dims.hidden={hidden}", f"--train.seed={i}"])
        twt.train_job(cfg, run_dir=where, out=None, progress=False)
        out.append(where)
    return out


@pytest.fixture(scope="module")
def raw() -> np.ndarray:
    from sklearn.datasets import load_digits

    return np.asarray(load_digits().data[:12])


probs = hnp.arrays(
    np.float64, (3, 4, 5), elements=st.floats(0.0, 1.0, allow_nan=False, allow_subnormal=False)
)


@settings(max_examples=30, deadline=None)
@given(probs)
def test_voters_keep_the_shape_and_agree_when_the_models_agree(stack: np.ndarray) -> None:
    outputs = list(stack)
    for voter in (mean_probabilities, majority_vote):
        assert voter(outputs).shape == (4, 5)
        np.testing.assert_allclose(voter([outputs[0]] * 3).argmax(-1), outputs[0].argmax(-1))
    shares = majority_vote(outputs)
    assert np.all(shares.sum(-1) <= 1.0 + 1e-5)  # vote shares (plus a tie-breaker)


def test_majority_vote_counts_votes_not_confidence() -> None:
    sure = np.array([[0.99, 0.01]])
    unsure = np.array([[0.45, 0.55]])
    assert mean_probabilities([sure, unsure, unsure]).argmax() == 0
    assert majority_vote([sure, unsure, unsure]).argmax() == 1


def test_voters_are_a_kind_this_pack_declares() -> None:
    from tensorweave_train import kinds

    voters = tw.registry("voters")
    assert voters["mean_probabilities.v1"] is mean_probabilities
    assert voters["majority_vote.v1"] is majority_vote
    assert kinds.voters.check(mean_probabilities) is None
    assert "voter" in str(kinds.voters.check(3))  # a non-callable is refused
    with pytest.raises(ValueError, match="differ in shape"):
        mean_probabilities([np.zeros((2, 3)), np.zeros((2, 4))])


def test_ensemble_combines_each_models_outputs(runs: list[Path], raw: np.ndarray) -> None:
    ens = Ensemble(runs, voter="mean_probabilities.v1")
    outputs = ens.outputs(raw)
    assert len(outputs) == 2 and outputs[0].shape == (12, 10)
    assert not np.allclose(outputs[0], outputs[1])  # two different models
    np.testing.assert_allclose(ens.combined(raw), (outputs[0] + outputs[1]) / 2)
    np.testing.assert_array_equal(ens.predict(raw), ens.combined(raw).argmax(-1))
    alone = Ensemble(runs[:1]).predict(raw)
    np.testing.assert_array_equal(alone, twt.Run.open(runs[0]).predict(raw))
    voted = Ensemble(runs, voter=lambda outs: outs[1]).predict(raw)
    np.testing.assert_array_equal(voted, twt.Run.open(runs[1]).predict(raw))


def test_cli_predict_with_several_runs(
    runs: list[Path], raw: np.ndarray, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "x.npy"
    np.save(path, raw)
    args = ["predict", *map(str, runs), "--input", str(path)]
    assert cli_main([*args, "--voter", "majority_vote.v1"]) == 0
    got = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    expected = Ensemble(runs, voter="majority_vote.v1").predict(raw)
    assert got == np.asarray(expected).tolist()
    assert cli_main(args) == 0  # mean_probabilities.v1 by default
    assert len(json.loads(capsys.readouterr().out.strip().splitlines()[-1])) == 12
    assert cli_main([*args, "--voter", "nope.v1"]) == 3
    assert "nope.v1" in capsys.readouterr().err
    assert cli_main([*args[:3], str(tmp_path / "missing"), *args[3:]]) == 2  # no such run
    assert "missing does not exist" in capsys.readouterr().err
