"""The analysis library: every front door (``gammon hint``, ``analyze``, ``cube``,
``play``'s hints, the HTTP API, the GNU Backgammon checks) asks here and only parses,
calls and prints.

Given positions (boards (N, 26) from the player on roll), and where it matters a roll, a
cube state, a match score and a variant, it answers:

- ``ranked`` / ``ranked_many`` / ``ranked_with_loss`` (``plays``): every legal play of a
  roll, best first, with its probabilities for the player who moved, its cubeless equity
  and, with a ``CubeView``, its cubeful money equity;
- ``analyze_position`` / ``analyze_cube`` (``cube``): the probabilities, cubeless and
  cubeful equities and the proper cube action before the roll, for money play (the cube as
  it lies) or at a match score (match winning chances and their EMG);
- ``evaluator``: the probability source of a bot, the one thing the cube analysis needs;
- ``rollout`` (``rollout``): Monte-Carlo values of positions before the roll, every trial
  of every position in lock-step through the game loop, with standard errors
  (``RolloutSettings`` says how, one ``RolloutResult`` per position).

The depth is the bot's: ``net:PATH@N`` looks N plies ahead (``model.lookahead``), 0-ply
being the net alone; a new depth (rollouts) is one more bot or evaluator behind the same
calls. The state of a position at a match score is an ``engine.formats.matchid.MatchState``
(None: money play, a centred 1-cube).
"""

from __future__ import annotations

from gammon.eval.analysis.cube import (CRAWFORD, DEAD, OWNED, REASON_WORDS, MatchLookAhead,
                                analyze_cube, analyze_match_cube, analyze_money_cube,
                                analyze_position, cube_action, is_match, met_words,
                                no_double_reason)
from gammon.eval.analysis.plays import (CubeView, equity_type, play_probabilities, ranked,
                                 ranked_many, ranked_with_loss)
from gammon.eval.analysis.rollouts import Result as RolloutResult
from gammon.eval.analysis.rollouts import RolloutError, paired_difference, rollout
from gammon.eval.analysis.rollouts import Settings as RolloutSettings


class NoProbabilities(ValueError):
    """The bot estimates no probabilities (pubeval, the heuristic bots, random)."""


def evaluator(bot):
    """The bot's probability source ``boards (N, 26) -> (N, 6|5)`` for the player on roll
    (``eval.bots.cube.probability_source``); ``NoProbabilities`` for a bot without one."""
    from gammon.eval.bots.cube import probability_source
    evaluate = probability_source(bot)
    if evaluate is None:
        raise NoProbabilities("the bot estimates no probabilities")
    return evaluate


__all__ = ["CRAWFORD", "DEAD", "OWNED", "REASON_WORDS", "CubeView", "MatchLookAhead",
           "NoProbabilities", "analyze_cube", "analyze_match_cube", "analyze_money_cube",
           "analyze_position", "cube_action", "equity_type", "evaluator", "is_match",
           "met_words", "no_double_reason", "paired_difference", "play_probabilities",
           "ranked", "ranked_many", "ranked_with_loss", "RolloutError", "RolloutResult",
           "RolloutSettings", "rollout"]
