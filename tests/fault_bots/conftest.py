"""The files here are bot submissions for tests/test_isolation.py, several broken on purpose.

pytest must never import them (its --doctest-modules would): they are loaded only in
isolated harness processes.
"""

collect_ignore_glob = ["*.py"]
