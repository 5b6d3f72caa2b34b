"""Hostile: in the class's games, finds the class folder from the games' command line and reads what it can."""

import os

import cabo_kit as ck


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
