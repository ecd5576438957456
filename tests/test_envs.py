"""The reinforcement-learning environments (gammon.envs, docs/envs.md): Gymnasium's and
PettingZoo's own checkers, the vector env against the single env, the rewards of money
games and matches, the cube and the variants' actions through the actions, illegal
actions, the search helpers, and the shipped net through the env against ``gammon match``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium", reason="the environments need gymnasium (gammon[envs])")

import gammon.envs  # noqa: E402,F401  (registers the ids)
from gammon.engine.dice import DiceTable  # noqa: E402
from gammon.engine.movegen import legal_plays  # noqa: E402
from gammon.envs import BackgammonEnv, BackgammonVectorEnv, BotAgent, search  # noqa: E402
from gammon.envs.actions import (DOUBLE, FIRST_VARIANT_ACTION, NO_PLAY, PASS, ROLL,  # noqa: E402
                                 STEP_ACTIONS, TAKE, action_name)
from gammon.envs.dice import TableDice  # noqa: E402

ID = "gammon/Backgammon-v0"


def pick(rng: np.random.Generator, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("kwargs", [{}, {"cube": True}, {"match_length": 5},
                                    {"variant": "nackgammon"},
                                    {"variant": "nuclear", "cube": True},
                                    {"variant": "plakoto", "opponent": "random"}])
def test_gymnasium_check_env_passes_without_a_warning(kwargs):
    from gymnasium.utils.env_checker import check_env
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gym.make(ID, **kwargs).unwrapped)
    assert [str(w.message) for w in caught] == []


def test_the_ids_and_the_vector_entry_point():
    env = gym.make("gammon/BackgammonMatch-v0")
    assert env.unwrapped.games.length == 7 and env.unwrapped.cube_rules is not None
    vec = gym.make_vec(ID, num_envs=3, vectorization_mode="vector_entry_point", cube=True)
    assert isinstance(vec.unwrapped, BackgammonVectorEnv) and vec.num_envs == 3
    assert vec.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    obs, info = vec.reset(seed=1)
    assert obs.shape == (3, vec.single_observation_space.shape[0])
    assert info["action_mask"].shape == (3, vec.single_action_space.n)
    assert info["action_mask"].dtype == np.int8


@pytest.mark.parametrize("kwargs", [{}, {"cube": True}, {"match_length": 3},
                                    {"variant": "nuclear", "cube": True}])
def test_pettingzoo_api_test_passes(kwargs):
    pytest.importorskip("pettingzoo", reason="the AEC env needs pettingzoo (gammon[envs])")
    from pettingzoo.test import api_test
    from gammon.envs import backgammon_v0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its notes on Dict observations, as for chess
        api_test(backgammon_v0.env(**kwargs), num_cycles=300)


def test_pettingzoo_games_are_zero_sum_and_fair():
    pytest.importorskip("pettingzoo", reason="the AEC env needs pettingzoo (gammon[envs])")
    from gammon.envs import backgammon_v0
    env = backgammon_v0.env()
    rng = np.random.default_rng(5)
    totals = np.zeros(2)
    for game in range(20):
        env.reset(seed=game)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            totals[int(agent[-1])] += reward
            env.step(None if term or trunc else pick(rng, obs["action_mask"]))
    assert totals.sum() == 0 and totals.any()


def test_the_vector_env_and_the_single_env_play_the_same_games():
    n = 6
    table = DiceTable(np.random.default_rng(3), n)
    vec = BackgammonVectorEnv(n, opponent="pubeval", cube=True, dice=TableDice(table),
                              autoreset_mode="Disabled")
    obs, info = vec.reset(seed=0)
    rngs = [np.random.default_rng(100 + i) for i in range(n)]
    vec_log = [[] for _ in range(n)]
    done = np.zeros(n, dtype=bool)
    while not done.all():
        actions = np.array([pick(rngs[i], info["action_mask"][i]) if not done[i] else ROLL
                            for i in range(n)])
        for i in np.flatnonzero(~done):
            vec_log[i].append((obs[i].copy(), int(actions[i])))
        obs, reward, term, _, info = vec.step(actions)
        for i in np.flatnonzero(~done):
            vec_log[i].append(float(reward[i]))
        done |= term
    for i in range(n):
        env = BackgammonEnv(opponent="pubeval", cube=True, dice=TableDice(table, offset=i))
        obs, info = env.reset(seed=0)
        rng, log, over = np.random.default_rng(100 + i), [], False
        while not over:
            action = pick(rng, info["action_mask"])
            log.append((obs.copy(), action))
            obs, reward, over, _, info = env.step(action)
            log.append(float(reward))
        assert len(log) == len(vec_log[i])
        for a, b in zip(log, vec_log[i]):
            if isinstance(a, float):
                assert a == b
            else:
                assert a[1] == b[1] and np.array_equal(a[0], b[0])
        assert log[-1] == info["points"] != 0


def test_next_step_autoreset_starts_a_new_episode_on_the_step_after():
    vec = BackgammonVectorEnv(16, opponent="random")
    obs, info = vec.reset(seed=4)
    rng = np.random.default_rng(0)
    ended, finished = np.zeros(16, dtype=bool), 0
    for _ in range(400):
        actions = np.array([pick(rng, m) if m.any() else 0 for m in info["action_mask"]])
        obs, reward, term, trunc, info = vec.step(actions)
        assert not trunc.any()
        restarted = ended & ~term
        assert (reward[restarted] == 0).all()
        assert info["action_mask"][restarted].any(axis=1).all()  # a new game's decision
        assert not info["action_mask"][term].any()  # an episode over has no legal action
        assert (reward[term] == info["points"][term]).all() and (reward[term] != 0).all()
        ended, finished = term, finished + int(term.sum())
    assert finished > 16


def test_same_step_autoreset_returns_the_final_observation_in_info():
    vec = BackgammonVectorEnv(8, opponent="random", autoreset_mode="SameStep")
    obs, info = vec.reset(seed=6)
    rng = np.random.default_rng(1)
    finals = 0
    for _ in range(300):
        obs, reward, term, _, info = vec.step(
            np.array([pick(rng, m) for m in info["action_mask"]]))
        assert info["action_mask"].any(axis=1).all()  # every game is at a decision
        if term.any():
            assert (info["_final_obs"] == term).all() and (reward[term] != 0).all()
            finals += int(term.sum())
    assert finals > 0


def test_a_match_is_one_episode_scored_in_match_winning_chance():
    env = BackgammonEnv(opponent="random", match_length=3)
    for seed in range(4):
        obs, info = env.reset(seed=seed)
        rng, total, over, rewards = np.random.default_rng(seed), 0.0, False, []
        while not over:
            obs, reward, over, _, info = env.step(pick(rng, info["action_mask"]))
            total += reward
            if reward:
                rewards.append(reward)
        scores = env.games.scores.matches.score[0]
        won = scores[0] >= 3
        assert max(scores) >= 3 and min(scores) < 3
        assert total == pytest.approx((1.0 if won else 0.0) - 0.5)
        assert len(rewards) == env.games.games[0]  # one reward per game


def test_money_rewards_are_the_points_times_the_cube_from_the_agents_side():
    vec = BackgammonVectorEnv(64, opponent="pubeval", cube=True)
    obs, info = vec.reset(seed=9)
    rng = np.random.default_rng(2)
    seen = set()
    results = []
    for _ in range(300):
        masks = info["action_mask"]
        seen |= {a for a in (DOUBLE, TAKE, PASS) if masks[:, a].any()}
        actions = np.array([pick(rng, m) if m.any() else 0 for m in masks])
        obs, reward, term, _, info = vec.step(actions)
        results += [(float(r), int(v)) for r, v in zip(reward[term],
                                                       vec.games.state.cube.value[term])]
    assert {DOUBLE, TAKE, PASS} <= seen  # the agent doubled and was doubled
    assert results and all(r != 0 and abs(r) % v == 0 and abs(r) <= 3 * v
                           for r, v in results)


def test_nuclear_offers_its_detonation_as_an_action():
    env = BackgammonEnv(opponent="random", variant="nuclear")
    detonate = FIRST_VARIANT_ACTION
    assert action_name(detonate, env.rules) == "detonate"
    rng = np.random.default_rng(3)
    obs, info = env.reset(seed=3)
    for _ in range(500):
        mask = info["action_mask"]
        if mask[detonate]:
            assert mask[ROLL] and env.fields["variant"].stop - env.fields["variant"].start == 1
            board = env.games.state.boards[0].copy()
            obs, reward, over, _, info = env.step(detonate)
            blots = int((np.abs(board[1:25]) == 1).sum())
            assert int(env.games.state.extra["bomb"][0]) == -1
            assert obs[env.fields["variant"]][0] == -1 or blots >= 0
            return
        obs, reward, over, _, info = env.step(pick(rng, mask))
        if over:
            obs, info = env.reset()
    pytest.fail("no detonation was offered in 500 steps")


def test_an_illegal_action_changes_nothing_or_raises():
    env = BackgammonEnv()
    obs, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    again, reward, over, _, info2 = env.step(illegal)
    assert info2["illegal_action"] and reward == 0 and not over
    assert np.array_equal(obs, again) and np.array_equal(info["action_mask"],
                                                         info2["action_mask"])
    strict = BackgammonEnv(illegal_action="raise")
    strict.reset(seed=1)
    with pytest.raises(ValueError, match="not legal"):
        strict.step(illegal)
    with pytest.raises(ValueError, match="match is played with the cube"):
        BackgammonEnv(match_length=5, cube=False)


def test_the_observation_fields_are_documented_and_filled():
    env = BackgammonEnv(cube=True, match_length=5, encoding="advanced")
    fields = env.fields
    assert list(fields) == ["board", "dice", "dice_left", "cube", "match", "phase", "variant"]
    assert fields["board"].stop == 232 and fields["variant"].stop == env.observation_space.shape[0]
    obs, info = env.reset(seed=2)
    rng = np.random.default_rng(0)
    while env.games.phase[0] != 2:
        obs, *_, info = env.step(pick(rng, info["action_mask"]))
    assert obs[fields["phase"]].tolist() == [0, 0, 1]
    assert obs[fields["match"]][0] == 1 and obs[fields["dice"]].max() > 0
    assert obs[fields["dice_left"]].sum() > 0 and obs[196] == 1 and obs[197] == 0


def test_search_helpers():
    outcomes = search.chance_outcomes()
    assert len(outcomes) == 21 and sum(p for _, p in outcomes) == pytest.approx(1)
    board, state = search.read_position("4HPwATDgc/ABMA")
    assert state is None and board.sum() == 0
    _, state = search.read_position("XGID=-b----E-C---eE---c-e----B-:1:1:1:00:0:0:0:0:10")
    assert state.cube_value == 2
    pytest.importorskip("pettingzoo", reason="the AEC env needs pettingzoo (gammon[envs])")
    from gammon.envs import backgammon_v0
    env = backgammon_v0.raw_env()
    env.reset(seed=1)
    for roll in ((6, 5), (3, 3), (2, 1), (6, 6)):
        after = search.afterstates(board, roll)
        plays = legal_plays(board[None], np.array([roll]))
        assert sorted(a.board.tobytes() for a in after) == sorted(b.tobytes()
                                                                  for b in plays.boards)
        assert len({a.play for a in after}) == len(after)
        for a in after:  # each play's actions make it, in a clone set to the position
            copy = search.clone(env)
            search.set_position(copy, board, dice=roll)
            mover = copy.agent_selection
            for action in a.actions:
                copy.step(action)
            assert copy.agent_selection != mover  # the other agent is on roll
            assert np.array_equal(copy.games.state.boards[0], -a.board[::-1])
    assert np.array_equal(env.games.state.boards[0], env.rules.start_board())  # untouched
    assert {"13/7 6/2", "24/18 13/9"} <= {a.play for a in search.afterstates(board, (6, 4))}


def test_a_roll_that_cannot_be_played_offers_only_no_play():
    board = np.zeros(26, dtype=np.int8)
    board[25], board[6] = 1, 14  # one on the bar against a closed board
    board[19:25], board[10] = -2, -3
    env = BackgammonEnv(opponent="pubeval")
    env.reset(seed=1)
    search.set_position(env, board, dice=(6, 5))
    assert np.flatnonzero(env.action_mask()).tolist() == [NO_PLAY]
    assert [a.actions for a in search.afterstates(board, (6, 5))] == [(NO_PLAY,)]
    plies = int(env.games.state.plies[0])
    obs, reward, over, _, info = env.step(NO_PLAY)
    assert not info["illegal_action"] and env.games.state.plies[0] >= plies + 2


def test_the_net_through_the_env_plays_the_games_of_gammon_match():
    """``net:`` as an agent against pubeval, on the dice ``gammon match`` draws from the
    same seed (paired: each dice sequence twice, the seats swapped): the same points game
    by game."""
    net_vs_pubeval(20, seed=11)


@pytest.mark.slow
def test_the_net_through_the_single_env_on_400_games():
    net_vs_pubeval(400, seed=12, single=True)


def net_vs_pubeval(games: int, seed: int, single: bool = False):
    pytest.importorskip("torch")
    from gammon.eval.playing.match import chunk_dice, match_seeds, run_match
    from gammon.model.rows import batch_independent
    agent = BotAgent("net:")
    with batch_independent():
        expected = run_match("net:", "pubeval", games, seed=seed, progress=False)
        table, _ = chunk_dice(match_seeds(seed)[0], games, None)
        points = np.zeros(games, dtype=np.int64)
        for swapped in (False, True):
            points[int(swapped)::2] = (play_single if single else play_vector)(
                agent, table, swapped, games // 2)
    assert np.array_equal(points, expected.points)


def play_vector(agent, table, swapped, n):
    vec = BackgammonVectorEnv(n, opponent="pubeval", dice=TableDice(table, swapped),
                              autoreset_mode="Disabled")
    vec.reset(seed=0)
    done, points = np.zeros(n, dtype=bool), np.zeros(n, dtype=np.int64)
    while not done.all():
        _, _, term, _, info = vec.step(agent(vec))
        points[term & ~done] = info["points"][term & ~done]
        done |= term
    return points


def play_single(agent, table, swapped, n):
    env = BackgammonEnv(opponent="pubeval", dice=TableDice(table, swapped))
    points = np.zeros(n, dtype=np.int64)
    for game in range(n):
        env.reset(seed=game)
        over = False
        while not over:
            _, _, over, _, info = env.step(agent(env))
        points[game] = info["points"]
    return points


def test_step_actions_are_source_and_die():
    rules = gammon.envs.single.get_variant("standard")
    assert action_name(13 * 6 + 5, rules) == "13/7 (6)"
    assert action_name(25 * 6 + 4, rules) == "bar/20 (5)"
    assert action_name(3 * 6 + 4, rules) == "3/off (5)"
    assert STEP_ACTIONS == 156 and action_name(DOUBLE, rules) == "double"
    assert action_name(NO_PLAY, rules) == "no play" and FIRST_VARIANT_ACTION == 162
