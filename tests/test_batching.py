"""Answering many requests at once: the server's batches of /move questions
(``gammon.web.threads.AsyncBatcher``, the bot asked in its one thread), the batched ranking
behind them (``eval.analysis.ranked_many``), and the real server answering concurrent /move
requests as it answers each alone."""

import asyncio
import json
import threading
import urllib.request

import numpy as np
import pytest

from gammon.engine.sample import from_random_play
from gammon.eval.analysis import ranked, ranked_many
from gammon.eval.bots.registry import make_bot
from gammon.http_api import Api
from gammon.positions import read_position
from gammon.web.threads import AsyncBatcher, BotThread

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


def _asked(count: int, solve, most: int = 256) -> list:
    """The questions 0 .. count-1 asked of an AsyncBatcher on one event loop, a millisecond
    apart (so that some arrive while ``solve`` runs), ``solve`` called in a BotThread; the
    answers, or the exceptions raised for them, in order."""
    bot = BotThread("test bot")

    async def ask_all():
        batcher = AsyncBatcher(solve, bot, most)

        async def one(i):
            await asyncio.sleep(i * 0.001)
            return await batcher.ask(i)

        return await asyncio.gather(*(one(i) for i in range(count)), return_exceptions=True)

    try:
        return asyncio.run(ask_all())
    finally:
        bot.close()


def test_each_question_gets_its_own_answer_and_waiting_questions_share_a_call():
    calls, inside = [], []

    def solve(questions):
        assert threading.current_thread().name == "test bot"  # the bot's one thread
        inside.append(1)
        assert len(inside) == 1, "solve ran in two threads at once"
        calls.append(len(questions))
        threading.Event().wait(0.01)  # long enough for others to queue
        inside.pop()
        return [q * q for q in questions]

    answers = _asked(64, solve)
    assert answers == [i * i for i in range(64)]
    assert sum(calls) == 64 and len(calls) < 64  # some questions answered together


def test_a_batch_is_never_larger_than_most():
    calls = []

    def solve(questions):
        calls.append(len(questions))
        threading.Event().wait(0.005)
        return list(questions)

    assert _asked(40, solve, most=3) == list(range(40))
    assert max(calls) <= 3 and sum(calls) == 40


def test_a_question_that_fails_fails_alone():
    def solve(questions):
        if 13 in questions:
            raise ValueError("thirteen")
        threading.Event().wait(0.005)
        return [-q for q in questions]

    answers = _asked(30, solve)
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


def test_the_server_answers_concurrent_moves_as_one_at_a_time():
    for module in ("fastapi", "uvicorn", "fastapi_offline"):
        pytest.importorskip(module)
    from gammon.web.server import WebServer
    server = WebServer(Api(make_bot("pubeval"), "pubeval"), "127.0.0.1", 0).start()
    base = f"http://127.0.0.1:{server.port}"

    def get(i: int) -> tuple[int, dict]:
        target = f"{base}/move?posid={START}&dice={i % 6 + 1},{i // 6 % 6 + 1}"
        with urllib.request.urlopen(target, timeout=30) as reply:
            return reply.status, json.loads(reply.read())

    try:
        alone = [get(i) for i in range(36)]
        together = _together(36, get)
    finally:
        server.stop(grace=1.0)
    assert together == alone and all(status == 200 for status, _ in alone)
