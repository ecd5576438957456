"""GNU Backgammon's SGF match files (Smart Game Format, ``GM[6]``), read into and written
from the record objects of ``engine.formats.matfile`` (``Match``, ``Game``, ``Action``).

SGF is GNU Backgammon's own way of saving a match or a money session (``save match``,
``load match``); the backgammon dialect is described on the SGF pages ("Backgammon
(GM[6])", by gnubg's first author), and gnubg 1.07 writes it as follows.

The syntax (SGF FF[4]): a file is one or more game trees ``( ... )``; a tree is a sequence
of nodes ``;``, each node a list of properties ``ID[value][value]...`` (upper-case IDs; in a
value ``\\`` escapes the next character, and ``\\`` before a line break joins the lines). A
tree may branch into variations (further trees after its sequence): we follow the first
of each, the main line, as SGF readers do. Unknown properties are skipped, gnubg's own
among them (``A`` and ``DA``: its analysis, ``GS``: statistics, ``MR``, ...).

One game tree is one game. Its first node holds the game's information:

- ``GM[6]``: "Backgammon (GM[6])"; any other game (GM[1] is Go) is refused.
- ``MI[length:7][game:3][ws:2][bs:1]``: "information about the match the game belongs to
  ... length - the match length", "game - the number of this game within the match",
  "bs - the score for Black at the start of the game", "ws - the score for White"; "unknown
  tags should be ignored". Length 0 is a money session. gnubg 1.07 numbers the games from
  0 (the description from 1): the number is not read; we write gnubg's. The scores must be
  those the games before add up to (they are the file's check on itself), the first game's
  0-0.
- ``PW``, ``PB``: the players' names. "White = O = 0, Black = X = 1": White is the left
  player of a .mat file, player 0 of our records, Black player 1.
- ``RU``: the rules, ``:``-separated words as gnubg writes them: ``Crawford`` (a match
  with the Crawford rule), ``Crawford:CrawfordGame`` (this game is the Crawford game: no
  doubling in it), ``Jacoby`` (money play: gammons count single while the cube is centred),
  ``Nackgammon``, ``Hypergammon3`` (the variants; ``Hypergammon1`` and ``2`` are not ours).
- ``RE``: the result, ``W+2`` / ``B+1`` (the winner and the points, cube included), with
  ``R`` after the points when the loser resigned (``W+4R``); a drop or a borne-off last
  checker has no letter. A game without ``RE`` is unfinished. When the moves end the game,
  ``RE`` must say what they say.
- ``AB``, ``AW``, ``AE`` (setting up checkers), ``CV`` (a cube value other than 1 at the
  start, or other than the cube's value later): a set-up position, which a record of moves
  from the opening cannot hold; refused.

Every later node holds one move, ``B[...]`` or ``W[...]``. Points are single lower-case
letters: "`a' is the 1 point for white (and the 24 point for black), through to `x' which
is the 24 point for white (and the 1 point for black). `y' is the bar, and `z' is the
bearoff tray". "Normal moves specify the dice roll (as a pair of digits from 1 to 6)
followed by 0 to 4 source/destination pairs. Moves which hit are not recorded
differently": ``W[31hefe]`` is White's 8/5 6/5, ``B[66]`` a roll Black cannot play. "Other
legal moves include `double', `take' and `drop' for cube action (where `double' includes
initial and subsequent doubles, as well as beavers)": a double answered by a double is a
beaver, which our records (and .mat files) cannot hold; refused.

Reading plays every game from the opening position through the game loop
(``engine.game``), the legal plays (``engine.movegen``, ``notation.parse_play``) and the
cube's rules (``engine.cube``, the Jacoby rule as ``RU`` says): players must alternate, a
play must be legal for its roll (its hits are found on the board and marked ``*`` as gnubg
marks them in a .mat file), a double must come from the player on roll who may double
(never in the Crawford game), a take or drop must answer a double, and the ``RE`` must
agree. The first thing wrong is an ``SgfError`` (a ValueError) of one line naming the
game, the move and its text: ``game 2, move 14 (line 17: W[52mhxv]): ...``. So are a
truncated file, text that is no SGF, and another game's SGF.

``read_sgf`` gives an ``SgfMatch`` (the ``Match`` and what else the file says);
``parse_sgf`` the ``Match`` alone, as ``matfile.parse_match`` gives it for a .mat file;
``format_sgf`` writes a ``Match``; ``read_match_file`` reads either format by its content.
No files: callers read and write the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..board import flip
from ..cube import TAKE as TAKE_CUBE, CubeRules, accept, may_double, pass_points
from ..game import end_turn
from ..movegen import legal_plays
from ..rules import variant as get_variant
from . import matfile
from .matfile import DOUBLE, DROP, PLAY, TAKE, Action, Game, Match, SetUp, start_state
from .notation import parse_play

GAMES = {1: "Go", 2: "Othello", 3: "chess", 4: "Gomoku", 5: "Nine Men's Morris",
         6: "backgammon", 7: "Chinese chess", 8: "Shogi", 9: "Lines of Action", 10: "Ataxx",
         11: "Hex", 12: "Jungle", 13: "Neutron", 14: "Philosopher's Football",
         15: "Quadrature", 16: "Trax", 17: "Tantrix", 18: "Amazons", 19: "Octi",
         20: "Gess", 21: "Twixt"}
# RU words of the variants, as gnubg 1.07 writes them (standard backgammon has none)
VARIANT_WORDS = {"nackgammon": "Nackgammon", "hypergammon": "Hypergammon3"}
SETUP = ("AB", "AW", "AE")
_ALL_POINTS = "abcdefghijklmnopqrstuvwxyz"
_ROLL = re.compile(r"([1-6])([1-6])([a-z]*)")
_RESULT = re.compile(r"([WB])\+([0-9]{1,6})?([A-Za-z]*)")
_PLAIN_STEP = re.compile(r"([0-9]{1,2})/([0-9]{1,2})\*?")
_NO_LIMIT = 1 << 30  # the cube as a file records it: no limit


class MatchFileError(ValueError):
    """A match file that cannot be read: one line saying what and where (line breaks and
    other control characters of the file's text it quotes are escaped)."""

    def __init__(self, message: str):
        super().__init__("".join(c if c.isprintable() else repr(c)[1:-1]
                                 for c in str(message)))


class SgfError(MatchFileError):
    """An SGF file that cannot be read, or a record that cannot be written as one."""


@dataclass
class SgfMatch:
    """What an SGF file holds: the match, and per game whether the file marks it as the
    Crawford game; whether money games count gammons single with a centred cube (Jacoby);
    the program that wrote it (``AP``)."""

    match: Match
    crawford: list[bool] = field(default_factory=list)
    jacoby: bool = False
    application: str = ""
    warnings: list[str] = field(default_factory=list)


def _show(text: str, limit: int = 40) -> str:
    """A value as an error message quotes it: repr, at most ``limit`` characters."""
    return repr(text[:limit]) + ("..." if len(text) > limit else "")


# ---------------------------------------------------------------------------------------------
# The SGF syntax


@dataclass
class _Node:
    line: int
    props: dict[str, list[str]]
    lines: dict[str, int]


class _Reader:
    """The game trees of an SGF text, main lines only: a list of node lists."""

    def __init__(self, text: str):
        self.text, self.i = text, 0

    def line(self, at: int | None = None) -> int:
        return self.text.count("\n", 0, self.i if at is None else at) + 1

    def blanks(self) -> None:
        text, n = self.text, len(self.text)
        while self.i < n and text[self.i].isspace():
            self.i += 1

    def collection(self) -> list[list[_Node]]:
        self.blanks()
        if self.i >= len(self.text):
            raise SgfError("empty file: an SGF file holds at least one game tree '(;...)'")
        if self.text[self.i] != "(":
            raise SgfError(f"not an SGF file: it starts with "
                           f"{_show(self.text[self.i:self.i + 20])}, an SGF file with '(;'")
        trees = []
        while True:
            self.blanks()
            if self.i >= len(self.text):
                return trees
            if self.text[self.i] != "(":
                raise SgfError(f"line {self.line()}: {_show(self.text[self.i:self.i + 20])} "
                               f"after game tree {len(trees)}: expected '(' or the end")
            trees.append(self.tree(len(trees) + 1))

    def tree(self, number: int) -> list[_Node]:
        start = self.line()
        self.i += 1  # '('
        nodes: list[_Node] = []
        while True:
            self.blanks()
            if self.i >= len(self.text):
                raise SgfError(f"truncated SGF: game tree {number} (line {start}) is not "
                               f"closed by ')'")
            c = self.text[self.i]
            if c == ";":
                nodes.append(self.node())
            elif c == "(":  # variations: the first is the main line, the others are skipped
                if not nodes:
                    raise SgfError(f"line {self.line()}: a game tree starts with ';', not '('")
                nodes.extend(self.tree(number))
                while True:
                    self.blanks()
                    if self.i < len(self.text) and self.text[self.i] == "(":
                        self.tree(number)
                    else:
                        break
            elif c == ")":
                self.i += 1
                if not nodes:
                    raise SgfError(f"line {start}: game tree {number} has no node")
                return nodes
            else:
                raise SgfError(f"line {self.line()}: unexpected {_show(c)} in game tree "
                               f"{number}")

    def node(self) -> _Node:
        node = _Node(self.line(), {}, {})
        self.i += 1  # ';'
        text, n = self.text, len(self.text)
        while True:
            self.blanks()
            start = self.i
            while self.i < n and text[self.i].isalpha():
                self.i += 1
            if self.i == start:
                return node
            ident = "".join(c for c in text[start:self.i] if c.isupper())  # FF[3]: 'GaMe'
            values = []
            self.blanks()
            while self.i < n and text[self.i] == "[":
                values.append(self.value(ident))
                self.blanks()
            if not values:
                raise SgfError(f"line {self.line(start)}: property {_show(ident)} has no "
                               f"value '[...]'")
            node.props.setdefault(ident, []).extend(values)
            node.lines.setdefault(ident, self.line(start))

    def value(self, ident: str) -> str:
        start, text, n = self.i, self.text, len(self.text)
        self.i += 1  # '['
        out = []
        while self.i < n:
            c = text[self.i]
            if c == "\\":
                if self.i + 1 >= n:
                    break
                nxt = text[self.i + 1]
                if nxt in "\r\n":  # a soft line break
                    self.i += 2 if text[self.i + 1:self.i + 3] not in ("\r\n", "\n\r") else 3
                    continue
                out.append(nxt)
                self.i += 2
                continue
            if c == "]":
                self.i += 1
                return "".join(out)
            out.append(c)
            self.i += 1
        raise SgfError(f"truncated SGF: the value of {ident or 'a property'} that starts at "
                       f"line {self.line(start)} never ends (no ']')")


def _trees(text: str) -> list[list[_Node]]:
    return _Reader(str(text).lstrip("\ufeff")).collection()


# ---------------------------------------------------------------------------------------------
# Playing a game through the rules


class _Replay:
    """One game played action by action from the opening position: ValueError (the reason
    alone) at an illegal action."""

    def __init__(self, variant: str, jacoby: bool, crawford: bool):
        self.rules = get_variant(variant)
        self.cube_rules = CubeRules(jacoby=jacoby, max_cube=_NO_LIMIT)
        self.crawford = crawford
        self.state = None
        self.setup: SetUp | None = None  # a set-up position the game starts from
        self.pending = None  # the player whose double waits for an answer
        self.resigning = None  # (player, points) of a resignation offered, not yet answered
        self.winner, self.points, self.ended = None, 0, ""
        self.one = np.zeros(1, dtype=np.int64)

    def start(self, player: int) -> None:
        if self.ended:
            raise ValueError(f"the game is already over ({self.ended})")
        if self.resigning is not None:
            raise ValueError("the resignation offered must be accepted or rejected first")
        if self.state is None:
            self.state = start_state(Game(start=self.setup), self.rules, player)

    def resign(self, player: int, points: int) -> None:
        """A resignation offered by ``player``, worth ``points`` (cube included)."""
        self.start(player)
        if self.pending is not None:
            raise ValueError("the double must be taken or dropped first")
        if points < 1:
            raise ValueError(f"a resignation offers 1 point or more, not {points}")
        self.resigning = (player, points)

    def answer_resignation(self, player: int, accept: bool) -> None:
        if self.resigning is None or self.resigning[0] == player:
            raise ValueError("there is no resignation to answer")
        if accept:
            self.winner, self.points, self.ended = player, self.resigning[1], "resignation"
        self.resigning = None

    @property
    def mover(self) -> int:
        return int(self.state.seat[0])

    @property
    def cube(self) -> int:
        return int(self.state.cube.value[0])

    def board(self, player: int) -> np.ndarray:
        """The board from ``player``'s side before his play (checking it is his turn)."""
        self.start(player)
        if self.pending is not None:
            raise ValueError("the double must be taken or dropped first")
        if player != self.mover:
            raise ValueError(f"it is {_COLOUR[self.mover]}'s turn")
        return self.state.boards[0]

    def play(self, player: int, d1: int, d2: int, text: str):
        """Play ``text`` (any notation ``parse_play`` reads): the legal plays and the row."""
        board = self.board(player)
        plays = legal_plays(board[None], np.array([[d1, d2]]), self.rules)
        try:
            row = parse_play(text, board, d1, d2, plays, self.rules)
        except ValueError as e:
            raise ValueError(f"{d1}{d2}: {text or 'no play'}: {e}") from None
        if end_turn(self.state, self.one, plays.boards[row][None], self.rules,
                    self.cube_rules)[0]:
            self.winner, self.ended = player, "bear-off"
            self.points = abs(int(self.state.points[0]))
        return plays, row

    def double(self, player: int) -> int:
        """A double by ``player``: the value it offers."""
        self.start(player)
        if self.pending is not None:
            if player != self.pending:
                raise ValueError("a double answered by a double is a beaver, which a record "
                                 "of gammon's (and a .mat file) cannot hold")
            raise ValueError("the double waits for an answer")
        if player != self.mover:
            raise ValueError(f"only the player on roll may double, before rolling: it is "
                             f"{_COLOUR[self.mover]}'s turn")
        if self.crawford:
            raise ValueError("no doubling in the Crawford game")
        if not may_double(self.state.cube, self.cube_rules)[0]:
            raise ValueError("the cube belongs to the other player")
        self.pending = player
        return 2 * self.cube

    def answer(self, player: int, take: bool) -> None:
        self.start(player)
        if self.pending is None or player == self.pending:
            raise ValueError("there is no double to answer")
        if take:
            self.state.cube = accept(self.state.cube, np.array([TAKE_CUBE], dtype=np.int8))
            self.pending = None
        else:
            self.winner, self.ended = self.pending, "drop"
            self.points = int(pass_points(self.state.cube)[0])


_COLOUR = ("W", "B")  # player 0 is White, player 1 Black


# ---------------------------------------------------------------------------------------------
# Reading


def _point(letter: str, player: int) -> int:
    """A point letter as the mover's own point: 1..24, 25 the bar, 0 off."""
    if letter == "y":
        return 25
    if letter == "z":
        return 0
    index = ord(letter) - ord("a")
    return index + 1 if player == 0 else 24 - index


def _letter(point: int, player: int) -> str:
    """The letter of the mover's own point (1..24, 25 bar, 0 off)."""
    if point == 25:
        return "y"
    if point == 0:
        return "z"
    return chr(ord("a") + (point - 1 if player == 0 else 24 - point))


def _steps_text(pairs: str, player: int, board: np.ndarray) -> str:
    """The .mat text of an SGF move's pairs, in their order, a hit marked ``*`` on the first
    step that lands on a point where the opponent had a lone checker (as gnubg exports)."""
    steps, hit = [], set()
    for k in range(0, len(pairs), 2):
        source, target = _point(pairs[k], player), _point(pairs[k + 1], player)
        if pairs[k] == "z":
            raise ValueError(f"{pairs[k:k + 2]!r}: a checker cannot move from the bearoff "
                             f"tray (z)")
        if pairs[k + 1] == "y":
            raise ValueError(f"{pairs[k:k + 2]!r}: a checker cannot move to the bar (y)")
        star = 1 <= target <= 24 and board[target] == -1 and target not in hit
        if star:
            hit.add(target)
        steps.append(f"{source}/{target}{'*' if star else ''}")
    return " ".join(steps)


def _info(root: _Node, number: int) -> dict:
    """The game information of a tree's first node."""
    props = root.props
    gm = (props.get("GM") or ["1"])[0].strip()  # SGF's default game is Go
    if gm != "6":
        name = GAMES.get(int(gm)) if gm.isdigit() else None
        raise SgfError(f"game {number}: GM[{gm[:10]}] is {name or 'not backgammon'}: a "
                       f"backgammon SGF file says GM[6]")
    mi = {}
    for item in props.get("MI", []):
        tag, _, value = item.partition(":")
        tag = tag.strip().lower()
        if tag in ("length", "game", "ws", "bs"):
            if not re.fullmatch(r"[0-9]{1,6}", value.strip()):
                raise SgfError(f"game {number}: MI[{item[:30]}]: {tag} is a whole number")
            mi[tag] = int(value)
    words = {w.strip().lower() for value in props.get("RU", []) for w in value.split(":")}
    variant = "standard"
    for name, word in VARIANT_WORDS.items():
        if word.lower() in words:
            variant = name
    other = sorted(w for w in words if w.startswith("hypergammon") and w != "hypergammon3")
    if other:
        raise SgfError(f"game {number}: RU[{other[0]}]: only 3-checker hypergammon is one of "
                       f"gammon's variants")
    return {"length": mi.get("length", 0), "ws": mi.get("ws", 0), "bs": mi.get("bs", 0),
            "white": (props.get("PW") or ["White"])[0].strip() or "White",
            "black": (props.get("PB") or ["Black"])[0].strip() or "Black",
            "crawford": "crawfordgame" in words, "jacoby": "jacoby" in words,
            "variant": variant, "result": (props.get("RE") or [""])[0].strip(),
            "application": (props.get("AP") or [""])[0].strip()}


_SETUP_CUBE = ("CV", "CP", "CO", "PL", "DI")  # set-up properties of the cube and the turn


def _point_list(values: list[str]) -> list[int]:
    """The letters of an SGF point list (``[a][b]``, compressed ``[a:x]``), one per checker:
    indexes 0 ('a') to 24 ('y', the bar), repeated as often as named."""
    out = []
    for value in values:
        value = value.strip()
        first, colon, last = value.partition(":")
        if colon:
            if not (len(first) == len(last) == 1 and "a" <= first <= last <= "y"):
                raise ValueError(f"[{value[:10]}] is no range of points a-y")
            out.extend(range(ord(first) - 97, ord(last) - 96))
        elif len(value) == 1 and "a" <= value <= "y":
            out.append(ord(value) - 97)
        else:
            raise ValueError(f"[{value[:10]}] is no point: a point is a letter a-x, y the bar")
    return out


def _set_up(props: dict, rules, white_view: np.ndarray) -> np.ndarray:
    """The board from White's side after a node's AE, AB and AW (gnubg's order: emptied
    points first, then Black's and White's checkers added). Letters are White's points ('a'
    White's 1 point and Black's 24 point), 'y' each side's own bar."""
    board = white_view.copy()
    for letter in _point_list(props.get("AE", [])):
        if letter == 24:
            board[0] = board[25] = 0
        else:
            board[letter + 1] = 0
    for ident, sign in (("AB", -1), ("AW", 1)):
        for letter in _point_list(props.get(ident, [])):
            cell = (25 if sign > 0 else 0) if letter == 24 else letter + 1
            if board[cell] * sign < 0:
                raise ValueError(f"{ident} puts a checker on point {_ALL_POINTS[letter]}, "
                                 f"which the other side holds")
            board[cell] += sign
    for side, name in ((1, "White"), (-1, "Black")):
        count = int((board * side).clip(min=0).sum())
        if count > rules.checkers:
            raise ValueError(f"the position set up has {count} {name} checkers, more than "
                             f"the {rules.checkers} of {rules.name}")
    return board


def _read_game(nodes: list[_Node], number: int, info: dict,
               warnings: list[str] | None = None) -> Game:
    """The actions of one game tree, played through the rules (SgfError at the first
    illegal one), and its result. A game may start from a position set up (AE, AB, AW, PL,
    CV, CP) before its first move; GNU Gibbon's ``resign:N`` and its answer (``accept``,
    ``reject``) end a game or not. What the file states otherwise than its moves goes to
    ``warnings``."""
    length = info["length"]
    replay = _Replay(info["variant"], info["jacoby"] and not length, info["crawford"])
    game = Game()
    move, setup = 0, None  # setup: [board from White's side, player on roll, cube, owner]
    for k, node in enumerate(nodes):
        props = node.props
        has_setup = any(ident in props for ident in SETUP + _SETUP_CUBE)
        if has_setup and move == 0 and replay.state is None:
            if setup is None:
                setup = [replay.rules.start_board().copy(), None, 1, -1]
            try:
                setup[0] = _set_up(props, replay.rules, setup[0])
                _setup_cube(props, setup)
            except ValueError as e:
                ident = next(i for i in SETUP + _SETUP_CUBE if i in props)
                raise SgfError(f"game {number} (line {node.lines[ident]}): {ident}[...] sets up "
                               f"the position: {e}") from None
        else:
            for ident in SETUP:
                if ident in props:
                    raise SgfError(f"game {number} (line {node.lines[ident]}): {ident}[...] "
                                   f"sets up checkers after move {move}: a record of moves "
                                   f"cannot hold a position changed by hand during a game")
            if "CV" in props:
                value = props["CV"][0].strip()
                now = replay.cube if replay.state is not None else 1
                if value != str(now):
                    raise SgfError(f"game {number} (line {node.lines['CV']}): CV[{value[:10]}] "
                                   f"sets the cube to {value[:10]} by hand; the cube is at "
                                   f"{now}")
        players = [p for p, ident in enumerate(_COLOUR) if ident in props]
        if not players:
            continue
        if len(players) > 1 or len(props[_COLOUR[players[0]]]) > 1:
            raise SgfError(f"game {number} (line {node.line}): one node holds one move, this "
                           f"one holds more")
        player = players[0]
        if setup is not None and replay.state is None:
            replay.setup = _setup_position(setup, player, replay.rules.start_board())
        value = props[_COLOUR[player]][0]
        move += 1
        where = (f"game {number}, move {move} (line {node.lines[_COLOUR[player]]}: "
                 f"{_COLOUR[player]}[{value[:20]}])")
        word = value.strip().lower()
        try:
            if word == "double":
                game.actions.append(Action(player, DOUBLE, cube=replay.double(player)))
            elif word in ("take", "drop"):
                replay.answer(player, word == "take")
                game.actions.append(Action(player, TAKE if word == "take" else DROP))
            elif word.startswith("resign:"):
                points = word[7:].strip()
                if not points.isdigit() or len(points) > 6:
                    raise ValueError("a resignation is resign:N, N the points it offers")
                replay.resign(player, int(points))
            elif word in ("accept", "reject"):
                replay.answer_resignation(player, word == "accept")
            else:
                roll = _ROLL.fullmatch(word)
                if not roll or len(roll.group(3)) % 2 or len(roll.group(3)) > 8:
                    raise ValueError("a move is two dice 1-6 and up to four point-letter "
                                     "pairs (a-x points, y the bar, z off), or double, take, "
                                     "drop (GNU Gibbon's resign:N, accept, reject too)")
                d1, d2 = sorted((int(roll.group(1)), int(roll.group(2))), reverse=True)
                board = replay.board(player)
                text = _steps_text(roll.group(3), player, board)
                replay.play(player, d1, d2, text)
                game.actions.append(Action(player, PLAY, (d1, d2), text))
        except ValueError as e:
            raise SgfError(f"{where}: {e}") from None
    if setup is not None and replay.state is None:
        replay.setup = _setup_position(setup, setup[1] if setup[1] is not None else 0,
                                       replay.rules.start_board())
    game.start = replay.setup
    _result(game, replay, info["result"], number, warnings)
    return game


def _setup_cube(props: dict, setup: list) -> None:
    """The turn and the cube a set-up node says (PL, CV, CP; GNU Gibbon's CO as CP)."""
    if "PL" in props:
        who = props["PL"][0].strip().upper()[:1]
        if who not in _COLOUR:
            raise ValueError(f"PL[{props['PL'][0][:10]}] names W or B")
        setup[1] = _COLOUR.index(who)
    if "CV" in props:
        value = props["CV"][0].strip()
        if not value.isdigit() or int(value) < 1 or int(value) & (int(value) - 1):
            raise ValueError(f"CV[{value[:10]}]: the cube's value is a power of 2")
        setup[2] = int(value)
    for ident in ("CP", "CO"):
        if ident in props:
            where = props[ident][0].strip().lower()[:1]
            if where not in ("c", "w", "b"):
                raise ValueError(f"{ident}[{props[ident][0][:10]}]: the cube is c (centred), w "
                                 f"or b")
            setup[3] = {"c": -1, "w": 0, "b": 1}[where]


def _setup_position(setup: list, player: int, opening: np.ndarray) -> SetUp | None:
    """The set-up position with ``player`` on roll (None when it is the ``opening``
    position with a centred cube at 1: a game from the start)."""
    white_view, on_roll, cube, owner = setup
    if on_roll is not None and on_roll != player:
        raise SgfError(f"the position set up has {_COLOUR[on_roll]} on roll (PL), the first "
                       f"move is {_COLOUR[player]}'s")
    if np.array_equal(white_view, opening) and cube == 1 and owner < 0:
        return None
    board = white_view if player == 0 else flip(white_view)
    return SetUp(np.asarray(board, dtype=np.int8).copy(), player, cube, owner)


def _result(game: Game, replay: _Replay, result: str, number: int,
            warnings: list[str] | None = None) -> None:
    """The game's winner and points: its moves' when they end it, else its ``RE`` (a
    resignation). An ``RE`` that says otherwise than the moves, or a resignation of other
    than 1, 2 or 3 times the cube, is read as gnubg 1.07 reads it (the moves' result; the
    points divided by the cube, 1 to 3 times the cube) with a warning."""
    game.winner, game.points = replay.winner, replay.points
    if result in ("", "?", "0", "Void", "void"):
        return
    found = _RESULT.fullmatch(result)
    if not found or found.group(2) is None:
        raise SgfError(f"game {number}: RE[{result[:20]}]: a result is W+N or B+N (the "
                       f"winner and the points), N followed by R for a resignation")
    winner, points = _COLOUR.index(found.group(1)), int(found.group(2))
    notes = warnings if warnings is not None else []
    if replay.ended:
        if (winner, points) != (replay.winner, replay.points):
            notes.append(f"game {number}: RE[{result}] says {found.group(1)} wins {points}, "
                         f"the moves say {_COLOUR[replay.winner]} wins {replay.points} "
                         f"({replay.ended}): {replay.points} for {_COLOUR[replay.winner]} "
                         f"is used")
        return
    cube = replay.cube if replay.state is not None else (
        replay.setup.cube if replay.setup is not None else 1)
    if points not in (cube, 2 * cube, 3 * cube):
        used = min(max(points // cube, 1), 3) * cube
        notes.append(f"game {number}: RE[{result}]: a resignation wins 1, 2 or 3 times the "
                     f"cube ({cube}), not {points}: {used} is used")
        points = used
    game.winner, game.points = winner, points


def read_sgf(text: str) -> SgfMatch:
    """The match of an SGF file (a match or a money session, one game per game tree), every
    game played through the rules: SgfError, one line, at the first thing wrong. The first
    game's MI says the score before it (a file of one game that ``save game`` wrote from
    the middle of a match starts there); each later game's MI must be the score the games
    before it add up to. A stated result that differs from the moves is a warning."""
    trees = _trees(text)
    match, crawford, jacoby, application, warnings = None, [], False, "", []
    score = [0, 0]
    for number, nodes in enumerate(trees, 1):
        info = _info(nodes[0], number)
        if match is None:
            match = Match((info["white"], info["black"]), info["length"], [], info["variant"],
                          (info["ws"], info["bs"]))
            jacoby, application = info["jacoby"], info["application"]
            score = [info["ws"], info["bs"]]
        elif info["length"] != match.length:
            raise SgfError(f"game {number}: MI[length:{info['length']}], game 1 says "
                           f"{match.length}: one file holds one match")
        elif info["variant"] != match.variant:
            raise SgfError(f"game {number} is {info['variant']}, game 1 {match.variant}: one "
                           f"file holds one match")
        if [info["ws"], info["bs"]] != score:
            raise SgfError(f"game {number}: MI says the score before it is W {info['ws']}, "
                           f"B {info['bs']}; the games before it add up to W {score[0]}, "
                           f"B {score[1]}")
        game = _read_game(nodes, number, info, warnings)
        match.games.append(game)
        crawford.append(info["crawford"])
        if game.winner is not None:
            score[game.winner] += game.points
    return SgfMatch(match, crawford, jacoby, application, warnings)


def parse_sgf(text: str) -> Match:
    """The ``Match`` of an SGF file, as ``matfile.parse_match`` gives it for a .mat file."""
    return read_sgf(text).match


# ---------------------------------------------------------------------------------------------
# Writing


def _escape(text: str) -> str:
    """A simpletext value: ``]`` and ``\\`` escaped, line breaks as spaces."""
    text = re.sub(r"[\r\n]+", " ", str(text))
    return text.replace("\\", "\\\\").replace("]", "\\]")


def crawford_games(match: Match) -> list[bool]:
    """Which games of a match are the Crawford game: the first game that starts with a
    player length-1 away (none in money play)."""
    out, had = [], False
    for left, right in match.scores():
        now = bool(match.length) and not had and match.length - 1 in (left, right) \
            and max(left, right) < match.length
        had |= now
        out.append(now)
    return out


def _plain_steps(text: str) -> list[tuple[int, int]] | None:
    """The steps of a play written as plain ``from/to`` steps (as gammon records and gnubg
    writes them), None when it is written otherwise."""
    steps = []
    for word in text.split():
        found = _PLAIN_STEP.fullmatch(word)
        if not found:
            return None
        source, target = int(found.group(1)), int(found.group(2))
        if not (1 <= source <= 25 and 0 <= target <= 24 and target < source):
            return None
        steps.append((source, target))
    return steps if len(steps) <= 4 else None


class _Tracker:
    """Each player's checkers on his own points (0 off, 25 the bar), moved by plain steps
    without checking them: enough to tell a game won on the board from a resignation."""

    def __init__(self, variant: str):
        start = get_variant(variant).start_board()
        own = [max(int(start[p]), 0) for p in range(26)]
        self.own = [list(own), list(own)]  # both sides start alike
        self.checkers = get_variant(variant).checkers
        self.own[0][0] = self.own[1][0] = 0

    def move(self, player: int, steps) -> bool:
        """Apply the steps; whether the player has borne off every checker."""
        mine, theirs = self.own[player], self.own[1 - player]
        for source, target in steps:
            mine[source] -= 1
            mine[target] += 1
            if 1 <= target <= 24 and theirs[25 - target] == 1:
                theirs[25 - target] = 0
                theirs[25] += 1
        return mine[0] >= self.checkers


def _game_moves(game: Game, variant: str, number: int) -> tuple[list[str], str]:
    """The SGF nodes of a game's actions and how it ended on the board ('bear-off', 'drop'
    or '': a resignation, or unfinished)."""
    plain = [None if a.kind != PLAY else _plain_steps(a.play) for a in game.actions]
    replay = None
    if any(a.kind == PLAY and p is None for a, p in zip(game.actions, plain)):
        replay = _Replay(variant, False, False)  # some play needs the board to be written
    tracker, ended, nodes = _Tracker(variant), "", []
    for k, (a, steps) in enumerate(zip(game.actions, plain), 1):
        if a.player not in (0, 1):
            raise SgfError(f"game {number}, action {k}: player is 0 or 1, got {a.player}")
        colour = _COLOUR[a.player]
        try:
            if a.kind == PLAY:
                d1, d2 = a.dice
                if replay is not None:
                    plays, row = replay.play(a.player, d1, d2, a.play)
                    used = plays.steps[row].reshape(-1, 2)
                    steps = [(int(s), int(t)) for s, t in used if s >= 0]
                if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
                    raise ValueError(f"dice {d1}-{d2} outside 1..6")
                nodes.append(f"{colour}[{d1}{d2}"
                             + "".join(_letter(s, a.player) + _letter(t, a.player)
                                       for s, t in steps) + "]")
                if tracker.move(a.player, steps):
                    ended = "bear-off"
            elif a.kind == DOUBLE:
                if replay is not None:
                    replay.double(a.player)
                nodes.append(f"{colour}[double]")
            elif a.kind in (TAKE, DROP):
                if replay is not None:
                    replay.answer(a.player, a.kind == TAKE)
                nodes.append(f"{colour}[{'take' if a.kind == TAKE else 'drop'}]")
                ended = "drop" if a.kind == DROP else ended
            else:
                raise ValueError(f"unknown action kind {a.kind!r}")
        except ValueError as e:
            raise SgfError(f"game {number}, action {k} ({a.kind} by player {a.player}): "
                           f"{e}") from None
    return nodes, ended


_INFO = {"Site": "PC", "Round": "RO", "Event": "EV", "Annotator": "AN", "Source": "SO"}


def sgf_problem(variant: str) -> str | None:
    """Why a match of ``variant`` cannot be an SGF file, or None when it can."""
    name = get_variant(variant).name
    if name in ("standard", *VARIANT_WORDS):
        return None
    return (f"an SGF file holds standard backgammon, nackgammon or hypergammon, not {name}: "
            f"save a .mat file instead")


def format_sgf(match: Match, comments: dict[str, str] | None = None, jacoby: bool = False,
               application: str = "gammon") -> str:
    """The SGF text of a match or money session: one game tree per game, as gnubg 1.07
    writes them (the Crawford game marked, ``RE`` with ``R`` after a resignation, the games
    numbered from 0). ``comments`` are game information: Site, Round, Event, Annotator and
    Source become their SGF properties, EventDate (``2026.01.02``) ``DT``, the others one
    ``GC`` line each. ``jacoby``: money games counted gammons single with a centred cube.

    SgfError for a variant SGF cannot name (standard, Nackgammon and 3-checker
    Hypergammon only), and for a play that is neither plain ``from/to`` steps nor legal."""
    why = sgf_problem(match.variant)
    if why:
        raise SgfError(why)
    info, notes = [], []
    for key, value in (comments or {}).items():
        if key == "EventDate":
            info.append(f"DT[{_escape(str(value).replace('.', '-'))}]")
        elif key in _INFO:
            info.append(f"{_INFO[key]}[{_escape(value)}]")
        else:
            notes.append(f"{key}: {value}")
    if notes:
        info.append(f"GC[{_escape('; '.join(notes))}]")
    names = [_escape(n) for n in match.names]
    crawford = crawford_games(match)
    out = []
    for number, (game, (left, right), is_crawford) in enumerate(
            zip(match.games, match.scores(), crawford), 1):
        nodes, ended = _game_moves(game, match.variant, number)
        rules = []
        if match.length:
            rules += ["Crawford", "CrawfordGame"] if is_crawford else ["Crawford"]
        elif jacoby:
            rules.append("Jacoby")
        if match.variant in VARIANT_WORDS:
            rules.append(VARIANT_WORDS[match.variant])
        root = (f"(;FF[4]GM[6]CA[UTF-8]AP[{_escape(application)}]"
                f"MI[length:{match.length}][game:{number - 1}][ws:{left}][bs:{right}]"
                f"PW[{names[0]}]PB[{names[1]}]" + "".join(info))
        if rules:
            root += f"RU[{':'.join(rules)}]"
        if game.winner is not None:
            if game.winner not in (0, 1):
                raise SgfError(f"game {number}: the winner is player 0 or 1, got "
                               f"{game.winner}")
            resigned = "R" if not ended else ""
            root += f"RE[{_COLOUR[game.winner]}+{game.points}{resigned}]"
        out.append(root + "".join(f"\n;{node}" for node in nodes) + ")\n")
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Either format


def is_sgf_name(path) -> bool:
    """Whether a file name says SGF (``.sgf``, any case); anything else is a .mat file."""
    return str(path).lower().endswith(".sgf")


def format_match_file(path, match: Match, comments: dict[str, str] | None = None,
                      jacoby: bool = False) -> str:
    """The text of ``match`` in the format the file name says: SGF for ``.sgf``, else a
    .mat file (``matfile.format_match``, which has no Jacoby rule to record)."""
    if is_sgf_name(path):
        return format_sgf(match, comments, jacoby)
    return matfile.format_match(match, comments)


def read_match_file(text: str) -> Match:
    """A match file of either format, told by its content: SGF (it starts with ``(``) or a
    .mat file (an ``N point match`` line), every game played through the rules. A
    MatchFileError (SgfError for SGF) of one line for anything else or anything wrong."""
    body = str(text).lstrip("\ufeff")
    if body.lstrip().startswith("("):
        return parse_sgf(body)
    meaningful = [line.strip() for line in body.splitlines()
                  if line.strip() and not line.lstrip().startswith((";", "#"))]
    if not meaningful:
        raise MatchFileError("empty file: neither an SGF file nor a .mat file")
    if not re.match(r"^\s*[0-9]+\s+point\s+match", meaningful[0], re.IGNORECASE):
        raise MatchFileError(f"unknown format: {_show(meaningful[0], 30)} begins neither an "
                             f"SGF file ('(;') nor a .mat file ('N point match')")
    try:
        match = matfile.parse_match(body)
        for number, game in enumerate(match.games, 1):
            matfile.replay(game, match.variant, number)
    except ValueError as e:
        raise MatchFileError(f".mat file: {e}") from None
    return match


__all__ = ["MatchFileError", "SgfError", "SgfMatch", "read_sgf", "parse_sgf", "format_sgf",
           "crawford_games", "sgf_problem", "is_sgf_name", "format_match_file", "read_match_file",
           "VARIANT_WORDS"]
