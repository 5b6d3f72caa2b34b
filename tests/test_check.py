"""check_bot's summary and the name clashes a tournament would refuse (the newcomer's walk-through found both)."""

from __future__ import annotations

from pathlib import Path

from cabo_kit.tournament.check import check_bot
from cabo_kit.tournament.isolation import Limits

CHECK = Limits(decision_s=0.5, game_bank_s=10, memory_mb=512, cpu_s=20, log_bytes=64 * 1024)
SUBCLASS = "from cabo_kit.bots import RandomBot as _Base\n\n\nclass Mine(_Base):\n    pass\n"


def test_a_file_named_like_the_default_reference_bot_is_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "RandomBot.py"
    path.write_text(SUBCLASS)
    report = check_bot(path, games=1, replays=0, limits=CHECK)
    assert not report.ok
    assert any("is the name of the built-in reference bot RandomBot" in p and "my_randombot.py" in p
               for p in report.problems), report.problems


def test_a_file_named_like_another_built_in_bot_gets_a_note(tmp_path: Path) -> None:
    path = tmp_path / "GreedyBot.py"
    path.write_text(SUBCLASS)
    report = check_bot(path, games=1, replays=0, limits=CHECK)
    assert report.ok, report.problems  # only a tournament that adds GreedyBot refuses it
    assert any(n.startswith("Note: The file's name 'GreedyBot.py'") for n in report.notes), report.notes


def test_the_summary_does_not_claim_games_that_were_not_played(tmp_path: Path) -> None:
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    assert str(check_bot(empty, limits=CHECK)).splitlines()[0] == "empty.py: not played."
    crashes = tmp_path / "crashes.py"
    crashes.write_text("import cabo_kit as ck\n\n\nclass Crash(ck.Bot):\n"
                       "    def choose(self, observation, legal_actions):\n        raise RuntimeError('boom')\n")
    first = str(check_bot(crashes, games=2, replays=0, limits=CHECK)).splitlines()[0]
    assert first.startswith("crashes (Crash): 2 games, 2 decisions asked,"), first  # each raised at its first
    fails_at_start = tmp_path / "fails_at_start.py"
    fails_at_start.write_text("import cabo_kit as ck\n\n\nclass Early(ck.Bot):\n"
                              "    def on_game_start(self, seat, n, rules):\n        raise RuntimeError('boom')\n\n"
                              "    def choose(self, observation, legal_actions):\n        return legal_actions[0]\n")
    first = str(check_bot(fails_at_start, games=2, replays=0, limits=CHECK)).splitlines()[0]
    assert first.startswith("fails_at_start (Early): 2 games started") and "none reached a decision" in first


# ---------------------------------------------------------------------- a student's usual mistakes (issue 17)

import json  # noqa: E402
import re  # noqa: E402
import time  # noqa: E402

import pytest  # noqa: E402

import cabo_kit as ck  # noqa: E402
from cabo_kit.explain import why_illegal  # noqa: E402
from cabo_kit.report import printed_html  # noqa: E402
from cabo_kit.tournament.check import check_bot_cli, group_problems, hints_in_source, hook_hints  # noqa: E402

STUDENT = Path(__file__).with_name("student_bots")
ROOT = Path(__file__).parents[1]
ONE = dict(games=1, replays=0, limits=CHECK)
TOURNAMENT = Limits()  # the real limits: the slow bots are measured against them


def test_a_misspelt_hook_is_named_with_its_line_and_the_hook_meant() -> None:
    report = check_bot(STUDENT / "call_cabbo.py", **ONE)
    assert report.problems == [
        "`call_cabbo` (call_cabbo.py line 8): did you mean `call_cabo`? No hook is called `call_cabbo`, so the game "
        "never calls it and your bot plays with the default `call_cabo`."]  # keep_low: 4 edits from keep, quiet


def test_a_misspelt_hook_of_a_class_in_process_too() -> None:
    class OnRound(ck.Bot):
        def choose(self, observation, legal_actions):  # type: ignore[no-untyped-def]
            return legal_actions[0]

        def on_round_strat(self, observation):  # type: ignore[no-untyped-def]
            pass

        def keep_lowest(self, obs):  # type: ignore[no-untyped-def]
            pass

    (hint,) = hook_hints(OnRound)
    assert hint.startswith("`on_round_strat` (test_check.py line ") and "did you mean `on_round_start`?" in hint
    assert not check_bot(OnRound, games=1, replays=0).ok


def _notebook_sources() -> list[tuple[str, str]]:
    out = []
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        for i, cell in enumerate(c for c in cells if c["cell_type"] == "code"):
            code = "\n".join(ln for ln in "".join(cell["source"]).splitlines() if not ln.lstrip().startswith(("%", "!")))
            out.append((f"{nb.name} cell {i}", code))
    return out


def test_no_hook_hint_for_the_reference_bots_nor_the_notebooks_bots() -> None:
    files = sorted((ROOT / "bots").glob("*.py")) + sorted((ROOT / "cabo_kit" / "bots").glob("*.py"))
    assert files and not [h for f in files for h in hook_hints(f)]
    for name in ck.bots.__all__:
        cls = getattr(ck.bots, name)
        if isinstance(cls, type) and issubclass(cls, ck.Bot):
            assert hook_hints(cls) == [], name
    sources = _notebook_sources()
    assert sum("(ck.SimpleBot)" in code or "(ck.Bot)" in code for _, code in sources) >= 3  # there are bots to read
    assert [h for where, code in sources for h in hints_in_source(code, where)] == []


