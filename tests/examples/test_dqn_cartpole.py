"""The gallery's DQN on CartPole (examples/dqn_cartpole): the replay buffer, the
environments feeding it, and a short run with a few updates."""

from __future__ import annotations

import numpy as np

from tests.examples.gallery import script


def test_replay_keeps_the_last_transitions_in_a_ring() -> None:
    dqn = script("dqn_cartpole/dqn_cartpole.py")
    replay = dqn.Replay(3, np.random.default_rng(0))
    for first in (0, 2):
        rows = np.arange(first, first + 2)
        states = np.repeat(rows[:, None], 4, axis=1)
        replay.add(states, rows, rows, states + 1, rows % 2)
    assert replay.size == 3 and replay.at == 1
    np.testing.assert_array_equal(replay.columns[1], [3, 1, 2])  # row 0 overwritten by 3
    states, actions, rewards, next_states, fell = replay.sample(50)
    assert set(actions) == {1, 2, 3}
    np.testing.assert_array_equal(states[:, 0], actions)
    np.testing.assert_array_equal(rewards, actions)
    np.testing.assert_array_equal(next_states[:, 0], actions + 1)
    np.testing.assert_array_equal(fell, actions % 2)


def test_experience_restarts_ended_episodes_and_keeps_their_returns() -> None:
    dqn = script("dqn_cartpole/dqn_cartpole.py")
    experience = dqn.Experience(2, 1000, np.random.default_rng(0))
    push_right = lambda states: np.tile([0.0, 1.0], (len(states), 1))  # noqa: E731
    for _ in range(100):
        experience.step(push_right, epsilon=0.0)
    assert experience.replay.size == 200
    # always pushed right, the pole falls within a few dozen steps, every time
    assert len(experience.returns) >= 4 and all(8 <= r < 100 for r in experience.returns)
    fell = experience.replay.columns[4][:200]
    assert fell.sum() == len(experience.returns)
    assert (np.abs(experience.envs.state[:, 0]) <= 2.4).all()  # no fallen pole kept
    assert (np.abs(experience.envs.state[:, 2]) <= 12 * np.pi / 180).all()


def test_dqn_cartpole_script_runs_a_few_updates() -> None:
    figures = script("dqn_cartpole/dqn_cartpole.py").main(
        steps=60, warmup=32, batch_size=16, target_every=20, last=4
    )
    assert figures["episodes"] >= 4
    assert 1.0 <= figures["mean_return_last_episodes"] <= 500.0
    assert 1.0 <= figures["mean_greedy_return"] <= 500.0
