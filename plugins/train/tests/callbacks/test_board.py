"""``TensorBoard.v1``'s profiler trace, weight histograms and HParams record, read back
from the event files as TensorBoard reads them."""

from __future__ import annotations

from pathlib import Path

import pytest
import tensorflow as tf
from tensorboard.plugins.hparams import plugin_data_pb2
from tensorboard.plugins.hparams import summary_v2 as hp
from twtrain_helpers import TINY, regression_data, regression_model, trained_run

import tensorweave as tw
import tensorweave_train as twt
from tensorweave_train.callbacks.board_summaries import hparams_plugin_data


def summaries(log_dir: Path) -> dict[str, list[tuple[int, object]]]:
    """Every summary value in ``log_dir``'s event files: ``{tag: [(step, value), ...]}``."""
    found: dict[str, list[tuple[int, object]]] = {}
    for f in sorted(log_dir.glob("events.out.tfevents.*")):
        for ev in tf.compat.v1.train.summary_iterator(str(f)):
            for v in ev.summary.value:
                found.setdefault(v.tag, []).append((ev.step, v))
    return found


def session_hparams(value) -> dict[str, object]:
    assert value.metadata.plugin_data.plugin_name == "hparams"
    data = plugin_data_pb2.HParamsPluginData.FromString(value.metadata.plugin_data.content)
    info = data.session_start_info
    return {
        "trial": info.group_name,
        **{k: getattr(v, v.WhichOneof("kind")) for k, v in info.hparams.items()},
    }


def test_profile_histograms_and_hparams_in_python(tmp_path):
    model = regression_model()
    data = regression_data(n=32)  # 4 steps an epoch
    board = twt.TensorBoard(
        tmp_path, profile_batch=(2, 3), histograms=2, hparams={"lr": 0.5, "opt": "sgd", "bn": True}
    )
    model.train(data, epochs=4, batch_size=8, verbose=0, callbacks=[board])
    traces = list((tmp_path / "plugins" / "profile").glob("*/*.xplane.pb"))
    assert len(traces) == 1 and traces[0].stat().st_size > 0  # one trace: batches 2 and 3
    tags = summaries(tmp_path)
    weights = {t: v for t, v in tags.items() if t.startswith("weights/")}
    assert weights and len(weights) == len(model.variables)
    for written in weights.values():
        assert [step for step, _ in written] == [8, 16]  # every 2 epochs
        value = written[0][1]
        assert value.metadata.plugin_data.plugin_name == "histograms"
        buckets = tf.make_ndarray(value.tensor)
        assert buckets.shape == (30, 3) and buckets[:, 2].sum() > 0
    [(step, record)] = tags["_hparams_/session_start_info"]
    hparams = session_hparams(record)
    assert step == 0 and hparams.pop("trial")  # a hash of the values, as tensorboard's
    assert hparams == {"lr": 0.5, "opt": "sgd", "bn": True}
    assert [s for s, _ in tags["epoch/loss"]] == [4, 8, 12, 16]  # the metrics beside them
    tf.profiler.experimental.start(str(tmp_path / "again"))  # the window's profiler stopped
    tf.profiler.experimental.stop()


def test_hparams_encoding_is_tensorboards(tmp_path):
    values = {"a.b": 3, "c": 0.25, "name": "Adam.v1", "flag": False}
    ours = plugin_data_pb2.HParamsPluginData.FromString(hparams_plugin_data(values, 12.5))
    theirs = hp.hparams_pb(values, start_time_secs=12.5).value[0].metadata.plugin_data.content
    assert ours == plugin_data_pb2.HParamsPluginData.FromString(theirs)


def test_a_runs_board_records_its_config_as_hparams(tmp_path):
    board = '{ "@callbacks" = "TensorBoard.v1", log_dir = "boards", profile_batch = [2, 2] }'
    run = trained_run(tmp_path / "run", [*TINY, f"--callbacks=[{board}]"])
    for log in ("tensorboard", "boards"):  # the run's own board and the config's
        [(_, record)] = summaries(run / log)["_hparams_/session_start_info"]
        hparams = session_hparams(record)
        assert hparams["trial"] == "digits-mlp/run"  # the run's name and its directory's
        assert hparams["dims.hidden"] == 8 and hparams["train.epochs"] == 2
        assert hparams["optimizer.@optimizers"] == "Adam.v1"
        assert not any("@provider" in k or "@versions" in k for k in hparams)
    assert list((run / "boards" / "plugins" / "profile").glob("*/*.xplane.pb"))
    assert not (run / "tensorboard" / "plugins").exists()  # profiling is asked for


@pytest.mark.parametrize("bad", [(3, 2), (0, 4), "x", [1, 2, 3], -1])
def test_profile_batch_refused_with_the_fix(bad):
    with pytest.raises(tw.ArgumentError, match=r"profile_batch .*Fix: e\.g\. profile_batch"):
        twt.TensorBoard("logs", profile_batch=bad)


def test_histograms_refused_with_the_fix():
    with pytest.raises(tw.ArgumentError, match="histograms must be a number of epochs"):
        twt.TensorBoard("logs", histograms=-1)