def test_keep_returning_true_fails_the_same_in_deluxe_and_rush_naming_value_type_and_line() -> None:
    class KeepTrue(ck.SimpleBot):
        def keep(self, obs, card):  # type: ignore[no-untyped-def]
            return True

    line = KeepTrue.keep.__code__.co_firstlineno
    for preset in ("deluxe", "rush"):
        with pytest.raises(ck.BotError) as err:
            for seed in range(3):
                ck.play_game([KeepTrue(), ck.bots.RandomBot()], ck.Rules.preset(preset), seed=seed)
        assert str(err.value) == ("keep() returned True (bool): return a position (int) or None "
                                  f"[your keep() is at test_check.py line {line}]")
    for preset in ("deluxe", "rush"):  # the file, isolated as in a tournament
        report = check_bot(STUDENT / "keep_true.py", presets=(preset,), **ONE)
        assert report.problems[0].endswith(
            ": keep() returned True (bool): return a position (int) or None [your keep() is at keep_true.py line 5]")


def test_a_float_is_never_a_position_and_numpy_integers_are() -> None:
    report = check_bot(STUDENT / "keep_float.py", **ONE)
    assert report.problems == [
        "In game 1 (deluxe, 2 players, seed 0, your seat 0), choose() at round 1, turn 1, phase 'drawn': "
        "keep() returned 2.0 (float): return a position (int) or None [your keep() is at keep_float.py line 5]"]
    np = pytest.importorskip("numpy")

    class NumpyKeeper(ck.SimpleBot):
        def keep(self, obs, card):  # type: ignore[no-untyped-def]
            return np.int64(0) if card.value <= 4 else None

        def spy(self, obs):  # type: ignore[no-untyped-def]
            t = super().spy(obs)
            return None if t is None else (np.int32(t[0]), np.int64(t[1]))

    assert check_bot(NumpyKeeper, games=3, replays=0).ok

    class SpyFloat(ck.SimpleBot):
        def spy(self, obs):  # type: ignore[no-untyped-def]
            return (obs.opponents[0], 1.0)

    with pytest.raises(ck.BotError, match=re.escape(
            "spy() returned (1, 1.0) (tuple), which holds 1.0 (float): return (seat, position) as two ints, or None")):
        for seed in range(20):
            ck.play_game([SpyFloat(), ck.bots.RandomBot()], ck.Rules.preset("deluxe"), seed=seed)


def test_what_the_bot_prints_is_counted_and_its_first_lines_shown() -> None:
    report = check_bot(STUDENT / "prints.py", **ONE)
    assert report.ok
    note = report.notes[0]
    assert re.match(r"Note: your bot printed \d+ lines; the first:\n    my turn 1\n    my turn 3\n", note), note
    count = int(note.split()[4])
    assert count > 20 and note.count("\n    my turn") == 5

    class Chatty(ck.SimpleBot):
        def draw(self, obs):  # type: ignore[no-untyped-def]
            print("turn", obs.turn, end="")
            print()
            return super().draw(obs)

    note = check_bot(Chatty, **ONE).notes[0]  # in process: captured, not shown on the page
    assert note.startswith("Note: your bot printed ") and "\n    turn 1\n    turn 3\n" in note


def test_slow_bots_are_reported_after_their_first_slow_decisions_and_the_check_ends_soon() -> None:
    t0 = time.perf_counter()
    slow = check_bot(STUDENT / "slow_03.py", limits=Limits(game_bank_s=10))
    assert time.perf_counter() - t0 < 10
    # Judged on the game's pace against the decisions the reference bots make in a deluxe game of 2 (~200): 0.3 s
    # per draw() runs out of a 10 s bank (of the 30 s bank it uses about 20 s: no game lost, only the warning).
    problem, slower = slow.problems
    assert slower.startswith("Your bot is far slower than the reference bots. At these limits this file adds about ")
    m = re.fullmatch(
        r"In game 1 \(deluxe, 2 players, seed 0, your seat 0\), your bot is too slow for a tournament: its first 20 "
        r"decisions took \d\.\d\d s in all \(1\d\d ms on average\)\. A game of these rules and players asks a bot "
        r"for about (\d+) decisions \(the mean of GreedyBot and CountingBot at tables of their own; snap windows "
        r"count\): at this pace that is about (\d+) s, and the time bank is 10 s a game, so it runs out of time and "
        r"loses the game\. Keep a decision under (\d+) ms on average\.", problem)
    assert m is not None, problem
    assert 100 < int(m[1]) < 400 and int(m[2]) > 10 and int(m[3]) == round(10 / int(m[1]) * 1000)
    head = str(slow).splitlines()
    assert head[0].startswith("slow_03 (Slow): 1 of 9 games, ")
    assert re.search(r"slowest decision 3\d\d\.\d ms\.$", head[0]), head[0]  # agrees with the problem
    assert head[2] == ("The check stopped after 1 of 9 games: your bot's first slow decisions. "
                       "Fix it and run the check again.")


@pytest.mark.parametrize("name, limit", [("slow_15.py", "1 s"), ("hangs.py", "1 s")])
def test_a_bot_over_the_limit_or_hanging_is_stopped_after_three_games_within_30_s(name: str, limit: str) -> None:
    path = STUDENT / name if (STUDENT / name).exists() else Path(__file__).with_name("fault_bots") / name
    t0 = time.perf_counter()
    report = check_bot(path, limits=TOURNAMENT)
    assert time.perf_counter() - t0 < 30
    text = str(report)
    assert report.games == 3 and "3 of 9 games" in text.splitlines()[0]
    assert text.splitlines()[0].endswith(f"slowest decision over the {limit} limit.")  # not "7.7 ms"
    (problem,) = report.problems
    assert f"took longer than the {limit} limit. In a tournament this loses the game." in problem
    assert problem.endswith("(3 times in all: games 1, 2 and 3.)")


