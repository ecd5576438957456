"""Match files other programs really write (tests/data/real, their origins in its
README.md): every one is read by engine.formats and reviewed by `gammon review`, each quirk
of theirs is read as GNU Backgammon 1.07 imports it (with the warning that says what is
used where a file contradicts itself), the rules headers are honoured or warned about, and
a refusal names the whole file and the place. With GNU Backgammon and gnubg-nn installed, a
slow test compares the review's error rates with gnubg's own analysis."""

import json
from pathlib import Path

import numpy as np
import pytest

from gammon.engine.formats import posid
from gammon.engine.formats.foreign import MatchFileError, read_match_text
from gammon.engine.formats.matfile import DROP, PLAY
from gammon.engine.formats.sgf import read_sgf
from gammon.eval.review.report import prepare
from gammon.eval.review.source import ReviewInputError
from inprocess import gammon

REAL = Path(__file__).parent / "data" / "real"
CORPUS = sorted(p for p in REAL.rglob("*") if p.is_file() and p.name != "README.md")
GNUBG_ONLY = {"galaxy/match8320876.txt"}  # gnubg 1.07 crashes on it (a player without name)


def _id(path: Path) -> str:
    return str(path.relative_to(REAL))


def _read(name: str):
    return read_match_text((REAL / name).read_text(encoding="utf-8"))


def test_the_corpus_has_several_programs_and_each_file_its_origin():
    readme = (REAL / "README.md").read_text()
    assert len(CORPUS) >= 30
    for path in CORPUS:
        assert f"`{path.name}`" in readme, f"{_id(path)} has no line in README.md"
    programs = {path.parent.name for path in CORPUS}
    assert programs == {"galaxy", "studio", "xg-layout", "gnubg", "gibbon"}
    assert sum(path.stat().st_size for path in CORPUS) < 2_000_000


@pytest.mark.parametrize("path", CORPUS, ids=_id)
def test_every_corpus_file_is_read_with_every_action_legal(path):
    """engine.formats reads the file, every action checked by the rules (strict), and the
    review's walk takes every game without an illegal action."""
    text = path.read_text(encoding="utf-8")
    found = read_match_text(text)
    match = found.match
    assert match.games and all(name for name in match.names)
    assert found.format == ("sgf" if path.suffix == ".sgf" else "mat")
    assert len(found.crawford) == len(match.games)
    assert all("\n" not in w for w in found.warnings)
    for game in match.games:
        assert game.winner in (None, 0, 1) and game.points >= 0
    source, games, _ = prepare(text)
    assert len(games) == len(match.games) and not any(g.warning for g in games)
    if match.length:  # no game starts after the match is over
        assert all(max(score) < match.length for score in match.scores())


# ------------------------------------------------------------------------------ quirks


def test_galaxy_losses_rows_beside_under_and_on_the_winners_row():
    """Galaxy writes the loser's `Losses N point` in either column, beside the last roll,
    on the winner's row or alone; it only repeats the points."""
    beside = _read("galaxy/match6608293.txt").match  # '21) 65: 4/0 4/0   Losses 3 point'
    assert [(g.winner, g.points) for g in beside.games] == [(0, 4)]  # cube 2, a gammon
    assert beside.games[0].losses == 3  # "and the match": the points lasse needed
    row = _read("galaxy/match9700805.txt").match  # ' 20)  Losses 3 point ... Wins 3 point'
    assert [(g.winner, g.points, g.losses) for g in row.games] == [(1, 2, None), (1, 4, 3)]
    alone = _read("galaxy/match2516058.txt").match  # 'Losses 2 point' without a row number
    assert (alone.games[-1].winner, alone.games[-1].points) == (0, 2)
    # a row written without its line break: its second row number starts the next row
    joined = _read("galaxy/match2900236.txt").match
    assert (joined.games[1].winner, joined.games[1].points, joined.games[1].losses) == (1, 2, 2)
    text = (" 3 point match\n\n Game 1\n a : 0        b : 0\n"
            "  1) 31: 8/5 6/5                 42: 8/4 6/4\n"
            "  2)  Doubles => 2                Drops\n"
            "  3)  Wins 1 point                Losses 1 point\n")
    found = read_match_text(text)
    assert [(a.player, a.kind) for a in found.match.games[0].actions][-1] == (1, DROP)
    assert (found.match.games[0].winner, found.match.games[0].points) == (0, 1)
    assert found.warnings == []
    found = read_match_text(text.replace("Losses 1 point", "Losses 2 points"))
    assert found.warnings == ["game 1: the file's Losses line says 2, its Wins line 1: the "
                              "Wins line is read"]


