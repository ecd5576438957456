"""``python -m gammon.train.bench``: the self-play benchmark (``train.bench.selfplay``)."""

from gammon.train.bench.selfplay import main

raise SystemExit(main())
