"""Bot files with a student's usual mistakes, one each, for tests/test_check.py.

pytest must never import them (its --doctest-modules would): they are loaded only by the checker.
"""

collect_ignore_glob = ["*.py"]
