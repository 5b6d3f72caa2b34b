"""The report safe to share, a page per bot for its author, and the teacher's page (issue 18, must 5).

One small tournament (rush, 2 players) with a bot that raises at a line of its own source in seat 0,
answers illegally in seat 1, and prints markup and paths: report.html must carry none of its code,
output, traceback or this machine's paths, but its fault counts; its page must carry all of that,
escaped, with where each fault happened, the rule broken, what it saw and the replay command; the
teacher's page the copy flags and the rejected file's reason.
"""

from __future__ import annotations

import json
import os
import re
import site
from pathlib import Path

import pytest

import cabo_kit
from cabo_kit.pages import FaultView, _faults_html, own_traceback, page_name, page_names, scrub_paths
from cabo_kit.tournament.replay_fault import repro
from cabo_kit.tournament.runner import run_tournament, write_outputs
from cabo_kit.tournament.store import load_faults

pytest.importorskip("pandas")
pytest.importorskip("plotly")

HOSTILE = "<script>alert(1)</script>"
SOURCE_LINE = "secret = [1, 2][7]  # SECRET_SOURCE_LINE"

EVIL = f'''import os
import cabo_kit as ck


class Evil(ck.Bot):
    n = 0

    def choose(self, obs, legal):
        self.n += 1
        print({HOSTILE!r}, __file__, os.path.expanduser("~"))
        if self.n == 3 and obs.seat == 0:
            {SOURCE_LINE}
        if self.n == 2 and obs.seat == 1:
            return ck.Swap(0, 9, 9)
        return legal[0]
'''

TOML = """presets = ["rush"]
table_sizes = [2]
games = 2
reference = ["RandomBot"]

[limits]
decision_s = 0.5
"""


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pages") / "class 3B"
    (folder / "bots").mkdir(parents=True)
    (folder / "tournament.toml").write_text(TOML)
    (folder / "bots" / "evil.py").write_text(EVIL)
    (folder / "bots" / "steady.py").write_text((Path(__file__).parent / "tournament_bots" / "steady.py").read_text())
    (folder / "bots" / "broken.py").write_text("import cabo_kit as ck\nclass B(ck.Bot):\n    def choose(self, o, l)\n")
    # a copy check's result, as `cabo-kit tournament copies` saves it
    (folder / "copies.json").write_text(json.dumps({
        "flags": [{"a": "steady", "b": "CountingBot", "reference": True, "agreed": 98, "decisions": 100}],
        "checked": ["evil", "steady"], "threshold": 0.8, "decisions": 1200}))
    run_tournament(folder, workers=1, progress=False, out=None)
    write_outputs(folder, out=None)
    return folder


def _machine_paths(folder: Path) -> list[str]:
    install = Path(cabo_kit.__file__).resolve().parent
    places = [str(folder), str(folder.resolve()), str(folder.parent), str(install), str(install.parent),
              os.path.expanduser("~") + "/", "site-packages"]
    return places + [p for p in site.getsitepackages() if p]


def test_the_public_report_has_fault_counts_and_no_code_output_traceback_or_path(tournament: Path) -> None:
    page = (tournament / "report.html").read_text(encoding="utf-8")
    evil = re.search(r'<section class="bot" id="bot-\d+"><h3>evil</h3>(.*?)</section>', page, flags=re.S)
    assert evil is not None and "Faults (4)</h4><p>2 error, 2 illegal.</p>" in evil.group(1)
    problems = page.split('id="problems"')[1].split('id="bots"')[0]
    assert "<th>error</th><th>illegal</th>" in problems and "<code>broken.py</code>" in problems
    # the page's own text, without plotly's JavaScript (whose code names SyntaxError...); the figures' data stay
    import plotly.offline

    text = page.replace(plotly.offline.get_plotlyjs(), "")
    for secret in ("SECRET_SOURCE_LINE", "[1, 2][7]", "alert(1)", "&lt;script&gt;", "Traceback", "IndexError",
                   "line 12", "swap 0 9:9", "SyntaxError", "expected ':'", "tournament repro", "Possible copies",
                   "CountingBot (reference)", "evil.py"):
        assert secret not in text, secret
    for path in _machine_paths(tournament):
        assert path not in page, path


