"""The bots: random, pubeval, heuristic, racer, the plan bots, the variant heuristics,
the Nuclear bots, gnubg (gnubg-nn), their cube strategies, resignations and the registry of
bots by name."""
