"""Nuclear backgammon, as we read our rules source.

Source: "a bomb, at the start owned by nobody (like the cube); at any time either player
may declare an explosion: all blots count as hit and go to the bar, and the bomb passes to
the opponent's side".

Reading: the decision comes before the roll, like a double; a player may detonate when the
bomb is centred or his; every blot of both players goes to its owner's bar (joining any
checkers already there); the bomb then belongs to the opponent, who may detonate it later.
Gammons and backgammons as usual.

Positions are written as the mover's checkers (x) and the opponent's (o), both by the
mover's point numbers; ``"bar"`` is each side's own bar (as in tests/test_rules.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import gammon.eval.bots.nuclear as nuclear_bots
from inprocess import gammon as run_in_process
from gammon.engine.board import pip_counts
from gammon.engine.cube import CubeRules
from gammon.engine.formats import posid
from gammon.engine.formats.notation import format_play
from gammon.engine.game import (action_decisions, end_turn, new_games, play, play_turn,
                         random_policy)
from gammon.engine.movegen import legal_plays
from gammon.engine.rules import NUCLEAR, STANDARD, variant
from gammon.engine.rules.nuclear import explode, explode_one, may_detonate
from gammon.engine.sample import from_random_play
from gammon.eval.bots.nuclear import (BombBot, EquityDetonate, HeuristicDetonate, RandomDetonate,
                               detonation_gain, with_bomb)
from gammon.eval.bots.registry import make_bot
from test_rules import position  # the readable x/o positions

DATA = Path(__file__).parent / "data" / "variants_public.jsonl"


def boom(x: dict, o: dict) -> np.ndarray:
    """The position after a detonation by the player on roll."""
    return explode(position(x, o)[None])[0]


# --- the explosion -----------------------------------------------------------------------


def test_all_blots_of_both_sides_go_to_their_owners_bars():
    """"all blots count as hit and go to the bar": ours to our bar, theirs to theirs."""
    after = boom({13: 5, 9: 1, 4: 1, 24: 1}, {19: 1, 7: 1, 12: 3})
    assert (after == position({13: 5, "bar": 3}, {12: 3, "bar": 2})).all()


def test_blots_join_checkers_already_on_the_bar():
    """"every blot of both players goes to its owner's bar (joining any checkers already
    there)"."""
    after = boom({"bar": 2, 6: 1, 8: 4}, {"bar": 1, 20: 1, 1: 2})
    assert (after == position({"bar": 3, 8: 4}, {"bar": 2, 1: 2})).all()


def test_points_of_two_or_more_are_untouched():
    after = boom({6: 2, 8: 3, 13: 1}, {19: 2, 12: 5, 1: 1})
    assert (after == position({6: 2, 8: 3, "bar": 1}, {19: 2, 12: 5, "bar": 1})).all()


def test_no_blots_no_change():
    start = NUCLEAR.start_board()
    assert (explode(start[None])[0] == start).all()
    empty_handed = position({"bar": 1, 6: 2}, {"bar": 2, 20: 3})
    assert (explode(empty_handed[None])[0] == empty_handed).all()


def test_vectorised_and_plain_explosion_agree_and_keep_every_checker():
    rng = np.random.default_rng(8)
    boards, _ = from_random_play(rng, 30, "nuclear")
    after = explode(boards)
    assert [tuple(b) for b in after.tolist()] == [explode_one(b) for b in boards.tolist()]
    assert after.dtype == np.int8 and after.shape == boards.shape
    assert not ((after[:, 1:25] == 1) | (after[:, 1:25] == -1)).any()  # no blot is left
    for sign in (1, -1):  # no checker is lost or gained on either side
        assert ((after * sign).clip(0).sum(axis=1) == (boards * sign).clip(0).sum(axis=1)).all()
    assert (explode(after) == after).all()  # a second explosion finds nothing


def test_all_oracle_cases_match():
    """The 60 Nuclear cases of the independent implementation: the position after a
    detonation (as Position IDs and as boards), and the legal results where a case has a
    roll (movement is standard)."""
    with open(DATA) as f:
        cases = [c for c in map(json.loads, f) if c["variant"] == "nuclear"]
    assert len(cases) == 60
    boards = np.array([c["board"] for c in cases], dtype=np.int8)
    for case, board in zip(cases, boards):
        assert (posid.decode(case["position"]) == board).all(), case["case"]
    after = explode(boards)
    assert posid.encode_many(after) == [c["after"] for c in cases]
    assert after.tolist() == [c["after_board"] for c in cases]
    assert [list(explode_one(b)) for b in boards.tolist()] == [c["after_board"] for c in cases]
    tags = {t for c in cases for t in c.get("tags", ())}
    assert {"both_blots", "no_blots", "unchanged", "bar_before"} <= tags
    for i, case in enumerate(cases):  # the file's nuclear cases have no roll today
        if "d1" in case:
            plays = legal_plays(boards[[i]], np.array([[case["d1"], case["d2"]]]), NUCLEAR)
            ours = sorted(posid.encode_many(plays.boards)) if plays.dice_used[0] else []
            assert ours == case["results"], case["case"]