def test_choose_returning_zero_the_summary_agrees_with_the_problem() -> None:
    report = check_bot(STUDENT / "choose_zero.py", games=3, replays=0, limits=CHECK)
    text = str(report)
    assert "none reached a decision" not in text
    assert text.splitlines()[0].startswith("choose_zero (Zero): 3 games, 3 decisions asked, ")
    assert report.problems == [
        "In game 1 (deluxe, 2 players, seed 0, your seat 0), choose() at round 1, turn 0, phase 'look': choose() "
        "returned 0 (int), which is not an action: return one of legal_actions (an Action, or its text such as "
        "'deck'), e.g. legal_actions[0].\n(3 times in all: games 1, 2 and 3.)"]


def test_an_illegal_discard_after_taking_from_the_pile_is_explained_in_the_rules_words() -> None:
    report = check_bot(STUDENT / "discards_taken.py", **ONE)
    (problem,) = report.problems
    assert problem.startswith(
        "In game 1 (deluxe, 2 players, seed 0, your seat 0), choose() at round 1, turn 1, phase 'drawn': choose() "
        "returned 'discard', which is not legal now: you took this card from the discard pile, so you must keep it: "
        "exchange it for one of your cards (legal now: exchange 0, "), problem


def _deluxe_turn(seed: int = 3) -> ck.Game:
    game = ck.Game(ck.Rules.preset("deluxe"), seed=seed, n_players=2)
    for seat in (0, 1):
        game.apply(ck.InitialPeek((0, 1)), seat=seat)
    return game


def _why(game: ck.Game, action: ck.Action) -> str:
    obs = game.observation(game.to_move[0])
    return why_illegal(obs, obs.legal_actions, action).split(" (legal now:")[0]


def test_illegal_answers_say_why_now() -> None:
    game = _deluxe_turn()
    assert _why(game, ck.Peek(0)).startswith("this is the start of your turn: draw from the deck")
    caller = game.to_move[0]
    game.apply(ck.CallCabo())
    assert _why(game, ck.CallCabo()) == (f"Cabo was already called this round (by seat {caller}): it can be called "
                                         "only once a round")
    game = _deluxe_turn()
    game.apply(ck.DrawDeck())
    assert _why(game, ck.Exchange((7,))) == "there is no position 7 in your hand: you hold 4 cards (positions 0 to 3)"
    assert _why(game, ck.Pass()).startswith("there is no passing now: this is the moment to keep the card you drew")
    rush = ck.Game(ck.Rules.preset("rush"), seed=3, n_players=2)
    while rush.phase != "choose":  # the first card's snap window
        for seat in rush.to_move:
            rush.apply(ck.Pass(), seat=seat)
    assert _why(rush, ck.Exchange((0,))).startswith("this is the start of your turn")
    rush.apply(ck.DrawDeck())
    assert _why(rush, ck.Exchange((0, 1))) == ("these rules exchange the drawn card for one card only "
                                              "(several cards: deluxe only)")
    obs = rush.observation(rush.to_move[0])
    assert why_illegal(obs, (ck.Discard(), ck.Exchange((1,))), ck.Exchange((0,))) == (
        "it is not one of the legal moves now (legal now: discard, exchange 1)")  # the fallback


def test_the_tournament_names_the_line_of_a_misspelt_base_class_in_the_students_file(tmp_path: Path) -> None:
    from cabo_kit.tournament.config import TournamentConfig
    from cabo_kit.tournament.isolation import one_line_reason
    from cabo_kit.tournament.runner import collect_entrants

    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "misspelt_base.py").write_bytes((STUDENT / "misspelt_base.py").read_bytes())
    _, rejected = collect_entrants(tmp_path, TournamentConfig())
    ((file, reason),) = rejected
    assert one_line_reason(reason, file) == ("line 4: AttributeError: module 'cabo_kit' has no "
                                           "attribute 'SimpleBt': did you mean cabo_kit.SimpleBot?")
    checked = check_bot(STUDENT / "misspelt_base.py", limits=CHECK).problems[0]
    assert checked.startswith("The file is rejected, as a tournament would reject it: misspelt_base.py line 4: "
                              "AttributeError: module 'cabo_kit' has no attribute 'SimpleBt'")


def test_identical_faults_are_grouped_with_their_count_and_one_example() -> None:
    assert group_problems([("a", "In game 1, x.", 0), ("b", "In game 2, y.", 1), ("a", "In game 3, x.", 2)]) == [
        "In game 1, x.\n(2 times in all: games 1 and 3.)", "In game 2, y."]
    # A tournament's faults are grouped on the bot's page: tests/test_bot_pages.py.


def test_the_report_shows_a_bots_first_printed_lines_from_the_tournament_logs(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "ada-00000000000a.log").write_text("".join(f"ada says {i}\n" for i in range(15)))
    (logs / "ada-00000000000b.log").write_text("".join(f"again {i}\n" for i in range(15)))
    (logs / "ada_2-00000000000c.log").write_text("not ada\n")
    page = printed_html("ada", logs)
    assert "It printed in 2 deals" in page and "not ada" not in page
    shown = page.split("<pre>")[1].split("</pre>")[0].splitlines()
    assert len(shown) == 20 and shown[0] == "ada says 0" and shown[-1] == "again 4"
    (logs / "big-00000000000d.log").write_text("x" * 10_000 + "\n")
    assert len(printed_html("big", logs).split("<pre>")[1].split("</pre>")[0]) == 4096
    assert "None." in printed_html("quiet", logs)


