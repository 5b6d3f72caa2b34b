"""pytest's settings that pyproject.toml cannot hold.

Old import paths kept for notebooks and users after a module moved (``cabo_kit/tournament/ratings.py``,
``outcomes.py``, ``texts.py``): each file makes its old name the moved module itself (``sys.modules``), so it is no
module of its own to collect and pytest skips it (``collect_ignore``). Their doctests run at the new path,
``cabo_kit/results/*.py``: ``pytest cabo_kit/results/outcomes.py``, not ``pytest cabo_kit/tournament/outcomes.py``
(which fails to collect, "import file mismatch": importing the old file gives the results module).
"""

collect_ignore = [f"cabo_kit/tournament/{name}.py" for name in ("ratings", "outcomes", "texts")]