def test_the_bot_page_has_every_fault_by_kind_with_where_the_rule_what_it_saw_and_the_replay(tournament: Path) -> None:
    page = (tournament / "bot-pages" / "evil.html").read_text(encoding="utf-8")
    faults = load_faults(tournament)
    assert len(faults) == 4
    assert '<span class="bad">error</span>: 2 faults in 2 games' in page
    assert '<span class="bad">illegal</span>: 2 faults in 2 games' in page
    for f in faults:  # every fault, with its replay command (the folder's name, not its path)
        assert f"<code>cabo-kit tournament repro &#x27;class 3B&#x27; {f.game_id[:8]}</code>" in page
    # where, the call, what it saw (Observation.describe()) and the legal moves
    assert "round 1, turn 0, phase drawn, in <code>choose()</code>" in page
    assert "What the bot was given at that decision:</p><pre>seat 0, round 1, turn 0, phase drawn" in page
    assert "  legal  : discard, exchange 0" in page
    # the rule broken, in the rules' words (explain.why_illegal)
    assert "The rule: this is" in page and "(legal now: " in page
    # its traceback: its own file's lines only, named by the file's name
    assert "File &quot;evil.py&quot;, line 12, in choose" in page and "SECRET_SOURCE_LINE" in page
    assert "harness.py" not in page and "cabo_kit/" not in page
    # what it printed, escaped: the markup is text; the paths it printed are gone
    assert HOSTILE not in page and "&lt;script&gt;alert(1)&lt;/script&gt; evil.py ~" in page
    for path in _machine_paths(tournament):
        assert path not in page, path
    other = (tournament / "bot-pages" / "steady.html").read_text(encoding="utf-8")
    assert "SECRET_SOURCE_LINE" not in other and "alert(1)" not in other  # nobody else's code or output


def test_the_teacher_page_links_every_page_and_has_the_copies_and_the_rejected_reasons(tournament: Path) -> None:
    page = (tournament / "teacher.html").read_text(encoding="utf-8")
    for name in ("evil", "steady", "RandomBot"):
        assert f'<a href="bot-pages/{page_name(name)}">' in page and (tournament / "bot-pages" / page_name(name)).is_file()
    assert '<h2 id="copies">Possible copies</h2>' in page and "<code>steady.py</code>" in page
    assert "CountingBot (reference)" in page and "98%" in page
    assert "broken.py" in page and "SyntaxError" in page  # the full reason
    assert f"cabo-kit tournament repro &#x27;{tournament}&#x27;" in page


def test_a_crash_in_a_hook_is_named_after_the_hook(tmp_path: Path) -> None:
    folder = tmp_path / "hooks"
    (folder / "bots").mkdir(parents=True)
    (folder / "tournament.toml").write_text(TOML.replace("games = 2", "games = 1"))
    head = "import os\nimport cabo_kit as ck\n\nclass B(ck.Bot):\n    def choose(self, obs, legal):\n        return legal[0]\n\n"
    (folder / "bots" / "at_start.py").write_text(head + "    def on_game_start(self, seat, n, rules):\n        os._exit(4)\n")
    (folder / "bots" / "at_round.py").write_text(head + "    def on_round_start(self, obs):\n        os._exit(3)\n")
    run_tournament(folder, workers=1, progress=False, out=None)
    hooks = {(f.bot, f.hook) for f in load_faults(folder)}
    assert ("at_start", "on_game_start()") in hooks
    assert ("at_round", "on_round_start()") in hooks  # sent ahead of the next choose(), which the reason also names
    reasons = {f.bot: f.reason for f in load_faults(folder)}
    assert reasons["at_round"].startswith("on_round_start() or the choose() after it: the bot's process exited")
    # the replay waits for each hook, so it names the one that died exactly
    replayed = repro(folder, "at_round")
    assert replayed.status == "fails" and replayed.hook == "on_round_start()"
    assert replayed.message.startswith("the faulted decision still fails: on_round_start(): the bot's process exited")
    write_outputs(folder, out=None)
    page = (folder / "bot-pages" / "at_start.html").read_text(encoding="utf-8")
    assert "in <code>on_game_start()</code>" in page and "The game at that point" in page
    page = (folder / "bot-pages" / "at_round.html").read_text(encoding="utf-8")
    assert "in <code>on_round_start() or the choose() after it</code>" in page


