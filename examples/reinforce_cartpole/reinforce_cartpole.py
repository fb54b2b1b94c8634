"""REINFORCE (Williams, 1992) on CartPole, with the environment written in numpy from its
published equations (Barto, Sutton & Anderson, 1983; the corrected form of Florian, 2007,
as Gym's CartPole-v1 uses): no gym needed.

The policy is a tensorweave graph (4 observations -> 2 action logits); a batch of
environments runs side by side, one policy call per time step; the update
``-mean(log pi(a_t | s_t) * G_t)`` (returns ``G_t`` discounted and normalised, the
mean as baseline) is one ``tw.compile``'d step. Run it:
``python examples/reinforce_cartpole/reinforce_cartpole.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
import tensorweave_train as twt

GRAVITY, CART_MASS, POLE_MASS, HALF_POLE, FORCE, TAU = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
X_LIMIT, THETA_LIMIT, MAX_STEPS = 2.4, 12 * 2 * np.pi / 360, 500


class CartPoles:
    """``n`` CartPole-v1 environments stepped together (Euler steps of 0.02 s)."""

    def __init__(self, n: int, rng: np.random.Generator) -> None:
        self.state = rng.uniform(-0.05, 0.05, size=(n, 4))

    def step(self, push_right: np.ndarray) -> np.ndarray:
        """Apply the actions; returns which environments are done (fell or left the track)."""
        x, x_dot, theta, theta_dot = self.state.T
        force = np.where(push_right == 1, FORCE, -FORCE)
        cos, sin = np.cos(theta), np.sin(theta)
        total = CART_MASS + POLE_MASS
        temp = (force + POLE_MASS * HALF_POLE * theta_dot**2 * sin) / total
        theta_acc = (GRAVITY * sin - cos * temp) / (
            HALF_POLE * (4.0 / 3.0 - POLE_MASS * cos**2 / total)
        )
        x_acc = temp - POLE_MASS * HALF_POLE * theta_acc * cos / total
        self.state = np.stack(
            [
                x + TAU * x_dot,
                x_dot + TAU * x_acc,
                theta + TAU * theta_dot,
                theta_dot + TAU * theta_acc,
            ],
            axis=1,
        )
        return (np.abs(self.state[:, 0]) > X_LIMIT) | (np.abs(self.state[:, 2]) > THETA_LIMIT)


def discounted(rewards: np.ndarray, gamma: float) -> np.ndarray:
    """``G_t = r_t + gamma * G_{t+1}`` along the time axis (axis 0)."""
    returns = np.zeros_like(rewards)
    running = np.zeros(rewards.shape[1:], rewards.dtype)
    for t in range(len(rewards) - 1, -1, -1):
        running = rewards[t] + gamma * running
        returns[t] = running
    return returns


def play(
    policy: Callable[[np.ndarray], np.ndarray],
    episodes: int,
    rng: np.random.Generator,
    gamma: float,
    max_steps: int = MAX_STEPS,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Run ``episodes`` episodes side by side, sampling actions from ``policy`` (states to
    2 logits); returns every step's state, action and normalised discounted return, and
    the mean episode length."""
    envs = CartPoles(episodes, rng)
    states, actions, alive = [], [], []
    running = np.ones(episodes, bool)
    for _ in range(max_steps):
        state = envs.state.astype("float32")
        z = policy(state).astype("float64")
        p_right = 1.0 / (1.0 + np.exp(z[:, 0] - z[:, 1]))
        action = (rng.random(episodes) < p_right).astype("int32")
        states.append(state)
        actions.append(action)
        alive.append(running.copy())
        running &= ~envs.step(action)
        if not running.any():
            break
    mask = np.array(alive)  # [time, episodes]: steps taken before each episode ended
    returns = discounted(mask.astype("float32"), gamma)[mask]
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    lengths = float(mask.sum(0).mean())
    return np.array(states)[mask], np.array(actions)[mask], returns.astype("float32"), lengths


def main(
    updates: int = 60,
    episodes: int = 16,
    hidden: int = 32,
    learning_rate: float = 0.01,
    gamma: float = 0.99,
    max_steps: int = MAX_STEPS,
    seed: int = 0,
) -> dict[str, Any]:
    """Train; returns the mean return of the last 5 updates' episodes and the time."""
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    tf.random.set_seed(seed)
    obs = tw.Input(n_units=4, name="obs")
    h = tw.layers["FC.v1"](obs, n_units=hidden, activation="relu")
    logits = tw.layers["Linear.v1"](h, n_units=2)
    policy = tw.compile(logits)
    variables = logits.graph.trainable_variables
    optimizer = twt.Adam(learning_rate)

    def update(states: tf.Tensor, actions: tf.Tensor, returns: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            log_probs = tf.nn.log_softmax(logits.graph.run(states))
            taken = tf.gather(log_probs, actions, batch_dims=1)
            loss = -tf.reduce_mean(taken * returns)
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss

    step = tw.compile(
        logits.graph,
        body=update,
        input_signature=[
            tf.TensorSpec([None, 4], tf.float32),
            tf.TensorSpec([None], tf.int32),
            tf.TensorSpec([None], tf.float32),
        ],
    )
    history: list[float] = []
    for _ in range(updates):
        batch = play(lambda state: np.asarray(policy(state)), episodes, rng, gamma, max_steps)
        step(*batch[:3])
        history.append(batch[3])
    return {
        "mean_return_last_5_updates": float(np.mean(history[-5:])),
        "episodes": updates * episodes,
        "seconds": time.perf_counter() - start,
    }


if __name__ == "__main__":
    print(main())
