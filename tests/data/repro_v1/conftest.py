"""A tournament folder stored by cabo-kit at commit 8b557dd (store schema 1, before fault contexts):
two rush games in which ``bots/raises.py`` faults. tests/test_repro.py copies it, migrates it and
replays its faults. pytest must never import the bot file (its --doctest-modules would).
"""

collect_ignore_glob = ["bots/*.py"]
