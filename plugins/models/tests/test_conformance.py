"""Every builder through the conformance kit, by registered name, at a tiny size: it builds,
eager equals compiled, a new batch size does not retrace, ``reuse_with`` shares the state
and the output, gradients reach every weight, a checkpoint round-trip restores the outputs,
and it works inside another ``Module``.

Batch norms in training mode normalize a batch of two examples over a 1x1 feature map at
the end of the deep image networks: an ill-conditioned variance that turns float32
rounding differences between eager and compiled kernels into large ones (0.8 for
EfficientNetV2B0; Keras behaves the same). ResNet18 runs in training mode; the other deep
image networks run as their inference networks (``training=False``: the moving
statistics), where eager and compiled agree to 1e-7. The biggest ones, whose blocks other
cases cover, run the checks this file is for (build, eager == compiled, reuse) and skip
the slow rest, each with the case that covers it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorweave as tw
from tensorweave.testing import Case, InputSpec, test_conformance  # noqa: F401

IMAGE = (None, 32, 32, 3)
ids = InputSpec((None, None), dtype="int64", maxval=12)
#: eager vs compiled of a deep network of training-mode batch norms (ResNet18)
DEEP = {"rtol": 1e-4, "atol": 1e-4}
SAMPLED = "z is a random draw in training mode (test_vae checks the deterministic parts)"


def models(name: str) -> str:
    return f"tensorweave-models:{name}"


def inference(name: str) -> Callable[..., tw.Layer]:
    """Build ``name`` by registered name and return its inference network."""

    def build(x: tw.Layer, **options: Any) -> tw.Layer:
        return tw.with_options(tw.models[models(name)](x, **options), training=False)

    return build


def covered_by(case: str, *checks: str) -> dict[str, str]:
    return {check: f"the same blocks as {case}, whose case runs it (kept fast)" for check in checks}


SLOW_CHECKS = ("no_retrace", "gradients", "checkpoint", "in_module")

TENSORWEAVE_CASES = [
    Case(
        models("ResNet18.v1"),
        {"classes": 3, "width": 0.0625},
        inputs=[IMAGE],
        kind="models",
        **DEEP,
    ),
    Case(
        models("ResNet34.v1"),
        {"include_top": False, "pooling": "max", "width": 0.0625},
        inputs=[IMAGE],
        kind="models",
        factory=inference("ResNet34.v1"),
        skip=covered_by("ResNet18", *SLOW_CHECKS),
    ),
    Case(
        models("ResNet50.v1"),
        {"classes": 3, "width": 0.0625},
        inputs=[IMAGE],
        kind="models",
        factory=inference("ResNet50.v1"),
    ),
    Case(
        models("ResNet101.v1"),
        {"include_top": False, "width": 0.03125},
        inputs=[IMAGE],
        kind="models",
        factory=inference("ResNet101.v1"),
        skip=covered_by("ResNet50", *SLOW_CHECKS),
    ),
    Case(
        models("MobileNetV2.v1"),
        {"classes": 3, "alpha": 0.35},
        inputs=[IMAGE],
        kind="models",
        factory=inference("MobileNetV2.v1"),
    ),
    Case(
        models("VGG16.v1"),
        {"classes": 3, "width": 0.0625},
        inputs=[IMAGE],
        kind="models",
        skip=covered_by("ResNet18", "no_retrace", "checkpoint", "in_module"),
    ),
    Case(
        models("ConvNeXtTiny.v1"),
        {"include_top": False, "pooling": "avg"},
        inputs=[IMAGE],
        kind="models",
        skip=covered_by("ResNet18", "no_retrace", "checkpoint", "in_module"),
    ),
    Case(
        models("EfficientNetV2B0.v1"),
        {"classes": 3, "dropout": 0.0, "drop_connect_rate": 0.0},
        inputs=[IMAGE],
        kind="models",
        factory=inference("EfficientNetV2B0.v1"),
        skip=covered_by("MobileNetV2", "no_retrace", "checkpoint", "in_module"),
    ),
    Case(
        models("UNet.v1"),
        {"classes": 2, "width": 0.0625, "depth": 2, "batch_norm": True},
        inputs=[(None, 8, 8, 1)],
        kind="models",
    ),
    Case(
        models("TransformerLM.v1"),
        {"vocab_size": 12, "seq_len": 8, "n_units": 8, "n_heads": 2, "n_layers": 2, "dropout": 0.0},
        inputs=[ids],
        kind="models",
    ),
    Case(
        models("TransformerClassifier.v1"),
        {
            "vocab_size": 12,
            "seq_len": 8,
            "classes": 3,
            "n_units": 8,
            "dropout": 0.0,
            "mask_zero": True,
        },
        inputs=[ids],
        kind="models",
    ),
    Case(
        models("Seq2Seq.v1"),
        {"source_vocab_size": 12, "target_vocab_size": 12, "n_units": 8},
        inputs=[ids, ids],
        kind="models",
    ),
    Case(
        models("Seq2Seq.v1"),
        {
            "source_vocab_size": 12,
            "target_vocab_size": 12,
            "n_units": 8,
            "attention": "bahdanau",
            "cell": "GRUCell.v1",
        },
        inputs=[ids, ids],
        kind="models",
    ),
    Case(
        models("DCGANGenerator.v1"),
        {"image_shape": (8, 8, 1), "width": 0.125},
        inputs=[(None, 16)],
        kind="models",
    ),
    Case(
        models("DCGANDiscriminator.v1"),
        {"width": 0.125, "dropout": 0.0},
        inputs=[(None, 8, 8, 1)],
        kind="models",
    ),
    Case(
        models("VAE.v1"),
        {"latent_dim": 2, "width": 0.25},
        inputs=[(None, 8, 8, 1)],
        kind="models",
        skip={
            "eager_equals_compiled": SAMPLED,
            "reuse_shares_state": SAMPLED,
            "checkpoint": SAMPLED,
            "in_module": SAMPLED,
        },
    ),
]
