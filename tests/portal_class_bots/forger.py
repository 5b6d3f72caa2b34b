"""Hostile: in the class's games, writes forged replies and a forged result straight onto its reply pipe."""

import json
import os
import sys

import cabo_kit as ck


class Forger(ck.Bot):
    rush = False

    def on_game_start(self, seat, n_players, rules):
        self.rush = in_games(rules)

    def choose(self, observation, legal_actions):
        if self.rush:
            try:
                fd = int(sys.argv[4])  # the harness's command line names its pipe fds
                for line in ({"ok": True, "action": "cabo"}, {"result": {"total": -100, "rank": 1, "win": 1.0}},
                             {"ready": True, "class": "Forger", "sha256": "0" * 64, "uid": 0}):
                    os.write(fd, json.dumps(line).encode() + b"\n")
            except (OSError, ValueError, IndexError):
                pass
        return legal_actions[self.random.randrange(len(legal_actions))]
