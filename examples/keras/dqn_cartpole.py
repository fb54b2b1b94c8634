"""The gallery's DQN on CartPole in Keras 3 (TensorFlow backend): the same numpy
environments and replay buffer (``Experience``, imported from the tensorweave example, and
its greedy evaluation: they are not the model), a Keras Q network and its target copy, the
update in a tf.function."""

import sys
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "dqn_cartpole"))
from dqn_cartpole import Experience, greedy_returns

STEPS, GAMMA, BATCH, WARMUP, TARGET_EVERY, EXPLORE = 15_000, 0.99, 64, 1_000, 50, 3_000
rng = np.random.default_rng(0)
keras.utils.set_random_seed(0)


def q_network():
    return keras.Sequential(
        [
            keras.Input(shape=(4,)),
            keras.layers.Dense(128, activation="relu"),
            keras.layers.Dense(128, activation="relu"),
            keras.layers.Dense(2),
        ]
    )


online, target = q_network(), q_network()
optimizer = keras.optimizers.Adam(1e-3)
huber = keras.losses.Huber()


@tf.function
def update(s, a, r, s2, fell):
    goal = r + GAMMA * (1.0 - fell) * tf.reduce_max(target(s2), axis=1)
    with tf.GradientTape() as tape:
        loss = huber(goal, tf.gather(online(s), a, batch_dims=1))
    grads = tape.gradient(loss, online.trainable_weights)
    optimizer.apply_gradients(zip(grads, online.trainable_weights))


@tf.function
def act(s):
    return online(s)


experience = Experience(4, 100_000, rng)
for step in range(STEPS):
    experience.step(lambda s: act(s).numpy(), max(0.05, 1.0 - 0.95 * step / EXPLORE))
    if experience.replay.size >= WARMUP:
        update(*experience.replay.sample(BATCH))
    if step % TARGET_EVERY == 0:
        target.set_weights(online.get_weights())
print("last 20 episodes", np.mean(experience.returns[-20:]))
print("greedy", greedy_returns(lambda s: act(s).numpy(), 20, rng).mean())