def test_galaxy_wins_and_the_match_counts_the_games_worth():
    """`Wins N point and the match` says the points the winner needed (or the match
    length); the game is worth what its play says, without a warning, as it ends the match
    either way."""
    needed = _read("galaxy/match1004844.txt")  # 1-0 of 3, cube 4: 'Wins 2 point ...'
    assert (needed.match.games[1].winner, needed.match.games[1].points) == (0, 4)
    length = _read("galaxy/match1281172.txt")  # 1-4 of 5: 'Wins 5 point and the match'
    assert (length.match.games[2].winner, length.match.games[2].points) == (1, 6)
    assert needed.warnings == length.warnings == []


def test_cannot_move_and_question_marks_are_no_play():
    """Studio and XG write `64: Cannot Move` for a roll that cannot be played and `62: ????`
    for a roll after which the player resigned (or the game ended)."""
    found = _read("studio/Llabba - Iradch49 7pt Backgammon Studio 2023_05_15 18_07_54.txt")
    empty = [(a.line, a.dice) for g in found.match.games for a in g.actions
             if a.kind == PLAY and not a.play]
    assert (38, (3, 3)) in empty and (44, (2, 2)) in empty  # 33: Cannot Move, 22: Cannot..
    text = (" 0 point match\n\n Game 1\n a : 0        b : 0\n"
            "  1) 64: 24/18 13/9              55: Cannot Move\n  2) 31: 8/5 6/5\n")
    with pytest.raises(MatchFileError, match=r"game 1, action 2 \(play by player 1, line 5\):"
                                             r" 55: '': a play is possible with 5-5"):
        read_match_text(text)
    # a roll then '????' and a resignation: the roll is dropped, the resignation stays
    mr = _read("studio/MrPurple - Lasse 3pt Backgammon Studio 2024_05_11 20_10_33.txt")
    last = mr.match.games[1]
    assert last.actions[-1].dice == (4, 1)  # Lasse's 41: 5/off; MrPurple's 32: ???? dropped
    assert (last.winner, last.points) == (1, 12)


def test_a_roll_then_a_resignation():
    """GNU Backgammon writes `51: ` then the resignation's `Wins` line; it imports the
    roll without a play ('roll but no move found; if there are legal moves assume a
    resignation'): the roll is dropped and the game won by resignation."""
    found = _read("gnubg/gnubg_roll_then_resign_1p.mat")
    game = found.match.games[0]
    assert [(a.player, a.dice) for a in game.actions] == [(1, (6, 2)), (0, (6, 2))]
    assert (game.winner, game.points) == (0, 1) and found.warnings == []
    source, games, _ = prepare((REAL / "gnubg/gnubg_roll_then_resign_1p.mat").read_text())
    assert [t.roll for t in games[0].turns] == [(6, 2), (6, 2)]
    # a roll without a play that is not the last action is still refused
    text = (" 0 point match\n\n Game 1\n a : 0        b : 0\n"
            "  1) 51:                          62: 24/18 13/11\n")
    with pytest.raises(MatchFileError, match="a play is possible with 5-1"):
        read_match_text(text)


