"""Answering many threads at once: ``gammon.batching.Batcher`` and the batched ranking
behind serve-http's /move (``gammon.commands.hint.ranked_many``)."""

import threading

import numpy as np

from engine.sample import from_random_play
from eval.bots.registry import make_bot
from gammon.batching import Batcher
from eval.analysis import ranked, ranked_many
from gammon.http_api import Api
from gammon.positions import read_position

START = "4HPwATDgc/ABMA"


def _closed_out() -> np.ndarray:
    """The mover has a checker on the bar against a closed board: he cannot enter."""
    board = np.zeros(26, np.int8)  # the mover's view: 25 the bar, + his checkers
    board[19:25] = -2  # the opponent holds all six entry points
    board[12] = -3
    board[25], board[6] = 1, 14
    return board


def _together(count: int, task) -> list:
    """``task(i)`` in ``count`` threads released together; their results in order."""
    barrier, out = threading.Barrier(count), [None] * count

    def run(i):
        barrier.wait(timeout=10)
        try:
            out[i] = task(i)
        except Exception as e:  # noqa: BLE001 - the test looks at it
            out[i] = e

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    return out


def test_each_thread_gets_its_own_answer_and_waiting_questions_share_a_call():
    calls, inside = [], []

    def solve(questions):
        inside.append(1)
        assert len(inside) == 1, "solve ran in two threads at once"
        calls.append(len(questions))
        threading.Event().wait(0.01)  # long enough for others to queue
        inside.pop()
        return [q * q for q in questions]

    batcher = Batcher(solve)
    answers = _together(64, batcher.ask)
    assert answers == [i * i for i in range(64)]
    assert sum(calls) == 64 and len(calls) < 64  # some questions answered together


def test_a_batch_is_never_larger_than_most():
    calls = []

    def solve(questions):
        calls.append(len(questions))
        threading.Event().wait(0.005)
        return list(questions)

    assert _together(40, Batcher(solve, most=3).ask) == list(range(40))
    assert max(calls) <= 3 and sum(calls) == 40


def test_a_question_that_fails_fails_alone():
    def solve(questions):
        if 13 in questions:
            raise ValueError("thirteen")
        threading.Event().wait(0.005)
        return [-q for q in questions]

    answers = _together(30, Batcher(solve).ask)
    assert isinstance(answers[13], ValueError) and str(answers[13]) == "thirteen"
    assert all(answers[i] == -i for i in range(30) if i != 13)


def test_ranked_many_ranks_each_position_as_ranked_does_alone():
    rng = np.random.default_rng(5)
    played, _ = from_random_play(rng, 2)  # positions of random games, bar and races too
    boards = played[rng.choice(len(played), 150, replace=False)]
    boards[0] = read_position(START)
    # one closed board with a checker on the bar: no legal play for most rolls
    boards[1] = _closed_out()
    dice = rng.integers(1, 7, size=(len(boards), 2))  # (B, 2), doubles among them
    dice[1] = (6, 6)
    together = ranked_many(bot := make_bot("pubeval"), boards, dice)
    alone = [ranked(bot, b, int(d[0]), int(d[1])) for b, d in zip(boards, dice)]
    assert together == alone
    assert alone[1] == [] and sum(map(bool, alone)) > 120


def test_api_answers_concurrent_moves_as_one_at_a_time():
    api = Api(make_bot("pubeval"), "pubeval")
    targets = [f"/move?posid={START}&dice={i % 6 + 1},{i // 6 % 6 + 1}" for i in range(36)]
    alone = [api.answer(t) for t in targets]
    together = _together(36, lambda i: api.answer(targets[i]))
    assert together == alone