def _view(i: int, kind: str, what: str) -> FaultView:
    return FaultView(game_id=f"g{i:02d}", fault_id=f"g{i:02d}", bot="b", kind=kind, preset="rush", seat=0, deal_seed=7,
                     call="choose()", round=1, turn=i, phase="drawn", what=what, rule="", seen="", traceback=what,
                     printed="", repro=f"cabo-kit tournament repro DIR g{i:02d}")


def test_faults_are_grouped_by_kind_with_a_few_examples_and_every_one_in_the_table() -> None:
    views = [_view(i, "illegal", f"choose() returned 'exchange {4 + i % 3}', which is not legal now: there is no "
                                 f"position {4 + i % 3} in your hand") for i in range(30)]
    views.append(_view(30, "error", "choose() raised ValueError: boom (b.py, line 3)"))
    page = _faults_html(views)
    assert page.index("error</span>: 1 fault in 1 game") < page.index("illegal</span>: 30 faults in 30 games")
    assert "(30 faults like it)" in page
    assert page.count('<div class="fault">') == 1 + 3  # a few examples in full
    assert all(f"<code>g{i:02d}</code>" in page for i in range(31))  # and every fault in the tables, not only 20


def test_a_traceback_keeps_the_bots_own_frames_and_scrub_removes_paths() -> None:
    home = os.path.expanduser("~")
    tb = (f'choose() raised:\nTraceback (most recent call last):\n  File "{home}/venv/lib/cabo_kit/harness.py", line 9, '
          'in serve\n    action = bot.choose(o, l)\n  File "/tmp/w1/zed.py", line 4, in choose\n    return 1/0\n'
          '  File "/usr/lib/python3/fractions.py", line 2, in f\n    x\nZeroDivisionError: division by zero')
    assert own_traceback(tb, "zed.py").splitlines() == [
        "choose() raised:", "Traceback (most recent call last):", "  ...", '  File "zed.py", line 4, in choose',
        "    return 1/0", "  ...", "ZeroDivisionError: division by zero"]
    assert scrub_paths(f"open {home}/x.txt in /tmp/w1/zed.py", None, "/tmp/w1") == "open ~/x.txt in zed.py"


SPY = '''import os
import cabo_kit as ck


class Spy(ck.Bot):
    looked = False

    def choose(self, obs, legal):
        if not self.looked:
            self.looked = True
            here = os.path.dirname(os.path.abspath(__file__))
            try:
                names = sorted(os.listdir(here))
            except OSError as exc:
                names = []
                print("SPY-LIST-DENIED", type(exc).__name__)
            print("SPY-LISTED", names)
            for name in names + ["classmate.py"]:
                try:
                    with open(os.path.join(here, name)) as f:
                        print("SPY-READ", name, f.read())
                except OSError as exc:
                    print("SPY-READ-DENIED", name, type(exc).__name__)
        return legal[0]
'''


def test_a_bot_cannot_read_a_classmates_source_in_the_match_folder(tmp_path: Path) -> None:
    folder = tmp_path / "spied"
    (folder / "bots").mkdir(parents=True)
    (folder / "tournament.toml").write_text(TOML.replace("games = 2", "games = 1").replace('"RandomBot"', ""))
    (folder / "bots" / "spy.py").write_text(SPY)
    secret = "CLASSMATE_SECRET_" + "7f3a"
    (folder / "bots" / "classmate.py").write_text(
        f"import cabo_kit as ck\n\n# {secret}\nclass Mate(ck.Bot):\n    def choose(self, obs, legal):\n"
        "        return legal[0]\n")
    run_tournament(folder, workers=1, progress=False, out=None)
    assert not load_faults(folder)  # both bots loaded and played (as root: files only the runner can read)
    logs = "".join(p.read_text(errors="replace") for p in (folder / "logs").glob("spy-*.log"))
    assert "SPY-LISTED" in logs  # the spy ran its look
    if os.geteuid() == 0:  # the bots run as uids of their own: the match folder is closed to them
        assert secret not in logs and "'classmate.py'" not in logs
        assert "SPY-LIST-DENIED PermissionError" in logs and "SPY-READ-DENIED classmate.py PermissionError" in logs
    # (not root: every bot runs as the teacher's user, the weaker isolation the runner warns about)