# --- movement, the end of the game -------------------------------------------------------


def plays(x, o, roll) -> set[str]:
    p = legal_plays(position(x, o)[None], np.array([roll]), NUCLEAR)
    return {format_play(p.steps[k], p.hits[k]) for k in range(len(p))}


def test_movement_is_standard_no_play():
    """After an explosion our blot is on the bar and both entry points are closed: "the
    whole roll is lost"."""
    board = boom({13: 1, 8: 2}, {19: 2, 24: 2, 10: 1})
    assert board[25] == 1 and board[0] == -1
    assert legal_plays(board[None], np.array([[6, 1]]), NUCLEAR).dice_used.tolist() == [0]
    assert plays({"bar": 1, 8: 2}, {19: 2, 24: 2, "bar": 1}, (6, 1)) == {""}


def test_movement_is_standard_one_die():
    """Only one die can be used: the larger (standard rules)."""
    assert plays({12: 1}, {1: 2}, (6, 5)) == {"12/6"}
    assert plays({"bar": 2, 8: 1}, {19: 2}, (6, 1)) == {"bar/24"}


def test_nuclear_plays_are_the_standard_ones():
    rng = np.random.default_rng(4)
    boards, dice = from_random_play(rng, 10, "nuclear")
    boards = explode(boards)  # positions a detonation leaves: many checkers on the bars
    a = legal_plays(boards, dice.astype(np.int64), NUCLEAR)
    b = legal_plays(boards, dice.astype(np.int64), STANDARD)
    assert (a.root == b.root).all() and (a.boards == b.boards).all()


def test_gammons_and_backgammons_as_usual():
    after = np.zeros((3, 26), np.int8)
    after[0, 20] = -14  # the opponent bore one off: single
    after[1, 20] = -15  # none off: gammon
    after[2, 20], after[2, 0] = -14, -1  # none off, one on the bar: backgammon
    assert NUCLEAR.end_of_game(after).tolist() == [1, 2, 3]
    assert variant("nuclear") is NUCLEAR and NUCLEAR.checkers == 15
    assert (NUCLEAR.start_board() == STANDARD.start_board()).all()
    assert NUCLEAR.extra_state == ("bomb",) and NUCLEAR.relative_state == ("bomb",)


# --- the bomb in the game loop -----------------------------------------------------------


class Detonator:
    """A policy playing at random that detonates whenever it is asked (or never), and
    records what it is asked and told."""

    def __init__(self, seed: int, fire: bool = True):
        self.choose = random_policy(np.random.default_rng(seed))
        self.fire = fire
        self.asked: list[np.ndarray] = []
        self.told: list[np.ndarray] = []

    def __call__(self, plays, boards, dice):
        return self.choose(plays, boards, dice)

    def detonate(self, boards, bomb):
        self.asked.append(np.asarray(bomb).copy())
        return np.full(len(boards), self.fire)

    def observe_extra(self, extra):
        self.told.append(extra["bomb"].copy())


def _detonations(policies, state, rows):
    """Nuclear's decision before the roll, as the turn takes it (``engine.game``)."""
    return action_decisions(policies, state, rows, NUCLEAR, "detonate")


def _games_after_one_play(n: int = 4):
    """Nuclear games in which seat 0 has made its opening play: seat 1 on roll."""
    state = new_games(NUCLEAR, np.zeros(n, dtype=np.int8))
    rows = np.arange(n)
    assert state.extra["bomb"].tolist() == [0] * n  # "at the start owned by nobody"
    after = play_turn((random_policy(np.random.default_rng(1)),) * 2, state.boards,
                      state.seat, np.tile([3, 1], (n, 1)), NUCLEAR)
    end_turn(state, rows, after, NUCLEAR)
    return state, rows


