"""Hostile: in the class's games, asks for far more memory than its limit."""

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


class Hog(ck.Bot):
    rush = False

    def on_game_start(self, seat, n_players, rules):
        self.rush = in_games(rules)

    def choose(self, observation, legal_actions):
        if self.rush and observation.turn >= 1:
            hoard = bytearray(4 * 1024**3)
            return legal_actions[len(hoard) % len(legal_actions)]
        return legal_actions[self.random.randrange(len(legal_actions))]
