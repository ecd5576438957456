"""Who plays a rollout's trials, and the two ways their plays of the rolls are found.

The player is the bot, with its cube heads in a cubeful rollout (``cube_player``); it plays
both sides. Its play of each roll is found one of two ways, and whoever makes the trials
(``eval.analysis.rollout_trials.Trials``) is told which by its ``plays`` argument:

- ``plays=None``: the bot is asked every turn (``ask_bot``: ``engine.game.play_turn``,
  ``PLAY_CHUNK`` games a call), whatever the bot;
- ``plays=NetPlays(evaluator, rules)``: for a 0-ply net choosing the play of the highest
  cubeless equity by the rollout's own evaluator, the loop works its plays out itself. With
  variance reduction its play of the roll rolled is the best play the luck was computed
  with (``eval.analysis.rollout_vr.roll_values``), so the luck costs the 21 rolls' plays and
  no more; without, ``NetPlays`` plays each distinct (board, roll) once and values each
  distinct afterstate of a race once (where no variant state goes with the board). Either
  way they are the bot's plays: the same trials as asking it (``tests/test_rollout.py``).

``net_plays(player, evaluator, rules, match)`` is the choice every caller makes by default
(``eval.analysis.rollouts.rollout`` and ``local_runner``, the Ray workers of
``eval.analysis.rollout_actors``): ``NetPlays`` where they are exactly the bot's (a
``model.policy.NetPolicy`` at 0-ply, money play, the rollout's evaluator its own), else
None; ``rollout(..., ask_bot=True)`` asks the bot all the same.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.cube import CubeRules
from gammon.engine.cube_policy import CubeBot
from gammon.engine.game import GameState, play_turn
from gammon.engine.movegen import legal_plays
from gammon.engine.outcomes import equity
from gammon.engine.phase import is_race
from gammon.engine.policy import best_per_root

from .rollout_settings import Settings
from .rollout_vr import distinct_rows

PLAY_CHUNK = 1024  # games per call of play_turn: the net is quickest on batches of this size


def cube_player(bot, settings: Settings):
    """The bot a rollout plays: with its cube heads (``eval.bots.cube``, ``auto``) in a
    cubeful rollout, as it is otherwise."""
    if not settings.cubeful:
        return bot
    from gammon.eval.bots.cube import with_cube
    player = with_cube(bot, "auto", CubeRules(settings.jacoby, settings.beavers),
                       settings.efficiency)
    player.name = getattr(bot, "name", "bot")
    return player


def ask_bot(player, state: GameState, rows: np.ndarray, boards: np.ndarray, roll: np.ndarray,
            rules, context=None) -> np.ndarray:
    """The player's plays of the rolls ``roll`` (n, 2) in the games ``rows`` (n,) of
    ``state``, ``boards`` (n, 26) their boards from the seat on roll: the game loop's
    ``play_turn``, at most ``PLAY_CHUNK`` games at a time in chunks of even size, told each
    game's variant state and, at a match score (``context``, an ``engine.match``
    ``MatchContext``), its score. Afterstates (n, 26), not flipped."""
    after = np.empty((len(rows), 26), dtype=np.int8)
    policies = (player, player)
    size = -(-len(rows) // -(-len(rows) // PLAY_CHUNK))  # even chunks, none above PLAY_CHUNK
    for start in range(0, len(rows), size):
        part = slice(start, start + size)
        games = rows[part]
        extra = ({name: v[games] for name, v in state.extra.items()}
                 if rules.extra_state else None)
        score = (context.view(games, state.seat[games], state.cube.value[games],
                              state.cube.owner[games]) if context is not None else None)
        after[part] = play_turn(policies, boards[part], state.seat[games], roll[part],
                                rules, extra, score)
    return after


class NetPlays:
    """A 0-ply net's plays of rolls, worked out by the rollout rather than asked of the bot:
    the legal play of the highest cubeless equity by ``evaluator`` (a look-ahead evaluator:
    ``after_play``), the first on a tie, as ``model.policy.NetPolicy`` chooses at 0-ply.

    ``self(boards, roll)`` works nothing out twice: each distinct (board, roll) is played
    once (the trials of a position share their first rolls, and races meet again), and
    each distinct afterstate of a race's plays is valued once (``values_once``). A board's
    plays come in an order of its own (``engine.movegen``) and the net's values do not
    depend on the batch (``model.rows.batch_independent``), so the afterstates are the
    bot's."""

    def __init__(self, evaluator, rules):
        self.evaluator, self.rules = evaluator, rules

    def __call__(self, boards: np.ndarray, roll: np.ndarray) -> np.ndarray:
        """boards (n, 26) from the player on roll, roll (n, 2) -> afterstates (n, 26), not
        flipped."""
        first, inverse = distinct_rows(np.concatenate([boards, roll.astype(np.int8)], axis=1))
        games, dice = boards[first], roll[first]  # (u, 26), (u, 2)
        parts, roots = [], []
        for start in range(0, len(games), PLAY_CHUNK):
            plays = legal_plays(games[start:start + PLAY_CHUNK], dice[start:start + PLAY_CHUNK],
                                self.rules)
            parts.append(plays.boards)
            roots.append(plays.root + start)
        after = np.concatenate(parts)  # (K, 26) every play of every distinct game
        root = np.concatenate(roots)
        # a game with one legal play (none: the board as it is) plays it unvalued
        counts = np.bincount(root, minlength=len(games))  # (u,) plays per game, >= 1
        chosen = np.cumsum(counts) - counts  # (u,) each game's first play
        choice = np.flatnonzero(counts > 1)
        if len(choice):
            rows = np.flatnonzero(counts[root] > 1)  # the plays of those games
            index = np.cumsum(counts > 1) - 1  # a game's place among them
            values = equity(self.values_once(after[rows], is_race(games)[root[rows]]))
            chosen[choice] = rows[best_per_root(values, index[root[rows]], len(choice))]
        return after[chosen][inverse]

    def values_once(self, after: np.ndarray, race: np.ndarray) -> np.ndarray:
        """The evaluator's probabilities (K, 6) of afterstates (K, 26) for their mover, in
        one call, each distinct afterstate of a race (``race`` (K,): its game is one) valued
        once: the plays of races often meet (41% of them in a race position's trials), those
        of contact positions almost never (0.5% of them in 64 positions'), so only the races'
        are sorted out."""
        contact = np.flatnonzero(~race)
        racing = np.flatnonzero(race)
        first, inverse = distinct_rows(after[racing])
        probs = self.evaluator.after_play(np.concatenate([after[contact], after[racing[first]]]))
        out = np.empty((len(after), 6), dtype=probs.dtype)
        out[contact] = probs[:len(contact)]
        out[racing] = probs[len(contact):][inverse]
        return out


def net_plays(player, evaluator, rules, match: bool) -> NetPlays | None:
    """``NetPlays`` for a player whose play of a roll is exactly the one they work out: a
    ``model.policy.NetPolicy`` (its cube heads aside) at 0-ply, valuing plays with
    ``evaluator`` itself, by cubeless equity (money play: at a match score a net chooses by
    match winning chance); else None, the bot to be asked. ``model.policy`` is imported only
    for a bot that has that evaluator and 0 plies, a net's: it is loaded then, and no other
    bot's rollout imports torch."""
    inner = player.bot if isinstance(player, CubeBot) else player
    if match or evaluator is None or getattr(inner, "evaluator", None) is not evaluator \
            or getattr(inner, "plies", None) != 0 or getattr(inner, "score", None) is not None:
        return None
    from gammon.model.policy import NetPolicy
    return NetPlays(evaluator, rules) if type(inner) is NetPolicy else None


__all__ = ["PLAY_CHUNK", "NetPlays", "ask_bot", "cube_player", "net_plays"]
