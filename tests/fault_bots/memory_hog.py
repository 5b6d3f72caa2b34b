"""Asks for far too much memory: survives the first MemoryError, then lets one escape."""

import cabo_kit as ck


class Hog(ck.Bot):
    calls = 0

    def choose(self, observation, legal_actions):
        self.calls += 1
        if self.calls == 1:
            try:
                blob = bytearray(8 * 1024**3)
                print("allocated", len(blob))
            except MemoryError:
                print("survived a MemoryError")
            return legal_actions[0]
        hoard = [0] * (2 * 1024**3)
        return legal_actions[len(hoard) % len(legal_actions)]
