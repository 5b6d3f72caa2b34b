"""Hostile: in the class's games, finds the class folder from the games' command line and reads what it can."""

import os

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


def class_folder():
    """The folder the portal's games run on: named by the games' command line (python -m cabo_kit.portal.games DIR)
    if it does, else guessed as a class folder under /tmp (where the tests make theirs: an attacker may know that)."""
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().decode(errors="replace").split("\0")
        except OSError:
            continue
        if "cabo_kit.portal.games" in args and os.path.isabs(args[args.index("cabo_kit.portal.games") + 1]):
            return args[args.index("cabo_kit.portal.games") + 1]
    for name in sorted(os.listdir("/tmp")):
        if name.startswith("cabo-portal-") and "copy" not in name and os.path.exists(f"/tmp/{name}/open-to-all.txt"):
            return f"/tmp/{name}"
    return None


def look(folder):
    found = []
    targets = ["open-to-all.txt", "tournament.toml", "portal-links.csv", "portal", "portal/portal.sqlite", "portal/uploads",
               "portal/uploads/s000/1.py", "results.sqlite", "results.sqlite-wal", "bots", "bots/s000.py", "logs",
               "leaderboard.csv", "report.html", "teacher.html", "bot-pages"]
    for name in targets:
        path = os.path.join(folder, name)
        try:
            if os.path.isdir(path):
                found.append(f"{name} lists {len(os.listdir(path))}")
            else:
                with open(path, "rb") as f:
                    found.append(f"{name} reads {len(f.read(64))}")
        except OSError:
            pass
    return found


class Spy(ck.Bot):
    def on_game_start(self, seat, n_players, rules):
        if in_games(rules):
            folder = class_folder()
            print("SPY-FOLDER", "none" if folder is None else "found", flush=True)
            if folder is not None:
                print("SPY-FOUND " + " | ".join(look(folder)), flush=True)

    def choose(self, observation, legal_actions):
        return legal_actions[self.random.randrange(len(legal_actions))]
