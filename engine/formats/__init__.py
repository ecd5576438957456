"""Interchange formats at the engine's edges (no rules of their own): gnubg Position IDs,
Magriel notation, the ASCII diagram, FIBS board lines, Jellyfish .mat files, and the
recording of matches for them."""
