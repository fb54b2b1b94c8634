"""Crash-safe checkpoints: contents, atomic layout, corruption fallback, exact resume,
and a training process killed with SIGKILL that resumes to the same final weights."""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf
from twtrain_helpers import (
    Crash,
    crash_at,
    killed_twice_and_resumed,
    regression_data,
    regression_model,
    weights,
)

import tensorweave_train as twt


def _train(
    run_dir=None, crash=None, resume=None, init_seed=11, every=5, dataset=False, dropout=0.0
):
    model = regression_model(seed=init_seed, optimizer=twt.Adam(0.01), dropout=dropout)
    cbs = []
    if run_dir is not None:
        cbs.append(twt.CheckpointCallback(run_dir, every_steps=every, every_epochs=None, keep=3))
    if crash is not None:
        cbs.append(crash_at(crash))
    data = regression_data()
    if dataset:
        tf.random.set_seed(5)  # the shuffle order depends on the global and op seeds
        ds = tf.data.Dataset.from_tensor_slices(data)
        data = ds.shuffle(64, seed=3, reshuffle_each_iteration=False).batch(8)
    h = model.train(data, epochs=3, batch_size=8, seed=7, callbacks=cbs, resume=resume)
    return model, h


def _stream_train(run_dir=None, crash=None, resume=None, init_seed=11):
    from tensorweave_data import Stream

    data = regression_data()
    stream = Stream("regression", lambda order: tf.data.Dataset.from_tensor_slices(data))
    model = regression_model(seed=init_seed, optimizer=twt.Adam(0.01))
    cbs = []
    if run_dir is not None:  # only at epoch ends: the saved position is the next epoch's start
        cbs.append(twt.CheckpointCallback(run_dir, every_steps=None, every_epochs=1, keep=3))
    if crash is not None:
        cbs.append(crash_at(crash))
    h = model.train(stream, epochs=3, batch_size=8, seed=7, callbacks=cbs, resume=resume)
    return model, h


