"""GNU Backgammon as a judge: the checker-play benchmark, the money and match cube
checks and matches through the external-player interface, over one driver of `gnubg -t`."""