def test_the_bomb_passes_to_the_opponent():
    state, rows = _games_after_one_play()
    state.boards[:] = position({13: 1, 6: 4}, {20: 1, 19: 2})  # a blot each
    before = state.boards.copy()
    fired = _detonations((Detonator(1), Detonator(2)), state, rows)
    assert fired.all()
    assert (state.boards == explode(before)).all()  # both blots went to the bars
    assert (state.boards[:, 25] == 1).all() and (state.boards[:, 0] == -1).all()
    assert state.extra["bomb"].tolist() == [-1] * 4  # the opponent's, relative to the mover
    end_turn(state, rows, state.boards.copy(), NUCLEAR)  # the turn passes (a null play)
    assert state.extra["bomb"].tolist() == [1] * 4  # ... so the new player on roll owns it
    assert not may_detonate(np.array([-1])).any() and may_detonate(np.array([0, 1])).all()


def test_a_player_cannot_detonate_when_the_opponent_owns_the_bomb():
    state, rows = _games_after_one_play()
    state.extra["bomb"][:] = [-1, 0, 1, -1]
    state.boards[:] = position({13: 1, 6: 4}, {20: 1, 19: 2})
    before = state.boards.copy()
    policy = Detonator(1)
    fired = _detonations((policy, policy), state, rows)
    assert fired.tolist() == [False, True, True, False]
    assert [b.tolist() for b in policy.asked] == [[0, 1]]  # only where he may
    assert (state.boards[[0, 3]] == before[[0, 3]]).all()
    assert state.extra["bomb"].tolist() == [-1, -1, -1, -1]


def test_no_detonation_before_the_opening_roll():
    state = new_games(NUCLEAR, np.array([0, 1], dtype=np.int8))
    policy = Detonator(1)
    assert not _detonations((policy, policy), state, np.arange(2)).any()
    assert policy.asked == []
    rng = np.random.default_rng(2)
    opening: list[np.ndarray] = []
    play((policy, policy), 20, rng, "nuclear", max_plies=1,
         on_position=lambda b, d: opening.append(b.copy()))
    assert policy.asked == []  # the opening roll is played at once
    assert (opening[0] == NUCLEAR.start_board()).all()


def test_a_policy_without_detonate_never_detonates():
    policy = random_policy(np.random.default_rng(3))
    r = play((policy, policy), 50, np.random.default_rng(3), "nuclear")
    assert r.actions["detonate"].sum() == 0
    assert play((policy, policy), 5, np.random.default_rng(3)).actions == {}


def test_the_bomb_alternates_as_specified_in_a_game_loop():
    """The loop step by step: asked only when centred or his; after a detonation the
    board is exploded and the bomb the opponent's; negated whenever the turn passes;
    observe_extra told the bomb of the games a policy chooses for."""
    n = 200
    rng = np.random.default_rng(11)
    asked: list[np.ndarray] = []

    def coin(boards, bomb):  # detonates one time in five, recording what it is asked
        asked.append(np.asarray(bomb).copy())
        return rng.random(len(boards)) < 0.2

    a, b = BombBot(Detonator(1), coin), BombBot(Detonator(2), coin)
    policies = (a, b)
    state = new_games(NUCLEAR, rng.integers(0, 2, n).astype(np.int8))
    owner = np.zeros(n, dtype=np.int8)  # the bomb by seat: 0 centred, 1 seat 0, -1 seat 1
    live = np.arange(n)
    fired_total, bars_filled = 0, 0
    for ply in range(3000):
        if len(live) == 0:
            break
        sign = np.where(state.seat[live] == 0, 1, -1)
        assert (state.extra["bomb"][live] * sign == owner[live]).all()
        if ply:
            before = state.boards[live].copy()
            fired = _detonations(policies, state, live)
            g = live[fired]
            assert (owner[g] * sign[fired] >= 0).all()  # centred or the mover's
            owner[g] = -sign[fired]  # now the other seat's
            assert (state.boards[g] == explode(before[fired])).all()
            assert (state.boards[live[~fired]] == before[~fired]).all()
            fired_total += len(g)
            bars_filled += int((state.boards[g, 25] > before[fired, 25]).sum())
            bars_filled += int((state.boards[g, 0] < before[fired, 0]).sum())
        told = len(a.told) + len(b.told)
        roll = rng.integers(1, 7, (len(live), 2))
        extra = {"bomb": state.extra["bomb"][live]}
        after = play_turn(policies, state.boards[live], state.seat[live], roll, NUCLEAR, extra)
        assert len(a.told) + len(b.told) == told + (state.seat[live] == 0).any() + \
            (state.seat[live] == 1).any()
        mine = state.seat[live] == 0
        if mine.any():
            assert (a.told[-1] == state.extra["bomb"][live][mine]).all()
        won = end_turn(state, live, after, NUCLEAR)
        live = live[won == 0]
    assert len(live) == 0
    assert fired_total > 100 and bars_filled > 100
    asked_bombs = np.concatenate(asked)  # asked only where the bomb is centred or the asker's
    assert set(asked_bombs.tolist()) == {0, 1}


