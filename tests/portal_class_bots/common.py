# Appended to each hostile file here as its student uploads it (tests/test_portal_class.py, test_portal_games.py).

import os


def in_games(rules):
    """In the class's games (rush), not under the portal's check, which plays the class's rules too: a file hiding
    from the check finds it up its chain of parent processes (the check process names itself on its command line)."""
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
