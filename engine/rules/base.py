"""What a rules object is: everything the engine asks of a variant, in one place.

The generator (``engine.movegen``), the scalar reference (``engine.reference``), notation,
pubeval's move order and the game loop (``engine.game``) know nothing of any variant; they
ask its rules object:

- ``checkers`` and ``layout``: the start position (``start_board``, ``start_boards``);
- the single step "move one checker by one die", twice over: vectorised for the generator
  (``steps`` over a batch, with the tables ``delta`` and ``came_home`` of what each step
  code does) and scalar for the reference and for reading typed plays (``step``, which
  says why a step is illegal);
- ``filter_plays``: a rule on whole plays applied after the generator (None: none), and
  ``track``: a state followed along each play for it (the checker that hit, for the
  Caucasian rule);
- ``extra_state``: names of per-game state beyond the 26 cells (none for standard), and
  ``relative_state``: those of them held relative to the seat on roll (negated by the game
  loop whenever the turn passes, like the cube's owner: the Nuclear bomb);
- ``before_roll_actions``, ``may_act`` and ``act``: what the player on roll may do before
  the roll besides the cube (Nuclear: "detonate"), where he may, and what it does to the
  board and the state (the turn, ``engine.game``, asks the players and calls them);
- ``end_of_game``: which afterstates end the game, and the points they win;
- ``gammons``, ``backgammons``, ``race_is_final`` and ``in_play``: what the sanity of
  outcome probabilities (``engine.sanity``) reads to know which outcomes a position rules
  out.

Adding a variant means adding a rules module (a subclass or an instance) and its tests,
not editing the generator's core.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..board import CELLS, positive

# results of a finished game, in points won by the player who just moved
SINGLE, GAMMON, BACKGAMMON = 1, 2, 3


@dataclass(frozen=True, eq=False)
class Rules:
    """The rules of one variant. Subclasses give the steps and may change the rest."""

    name: str
    checkers: int
    # point -> checkers, for each side from its own view (both sides start alike)
    layout: tuple[tuple[int, int], ...]
    # per-game state beyond the 26 cells the game loop must carry (names): none here
    extra_state: tuple[str, ...] = ()
    # those of ``extra_state`` that are signed relative to the seat on roll (+1 the player
    # on roll, -1 his opponent): ``engine.game.end_turn`` negates them when the turn passes
    relative_state: tuple[str, ...] = ()
    # actions the player on roll may take before the roll, before the cube's decision, in
    # this order (none here; Nuclear: "detonate"). A player decides one by its optional
    # method of the same name, ``player.<action>(boards, *state) -> (N,) bool`` (``state``:
    # the games' arrays of ``extra_state``, in order, relative to him); without it, never
    before_roll_actions: tuple[str, ...] = ()
    # a rule on whole plays, ``filter_plays(plays, boards, dice) -> Plays``, or None
    filter_plays = None
    # a play state followed along each partial play, or None: ``track(boards, parent, code,
    # state) -> (branch, new_state)`` gets the steps the generator found (parent rows of
    # ``boards`` (M, 26) and their codes (S,)) and the state of each row (M,) int64 (0 at
    # the start), and returns which steps to take (indices into them; a step may be taken
    # twice when the state may go two ways) and each taken step's new state, small ints
    # >= 0. Partial plays in different states are never merged; ``Plays.state`` holds the
    # final state of each result for ``filter_plays``.
    track = None
    # whether a race with every checker home is decided by the dice alone, so that the
    # one-sided bear-off database (``engine.bearoff``) values it exactly
    bearoff_races = True
    # whether a win can count double or triple (gammons, backgammons)
    gammons = True
    # whether a win can count triple (a backgammon) where it can count double
    backgammons = True
    # whether a race stays one: once no checker of one side can meet one of the other
    # (``engine.phase.is_race``), no checker is ever sent back, since only a hit sends one
    # (``engine.sanity``: no backgammon is left then unless the loser is already back)
    race_is_final = True

    # --- the start ---------------------------------------------------------------------

    def start_board(self) -> np.ndarray:
        """The starting position from the mover's view: (26,) int8."""
        board = np.zeros(CELLS, dtype=np.int8)
        for point, count in self.layout:
            board[point] += count
            board[25 - point] -= count
        return board

    def start_boards(self, n: int) -> np.ndarray:
        """n copies of the starting position: (n, 26) int8."""
        return np.tile(self.start_board(), (n, 1))

    # --- a single step (subclasses) --------------------------------------------------------

    # subclasses set two tables indexed by step code (see ``engine.movegen``):
    # delta (C, 26) int8, the board change; came_home (C,) int64, 1 when the step brings
    # a checker into the home board
    delta = came_home = None
    # the generator's exact merge key follows ``delta`` (each cell's change from the root,
    # at most 5 either way); rules whose cells change more set ``key_delta`` (C, 26), a
    # change that is as exact and as small (Plakoto: the mover's checkers per point)
    key_delta = None
    # how positions are written: "posid" (gnubg Position IDs) or the rules' own text
    position_format = "posid"

    def outside(self, boards: np.ndarray) -> np.ndarray:
        """The mover's checkers not yet home (points 7..24 and the bar): (M,) int64."""
        v = boards[:, 7:26]
        return np.where(v > 0, v, 0).sum(axis=1, dtype=np.int64)

    def steps(self, boards: np.ndarray, dice: np.ndarray, outside: np.ndarray):
        """Every legal single step of a batch: (parent (S,) row, code (S,) step code)."""
        raise NotImplementedError

    def step(self, board, source: int, die: int):
        """One checker from ``source`` by ``die`` on a scalar board (a sequence of 26 ints):
        ``(new board tuple, hit)``, or a string saying why the step is illegal."""
        raise NotImplementedError

    # --- actions before the roll (``before_roll_actions``) ------------------------------------

    def may_act(self, action: str, boards: np.ndarray, extra: dict) -> np.ndarray:
        """Where the player on roll may take ``action`` now: boards (N, 26) from his view,
        ``extra`` name -> (N,) his games' state -> (N,) bool. No actions here."""
        return np.zeros(len(boards), dtype=bool)

    def act(self, action: str, boards: np.ndarray, extra: dict) -> tuple[np.ndarray, dict]:
        """``action`` taken by the player on roll in N games: the boards after it (N, 26)
        int8, still from his view, and the new values of the state it changes (name ->
        (N,) int8; names it leaves alone are absent). New arrays; the inputs are kept."""
        raise ValueError(f"the {self.name} rules have no action {action!r} before the roll")

    # --- the end of the game ---------------------------------------------------------------

    def in_play(self, boards: np.ndarray, cells: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
        """Checkers still in play (on the points and the bars) for (mover, opponent): two
        (N,) int16 arrays; ``checkers`` minus them are borne off. As
        ``engine.board.on_board``, faster: summed cell-major in int8 (no side has more than
        15 checkers, and the bars at most 64 more in a network's folded form). ``cells``:
        the boards cell-major, (26, N) int8 C-contiguous, when the caller has them."""
        if cells is None:
            cells = np.ascontiguousarray(np.asarray(boards, dtype=np.int8).T)  # (26, N)
        mover = positive(cells).sum(axis=0, dtype=np.int8).astype(np.int16)
        return mover, mover - cells.sum(axis=0, dtype=np.int8)

    def end_of_game(self, afterstates: np.ndarray) -> np.ndarray:
        """Points won by the player who just moved: (N,) int8, 0 where the game goes on.

        afterstates (N, 26) int8 after the play, before changing sides. The race is won by
        bearing off the last checker: "If the opponent has not borne off any checkers, the
        winner scores a gammon (two points); if, in addition, the opponent still has a
        checker on the bar or in the winner's home board, a backgammon (three points)."
        """
        b = np.asarray(afterstates)
        out = np.zeros(b.shape[:-1], dtype=np.int8)
        # over where the mover has no checker left (one reduction over the batch); the
        # points are worked out on those few rows only
        over = np.flatnonzero(~(b > 0).any(axis=-1).reshape(-1))
        if len(over) == 0:
            return out
        ended = b.reshape(-1, b.shape[-1])[over]  # (E, 26)
        opponent = np.where(ended < 0, -ended, 0).sum(axis=-1, dtype=np.int32)
        gammon = opponent == self.checkers
        back = (ended[:, 0] < 0) | (ended[:, 1:7] < 0).any(axis=-1)
        points = np.where(gammon, np.where(back, BACKGAMMON, GAMMON), SINGLE)
        out.reshape(-1)[over] = points
        return out

    def __repr__(self) -> str:
        return f"<rules {self.name}>"
