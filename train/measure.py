"""How a run measures the net it trains: paired cubeless games against pubeval (``random``
for Plakoto, whose pins pubeval does not read) through eval's one paired-dice match runner.
"""

from __future__ import annotations

from gammon.engine.rules import variant as get_variant


def eval_opponent(variant: str) -> str:
    """The bot a run is measured against: pubeval, which reads the 26 cells of every
    variant but Plakoto (pins are not in its inputs); Plakoto's runs meet ``random``."""
    return "random" if get_variant(variant).position_format == "plakoto" else "pubeval"


def evaluate_vs_pubeval(bot, games: int, seed: int, variant: str) -> dict:
    """Paired cubeless games of ``bot`` against pubeval (``eval_opponent``: another bot for
    Plakoto) through ``eval.playing.match.run_match``, the one paired-dice runner: wins and points
    per game of ``bot``, the 95% interval from the per-pair means."""
    from gammon.eval.bots.registry import make_bot
    from gammon.eval.playing.match import run_match
    name = eval_opponent(variant)
    opponent = make_bot(name, seed, variant)  # with the variant's own extras (Nuclear's bomb)
    r = run_match(bot, opponent, 2 * max(1, games // 2), seed, variant, progress=False)
    return {"opponent": name, "games": r.games, "win_rate": r.rate(r.wins_a), "ppg": r.ppg_a,
            "ppg_ci95": r.ppg_a_ci95, "gammon_rate": r.rate(r.gammons_a),
            "gammon_rate_against": r.rate(r.gammons_b), "plies_per_game": r.plies_per_game}
