"""The streaming-metric base class, as a third-party metric uses it: accumulate, read, reset,
inside tf.function, through a checkpoint."""

import numpy as np
import tensorflow as tf

from tensorweave_losses.streaming.accumulators import StreamingMetric, mean_parts


class RootMeanSquare(StreamingMetric):
    """sqrt(mean(x²)) of everything seen (accumulators: sum of squares, count)."""

    def parts(self, values):
        values = tf.convert_to_tensor(values, tf.float32)
        return tf.reduce_sum(tf.square(values)), tf.cast(tf.size(values), tf.float32)

    def finish(self, squares, count):
        return tf.sqrt(tf.math.divide_no_nan(squares, count))


def test_a_subclass_accumulates_resets_and_compiles():
    metric = RootMeanSquare()
    assert metric.name == "root_mean_square" and not metric.trainable_variables
    update = tf.function(metric.update)
    update(tf.constant([1.0, 3.0]))
    update(tf.constant([2.0, 1.0, 3.0]))
    np.testing.assert_allclose(metric.result(), np.sqrt(24.0 / 5.0), rtol=1e-6)
    metric.reset()
    assert float(metric.result()) == 0.0


def test_mean_parts_weigh_and_count_and_checkpoint(tmp_path):
    total, weight = mean_parts([[1.0, 3.0], [5.0, 7.0]], sample_weight=[1.0, 0.0])
    assert (float(total), float(weight)) == (4.0, 2.0)

    class Mean(StreamingMetric):
        def parts(self, values, *, sample_weight=None):
            return mean_parts(values, sample_weight=sample_weight)

    metric = Mean()
    metric.update([2.0, 4.0])
    path = tf.train.Checkpoint(metric=metric).write(str(tmp_path / "ckpt"))
    metric.update([30.0])
    tf.train.Checkpoint(metric=metric).read(path).assert_consumed()
    np.testing.assert_allclose(metric.result(), 3.0)