@pytest.mark.parametrize("cube", [None, CubeRules()])
def test_random_nuclear_games_between_bots(cube):
    """Bots of the registry: games end with legal points, both seats detonate, blots
    reach the bars. (Random against random detonates so often, the bomb coming back at
    once, that its games run for thousands of plies: median about 4,300; so random plays
    the heuristic here.)"""
    bots = (make_bot("random", 5, "nuclear"), make_bot("heuristic", 6, "nuclear"))
    exploded = []
    rng = np.random.default_rng(7)
    r = play(bots, 300, rng, "nuclear", cube=cube,
             on_position=lambda b, d: exploded.append(b.copy()))
    assert (r.points != 0).all()  # every game finished
    kinds = np.abs(r.points) if cube is None else np.abs(r.points) // r.cube
    assert set(kinds.tolist()) <= {1, 2, 3}
    assert (r.actions["detonate"] > 0).any(axis=0).all() and r.actions["detonate"].sum() > 300
    assert (np.concatenate(exploded)[:, 25] >= 3).any()  # blots sent home together
    if cube is not None:
        assert r.offers is not None


def test_nuclear_games_are_reproducible():
    def run():
        bots = (make_bot("random", 1, "nuclear"), make_bot("heuristic", 2, "nuclear"))
        return play(bots, 40, np.random.default_rng(9), "nuclear")
    x, y = run(), run()
    assert (x.points == y.points).all() and (x.actions["detonate"] == y.actions["detonate"]).all()


# --- the bots' detonation rules ----------------------------------------------------------


def test_gain_counts_pips_lost_in_the_right_direction(monkeypatch):
    """An opponent's checker on our point q loses q pips, ours on p loses 25 - p: with the
    board weight off, the gain is exactly the change of the two pip counts."""
    monkeypatch.setattr(nuclear_bots, "BOARD_WEIGHT", 0.0)
    boards, _ = from_random_play(np.random.default_rng(12), 20, "nuclear")
    ours, theirs = pip_counts(boards)
    ours2, theirs2 = pip_counts(explode(boards))
    assert (detonation_gain(boards) == (theirs2 - theirs) - (ours2 - ours)).all()


def test_heuristic_detonates_on_advanced_opponent_blots():
    """Their blots on our 20, 18 and 15 points lose 53 pips; our 6- and 5-points made make
    entering harder: 53 * (1 + 2/3) = 88.3 >= 55 pips: detonate."""
    board = position({6: 4, 5: 3, 13: 4, 8: 4}, {20: 1, 18: 1, 15: 1, 1: 2, 12: 10})
    assert detonation_gain(board[None]) == pytest.approx([53 * (1 + 2 / 3)])
    assert HeuristicDetonate()(board[None], np.array([0])).tolist() == [True]


def test_heuristic_holds_when_its_own_blots_lose_too_much():
    """The same, with our blot on our 3-point (loses 22 pips, facing their two-point
    board): 88.3 - 22 * (1 + 2/3) = 51.7 < 55: keep the bomb."""
    board = position({6: 4, 5: 3, 13: 4, 8: 3, 3: 1},
                     {20: 1, 18: 1, 15: 1, 1: 2, 12: 6, 24: 2, 23: 2})
    assert detonation_gain(board[None]) == pytest.approx([53 * 5 / 3 - 22 * 5 / 3])
    assert HeuristicDetonate()(board[None], np.array([1])).tolist() == [False]


def test_heuristic_holds_for_small_gains_and_without_blots():
    small = position({6: 5, 13: 5, 8: 5}, {2: 1, 12: 14})  # their blot loses 2 pips
    start = NUCLEAR.start_board()
    assert HeuristicDetonate()(np.stack([small, start]), np.zeros(2)).tolist() == [False,
                                                                                    False]
    assert detonation_gain(start[None]).tolist() == [0.0]


def test_random_bot_detonates_half_the_time_from_its_seed():
    boards = np.tile(NUCLEAR.start_board(), (2000, 1))
    bomb = np.zeros(2000, dtype=np.int8)
    first = make_bot("random", 42, "nuclear").detonate(boards, bomb)
    again = make_bot("random", 42, "nuclear").detonate(boards, bomb)
    assert (first == again).all() and 0.45 < first.mean() < 0.55


