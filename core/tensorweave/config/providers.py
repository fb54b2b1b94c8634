"""Which distribution provides a component, for messages and for ``fill``.

``FIRST_PARTY`` maps well-known names of the first-party packs to their distribution, so
a config naming an uninstalled component says what to ``pip install``.

>>> provider_of("cells", "LSTMCell.v1"), provider_of("layers", "tensorweave-layers:Linear.v2")
('tensorweave-rnn', 'tensorweave-layers')
>>> hint_for("layers", "NoSuch.v1") is None
True
"""

from __future__ import annotations

from importlib import metadata

__all__ = ["FIRST_PARTY", "provider_of", "hint_for", "library_versions"]


def _words(text: str) -> list[str]:
    return text.split()


_LAYERS = (
    "Linear Activation Add Concat Multiply Merge Dropout DropConnect DropLookup Lookup "
    "Embedding Conv1D Conv2D MaxPool1D MaxPool2D AvgPool1D AvgPool2D Pooling BatchNorm "
    "LayerNorm Gate Residual Attention MultiHeadAttention FC SeqConcat SeqMap Flatten Reshape"
)
_BY_KIND: dict[str, dict[str, str]] = {
    "layers": {
        **{n: "tensorweave-layers" for n in _words(_LAYERS)},
        "RNN": "tensorweave-rnn",
        "Bidirectional": "tensorweave-rnn",
    },
    "cells": {
        n: "tensorweave-rnn"
        for n in ("RNNCell", "GRUCell", "LSTMCell", "ModuleCell", "StackedCell")
    },
    "losses": {
        n: "tensorweave-losses"
        for n in _words(
            "binary_cross_entropy categorical_cross_entropy sparse_categorical_cross_entropy "
            "mse mae huber hinge kl_divergence sequence_cross_entropy nce sampled_softmax"
        )
    },
    "metrics": {
        n: "tensorweave-losses"
        for n in _words("accuracy sparse_accuracy binary_accuracy top_k_accuracy perplexity auc f1")
    },
    "optimizers": {n: "tensorweave-train" for n in _words("SGD Adam AdamW RMSprop Adagrad")},
    "schedules": {
        n: "tensorweave-train"
        for n in _words("Constant StepDecay ExponentialDecay CosineDecay WarmUp")
    },
    "callbacks": {
        n: "tensorweave-train"
        for n in _words(
            "EarlyStopping StopOnNaN CSVLogger ProgressBar TensorBoard ReduceLROnPlateau "
            "Checkpoint LambdaCallback"
        )
    },
    "trainers": {"Trainer": "tensorweave-train"},
    "datasets": {n: "tensorweave-data" for n in ("digits", "stdlib_chars")},
    "processors": {
        n: "tensorweave-data"
        for n in _words("normalize one_hot tokenize_chars window shuffle flatten cast")
    },
}
FIRST_PARTY: dict[tuple[str, str], str] = {
    (kind, base): dist for kind, names in _BY_KIND.items() for base, dist in names.items()
}


def _base(name: str) -> str:
    name = name.split(":", 1)[-1]
    head, _, tail = name.rpartition(".v")
    return head if head and tail.isdigit() else name


def provider_of(kind: str, name: str) -> str | None:
    """The first-party distribution known to provide ``name`` of ``kind``, if any."""
    return FIRST_PARTY.get((kind, _base(name)))


def hint_for(kind: str, name: str) -> str | None:
    """``"X is provided by DIST: pip install DIST"`` (plus a note if it is installed)."""
    dist = provider_of(kind, name)
    if dist is None:
        return None
    try:
        version = metadata.version(dist)
    except metadata.PackageNotFoundError:
        return f"{name} is provided by {dist}: pip install {dist}"
    return f"{name} is provided by {dist}, which is installed ({version}) but does not offer it"


def library_versions() -> dict[str, object]:
    """tensorweave, tensorflow, python and every plugin distribution, with versions."""
    import platform

    from tensorweave.discovery import CORE_VERSION, catalog

    try:
        tf_version = metadata.version("tensorflow")
    except metadata.PackageNotFoundError:  # pragma: no cover - tensorflow is a dependency
        tf_version = "not installed"
    return {
        "tensorweave": CORE_VERSION,
        "tensorflow": tf_version,
        "python": platform.python_version(),
        "plugins": {name: d.version for name, d in sorted(catalog.distributions().items())},
    }