def test_the_cli_shows_progress_on_stderr_and_the_report_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_bot_cli(STUDENT / "keep_true.py", games=2) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines()[0].startswith("game 1/2 (deluxe, 2 players, your seat 0): error problem, ")
    assert captured.out.startswith("keep_true (KeepTrue): 2 games, ")


def test_a_bot_hanging_in_this_process_is_stopped_too() -> None:
    class Hanger(ck.SimpleBot):
        def draw(self, obs):  # type: ignore[no-untyped-def]
            while True:
                try:
                    time.sleep(0.01)
                except Exception:  # noqa: BLE001 - a bot that swallows errors is still stopped
                    pass

    t0 = time.perf_counter()
    report = check_bot(Hanger, limits=Limits(decision_s=0.2))
    assert time.perf_counter() - t0 < 10 and report.games == 3
    (problem,) = report.problems
    assert "took longer than the 0.2 s limit: it was stopped after 0.4 s (does it loop forever?)" in problem
    assert check_bot(ck.bots.GreedyBot, games=2, replays=0).ok  # the timer leaves a quick bot alone


def test_an_isolated_simplebots_illegal_answer_is_explained_with_nothing_left_to_import(tmp_path: Path) -> None:
    # After the privilege drop a bot's process may import nothing new (harness.py): this file makes it so.
    path = tmp_path / "calls_twice.py"
    path.write_text("import sys\nimport cabo_kit as ck\n\nsys.meta_path.clear()\n\n\nclass Twice(ck.SimpleBot):\n"
                    "    def draw(self, obs):\n        return 'cabo'\n")
    report = check_bot(path, games=2, replays=0, limits=CHECK)
    (problem,) = report.problems
    assert problem.endswith("draw() led to cabo, which is not legal now: Cabo was already called this round (by "
                            "seat 0): it can be called only once a round (legal now: deck, take) [your draw() is at "
                            "calls_twice.py line 8]"), problem


def test_a_bot_a_little_slow_loses_no_game_gets_a_note_and_a_warning_for_a_class_on_2_workers(tmp_path: Path) -> None:
    class Sleepy(ck.SimpleBot):  # 60 ms a draw: about 7 s of a game's 30 s bank
        def draw(self, obs):  # type: ignore[no-untyped-def]
            time.sleep(0.06)
            return super().draw(obs)

    (tmp_path / "tournament.toml").write_text("workers = 2\n")  # the default limits; not the machine's cores
    report = check_bot(Sleepy, games=1, replays=0, class_dir=tmp_path)
    (problem,) = report.problems  # no game lost; but it makes a class tournament minutes longer (issue 18)
    assert problem.startswith("Your bot is far slower than the reference bots. At these limits this file adds about ")
    assert ("to a 30-file class (there is no bots/ folder yet: a class of 30 files assumed; its 96 games, on 2 "
            "workers)") in problem, problem
    assert re.fullmatch(r"Note: \d+ decisions took over 50 ms; the most one game used was \d+\.\d s of its 30 s "
                        r"time bank \(a long game asks up to about 600 decisions\)\.", report.notes[-1]), report.notes
    assert 1 < report.bank_used_s < 30  # some 20 draws of 60 ms


def test_helpers_named_near_a_short_hook_get_no_hint_and_misspellings_do() -> None:
    source = "import cabo_kit as ck\n\n\nclass Mine(ck.SimpleBot):\n" + "".join(
        f"    def {name}(self, obs, *args):\n        return None\n\n"
        for name in ("key", "seen", "have", "keep_low", "my_place", "on_round", "call_cabbo", "kep", "chose"))
    hints = hints_in_source(source, "mine.py")
    assert [h.split(": ")[0] + ": " + h.split(": ")[1].split("?")[0] for h in hints] == [
        "`call_cabbo` (mine.py line 23): did you mean `call_cabo`", "`kep` (mine.py line 26): did you mean `keep`",
        "`chose` (mine.py line 29): did you mean `choose`"]


def _at(preset: str, phase: str, power: str | None = None) -> ck.Observation:
    """The first observation of a seeded random game in ``phase`` (with ``power`` in play)."""
    import random

    for seed in range(300):
        game = ck.Game(ck.Rules.preset(preset), seed=seed, n_players=3 if preset == "traveller" else 2)
        rnd = random.Random(seed)
        while game.phase != "over" and game.to_move:
            obs = game.observation(game.to_move[0])
            if game.phase == phase and (power is None or obs.power == power):
                return obs
            game.apply(rnd.choice(list(obs.legal_actions)), seat=obs.seat)
    raise LookupError(f"no {preset} game reached {phase} {power}")


def _why_at(obs: ck.Observation, action: ck.Action) -> str:
    assert action not in obs.legal_actions
    return why_illegal(obs, obs.legal_actions, action).split(" (legal now:")[0]


