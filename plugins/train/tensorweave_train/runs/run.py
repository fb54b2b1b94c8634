"""``Run``: a run directory, opened: its saved config, model, checkpoints and processors.

A run is what ``tensorweave train`` writes (``runs/<name>-<time>/``): ``config.json`` (the
config with every default, provider and version filled in: it alone rebuilds the model),
``checkpoints/``, ``processors.json``, ``log.csv``, ``summary.json``. A reference is a run
directory or anything a plugin resolves through the ``tensorweave_resolve_run`` hook (a
model registry's ``digits@latest``): ``resolve_run`` is the one place references are
resolved, ``Run.open(reference)`` the one way a run is opened, by every command, the store,
warm starts, ensembles and ``load_model``. Evaluating builds the model and the data from
the config, predicting and loading only the model: a missing callback's pack does not stop
them.

>>> import tempfile
>>> Run(tempfile.mkdtemp()).checkpointer.checkpoints()
[]
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
import tensorweave.config as twc
from tensorweave_data import BadFileError, read_json
from tensorweave_train.loop.checkpoints import Checkpointer, DamagedCheckpointError
from tensorweave_train.loop.model import Model
from tensorweave_train.runs.directory import resolve_run
from tensorweave_train.runs.job import Job, build_job, build_model
from tensorweave_train.runs.lock import RunDirError
from tensorweave_train.runs.marker import CONFIG_FILE
from tensorweave_train.runs.processors import (
    DAMAGED_FIX,
    Processors,
    check_raw,
    image_decoding,
    names_files,
    read_images,
)

__all__ = ["Run", "load_model", "load_run", "export_run", "mismatch_message"]

Overrides = Sequence[str] | Mapping[str, Any]
# what evaluating a run builds: no callbacks (their packs may be gone), no [run] settings
_EVALUATED = ("data", "model", "optimizer", "trainer")


class Run:
    """A run directory (see the module docstring): ``Run.open(reference)`` resolves and
    checks a reference; ``Run(path)`` takes a directory as it is."""

    CONFIG = CONFIG_FILE  # the filled config: it alone rebuilds the model
    PROCESSORS = "processors.json"
    SUMMARY = "summary.json"
    LOG = "log.csv"

    def __init__(self, path: str | Path, reference: str | None = None) -> None:
        self.path = Path(path)
        self.reference = str(path) if reference is None else reference

    @classmethod
    def open(cls, reference: str | Path) -> Run:
        """The run ``reference`` names (``resolve_run``)."""
        return cls(resolve_run(reference), str(reference))

    def __repr__(self) -> str:
        return f"Run({str(self.path)!r})"

    @property
    def checkpointer(self) -> Checkpointer:
        """The run's checkpoints (``checkpoints/``)."""
        return Checkpointer(self.path)

    def config(self, overrides: Overrides = ()) -> dict[str, Any]:
        """The filled config the run saved, with ``overrides`` applied."""
        path = self.path / self.CONFIG
        if not path.is_file():
            raise RunDirError(
                f"{self.path} is not a run directory (no {self.CONFIG}). Fix: pass the "
                "directory `tensorweave train` printed."
            )
        # read by the one JSON reader first: a damaged file is named, exit code 2
        if not isinstance(read_json(path, fix=DAMAGED_FIX), dict):
            raise BadFileError(path, "not a JSON object", DAMAGED_FIX, damaged=True)
        return twc.load(path, overrides=overrides)

    @property
    def processors(self) -> Processors:
        """The run's data steps (empty when it saved none)."""
        path = self.path / self.PROCESSORS
        return Processors.load(path) if path.is_file() else Processors()

    # -- the trained model ----------------------------------------------------------------
    def model(self, overrides: Overrides = ()) -> Model:
        """The run's model (no data is loaded), restored from its newest valid checkpoint."""
        model = build_model(self.config(overrides))
        self._restored(model, overrides)
        return model

    def job(
        self,
        overrides: Overrides = (),
        parts: Sequence[str] | None = _EVALUATED,
        *,
        plan: twc.Plan | None = None,
        paths_outside: bool = False,
    ) -> Job:
        """The run's job (model and data; every part with ``parts=None``), its model
        restored from the newest valid checkpoint; ``plan``: the validation of
        ``self.config(overrides)`` already made (``validate_config``). The config's output
        paths are read inside the run directory (``job.in_run``; one leaving it is refused
        unless ``paths_outside``)."""
        job = build_job(
            plan if plan is not None else self.config(overrides),
            parts,
            run_dir=self.path,
            paths_outside=paths_outside,
        )
        self._restored(job.model, overrides)
        return job

    def _restored(self, model: Model, overrides: Overrides) -> dict[str, Any]:
        model.build()
        snapshot = self.restore(model, overrides)
        damaged = self.checkpointer.checkpoints()
        if snapshot is None and damaged:  # every one failed its checks (warned about)
            raise DamagedCheckpointError(
                f"every checkpoint of {self.path} is damaged ({len(damaged)} in checkpoints/; "
                f"the newest, {damaged[-1].name}: {Checkpointer.verify(damaged[-1])}). Fix: "
                "restore its checkpoints/ from a backup of the run, or train the run again.",
                damaged[-1],
            )
        if snapshot is None:
            raise tw.TensorweaveError(
                f"{self.path} has no valid checkpoint to restore. Fix: train it until at least "
                "one checkpoint is written (or resume it: tensorweave resume RUN_DIR)."
            )
        return snapshot

    def restore(self, model: Model, overrides: Overrides = ()) -> dict[str, Any] | None:
        """Restore the newest valid checkpoint into the built ``model``; its loop snapshot,
        or ``None`` without one. A model the ``overrides`` changed so that the checkpoint
        does not fit is a ``ConfigError`` naming them."""
        try:
            return self.checkpointer.restore(model)
        except (ValueError, AssertionError, tf.errors.OpError) as err:
            given = (
                [f"{k}={v}" for k, v in overrides.items()]
                if isinstance(overrides, Mapping)
                else list(overrides)
            )
            text = str(err).strip()
            first = text.splitlines()[0][:300] if text else type(err).__name__
            first = mismatch_message(first, model) or first
            if not given:
                raise tw.TensorweaveError(
                    f"cannot restore the checkpoint in {self.path}: {first}"
                ) from err
            paths = [twc.parse_override(g)[0] if isinstance(g, str) else str(g) for g in given]
            plain = ("train.", "run.", "data.", "optimizer.", "callbacks", "trainer.")
            paths = [p for p in paths if not p.startswith(plain)] or paths
            raise twc.ConfigError(
                [
                    (
                        p,
                        "this override changes the model's variables, so the checkpoint in "
                        f"{self.path} cannot be restored into it ({first}). Fix: resume with "
                        "the same model (change only [train], [data] or the optimizer's "
                        "settings), or train a new run.",
                    )
                    for p in paths
                ]
            ) from err

    # -- using it ---------------------------------------------------------------------------
    def evaluate(self, split: str = "valid", overrides: Overrides = ()) -> dict[str, float]:
        """The loss and metrics of the trained model on its ``valid`` (or ``train``) data."""
        job = self.job(overrides)
        return job.model.evaluate(job.split(split), batch_size=job.settings.batch_size)

    def predict(
        self, raw: Any, *, generate: int = 0, postprocess: bool = True, allow_nan: bool = False
    ) -> Any:
        """The trained model on raw input: the saved pre-processing, the model, then the
        post-processing (pixels -> normalised -> class scores -> class ids). ``raw`` is
        one array (or text), or a mapping of one array per input name (a model with
        several inputs; see ``Processors.prepare_inputs``). A run trained on image files
        (``image_folder.v1``) also takes image paths: a file, a folder, or a list of them,
        decoded and resized exactly as training did (``processors.read_images``).

        ``generate=N`` (sequence models) appends N predicted items one at a time;
        ``postprocess=False`` returns the model's outputs (scores) without the
        post-processing; ``allow_nan=True`` predicts on NaN/inf input with a warning
        instead of refusing it."""
        processors = self.processors
        images = image_decoding(processors.info)
        if images is not None and (isinstance(raw, str) or names_files(raw)):
            raw = read_images(raw, images)[1]  # a bad file: named, before the model is built
        check_raw(raw, processors.info)  # before the model is built: a typo answers fast
        model = self.model()
        feed = processors.prepare_inputs(raw, model.inputs, allow_nan=allow_nan)
        if generate:
            first = model.inputs[0]
            ids = feed[first.name]
            for _ in range(generate):
                logits = model.predict({first.name: ids})
                nxt = np.argmax(logits[:, -1], axis=-1).astype(ids.dtype)
                ids = np.concatenate([ids, nxt[:, None]], axis=1)
            vocab = processors.info.get("vocab")
            if vocab:
                detokenize = tw.resolve("processors", "detokenize_chars.v1", owner="predict")
                return detokenize(ids[0], vocab=vocab)
            return ids
        scores = model.predict(feed)
        return processors.finish(scores) if postprocess else scores

    def export(self, out: str | Path, *, overwrite: bool = False) -> Path:
        """Write the run as ``tensorweave export RUN -o OUT`` does (``export_trained_run``,
        format ``savedmodel``): ``out/model`` (a SavedModel that needs TensorFlow alone),
        ``out/predictor.json`` (the steps: ``Predictor.load(out)`` serves raw input like
        ``predict``) and ``out/model.json``. An existing ``out`` is refused unless
        ``overwrite`` and it is an earlier export (``ExportError``)."""
        from tensorweave_train.runs.export.trained_run import export_trained_run

        return export_trained_run(self, out, format="savedmodel", overwrite=overwrite)


