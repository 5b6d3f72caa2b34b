"""Prints far more than the log cap, and writes fake protocol replies on its stdout."""

import os
import sys

import cabo_kit as ck


class Chatty(ck.Bot):
    def choose(self, observation, legal_actions):
        for i in range(4000):
            print("spam " * 20, i)
        for rid in range(1, 60):
            fake = '{"i": %d, "a": "cabo"}\n' % rid
            sys.__stdout__.write(fake)
            sys.stderr.write(fake)
            try:
                os.write(1, fake.encode())
                os.write(2, fake.encode())
            except OSError:  # EFBIG once the log is at its cap
                pass
        return legal_actions[-1]
