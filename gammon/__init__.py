"""The front door: the ``gammon`` command. Thin: rules, models and matches live elsewhere."""
