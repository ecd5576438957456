"""GNU Backgammon Position IDs: the 80-bit position key, base64 encoded, both ways.

The key lists, for the player NOT on roll and then for the player on roll, each side's
points 1..24 from its own view and then its bar: a run of 1-bits per checker, a 0-bit after
each point. Bits fill each byte from its least significant bit; the 10 bytes are written in
base64 without the trailing padding (14 characters). The start position is ``4HPwATDgc/ABMA``.
"""

from __future__ import annotations

import base64
import binascii

import numpy as np

CELLS = 26
_ALPHABET = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def _sides(board: np.ndarray) -> tuple[list[int], list[int]]:
    """(opponent, mover) as 25 counts each from their own view: index 0..23 = points 1..24,
    24 = bar."""
    b = [int(x) for x in board]
    mover = [max(b[p], 0) for p in range(1, 25)] + [b[25]]
    opponent = [max(-b[25 - q], 0) for q in range(1, 25)] + [-b[0]]
    return opponent, mover


def encode(board: np.ndarray) -> str:
    """Position ID of a board from the mover's view (the mover is the player on roll)."""
    key = bytearray(10)
    bit = 0
    for side in _sides(board):
        for count in side:
            for _ in range(count):
                if bit >= 80:
                    raise ValueError("too many checkers for a Position ID (80-bit key)")
                key[bit >> 3] |= 1 << (bit & 7)
                bit += 1
            bit += 1  # the 0-bit that closes the point
    if bit > 80:
        raise ValueError("too many checkers for a Position ID (80-bit key)")
    return base64.b64encode(bytes(key)).decode("ascii")[:14]


def decode(posid: str, checkers: int = 15) -> np.ndarray:
    """The board (mover = player on roll) of a Position ID: (26,) int8.

    Raises ValueError naming the problem for a malformed ID or an impossible position.
    """
    text = posid.strip()
    if len(text) != 14:
        raise ValueError(f"a Position ID has 14 characters, {text!r} has {len(text)}")
    bad = sorted(set(text) - _ALPHABET)
    if bad:
        raise ValueError(f"Position ID {text!r} has characters outside base64: {''.join(bad)}")
    try:
        key = base64.b64decode(text + "==", validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"Position ID {text!r} is not valid base64") from None
    if base64.b64encode(key).decode("ascii")[:14] != text:
        raise ValueError(f"Position ID {text!r} has stray bits after the 80-bit key")
    bits = [(key[i >> 3] >> (i & 7)) & 1 for i in range(80)]
    sides: list[list[int]] = []
    i = 0
    for _ in range(2):
        counts = []
        for _ in range(25):
            n = 0
            while i < 80 and bits[i]:
                n += 1
                i += 1
            if i >= 80:
                raise ValueError(f"Position ID {text!r} has too many checkers (key overflows)")
            counts.append(n)
            i += 1
        sides.append(counts)
    if any(bits[i:]):
        raise ValueError(f"Position ID {text!r} has stray bits after the last point")
    opponent, mover = sides
    who = {0: "the opponent", 1: "the player on roll"}
    for s, counts in enumerate(sides):
        total = sum(counts)
        if total > checkers:
            raise ValueError(
                f"Position ID {text!r}: {who[s]} has {total} checkers; at most {checkers}"
            )
    board = np.zeros(CELLS, dtype=np.int8)
    for p in range(1, 25):
        m, o = mover[p - 1], opponent[24 - p]
        if m and o:
            raise ValueError(
                f"Position ID {text!r}: both players have checkers on point {p} "
                "(of the player on roll)"
            )
        board[p] = m - o
    board[25] = mover[24]
    board[0] = -opponent[24]
    return board


def _side_counts(boards: np.ndarray) -> np.ndarray:
    """(K, 50) checkers per key slot: the opponent's 25 slots, then the mover's."""
    b = boards.astype(np.int16)
    opponent = np.concatenate([np.maximum(-b[:, 24:0:-1], 0), -b[:, :1]], axis=1)  # own 1..24, bar
    mover = np.concatenate([np.maximum(b[:, 1:25], 0), b[:, 25:26]], axis=1)
    return np.concatenate([opponent, mover], axis=1)


def encode_many(boards: np.ndarray) -> list[str]:
    """Position IDs of a batch of boards (K, 26), as ``encode`` gives them, vectorised."""
    boards = np.asarray(boards).reshape(-1, CELLS)
    counts = _side_counts(boards)  # (K, 50)
    ends = np.cumsum(counts + 1, axis=1)  # bit just past each slot's closing 0
    if (ends[:, -1] > 80).any():
        raise ValueError("too many checkers for a Position ID (80-bit key)")
    bits = np.arange(80)[None, :] < (ends[:, -1:] - 1)  # (K, 80) inside the key ...
    rows = np.repeat(np.arange(len(boards)), 50)
    closing = (ends - 1).ravel()
    keep = closing < 80
    bits[rows[keep], closing[keep]] = False  # ... except the 0 that closes each slot
    keys = np.packbits(bits, axis=1, bitorder="little")  # (K, 10) bytes
    return [base64.b64encode(key.tobytes()).decode("ascii")[:14] for key in keys]
