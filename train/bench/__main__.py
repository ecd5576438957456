"""``python -m train.bench``: the self-play benchmark (``train.bench.selfplay``)."""

from train.bench.selfplay import main

raise SystemExit(main())
