"""A model built in Python saved as a run directory, and loaded back: ``save_model``.

``model.save(path)`` writes what ``tensorweave train`` writes, so one format serves both:
``config.json`` (the architecture as a job config of registered names, with every default
filled in: ``Model.get_config``) and ``checkpoints/`` (every variable, the optimizers'
slots and step counts). ``twt.load_model(path)`` (``runs.run``) rebuilds the model from
the config with ``build_model`` and restores the checkpoint: predictions equal the saved
model's bit for bit. Arithmetic on nodes, ``tw.op`` and ``KerasLayer.v1`` are written by
name (``Op.v1``, Keras's own serialization). A part with no config form (a ``Lambda`` of a
Python function, a class no installed pack registers...) makes the save fall back to what
needs no config (``save_without_config``): ``saved_model/`` (the inference graph, for
``tf.saved_model.load`` or serving), ``checkpoints/`` (every variable) and ``NOTE.md``
naming each such part, why and the fix, with a ``NoConfigFormWarning`` saying the same.
The saved directory also resumes training: ``model.train(..., resume=path)``.

>>> import tempfile, numpy as np, tensorweave as tw
>>> from tensorweave_train import Model, load_model
>>> x = tw.Input(n_units=3, name="x")
>>> m = Model(inputs=x, outputs=tw.layers["Linear.v1"](x, n_units=2))
>>> where = m.save(tempfile.mkdtemp() + "/saved")
>>> xs = np.ones((1, 3), "float32")
>>> bool((load_model(where).predict(xs) == m.predict(xs)).all())
True
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tensorweave.config as twc
from tensorweave_train.loop.checkpoints import Checkpointer
from tensorweave_train.loop.model import Model
from tensorweave_train.runs.directory import claim, write_run_directory
from tensorweave_train.runs.export.savedmodel import export_saved_model
from tensorweave_train.runs.marker import run_id

__all__ = [
    "model_config",
    "job_config",
    "save_model",
    "save_without_config",
    "NoConfigFormWarning",
]


class NoConfigFormWarning(UserWarning):
    """``model.save`` wrote a SavedModel and the weights instead of a config: some part of
    the model has no config form (the message and ``NOTE.md`` say which and why)."""


def job_config(model: Any, sections: Mapping[str, Any]) -> dict[str, Any]:
    """A job config of ``model``: a ``[model]`` graph block of ``sections`` (layers by
    node name: ``twc.graph_block``), its optimizers and ``[train] jit_compile``; every part
    with no config form reported at once."""
    errors: list[tuple[str, str]] = []
    block: dict[str, Any] = {}
    try:
        block = twc.graph_block(sections, path="model")
    except twc.ConfigError as err:
        errors += err.errors
    several = "_optimizers" in model.__dict__
    optimizers: dict[str, Any] = {}
    for name, optimizer in model.optimizers.items():
        where = f"optimizer.{name}" if several else "optimizer"
        try:
            optimizers[name] = twc.promise_of(optimizer, where)
        except twc.ConfigError as err:
            errors += err.errors
    if errors:
        raise twc.ConfigError(errors)
    optimizer = optimizers if several else optimizers["optimizer"]
    return {
        "model": block,
        "optimizer": optimizer,
        "train": {"jit_compile": bool(model.jit_compile)},
    }


def model_config(model: Any) -> dict[str, Any]:
    """``Model.get_config``: the job config that rebuilds ``model`` (see the module). A
    subclass of ``Model`` (a ``train_step`` of its own...) that does not define its own
    ``get_config`` (as ``GAN`` does) has no config form: loaded as a plain ``Model`` it
    would lose its step."""
    cls = type(model)
    if cls is not Model and cls.get_config is Model.get_config:
        raise twc.ConfigError(
            [
                (
                    "model",
                    f"{cls.__module__}.{cls.__qualname__} is a subclass of Model, and a "
                    "config rebuilds only a Model. Fix: define get_config() returning the "
                    "job config that rebuilds it (a [trainer] of a registered trainer, as "
                    "GAN does), or save the weights alone (tf.train.Checkpoint(model=...)).",
                )
            ]
        )
    if model.inference_options != {"training": False}:
        raise twc.ConfigError(
            [("model", f"inference_options={model.inference_options!r} has no config form")]
        )
    sections: dict[str, Any] = {"inputs": list(model.inputs), "outputs": list(model.outputs)}
    if model.targets:
        sections["targets"] = list(model.targets)
    objectives = model.objectives
    if objectives.named:
        sections["loss"] = dict(objectives.named)
        if any(w != 1.0 for w in objectives.weights.values()):
            sections["loss_weights"] = dict(objectives.weights)
    elif model.loss is not None:
        sections["loss"] = model.loss
    if model.metrics:
        sections["metrics"] = dict(model.metrics)
    if objectives.trains:
        sections["trains"] = {
            name: list(spec) if isinstance(spec, list | tuple) else [spec]
            for name, spec in objectives.trains.items()
        }
    return job_config(model, sections)


def save_model(model: Any, path: str | Path, *, overwrite: bool = False) -> Path:
    """Write ``model`` as a run directory at ``path`` (see the module); returns it. A
    directory holding a run is refused unless ``overwrite``."""
    try:
        config = twc.fill(model.get_config())  # every part named, or one error naming them
    except twc.ConfigError as err:
        if not all(p.startswith("model.nodes.") for p, _ in err.errors):
            raise  # the model itself (a subclass, its optimizer) has no config form
        return save_without_config(model, path, err, overwrite=overwrite)
    model.build()  # the optimizers' slots, so the checkpoint holds them
    where, lock = write_run_directory(path, config, overwrite=overwrite)
    try:
        steps = [int(o.iterations.numpy()) for o in model.optimizers.values()]
        Checkpointer(where, keep=1, owner=run_id(where)).save(
            model, {"step": max(steps), "epoch": 0, "epoch_step": 0}
        )
    finally:
        lock.release()
    return where


def save_without_config(
    model: Any, path: str | Path, why: twc.ConfigError, *, overwrite: bool = False
) -> Path:
    """What ``save_model`` writes for a model with parts that have no config form
    (``why`` names them): ``saved_model/`` (``tf.saved_model.load(path / "saved_model")``
    serves predictions), ``checkpoints/`` (every variable, for the same model rebuilt in
    Python: ``model.train(..., resume=path)``) and ``NOTE.md``; warns once saying why.
    ``load_model`` cannot rebuild it: there is no config to rebuild it from."""
    model.build()
    where, lock = claim(path, overwrite=overwrite)
    try:
        export_saved_model(model, where / "saved_model")
        steps = [int(o.iterations.numpy()) for o in model.optimizers.values()] or [0]
        Checkpointer(where, keep=1, owner=run_id(where)).save(
            model, {"step": max(steps), "epoch": 0, "epoch_step": 0}
        )
    finally:
        lock.release()
    parts = "\n".join(f"- `{p}`: {m}" for p, m in why.errors)
    (where / "NOTE.md").write_text(
        "# Saved without a config\n\n"
        "These parts of the model have no config form, so this directory holds the\n"
        "inference graph as a SavedModel (`saved_model/`: `tf.saved_model.load`) and every\n"
        "variable (`checkpoints/`), not a config `load_model` could rebuild it from:\n\n"
        f"{parts}\n\n"
        "To save a config too, fix each part as it says (register it, or build it from\n"
        "registered components) and save again.\n"
    )
    warnings.warn(
        f"model.save wrote {where} as a SavedModel and a checkpoint, without a config "
        f'(load_model cannot rebuild it; tf.saved_model.load("{where / "saved_model"}") '
        f"serves it): {len(why.errors)} part(s) have no config form, listed in "
        f"{where / 'NOTE.md'}:\n" + "\n".join(f"  {p}: {m}" for p, m in why.errors),
        NoConfigFormWarning,
        stacklevel=3,
    )
    return where
