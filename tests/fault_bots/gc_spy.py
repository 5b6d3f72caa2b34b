"""Looks for the engine: gc, the stack, /proc/<engine>/mem, signals, fork, /etc/shadow. Logs what it found."""

import gc
import json
import os
import re
import sys

import cabo_kit as ck

SECRET = re.compile(rb"ENGINE-SECRET-[0-9a-f]{32}")
ENGINE_TYPES = {"Game", "GameRecord", "ScoreSheet", "Popen", "IsolatedBot", "_Harness"}


def strings_in(obj):
    if isinstance(obj, dict):
        items = list(obj.keys()) + list(obj.values())
    elif isinstance(obj, (list, tuple, set, frozenset)):
        items = list(obj)
    else:
        items = list(getattr(obj, "__dict__", {}).values())
    return [x for x in items if isinstance(x, (str, bytes))]


class GcSpy(ck.Bot):
    done = False

    def choose(self, observation, legal_actions):
        if not self.done:
            self.done = True
            print("SPY-REPORT " + json.dumps(self.spy(observation)), flush=True)
        return legal_actions[0]

    def spy(self, obs):
        report = {}
        objects = gc.get_objects()
        report["objects_seen"] = len(objects)
        report["engine_objects"] = sorted({type(o).__name__ for o in objects if type(o).__name__ in ENGINE_TYPES})
        found = 0
        frame = sys._getframe()
        scanned = list(objects)
        while frame is not None:
            scanned.append(frame.f_locals)
            frame = frame.f_back
        for o in scanned:
            for s in strings_in(o):
                if SECRET.search(s.encode() if isinstance(s, str) else s):
                    found += 1
        report["secret_in_gc"] = found
        # Card sequences the size of an opponent's hand: the real hand must not be among them.
        mine = {id(t) for t in obs.hands}
        size = {len(h) for h in obs.hands}
        hands = []
        for o in objects:
            if isinstance(o, (list, tuple)) and id(o) not in mine and len(o) in size and o \
                    and all(isinstance(c, ck.Card) and c.known for c in o):
                hands.append([c.text for c in o])
        report["card_sequences"] = hands
        report["mem"] = self.read_engine_memory()
        report["signal_engine"] = "PermissionError"
        for pid in self.ancestors():
            try:
                os.kill(pid, 0)
                report["signal_engine"] = "allowed"
            except OSError as exc:
                if report["signal_engine"] != "allowed" and pid == os.getppid():
                    report["signal_engine"] = type(exc).__name__
        try:
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            os.waitpid(pid, 0)
            report["fork"] = "allowed"
        except OSError as exc:
            report["fork"] = type(exc).__name__
        try:
            with open("/etc/shadow", "rb") as f:
                f.read(1)
            report["shadow"] = "readable"
        except OSError as exc:
            report["shadow"] = type(exc).__name__
        report["uid"] = os.getuid()
        return report

    @staticmethod
    def ancestors():
        """The parent and the Python processes above it: the engine is one of them."""
        out = []
        pid = os.getppid()
        while pid > 1 and len(out) < 20:
            try:
                with open(f"/proc/{pid}/comm") as f:
                    comm = f.read()
                python = "python" in comm or "pytest" in comm
            except OSError:
                python = False
            if python or pid == os.getppid():  # the engine and any harness server are Python processes
                out.append(pid)
            try:
                with open(f"/proc/{pid}/status") as f:
                    pid = int(next(x for x in f if x.startswith("PPid:")).split()[1])
            except (OSError, StopIteration, ValueError):
                break
        return out or [os.getppid()]

    @classmethod
    def read_engine_memory(cls):
        # Any ancestor whose memory is readable is a hole (the engine, or a process between it and us).
        results = [cls.read_memory_of(pid) for pid in cls.ancestors()]
        readable = [r for r in results if r.startswith("read ")]
        return readable[0] if readable else results[0]

    @staticmethod
    def read_memory_of(ppid):
        try:
            maps = open(f"/proc/{ppid}/maps").read().splitlines()
            mem = open(f"/proc/{ppid}/mem", "rb")
        except OSError as exc:
            return type(exc).__name__
        hits = 0
        scanned = 0
        with mem:
            for line in maps:
                parts = line.split()
                if "rw" not in parts[1]:
                    continue
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                if hi - lo > 256 * 1024**2:
                    continue
                try:
                    mem.seek(lo)
                    data = mem.read(hi - lo)
                except (OSError, ValueError, OverflowError):
                    continue
                scanned += len(data)
                hits += len(SECRET.findall(data))
        return f"read {scanned} bytes, {hits} secrets"
