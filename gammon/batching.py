"""Answering many threads' questions with one batched call.

A server thread per client asks the bot about one position; the vectorised generator and
the networks cost nearly the same for one position as for dozens. ``Batcher.ask`` queues a
question and takes the bot's lock: the thread that gets it answers every question queued
by then in one call of ``solve``, and the others find their answers ready. The bot is
asked by one thread at a time, as before, so it need not be thread-safe.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any


class _Slot:
    __slots__ = ("question", "answer", "error", "done")

    def __init__(self, question):
        self.question, self.answer, self.error, self.done = question, None, None, False


class Batcher:
    """``solve(questions) -> answers`` (same length, same order) called under ``lock``
    with the questions waiting when it is taken."""

    def __init__(self, solve: Callable[[Sequence[Any]], Sequence[Any]],
                 lock: threading.Lock | None = None, most: int = 256):
        self.solve, self.most = solve, most
        self.lock = lock or threading.Lock()
        self._queue_lock = threading.Lock()
        self._queue: list[_Slot] = []

    def ask(self, question):
        """The answer to ``question``; an exception ``solve`` raised for it is raised."""
        slot = _Slot(question)
        with self._queue_lock:
            self._queue.append(slot)
        while True:
            with self.lock:
                if not slot.done:  # nobody took it yet: take the queue (ours among it)
                    with self._queue_lock:
                        batch, self._queue = self._queue[:self.most], self._queue[self.most:]
                    self._run(batch)
            if slot.done:  # ``most`` may have left ours for the next holder
                break
        if slot.error is not None:
            raise slot.error
        return slot.answer

    def _run(self, batch: list[_Slot]) -> None:
        try:
            answers = self.solve([s.question for s in batch])
        except Exception as e:
            if len(batch) == 1:
                batch[0].error, batch[0].done = e, True
                return
            for s in batch:  # one bad question must not fail the others: ask each alone
                self._alone(s)
            return
        for s, answer in zip(batch, answers, strict=True):
            s.answer, s.done = answer, True

    def _alone(self, slot: _Slot) -> None:
        try:
            slot.answer = self.solve([slot.question])[0]
        except Exception as e:
            slot.error = e
        slot.done = True
