"""The environments' action masks against the move generator: every action a mask allows is
a legal single step (the rules' own scalar ``Rules.step``), and the action sequences the
masks allow reach every legal play of ``engine.movegen.legal_plays`` exactly once, on
positions of random games and synthetic boards (doubles, bear-offs, the bar, no play).

Every allowed sequence is walked breadth first through ``gammon.envs.steps.StepPlays``
itself: each partial play is copied once per action its mask allows, and the copies step.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the environments need gymnasium (gammon[envs])")

from gammon.engine.movegen import legal_plays  # noqa: E402
from gammon.engine.rules import variant  # noqa: E402
from gammon.engine.sample import from_random_play, synthetic  # noqa: E402
from gammon.envs.actions import STEP_ACTIONS, step_of  # noqa: E402
from gammon.envs.steps import StepPlays  # noqa: E402


def positions(n: int, seed: int, name: str = "standard"):
    """About ``n`` positions with rolls: 70% met in random games, 30% synthetic boards
    (bear-offs and the bar over-sampled) with random rolls (a third of them doubles)."""
    rng = np.random.default_rng(seed)
    rules = variant(name)
    boards, dice = [], []
    while sum(len(b) for b in boards) < int(n * 0.7):
        b, d = from_random_play(rng, 4, name)
        boards.append(b)
        dice.append(d)
    boards, dice = np.concatenate(boards)[:int(n * 0.7)], np.concatenate(dice)[:int(n * 0.7)]
    if rules.position_format == "posid":
        m = n - len(boards)
        extra = synthetic(rng, m, rules.checkers)
        rolls = rng.integers(1, 7, size=(m, 2)).astype(np.int8)
        rolls[: m // 3, 1] = rolls[: m // 3, 0]
        boards, dice = np.concatenate([boards, extra]), np.concatenate([dice, rolls])
    return boards, dice


def walk(boards: np.ndarray, dice: np.ndarray, rules):
    """Every action sequence the masks allow: per position a Counter of the afterstates
    reached (bytes); and what was met (doubles, bear-offs, bar entries, passes, steps)."""
    n = len(boards)
    plays = legal_plays(boards, dice, rules)
    steps = StepPlays(n, rules)
    passed = steps.start(np.arange(n), boards, dice, plays)
    reached = [Counter() for _ in range(n)]
    for i in np.flatnonzero(passed):
        reached[i][boards[i].tobytes()] += 1
    origin = np.arange(n)
    met = Counter(passes=int(passed.sum()))
    while len(steps.game):
        masks = steps.masks(len(origin))
        node, action = np.nonzero(masks)
        m = len(node)
        labels = steps.labels()
        child = StepPlays(m, rules)
        # each child's rows: its node's rows whose next step is the child's action
        pair = steps.game * STEP_ACTIONS + labels
        order = np.argsort(pair, kind="stable")
        lo = np.searchsorted(pair[order], node * STEP_ACTIONS + action, "left")
        hi = np.searchsorted(pair[order], node * STEP_ACTIONS + action, "right")
        rows = np.concatenate([order[a:b] for a, b in zip(lo, hi)])
        child.code, child.after = steps.code[rows], steps.after[rows]
        child.game = np.repeat(np.arange(m), hi - lo)
        for name in ("board", "taken", "used", "left"):
            setattr(child, name, getattr(steps, name)[node].copy())
        before = steps.board[node].copy()
        legal, done, after = child.step(np.arange(m), action)
        assert legal.all()
        for k in range(m):  # the rules' scalar step agrees with every allowed action
            source, die = step_of(int(action[k]))
            stepped = rules.step(tuple(int(c) for c in before[k]), source, die)
            assert not isinstance(stepped, str), (before[k], source, die, stepped)
            assert tuple(child.board[k]) == tuple(stepped[0])
            met["bar"] += source == 25
            met["bear_off"] += source - die <= 0
        met["steps"] += m
        for k, a in zip(done, after):
            reached[origin[node[k]]][a.tobytes()] += 1
            assert (child.board[k] == a).all()
        if len(done):
            keep = ~np.isin(child.game, done)
            child.code, child.after, child.game = (child.code[keep], child.after[keep],
                                                   child.game[keep])
        steps, origin = child, origin[node]
    met["doubles"] = int((dice[:, 0] == dice[:, 1]).sum())
    return plays, reached, met


def check(boards, dice, name: str = "standard") -> Counter:
    rules = variant(name)
    plays, reached, met = walk(boards, dice, rules)
    starts = plays.offsets(len(boards))
    for i in range(len(boards)):
        legal = Counter(b.tobytes() for b in plays.boards[starts[i]:starts[i + 1]])
        assert reached[i] == legal, (name, i, boards[i], dice[i])  # each play exactly once
    return met


def test_the_masks_allow_legal_steps_and_reach_every_play_once():
    boards, dice = positions(1000, 40)
    met = check(boards, dice)
    assert min(met["doubles"], met["bar"], met["bear_off"], met["passes"]) > 10, met


@pytest.mark.slow
def test_the_masks_on_10000_positions():
    boards, dice = positions(10_000, 41)
    assert len(boards) == 10_000
    met = check(boards, dice)
    assert min(met["doubles"], met["bar"], met["bear_off"], met["passes"]) > 100, met


@pytest.mark.parametrize("name", ["nackgammon", "hypergammon", "caucasian", "plakoto",
                                  "longgammon"])
def test_the_masks_of_the_variants(name):
    boards, dice = positions(200, 42, name)
    check(boards, dice, name)
