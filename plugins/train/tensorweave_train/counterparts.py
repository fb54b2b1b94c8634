"""The names people know from Keras 3, and this pack's optimizer, schedule or callback for each.

Read by tensorweave only when a lookup fails (``TerminateOnNaN`` -> ``StopOnNaN.v1``) or
``tensorweave describe`` asks; declared in ``pyproject.toml`` (``tensorweave.counterparts``).
``keras=`` names the Keras 3 API a component's parity test compares it with; ``also=`` names
others that mean the same. Light on purpose: no TensorFlow.

>>> sorted({row.kind for row in COUNTERPARTS})
['callbacks', 'optimizers', 'schedules']
"""

from __future__ import annotations

import tensorweave as tw

__all__ = ["COUNTERPARTS"]


def _optimizer(component: str, keras: str) -> tw.Counterpart:
    return tw.Counterpart(component, keras=f"keras.optimizers.{keras}", kind="optimizers")


def _schedule(component: str, keras: str) -> tw.Counterpart:
    return tw.Counterpart(component, keras=f"keras.optimizers.schedules.{keras}", kind="schedules")


def _callback(component: str, keras: str) -> tw.Counterpart:
    return tw.Counterpart(component, also=(f"keras.callbacks.{keras}",), kind="callbacks")


COUNTERPARTS = (
    _optimizer("SGD.v1", "SGD"),
    _optimizer("Adam.v1", "Adam"),
    _optimizer("AdamW.v1", "AdamW"),
    _optimizer("RMSprop.v1", "RMSprop"),
    _optimizer("Adagrad.v1", "Adagrad"),
    _optimizer("Nadam.v1", "Nadam"),
    _optimizer("Adamax.v1", "Adamax"),
    _optimizer("Adadelta.v1", "Adadelta"),
    _optimizer("Ftrl.v1", "Ftrl"),
    _optimizer("Lion.v1", "Lion"),
    _optimizer("Lamb.v1", "Lamb"),
    _optimizer("Adafactor.v1", "Adafactor"),
    tw.Counterpart(
        "ExponentialDecay.v1", keras="keras.optimizers.schedules.ExponentialDecay", kind="schedules"
    ),
    tw.Counterpart(
        "CosineDecay.v1", keras="keras.optimizers.schedules.CosineDecay", kind="schedules"
    ),
    _schedule("PolynomialDecay.v1", "PolynomialDecay"),
    _schedule("PiecewiseConstant.v1", "PiecewiseConstantDecay"),
    _schedule("CosineDecayRestarts.v1", "CosineDecayRestarts"),
    _schedule("InverseTimeDecay.v1", "InverseTimeDecay"),
    tw.Counterpart("OneCycle.v1", also=("torch.optim.lr_scheduler.OneCycleLR",), kind="schedules"),
    _callback("EarlyStopping.v1", "EarlyStopping"),
    _callback("CSVLogger.v1", "CSVLogger"),
    _callback("TensorBoard.v1", "TensorBoard"),
    _callback("ReduceLROnPlateau.v1", "ReduceLROnPlateau"),
    _callback("Checkpoint.v1", "ModelCheckpoint"),
    _callback("StopOnNaN.v1", "TerminateOnNaN"),
    _callback("LambdaCallback.v1", "LambdaCallback"),
    _callback("ProgressBar.v1", "ProgbarLogger"),
    _callback("SwapEMAWeights.v1", "SwapEMAWeights"),
    tw.Counterpart(
        "LearningRateScheduler.v1",
        keras="keras.callbacks.LearningRateScheduler",
        kind="callbacks",
    ),
)
