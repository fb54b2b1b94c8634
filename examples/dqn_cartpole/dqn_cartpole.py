"""DQN (Mnih et al., 2015) on CartPole, with the numpy environment of the REINFORCE
example (``examples/reinforce_cartpole``: CartPole-v1's published equations, no gym).

A Q network (a tensorweave graph, 4 observations -> one value per action) acts
epsilon-greedily in a few environments side by side; every transition goes to a replay
buffer; each step of the environments trains once on a random minibatch of it: the Huber
loss between ``Q(s, a)`` and ``r + gamma * max_a' Q_target(s', a')`` (no bootstrap past a
fall; a 500-step timeout is not a fall), in one ``tw.compile``'d step; the target network
is a copy of the Q network refreshed every ``target_every`` steps. Run it:
``python examples/dqn_cartpole/dqn_cartpole.py``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
import tensorweave_train as twt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reinforce_cartpole"))
from reinforce_cartpole import MAX_STEPS, CartPoles


class Replay:
    """A ring buffer of the last ``capacity`` transitions (state, action, reward, next
    state, fell), sampled uniformly."""

    def __init__(self, capacity: int, rng: np.random.Generator) -> None:
        self.columns = [np.zeros((capacity, 4), "float32"), np.zeros(capacity, "int32")]
        self.columns += [np.zeros(capacity, "float32"), np.zeros((capacity, 4), "float32")]
        self.columns += [np.zeros(capacity, "float32")]
        self.capacity, self.size, self.at, self.rng = capacity, 0, 0, rng

    def add(self, *transitions: np.ndarray) -> None:
        """Add a batch of transitions (one array per column, as many rows each)."""
        rows = (self.at + np.arange(len(transitions[0]))) % self.capacity
        for column, values in zip(self.columns, transitions, strict=True):
            column[rows] = values
        self.at = int(rows[-1] + 1) % self.capacity
        self.size = min(self.size + len(rows), self.capacity)

    def sample(self, n: int) -> list[np.ndarray]:
        rows = self.rng.integers(0, self.size, n)
        return [column[rows] for column in self.columns]


class Experience:
    """``n`` environments side by side feeding a replay buffer: ``step(q, epsilon)`` acts
    epsilon-greedily on the action values ``q(states)``, stores the transitions, restarts
    the episodes that ended (a fall or the 500-step timeout) and keeps their returns."""

    def __init__(self, n: int, capacity: int, rng: np.random.Generator) -> None:
        self.envs, self.replay, self.rng = CartPoles(n, rng), Replay(capacity, rng), rng
        self.lengths, self.returns = np.zeros(n, int), list[float]()

    def step(self, q: Callable[[np.ndarray], Any], epsilon: float) -> None:
        state, n = self.envs.state.astype("float32"), len(self.lengths)
        action = np.asarray(q(state)).argmax(1)
        action = np.where(self.rng.random(n) < epsilon, self.rng.integers(0, 2, n), action)
        fell = self.envs.step(action)
        self.lengths += 1
        self.replay.add(state, action, np.ones(n), self.envs.state, fell)
        done = fell | (self.lengths >= MAX_STEPS)
        self.returns += self.lengths[done].tolist()
        self.lengths[done] = 0
        self.envs.state[done] = self.rng.uniform(-0.05, 0.05, (int(done.sum()), 4))


def q_network(hidden: int) -> tw.Layer:
    """A fresh Q network: 4 observations -> 2 action values."""
    obs = tw.Input(shape=(4,), name="obs")
    h = tw.layers["FC.v1"](obs, n_units=hidden, activation="relu")
    h = tw.layers["FC.v1"](h, n_units=hidden, activation="relu")
    values: tw.Layer = tw.layers["Linear.v1"](h, n_units=2)
    return values


def greedy_returns(
    q: Callable[[np.ndarray], Any], episodes: int, rng: np.random.Generator
) -> np.ndarray:
    """The returns of ``episodes`` greedy episodes (run side by side)."""
    envs, alive = CartPoles(episodes, rng), np.ones(episodes, bool)
    lengths = np.zeros(episodes)
    for _ in range(MAX_STEPS):
        lengths += alive
        alive &= ~envs.step(np.asarray(q(envs.state.astype("float32"))).argmax(1))
        if not alive.any():
            break
    return lengths


def main(
    steps: int = 15_000,
    envs: int = 4,
    hidden: int = 128,
    learning_rate: float = 1e-3,
    gamma: float = 0.99,
    batch_size: int = 64,
    capacity: int = 100_000,
    warmup: int = 1_000,
    target_every: int = 50,
    explore_steps: int = 3_000,
    last: int = 20,
    seed: int = 0,
) -> dict[str, Any]:
    """Train ``steps`` steps of ``envs`` environments (one update each); returns the mean
    return of the last ``last`` training episodes and of ``last`` greedy episodes."""
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    tf.random.set_seed(seed)
    online, target = q_network(hidden), q_network(hidden)
    variables = online.graph.trainable_variables
    optimizer = twt.Adam(learning_rate)
    act = tw.compile(online)

    def update(s: tf.Tensor, a: tf.Tensor, r: tf.Tensor, s2: tf.Tensor, fell: tf.Tensor) -> Any:
        goal = r + gamma * (1.0 - fell) * tf.reduce_max(target.graph.run(s2), axis=1)
        with tf.GradientTape() as tape:
            taken = tf.gather(online.graph.run(s), a, batch_dims=1)
            loss = tw.losses["huber.v1"](goal[:, None], taken[:, None])
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss

    vector, scalar = tf.TensorSpec([None, 4], tf.float32), tf.TensorSpec([None], tf.float32)
    signature = [vector, tf.TensorSpec([None], tf.int32), scalar, vector, scalar]
    train = tw.compile(online, body=update, input_signature=signature)
    experience = Experience(envs, capacity, rng)
    for step in range(steps):
        experience.step(act, max(0.05, 1.0 - 0.95 * step / explore_steps))
        if experience.replay.size >= warmup:
            train(*experience.replay.sample(batch_size))
        if step % target_every == 0:
            for mine, copy in zip(variables, target.graph.trainable_variables, strict=True):
                copy.assign(mine)
    returns = experience.returns
    return {
        "mean_return_last_episodes": float(np.mean(returns[-last:])),
        "mean_greedy_return": float(greedy_returns(act, last, rng).mean()),
        "episodes": len(returns),
        "seconds": time.perf_counter() - start,
    }


if __name__ == "__main__":
    print(main())