def test_a_saved_game_starts_at_the_score_its_mi_says():
    """`save game` writes one game of a match with MI[...][ws:2][bs:2]: the score before
    it, which the match starts from."""
    name = "gnubg/charlot1-charlot2_7p_2025-11-08-2305_game3_saved.sgf"
    found = _read(name)
    assert found.match.start_score == (2, 2) and found.match.scores() == [(2, 2)]
    assert found.match.total() == (6, 2)
    source, games, _ = prepare((REAL / name).read_text())
    assert games[0].score == (2, 2) and games[0].turns[1].state.score == (2, 2)
    # the same game read from the whole match is the same game at the same score
    whole = _read("gnubg/charlot1-charlot2_7p_2025-11-08-2305.sgf").match
    assert [(a.player, a.kind, a.dice) for a in whole.games[2].actions] == \
        [(a.player, a.kind, a.dice) for a in found.match.games[0].actions]
    assert whole.scores()[2] == (2, 2)


def test_a_mat_file_of_later_games_starts_at_their_score():
    text = (" 7 point match\n\n Game 4\n a : 3        b : 5\n"
            "  1) 31: 8/5 6/5                  Doubles => 2\n"
            "  2)  Drops\n                                  Wins 1 point\n")
    match = read_match_text(text).match
    assert match.start_score == (3, 5) and match.total() == (3, 6)


def test_gibbon_resignations_and_set_up_positions():
    found = _read("gibbon/7point.sgf")
    game = found.match.games[3]  # ... B[resign:2] W[accept], RE[W+2Resign]
    assert (game.winner, game.points) == (0, 2) and found.warnings == []
    edited = _read("gibbon/edited.sgf")
    assert edited.match.start_score == (6, 3) and edited.match.length == 7
    start = edited.match.games[0].start
    assert (start.player, start.cube, start.owner) == (0, 2, 0)  # PL[W], CV[2], CP[w]
    assert posid.encode(start.board) == "4HPiAWAzTvABMA"  # as gnubg 1.07 loads it
    assert int(start.board[0]) == -2 and int(start.board[24]) == 2  # Black's bar, White's 24
    # resign, reject, play on; resign, accept
    head = ("(;FF[4]GM[6]MI[length:0][game:0][ws:0][bs:0]PW[w]PB[b]RE[B+2]\n"
            ";W[31hefe]\n;B[resign:1]\n;W[reject]\n;B[64aglp]\n;W[resign:2]\n;B[accept])")
    game = read_sgf(head).match.games[0]
    assert [a.player for a in game.actions] == [0, 1] and (game.winner, game.points) == (1, 2)
    with pytest.raises(MatchFileError, match="there is no resignation to answer"):
        read_sgf(head.replace(";B[resign:1]\n;W[reject]", ";B[reject]"))


def test_a_game_from_a_set_up_position_is_reviewed_from_it():
    """Moves after a set-up position are played from it, in the reader and in the walk."""
    text = ("(;FF[4]GM[6]MI[length:0][game:0][ws:0][bs:0]PW[w]PB[b]\n"
            ";AE[a:y]AW[a][b][c]AB[x][w]PL[B]CV[2]CP[c]\n;B[21wzxz])")
    found = read_match_text(text)
    start = found.match.games[0].start
    assert start.player == 1 and start.cube == 2 and start.owner == -1
    assert start.board[[1, 2, 22, 23, 24]].tolist() == [1, 1, -1, -1, -1]  # Black's side
    source, games, _ = prepare(text)
    turn = games[0].turns[0]
    assert np.array_equal(turn.board, start.board) and not turn.first
    assert turn.state.cube == 2 and turn.state.player == 1
    assert (games[0].winner, games[0].points) == (1, 2)  # borne off, no RE: the moves'
    with pytest.raises(ReviewInputError, match="the position set up has B on roll"):
        prepare(text.replace(";B[21wzxz]", ";W[21cbca]"))


