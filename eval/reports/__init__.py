"""Reports that measure bots: cube agreement with gnubg, the plan bots' styles, the
variant models."""
