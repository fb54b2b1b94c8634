"""Adapting a job's preprocessing layers on its training split, before training (issue #36).

Every layer of the model that learns state by ``adapt`` (``Normalization.v1``,
``Discretization.v1``, ``StringLookup.v1``, ``IntegerLookup.v1``, ``TextVectorization.v1``)
and whose state the config does not give (its ``adapt`` option: by default, when no
``mean=``/``variance=``, ``bin_boundaries=`` or ``vocabulary=`` is given) is adapted on the
job's **training** split (never the validation split), as the layer's own ``adapt`` would:

- the split is streamed once, in batches of ``BATCH`` examples in its stored order (arrays
  and ``tensorweave_data`` streams alike: one batch at a time, never whole), and each batch
  goes through the model's inference graph up to each layer's input (so a layer behind a
  ``Reshape`` or a ``Concat`` adapts on what it is fed; augmentation is off), then into each
  layer's running state (its ``adapter()``);
- the layers that sit behind another adapted layer are adapted in a second pass, after it;
- one progress line says what is adapted on what, and how long it took.

The state lives in the layers' variables, so the run's checkpoints carry it and a resumed
run restores it (it is not adapted again). What was adapted on is written to
``adapted.json`` in the run directory and copied into ``summary.json`` under ``"adapted"``:
the dataset, the split, the number of examples and, per layer, what it learned (the mean and
variance, the bin edges, the vocabulary's size and first tokens).

A layer is adaptable when it has ``adapter()`` and ``adapt_from_config`` (the protocol of
``tensorweave_layers.preprocessing``); any pack's layer may implement it.

>>> adaptable_layers(None)
[]
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

import tensorweave as tw

__all__ = ["ADAPTED", "BATCH", "adapt_job", "adaptable_layers", "adapted_record", "dataset_name"]

#: the file of the run directory that records what was adapted on
ADAPTED = "adapted.json"
#: examples per batch of the adapting pass
BATCH = 1024


def _wants(node: Any) -> bool:
    return callable(getattr(node, "adapter", None)) and bool(
        getattr(node, "adapt_from_config", False)
    )


def adaptable_layers(model: Any) -> list[tw.Layer]:
    """The layers of ``model``'s inference graph to adapt, each state once, in graph order."""
    if model is None:
        return []
    seen: set[int] = set()
    out = []
    graph = getattr(model, "inference_graph", None)  # a model of its own may have none
    nodes = graph.nodes if graph is not None else getattr(model, "layers", ())
    for node in nodes:
        if _wants(node) and id(node.state) not in seen:
            seen.add(id(node.state))
            out.append(node)
    return out


def _config_name(model: Any, layer: tw.Layer) -> str:
    """The name of the config's node for ``layer`` (the first node sharing its state)."""
    for node in model.layers:
        if node.state is layer.state:
            return str(node.name)
    return str(layer.name)


def _levels(layers: list[tw.Layer]) -> list[list[tw.Layer]]:
    """``layers`` in passes: each layer after every adaptable layer upstream of it."""
    remaining, levels = list(layers), []
    while remaining:
        ids = {id(layer) for layer in remaining}
        level = []
        for layer in remaining:
            upstream = tw.Graph.build(inputs=None, outputs=[layer.inputs[0]]).nodes
            if not any(id(n) in ids and n is not layer for n in upstream):
                level.append(layer)
        levels.append(level)
        remaining = [r for r in remaining if all(r is not x for x in level)]
    return levels


def _values(tensor: Any) -> np.ndarray:
    return tensor.numpy() if hasattr(tensor, "numpy") else np.asarray(tensor)


def _pass(model: Any, train: Mapping[str, Any], level: list[tw.Layer]) -> None:
    """One streaming pass over ``train`` adapting every layer of ``level``."""
    graph = tw.Graph.build(inputs=None, outputs=[layer.inputs[0] for layer in level])
    feeds = list(model.feeds)
    positions = []
    for entry in graph.inputs:
        where = [i for i, f in enumerate(feeds) if f is entry]
        if not where:
            raise tw.TensorweaveError(
                f"adapting {level[0].name!r}: its input depends on {entry.name!r}, which is "
                "not an input of the model. Fix: build the layer on the model's inputs."
            )
        positions.append(where[0])
    run = tw.compile(graph, owner="tensorweave train (adapting)")
    adapters = [layer.adapter() for layer in level]
    for batch in model.batches(train, batch_size=BATCH).epoch(0):
        values = run(*[batch[p] for p in positions])
        values = values if len(level) > 1 else (values,)
        for adapter, value in zip(adapters, values, strict=True):
            adapter.update(_values(value))
    for adapter in adapters:
        adapter.finish()


def adapt_job(
    job: Any, dataset: str, out: Callable[[str], None] | None = print
) -> dict[str, Any] | None:
    """Adapt the job's adaptable layers on its training split (see the module); returns
    the record of what was adapted on, or ``None`` when there is nothing to adapt."""
    model = job.model
    layers = adaptable_layers(model)
    if not layers:
        return None
    train = job.split("train")
    examples = len(next(iter(train.values())))
    names = [_config_name(model, layer) for layer in layers]
    if out is not None:
        out(f"adapting {', '.join(names)} on {dataset} train ({examples:,} examples)")
    started = time.perf_counter()
    for level in _levels(layers):
        _pass(model, train, level)
    seconds = time.perf_counter() - started
    if out is not None:
        out(f"  adapted {len(layers)} layer(s) in {seconds:.1f} s")
    return {
        "dataset": dataset,
        "split": "train",
        "examples": examples,
        "seconds": round(seconds, 2),
        "layers": {
            name: {"type": type(layer).__name__, **layer.adapted()}
            for name, layer in zip(names, layers, strict=True)
        },
    }


def dataset_name(config: Mapping[str, Any]) -> str:
    """The ``[data]`` section's registered name (``"table.v1"``), for the record.

    >>> dataset_name({"data": {"@datasets": "digits.v1"}})
    'digits.v1'
    """
    data = config.get("data") or {}
    if isinstance(data, Mapping):
        for key, value in data.items():
            if key.startswith("@"):
                return str(value)
    return "data"


def adapted_record(run_dir: str | Path) -> dict[str, Any]:
    """``{"adapted": record}`` from a run directory's ``adapted.json``, else ``{}``."""
    path = Path(run_dir) / ADAPTED
    if not path.is_file():
        return {}
    return {"adapted": json.loads(path.read_text(encoding="utf-8"))}