def test_a_stated_result_the_play_contradicts_is_a_warning_with_the_number_used():
    galaxy = _read("galaxy/match8239468.txt")  # a gammon with a centred cube: 'Wins 1'
    assert galaxy.warnings == ["game 1: the file says lasse wins 1, the play says lasse wins "
                               "2 (bear-off): 2 for lasse is used"]
    assert galaxy.match.games[0].points == 2
    studio = _read("studio/MrPurple - Lasse 3pt Backgammon Studio 2024_05_11 20_10_33.txt")
    assert studio.warnings == ["game 2: the file says Lasse wins 4016, a resignation wins 1, 2 "
                               "or 3 times the cube (4): 12 is used"]
    forfeit = _read("galaxy/match1988690.txt")  # the match resigned at cube 1
    assert forfeit.warnings == ["game 3: the file says maartjebabes wins 4, a resignation wins "
                                "1, 2 or 3 times the cube (1): 3 is used"]
    text = (" 0 point match\n\n Game 1\n a : 0        b : 0\n"
            "  1) 31: 8/5 6/5                  Doubles => 2\n"
            "  2)  Drops\n      Wins 5 point\n")
    found = read_match_text(text)
    assert found.warnings == ["game 1: the file says a wins 5, the play says b wins 1 (drop): "
                              "1 for b is used"]
    assert (found.match.games[0].winner, found.match.games[0].points) == (1, 1)


def test_scores_and_games_after_the_match_are_warned_about():
    text = (" 1 point match\n\n Game 1\n a : 0        b : 0\n"
            "  1) 31: 8/5 6/5                  Doubles => 2\n  2)  Drops\n"
            "                                  Wins 1 point\n"
            " Game 2\n a : 0        b : 1\n  1) 42: 8/4 6/4\n")
    found = read_match_text(text)
    assert len(found.match.games) == 1
    assert found.warnings == ["game 2: the match is over before it (score 0-1 in a match to "
                              "1): it is not read"]
    text = (" 5 point match\n\n Game 1\n a : 0        b : 0\n"
            "  1) 31: 8/5 6/5                  Doubles => 2\n  2)  Drops\n"
            "                                  Wins 1 point\n"
            " Game 2\n a : 0        b : 2\n  1) 42: 8/4 6/4\n")
    assert read_match_text(text).warnings == [
        "game 2: the file says the score before it is 0-2, the games before it add up to 0-1: "
        "0-1 is used"]


def test_a_player_without_a_name_is_named_by_the_column():
    found = _read("galaxy/match8320876.txt")  # ' : 0   lasse : 0': gnubg 1.07 crashes
    assert found.match.names == ("player 1", "lasse")


# ------------------------------------------------------------------------------ headers

MONEY = """; [Site "XG Mobile"]
; [Variation "Backgammon"]
; [Jacoby "{jacoby}"]
; [Beaver "{beaver}"]
; [CubeLimit "{limit}"]

0 point match

Game 1
alice : 0                              bob : 0
 1) 31: 8/5 6/5                      64: 24/18 13/9
"""


def test_jacoby_and_beaver_headers_are_honoured_in_money_play():
    """XG's `; [Jacoby "On"]` is the Jacoby rule the review grades by (it was ignored);
    `; [Beaver "On"]` allows beavers."""
    on = read_match_text(MONEY.format(jacoby="On", beaver="On", limit="1024"))
    assert (on.jacoby, on.beavers, on.warnings) == (True, True, [])
    off = read_match_text(MONEY.format(jacoby="Off", beaver="Off", limit="1024"))
    assert (off.jacoby, off.beavers) == (False, False)
    source, games, _ = prepare(MONEY.format(jacoby="On", beaver="On", limit="1024"))
    state = games[0].turns[1].state
    assert state.jacoby and state.beavers
    source, games, _ = prepare(MONEY.format(jacoby="On", beaver="On", limit="1024"),
                               jacoby=False, beavers=False)  # the command line's word wins
    assert not games[0].turns[1].state.jacoby and not games[0].turns[1].state.beavers
    # a gammon with a centred cube counts single under the Jacoby rule: no warning then
    text = (REAL / "galaxy/match8239468.txt").read_text().replace(
        "16 point match", "0 point match").replace("; [CubeLimit", '; [Jacoby "On"]\n; [CubeLimit')
    found = read_match_text(text)
    assert found.jacoby and found.warnings == [] and found.match.games[0].points == 1