def load_model(reference: str | Path) -> Model:
    """The trained ``Model`` of a run, restored from its newest valid checkpoint: what
    ``tensorweave train`` made, back in Python (``predict``, ``evaluate``, ``summary``,
    ``export``, or more ``train``). ``reference`` is a run directory or any reference an
    installed plugin resolves (a model registry's ``"NAME@latest"``)."""
    return Run.open(reference).model()


load_run = load_model  # the same function, under the name of earlier releases


def export_run(reference: str | Path, out: str | Path, *, overwrite: bool = False) -> Path:
    """``Run.open(reference).export(out)``: the run exported as ``tensorweave export`` does
    (a SavedModel, ``predictor.json`` and ``model.json``)."""
    return Run.open(reference).export(out, overwrite=overwrite)


_MISMATCH = re.compile(
    r"incompatible tensor with shape (?P<saved>\([^)]*\)|\S+) when attempting to restore "
    r"variable with shape (?P<want>\([^)]*\)|\S+) and name (?P<name>[^\s:]+)"
)


def mismatch_message(error: str, model: Any) -> str | None:
    """Which layer and variable a checkpoint's shape mismatch is about (variables carry
    their layer's name, ``h1/weights``), or ``None`` when ``error`` is not one.

    >>> import tensorweave as tw
    >>> x = tw.Input(n_units=3, name="x")
    >>> m = Model(inputs=x, outputs=tw.layers["Linear.v1"](x, n_units=2, name="enc"))
    >>> print(mismatch_message("Received incompatible tensor with shape (4, 2) when "
    ...     "attempting to restore variable with shape (3, 2) and name enc/weights:0.", m))
    layer 'enc' (Linear), variable 'enc/weights': the checkpoint holds shape (4, 2), the model (3, 2)
    """
    found = _MISMATCH.search(error)
    if found is None:
        return None
    name = found["name"].rstrip(".")
    saved, want = found["saved"], found["want"]
    for layer in getattr(model, "layers", ()):
        if any(v.name.split(":")[0] == name for v in layer.variables):
            return (
                f"layer {layer.name!r} ({type(layer).__name__}), variable {name!r}: the "
                f"checkpoint holds shape {saved}, the model {want}"
            )
    return f"variable {name!r}: the checkpoint holds shape {saved}, the model {want}"