def test_make_bot_gives_bots_a_bomb_rule_only_in_nuclear():
    heuristic = make_bot("heuristic", 1, "nuclear")
    assert isinstance(heuristic.rule, HeuristicDetonate) and heuristic.name == "heuristic"
    assert isinstance(make_bot("random", 1, "nuclear").rule, RandomDetonate)
    assert isinstance(make_bot("pubeval", 1, "nuclear").rule, HeuristicDetonate)
    cubeful = make_bot("heuristic", 1, "nuclear", cube="race")
    board = position({6: 4, 5: 3, 13: 4, 8: 4}, {20: 1, 18: 1, 15: 1, 1: 2, 12: 10})
    assert cubeful.detonate(board[None], np.zeros(1)).tolist() == [True]
    for name in ("random", "heuristic", "pubeval"):
        assert getattr(make_bot(name, 1, "standard"), "detonate", None) is None


def test_a_bot_with_its_own_detonate_keeps_it():
    own = Detonator(1, fire=False)
    assert with_bomb(own) is own


def test_equity_detonate_compares_the_position_with_and_without_the_explosion():
    def equity(boards, bomb):  # a toy evaluator: the race lead, and owning the bomb is worth 5
        ours, theirs = pip_counts(boards)
        return (theirs - ours) + 5.0 * np.asarray(bomb)

    rule = EquityDetonate(equity)
    good = position({6: 4, 13: 11}, {20: 1, 12: 14})  # +20 pips, but the bomb: -5 or -10
    bad = position({6: 4, 13: 10, 3: 1}, {20: 1, 12: 14})  # +20 - 22
    assert rule(np.stack([good, good, bad]), np.array([0, 1, 0])).tolist() == [True, True,
                                                                             False]


# --- the command line --------------------------------------------------------------------


def gammon(*args, stdin=None):
    """``gammon ARGS`` in this process (a subprocess each cost seconds of start-up)."""
    return run_in_process(*args, stdin=stdin)


def test_cli_explode_one_position():
    out = gammon("explode", "fwzgQEJ/AADgcw")
    assert out.returncode == 0 and out.stderr == ""
    assert out.stdout == "fwzgAHB/AADgcw\n"


def test_cli_explode_batch_answers_every_line_and_goes_on():
    out = gammon("explode", "--batch",
                 stdin="fwzgQEJ/AADgcw\nnot-a-position\n4HPwATDgc/ABMA extra\n4HPwATDgc/ABMA\n")
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert len(lines) == 4
    assert lines[0] == "fwzgAHB/AADgcw" and lines[3] == "4HPwATDgc/ABMA"
    assert lines[1].startswith("error: ") and lines[2].startswith("error: ")


@pytest.mark.parametrize("args", [["explode", "zzz"], ["explode", "!!!!!!!!!!!!!!"],
                                  ["explode"], ["explode", "--batch", "4HPwATDgc/ABMA"]])
def test_cli_explode_bad_input_is_one_line_with_exit_2(args):
    out = gammon(*args)
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.splitlines()) == 1 and "Traceback" not in out.stderr
    assert out.stderr.startswith("gammon explode: error: ")


def test_cli_explode_help_has_an_example():
    out = gammon("explode", "--help")
    assert out.returncode == 0 and "gammon explode fwzgQEJ/AADgcw" in out.stdout


def test_cli_moves_and_show_in_nuclear():
    moves = gammon("moves", "--variant", "nuclear", "4HPwATDgc/ABMA", "3", "1")
    standard = gammon("moves", "4HPwATDgc/ABMA", "3", "1")
    assert moves.returncode == 0 and moves.stdout == standard.stdout != ""
    shown = {bomb: gammon("show", "--variant", "nuclear", *(["--bomb", bomb] if bomb else []),
                          "fwzgQEJ/AADgcw").stdout
             for bomb in (None, "centre", "mine", "theirs")}
    assert "bomb: centred" in shown[None] and shown[None] == shown["centre"]
    assert "bomb: X's" in shown["mine"] and "bomb: O's" in shown["theirs"]
    assert "bomb" not in gammon("show", "fwzgQEJ/AADgcw").stdout
    wrong = gammon("show", "--bomb", "mine", "4HPwATDgc/ABMA")
    assert wrong.returncode == 2 and "nuclear" in wrong.stderr
