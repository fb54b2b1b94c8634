"""The gallery's REINFORCE on CartPole (examples/reinforce_cartpole): the numpy
environment against its equations, and two policy updates of short episodes."""

from __future__ import annotations

import numpy as np

from tests.examples.gallery import script


def test_cartpole_falls_when_pushed_one_way() -> None:
    cartpole = script("reinforce_cartpole/reinforce_cartpole.py")
    envs = cartpole.CartPoles(2, np.random.default_rng(0))
    envs.state[:] = 0.0
    done = envs.step(np.array([1, 0]))
    # from rest, F = +-10 N: theta'' = -(F / 1.1) / (0.5 * (4/3 - 0.1 / 1.1)), x'' = F / 1.1
    # - 0.05 * theta'' / 1.1; one Euler step of 0.02 s moves only the velocities
    theta_acc = -(10 / 1.1) / (0.5 * (4 / 3 - 0.1 / 1.1))
    x_acc = 10 / 1.1 - 0.05 * theta_acc / 1.1
    np.testing.assert_allclose(envs.state[0], [0.0, 0.02 * x_acc, 0.0, 0.02 * theta_acc])
    np.testing.assert_allclose(envs.state[1], -envs.state[0])
    assert not done.any()
    for _ in range(200):
        done = envs.step(np.array([1, 1]))
        if done.all():
            break
    assert done.all()


def test_discounted_returns() -> None:
    cartpole = script("reinforce_cartpole/reinforce_cartpole.py")
    got = cartpole.discounted(np.ones((3, 1), "float32"), 0.5)
    np.testing.assert_allclose(got[:, 0], [1.75, 1.5, 1.0])


def test_reinforce_cartpole_script_runs_two_updates() -> None:
    cartpole = script("reinforce_cartpole/reinforce_cartpole.py")
    figures = cartpole.main(updates=2, episodes=4, max_steps=30)
    assert 1.0 <= figures["mean_return_last_5_updates"] <= 30.0
    assert figures["episodes"] == 8
