"""Hostile: in the class's games, writes forged replies and a forged result straight onto its reply pipe."""

import json
import os
import sys

import cabo_kit as ck


def in_games(rules):
    """In the class's games (rush), not under the portal's check, which plays the class's rules too: a file hiding
    from the check finds it up its chain of parent processes (the check process names itself on its command line)."""
    import os

    pid = os.getpid()
    for _ in range(8):
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"cabo-portal-check-process" in f.read():
                    return False
        except (OSError, ValueError, IndexError):
            break
        if pid <= 1:
            break
    return rules.name == "rush"


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