def test_the_powers_say_what_their_step_is_in_rush_and_traveller() -> None:
    peek_swap = _at("rush", "power", "peek_swap")  # RULES 3.4: peek first, then the swap may follow
    assert _why_at(peek_swap, ck.Swap(0, 1, 0)) == ("a peek-then-swap swaps only after its first step: peek at one of "
                                                   "your own cards first, then you may swap (or 'pass')")
    assert _why_at(peek_swap, ck.Spy(1, 0)) == "spying on another player's card is not this card's power"
    swap = _at("rush", "swap", "peek_swap")  # the peek is already used: the power is this card's, but done
    assert _why_at(swap, ck.Peek(0)) == ("this is the swap of a peek-then-swap: you have already peeked; now "
                                         "'swap own seat:position' (any card of another player) or 'pass'")
    spy_swap = _at("traveller", "power", "spy_swap")
    assert _why_at(spy_swap, ck.Swap(0, 1, 0)).startswith("a spy-then-swap swaps only after its first step: spy on")
    swap = _at("traveller", "swap", "spy_swap")
    assert _why_at(swap, ck.Spy(1, 0)) == (
        "this is the swap of a spy-then-swap: you have already spied; now swap the card you spied on with one of "
        "yours ('swap own seat:position') or 'pass'")
    assert _why_at(_at("deluxe", "power", "peek"), ck.Swap(0, 1, 0)) == "this card's power does not swap"
    used_before = _why_at(_at("rush", "power", "peek"), ck.Snap(1, 0))  # deluxe and rush: before the discard
    assert used_before.startswith("this is the peek power of the card you drew: peek at one of your face-down")
    used_after = _why_at(_at("traveller", "power", "spy"), ck.Snap(1, 0))  # traveller: after its snap window
    assert used_after.startswith("this is the spy power of the card you discarded: spy on a face-down card")


def test_the_give_after_a_snap_is_mandatory_in_rush_and_optional_in_traveller() -> None:
    rush = _at("rush", "give")
    assert _why_at(rush, ck.Pass()) == ("in these rules the give after a snap is mandatory: give the player one of "
                                        "your cards ('give position')")
    assert _why_at(rush, ck.Give(9)).startswith("there is no position 9 in your hand: you hold ")
    traveller = _at("traveller", "give")
    assert _why_at(traveller, ck.Spy(1, 0)) == (
        "this is after snapping another player's card: give them one of your cards ('give position') or 'pass' "
        "(giving is optional in these rules)")


def test_positions_out_of_order_or_repeated_are_named() -> None:
    drawn = _at("deluxe", "drawn")
    for positions in ((1, 0), (0, 0)):
        assert _why_at(drawn, ck.Exchange(positions)) == "list positions in increasing order, each once"
    assert _why_at(_at("deluxe", "look"), ck.InitialPeek((1, 0))) == "list positions in increasing order, each once"


def test_a_fault_reads_the_same_in_this_process_and_isolated(tmp_path: Path) -> None:
    source = ("import cabo_kit as ck\n\n\nclass Stubborn(ck.Bot):\n    def choose(self, observation, legal_actions):\n"
              "        return 'cabo'\n")
    path = tmp_path / "stubborn.py"
    path.write_text(source)
    scope: dict[str, object] = {}
    exec(compile(source, str(path), "exec"), scope)  # noqa: S102 - the same class, in this process
    isolated, in_process = (check_bot(bot, games=2, replays=0, limits=CHECK).problems  # type: ignore[arg-type]
                            for bot in (path, scope["Stubborn"]))
    assert isolated == in_process and len(isolated) == 2, (isolated, in_process)  # deluxe, then rush
    assert ": choose() returned 'cabo', which is not legal now: " in isolated[0]
    from cabo_kit.tournament.isolation import BotFault, IsolatedBot, load_submission

    bot = IsolatedBot(load_submission(STUDENT / "keep_true.py", CHECK), CHECK)
    try:  # what a tournament stores: SimpleBot's sentence, not a traceback through cabo_kit
        with pytest.raises(BotFault) as fault:
            ck.play_game([bot, ck.bots.RandomBot()], ck.Rules.preset("deluxe"), seed=0)
    finally:
        bot.close()
    says = "keep() returned True (bool): return a position (int) or None [your keep() is at keep_true.py line 5]"
    assert (fault.value.kind, fault.value.reason, fault.value.says) == ("error", f"choose(): {says}", says)
    from cabo_kit.tournament.store import fault_hook

    assert fault_hook(fault.value.reason) == "choose()"  # repro finds the call that failed


def test_a_bot_swallowing_the_stop_with_a_bare_except_is_stopped_again_and_a_timer_set_before_goes_on() -> None:
    import signal

    class Bare(ck.SimpleBot):
        def draw(self, obs):  # type: ignore[no-untyped-def]
            while True:
                try:
                    time.sleep(0.01)
                except:  # noqa: E722 - swallows the first stop; the timer stops it again
                    pass
                sum(range(100_000))

    previous = signal.signal(signal.SIGALRM, lambda *_: None)
    signal.setitimer(signal.ITIMER_REAL, 30)
    try:
        t0 = time.perf_counter()
        report = check_bot(Bare, limits=Limits(decision_s=0.2))
        took = time.perf_counter() - t0
        left, _ = signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert took < 10 and report.games == 3, report.problems
    assert "took longer than the 0.2 s limit: it was stopped after 0.4 s" in report.problems[0]
    assert 30 - took - 1 < left <= 30 - took + 0.1  # the caller's timer still runs, less the time spent


def test_a_replayed_game_does_not_count_what_the_bot_printed_twice() -> None:
    class Hello(ck.SimpleBot):
        def on_game_start(self, seat, n_players, rules):  # type: ignore[no-untyped-def]
            print("hello", seat)

    notes = [check_bot(Hello, games=2, replays=replays).notes[0] for replays in (0, 1)]
    assert notes[0] == notes[1] and notes[0].startswith("Note: your bot printed 2 lines in 2 games; the first:\n")


# ---------------------------------------------------------------------- checked with a class's settings (issue 18)

import shutil  # noqa: E402

from cabo_kit.cli import main  # noqa: E402
from cabo_kit.tournament import Limits as PublicLimits  # noqa: E402
from cabo_kit.tournament.check import SLOW_RATIO, ClassTime, class_settings  # noqa: E402
from cabo_kit.tournament.config import ConfigError  # noqa: E402

