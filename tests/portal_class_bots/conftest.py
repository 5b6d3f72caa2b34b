"""The files here are hostile student uploads for tests/test_portal_class.py, never test modules.

Each plays fair under its check and attacks only in the class's games (``rush``): what a student
hiding an attack from the check would do. The check plays the class's rules too, so each looks for
the check process up its chain of parents (``in_games``; ``class_folder`` finds the class: both in
``common.py``, which the tests append to each file as its student uploads it). pytest must never
import them: they run only in isolated harness processes.
"""

collect_ignore_glob = ["*.py"]
