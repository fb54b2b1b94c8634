"""The TensorFlow form of the processors that have one: the one place it is written.

A processor (``tensorweave_data.processors``) is plain Python on numpy values, what the
in-memory ``Pipeline`` and a predictor run. The processors listed in ``FORMS`` also have a
TensorFlow form here, which runs inside a ``tf.data`` graph (streamed file datasets:
``with_steps``) and inside an exported model (``tensorweave_train.runs.export``). Both forms
give the same output for the same input (``plugins/data/tests/test_graph_forms.py``).

``graph_form(name, params)`` is a step's TensorFlow function ``fn(value, key)``: ``value`` a
tensor (or a dict of tensors when the step names a ``field``), ``key`` the stateless seed
(shape ``[2]``) of the example, which only the random steps (``RANDOM``) read; a string
instead says why the step has no TensorFlow form.

Random steps (``random_crop``, ``random_flip``, ``random_brightness``,
``random_contrast``, Keras's names and semantics) draw from stateless ops keyed by
``(step seed, run seed, epoch, example index)`` (``example_key``): a re-run and a resumed run
augment every example the same way. They apply to the training split only: elsewhere a
step is its ``inference_step`` (nothing, or a center crop for ``random_crop``), which is
also what a predictor records.

>>> import tensorflow as tf
>>> form = graph_form("normalize.v1", {"mean": 8.0, "std": 8.0})
>>> form(tf.constant([0.0, 8.0, 16.0]), None).numpy().tolist()
[-1.0, 0.0, 1.0]
>>> graph_form("window.v1", {"size": 3})
'window.v1 has no TensorFlow form (it runs on the whole sequence in Python)'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_data.files.streaming import Stream
from tensorweave_data.pipeline import Pipeline

__all__ = [
    "FORMS",
    "RANDOM",
    "StepsError",
    "StepStream",
    "graph_form",
    "example_key",
    "inference_step",
    "predict_steps",
    "with_steps",
    "resize_image",
]

Form = Callable[[Any, Any], Any]


class StepsError(tw.TensorweaveError, ValueError):
    """A processing step cannot run where it was asked to (e.g. on streamed data)."""


def _on(value: Any, field: str | None, fn: Callable[[Any], Any]) -> Any:
    if field is None:
        return fn(value)
    if not isinstance(value, Mapping) or field not in value:
        have = sorted(value) if isinstance(value, Mapping) else type(value).__name__
        raise StepsError(f"the step works on the field {field!r}, which is not here ({have})")
    out = dict(value)
    out[field] = fn(value[field])
    return out


# -- deterministic forms ---------------------------------------------------------------------
def normalize(t: Any, mean: float = 0.0, std: float = 1.0, dtype: str = "float32") -> Any:
    if std == 0:
        raise StepsError("normalize: std must not be 0")
    return (tf.cast(t, dtype) - tf.cast(mean, dtype)) / tf.cast(std, dtype)


def scale(t: Any, factor: float = 1.0, offset: float = 0.0, dtype: str = "float32") -> Any:
    return tf.cast(t, dtype) * tf.cast(factor, dtype) + tf.cast(offset, dtype)


def cast(t: Any, dtype: str) -> Any:
    return tf.cast(t, dtype)


def reshape(t: Any, shape: Sequence[int], batched: bool = False) -> Any:
    target = [int(d) for d in shape]
    return tf.reshape(t, [-1, *target] if batched else target)


def one_hot(t: Any, num_classes: int) -> Any:
    ids = tf.cast(t, tf.int64)
    message = f"one_hot: ids must be in [0, {int(num_classes)})"
    checks = [
        tf.debugging.assert_non_negative(ids, message),
        tf.debugging.assert_less(ids, tf.constant(int(num_classes), tf.int64), message),
    ]
    with tf.control_dependencies([c for c in checks if c is not None]):  # None when eager
        ids = tf.identity(ids)
    return tf.one_hot(ids, int(num_classes), dtype=tf.float32)


def _tokenize_chars(vocab: str, unknown: int = 0) -> Callable[[Any], Any]:
    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(
            tf.constant([ord(c) for c in vocab], tf.int32),
            tf.constant(list(range(len(vocab))), tf.int32),
        ),
        default_value=int(unknown),
    )
    return lambda t: table.lookup(tf.strings.unicode_decode(t, "UTF-8"))


# -- images: Keras's preprocessing layers' semantics ------------------------------------------
def resize_image(
    image: Any,
    size: Sequence[int],
    interpolation: str = "bilinear",
    crop_to_aspect_ratio: bool = False,
) -> Any:
    """``image`` (``[h, w, c]`` or a batch) resized to ``size`` as float32, first
    center-cropped to its aspect ratio with ``crop_to_aspect_ratio`` (Keras's ``Resizing``).

    >>> import tensorflow as tf
    >>> resize_image(tf.zeros([6, 8, 3]), [4, 4], crop_to_aspect_ratio=True).shape.as_list()
    [4, 4, 3]
    """
    th, tw_ = int(size[0]), int(size[1])
    image = tf.cast(image, tf.float32)
    if crop_to_aspect_ratio:
        shape = tf.shape(image)
        height, width = shape[-3], shape[-2]
        crop_h = tf.minimum(height, tf.cast(tf.cast(width * th, tf.float32) / tw_, tf.int32))
        crop_w = tf.minimum(width, tf.cast(tf.cast(height * tw_, tf.float32) / th, tf.int32))
        top = tf.cast(tf.cast(height - crop_h, tf.float32) / 2, tf.int32)
        left = tf.cast(tf.cast(width - crop_w, tf.float32) / 2, tf.int32)
        image = image[..., top : top + crop_h, left : left + crop_w, :]
    return tf.image.resize(image, [th, tw_], method=interpolation)


def _draw(key: Any, k: int) -> Any:
    """Uniform [0, 1) draw ``k`` of an example's key (one per decision of a step)."""
    return tf.random.stateless_uniform([], seed=tf.random.experimental.stateless_fold_in(key, k))


def _factor_range(factor: float | Sequence[float]) -> tuple[float, float]:
    if isinstance(factor, int | float):
        return -abs(float(factor)), abs(float(factor))
    low, high = (float(f) for f in factor)
    return low, high


def random_crop(t: Any, key: Any, height: int, width: int) -> Any:
    h, w = int(height), int(width)
    shape = tf.shape(t)
    top = tf.cast(tf.floor(_draw(key, 0) * tf.cast(shape[0] - h + 1, tf.float32)), tf.int32)
    left = tf.cast(tf.floor(_draw(key, 1) * tf.cast(shape[1] - w + 1, tf.float32)), tf.int32)
    return tf.cast(t[top : top + h, left : left + w, :], tf.float32)


def random_flip(t: Any, key: Any, mode: str = "horizontal") -> Any:
    t = tf.cast(t, tf.float32)
    axes = {"horizontal": [1], "vertical": [0], "horizontal_and_vertical": [0, 1]}[mode]
    return tf.cond(_draw(key, 0) <= 0.5, lambda: tf.reverse(t, axes), lambda: t)


def random_brightness(
    t: Any, key: Any, factor: float | Sequence[float], value_range: Sequence[float] = (0, 255)
) -> Any:
    low, high = _factor_range(factor)
    lo, hi = sorted(float(v) for v in value_range)
    delta = (low + (high - low) * _draw(key, 0)) * (hi - lo)
    return tf.clip_by_value(tf.cast(t, tf.float32) + delta, lo, hi)


def random_contrast(
    t: Any, key: Any, factor: float | Sequence[float], value_range: Sequence[float] = (0, 255)
) -> Any:
    low, high = _factor_range(factor)
    lo, hi = sorted(float(v) for v in value_range)
    amount = 1.0 + low + (high - low) * _draw(key, 0)
    t = tf.cast(t, tf.float32)
    mean = tf.reduce_mean(t, axis=[-3, -2], keepdims=True)
    return tf.clip_by_value((t - mean) * amount + mean, lo, hi)


_DETERMINISTIC: dict[str, Callable[..., Any]] = {
    "normalize": normalize,
    "scale": scale,
    "cast": cast,
    "reshape": reshape,
    "one_hot": one_hot,
    "resize": resize_image,
}
_RANDOM: dict[str, Callable[..., Any]] = {
    "random_crop": random_crop,
    "random_flip": random_flip,
    "random_brightness": random_brightness,
    "random_contrast": random_contrast,
}
#: The processors with a TensorFlow form (their registered names).
FORMS = tuple(sorted(f"{n}.v1" for n in [*_DETERMINISTIC, *_RANDOM, "tokenize_chars"]))
#: The training-only (random) ones among them.
RANDOM = tuple(sorted(f"{n}.v1" for n in _RANDOM))


def _base(name: str) -> str:
    """``"tensorweave-data:normalize.v1"`` -> ``"normalize"`` (the ``.v1`` forms here)."""
    full = name.split(":")[-1]
    return full.removesuffix(".v1") if full.endswith(".v1") else full


def graph_form(name: str, params: Mapping[str, Any]) -> Form | str:
    """The TensorFlow form ``fn(value, key)`` of the step ``name`` with ``params``, or a
    string saying why it has none (see the module docstring)."""
    base = _base(name)
    kw = {k: v for k, v in params.items() if k not in ("field", "seed") and not k.startswith("@")}
    field = params.get("field")
    if base in _DETERMINISTIC:
        fn = _DETERMINISTIC[base]
        return lambda value, key: _on(value, field, lambda t: fn(t, **kw))
    if base in _RANDOM:
        rfn = _RANDOM[base]
        return lambda value, key: _on(value, field, lambda t: rfn(t, key, **kw))
    if base == "tokenize_chars":
        tok = _tokenize_chars(**kw)
        return lambda value, key: _on(value, field, tok)
    why = {
        "window": "it runs on the whole sequence in Python",
        "shift_targets": "it runs on the whole sequence in Python",
        "shuffle": "it takes the whole dataset (a stream shuffles in its own buffer)",
        "take": "it takes the whole dataset (use [train] limit)",
    }.get(base, "it is Python only")
    return f"{name} has no TensorFlow form ({why})"


def example_key(step_seed: int, position: int, seed: Any, epoch: Any, index: Any) -> Any:
    """The stateless key of one example for one random step: ``(step_seed, position)`` folded
    with the run's ``seed``, the ``epoch`` and the example's ``index`` in it.

    >>> a = example_key(0, 1, 7, 2, 5).numpy().tolist()
    >>> a == example_key(0, 1, 7, 2, 5).numpy().tolist() != example_key(0, 1, 7, 2, 6).numpy().tolist()
    True
    """
    key = tf.constant([int(step_seed), int(position)], tf.int64)
    for part in (seed, epoch, index):
        key = tf.random.experimental.stateless_fold_in(key, tf.cast(part, tf.int64))
    return key


def inference_step(step: Mapping[str, Any]) -> dict[str, Any] | None:
    """What a step is outside training: itself, nothing (random flips and colour changes),
    or a center crop to ``[height, width]`` (``random_crop``, as Keras's ``RandomCrop``).

    >>> inference_step({"@processors": "random_flip.v1"}) is None
    True
    >>> inference_step({"@processors": "random_crop.v1", "height": 4, "width": 4})["size"]
    [4, 4]
    """
    name = str(step.get("@processors", ""))
    base = _base(name)
    if base == "random_crop":
        out: dict[str, Any] = {"@processors": "resize.v1"}
        out["size"] = [int(step["height"]), int(step["width"])]
        out["crop_to_aspect_ratio"] = True
        if step.get("field") is not None:
            out["field"] = step["field"]
        return out
    if base in _RANDOM:
        return None
    return dict(step)


def predict_steps(steps: Sequence[Mapping[str, Any]], field: str | None) -> list[dict[str, Any]]:
    """The steps a predictor applies to a raw batch of ``field``: the inference form of each
    step on that field (or on the whole value), without ``field``, ``reshape`` batched.

    >>> predict_steps([{"@processors": "reshape.v1", "field": "x", "shape": [4]},
    ...                {"@processors": "one_hot.v1", "field": "y", "num_classes": 3},
    ...                {"@processors": "random_flip.v1", "field": "x"}], "x")
    [{'@processors': 'reshape.v1', 'shape': [4], 'batched': True}]
    """
    out: list[dict[str, Any]] = []
    for step in steps:
        if step.get("field") not in (None, field):
            continue
        inner = inference_step(step)
        if inner is None:
            continue
        inner = {k: v for k, v in inner.items() if k != "field"}
        if _base(str(inner["@processors"])) == "reshape":
            inner["batched"] = True
        out.append(inner)
    return out


# -- steps on a stream ------------------------------------------------------------------------
class _Chain:
    """Steps checked once, as TF forms, for the train split (random ones on) or another."""

    def __init__(self, steps: Sequence[Mapping[str, Any]], owner: str) -> None:
        self.steps = [dict(s) for s in steps]
        self.forms: list[tuple[Form, bool, int]] = []
        for position, step in enumerate(self.steps):
            name = str(step.get("@processors", ""))
            params = {k: v for k, v in step.items() if not k.startswith("@")}
            form = graph_form(name, params)
            if isinstance(form, str):
                raise StepsError(
                    f"{owner}: steps[{position}] ({name}) cannot run on streamed data: {form}. "
                    f"Fix: use only steps with a TensorFlow form on a file dataset: "
                    f"{', '.join(FORMS)}."
                )
            random = _base(name) in _RANDOM
            self.forms.append((form, random, int(params.get("seed", 0))))
        inference = [inference_step(s) for s in self.steps]
        self.inference = (
            _Chain([s for s in inference if s is not None], owner)
            if any(r for _, r, _ in self.forms)
            else self
        )

    def apply(self, example: Any, seed: Any, epoch: Any, index: Any) -> Any:
        for position, (form, random, step_seed) in enumerate(self.forms):
            key = example_key(step_seed, position, seed, epoch, index) if random else None
            example = form(example, key)
        return example


class StepStream(Stream):
    """A ``Stream`` whose examples go through ``steps`` inside its ``tf.data`` graph, after
    decoding and before batching (parallel, ``AUTOTUNE``, deterministic order). On the
    training split the random steps draw per ``(seed, epoch, index)``, so a resumed epoch
    (``start``) augments each example as an uninterrupted one (other splits get the
    chain's ``inference`` form)."""

    def __init__(self, inner: Stream, chain: _Chain) -> None:
        vars(self).update(vars(inner))  # the same reading state: files, length, decode, ...
        self.inner = inner
        self.chain = chain
        self._spec = None
        self._limited = {}

    def _mapped(self, ds: tf.data.Dataset, seed: int, epoch: int, start: int) -> tf.data.Dataset:
        chain = self.chain

        def step(index: Any, example: Any) -> Any:
            return chain.apply(example, seed, epoch, index)

        return ds.enumerate(int(start)).map(
            step, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True
        )

    @property
    def element_spec(self) -> dict[str, tf.TensorSpec]:
        if self._spec is None:
            self._spec = dict(self._mapped(self.inner.dataset(), 0, 0, 0).element_spec)
        return self._spec

    def dataset(
        self, *, shuffle: bool = False, seed: int = 0, epoch: int = 0, start: int = 0
    ) -> tf.data.Dataset:
        ds = super().dataset(shuffle=shuffle, seed=seed, epoch=epoch, start=start)
        return self._mapped(ds, seed, epoch, start)

    def limited(self, n: int) -> Stream:
        if n not in self._limited:
            self._limited[n] = StepStream(self.inner.limited(n), self.chain)
        return self._limited[n]

    def sharded(self, num_workers: int, index: int) -> Stream:
        if int(num_workers) == 1:
            return self
        return StepStream(self.inner.sharded(num_workers, index), self.chain)


def with_steps(data: Any, steps: Sequence[Mapping[str, Any]] | None, owner: str) -> Any:
    """``data`` (a file dataset's ``DataSplits`` of streams) with ``steps`` run in the
    graph of each split (random steps on ``train`` only), recorded in ``data.steps`` and,
    as their inference form on the input field, in ``data.preprocess`` (what ``predict``
    applies). A step without a TensorFlow form raises ``StepsError`` naming it."""
    if not steps:
        return data
    given = Pipeline(steps, workers=0).to_config()  # checked as a config's steps are
    chain = _Chain(given, owner)
    data.train = StepStream(data.train, chain)
    if isinstance(data.valid, Stream):
        data.valid = StepStream(data.valid, chain.inference)
    data.steps = list(given)
    fields = list(data.info.get("fields") or [None])  # image_folder's input field first
    data.preprocess = [*data.preprocess, *predict_steps(given, fields[0])]
    if "x_shape" in data.info and fields[0] in data.train.element_spec:
        data.info["x_shape"] = data.train.element_spec[fields[0]].shape.as_list()
    return data
