"""The threads of ``gammon serve-http``: the bot's one thread, the ``/move`` batches, and a
rollout's thread of its own.

The event loop reads requests and checks their fields; one thread (``BotThread``) asks the
bot, jobs in the order they come, so the bot (not every one is thread-safe) is asked by one
thread at a time and a slow job never stops the loop from taking requests. The ``/move``
questions that wait meanwhile go to the bot as one batch (``AsyncBatcher``; the rankings are
those of each alone). A rollout runs in a thread of its own (``in_thread``) and sends its
trials to the bot's thread a chunk at a time (``gammon.http_api.Api.play_rollout``).
"""

import asyncio
import concurrent.futures
import queue
import threading
from typing import Any


class BotThread:
    """One daemon thread running the jobs given to it in order: the only thread that asks
    the bot while the server runs."""

    def __init__(self, name: str = "serve-http bot"):
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._work, name=name, daemon=True)
        self._thread.start()

    def submit(self, function, *args) -> concurrent.futures.Future:
        future: concurrent.futures.Future = concurrent.futures.Future()
        self._jobs.put((future, function, args))
        return future

    def call(self, function, *args):
        """``function(*args)`` in the bot's thread, waited for (from another thread)."""
        return self.submit(function, *args).result()

    async def run(self, function, *args):
        """``function(*args)`` in the bot's thread, awaited (from the event loop)."""
        return await asyncio.wrap_future(self.submit(function, *args))

    def close(self) -> None:
        self._jobs.put(None)

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            _answer(*job)


class AsyncBatcher:
    """``solve(questions) -> answers`` in the bot's thread, with every question that came
    while the previous call ran (at most ``most`` at a time); a question whose batch fails
    is asked alone, so that one bad question fails alone."""

    def __init__(self, solve, bot: BotThread, most: int = 256):
        self.solve, self.bot, self.most = solve, bot, most
        self._waiting: list[tuple[Any, asyncio.Future]] = []
        self._task: asyncio.Task | None = None

    async def ask(self, question):
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._waiting.append((question, future))
        if self._task is None:
            self._task = loop.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting[:self.most], self._waiting[self.most:]
                try:
                    answers = await self.bot.run(self.solve, [q for q, _ in batch])
                except Exception as e:  # noqa: BLE001 - one question: its error
                    if len(batch) == 1:
                        _settle(batch[0][1], error=e)
                    else:  # one bad question must not fail the others: each alone
                        await self._alone(batch)
                    continue
                for (_, future), answer in zip(batch, answers, strict=True):
                    _settle(future, answer)
        finally:
            self._task = None

    async def _alone(self, batch) -> None:
        for question, future in batch:
            try:
                answer = (await self.bot.run(self.solve, [question]))[0]
            except Exception as e:  # noqa: BLE001 - that question's own error
                _settle(future, error=e)
            else:
                _settle(future, answer)


def _settle(future: asyncio.Future, answer=None, error: BaseException | None = None) -> None:
    if future.done():  # its request went away
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(answer)


async def in_thread(function, *args):
    """``function(*args)`` in a new daemon thread, awaited."""
    future: concurrent.futures.Future = concurrent.futures.Future()
    threading.Thread(target=_answer, args=(future, function, args), name="serve-http rollout",
                     daemon=True).start()
    return await asyncio.wrap_future(future)


def _answer(future: concurrent.futures.Future, function, args: tuple) -> None:
    """``future`` given ``function(*args)``'s result or exception, here (unless it was
    cancelled before it ran)."""
    if not future.set_running_or_notify_cancel():
        return
    try:
        future.set_result(function(*args))
    except BaseException as e:  # noqa: BLE001 - handed to the one who waits
        future.set_exception(e)


__all__ = ["AsyncBatcher", "BotThread", "in_thread"]