def test_a_stream_resumes_from_an_epoch_end_checkpoint(tmp_path):
    # the checkpoint at an epoch's end resumes at the next epoch: its saved input position
    # is that epoch's start, not the end of the one done (whose order seed differs)
    ref_model, _ = _stream_train()
    with pytest.raises(Crash):
        _stream_train(tmp_path, crash=10)  # 8 batches an epoch: saved at step 8
    snap = json.loads((tmp_path / "checkpoints/ckpt-0000000008/state.json").read_text())
    assert (snap["epoch"], snap["input"]["epoch"], snap["input"]["batches"]) == (1, 1, 0)
    model, _ = _stream_train(tmp_path, resume=tmp_path, init_seed=99)
    for a, b in zip(weights(ref_model), weights(model)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_resume_after_crash_reaches_the_same_weights(tmp_path):
    ref_model, ref_hist = _train()
    with pytest.raises(Crash):
        _train(tmp_path, crash=13)  # checkpoint at step 10 = epoch 1, batch 2 of 8
    snap = json.loads((tmp_path / "checkpoints/ckpt-0000000010/state.json").read_text())
    assert (snap["step"], snap["epoch"], snap["epoch_step"]) == (10, 1, 2)
    model, hist = _train(tmp_path, resume=tmp_path, init_seed=99)  # other init: restored
    for a, b in zip(weights(ref_model), weights(model)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    assert int(model.optimizer.iterations) == 24
    assert [e["loss"] for e in hist] == pytest.approx([e["loss"] for e in ref_hist], rel=1e-5)


@pytest.mark.parametrize(
    "every,crash,dataset", [(4, 9, False), (3, 14, True)], ids=["at-epoch-end", "tf.data"]
)
def test_resume_at_epoch_boundary_and_from_a_dataset(tmp_path, every, crash, dataset):
    ref_model, ref_hist = _train(dataset=dataset)
    with pytest.raises(Crash):
        _train(tmp_path, crash=crash, every=every, dataset=dataset)
    model, hist = _train(tmp_path, resume=True, init_seed=99, every=every, dataset=dataset)
    for a, b in zip(weights(ref_model), weights(model)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    assert [e["loss"] for e in hist] == pytest.approx([e["loss"] for e in ref_hist], rel=1e-5)


def test_resume_with_dropout_reaches_identical_weights(tmp_path):
    """The dropout masks after a resume are those the uninterrupted run drew: the layer's
    generator position is restored (a fresh process would otherwise redraw step 0's)."""
    ref_model, _ = _train(dropout=0.4)
    with pytest.raises(Crash):
        _train(tmp_path, crash=13, dropout=0.4)
    model, _ = _train(tmp_path, resume=tmp_path, init_seed=99, dropout=0.4)
    for a, b in zip(weights(ref_model), weights(model), strict=True):
        np.testing.assert_array_equal(a, b)
    drop = next(n for n in model.layers if hasattr(n.state, "rng"))
    saved = tf.train.load_checkpoint(str(tmp_path / "checkpoints/ckpt-0000000024/vars"))
    assert any("rng" in k for k in saved.get_variable_to_shape_map()), "no generator saved"
    assert drop.state.rng.state.numpy().tolist() != [0, 0, 0]


def test_layout_manifest_and_pruning(tmp_path):
    _train(tmp_path)
    ckpts = twt.Checkpointer(tmp_path).checkpoints()
    assert [p.name for p in ckpts] == ["ckpt-0000000015", "ckpt-0000000020", "ckpt-0000000024"]
    files = json.loads((ckpts[-1] / "MANIFEST.json").read_text())["files"]
    assert {"state.json", "vars.index"} <= set(files)
    assert all(len(meta["sha256"]) == 64 for meta in files.values())
    assert not list((tmp_path / "checkpoints").glob(".tmp-*"))


def test_corrupt_or_partial_newest_falls_back_with_a_warning(tmp_path):
    _train(tmp_path)
    ck = twt.Checkpointer(tmp_path)
    newest, middle, oldest = ck.checkpoints()[::-1]
    data = next(newest.glob("vars.data-*"))
    raw = bytearray(data.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    data.write_bytes(bytes(raw))
    (middle / "MANIFEST.json").unlink()  # as if the process died before the manifest
    (tmp_path / "checkpoints" / ".tmp-ckpt-0000000030-1-2").mkdir()  # a leftover temp dir
    with pytest.warns(twt.CorruptCheckpointWarning) as record:
        assert ck.latest() == oldest
    messages = " ".join(str(w.message) for w in record)
    assert "checksum mismatch" in messages and "MANIFEST" in messages
    model = regression_model(seed=5, optimizer=twt.Adam(0.01))
    model.build()
    with pytest.warns(twt.CorruptCheckpointWarning):
        snap = ck.restore(model)
    assert snap["step"] == 15


def test_checkpoint_holds_slots_step_and_rng(tmp_path):
    model, _ = _train()
    gen = tf.random.get_global_generator()
    rng_state = gen.state.numpy().copy()
    ck = twt.Checkpointer(tmp_path)
    ck.save(model, {"step": 24, "epoch": 3, "epoch_step": 0})
    m_slot = model.optimizer.slots[0]["m"].numpy().copy()
    gen.normal([3])  # advance the RNG
    other = regression_model(seed=3, optimizer=twt.Adam(0.01))
    other.build()
    snap = ck.restore(other)
    assert snap["epoch"] == 3
    np.testing.assert_array_equal(other.optimizer.slots[0]["m"].numpy(), m_slot)
    assert int(other.optimizer.iterations) == 24
    np.testing.assert_array_equal(gen.state.numpy(), rng_state)


@pytest.mark.slow
def test_sigkill_mid_epoch_then_resume(tmp_path):
    """A run with Dropout (a new mask every step) killed twice mid-epoch by SIGKILL and
    resumed ends with the weights of an uninterrupted run, bit for bit: the position of
    the dropout's random generator is in the checkpoint."""
    a, b = killed_twice_and_resumed(tmp_path, "regression", dropout=0.3)
    assert len(a.files) == len(b.files) > 0
    for k in a.files:
        np.testing.assert_array_equal(a[k], b[k])


def test_damaged_manifest_falls_back_to_the_previous_checkpoint(tmp_path):
    _train(tmp_path)
    ck = twt.Checkpointer(tmp_path)
    newest, previous = ck.checkpoints()[-1], ck.checkpoints()[-2]
    good = (newest / "MANIFEST.json").read_bytes()
    damaged = [b"[]", b'{"files": 3}', b'{"files": {"state.json": 1}}', b'{"files": {}}', b"\xff{"]
    for manifest in damaged:
        (newest / "MANIFEST.json").write_bytes(manifest)
        with pytest.warns(twt.CorruptCheckpointWarning, match="damaged MANIFEST"):
            assert ck.latest() == previous, manifest
    (newest / "MANIFEST.json").write_bytes(good)
    assert ck.latest() == newest


def test_a_checkpoint_saves_the_input_position_even_of_data_of_unknown_length(tmp_path):
    """``state.json`` holds ``"input"``: for batches from a function (no length known),
    the epoch and the batches consumed."""
    data = regression_data(n=16)

    def batches():
        for i in range(0, 16, 4):
            yield {"x": data["x"][i : i + 4], "t": data["t"][i : i + 4]}

    model = regression_model()
    cb = twt.CheckpointCallback(tmp_path, every_steps=3, every_epochs=None, keep=3)
    model.train(batches, epochs=1, callbacks=[cb], verbose=0)
    saved = sorted((tmp_path / "checkpoints").glob("ckpt-*/state.json"))
    assert json.loads(saved[0].read_text())["input"] == {"epoch": 0, "batches": 3}
