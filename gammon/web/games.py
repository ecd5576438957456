"""The games a server's board holds, by id: ``Games`` (``gammon.web.board`` makes one)."""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict

from .game import WebGame, board_rules
from .refusals import NoGame

MAX_GAMES = 64  # games held at once; a new one drops the one least recently used


class Games:
    """The games a server holds, by id: at most ``most``, a new game dropping the one
    least recently used. Called from the bot's thread (``gammon.web.threads.BotThread``).

    ``opponent(variant) -> (bot, name)`` gives the bot of a new game of that variant (the
    server's own in its variant, each other variant's shipped model: ``board.board_routes``);
    each is made once and kept."""

    def __init__(self, opponent, variant: str = "standard", most: int = MAX_GAMES):
        self.opponent, self.variant, self.most = opponent, variant, most
        self._bots: dict[str, tuple] = {}
        self._games: OrderedDict[str, WebGame] = OrderedDict()
        self._lock = threading.Lock()

    def bot_for(self, variant: str) -> tuple:
        """(bot, name) playing ``variant``, made the first time it is asked for."""
        if variant not in self._bots:
            self._bots[variant] = self.opponent(variant)
        return self._bots[variant]

    def new(self, variant: str | None = None, **options) -> dict:
        variant = variant or self.variant
        board_rules(variant)  # a variant the board knows, else a one-line refusal
        bot, name = self.bot_for(variant)
        game_id = secrets.token_hex(6)
        game = WebGame(game_id, bot, name, variant, **options)
        with self._lock:
            self._games[game_id] = game
            while len(self._games) > self.most:
                self._games.popitem(last=False)
        return game.to_json()

    def get(self, game_id: str) -> WebGame:
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                raise NoGame(f"no game {game_id[:40]!r}: it was never started, or dropped "
                             f"for {self.most} newer ones, or the server restarted")
            self._games.move_to_end(game_id)
            return game

    def __len__(self) -> int:
        return len(self._games)


__all__ = ["Games", "MAX_GAMES"]
