"""gnubg Position IDs both ways, and their errors."""

import numpy as np
import pytest

from gammon.engine.formats import posid
from gammon.engine.rules import VARIANTS, start_boards
from gammon.engine.sample import synthetic


def test_start_position_id():
    assert posid.encode(start_boards(1)[0]) == "4HPwATDgc/ABMA"
    assert (posid.decode("4HPwATDgc/ABMA") == start_boards(1)[0]).all()


def test_corpus_ids_round_trip(corpus):
    for case in corpus:
        board = np.array(case["board28"][:26], dtype=np.int8)
        assert posid.encode(board) == case["posid"]
        assert (posid.decode(case["posid"]) == board).all()
        for result in case["results"]:
            assert posid.encode(posid.decode(result)) == result


def test_synthetic_boards_round_trip():
    boards = synthetic(np.random.default_rng(0), 500)
    for board in boards:
        assert (posid.decode(posid.encode(board)) == board).all()


def test_every_variant_start_round_trips():
    for name, v in VARIANTS.items():
        board = v.start_board()
        assert (posid.decode(posid.encode(board), v.checkers) == board).all(), name


@pytest.mark.parametrize("text, message", [
    ("4HPwATDgc/ABM", "14 characters"),
    ("4HPwATDgc/ABMAA", "14 characters"),
    ("4HPwATDgc/AB!A", "outside base64"),
    ("/////////////w", "too many checkers"),
    ("4HPwATDgc/ABMP", "stray bits"),
    ("4HPwATDgc/ABMB", "stray bits"),
])
def test_malformed_ids_are_named_errors(text, message):
    with pytest.raises(ValueError, match=message):
        posid.decode(text)


def test_sixteen_checkers_are_refused():
    board = start_boards(1)[0].copy()
    board[6] += 1  # a 16th checker for the player on roll ...
    board[1] += 1  # ... who takes the opponent's 24-point blot (14 left) to fit in 80 bits
    with pytest.raises(ValueError, match="player on roll has 16 checkers"):
        posid.decode(posid.encode(board))


def test_checker_limit_follows_the_variant():
    board = np.zeros(26, np.int8)
    board[[1, 2, 3, 4]] = 1
    board[20] = -1
    text = posid.encode(board)
    assert (posid.decode(text) == board).all()
    with pytest.raises(ValueError, match="at most 3"):
        posid.decode(text, checkers=3)


def test_both_colours_on_one_point_is_refused():
    # mover on its 6-point and opponent on its 19-point: the same point
    key = bytearray(10)
    bit = 18  # opponent's 19-point is its index 18
    key[bit >> 3] |= 1 << (bit & 7)
    bit = 25 + 5  # mover's 6-point: after the opponent's 25 zero bits (one checker, + 1)
    bit = 1 + 25 + 5
    key[bit >> 3] |= 1 << (bit & 7)
    import base64
    text = base64.b64encode(bytes(key)).decode()[:14]
    with pytest.raises(ValueError, match="both players"):
        posid.decode(text)


def test_too_many_checkers_cannot_be_encoded():
    board = start_boards(1)[0].copy()
    board[6] += 1
    with pytest.raises(ValueError, match="too many checkers"):
        posid.encode(board)


def test_vectorised_encoding_equals_the_scalar_one():
    boards = synthetic(np.random.default_rng(1), 2000)
    assert posid.encode_many(boards) == [posid.encode(b) for b in boards]
