"""The trial engine of rollouts: ``Trials`` plays trials of positions in lock-step through
the one turn of the game (``engine.game.Turn``: the variant's actions and the cube before
the roll, the roll, the play, ``end_turn``) and gives each trial's values for the root
player (the player on roll at the start), whatever order they ran in.

    values = Trials(player, evaluator, roots, settings, plays=None).run(pos, trial)

Up to ``CAPACITY`` trials are in flight at once, a finished trial's slot refilled at once.
A turn of every trial in flight: the variant's actions (Nuclear's bomb), then the cube (a
double passed ends the trial), the stops (truncation, the ply cap, the bear-off
database), the roll (``TrialDice``: from the seed, the position's dice stream, the trial
and the ply alone), its luck (variance reduction, ``eval.analysis.rollout_vr``), the play
(``eval.analysis.rollout_players``: the bot asked, or ``plays``, a 0-ply net's plays
worked out here) and the end of the games.
A finished trial's value: its exact result, the points of a pass, or at a stop the net's
(the database's) probabilities with, cubeful, the cube model's equity of the cube as it
lies; at a match score in match winning chances (``model.match_cube``).

Trials run on one thread (``one_thread``: more cores come as more processes, the Ray
workers of ``eval.analysis.rollout_actors``) with the C heap kept warm
(``eval.analysis.heap``).
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

import numpy as np

from gammon.engine.bearoff import exact_races, settled
from gammon.engine.cube import Cube, CubeRules
from gammon.engine.cube_policy import tell_score
from gammon.engine.game import GameState, Turn
from gammon.engine.match import MatchContext, MatchScore
from gammon.engine.outcomes import OUTCOME_POINTS, certain
from gammon.model.cube import cubeful_equity

from .heap import kept_heap
from .rollout_dice import TrialDice, roll_index
from .rollout_players import NetPlays, ask_bot
from .rollout_roots import Roots
from .rollout_settings import MAX_PLIES, Settings
from .rollout_vr import as_evaluator, folded, luck, roll_values

CAPACITY = 4096  # trials in flight at once (finished ones are replaced at once)


class Trials:
    """Trials of positions in lock-step: ``run(pos, trial)`` plays the trials (P_j, T_j)
    and returns each one's values, in the order asked, whatever the order they ran in.

    Up to ``capacity`` trials are in flight; a finished trial's slot takes the next one at
    once. ``evaluator`` (None for a bot without probabilities) values truncations, passes,
    the plies' luck and the cubeful end of a truncated trial. ``player`` plays both sides;
    its plays of the rolls are asked of it (``plays=None``) or, for a 0-ply net, worked out
    by ``plays`` (``eval.analysis.rollout_players.NetPlays``, which the caller chooses:
    ``net_plays``). Never at a match score: a net then chooses by match winning chance."""

    def __init__(self, player, evaluator, roots: Roots, settings: Settings,
                 capacity: int | None = None, progress=None, plays: NetPlays | None = None):
        self.player, self.roots, self.settings = player, roots, settings
        self.rules = settings.rules
        self.evaluator = None if evaluator is None else as_evaluator(evaluator, self.rules)
        self.capacity = CAPACITY if capacity is None else capacity
        self.progress = progress
        self.match = roots.match
        self.cubeful = settings.cubeful
        self.cube_rules = (CubeRules() if self.match
                           else CubeRules(settings.jacoby, settings.beavers))
        self.bearoff = settings.stops_in_bearoff
        self.dice = TrialDice(settings.seed, settings.quasi)
        self.plays = plays
        # a 0-ply net's play of the roll rolled is read off the variance reduction's best
        # plays; without variance reduction ``plays`` works it out, where no variant state
        # (Nuclear's bomb) goes with the board
        self.shortcut = settings.vr and plays is not None
        self.plays_itself = plays is not None and not self.rules.extra_state
        if self.match:
            from gammon.model.match_cube import met_for
            self.met = met_for(MatchScore(length=int(roots.length.max())))
            # M after the game for each of the six outcomes at the position's cube
            self.m6 = np.stack([self._mwc_after(np.arange(len(roots.boards)),
                                                np.full(len(roots.boards), k),
                                                roots.cube) for k in range(6)], axis=1)

    # the values of finished trials, for the root player --------------------------------------

    def _mwc_after(self, pos, outcome, value) -> np.ndarray:
        """The root player's MWC after a game whose result is ``outcome`` (0..5, the six
        from his side) at cube ``value``: (n,)."""
        from gammon.model.match_cube import match_winning_chances
        p6 = np.zeros((len(pos), 6))
        p6[np.arange(len(pos)), outcome] = 1.0
        return match_winning_chances(p6, self.roots.score(pos, np.asarray(value), 0), self.met)

    def _probs(self, slots) -> np.ndarray:
        """The six outcomes (n, 6) of the positions in the slots, for the player on roll:
        the net's (the bear-off database's where it settles them), else the database's."""
        boards = self.state.boards[slots]
        if self.evaluator is not None:
            return np.asarray(self.evaluator(folded(self.evaluator, boards,
                                                    self._extra(slots))),
                              dtype=np.float64)
        out = np.zeros((len(slots), 6))
        out[:, 2] = out[:, 3] = 0.5  # a bot without probabilities: only the cap's even game
        rows, exact = exact_races(boards, self.rules)
        out[rows] = exact
        return out

    def _extra(self, slots) -> dict:
        """The variant's state of the slots' games: name -> (n,)."""
        return {name: v[slots] for name, v in self.state.extra.items()}

    def _root(self, six: np.ndarray, slots) -> np.ndarray:
        """Six outcomes for the player on roll in the slots -> for the root player."""
        return np.where((self.state.seat[slots] == 0)[:, None], six, six[:, ::-1])

    def _finish(self, slots, six_root, cubeful=None) -> None:
        job = self.job[slots]
        self.out6[job] = six_root + self.est6[slots]
        if self.cubeful:
            self.out_cf[job] = cubeful + self.est_cf[slots]
        self.out_plies[job] = self.ply[slots]
        self.active[slots] = False
        self.finished += len(slots)

    def _finish_stopped(self, slots) -> None:
        """Trials stopped before the roll (truncation, the bear-off database, the ply cap)."""
        probs = self._probs(slots)
        cubeful = None
        if self.cubeful:
            st, pos = self.state, self.pos[slots]
            value, owner = st.cube.value[slots], st.cube.owner[slots]
            if self.match:
                from gammon.model.match_cube import match_cube_equities
                score = self.roots.score(pos, value, owner)
                seat = st.seat[slots]
                # the score from the player on roll's side: the root's, or its mirror
                mine = MatchScore(np.where(seat == 0, score.away, score.opp_away),
                                  np.where(seat == 0, score.opp_away, score.away),
                                  score.length, score.crawford, value, owner)
                nd = np.asarray(match_cube_equities(probs, mine, self.met,
                                                    self.settings.efficiency).no_double)
                cubeful = np.where(seat == 0, nd, 1.0 - nd)
            else:
                eq = cubeful_equity(probs, owner, self.settings.efficiency,
                                    self.settings.jacoby) * value / self.roots.cube[pos]
                cubeful = np.where(st.seat[slots] == 0, eq, -eq)
        self._finish(slots, self._root(probs, slots), cubeful)

    def _finish_passed(self, slots) -> None:
        """Trials ended by a passed double: the pass's points; the cubeless outcomes from
        the net's probabilities of the position (the doubler on roll)."""
        st, pos = self.state, self.pos[slots]
        if self.match:
            won = np.where(st.points[slots] > 0, 2, 3)  # single win or loss, root's side
            cubeful = self._mwc_after(pos, won, st.cube.value[slots])
        else:
            cubeful = st.points[slots] / self.roots.cube[pos]
        self._finish(slots, self._root(self._probs(slots), slots), cubeful)

    def _finish_games(self, slots, won) -> None:
        """Trials whose game the last play ended: ``won`` (n,) the rules' points of the
        player who moved (the seats have already changed)."""
        st, pos = self.state, self.pos[slots]
        mover_six = certain(won)
        root = np.where((st.seat[slots] == 1)[:, None], mover_six, mover_six[:, ::-1])
        cubeful = None
        if self.cubeful:
            if self.match:
                outcome = np.argmax(root, axis=1)
                cubeful = self._mwc_after(pos, outcome, st.cube.value[slots])
            else:
                cubeful = st.points[slots] / self.roots.cube[pos]
        self._finish(slots, root.astype(np.float64), cubeful)

    # the loop ----------------------------------------------------------------------------

    def run(self, pos: np.ndarray, trial: np.ndarray) -> dict[str, np.ndarray]:
        """Play the trials ``trial`` (J,) of the positions ``pos`` (J,): their values in
        that order: "outcomes" (J, 6), "cubeful" (J,) or None, "mwc" (J,) or None,
        "plies" (J,). The nets' outputs do not depend on how the trials are batched
        (``model.rows.batch_independent``)."""
        from gammon.model.rows import batch_independent
        with batch_independent():
            return self._run(pos, trial)

    def _run(self, pos: np.ndarray, trial: np.ndarray) -> dict[str, np.ndarray]:
        pos, trial = np.asarray(pos, dtype=np.int64), np.asarray(trial, dtype=np.int64)
        jobs = len(pos)
        self.jobs_pos, self.jobs_trial = pos, trial
        self.out6 = np.zeros((jobs, 6))
        self.out_cf = np.zeros(jobs) if self.cubeful else None
        self.out_plies = np.zeros(jobs, dtype=np.int32)
        s = min(self.capacity, max(jobs, 1))
        self.state = GameState(np.zeros((s, 26), dtype=np.int8), np.zeros(s, dtype=np.int8),
                               Cube.centred(s) if (self.cubeful or self.match) else None,
                               {name: np.zeros(s, dtype=np.int8)
                                for name in self.rules.extra_state})
        self.context = (MatchContext(np.zeros(s, dtype=np.int64),
                                     np.zeros((s, 2), dtype=np.int64), np.zeros(s, dtype=bool))
                        if self.match else None)
        self.turn = _TrialTurn(self)
        self.active = np.zeros(s, dtype=bool)
        self.job = np.zeros(s, dtype=np.int64)
        self.pos = np.zeros(s, dtype=np.int64)
        self.trial = np.zeros(s, dtype=np.int64)
        self.ply = np.zeros(s, dtype=np.int64)
        self.est6 = np.zeros((s, 6))
        self.est_cf = np.zeros(s)
        self.next = 0
        self.finished = 0
        reported = 0
        try:
            with one_thread(), kept_heap():
                while True:
                    self._refill()
                    if not self.active.any():
                        break
                    self._turn()
                    if self.progress is not None and self.finished > reported:
                        self.progress(self.finished - reported)
                        reported = self.finished
        finally:
            if self.match:
                tell_score(self.player, None)
        mwc = (self.out6 * self.m6[pos]).sum(axis=1) if self.match else None
        return {"outcomes": self.out6, "cubeful": self.out_cf, "mwc": mwc,
                "plies": self.out_plies}

    def _refill(self) -> None:
        free = np.flatnonzero(~self.active)
        take = min(len(free), len(self.jobs_pos) - self.next)
        if take <= 0:
            return
        slots = free[:take]
        job = np.arange(self.next, self.next + take)
        self.next += take
        p = self.jobs_pos[job]
        r, st = self.roots, self.state
        self.job[slots], self.pos[slots], self.trial[slots] = job, p, self.jobs_trial[job]
        self.ply[slots] = 0
        self.est6[slots] = 0.0
        self.est_cf[slots] = 0.0
        st.boards[slots] = r.boards[p]
        st.seat[slots] = 0
        st.points[slots] = 0
        st.plies[slots] = 1  # not an opening: the player on roll may detonate at once
        if st.cube is not None:
            st.cube.value[slots], st.cube.owner[slots] = r.cube[p], r.owner[p]
        for name, values in r.extra.items():
            st.extra[name][slots] = values[p]
        if self.context is not None:
            self.context.length[slots] = r.length[p]
            self.context.score[slots] = r.length[p, None] - r.away[p]
            self.context.crawford[slots] = r.crawford[p]
        self.active[slots] = True

    def _turn(self) -> None:
        """One turn of every trial in flight (``_TrialTurn``)."""
        act = np.flatnonzero(self.active)
        if len(act):
            self.turn(act)


