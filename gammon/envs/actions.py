"""The environments' action space: one fixed ``Discrete`` layout for every configuration.

    0 .. 155   a checker step: ``source * 6 + (die - 1)``, source the cell the checker
               leaves (1..24 a point, 25 the bar; cell 0, the opponent's bar, is never a
               source, so its six actions are always masked) and die the number it moves
               (a bear-off names the die it uses, which may exceed the point)
    156  ROLL     before the roll: roll now (no double; the variant's actions not taken)
    157  DOUBLE   before the roll: offer a double (the cube is then turned or passed)
    158  TAKE     answering a double: take it
    159  PASS     answering a double: pass it (the game ends, the doubler wins the cube)
    160  BEAVER   answering a double: take it and redouble at once (money, beavers on)
    161  NO_PLAY  a roll that cannot be played: pass the dice (the only action then)
    162 ..     one per action of the variant before the roll, in the rules' order
               (``Rules.before_roll_actions``: Nuclear's ``detonate`` is 162)

The cube's actions keep their numbers whether the cube is on or off (off: always masked),
so a policy's output layer means the same in every configuration of one variant.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.rules import Rules

STEP_ACTIONS = 26 * 6
ROLL, DOUBLE, TAKE, PASS, BEAVER, NO_PLAY = range(STEP_ACTIONS, STEP_ACTIONS + 6)
FIRST_VARIANT_ACTION = STEP_ACTIONS + 6
CUBE_NAMES = {ROLL: "roll", DOUBLE: "double", TAKE: "take", PASS: "pass", BEAVER: "beaver",
              NO_PLAY: "no play"}


def action_count(rules: Rules) -> int:
    """The size of the ``Discrete`` action space under ``rules``."""
    return FIRST_VARIANT_ACTION + len(rules.before_roll_actions)


def step_action(source, die):
    """The action of moving a checker from ``source`` (1..25) by ``die`` (1..6)."""
    return np.asarray(source) * 6 + np.asarray(die) - 1


def step_of(action: int) -> tuple[int, int]:
    """(source, die) of a checker step's action."""
    if not 0 <= action < STEP_ACTIONS:
        raise ValueError(f"{action} is no checker step (0..{STEP_ACTIONS - 1})")
    return action // 6, action % 6 + 1


def variant_action(rules: Rules, name: str) -> int:
    """The action number of the variant's action ``name`` (Nuclear: "detonate")."""
    return FIRST_VARIANT_ACTION + rules.before_roll_actions.index(name)


def action_name(action: int, rules: Rules) -> str:
    """The action in words: ``13/7 (6)``, ``bar/20 (5)``, ``3/off (5)``, ``double``,
    ``detonate``."""
    action = int(action)
    if 0 <= action < STEP_ACTIONS:
        source, die = step_of(action)
        target = source - die
        where = "bar" if source == 25 else str(source)
        return f"{where}/{target if target > 0 else 'off'} ({die})"
    if action in CUBE_NAMES:
        return CUBE_NAMES[action]
    index = action - FIRST_VARIANT_ACTION
    if 0 <= index < len(rules.before_roll_actions):
        return rules.before_roll_actions[index]
    raise ValueError(f"no action {action} under the {rules.name} rules "
                     f"(0..{action_count(rules) - 1})")


__all__ = ["STEP_ACTIONS", "ROLL", "DOUBLE", "TAKE", "PASS", "BEAVER", "NO_PLAY",
           "FIRST_VARIANT_ACTION",
           "action_count", "step_action", "step_of", "variant_action", "action_name"]