def test_headers_that_cannot_be_honoured_are_one_line_warnings_naming_them():
    found = read_match_text(MONEY.format(jacoby="On", beaver="Maybe", limit="64"))
    assert found.warnings == [
        'the header Beaver "Maybe" is neither On nor Off: ignored',
        'the header CubeLimit "64" cannot be honoured: the review values every cube as if it '
        'had no limit']
    match = MONEY.replace("0 point match", "5 point match").replace(
        '"Backgammon"', '"Tapa"').format(jacoby="On", beaver="On", limit="1024")
    found = read_match_text(match)
    assert not found.jacoby and not found.beavers
    assert found.warnings == [
        'the header Variation "Tapa" is no variant gammon knows: the games are read as '
        'standard backgammon',
        'the header Jacoby "On" does not apply to a match (the Jacoby rule is for money play): '
        'ignored',
        'the header Beaver "On" does not apply to a match (beavers are for money play): ignored']


def test_crawford_and_variation_headers():
    """`; [Crawford "Off"]`: no Crawford game (gnubg assumes the rule); a variation gnubg
    names is the variant."""
    text = ('; [Crawford "{rule}"]\n\n 3 point match\n\n Game 1\n a : 0        b : 0\n'
            "  1) 31: 8/5 6/5                  Doubles => 2\n  2)  Takes\n"
            "                                  Wins 2 points\n"
            " Game 2\n a : 0        b : 2\n  1) 42: 8/4 6/4\n")
    assert read_match_text(text.format(rule="On")).crawford == [False, True]
    assert read_match_text(text.format(rule="Off")).crawford == [False, False]
    source, games, _ = prepare(text.format(rule="Off"))
    assert not games[1].crawford
    nack = read_match_text('; [Variation "NackGammon"]\n\n 0 point match\n\n Game 1\n'
                           ' a : 0        b : 0\n  1) 31: 8/5 6/5\n')
    assert nack.match.variant == "nackgammon" and nack.warnings == []


# ------------------------------------------------------------------------------ refusals


def test_a_refusal_names_the_whole_file_the_place_and_what_was_expected(tmp_path):
    folder = tmp_path / ("a folder whose name alone is longer than forty-five characters" * 2)
    folder.mkdir()
    path = folder / "Some Player - Another Player 7pt Backgammon Studio 2024_05_11 20_10.txt"
    path.write_text(" 0 point match\n\n Game 1\n a : 0        b : 0\n"
                    "  1) 31: 8/5 6/5                 64: 24/18 13/9\n"
                    "  2) 52: 24/14\n")
    run = gammon("review", path, "--no-progress")
    assert run.returncode == 2 and run.stdout == ""
    line = run.stderr.strip()
    assert "\n" not in line and len(str(path)) > 180
    assert line.startswith(f"gammon review: error: {str(path)!r}: illegal action: ")
    assert "game 1, move 3, a (player 0), line 6: 52: '24/14': the dice 5-2 cannot move a " \
           "checker 24/14" in line
    path.write_text(" 0 point match\n\n Game 1\n a : 0        b : 0\n  1) 31: 8/5 6/5 hello\n"
                    "  2) resigns\n")
    line = gammon("review", path, "--no-progress").stderr.strip()
    assert line == (f"gammon review: error: {str(path)!r}: .mat file: line 6: cannot read "
                    f"'resigns': expected a roll and its play ('52: 13/8 13/11'), "
                    f"'Doubles => N', 'Takes', 'Drops', 'Wins N point(s)' or 'Losses N "
                    f"point(s)'")
    missing = folder / "not there.mat"
    line = gammon("review", missing, "--no-progress").stderr.strip()
    assert line.startswith(f"gammon review: error: {str(missing)!r}: cannot read it")
    sgf = folder / "cut.sgf"
    sgf.write_text("(;FF[4]GM[6]MI[length:0]PW[w]PB[b]\n;W[31hefe]\n;B[61aaaa])")
    line = gammon("review", sgf, "--no-progress").stderr.strip()
    assert line.startswith(f"gammon review: error: {str(sgf)!r}: SGF file: game 1, move 2 "
                           f"(line 3: B[61aaaa]): ")


