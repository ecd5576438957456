"""The plays of a roll, valued and ranked: each legal play's probabilities for the player
who made it, its cubeless and (with a ``CubeView``) cubeful money equity, the look-ahead it
was valued at, and the ranking a bot makes of them.

Shapes: a batch of B positions ``boards`` (B, 26) and ``dice`` (B, 2); their legal plays
``plays`` (``engine.movegen.legal_plays``) hold K afterstates, ``plays.root`` (K,) saying
whose. A bot is anything with ``scores(plays, boards, dice)`` (``engine.policy``); bots
that estimate probabilities (nets, gnubg: ``eval.bots.cube.probability_source``) also get
probabilities and equities.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gammon.engine.board import flip
from gammon.engine.cube_policy import tell_score
from gammon.engine.formats import position
from gammon.engine.formats.notation import format_play
from gammon.engine.match import MatchScore
from gammon.engine.movegen import legal_plays
from gammon.engine.outcomes import FIVE, certain, equity_of_five, to_five
from gammon.engine.rules import variant as get_variant
from gammon.eval.bots.cube import probability_source
from gammon.engine.policy import Bot, best_per_root


@dataclass(frozen=True)
class CubeView:
    """The cube model plays are valued under for a cubeful ranking: a money cube after the
    play, the opponent on roll, deciding as ``model.cube`` (Janowski) says.

    ``owner`` is who holds the cube, from the side of the player who makes the play: 0
    centred (the default), +1 he does (the opponent may not double), -1 the opponent does
    (he may redouble). Equities are per current cube, whatever its value."""

    efficiency: float
    jacoby: bool = False
    beavers: bool = False
    owner: int = 0

    def to_dict(self) -> dict:
        out = {"efficiency": self.efficiency, "jacoby": self.jacoby, "beavers": self.beavers}
        if self.owner:
            out["owner"] = self.owner
        return out


def flip_five(p5: np.ndarray) -> np.ndarray:
    """gnubg's five outputs (K, 5) seen by the other player."""
    return np.stack([1 - p5[:, 0], p5[:, 3], p5[:, 4], p5[:, 1], p5[:, 2]], axis=1)


def play_probabilities(bot, plays, rules) -> np.ndarray | None:
    """The five probabilities (K, 5) of each play for the player who made it, or None for
    a bot that estimates none. A play that ends the game is valued by its result.

    A net's come from its own look-ahead; another source's (gnubg's five, float64) by the
    perspective rule of ``engine.outcomes.after_play`` written out here in float64:
    after_play works in six float32 outcomes, which would change the last bits (up to
    5e-8) of nine plays in ten, and would show gnubg the finished games too."""
    source = probability_source(bot)
    if source is None:
        return None
    if callable(getattr(bot, "probabilities", None)):  # a net: its look-ahead included
        return to_five(np.asarray(bot.probabilities(plays), dtype=np.float64))
    after = plays.boards
    over = rules.end_of_game(after)  # (K,) points for the mover, 0 while the game goes on
    p5 = np.zeros((len(after), 5))
    going = np.flatnonzero(over == 0)
    if len(going):
        p5[going] = flip_five(to_five(np.asarray(source(flip(after[going])), np.float64)))
    done = np.flatnonzero(over != 0)
    if len(done):
        p5[done] = to_five(certain(over[done]))
    return p5


def cubeful_after(p5: np.ndarray, plays, rules, cube: CubeView) -> np.ndarray:
    """(K,) the mover's cubeful money equity after each play (per cube): minus the
    opponent's equity after proper cube play, he being on roll with the cube as ``cube``
    says (centred, or held by one side: held by the mover, the opponent may not double
    and plays on, his equity the no-double one)."""
    from gammon.model.cube import cube_equities, decide_from
    theirs = -int(cube.owner)  # the owner from the opponent's side, he being on roll
    eq = cube_equities(flip_five(p5), theirs, cube.efficiency, cube.jacoby)
    opponent = decide_from(eq, cube.beavers).equity if theirs >= 0 else eq.no_double
    value = -np.asarray(opponent, dtype=np.float64)
    points = rules.end_of_game(plays.boards)
    over = points != 0
    if over.any():  # the game is over: its points (single under Jacoby, the cube centred)
        single = cube.jacoby and cube.owner == 0
        value[over] = np.minimum(points[over], 1) if single else points[over]
    return value


def play_depths(bot, plays) -> np.ndarray | None:
    """(K,) the plies each play was valued at, for a net (``NetPolicy.depths``: the move
    filter leaves some at 0-ply when it looks ahead); None for other bots."""
    depths = getattr(bot, "depths", None)
    return np.asarray(depths(plays)) if callable(depths) else None


def equity_type(bot, cube: CubeView | None) -> str | None:
    """'cubeful', 'cubeless' or None (a bot without probabilities: its own score)."""
    if probability_source(bot) is None:
        return None
    return "cubeful" if cube is not None else "cubeless"


