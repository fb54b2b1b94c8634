"""The gallery's REINFORCE on CartPole in Keras 3 (TensorFlow backend): the same numpy
environment (imported from the tensorweave example: it is not the model), a Keras policy,
the update in a tf.function."""

import sys
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reinforce_cartpole"))
from reinforce_cartpole import MAX_STEPS, CartPoles, discounted

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
    envs = CartPoles(EPISODES, rng)
    states, actions, alive, running = [], [], [], np.ones(EPISODES, bool)
    for _ in range(MAX_STEPS):
        state = envs.state.astype("float32")
        z = act(state).numpy().astype("float64")
        action = (rng.random(EPISODES) < 1.0 / (1.0 + np.exp(z[:, 0] - z[:, 1]))).astype("int32")
        states.append(state)
        actions.append(action)
        alive.append(running.copy())
        running &= ~envs.step(action)
        if not running.any():
            break
    mask = np.array(alive)
    returns = discounted(mask.astype("float32"), GAMMA)[mask]
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    update(np.array(states)[mask], np.array(actions)[mask], returns.astype("float32"))
    print(mask.sum(0).mean())
