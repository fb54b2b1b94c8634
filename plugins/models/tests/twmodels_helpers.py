"""What the builder tests share: parameter counts, Keras models with random weights, and the
inference predictions of a module (imported as ``twmodels_helpers``; ``conftest`` puts this
folder on the path)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import tensorweave as tw
from tensorweave_models import from_keras


def count(module: tw.Layer, trainable: bool = False) -> int:
    """The number of parameters (every variable, as Keras's ``count_params``)."""
    variables = module.trainable_variables if trainable else module.variables
    return sum(int(np.prod(v.shape)) for v in variables)


def keras_trainable(model: Any) -> int:
    return sum(int(np.prod(w.shape)) for w in model.trainable_weights)


def assert_same_as_keras(ours: tw.Layer, keras_model: Any) -> None:
    """The same parameters (all and trainable) and output shape as ``keras_model``."""
    assert count(ours) == keras_model.count_params()
    assert count(ours, trainable=True) == keras_trainable(keras_model)
    assert ours.shape == tuple(keras_model.output_shape)


def randomize(keras_model: Any, seed: int = 0) -> None:
    """Random weights that keep activations of order one through deep networks: kernels
    scaled by their fan-in, variances in [0.5, 1.5], other vectors around their usual
    values."""
    rng = np.random.default_rng(seed)
    for w in keras_model.weights:
        shape = tuple(w.shape)
        leaf = w.path.rsplit("/", 1)[-1]
        if len(shape) > 1:
            fan_in = (
                int(np.prod(shape[:-1])) if "depthwise" not in w.path else int(np.prod(shape[:2]))
            )
            value = rng.standard_normal(shape) * np.sqrt(1.0 / max(fan_in, 1))
        elif leaf in ("moving_variance", "gamma"):
            value = rng.uniform(0.5, 1.5, shape)
        else:
            value = rng.standard_normal(shape) * 0.1
        w.assign(value.astype("float32"))


def predict(module: tw.Layer, *values: Any) -> np.ndarray:
    """The module's inference network (``training=False``) on ``values``, run eagerly (a
    compile would trace a deep network for one call)."""
    return np.asarray(tw.with_options(module, training=False).compute(*values))


def images(shape: tuple[int, ...], scale: float = 1.0, batch: int = 2) -> np.ndarray:
    """Random images of ``shape`` with pixels in ``[0, scale]``."""
    return np.random.default_rng(1).uniform(0, scale, (batch, *shape)).astype("float32")


def assert_predicts_as_keras(
    keras_model: Any, ours: tw.Layer, values: np.ndarray, *, atol: float = 1e-5
) -> None:
    """With ``keras_model``'s random weights copied in (``from_keras``), ``ours`` predicts
    what ``keras_model`` predicts on ``values``."""
    randomize(keras_model)
    from_keras(keras_model, ours)
    want = np.asarray(keras_model(values, training=False))
    np.testing.assert_allclose(predict(ours, values), want, rtol=1e-5, atol=atol)


def assert_loads_keras_file(
    keras_model: Any,
    build: Callable[..., tw.Layer],
    directory: Path,
    values: np.ndarray,
    *,
    name: str = "model.keras",
    atol: float = 1e-5,
) -> None:
    """``build(weights=<keras_model saved with random weights>)`` predicts what
    ``keras_model`` predicts on ``values``."""
    randomize(keras_model)
    path = directory / name
    if name.endswith(".weights.h5"):
        keras_model.save_weights(path)
    else:
        keras_model.save(path)
    ours = build(weights=str(path))
    want = np.asarray(keras_model(values, training=False))
    np.testing.assert_allclose(predict(ours, values), want, rtol=1e-5, atol=atol)
