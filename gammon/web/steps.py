"""A play on the board in the browser, one checker step at a time: ``step_graph`` (every
way of making a legal play of a roll as single steps, for the page) and ``follow`` (the play
the steps the person made are, checked along that graph).

A step is ``[from, to]`` in ``engine.board``'s cells from the person's side: 1..24 the
points, 25 the bar, 0 off. The graph is built from the generator's legal plays and the
rules' single step (``Rules.step``), so the page accepts a step only when the steps so far
are the start of some legal play.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.rules import Rules

from ..http_api import BadRequest


def step_graph(board: np.ndarray, d1: int, d2: int, plays, rules: Rules) -> dict:
    """Every way of making a legal play of ``board`` (26,) and the roll one step at a time.

    ``plays`` are the roll's legal plays (``engine.movegen.legal_plays``, one position):
    their afterstates and the dice they use, which already enforce "both numbers must be
    played if possible" and "if either number can be played but not both, the larger one
    must be played". A node is a partial play (the board reached and the dice left); its
    edges are the single steps ``[from, to, hit, next node]`` (``Rules.step``) after which
    a legal play can still be completed; ``play`` is the row of ``plays`` a node completes
    (None before); ``board`` the node's 26 cells, for the page to show (in Plakoto a pin
    is in the cells, ``engine.rules.plakoto``). Returns ``{"root": node, "nodes":
    [{"edges": [...], "play": ..., "board": [...]}]}``; no legal play: one node, no edge,
    ``play`` 0.
    """
    used = int(plays.dice_used[0])
    results = {tuple(int(c) for c in b): row for row, b in enumerate(plays.boards)}
    dice = [d1] * 4 if d1 == d2 else [d1, d2]
    nodes: list[dict] = []
    memo: dict = {}

    def visit(cells: tuple, left: tuple, depth: int) -> int | None:
        key = (cells, left)
        if key in memo:
            return memo[key]
        edges = []
        if depth < used:
            for die in sorted(set(left), reverse=True):
                rest = list(left)
                rest.remove(die)
                for source in range(25, 0, -1):
                    stepped = rules.step(cells, source, die)
                    if isinstance(stepped, str):  # why the step is illegal
                        continue
                    after, hit = stepped
                    child = visit(tuple(int(c) for c in after), tuple(rest), depth + 1)
                    if child is not None:
                        edges.append([source, max(source - die, 0), bool(hit), child])
        play = results.get(cells) if depth == used else None
        if play is None and not edges:
            memo[key] = None
            return None
        memo[key] = len(nodes)
        nodes.append({"edges": edges, "play": play, "board": list(cells)})
        return memo[key]

    root = visit(tuple(int(c) for c in board), tuple(dice), 0)
    return {"root": root, "nodes": nodes}


def follow(graph: dict, steps) -> int:
    """The row of the play the ``steps`` [[from, to], ...] make, along ``graph``; a
    BadRequest naming ``steps`` for the first step no legal play continues with, or for
    steps that stop before a play is whole."""
    node = graph["nodes"][graph["root"]]
    for k, step in enumerate(steps, 1):
        source, target = (int(x) for x in step)
        nxt = next((e[3] for e in node["edges"] if e[0] == source and e[1] == target), None)
        if nxt is None:
            where = "bar" if source == 25 else source
            to = "off" if target == 0 else target
            raise BadRequest(f"step {k} ({where}/{to}) is no start of a legal play after "
                             f"the steps before it", "steps")
        node = graph["nodes"][nxt]
    if node["play"] is None:
        raise BadRequest(f"the play is not whole: {len(steps)} step"
                         f"{'s' if len(steps) != 1 else ''} made, a legal play makes more",
                         "steps")
    return int(node["play"])


__all__ = ["follow", "step_graph"]
