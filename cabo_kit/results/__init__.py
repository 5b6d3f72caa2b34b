"""What a tournament's stored results say: ratings, per-rule outcomes, each bot's CPU, the copy check's flags.

The layer between the tournament and its readers (docs/tournaments.md): the tournament plays the games and
writes them to its store (:mod:`cabo_kit.tournament.store`); everything here computes from the frames the
store loads (or from the folder's ``copies.json``), and the report, the pages, the portal and the runner's
leaderboard read it. It imports only the engine, never the tournament that writes the results, so the report
needs nothing of the runner (the layer test, ``tests/test_layers.py``, keeps it so).

* :mod:`~cabo_kit.results.ratings`: Bradley-Terry Elo with bootstrap intervals, online Elo, OpenSkill;
* :mod:`~cabo_kit.results.outcomes`: how each bot used each rule, with 95% intervals (Wilson, Poisson);
* :mod:`~cabo_kit.results.timing`: CPU per decision from the stored histograms;
* :mod:`~cabo_kit.results.texts`: one wording of an interval, a rank range and a duration;
* :mod:`~cabo_kit.results.copy_flags`: the copy check's findings.

Their old paths (``cabo_kit.tournament.ratings``, ``.outcomes``, ``.texts``) keep working.

>>> from cabo_kit.results.outcomes import wilson
>>> [round(float(x), 3) for x in wilson(8, 10)]
[0.49, 0.943]
"""
