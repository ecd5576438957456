"""Match equity tables (engine.met): the gammon-rate construction, the text format, the
printout."""

from pathlib import Path

import numpy as np
import pytest

from gammon.engine.met import (
    MatchEquityTable,
    _stopping_game,
    dump_met,
    format_met,
    load_met,
    met_from_gammon_rate,
    parse_met,
    save_met,
)

LENGTH = 11
G = 0.26


@pytest.fixture(scope="module", params=[False, True], ids=["cubeless", "live-cube"])
def met(request):
    return met_from_gammon_rate(LENGTH, G, cube=request.param)


@pytest.fixture(scope="module")
def cubeless():
    return met_from_gammon_rate(LENGTH, G)


@pytest.fixture(scope="module")
def live():
    return met_from_gammon_rate(LENGTH, G, cube=True)


def away(met):
    """The table proper, (L, L): rows and columns 1..L away."""
    return met.pre[1:, 1:]


def test_shapes_and_the_won_rows(met):
    assert met.length == LENGTH and met.pre.shape == (LENGTH + 1,) * 2
    assert met.post.shape == (LENGTH + 1,)
    assert (met.pre[0, 1:] == 1).all() and (met.pre[1:, 0] == 0).all()
    assert np.isnan(met.pre[0, 0]) and met.post[0] == 1
    assert met[3, 5] == met.pre[3, 5]


def test_symmetry(met):
    """Either the one player wins or the other: met[i, j] + met[j, i] == 1."""
    np.testing.assert_allclose(away(met) + away(met).T, 1.0, atol=1e-12)


def test_even_scores_are_even(met):
    assert met[1, 1] == 0.5
    np.testing.assert_allclose(np.diag(away(met)), 0.5, atol=1e-12)


def test_values_are_chances(met):
    assert ((away(met) > 0) & (away(met) < 1)).all()
    assert ((met.post[1:] > 0) & (met.post[1:] < 1)).all()


def test_needing_fewer_points_is_better(met):
    """Strictly: down a column (needing more) worse, along a row (opponent needs more)
    better, also against the won row and column 0."""
    assert (np.diff(met.pre[1:, 1:], axis=0) < 0).all()
    assert (np.diff(met.pre[1:, :], axis=1) > 0).all()
    assert (np.diff(met.pre[:, 1:], axis=0)[1:] < 0).all()
    assert (np.diff(met.post[1:]) < 0).all()


def test_post_crawford_trailer():
    """DMP is 1/2; at 2-away the trailer's double leaves the leader a free drop, worth
    Zadeh's 1.5% here: 48.5%, where published tables (rollouts) say 48-49%. At 3-away the
    trailer's doubled game goes to DMP with a single win and ends the match with a gammon."""
    met = met_from_gammon_rate(LENGTH, G)
    assert met.post[1] == 0.5
    assert 0.47 <= met.post[2] <= 0.495
    assert met.post[2] == pytest.approx(0.5 - 0.015)
    assert met.post[3] == pytest.approx(G / 2 + (1 - G) / 2 * 0.5)
    assert met.post[4] == pytest.approx(G / 2 + (1 - G) / 2 * met.post[2] - 0.004)


