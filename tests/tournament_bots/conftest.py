# These files are bot submissions for tests/test_tournament.py, not test modules (one has a syntax error on purpose).
collect_ignore_glob = ["*.py"]
