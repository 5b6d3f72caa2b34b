"""The files here are hostile student uploads for tests/test_portal_class.py, never test modules.

Each plays fair under its check (the check plays ``deluxe``) and attacks only in the class's
games (``rush``): what a student hiding an attack from the check would do. pytest must never
import them: they run only in isolated harness processes.
"""

collect_ignore_glob = ["*.py"]
