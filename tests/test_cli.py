"""Smoke tests of the `gammon` command (in process; the streaming batch test in a subprocess)."""

import subprocess
import sys

import pytest

from inprocess import gammon as run_in_process

GAMMON = [sys.executable, "-m", "gammon.cli"]
START = "4HPwATDgc/ABMA"


def gammon(*args, stdin=None):
    """``gammon ARGS`` in this process (a subprocess each cost seconds of start-up)."""
    return run_in_process(*args, stdin=stdin)


def test_moves_lists_play_and_unflipped_result(corpus):
    case = next(c for c in corpus if c["variant"] == "standard" and len(c["results"]) > 5)
    out = gammon("moves", case["posid"], str(case["d1"]), str(case["d2"]))
    assert out.returncode == 0 and out.stderr == ""
    lines = [line.split("\t") for line in out.stdout.splitlines()]
    assert sorted(result for _, result in lines) == case["results"]
    by_result = dict(zip(case["results"], case["moves"]))
    assert all(play == by_result[result] for play, result in lines)


def test_moves_with_no_legal_play_prints_nothing(corpus):
    case = next(c for c in corpus if not c["results"])
    out = gammon("moves", case["posid"], str(case["d1"]), str(case["d2"]))
    assert out.returncode == 0 and out.stdout == ""


def test_batch_answers_every_line_and_goes_on_after_errors(corpus):
    cases = corpus[:200]
    lines = [f"{c['posid']} {c['d1']} {c['d2']}" for c in cases]
    bad = ["4HPwATDgc/ABM 3 1", "4HPwATDgc/ABMA 7 1", "nonsense", "", "/////////////w 1 2"]
    text = "\n".join(lines[:100] + bad + lines[100:]) + "\n"
    out = gammon("moves", "--batch", stdin=text)
    assert out.returncode == 0
    answers = out.stdout.split("\n")[:-1]
    assert len(answers) == len(lines) + len(bad)
    errors = answers[100:100 + len(bad)]
    assert all(a.startswith("error:") for a in errors)
    assert "14 characters" in errors[0] and "1 to 6" in errors[1]
    good = answers[:100] + answers[100 + len(bad):]
    for case, answer in zip(cases, good):
        assert sorted(answer.split()) == case["results"]


def test_batch_flushes_each_answer():
    proc = subprocess.Popen(GAMMON + ["moves", "--batch"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        proc.stdin.write(f"{START} 6 5\n")
        proc.stdin.flush()
        first = proc.stdout.readline()  # arrives while stdin is still open
        assert "4HPwATDg68EBMA" in first.split()  # 24/13
        proc.stdin.write(f"{START} 1 1\n")
        proc.stdin.flush()
        assert len(proc.stdout.readline().split()) > 5
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert proc.returncode == 0


@pytest.mark.parametrize("args, message", [
    (["moves", "4HPwATDgc/ABM", "3", "1"], "14 characters"),
    (["moves", START, "0", "1"], "1 to 6"),
    (["moves", START, "3", "x"], "1 to 6"),
    (["moves", START, "3"], "POSID D1 D2"),
    (["moves", "4HPwATDgc/AB*A", "3", "1"], "outside base64"),
    (["show", "/////////////w"], "too many checkers"),
    (["moves", "xOfgATDgc/ABMA", "3", "1", "--variant", "hypergammon"], "at most 3"),
])
def test_bad_input_is_one_line_on_stderr_with_exit_2(args, message):
    out = gammon(*args)
    assert out.returncode == 2
    assert out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and message in out.stderr
    assert "Traceback" not in out.stderr


def test_sixteen_checkers_is_refused():
    # mover 16 checkers, opponent 14: fits 80 bits but breaks the rules
    from gammon.engine.formats import posid
    from gammon.engine.rules import start_boards
    board = start_boards(1)[0].copy()
    board[6] += 1
    board[1] += 1
    out = gammon("moves", posid.encode(board), "3", "1")
    assert out.returncode == 2 and "16 checkers" in out.stderr


def test_show_draws_the_start_position():
    out = gammon("show", START)
    assert out.returncode == 0
    assert out.stdout.count("pips 167") == 2 and "off  0" in out.stdout


def test_help_explains_every_command():
    out = gammon("--help")
    assert out.returncode == 0 and "moves" in out.stdout and "show" in out.stdout
    out = gammon("moves", "--help")
    assert out.returncode == 0 and "--batch" in out.stdout and "not flipped" in out.stdout


@pytest.mark.parametrize("dice", [["3", "1"], ["31"], ["3-1"], ["3 1"], ["1", "3"], ["13"]])
def test_moves_reads_the_common_dice_spellings(dice):
    out = gammon("moves", START, *dice)
    assert out.returncode == 0, out.stderr
    assert "8/5 6/5\t4HPwATCwZ/ABMA" in out.stdout.splitlines()


@pytest.mark.parametrize("die", ["²", "٣", "３", "1" * 5000, "-1", "+3x", "", "3.0", "0x3"])
def test_a_die_is_ascii_digits_only(die):
    out = gammon("moves", START, die, "1")
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
    assert "1 to 6" in out.stderr or "POSID D1 D2" in out.stderr
    assert len(out.stderr) < 300  # a 5,000-digit die is quoted, not echoed whole


def test_batch_goes_on_after_unicode_digits_and_long_lines():
    lines = [f"{START} ² 1", f"{START} 3 1", f"{START} ٣ 1", "x" * 1_000_000, f"{START} 31",
             f"{START} 3-1", f"{START} 9" + "9" * 5000 + " 1", f"{START} 6 5"]
    out = gammon("moves", "--batch", stdin="\n".join(lines) + "\n")
    assert out.returncode == 0 and "Traceback" not in out.stderr
    answers = out.stdout.split("\n")[:-1]
    assert len(answers) == len(lines)
    bad = [0, 2, 3, 6]
    assert all(answers[i].startswith("error:") for i in bad)
    assert all(len(answers[i]) < 300 for i in bad)
    assert answers[1] == answers[4] == answers[5] and "4HPwATCwZ/ABMA" in answers[1].split()


def test_error_messages_quote_at_most_80_characters_of_input():
    from gammon.errors import one_line, quote
    assert quote("abc") == "'abc'"
    long = quote("y" * 100_000)
    assert long.startswith("'" + "y" * 80 + "'...") and "100,000 characters" in long
    assert "\\x00" in quote("a\x00b") and "\n" not in quote("a\nb")
    assert one_line("two\nlines") == "two\\nlines"
    assert len(one_line("z" * 10_000)) < 450


def test_parser_errors_are_one_line_too():
    for args in (["moves", "--bogus"], ["nosuchcommand"], ["moves", START, "3", "1", "2"],
                 ["show", START, "--variant", "v" * 10_000], []):
        out = gammon(*args)
        assert out.returncode == 2 and out.stdout == "", args
        assert len(out.stderr.strip().splitlines()) == 1 and len(out.stderr) < 500, args
