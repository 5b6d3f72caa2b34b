"""Copies found (issue 18, item 4): a renamed reference bot and a copied classmate are flagged, independent bots are not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cabo_kit
from cabo_kit.cli import main
from cabo_kit.report import copies_section
from cabo_kit.tournament.copies import COPIES_FILE, MIN_DECISIONS, THRESHOLD, find_copies

ROOT = Path(__file__).resolve().parents[1]

# One student's bot; the classmate's copy below changes only names, spacing and comments.
STUDENT = '''import cabo_kit as ck


class Careful(ck.SimpleBot):
    """Keeps cards under 5, spies on the player after it, calls Cabo at 9 or less."""

    def keep(self, obs, card):
        hand = obs.my_hand
        values = [c.value if c.value is not None else 6 for c in hand]
        worst = max(range(len(hand)), key=lambda p: values[p])
        must = obs.drawn_from == "discard" and not obs.rules.discard_draw_may_discard
        if must or (card.value < 5 and card.value < values[worst]):
            return worst
        return None

    def spy(self, obs):
        nxt = (obs.seat + 1) % obs.n_players
        for p, c in enumerate(obs.hands[nxt]):
            if not c.known and not obs.face_up[nxt][p]:
                return (nxt, p)
        return None

    def call_cabo(self, obs):
        total, unknown = obs.known_total()
        return unknown <= 1 and total <= 9
'''

COPIED = (STUDENT.replace("Careful", "MyOwnBot").replace("values", "vals").replace("    def", "\n    # mine\n    def")
          .replace('"""Keeps cards under 5, spies on the player after it, calls Cabo at 9 or less."""', "# written by me"))

# Two bots written independently: a greedy-like one and a random-like one (seeded by the game, as it should be).
GREEDYISH = '''import cabo_kit as ck


class Thrifty(ck.SimpleBot):
    def draw(self, obs):
        top = obs.top
        if top is not None and top.value is not None and top.value <= 4:
            return "discard"
        total, unknown = obs.known_total()
        if obs.caller is None and obs.rules.cabo_timing == "instead" and unknown == 0 and total <= 10:
            return "cabo"
        return "deck"

    def peek(self, obs):
        return None
'''

RANDOMISH = '''import cabo_kit as ck

ck.imported_here = True  # were this file imported by the checker's own process, the test would see it


class Dice(ck.Bot):
    def choose(self, obs, legal):
        return self.random.choice(list(legal))
'''


@pytest.fixture(scope="module")
def classroom(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    folder = tmp_path_factory.mktemp("class")
    bots = folder / "bots"
    bots.mkdir()
    (folder / "tournament.toml").write_text('presets = ["deluxe", "rush", "traveller"]\ntable_sizes = [4]\n')
    counting = (ROOT / "bots" / "counting_bot.py").read_text()
    (bots / "alice.py").write_text(counting.replace("class CountingBot(", "class AliceBot("))
    (bots / "bea.py").write_text(STUDENT)
    (bots / "cem.py").write_text(COPIED)
    (bots / "dan.py").write_text(GREEDYISH)
    (bots / "eve.py").write_text(RANDOMISH)
    (bots / "fay.py").write_text("import cabo_kit\n\n\nclass Lucky(cabo_kit.bots.RandomBot):\n    pass\n")
    # gil copied CountingBot's source itself (imports made absolute), renamed the class and its docstring
    source = (ROOT / "cabo_kit" / "bots" / "counting.py").read_text()
    source = source.replace("from ..", "from cabo_kit.").replace("CountingBot", "GilsBot")
    (bots / "gil.py").write_text("# my own bot\n" + source)
    return folder, find_copies(folder, workers=2)


def pairs(check: object) -> set[tuple[str, str]]:
    return {(f.a, f.b) for f in check.flags}  # type: ignore[attr-defined]


def test_copies_flagged_and_independent_bots_not(classroom: tuple[Path, object]) -> None:
    _, check = classroom
    # alice and gil both copied CountingBot: "alice plays like gil" goes without saying
    assert pairs(check) == {("alice", "CountingBot"), ("gil", "CountingBot"), ("bea", "cem"), ("fay", "RandomBot")}
    assert any((p.a, p.b, p.percent) == ("alice", "gil", "100%") for p in check.pairs)  # type: ignore[attr-defined]
    assert not hasattr(cabo_kit, "imported_here")  # the files ran in the isolated runner only
    for flag in check.flags:  # type: ignore[attr-defined]
        assert flag.agreed == flag.decisions >= MIN_DECISIONS
        assert str(flag).endswith(f"100% of {flag.decisions} decisions")
    # the independent bots are far under the threshold with every other bot and reference
    for p in check.pairs:  # type: ignore[attr-defined]
        if {p.a, p.b} & {"dan", "eve"}:
            assert p.decisions >= MIN_DECISIONS and p.share < THRESHOLD - 0.3, p


def test_rerun_probes_only_new_or_changed_files(classroom: tuple[Path, object], capsys: pytest.CaptureFixture[str]) -> None:
    folder, first = classroom
    again = find_copies(folder, workers=1)
    assert again.probed == [] and pairs(again) == pairs(first)
    saved = json.loads((folder / COPIES_FILE).read_text())
    assert len(saved["files"]) == 7 and {f["a"] for f in saved["flags"]} == {"alice", "bea", "fay", "gil"}
    # the CLI prints the flags (all from the cache here)
    assert main(["tournament", "copies", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "alice.py plays like CountingBot (reference): 100% of" in out
    assert "bea.py plays like cem.py: 100% of" in out
    assert "dan.py" not in out and "eve.py" not in out
    # cem makes the copy its own: only cem is probed again, and the pair is no longer flagged
    cem = folder / "bots" / "cem.py"
    cem.write_text(cem.read_text().replace("total <= 9", "total <= 3").replace("card.value < 5", "card.value < 3")
                   + "\n\nimport cabo_kit as _ck\n_ck.imported_here = True\n")
    changed = find_copies(folder, workers=1)  # one worker: the probing runs in this process, the file never does
    assert not hasattr(cabo_kit, "imported_here")
    assert changed.probed == ["cem"]
    assert ("bea", "cem") not in pairs(changed)
    html = copies_section(folder)
    assert "<code>alice.py</code>" in html and "CountingBot (reference)" in html and "cem.py" not in html


def test_a_damaged_store_is_named_after_the_flags_with_exit_status_1(
    classroom: tuple[Path, object], capsys: pytest.CaptureFixture[str],
) -> None:
    folder, _ = classroom
    db = folder / "results.sqlite"
    db.write_bytes(b"not a results store " * 300)
    try:
        assert main(["tournament", "copies", str(folder)]) == 1  # the flags are printed and saved first
    finally:
        db.unlink()
    out, err = capsys.readouterr()
    assert f"saved in {folder / COPIES_FILE}" in out
    assert f"{db} is not a readable results store (" in err and "Traceback" not in out + err
