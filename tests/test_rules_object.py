"""The rules object drives the generator: its two single steps agree, a variant is a
rules object (a new one needs no change to the generator), and the end of the game."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gammon.engine import reference
from gammon.engine.movegen import Plays, legal_plays
from gammon.engine.rules import VARIANTS, STANDARD, StandardRules, start_boards, variant
from gammon.engine.sample import from_random_play, synthetic


def test_vectorised_and_scalar_steps_agree():
    """Every (board, die, source): the generator's step table and the plain scalar step
    allow the same steps and reach the same boards."""
    rng = np.random.default_rng(4)
    boards = np.concatenate([synthetic(rng, 300), from_random_play(rng, 3)[0][:300]])
    for die in range(1, 7):
        outside = np.where(boards[:, 7:26] > 0, boards[:, 7:26], 0).sum(axis=1)
        parent, code = STANDARD.steps(boards, np.full(len(boards), die), outside)
        after = boards[parent] + STANDARD.delta[code]
        vector = {(int(p), int(c >> 6)): a.tobytes() for p, c, a in zip(parent, code, after)}
        scalar = {}
        for i, board in enumerate(boards):
            for source in range(1, 26):
                moved = STANDARD.step(board, source, die)
                if not isinstance(moved, str):
                    scalar[(i, source)] = np.array(moved[0], np.int8).tobytes()
        assert vector == scalar, die


@dataclass(frozen=True, eq=False)
class NoHitRules(StandardRules):
    """A made-up variant for this test: a play may not hit unless every legal play hits."""

    def filter_plays(self, plays: Plays, boards, dice) -> Plays:
        hits = plays.hits.any(axis=1)
        quiet_roots = np.unique(plays.root[~hits])
        keep = ~hits | ~np.isin(plays.root, quiet_roots)
        return plays.subset(np.flatnonzero(keep))


def test_a_new_variant_is_a_rules_object_with_its_filter():
    rules = NoHitRules("nohit", 15, STANDARD.layout)
    rng = np.random.default_rng(8)
    boards, dice = from_random_play(rng, 4)
    boards, dice = boards[:400], dice[:400]
    plays = legal_plays(boards, dice, rules)
    assert (plays.counts(len(boards)) >= 1).all()
    changed = 0
    for i in range(len(boards)):
        found = reference.legal_results(boards[i], int(dice[i, 0]), int(dice[i, 1]))
        # a play hits exactly when its result has more of the opponent's checkers on the
        # bar, so "hits" belongs to the result board, whichever play reached it
        quiet = {b for b in found if b[0] == boards[i, 0]}
        expected = quiet if quiet else set(found)
        got = {tuple(int(x) for x in b) for b in plays.boards[plays.root == i]}
        assert got == expected, i
        changed += got != set(found)
    assert changed > 20  # the filter did something, with no change to the generator


def test_variants_are_rules_objects_by_name():
    assert {"standard", "nackgammon", "hypergammon", "longgammon"} <= set(VARIANTS)
    for name, rules in VARIANTS.items():
        assert variant(name) is rules and variant(rules) is rules
        board = start_boards(1, name)[0]
        assert np.maximum(board, 0).sum() == rules.checkers
        assert (rules.end_of_game(board[None]) == 0).all()


def test_end_of_game_is_the_rules():
    after = np.zeros((3, 26), np.int8)
    after[0, 20] = -14  # the opponent bore one off: single
    after[1, 20] = -15  # none off: gammon
    after[2, 20], after[2, 2] = -14, -1  # none off, one in our home: backgammon
    assert STANDARD.end_of_game(after).tolist() == [1, 2, 3]
    after[:, 5] = 1  # the mover still has a checker: the game goes on
    assert STANDARD.end_of_game(after).tolist() == [0, 0, 0]
