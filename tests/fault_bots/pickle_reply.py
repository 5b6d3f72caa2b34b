"""Writes a crafted pickle straight onto its reply pipe: unpickling it would create a file in the engine."""

import os
import pickle
import sys

import cabo_kit as ck


class Payload:
    def __reduce__(self):
        # Runs in whichever process unpickles it and names that process: the engine, if it ever did.
        return (exec, ("import os; open(f'/tmp/cabo-pickle-pwned-{os.getpid()}', 'w').close()",))


class Pickler(ck.Bot):
    def choose(self, observation, legal_actions):
        reply_fd = int(sys.argv[4])  # the harness's command line names its pipe fds
        os.write(reply_fd, pickle.dumps(Payload(), protocol=0) + b"\n")
        os.write(reply_fd, pickle.dumps(Payload()) + b"\n")
        return legal_actions[0]
