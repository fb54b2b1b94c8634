"""The gallery's REINFORCE on CartPole in Keras 3 (TensorFlow backend): the same numpy
environment and episode runner (``play``, imported from the tensorweave example: they are
not the model), a Keras policy, the update in a tf.function."""

import sys
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reinforce_cartpole"))
from reinforce_cartpole import play

EPISODES, UPDATES, GAMMA = 16, 60, 0.99
rng = np.random.default_rng(0)
policy = keras.Sequential(
    [keras.Input(shape=(4,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(2)]
)
optimizer = keras.optimizers.Adam(0.01)


@tf.function
def update(states, actions, returns):
    with tf.GradientTape() as tape:
        log_probs = tf.nn.log_softmax(policy(states))
        loss = -tf.reduce_mean(tf.gather(log_probs, actions, batch_dims=1) * returns)
    optimizer.apply_gradients(
        zip(tape.gradient(loss, policy.trainable_weights), policy.trainable_weights)
    )


@tf.function
def act(states):
    return policy(states)


for _ in range(UPDATES):
    states, actions, returns, length = play(lambda s: act(s).numpy(), EPISODES, rng, GAMMA)
    update(states, actions, returns)
    print(length)