class _TrialTurn(Turn):
    """A turn of the trials: the variant's actions where the trial goes on (not at its
    truncation or the ply cap), the cube (at the root only where ``double_at_start``), the
    stops (truncation, the ply cap, the bear-off database), the roll (``TrialDice``), its
    luck (variance reduction) and the play, then the ends of the games."""

    def __init__(self, trials: Trials):
        players = (trials.player, trials.player)
        super().__init__(players, trials.state, trials.rules,
                         trials.cube_rules if trials.cubeful else None, match=trials.context)
        self.trials = trials

    def _cut(self, rows: np.ndarray) -> np.ndarray:
        k = self.trials.ply[rows]
        cut = k >= MAX_PLIES
        if self.trials.settings.truncate is not None:
            cut |= k >= self.trials.settings.truncate
        return cut

    def may_act(self, rows):
        return ~self._cut(rows)

    def may_double(self, rows):
        return None if self.trials.settings.double_at_start else self.trials.ply[rows] > 0

    def passed(self, rows):
        self.trials._finish_passed(rows)

    def stops(self, rows):
        stop = self._cut(rows)
        if self.trials.bearoff and len(rows):
            stop = stop | settled(self.state.boards[rows], self.rules)
        return stop

    def stopped(self, rows):
        self.trials._finish_stopped(rows)

    def roll(self, rows):
        t = self.trials
        return t.dice.rolls(t.roots.keys[t.pos[rows]], t.trial[rows], t.ply[rows])

    def play(self, rows, roll):
        t, st = self.trials, self.state
        boards = st.boards[rows]
        if t.settings.vr:
            values, best = roll_values(t.evaluator, boards, t._extra(rows))
            rolled = roll_index(roll)
            lk = t._root(luck(values, rolled), rows)
            t.est6[rows] -= lk
            if t.cubeful and not t.match:  # the cubeless luck times the cube
                scale = st.cube.value[rows] / t.roots.cube[t.pos[rows]]
                t.est_cf[rows] -= scale * (lk @ OUTCOME_POINTS)
            if t.shortcut:
                return best[np.arange(len(rows)), rolled]
        if t.plays_itself:
            return t.plays(boards, roll)
        return ask_bot(t.player, st, rows, boards, roll, self.rules, t.context)

    def ended(self, rows, won):
        self.trials.ply[rows] += 1
        over = won != 0
        if over.any():
            self.trials._finish_games(rows[over], won[over])


@contextmanager
def one_thread():
    """Torch and NumPy's BLAS (``eval.analysis.blas``) on one thread while trials run
    (restored after): the batches are small, and a second thread waiting on a busy core
    costs many times what it gains. A rollout uses more cores as more processes
    (``eval.analysis.rollout_actors``)."""
    from .blas import blas_threads
    torch = sys.modules.get("torch")
    with blas_threads(1):
        if torch is None:
            yield
            return
        before = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            yield
        finally:
            torch.set_num_threads(before)


__all__ = ["CAPACITY", "Trials", "one_thread"]
