"""Hostile: in the class's games, tries to kill its parent, its group and every Python process it can see."""

import os
import signal

import cabo_kit as ck


class Killer(ck.Bot):
    def on_game_start(self, seat, n_players, rules):
        if not in_games(rules):
            return
        hit = []
        for what, kill in (("parent", lambda: os.kill(os.getppid(), signal.SIGKILL)),
                           ("parent group", lambda: os.killpg(os.getpgid(os.getppid()), signal.SIGKILL))):
            try:
                kill()
                hit.append(what)
            except OSError:
                pass
        for pid in os.listdir("/proc"):
            if pid.isdigit() and int(pid) != os.getpid():
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        python = b"python" in f.read()
                    if python:
                        os.kill(int(pid), signal.SIGKILL)
                        hit.append(pid)
                except OSError:
                    pass
        print("KILLER-HIT " + (" ".join(hit) or "nothing"), flush=True)

    def choose(self, observation, legal_actions):
        return legal_actions[self.random.randrange(len(legal_actions))]
