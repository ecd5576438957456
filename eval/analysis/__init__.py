"""The analysis library: probabilities, equities, ranked plays and cube actions of
positions, at a depth, for money or at a match score. Every front door calls it."""