def ranked(bot, board: np.ndarray, d1: int, d2: int, variant: str = "standard",
           cube: CubeView | None = None) -> list[dict]:
    """The legal plays of one position, best first: rank, play, score, result; for bots
    with probabilities also ``probabilities`` (the five, for the mover) and
    ``cubeless_equity``, and with ``cube`` the ``cubeful_equity`` the plays are ranked by;
    for nets ``plies``, the look-ahead each play was valued at.

    Without ``cube`` the bot's own choice comes first; the rest follow by score (ties by
    Position ID), those the move filter left at 0-ply after all that were looked ahead.
    Empty when no play is legal.
    """
    return ranked_many(bot, board[None], np.array([[d1, d2]]), variant, cube)[0]


def ranked_many(bot, boards: np.ndarray, dice: np.ndarray, variant: str = "standard",
                cube: CubeView | None = None) -> list[list[dict]]:
    """``ranked`` for a batch, boards (B, 26) and dice (B, 2): one list of rows per
    position, the bot asked once for the whole batch (what a server answering many
    clients at a time wants)."""
    rules = get_variant(variant)
    boards, dice = np.asarray(boards), np.asarray(dice)
    plays = legal_plays(boards, dice, rules)
    scores = np.asarray(bot.scores(plays, boards, dice), dtype=np.float64)  # (K,)
    ids = position.write_many(plays.boards, rules)
    p5 = play_probabilities(bot, plays, rules)
    depths = play_depths(bot, plays)  # (K,) plies, or None
    cubeful = None
    if cube is not None:
        if p5 is None:
            raise ValueError("cubeful equities need a bot that estimates probabilities")
        cubeful = cubeful_after(p5, plays, rules, cube)
        chosen = None
    else:
        chosen = _choices(bot, plays, boards, dice, scores)  # (B,) rows of plays
    steps, hits = plays.steps, plays.hits  # (K, 4, 2), (K, 4)
    offsets = np.searchsorted(plays.root, np.arange(len(boards) + 1))  # (B+1,)
    answers = []
    for i in range(len(boards)):
        rows = range(offsets[i], offsets[i + 1])
        if plays.dice_used[offsets[i]] == 0:  # no legal play: the board unchanged
            answers.append([])
            continue
        deep = None if depths is None else depths[offsets[i]:offsets[i + 1]].max()
        shallow = {k: deep is not None and depths[k] < deep for k in rows}
        if cubeful is not None:
            order = sorted(rows, key=lambda k: (shallow[k], -cubeful[k], ids[k]))
        else:
            order = sorted(rows, key=lambda k: (k != chosen[i], shallow[k], -scores[k],
                                                ids[k]))
        roll = (int(dice[i, 0]), int(dice[i, 1]))
        answers.append([_row(rank, k, steps, hits, roll, scores, ids, p5, cubeful, depths)
                        for rank, k in enumerate(order, 1)])
    return answers


def _row(rank: int, k: int, steps, hits, roll, scores, ids, p5, cubeful, depths) -> dict:
    """The row of play ``k`` of a batch's plays, ranked ``rank``."""
    row = {"rank": rank, "play": format_play(steps[k], hits[k], roll),
           "score": float(scores[k]), "result": ids[k]}
    if p5 is not None:
        row["probabilities"] = {name: float(v) for name, v in zip(FIVE, p5[k])}
        row["cubeless_equity"] = float(equity_of_five(p5[k]))
    if cubeful is not None:
        row["cubeful_equity"] = float(cubeful[k])
    if depths is not None:
        row["plies"] = int(depths[k])
    return row


def _choices(bot, plays, boards, dice, scores: np.ndarray) -> np.ndarray:
    """(B,) the row of ``plays`` the bot plays in each position; from the scores already
    drawn when it plays the best score (so a random bot's ranking and choice agree)."""
    if type(bot).choose is Bot.choose:
        return best_per_root(scores, plays.root, len(boards))
    return np.asarray(bot.choose(plays, boards, dice))


def ranked_with_loss(bot, board: np.ndarray, d1: int, d2: int,
                     variant: str = "standard", cube: CubeView | None = None,
                     state=None) -> list[dict]:
    """``ranked`` with each play's equity (cubeful with ``cube``, else the bot's score),
    its loss against the best, and its five probabilities; with a look-ahead, the best of
    the plays looked ahead, and each play's ``plies``. At a match score (``state``, an
    ``engine.formats.matchid.MatchState`` with a length) the bot is told the score first,
    so that a score-aware bot (a net) scores the plays by the mover's match winning
    chance."""
    if state is not None and state.length > 0:
        tell_score(bot, MatchScore.from_match_state(state))
    rows = ranked(bot, board, d1, d2, variant, cube)
    key = "cubeful_equity" if cube is not None else "score"
    deepest = max((r.get("plies", 0) for r in rows), default=0)
    best = max((r[key] for r in rows if r.get("plies", 0) == deepest), default=0.0)
    out = []
    for r in rows:
        row = {"rank": r["rank"], "play": r["play"], "equity": r[key], "loss": best - r[key],
               "result": r["result"]}
        for extra in ("probabilities", "cubeless_equity", "cubeful_equity", "plies"):
            if extra in r:
                row[extra] = r[extra]
        out.append(row)
    return out