def test_free_drops_at_even_away():
    """Without the deduction the leader's drop costs nothing at any even away: dropping to
    (2k-1)-away is worth exactly what taking is, so post[2k] == post[2k - 1]."""
    met = met_from_gammon_rate(LENGTH, G, free_drops={})
    for k in range(1, LENGTH // 2 + 1):
        assert met.post[2 * k] == pytest.approx(met.post[2 * k - 1])


def test_crawford_game(met):
    """No cube in it: the trailer 2-away wins the match with a gammon or goes to DMP with a
    single: 1 - (G/2 + (1-G)/4) = 68.5% for the leader; published tables say 67-70%."""
    assert met[1, 2] == pytest.approx(1 - (G / 2 + (1 - G) / 2 * 0.5))
    assert 0.66 <= met[1, 2] <= 0.71
    for n in range(2, LENGTH + 1):  # the leader does better in the Crawford game than after
        assert met[1, n] > 1 - met.post[n]


def test_both_models_share_the_crawford_row(cubeless, live):
    np.testing.assert_array_equal(cubeless.pre[1], live.pre[1])
    np.testing.assert_array_equal(cubeless.post, live.post)


def test_the_cube_helps_the_underdog(cubeless, live):
    """The live cube brings every pre-Crawford score nearer to even (the trailer's doubles
    and takes), so the leader's chances never exceed the cubeless ones."""
    leader = np.triu(np.ones((LENGTH, LENGTH), bool), 1)  # i < j
    assert (away(live)[leader] <= away(cubeless)[leader] + 1e-12).all()
    leader[0] = False  # the Crawford game, the same in both
    assert (away(live)[leader] < away(cubeless)[leader]).all()


def test_sample_values(cubeless, live):
    """3-away/5-away: published rollout tables say about 64-65%; the live-cube model lands
    there, the cubeless recursion well above (no cube for the trailer)."""
    assert live[3, 5] == pytest.approx(0.6463, abs=1e-3)
    assert 0.62 <= live[3, 5] <= 0.67
    assert cubeless[3, 5] == pytest.approx(0.6958, abs=1e-3)
    assert live[2, 4] == pytest.approx(0.6647, abs=1e-3)


def test_cubeless_recursion_without_gammons():
    """With no gammons every cubeless game is worth one point, won half the time: each
    entry is the mean of the two scores the next game leads to; the Crawford game likewise
    (the trailer 3-away goes to 2-away post-Crawford or loses)."""
    met = met_from_gammon_rate(6, 0.0, free_drops={})
    for i in range(2, 7):
        for j in range(2, 7):
            assert met[i, j] == pytest.approx(0.5 * met[i - 1, j] + 0.5 * met[i, j - 1])
    assert met[1, 3] == pytest.approx(1 - 0.5 * met.post[2])
    assert met.post[3] == pytest.approx(0.5 * met.post[1])  # doubled: a win is 2 points


def test_stopping_game_settles():
    """The solver's answer satisfies V = clip(mean of neighbours, A's payoff, B's)."""
    p = np.linspace(0, 1, 101)
    lo = 0.1 + 0.6 * p ** 2  # A may stop
    hi = 0.35 + 0.6 * np.sqrt(p)  # B may stop
    value = _stopping_game(lo, hi, 0.0, 1.0)
    walk = 0.5 * (value[:-2] + value[2:])
    np.testing.assert_allclose(value[1:-1], np.clip(walk, lo[1:-1], hi[1:-1]), atol=1e-12)
    only_a = _stopping_game(np.full(101, 0.7), np.full(101, np.nan), 0.0, 1.0)
    np.testing.assert_allclose(only_a[1:], np.linspace(0.7, 1.0, 100))


@pytest.mark.parametrize("args, words", [
    ((0,), "length 0 outside"),
    ((65,), "length 65 outside"),
    ((7, 1.0), "gammon rate 1.0 outside"),
    ((7, -0.1), "gammon rate -0.1 outside"),
])
def test_construction_arguments(args, words):
    with pytest.raises(ValueError, match=words):
        met_from_gammon_rate(*args)


def test_the_grid_is_even():
    with pytest.raises(ValueError, match="grid 101 must be an even number"):
        met_from_gammon_rate(5, cube=True, grid=101)


def test_win_probability(cubeless):
    met = cubeless
    assert met.win_probability(0, 3) == 1.0 and met.win_probability(3, -1) == 0.0
    assert met.win_probability(3, 5) == met[3, 5]
    assert met.win_probability(2, 1, post_crawford=True) == met.post[2]
    assert met.win_probability(1, 4, post_crawford=True) == 1 - met.post[4]
    assert met.win_probability(1, 1, post_crawford=True) == 0.5
    with pytest.raises(ValueError, match="nobody is 1-away"):
        met.win_probability(2, 3, post_crawford=True)
    with pytest.raises(ValueError, match="beyond this 11-point table"):
        met.win_probability(12, 3)


def test_format_met(cubeless):
    text = format_met(cubeless, 7)
    lines = text.splitlines()
    assert lines[0] == "Match equity table: gammon rate 0.26, cubeless"
    head = lines[4].split()
    assert head == [f"{j}-away" for j in range(1, 8)]
    rows = lines[5:12]
    assert [r.split()[0] for r in rows] == [f"{i}-away" for i in range(1, 8)]
    assert rows[0].split()[1:3] == ["50.0", "68.5"]  # 1-away row: DMP, Crawford
    assert rows[2].split()[5] == f"{100 * cubeless[3, 5]:.1f}"
    assert lines[-1].split()[:2] == ["50.0", "48.5"]  # post-Crawford trailer
    assert len(lines) == 5 + 7 + 4
    assert len(format_met(cubeless).splitlines()) == 5 + LENGTH + 4
    with pytest.raises(ValueError, match="length 12 outside 1..11"):
        format_met(cubeless, 12)


def test_text_round_trip(tmp_path, live):
    path = tmp_path / "live.met"
    save_met(live, path)
    back = load_met(path)
    assert (back.name, back.source, back.length) == (live.name, live.source, LENGTH)
    np.testing.assert_allclose(back.pre, live.pre, atol=5e-7)
    np.testing.assert_allclose(back.post, live.post, atol=5e-7)
    assert dump_met(back) == dump_met(live)


def test_percent_commas_and_comments():
    text = """# a 2-point table
    name: tiny
    unit: percent
    length: 2

    pre-crawford
    50, 70
    30, 50
    post-crawford
    # the trailer
    50 48.8
    """
    met = parse_met(text)
    assert isinstance(met, MatchEquityTable) and met.name == "tiny" and met.source == ""
    assert met[1, 2] == pytest.approx(0.7) and met.post[2] == pytest.approx(0.488)


GOOD = ["length: 2", "pre-crawford", "0.5 0.7", "0.3 0.5", "post-crawford", "0.5 0.49"]


def variant(index, line):
    """GOOD with line ``index`` replaced (None: removed), as text."""
    lines = list(GOOD)
    if line is None:
        del lines[index]
    else:
        lines[index] = line
    return "\n".join(lines)


@pytest.mark.parametrize("text, words", [
    (variant(0, None), "t.met: no 'length:' header"),
    (variant(0, "length: two"), "t.met, line 1: length 'two' is not a whole number in 1..64"),
    (variant(0, "length: 0"), "length '0' is not a whole number"),
    (variant(0, "colour: red"), "t.met, line 1: unknown header 'colour'"),
    ("unit: per mille\n" + "\n".join(GOOD), "line 1: unit 'per mille' is not percent or"),
    (variant(1, None), "t.met, line 2: numbers before a 'pre-crawford'"),
    (variant(4, None), "the pre-crawford section has 3 rows, not 2"),
    ("\n".join(GOOD[:4]), "t.met: no post-crawford section"),
    (variant(3, "0.3 0.5 0.2"), "t.met, line 4: 3 numbers, not 2"),
    (variant(3, "0.3 half"), "t.met, line 4: not a row of numbers: '0.3 half'"),
    (variant(3, "0.3 1.5"), "t.met, line 4: a number outside 0..1"),
    (variant(3, "0.4 0.5"), "1-away/2-away is 0.7000 and 2-away/1-away 0.4000; the two should"),
    (variant(5, "0.45 0.49"), "post-Crawford 1-away is 0.4500, not 0.5"),
    ("\n".join(GOOD + ["pre-crawford"]), "line 7: a second pre-crawford section"),
])
def test_loader_errors(text, words):
    with pytest.raises(ValueError) as caught:
        parse_met(text, origin="t.met")
    assert words in str(caught.value)
    assert "\n" not in str(caught.value)


def test_loader_tolerance():
    """Rounded published tables pass within the tolerance, and fail beyond it."""
    text = variant(3, "0.295 0.5")
    assert parse_met(text)[2, 1] == pytest.approx(0.295)
    with pytest.raises(ValueError, match="should add up to 1"):
        parse_met(text, tolerance=0.001)


# ------------------------------------------------------------ gnubg's XML and the shipped table

SMALL_XML = """<?xml version = "1.0"?>
<!DOCTYPE met PUBLIC "-//GNU Backgammon//DTD Match Equity Tables//EN" "met.dtd">
<met>
  <info><name>Three by three</name><length>3</length></info>
  <pre-crawford-table type="explicit">
    <row><me>0.5</me><me>0.7</me><me>0.75</me></row>
    <row><me>0.3</me><me>0.5</me><me>0.6</me></row>
    <row><me>0.25</me><me>0.4</me><me>0.5</me></row>
  </pre-crawford-table>
  <post-crawford-table type="explicit" player="both">
    <row><me>0.5</me><me>0.49</me><me>0.32</me><me>0.31</me></row>
  </post-crawford-table>
</met>
"""


def test_gnubg_xml_tables_are_read():
    from gammon.engine.met import parse_gnubg_met, read_met
    met = parse_gnubg_met(SMALL_XML, "small.xml")
    assert met.length == 3 and met.name == "Three by three"
    assert met.win_probability(1, 2) == pytest.approx(0.7)
    assert met.win_probability(3, 2) == pytest.approx(0.4)
    assert met.win_probability(2, 1, post_crawford=True) == pytest.approx(0.49)
    assert read_met(SMALL_XML, "small.xml").pre[2, 3] == pytest.approx(0.6)  # XML found
    assert read_met(dump_met(met)).pre[2, 3] == pytest.approx(0.6)  # and our text format


@pytest.mark.parametrize("change, message", [
    (('type="explicit">\n    <row><me>0.5', 'type="zadeh">\n    <row><me>0.5'),
     "only explicit tables"),
    (("<me>0.6</me>", "<me>x</me>"), "not a number"),
    (("<me>0.6</me>", ""), "2 numbers, not 3"),
    (("<length>3</length>", "<length>4</length>"), "<length> says 4"),
    (("<met>", "<table>"), "the XML's root is <table>, not <met>"),
    (("</met>", "</me"), "not a GNU Backgammon MET (XML)"),
    (("<me>0.3</me>", "<me>0.1</me>"), "should add up to 1"),
])
def test_bad_gnubg_xml_is_one_line_naming_the_file(change, message):
    from gammon.engine.met import parse_gnubg_met
    text = SMALL_XML.replace(*change, 1)
    if change[1] == "<table>":  # the same root at both ends
        text = text.replace("</met>", "</table>")
    with pytest.raises(ValueError) as e:
        parse_gnubg_met(text, "small.xml")
    assert message in str(e.value) and "small.xml" in str(e.value)
    assert "\n" not in str(e.value)


def test_the_shipped_kazaross_xg2_table():
    """The published numbers (Kazaross XG2, as gnubg 1.07 ships them): 1-away 2-away
    67.736%, 2-away 3-away 59.947%, post-Crawford 2-away 48.803%; 25 points; and equal
    to gnubg's own file, number for number, where gnubg is installed (CI installs it)."""
    from gammon.engine.met import named_met, read_met
    met = named_met("kazaross-xg2")
    assert met.length == 25 and met.name == "Kazaross XG2"
    assert met.win_probability(1, 2) == pytest.approx(0.67736)
    assert met.win_probability(2, 3) == pytest.approx(0.59947)
    assert met.win_probability(2, 1, post_crawford=True) == pytest.approx(0.48803)
    gnubg_file = Path("/usr/share/gnubg/met/Kazaross-XG2.xml")
    if gnubg_file.exists():
        theirs = read_met(gnubg_file.read_text(), str(gnubg_file))
        assert np.array_equal(theirs.pre[1:, 1:], met.pre[1:, 1:])
        assert np.array_equal(theirs.post, met.post)
    with pytest.raises(KeyError):
        named_met("woolsey")