def test_scrub_paths_removes_paths_whatever_the_file_name_holds() -> None:
    from cabo_kit.pages import scrub_paths

    root = str(Path(cabo_kit.__file__).resolve().parent.parent)
    for name in ('Tom\'s "best" bot.py', "a b <c>.py", "plain.py"):
        tb = f'Traceback (most recent call last):\n  File "/srv/class 3/bots/{name}", line 4, in choose\nValueError: x'
        assert scrub_paths(tb) == f'Traceback (most recent call last):\n  File "{name}", line 4, in choose\nValueError: x'
    # the runner's match folder differs per worker: gone, so the same fault reads the same everywhere
    assert scrub_paths("cannot open /tmp/cabo-match-ab_12x/data.json") == "cannot open data.json"
    assert scrub_paths(f"{root}/notes/plan.txt") == "<cabo-kit>/notes/plan.txt"
    assert scrub_paths("read /srv/my class/Tom's bot.py now", "Tom's bot.py") == "read Tom's bot.py now"


def test_scrub_paths_starts_a_path_only_where_a_path_can_start() -> None:
    """A path begins at a line's start or after whitespace, a quote, "(", "=" or ":": the words before it stay."""
    assert scrub_paths("see a/b and then /srv/x/alice.py", "alice.py") == "see a/b and then alice.py"
    assert scrub_paths("see /a/b and then /srv/x/alice.py", "alice.py") == "see /a/b and then alice.py"
    assert scrub_paths("x=/srv/class 3/bots/alice.py (/srv/y/alice.py)", "alice.py") == "x=alice.py (alice.py)"
    assert scrub_paths("see a/b/c.py and a/b/cabo-match-x1/") == "see a/b/c.py and a/b/cabo-match-x1/"
    assert scrub_paths('open "C:\\Users\\t\\alice.py": no', "alice.py") == 'open "alice.py": no'


def test_printed_output_is_scrubbed_before_it_is_escaped(tmp_path: Path) -> None:
    import sys

    from cabo_kit.report import printed_html

    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "tom-0123456789ab.log").write_text(f"{sys.prefix}/lib/x <b> /srv/class/Tom's bot.py\n")
    page = printed_html("tom", logs, clean=lambda text: scrub_paths_for_tom(text))
    assert "&lt;python&gt;/lib/x &lt;b&gt; Tom&#x27;s bot.py" in page and sys.prefix not in page


def scrub_paths_for_tom(text: str) -> str:
    from cabo_kit.pages import scrub_paths

    return scrub_paths(text, "Tom's bot.py")


def test_the_same_fault_in_two_match_folders_is_one_group() -> None:
    from cabo_kit.pages import scrub_paths

    views = [_view(i, "error", scrub_paths(f"choose() raised OSError: no /tmp/cabo-match-{w}/x.json", "b.py"))
             for i, w in enumerate(("k1", "q_2"))]
    page = _faults_html(views)
    assert "(2 faults like it)" in page and page.count('<div class="fault">') == 2


def test_examples_are_each_groups_first_fault_in_the_order_they_first_happened() -> None:
    boom, bang = "choose() raised ValueError: boom (b.py, line 3)", "choose() raised KeyError: 'x' (b.py, line 9)"
    views = [_view(0, "error", boom), _view(1, "error", bang), _view(2, "error", boom)]
    page = _faults_html(views, examples=2)
    shown = re.findall(r"Game <code>(g\d\d)</code>", page)
    assert shown == ["g00", "g01"]  # not the last boom (g02), and boom first as it happened first


