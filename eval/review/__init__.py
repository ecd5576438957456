"""Reviewing a game or a match (``gammon review``): every decision of both players graded
by the analysis library (``eval.analysis``), the luck of every roll, each player's error
rates and performance rating, and the reports (text, JSON, HTML) built from one report
object."""
