"""Hostile: in the class's games, never answers once the game is under way."""

import time

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


class Hanger(ck.Bot):
    rush = False

    def on_game_start(self, seat, n_players, rules):
        self.rush = in_games(rules)

    def choose(self, observation, legal_actions):
        while self.rush and observation.turn >= 1:
            time.sleep(1)
        return legal_actions[self.random.randrange(len(legal_actions))]