def test_page_names_come_from_the_name_alone_and_never_collide_by_case() -> None:
    assert page_name("alice") == "alice.html" and page_name("bob_2-x") == "bob_2-x.html"
    names = {page_name(n) for n in ("Ada", "ada", "ADA", "a da", "a_da")}
    assert len({n.lower() for n in names}) == 5  # distinct even on a case-insensitive disk
    assert page_name("Ada") == page_name("Ada") and page_name("Ada").startswith("ada-")


def test_a_name_that_looks_hashed_or_whose_hash_meets_another_never_shares_a_page() -> None:
    import hashlib
    import itertools

    assert page_name("Alice") == "alice-3bc51062.html" != page_name("alice-3bc51062")
    assert page_name("alice-3bc51062").startswith("alice-3bc51062-")
    # two names of the same stem whose first 8 hex digits meet (found among case variants: a birthday search)
    seen: dict[str, str] = {}
    for bits in itertools.product((0, 1), repeat=20):
        name = "".join(c.upper() if b else c for c, b in zip("abcdefghijklmnopqrst", bits))
        head = hashlib.sha256(name.encode()).hexdigest()[:8]
        if head in seen:
            break
        seen[head] = name
    else:
        pytest.fail("no 8-digit collision among 2**20 names")
    a, b = seen[head], name
    assert page_name(a) == page_name(b)  # what write_pages must never write twice
    names = page_names([a, b, "alice"])
    assert len({n.lower() for n in names.values()}) == 3 and names["alice"] == "alice.html"
    assert names[a] == page_name(a, 64) and len(names[a]) == len("abcdefghijklmnopqrst-.html") + 64


def test_the_rejected_file_gets_a_page_without_paths_linked_from_the_teachers_page(tournament: Path) -> None:
    page = (tournament / "bot-pages" / "broken.html").read_text(encoding="utf-8")
    assert "Rejected: it was not played" in page and "SyntaxError" in page and "cabo-kit check-bot broken.py" in page
    for path in _machine_paths(tournament):
        assert path not in page, path
    teacher = (tournament / "teacher.html").read_text(encoding="utf-8")
    assert '<a href="bot-pages/broken.html">' in teacher


def test_stale_pages_go_and_pages_of_the_bots_in_the_store_stay(tournament: Path) -> None:
    from cabo_kit.pages import write_pages

    pages = tournament / "bot-pages"
    (pages / "gone.html").write_text("old")
    (pages / "EVIL.html").write_text("old")  # differs from a kept page only in case
    write_pages(tournament)
    kept = sorted(p.name for p in pages.glob("*.html"))
    assert kept == sorted(["broken.html", "evil.html", "steady.html", page_name("RandomBot")])


ROUND_END = '''import cabo_kit as ck


class B(ck.Bot):
    def choose(self, obs, legal):
        return next((a for a in legal if str(a) == "cabo"), legal[0])

    def on_round_end(self, result):
        raise RuntimeError("ROUND_END_FAULT")
'''


def test_a_fault_at_the_end_of_a_round_shows_that_rounds_result(tmp_path: Path) -> None:
    folder = tmp_path / "ends"
    (folder / "bots").mkdir(parents=True)
    (folder / "tournament.toml").write_text(TOML.replace("games = 2", "games = 1"))
    (folder / "bots" / "ender.py").write_text(ROUND_END)
    run_tournament(folder, workers=1, progress=False, out=None)
    write_outputs(folder, out=None)
    page = (folder / "bot-pages" / "ender.html").read_text(encoding="utf-8")
    assert "ROUND_END_FAULT" in page
    assert "end of round 1, in <code>on_round_end()</code>" in page
    assert "The round's result, as the bot was given it:</p><pre>round 1 ended by " in page
    assert "round 2" not in page and "legal  :" not in page  # nothing of the next deal, no legal moves


