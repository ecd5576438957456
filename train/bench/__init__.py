"""Benchmarks of training: self-play games/s (``python -m gammon.train.bench``), scaling over
Ray actors, the GPU."""
