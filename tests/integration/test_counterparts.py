"""The first-party packs' counterpart tables: each row names a registered component, each
``keras=`` counterpart is compared in that pack's tests, and the names people know from
Keras and TensorLayer lead to the component that does their job."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

import tensorweave as tw
from tensorweave.registries.counterparts import counterparts

ROOT = Path(__file__).resolve().parents[2]
PACKS = {
    tomllib.loads(p.read_text())["project"]["name"]: p.parent
    for p in sorted((ROOT / "plugins").glob("*/pyproject.toml"))
}
# Components other branches of this release add (the layers, losses and metrics catalogue);
# rows may name them before they land. Delete an entry once its component is registered.
_ADDED_ELSEWHERE = """
    celu.v1 glu.v1 hard_swish.v1 hard_tanh.v1 log_sigmoid.v1 mish.v1 silu.v1
    max_norm.v1 min_max_norm.v1 non_neg.v1 unit_norm.v1 l1.v1 l1_l2.v1 l2.v1 orthogonal.v1
    lecun_normal.v1 lecun_uniform.v1 truncated_normal.v1 variance_scaling.v1
    AdaptiveAvgPool2D.v1 AdaptiveMaxPool2D.v1 AdditiveAttention.v1 AlphaDropout.v1 Attention.v1
    Average.v1 AvgPool3D.v1 Conv1DTranspose.v1 Conv2DTranspose.v1 Conv3D.v1 Conv3DTranspose.v1
    ConvLSTM2D.v1 Cropping1D.v1 Cropping2D.v1 Cropping3D.v1 DepthToSpace.v1 DepthwiseConv2D.v1
    Dot.v1 EinsumDense.v1 Flatten.v1 GaussianDropout.v1 GaussianNoise.v1 GroupNorm.v1
    GroupQueryAttention.v1 InstanceNorm.v1 MaxPool3D.v1 Maximum.v1 Minimum.v1 PReLU.v1 Pad.v1
    PositionEmbedding.v1 RMSNorm.v1 RepeatVector.v1 Resize.v1 ReversibleEmbedding.v1
    RotaryEmbedding.v1 SeparableConv1D.v1 SeparableConv2D.v1 SinusoidalPositionEmbedding.v1
    SpatialDropout1D.v1 SpatialDropout2D.v1 SpatialDropout3D.v1 SpectralNorm.v1 Subtract.v1
    TransformerDecoderBlock.v1 TransformerEncoderBlock.v1 UpSampling1D.v1 UpSampling2D.v1
    UpSampling3D.v1 ZeroPadding1D.v1 ZeroPadding2D.v1 ZeroPadding3D.v1
    binary_focal_cross_entropy.v1 categorical_focal_cross_entropy.v1 categorical_hinge.v1
    cosine_similarity.v1 ctc.v1 dice.v1 log_cosh.v1 mape.v1 msle.v1 poisson.v1 squared_hinge.v1
    tversky.v1 false_negatives.v1 false_positives.v1 fbeta.v1 iou.v1 mae.v1 mean_iou.v1 mse.v1
    precision_at_recall.v1 r2.v1 recall_at_precision.v1 rmse.v1 true_negatives.v1
    true_positives.v1
"""
NOT_YET_REGISTERED = set(_ADDED_ELSEWHERE.split())
FIRST_PARTY_ROWS = [(dist, row) for dist, row in counterparts() if dist in PACKS]


def _registered(kind: str, name: str) -> bool:
    return kind in tw.kinds() and name in tw.registry(kind)


def test_every_first_party_pack_with_keras_counterparts_declares_a_table():
    declaring = {dist for dist, _ in FIRST_PARTY_ROWS}
    assert {
        "tensorweave-layers",
        "tensorweave-losses",
        "tensorweave-rnn",
        "tensorweave-train",
    } <= declaring


def test_every_row_names_a_registered_component():
    unknown = [
        f"{dist}: {row.kind} {row.component}"
        for dist, row in FIRST_PARTY_ROWS
        if not _registered(row.kind, row.component) and row.component not in NOT_YET_REGISTERED
    ]
    assert unknown == []


def test_every_keras_counterpart_is_compared_in_the_packs_tests():
    untested = []
    for dist, row in FIRST_PARTY_ROWS:
        if not row.keras or not _registered(row.kind, row.component):
            continue
        name = row.keras.rpartition(".")[2]
        tests = PACKS[dist] / "tests"
        if not any(
            "keras" in text and re.search(rf"\b{name}\b", text)
            for text in (p.read_text() for p in tests.glob("test_*.py"))
        ):
            untested.append(f"{row.component}: {row.keras} (no test of {dist} uses it)")
    assert untested == []


@pytest.mark.parametrize(
    ("kind", "asked", "answer"),
    [
        ("layers", "Dense.v1", "in tensorweave: FC.v1 or Linear.v1"),
        ("layers", "Embedding.v1", "in tensorweave: Lookup.v1"),
        ("layers", "LSTM.v1", 'in tensorweave: RNN.v1 with cell="LSTMCell.v1"'),
        ("layers", "BatchNormalization", "in tensorweave: BatchNorm.v1"),
        ("losses", "categorical_crossentropy", "in tensorweave: categorical_cross_entropy.v1"),
        ("callbacks", "TerminateOnNaN", "in tensorweave: StopOnNaN.v1"),
    ],
)
def test_names_people_know_lead_to_the_component(kind, asked, answer):
    with pytest.raises(tw.UnknownComponentError) as caught:
        tw.registry(kind)[asked]
    assert answer in str(caught.value)


@pytest.mark.parametrize(
    ("asked", "answer"),
    [
        ("DeConv2d", "Conv2DTranspose.v1"),
        ("SubpixelConv2d", "DepthToSpace.v1"),
    ],
)
def test_tensorlayer_names_lead_to_the_component_once_it_is_installed(asked, answer):
    if not _registered("layers", answer):
        pytest.skip(f"{answer} is not registered in this environment")
    with pytest.raises(tw.UnknownComponentError, match=re.escape(f"in tensorweave: {answer}")):
        tw.layers[asked]
