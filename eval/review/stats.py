"""Each player's figures over the graded decisions of a match, in GNU Backgammon's terms
(all equities EMG per 1-cube, rates in mEMG = thousandths of EMG):

- ``unforced``: checker decisions with more than one legal result; ``checker_loss`` the
  sum of their losses; ``checker_error_rate`` = 1000 x checker_loss / unforced.
- ``cube_decisions``: the close or actual cube decisions (``eval.review.grade``);
  ``cube_loss`` the sum of every cube decision's loss; ``cube_error_rate`` = 1000 x
  cube_loss / cube_decisions.
- ``error_rate`` = 1000 x (checker_loss + cube_loss) / (unforced + cube_decisions): gnubg's
  "overall error rate".
- ``pr``, the performance rating on eXtreme Gammon's scale: the mean loss per decision
  (the same unforced checker and close or actual cube decisions) x 500, that is half the
  error rate in mEMG; 0 is perfect play, about 5 world class, 10 an expert, 20 a casual
  player. (XG counts its own set of non-trivial cube decisions; ours is gnubg's.)
- ``luck``: the sum of the luck of the player's rolls (per 1-cube); ``luck_points`` the
  same in points (each roll's luck times the cube's value then).
- ``points``: points won in finished games; ``net_points`` won minus lost;
  ``luck_adjusted`` = net_points - (luck_points - the opponent's luck_points): the result
  with the luck of both players' rolls taken out, in points (at a match score too, where
  the points only approximate what the match equity would say).
- ``marks``: the player's checker plays marked doubtful, bad, very bad; ``cube_marks`` his
  cube decisions so marked.
"""

from __future__ import annotations

from .marks import MARKS


def player_stats(names, games: list[dict]) -> list[dict]:
    """The two players' figures over the report's games (each with its ``decisions``)."""
    out = []
    for p, name in enumerate(names):
        decisions = [d for g in games for d in g["decisions"] if d["player"] == p]
        checker = [d for d in decisions if d["kind"] == "checker"]
        unforced = [d for d in checker if not d["forced"]]
        cube = [d for d in decisions if d["kind"] in ("double", "take")]
        counted = [d for d in cube if d.get("close", True)]
        c_loss = sum(d["loss"] for d in unforced)
        q_loss = sum(d["loss"] for d in cube)
        n = len(unforced) + len(counted)
        luck = sum(d["luck"] for d in checker if d["luck"] is not None)
        luck_points = sum(d["luck"] * d["cube"]["value"] for d in checker
                          if d["luck"] is not None)
        won = sum(g["points"] for g in games if g["winner"] == p)
        lost = sum(g["points"] for g in games if g["winner"] == 1 - p)
        out.append({
            "name": name, "unforced": len(unforced), "cube_decisions": len(counted),
            "cube_total": len(cube), "checker_decisions": len(checker),
            "checker_loss": c_loss, "cube_loss": q_loss,
            "checker_error_rate": 1000 * c_loss / len(unforced) if unforced else 0.0,
            "cube_error_rate": 1000 * q_loss / len(counted) if counted else 0.0,
            "error_rate": 1000 * (c_loss + q_loss) / n if n else 0.0,
            "pr": 500 * (c_loss + q_loss) / n if n else 0.0,
            "luck": luck, "luck_points": luck_points,
            "points": won, "net_points": won - lost,
            "marks": {m.replace(" ", "_"): sum(d["mark"] == m for d in checker)
                      for m in MARKS},
            "cube_marks": {m.replace(" ", "_"): sum(d["mark"] == m for d in cube)
                           for m in MARKS},
            "lucky_rolls": sum(d["luck_mark"] in ("lucky", "very lucky") for d in checker),
            "unlucky_rolls": sum(d["luck_mark"] in ("unlucky", "very unlucky")
                                 for d in checker),
        })
    for p in (0, 1):
        other = out[1 - p]["luck_points"]
        out[p]["luck_adjusted"] = out[p]["net_points"] - (out[p]["luck_points"] - other)
    return out


__all__ = ["player_stats"]
