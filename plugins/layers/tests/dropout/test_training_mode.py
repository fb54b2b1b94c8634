"""The ``training`` switch across layers: a small CNN with BatchNorm, Dropout and DropConnect
trains, and its inference copy (``tw.Module.reuse_with(..., training=False)``) is
deterministic."""

import numpy as np
import tensorflow as tf

import tensorweave as tw


def test_small_cnn_learns_and_inference_copy_is_deterministic():
    tf.random.set_seed(0)
    rng = np.random.default_rng(0)
    labels = (rng.random((64, 1)) > 0.5).astype("float32")  # 1: a noisy image, 0: a quiet one
    scale = np.where(labels, 1.5, 0.3)[:, :, None, None]
    images = (rng.standard_normal((64, 8, 8, 1)) * scale).astype("float32")

    img = tw.Input(shape=(8, 8, 1), name="img")
    h = tw.layers["Conv2D.v1"](img, n_units=8, kernel_size=3, padding="same")
    h = tw.ops.relu(tw.layers["BatchNorm.v1"](h, momentum=0.8))  # few steps: fast stats
    h = tw.layers["MaxPool2D.v1"](h, 2)
    h = tw.layers["Dropout.v1"](tw.layers["GlobalAvgPool.v1"](h), rate=0.1)
    logits = tw.layers["DropConnect.v1"](h, n_units=1, rate=0.1)
    model = tw.Module(img, logits)
    run = tw.compile(model)
    variables = model.trainable_variables
    optimizer_lr = 0.2

    def loss_now(fn):
        return float(tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels, fn(images))))

    infer_model = model.reuse_with(tw.Input(shape=(8, 8, 1)), training=False)
    infer = tw.compile(infer_model)
    before = loss_now(infer)
    for _ in range(30):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels, run(images)))
        for v, g in zip(variables, tape.gradient(loss, variables)):
            v.assign_sub(optimizer_lr * g)
    after = loss_now(infer)
    assert after < 0.6 * before, (before, after)
    np.testing.assert_array_equal(infer(images).numpy(), infer(images).numpy())
    accuracy = ((infer(images).numpy() > 0) == (labels > 0.5)).mean()
    assert accuracy > 0.8, accuracy