CLASS_TOML = """presets = [{preset = "rush", hand_size = 5}]
table_sizes = [3]
games = 12
workers = 1

[limits]
decision_s = 0.5
game_bank_s = 20
"""
CHECKED = ("Checked with the settings of {folder}/tournament.toml: rush with hand_size=5; 3 players; limits 0.5 s a "
           "decision, 20 s a game, 1024 MB; memory 'engine'.")
ABOUT = r"(about \d+ (seconds?|minutes)|under a second)"
GREEDY_COPY = "import cabo_kit as ck\n\n\nclass {name}(ck.bots.GreedyBot):\n    pass\n"


def _class(tmp_path: Path, *slow: str) -> Path:
    """A class folder: its tournament.toml, four ordinary files, and copies of the slow bot named ``slow``."""
    folder = tmp_path / "my-class"
    (folder / "bots").mkdir(parents=True)
    (folder / "tournament.toml").write_text(CLASS_TOML)
    for name in ("ada", "bob", "cy", "dee"):
        (folder / "bots" / f"{name}.py").write_text(GREEDY_COPY.format(name=name.title()))
    for name in slow:
        shutil.copy(STUDENT / "monte_carlo.py", folder / "bots" / name)
    return folder


def test_check_bot_class_warns_about_a_far_slower_bot_with_the_minutes_it_adds(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _class(tmp_path, "eve.py")
    t0 = time.perf_counter()
    assert main(["check-bot", str(folder / "bots" / "eve.py"), "--class", str(folder)]) == 1
    assert time.perf_counter() - t0 < 15  # stopped after its first 20 decisions (0.1 s each)
    out = capsys.readouterr().out
    assert out.splitlines()[1] == CHECKED.format(folder=folder)
    # 5 files and RandomBot at 3 seats, games = 12: 2 rounds of the balanced design, 18 games each, on 1 worker.
    warning = next(line for line in out.splitlines() if "far slower" in line)
    assert re.match(r"\d\. Your bot is far slower than the reference bots\. At these limits this file adds about "
                    r"\d+ minutes to a 5-file class \(its 18 games, on 1 worker\), where a file as fast as "
                    r"(GreedyBot|CountingBot) adds " + ABOUT + r": the class takes about \d+ minutes instead of "
                    + ABOUT + r"\. Its decisions take 1\d\d ms on average, \d+ times", warning), warning
    assert warning.endswith("Make its decisions faster (e.g. fewer simulations or rollouts a decision, a cheaper "
                            "evaluation, or stop searching once the answer is clear), then check it again.")
    assert "Time: " not in out  # said once, in the warning


def test_check_bot_class_plays_the_classs_rules_sizes_memory_and_names_them(tmp_path: Path) -> None:
    folder = _class(tmp_path)
    (folder / "tournament.toml").write_text(CLASS_TOML.replace("workers = 1", 'workers = 1\nmemory = "none"'))
    spy = folder / "bots" / "spy.py"  # prints the settings it is played with: the isolated process got them
    spy.write_text("import cabo_kit as ck\n\n\nclass Spy(ck.bots.GreedyBot):\n"
                   "    def on_round_start(self, obs):\n"
                   "        print(obs.rules.name, obs.rules.hand_size, obs.n_players, obs.memory)\n"
                   "        super().on_round_start(obs)\n")
    report = check_bot(spy, games=2, replays=0, class_dir=folder)
    assert report.ok, report.problems
    assert report.settings == CHECKED.format(folder=folder).replace("'engine'", "'none'")
    assert {t.combo for t in report._played} == {("rush with hand_size=5", 3)} and report.games == 2
    assert "\n    rush 5 3 none\n" in report.notes[0], report.notes


def test_check_bot_class_an_ordinary_bot_gets_the_time_it_adds_and_no_warning(tmp_path: Path) -> None:
    folder = _class(tmp_path)  # ada is one of its 4 files; with RandomBot, 18 games each at 3 seats
    report = check_bot(folder / "bots" / "ada.py", games=3, class_dir=folder)
    assert report.ok, report.problems
    time_note = report.notes[-1]
    assert re.fullmatch(r"Time: At these limits this file adds " + ABOUT + r" to a 4-file class \(its 18 games, on 1 "
                        r"worker\), where a file as fast as (GreedyBot|CountingBot) adds " + ABOUT + r": the class "
                        r"takes " + ABOUT + r"( instead of " + ABOUT + r")?\. Its decisions take \d+\.\d ms on "
                        r"average.*\.", time_note), time_note
    assert report.timing is not None and not report.timing.far_slower and report.timing.ratio < SLOW_RATIO
    assert report.timing.files == 4 and report.timing.workers == 1 and report.timing.games == 18


def test_check_bot_without_a_class_names_the_defaults_and_a_class_of_30(tmp_path: Path) -> None:
    path = tmp_path / "mine.py"
    path.write_text(GREEDY_COPY.format(name="Mine"))
    report = check_bot(path, games=2, replays=0)
    assert report.settings == ("Checked with the default settings (a class's own: --class DIR, in Python "
                               "class_dir=DIR): deluxe, rush, traveller; 2, 3 and 4 players; limits 1 s a decision, 30 s a game, 1024 MB; "
                               "memory 'engine'.")
    assert report.timing is not None and report.timing.files == 30 and report.timing.games == 96  # 3 x 32
    assert "to a 30-file class (its 96 games, on " in report.notes[-1]


def test_check_bot_class_errors_name_the_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mine.py"
    path.write_text(GREEDY_COPY.format(name="Mine"))
    assert main(["check-bot", str(path), "--class", str(tmp_path / "nowhere")]) == 2
    assert capsys.readouterr().err == (f"cabo-kit check-bot: --class {tmp_path / 'nowhere'}: no such folder; give the "
                                       "tournament folder (the one that holds tournament.toml and bots/)\n")
    assert main(["check-bot", str(path), "--class", str(tmp_path)]) == 2  # a folder, but not a class's
    assert "no tournament.toml and no bots/ folder in it" in capsys.readouterr().err
    folder = _class(tmp_path)
    assert main(["check-bot", str(path), "--class", str(folder / "bots")]) == 2  # given by mistake: the folder above
    assert capsys.readouterr().err == (f"cabo-kit check-bot: --class {folder / 'bots'}: no tournament.toml and no bots/ "
                                       f"folder in it; give the folder above it, the tournament folder: --class {folder}\n")
    (folder / "tournament.toml").write_text('presets = ["rush"]\ntable_sizes = [3]\n[limits]\ndecison_s = 0.5\n')
    assert main(["check-bot", str(path), "--class", str(folder)]) == 2
    assert capsys.readouterr().err.endswith("unknown key limits.decison_s (did you mean 'decision_s'?)\n")
    (folder / "tournament.toml").write_text("presets = [\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        check_bot(path, class_dir=folder)
    with pytest.raises(ValueError, match="give class_dir alone or limits alone"):
        check_bot(path, class_dir=folder, limits=CHECK)
    (folder / "tournament.toml").unlink()  # bots/ alone: the defaults, as the tournament would run
    assert class_settings(folder, path).source == f"the default settings ({folder} has no tournament.toml)"
    assert class_settings(folder, path).files == 5


def test_limits_are_public_and_the_class_time_model_adds_up() -> None:
    assert PublicLimits is Limits
    t = ClassTime(files=40, workers=2, games=96, seconds_per_decision=0.05, reference="GreedyBot",
                  reference_seconds_per_decision=0.0004, added_s=1200, reference_added_s=20, class_s=1980)
    assert t.far_slower and round(t.ratio) == 125
    assert not ClassTime(40, 2, 96, 0.05, "GreedyBot", 0.0004, 50, 20, 830).far_slower  # 125 times, 30 s more
    assert ClassTime(40, 2, 960, 0.002, "GreedyBot", 0.0004, 400, 80, 3520).far_slower  # 5 times, 5 minutes more
    assert t.sentence().startswith("At these limits this file adds about 20 minutes to a 40-file class (its 96 "
                                   "games, on 2 workers), where a file as fast as GreedyBot adds about 20 seconds: the "
                                   "class takes about 33 minutes instead of about 13 minutes.")


def test_the_class_time_model_counts_its_games_its_decisions_the_bank_and_the_workers() -> None:
    from cabo_kit.tournament.check import ClassSettings, _GameTime, class_time
    from cabo_kit.tournament.config import TournamentConfig

    def model(precision: float, bot_decision_s: float, workers: int = 2, **more: object) -> ClassTime:
        cfg = TournamentConfig.from_dict({"presets": ["rush"], "table_sizes": [4], "precision": precision,
                                          "max_games": 300, "workers": workers, **more})
        # The bot: 100 decisions in a game of 400 actions, 0.1 s of hooks, 0.2 s of the table's own time. GreedyBot
        # (0.2 ms a decision, 10 ms of hooks) played the same deal among working bots: 800 actions, a game twice as
        # long, so the bot would make 200 decisions there and the table take 0.4 s.
        mine = [_GameTime(("rush", 4), 100, 100 * bot_decision_s, 100 * bot_decision_s + 0.1,
                          100 * bot_decision_s + 0.3, True, 400)]
        greedy = [_GameTime(("rush", 4), 80, 0.016, 0.026, 1.0, True, 800)]
        return class_time(ClassSettings(cfg, files=10), Limits(game_bank_s=30), "mine", mine,
                          {"GreedyBot": greedy, "CountingBot": greedy[:1]}) or pytest.fail("no estimate")

    t = model(0, 0.01)  # games = 32 at 4 seats: 32 games each
    assert t.games == 32 and t.workers == 2 and t.ratio == pytest.approx(50)
    assert t.added_s == pytest.approx(32 * (200 * 0.01 + 0.1 + 0.4 / 4) / 2)
    assert t.reference_added_s == pytest.approx(32 * (80 * 0.0002 + 0.01 + 0.4 / 4) / 2)
    assert t.class_s == pytest.approx(9 * t.reference_added_s + t.added_s)
    # The games run --estimate expects (timing.expected_games: 169 for +-50) in whole deals; 4 x 676 > max_games.
    assert model(50, 0.01).games == 172 and model(25, 0.01).games == 300
    slow = model(0, 1.0, workers=1)  # 200 s of decisions a game: its 30 s bank ends every game
    assert slow.added_s == pytest.approx(32 * (30 + 0.1 + 0.4 / 4))
    # Anchored on a bot, a run needs about 2.3 times the games for the same precision (294 against 126 measured).
    assert model(100, 0.01).games == 44 and model(100, 0.01, anchor="GreedyBot").games == 100  # 43, 98 in deals
    # as `run --estimate` counts grading (grades.grade_games): 160 expected one-on-one games a bar and 2-player
    # preset, 400 at most
    graded = model(0, 0.01, grading=["GreedyBot"])
    bot, ref = 200 * 0.01 + 0.1, 80 * 0.0002 + 0.01
    assert graded.grading_games == 160 and graded.grading_max == 400 and graded.games == 32
    assert graded.added_s == pytest.approx(t.added_s + 160 * (bot + ref + 0.4) / 2)
    assert graded.reference_added_s == pytest.approx(t.reference_added_s + 160 * (2 * ref + 0.4) / 2)
    assert ("(its 32 games and about 160 one-on-one grading games against GreedyBot (at most 400: a file close to a "
            "bar plays them all), on 2 workers)") in graded.sentence()


def test_the_class_time_says_instead_only_when_the_texts_differ() -> None:
    quick = ClassTime(40, 2, 96, 0.05, "GreedyBot", 0.0004, added_s=0.9, reference_added_s=0.01, class_s=0.95)
    assert "the class takes under a second." in quick.sentence()  # not "under a second instead of under a second"
    assert "instead of about 13 minutes" in ClassTime(40, 2, 96, 0.05, "GreedyBot", 0.0004, 1200, 20, 1980).sentence()


def test_a_class_that_adds_greedybot_refuses_a_file_named_so_and_a_class_checks_in_process_too(tmp_path: Path) -> None:
    folder = _class(tmp_path)
    toml = CLASS_TOML.replace("[limits]", 'reference = ["RandomBot", "GreedyBot"]\n\n[limits]')
    (folder / "tournament.toml").write_text(toml)
    path = tmp_path / "GreedyBot.py"
    path.write_text(SUBCLASS)
    report = check_bot(path, games=1, replays=0, class_dir=folder)
    assert any("is the name of the built-in reference bot GreedyBot" in p for p in report.problems), report.problems
    (folder / "tournament.toml").write_text(CLASS_TOML.replace("[limits]", 'grading = ["GreedyBot"]\n\n[limits]'))
    graded = check_bot(path, games=1, replays=0, class_dir=folder)  # a grading bot's name: refused as the run does
    assert any("is the name of the built-in reference bot GreedyBot" in p for p in graded.problems), graded.problems
    (folder / "tournament.toml").write_text(toml)
    in_process = check_bot(ck.bots.CountingBot, games=1, replays=0, class_dir=folder)
    assert in_process.ok and in_process.settings == CHECKED.format(folder=folder)
    assert in_process.timing is not None and in_process.timing.in_process
    assert "(measured in this process, plus what isolation adds)" in in_process.notes[-1]


def test_a_class_not_collected_yet_is_modelled_at_30_files_and_the_slow_bot_still_warned_about(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "class-2026"  # what a teacher hands out first: the command and tournament.toml, no bots/
    folder.mkdir()
    (folder / "tournament.toml").write_text(CLASS_TOML)
    assert main(["check-bot", str(STUDENT / "monte_carlo.py"), "--class", str(folder)]) == 1
    out = capsys.readouterr().out
    warning = next(line for line in out.splitlines() if "far slower" in line)
    assert re.search(r"this file adds about \d+ minutes to a 30-file class \(there is no bots/ folder yet: a class of "
                     r"30 files assumed; its 18 games, on 1 worker\)", warning), warning
    assert " 0 games" not in out and "1-file class" not in out
    (folder / "bots").mkdir()
    (folder / "bots" / "ada.py").write_text(GREEDY_COPY.format(name="Ada"))  # 2 files: a 3-seat table is not full
    s = class_settings(folder, STUDENT / "monte_carlo.py")
    assert (s.files, s.others, s.modelled) == (30, ("ada",), "bots/ holds 1 file so far: a class of 30 files assumed")
    (folder / "bots" / "bob.py").write_text(GREEDY_COPY.format(name="Bob"))
    assert class_settings(folder, STUDENT / "monte_carlo.py").files == 3  # counted as soon as a table fills


def test_the_check_shows_no_path_of_this_machine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _class(tmp_path)
    raiser = folder / "bots" / "raiser.py"
    raiser.write_text("import cabo_kit as ck\n\n\nclass Raiser(ck.bots.GreedyBot):\n"
                      "    def choose(self, observation, legal_actions):\n"
                      "        return ck.bots.GreedyBot.choose(self, None, legal_actions)\n")
    for args in (["--class", str(folder)], []):
        assert main(["check-bot", str(raiser), "--games", "1", *args]) == 1
        out = capsys.readouterr().out
        assert 'File "raiser.py", line 6, in choose' in out, out
        settings = out.splitlines()[1]  # the folder as it was given on the command line, and nothing else
        assert "Traceback" in out and str(tmp_path) not in out.replace(settings, "")
        assert str(Path(ck.__file__).parent) not in out and 'File "/' not in out


def test_a_rejected_files_own_path_is_scrubbed_whatever_its_folders_and_name_hold(tmp_path: Path) -> None:
    folder = tmp_path / "class 3" / "bots"
    folder.mkdir(parents=True)
    path = folder / "Tom's bot.py"
    path.write_text('import cabo_kit as ck\nraise OSError("cannot read " + __file__)\n')
    report = check_bot(path, games=1, replays=0, limits=CHECK)
    assert report.problems and "OSError: cannot read Tom's bot.py" in report.problems[0], report.problems
    assert not any(str(tmp_path) in p or "class 3" in p for p in report.problems + report.notes)


def test_a_file_nested_past_the_parsers_depth_gets_no_hints_and_no_crash(tmp_path: Path) -> None:
    """A base class written 1,500 attributes deep overflows ast.unparse: the hints give up (the load reports the
    file's own error) instead of the check stopping with the checker's traceback and paths (review of issue 19)."""
    from cabo_kit.tournament.check import hook_hints

    bot = tmp_path / "deep.py"
    bot.write_text("import cabo_kit as ck\nclass A(ck." + "a." * 1500 + "Bot):\n    pass\n")
    assert hook_hints(bot) == []
