"""Benchmarks of the engine: the move generator against a baseline revision."""