# ------------------------------------------------------------------------------ reviews

FAST = ["galaxy/match1574521.txt", "studio/solnze - Lasse 3pt Backgammon Studio 2024_05_11 "
        "19_56_16.txt", "gnubg/gnubg_roll_then_resign_1p.mat",
        "gnubg/charlot1-charlot2_7p_2025-11-08-2305_game3_saved.sgf", "gibbon/edited.sgf"]
SLOW = ["galaxy/match10013413.txt",
        "xg-layout/03 Junichi Tanaka - Hideaki Ueda 11pt 2025-09-07_1757237175.txt",
        "gnubg/charlot1-charlot2_7p_2025-11-08-2305.mat", "gibbon/7point.sgf",
        "gibbon/7point.mat"]


def _review_json(name: str) -> dict:
    run = gammon("review", REAL / name, "--json", "--no-progress")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    found = _read(name)
    assert len(report["games"]) == len(found.match.games)
    assert [g["score"] for g in report["games"]] == [list(s) for s in found.match.scores()]
    assert [(g["winner"], g["points"]) for g in report["games"]] == \
        [(g.winner, g.points if g.winner is not None else 0) for g in found.match.games]
    assert report["warnings"] == found.warnings
    return report


@pytest.mark.parametrize("name", FAST)
def test_review_json_of_a_real_file_of_each_program(name):
    report = _review_json(name)
    assert report["format"] == ("sgf" if name.endswith(".sgf") else "mat")


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW)
def test_review_json_of_whole_real_matches(name):
    report = _review_json(name)
    assert sum(p["unforced"] for p in report["players"]) > 50


# ------------------------------------------------------------------------------ gnubg

RATES = ["galaxy/match10013413.txt",
         "studio/rossrock - Lasse 5pt Backgammon Studio 2024_05_11 21_39_07.txt",
         "gnubg/charlot1-charlot2_7p_2025-11-08-2305.mat",
         "gnubg/charlot1-charlot2_7p_2025-11-08-2305_game3_saved.sgf",
         "xg-layout/03 Junichi Tanaka - Hideaki Ueda 11pt 2025-09-07_1757237175.txt",
         "gibbon/7point.mat"]  # game 8 at 2-away 2-away: the cube counts as dead there


@pytest.mark.slow
@pytest.mark.parametrize("name", RATES)
def test_error_rates_within_ten_percent_of_gnubgs_own_analysis(name, tmp_path):
    """`gammon review --bot gnubg --met kazaross-xg2` against GNU Backgammon 1.07's
    `analyse match` at 0-ply (eval.gnubg.review_check's settings): each player's overall
    error rate within 10% (or 0.5 mEMG)."""
    pytest.importorskip("gnubg_nn", reason="needs gnubg-nn (the gnubg extra)")
    from gammon.eval.gnubg import review_check
    from gammon.eval.gnubg.driver import find_gnubg, run_gnubg
    if find_gnubg() is None:
        pytest.skip("GNU Backgammon (Debian's gnubg) is not installed")
    path = tmp_path / ("match" + (".sgf" if name.endswith(".sgf") else ".mat"))
    path.write_bytes((REAL / name).read_bytes())  # a path without spaces, for gnubg
    report = review_check.review_file(path, lambda message: None)
    base = tmp_path / "gnubg.txt"
    load = f"load match {path}" if path.suffix == ".sgf" else f"import mat {path}"
    out = run_gnubg(review_check.SETTINGS + [load, "analyse match", "show statistics match",
                                             f"export match text {base}"],
                    home=tmp_path, timeout=900)
    stats = review_check.read_statistics(out)
    files = [base] + sorted(tmp_path.glob("gnubg_[0-9][0-9][0-9].txt"))
    games = [review_check.read_export(f.read_text(errors="replace")) for f in files]
    compared = review_check.compare_file(report, games, stats)
    assert compared["unmatched"] == 0
    for player in compared["players"]:
        ours, theirs = player["error_rate"]
        assert review_check.rates_agree(ours, theirs), (player["name"], ours, theirs)
