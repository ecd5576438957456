"""Benchmarks of training: self-play games/s (``python -m train.bench``), scaling over
Ray actors, the GPU."""
