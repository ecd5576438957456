"""The one turn (``engine.game.Turn``): a new variant with its own state and an action
before the roll is one rules module, and it plays through the game loop, rollouts and
self-play with none of them touched.

The test variant, "amnesty" (written here, nowhere else): standard backgammon plus an
amnesty token, centred at the start like the cube. Before his roll, the player on roll
may, when the token is centred or his and he has checkers on the bar, call an amnesty:
his checkers on the bar enter on his 24-point at once (where the opponent holds at most a
blot there, which is then hit), and the token passes to the opponent.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.board import BAR, OPP_BAR
from gammon.engine.game import Turn, action_decisions, end_turn, new_games, play, random_policy
from gammon.engine.rules.standard import STANDARD, StandardRules


# --- the variant: one rules module --------------------------------------------------------


class AmnestyRules(StandardRules):
    """Standard rules and the amnesty token (``extra_state`` "token", relative to the seat
    on roll: +1 his, -1 the opponent's, 0 centred)."""

    # an amnesty can bring a checker back from the bar in a race position's place: the
    # standard race database still values a race (no contact: no bar), so it stays on

    def may_act(self, action, boards, extra):
        if action != "amnesty":
            return super().may_act(action, boards, extra)
        return (extra["token"] >= 0) & (boards[:, BAR] > 0) & (boards[:, 24] >= -1)

    def act(self, action, boards, extra):
        if action != "amnesty":
            return super().act(action, boards, extra)
        out = np.array(boards, dtype=np.int8, copy=True)
        hit = out[:, 24] == -1
        out[hit, 24] = 0
        out[hit, OPP_BAR] -= 1
        out[:, 24] += out[:, BAR]
        out[:, BAR] = 0
        return out, {"token": np.full(len(out), -1, dtype=np.int8)}


AMNESTY = AmnestyRules("amnesty", 15, STANDARD.layout, extra_state=("token",),
                       relative_state=("token",), before_roll_actions=("amnesty",))


# --- players -------------------------------------------------------------------------------


class Caller:
    """A random player that calls an amnesty whenever it is asked, recording what it was
    asked with (the token, relative to it, and the boards)."""

    def __init__(self, seed: int):
        self.choose = random_policy(np.random.default_rng(seed))
        self.asked_tokens: list[np.ndarray] = []
        self.asked_boards: list[np.ndarray] = []

    def __call__(self, plays, boards, dice):
        return self.choose(plays, boards, dice)

    def amnesty(self, boards, token):
        self.asked_tokens.append(np.array(token))
        self.asked_boards.append(np.array(boards))
        return np.ones(len(boards), dtype=bool)


def _checkers(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    b = boards.astype(np.int64)
    return np.where(b > 0, b, 0).sum(axis=1), np.where(b < 0, -b, 0).sum(axis=1)


# --- the rules object's action -------------------------------------------------------------


def test_the_action_is_taken_only_where_the_rules_allow_and_the_token_passes():
    state = new_games(AMNESTY, np.zeros(4, dtype=np.int8))
    rows = np.arange(4)
    state.plies[:] = 1  # not an opening roll
    state.boards[:, BAR] = [2, 1, 0, 1]  # the mover's bar
    state.boards[:, 24] = [-1, 0, 0, -2]  # an opponent's blot, empty, -, his point
    state.extra["token"][:] = [0, 1, 0, 0]
    caller = Caller(1)
    taken = action_decisions((caller, caller), state, rows, AMNESTY, "amnesty")
    assert taken.tolist() == [True, True, False, False]
    assert [t.tolist() for t in caller.asked_tokens] == [[0, 1]]  # asked only where allowed
    assert state.boards[0, 24] == 2 and state.boards[0, OPP_BAR] == -1  # the blot was hit
    assert state.boards[1, 24] == 1 and (state.boards[:2, BAR] == 0).all()
    assert state.extra["token"].tolist() == [-1, -1, 0, 0]
    end_turn(state, rows, state.boards.copy(), AMNESTY)  # the turn passes: relative state
    assert state.extra["token"].tolist() == [1, 1, 0, 0]


# --- the game loop --------------------------------------------------------------------------


def test_the_variant_plays_through_the_game_loop():
    a, b = Caller(1), Caller(2)
    seen = []
    r = play((a, b), 300, np.random.default_rng(5), AMNESTY,
             on_position=lambda boards, dice: seen.append(boards.copy()))
    assert (r.points != 0).all() and set(np.abs(r.points).tolist()) <= {1, 2, 3}
    called = r.actions["amnesty"]
    assert called.shape == (300, 2) and (called.sum(axis=0) > 20).all()  # both seats call
    asked = np.concatenate(a.asked_tokens + b.asked_tokens)
    assert set(asked.tolist()) <= {0, 1}  # never while the opponent holds the token
    boards = np.concatenate(a.asked_boards + b.asked_boards)
    assert (boards[:, BAR] > 0).all()
    for positions in seen:  # never more than 15 checkers a side in play
        mine, theirs = _checkers(positions)
        assert (mine <= 15).all() and (theirs <= 15).all() and (mine > 0).all()
    again = play((Caller(1), Caller(2)), 300, np.random.default_rng(5), AMNESTY)
    assert np.array_equal(again.points, r.points)
    assert np.array_equal(again.actions["amnesty"], called)
    plain = play((Caller(1), Caller(2)), 300, np.random.default_rng(5), STANDARD)
    assert plain.actions == {} and not np.array_equal(plain.plies, r.plies)


def test_the_turn_keeps_its_order_for_any_user():
    """A user of ``Turn`` gives its parts; the turn asks them in the game's order."""
    calls = []

    class Logged(Turn):
        def may_act(self, rows):
            calls.append("may_act")
            return super().may_act(rows)

        def may_double(self, rows):
            calls.append("may_double")
            return super().may_double(rows)

        def stops(self, rows):
            calls.append("stops")
            return None

        def roll(self, rows):
            calls.append("roll")
            return np.tile([6, 5], (len(rows), 1))

        def play(self, rows, roll):
            calls.append("play")
            return super().play(rows, roll)

        def ended(self, rows, won):
            calls.append("ended")

    state = new_games(AMNESTY, np.zeros(2, dtype=np.int8))
    caller = Caller(3)
    Logged((caller, caller), state, AMNESTY)(np.arange(2))
    assert calls == ["may_act", "may_double", "stops", "roll", "play", "ended"]
    assert state.seat.tolist() == [1, 1] and state.plies.tolist() == [1, 1]


# --- rollouts ---------------------------------------------------------------------------------


def test_the_variant_rolls_out():
    from gammon.eval.analysis.rollout_settings import Settings
    from gammon.eval.analysis.rollouts import rollout
    board = AMNESTY.start_board()
    board[BAR], board[6] = 2, board[6] - 2  # two of ours on the bar
    boards = np.stack([board, board])
    settings = Settings(trials=64, seed=2, vr=False, variant=AMNESTY)
    caller = Caller(4)
    held = rollout(caller, boards, settings, extra={"token": np.array([0, -1])})
    assert caller.asked_tokens, "the player on roll was asked before his rolls"
    first_asks = caller.asked_tokens[0]
    assert set(np.concatenate(caller.asked_tokens).tolist()) <= {0, 1}
    assert len(first_asks) == 64  # at the roots only where the token is not the opponent's
    again = rollout(Caller(4), boards, settings, extra={"token": np.array([0, -1])})
    for x, y in zip(held, again):
        assert np.array_equal(x.outcomes, y.outcomes) and np.array_equal(x.plies, y.plies)
    for result in held:
        assert np.allclose(result.outcomes.sum(axis=1), 1.0)


# --- self-play ----------------------------------------------------------------------------------


def test_the_variant_self_plays_and_resumes():
    from gammon.train.selfplay import SelfPlay

    def after_values(after):  # the mover likes fewer pips to go (a crude value)
        pips = (np.where(after > 0, after, 0) * np.arange(26)).sum(axis=1)
        win = 1.0 / (1.0 + np.exp((pips - 100) / 40.0))
        out = np.zeros((len(after), 6), dtype=np.float32)
        out[:, 2], out[:, 3] = win, 1.0 - win
        return out

    def before(boards, token):  # checkers on the bar cost: an amnesty pays
        return -boards[:, BAR].astype(float)

    make = lambda: SelfPlay(16, np.random.default_rng(7), AMNESTY, epsilon=0.1, ring=256)
    a = make()
    finished = 0
    for _ in range(200):
        done = a.ply(after_values, before)
        finished += 0 if done is None else len(done.points)
    assert finished > 0
    assert (a.games.extra["token"] != 0).any()  # amnesties were called
    b = make()
    b.load_state_dict(a.state_dict())  # the variant's state goes with it
    for _ in range(20):
        a.ply(after_values, before)
        b.ply(after_values, before)
    assert np.array_equal(a.boards, b.boards)
    assert np.array_equal(a.games.extra["token"], b.games.extra["token"])
    idle = make()
    for _ in range(200):
        idle.ply(after_values)  # without the equity before the roll, no one acts
    assert (idle.games.extra["token"] == 0).all()
