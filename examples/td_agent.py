"""A small learning agent: TD(lambda) over afterstates with a linear value function,
trained through gammon's vector env against the ``random`` bot, then measured against it.

    python examples/td_agent.py [--train-games 2000] [--eval-games 2000] [--envs 128]
                                [--alpha 0.003] [--lam 0.7] [--seed 1]

The agent values an afterstate (the board after its play, before the opponent's roll) as
w . x(board): x is TD-Gammon's raw encoding of the board (four units per point and side,
the bars, the checkers borne off) and a bias; w starts at zero. When its roll comes it
plays the legal play of highest value (one that ends the game is worth the points it
wins), and moves the values of its earlier afterstates in that game towards the value of
the new one (TD(lambda), semi-gradient, an eligibility trace per game); at the end of a
game, towards the points the game gave it. Then w is frozen and the agent plays fresh
games, whose points per game are the result.

It is a ``gammon.Bot`` (it scores afterstates), played through the env by
``gammon.envs.BotAgent``, which makes the chosen play one checker step at a time and
asks the bot about every game whose roll has just come, in the order of the batch; the
observation's ``phase`` and ``dice_left`` say which games those are.

Measured against the ``random`` bot (95% intervals; on a busy 2-core CPU):

    the defaults: 2,000 games of training, 2,000 measured (19 s)   +2.587 ± 0.031 ppg, 99.0% wins
    --train-games 1500 --eval-games 500 (9 s)                      +2.560 ± 0.062 ppg, 98.8% wins
      the same with seeds 2..6: +2.42 to +2.63 ppg (after 1,000 games: +1.88 to +2.59)
    --train-games 0 (w = 0: it plays the first play it is given)   -0.100 ± 0.088 ppg, 47.7% wins

(``pubeval`` scores +2.51 against ``random``.) The margin this example states: after 1,500
games of training, it beats ``random`` by at least ``MARGIN`` = 1.5 points per game, the low
end of the 95% interval of 500 games; tests/test_examples.py runs it so, and untrained.
Needs the envs extra: pip install 'gammon[envs]'.
"""

from __future__ import annotations

import argparse
import math

import gymnasium as gym
import numpy as np

from gammon import Bot
from gammon.engine.rules import variant
from gammon.envs import BotAgent

STANDARD = variant("standard")  # the rules: which plays end the game, for how many points
MARGIN = 1.5  # points per game over random, at least, after 1,500 games of training


def features(boards: np.ndarray) -> np.ndarray:
    """(K, 197): TD-Gammon's units of boards (K, 26) from the mover's side, and a bias."""
    b = boards.astype(np.float64)
    units = []
    for side in (np.maximum(b[:, 1:25], 0), np.maximum(-b[:, 1:25], 0)):  # (K, 24) each
        units += [side >= 1, side >= 2, side >= 3, np.maximum(side - 3, 0) / 2]
    bars = np.stack([b[:, 25] / 2, -b[:, 0] / 2], axis=1)
    off = np.stack([15 - np.maximum(b, 0).sum(1), 15 - np.maximum(-b, 0).sum(1)], axis=1) / 15
    return np.concatenate([*units, bars, off, np.ones((len(b), 1))], axis=1)


class LinearTD(Bot):
    """The value function w . x(afterstate), and what it chose at its last call."""

    name = "linear-td"

    def __init__(self) -> None:
        self.w = np.zeros(197)
        self.chosen = np.zeros((0, 197))  # x of the afterstates chosen, one per position
        self.values = np.zeros(0)  # and their values

    def scores(self, plays, boards, dice) -> np.ndarray:
        """(K,) the value of each play's afterstate ``plays.boards`` (K, 26)."""
        value = features(plays.boards) @ self.w
        won = STANDARD.end_of_game(plays.boards)  # (K,) the points of a play ending the game
        self.scored = np.where(won != 0, won, value)
        return self.scored

    def choose(self, plays, boards, dice) -> np.ndarray:
        rows = super().choose(plays, boards, dice)  # (N,) the best play of each position
        self.chosen, self.values = features(plays.boards[rows]), self.scored[rows]
        return rows


def rolled(obs: np.ndarray, fields: dict) -> np.ndarray:
    """(N,) the games whose agent is about to play a roll it has not begun: moving, with
    every die of the roll still to play (``dice_left``, in quarters, against ``dice``)."""
    moving = obs[:, fields["phase"]][:, 2] == 1
    dice = np.rint(obs[:, fields["dice"]] * 6)
    left = np.rint(obs[:, fields["dice_left"]] * 4).sum(axis=1)
    return moving & (left == np.where(dice[:, 0] == dice[:, 1], 4, 2))


def play(bot: LinearTD, env, games: int, seed: int, alpha: float = 0.0,
         lam: float = 0.7) -> np.ndarray:
    """The agent's points in the first ``games`` games to end; learning when ``alpha``:
    TD(lambda), each game's afterstates x_1, x_2, ... with an eligibility trace
    e_t = lam e_(t-1) + x_t, and w += alpha (V(x_(t+1)) - V(x_t)) e_t, the points of the
    game standing for the value after its last afterstate."""
    agent = BotAgent(bot)
    last = np.zeros((env.num_envs, 197))  # x of each game's previous afterstate (0: none)
    trace = np.zeros((env.num_envs, 197))  # each game's eligibility trace
    obs, _ = env.reset(seed=seed)
    points: list[float] = []

    def learn(i: int, target: float) -> None:
        if alpha and last[i].any():
            trace[i] = lam * trace[i] + last[i]
            bot.w += alpha * (target - last[i] @ bot.w) * trace[i]

    while len(points) < games:
        fresh = np.flatnonzero(rolled(obs, env.fields))
        bot.chosen, bot.values = np.zeros((0, 197)), np.zeros(0)
        actions = agent(env)  # the bot chooses the plays of the games in ``fresh``
        assert len(bot.values) == len(fresh), "BotAgent asked about other games"
        for i, value in zip(fresh, bot.values):
            learn(int(i), value)  # the previous afterstate towards the value of this one
        last[fresh] = bot.chosen
        obs, rewards, over, _, _ = env.step(actions)
        ended = np.flatnonzero(over)  # (the next game has begun there: SAME_STEP)
        for i in ended:
            learn(int(i), rewards[i])  # the last afterstate towards the game's points
        last[ended] = trace[ended] = 0
        points += rewards[ended].tolist()
    return np.array(points[:games])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train-games", type=int, default=2000)
    parser.add_argument("--eval-games", type=int, default=2000)
    parser.add_argument("--envs", type=int, default=128, help="games in the batch")
    parser.add_argument("--alpha", type=float, default=0.003, help="the step size")
    parser.add_argument("--lam", type=float, default=0.7, help="the traces' decay, lambda")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    env = gym.make_vec("gammon/Backgammon-v0", num_envs=args.envs,
                       vectorization_mode="vector_entry_point", opponent="random",
                       autoreset_mode=gym.vector.AutoresetMode.SAME_STEP)
    bot = LinearTD()
    if args.train_games:
        play(bot, env, args.train_games, args.seed, args.alpha, args.lam)
    points = play(bot, env, args.eval_games, args.seed + 1)
    half = 1.96 * points.std(ddof=1) / math.sqrt(len(points))
    print(f"trained on {args.train_games} games against random, measured on {len(points)}")
    print(f"points per game: {points.mean():+.3f} ± {half:.3f} (95% interval)")
    print(f"wins: {(points > 0).mean():.1%}")


if __name__ == "__main__":
    main()
