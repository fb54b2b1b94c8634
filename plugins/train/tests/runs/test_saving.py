"""``Model.save``/``load_model`` for models built in Python (``runs.saving``): the
architecture as a config of registered names, the weights and the optimizers' state; a
round trip predicts bit for bit the same and trains on as the original."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf
from twtrain_helpers import Dense, dcgan, gan_images

import tensorweave as tw
import tensorweave.config as twc
import tensorweave_train as twt
from tensorweave_train.runs.saving import NoConfigFormWarning

RNG = np.random.default_rng(3)
X = RNG.normal(size=(32, 6)).astype("float32")
Y = RNG.integers(0, 3, size=32).astype("int64")
T = RNG.normal(size=(32, 2)).astype("float32")


def _model():
    """Two heads on a shared trunk (a frozen module, BatchNorm, Dropout, tied weights),
    two named losses with weights, two optimizers (one with a schedule), a metric."""
    tw.reset_names()
    tf.random.set_seed(5)
    L = tw.layers
    x = tw.Input(n_units=6, name="x")
    y, t = tw.Input(shape=(), dtype="int64", name="y"), tw.Input(n_units=2, name="t")
    stem = tw.Module(x, L["Linear.v1"](x, n_units=6, name="inner"), name="stem").freeze()
    h = L["FC.v1"](stem, n_units=8, activation="relu", w_regularizer="l2", name="h")
    h = L["Dropout.v1"](L["BatchNorm.v1"](h, momentum=0.8), rate=0.2)
    logits = L["Linear.v1"](h, n_units=3, name="logits")
    again = L["Linear.v1"](h, n_units=8, name="square")
    tied = again.reuse_with(again, name="tied")  # the same weights twice
    reg = L["Linear.v1"](tied, n_units=2, name="reg")
    losses = {
        "cls": tw.losses["sparse_categorical_cross_entropy.v1"](y, logits, from_logits=True),
        "reg": tw.losses["mse.v1"](t, reg),
    }
    return twt.Model(
        inputs=x,
        outputs=[logits, reg],
        targets=[y, t],
        loss=losses,
        loss_weights={"reg": 0.5},
        metrics={"accuracy": tw.metrics["sparse_accuracy.v1"](y, logits)},
        optimizer={
            "head": twt.SGD(0.05, momentum=0.9, schedule=twt.CosineDecay(decay_steps=50)),
            "body": twt.Adam(1e-2),
        },
        trains={"head": [logits, reg]},
    )


def _same(a, b):
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)


def test_a_python_model_round_trips_bit_for_bit_and_trains_on_alike(tmp_path):
    model = _model()
    model.train(X, [Y, T], epochs=2, batch_size=8, verbose=0)
    where = model.save(tmp_path / "saved")
    loaded = twt.load_model(where)
    assert type(loaded) is twt.Model and not loaded.layers[1].trainable  # the frozen stem
    _same(loaded.predict(X), model.predict(X))
    assert loaded.evaluate(X, [Y, T]) == model.evaluate(X, [Y, T])
    assert loaded.objectives.weights == {"cls": 1.0, "reg": 0.5}
    for name in ("head", "body"):
        mine, theirs = model.optimizers[name], loaded.optimizers[name]
        assert int(theirs.iterations) == int(mine.iterations) == 8
        _same(
            [s.numpy() for d in theirs.slots for s in d.values()],
            [s.numpy() for d in mine.slots for s in d.values()],
        )
    for m in (model, loaded):
        m.train(X, [Y, T], epochs=1, batch_size=8, seed=4, verbose=0)
    _same([v.numpy() for v in loaded.variables], [v.numpy() for v in model.variables])


@pytest.mark.slow  # a subprocess importing TensorFlow
def test_a_saved_model_predicts_the_same_in_a_new_process(tmp_path):
    model = _model()
    model.train(X, [Y, T], epochs=1, batch_size=8, verbose=0)
    where = model.save(tmp_path / "saved")
    np.save(tmp_path / "x.npy", X)
    code = (
        "import numpy as np, tensorweave_train as twt\n"
        f"m = twt.load_model({str(where)!r})\n"
        f"np.save({str(tmp_path / 'out.npy')!r}, m.predict(np.load({str(tmp_path / 'x.npy')!r}))[1])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), model.predict(X)[1])


def test_a_gan_saves_as_a_gan_trainer_config(tmp_path):
    gan = dcgan(d_steps=2)
    gan.train(gan_images(16), epochs=1, batch_size=8, verbose=0)
    config = gan.get_config()
    assert config["trainer"]["@trainers"] == "GANTrainer.v1" and config["trainer"]["d_steps"] == 2
    loaded = twt.load_model(gan.save(tmp_path / "gan"))
    assert isinstance(loaded, twt.GAN) and loaded.d_steps == 2
    z = RNG.normal(size=(4, 1, 1, 8)).astype("float32")
    np.testing.assert_array_equal(loaded.predict(z), gan.predict(z))


class _Unregistered(Dense):
    """A layer class no pack registers."""


def test_parts_without_a_config_form_fall_back_to_a_saved_model_naming_them(tmp_path):
    x, t = tw.Input(n_units=4, name="x"), tw.Input(n_units=1, name="t")
    h = _Unregistered(x, 3, name="mine")
    y = tw.Lambda(lambda a: a[:, :1] * 2.0, h, name="double")
    loss = tw.ops.reduce_mean(tw.ops.square(y - t))
    model = twt.Model(inputs=x, outputs=y, targets=t, loss=loss)
    with pytest.warns(NoConfigFormWarning) as caught:
        where = model.save(tmp_path / "saved")
    message = str(caught[0].message)
    assert "_Unregistered 'mine' is a class no installed pack registers" in message
    assert "model.nodes.double: Lambda 'double' applies <lambda>" in message
    note = (where / "NOTE.md").read_text()
    assert "`model.nodes.mine`" in note and "Fix:" in note
    assert not (where / "config.json").exists()
    xs = RNG.normal(size=(3, 4)).astype("float32")
    loaded = tf.saved_model.load(str(where / "saved_model"))  # kept: it owns the variables
    np.testing.assert_allclose(loaded.serve(xs), model.predict(xs), rtol=1e-6)
    assert list((where / "checkpoints").iterdir())


class _OwnStep(twt.Model):
    """A step of its own, and no ``get_config``."""

    def train_step(self, batch):
        return super().train_step(batch)


def test_a_subclass_without_its_own_config_is_refused(tmp_path):
    x, t = tw.Input(n_units=2, name="x"), tw.Input(n_units=1, name="t")
    y = tw.layers["Linear.v1"](x, n_units=1)
    model = _OwnStep(inputs=x, outputs=y, targets=t, loss=tw.losses["mse.v1"](t, y))
    with pytest.raises(twc.ConfigError, match="_OwnStep is a subclass of Model") as info:
        model.save(tmp_path / "saved")
    assert "Fix: define get_config()" in str(info.value)
    assert not (tmp_path / "saved").exists()


def _tiny():
    tw.reset_names()
    x = tw.Input(n_units=3, name="x")
    return twt.Model(inputs=x, outputs=tw.layers["Linear.v1"](x, n_units=2))


def test_save_overwrite_never_empties_a_folder_of_the_users_files(tmp_path) -> None:
    """The attack (#33): ``model.save(MY_FOLDER, overwrite=True)``."""
    mine = tmp_path / "mine"
    (mine / "sub").mkdir(parents=True)
    (mine / "notes.txt").write_text("my notes")
    (mine / "sub" / "data.csv").write_text("1,2")
    with pytest.raises(tw.TensorweaveError) as err:
        _tiny().save(mine, overwrite=True)
    assert "2 files not written by tensorweave (notes.txt, sub)" in str(err.value)
    assert "refusing to empty it" in str(err.value)
    assert sorted(p.name for p in mine.rglob("*")) == ["data.csv", "notes.txt", "sub"]
    assert (mine / "notes.txt").read_text() == "my notes"


def test_save_overwrite_replaces_a_save_tensorweave_wrote(tmp_path) -> None:
    where = _tiny().save(tmp_path / "saved")
    with pytest.raises(tw.TensorweaveError, match="already holds a run"):
        _tiny().save(where)
    (where / "extra.txt").write_text("left by a previous save")
    _tiny().save(where, overwrite=True)
    assert not (where / "extra.txt").exists() and (where / "config.json").is_file()
    assert twt.load_model(where) is not None