def test_the_bot_page_has_its_grade_and_its_faults_in_the_grading_matches(tmp_path: Path) -> None:
    from cabo_kit.pages import write_pages
    from cabo_kit.tournament.grades import play_grades

    folder = tmp_path / "graded"
    (folder / "bots").mkdir(parents=True)
    (folder / "tournament.toml").write_text(TOML.replace("games = 2", 'games = 1\ngrading = ["RandomBot"]'))
    (folder / "bots" / "wobbly.py").write_text(
        "import cabo_kit as ck\n\nclass W(ck.Bot):\n    def choose(self, obs, legal):\n"
        "        print('WOBBLY_SAID')\n        raise LookupError('GRADING_FAULT')\n")
    run_tournament(folder, workers=1, progress=False, out=None)
    play_grades(folder, workers=1, out=None)  # 32 games, every one a fault: below at the first look
    write_pages(folder)  # on its own (no board given): the grades are there as write_outputs gives them
    alone = (folder / "bot-pages" / "wobbly.html").read_text(encoding="utf-8")
    assert '<h3 id="grades">Grades</h3>' in alone and "<th>vs RandomBot</th>" in alone
    write_outputs(folder, out=None)
    page = (folder / "bot-pages" / "wobbly.html").read_text(encoding="utf-8")
    assert page == alone
    assert '<h3 id="grades">Grades</h3>' in page and "<th>vs RandomBot</th>" in page
    grading = page.split('id="grading-faults"')[1].split("<h4>Printed output</h4>")[0]
    # its output in the grading games (logs/grades/): shown with each grading fault
    assert "What it printed in that deal (first lines):</p><pre>WOBBLY_SAID" in grading
    assert "<td>rush</td><td>below (" in page and "32 games)</td>" in page
    assert "Faults in the grading matches (32)" in page and "GRADING_FAULT" in grading
    assert '<h3 id="grading-error"><span class="bad">error</span>: 32 faults in 32 games' in grading
    assert "tournament repro" not in grading  # not a tournament game: nothing to replay it with
    reference = (folder / "bot-pages" / page_name("RandomBot")).read_text(encoding="utf-8")
    assert 'id="grades"' not in reference and "grading-faults" not in reference


def test_a_rejected_file_named_like_a_reference_bot_gets_its_own_page(tmp_path: Path) -> None:
    folder = tmp_path / "named"
    (folder / "bots").mkdir(parents=True)
    (folder / "tournament.toml").write_text(TOML.replace("games = 2", "games = 1"))
    (folder / "bots" / "steady.py").write_text((Path(__file__).parent / "tournament_bots" / "steady.py").read_text())
    (folder / "bots" / "RandomBot.py").write_text((Path(__file__).parent / "tournament_bots" / "steady.py").read_text())
    run_tournament(folder, workers=1, progress=False, out=None)
    write_outputs(folder, out=None)
    reference = (folder / "bot-pages" / page_name("RandomBot")).read_text(encoding="utf-8")
    assert "was rejected" not in reference  # the built-in RandomBot played; the file was refused
    own = (folder / "bot-pages" / page_name("RandomBot.py")).read_text(encoding="utf-8")
    assert "Rejected: it was not played" in own and f'bot-pages/{page_name("RandomBot.py")}' in (
        folder / "teacher.html").read_text(encoding="utf-8")


def test_a_bot_whose_new_file_is_rejected_says_so_on_its_page(tmp_path: Path) -> None:
    folder = tmp_path / "changed"
    (folder / "bots").mkdir(parents=True)
    (folder / "tournament.toml").write_text(TOML.replace("games = 2", "games = 1"))
    (folder / "bots" / "steady.py").write_text((Path(__file__).parent / "tournament_bots" / "steady.py").read_text())
    run_tournament(folder, workers=1, progress=False, out=None)
    (folder / "bots" / "steady.py").write_text("import cabo_kit as ck\nclass B(ck.Bot):\n    def choose(self, o, l)\n")
    (folder / "bots" / "other.py").write_text((Path(__file__).parent / "tournament_bots" / "steady.py").read_text())
    run_tournament(folder, workers=1, progress=False, out=None)
    write_outputs(folder, out=None)
    page = (folder / "bot-pages" / "steady.html").read_text(encoding="utf-8")
    # its page (same name) now says why its file was refused (an earlier version's games, if the store still holds
    # them, come with it)
    assert ("Its current file was rejected" in page or "Rejected: it was not played" in page)
    assert "SyntaxError" in page and str(folder) not in page
