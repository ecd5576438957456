"""Playing bots against each other: money games, matches to N points, tournaments and
matches spread over Ray actors."""
