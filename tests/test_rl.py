"""cabo_kit.rl (issue 21): the action index and encoding, the leak property, the frameworks' own conformance suites,
and a trained policy entering a tournament as a bot file."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

import cabo_kit as ck  # noqa: E402
from cabo_kit.play import bot_random  # noqa: E402
from cabo_kit.rl.encoding import MAX_POSITIONS, ActionIndex, Encoder, action_index, encode, encoder  # noqa: E402
from rl_worlds import differences, twin_worlds  # noqa: E402

pettingzoo_test = pytest.importorskip("pettingzoo.test")
gymnasium = pytest.importorskip("gymnasium")

ROOT = Path(__file__).resolve().parent.parent
TABLES = [("deluxe", 2), ("deluxe", 4), ("deluxe", 6), ("rush", 2), ("rush", 4), ("rush", 6),
          ("traveller", 3), ("traveller", 4), ("traveller", 6)]


# ------------------------------------------------------------------ the action index and the encoding


@pytest.mark.parametrize("preset,n", TABLES)
def test_every_number_is_one_action_and_back_for_every_seat(preset: str, n: int) -> None:
    index = ActionIndex(ck.Rules.preset(preset), n)
    for seat in range(n):
        actions = [index.action(i, seat) for i in range(index.size)]
        assert len(set(map(id, actions))) == index.size  # one action per number (actions exist once each)
        assert [index.index(a, seat) for a in actions] == list(range(index.size))
    # seats are offsets from the decider: one policy plays every seat
    last = n - 1
    assert index.describe(index.index(ck.Spy(0, 0), seat=last)) == "spy +1:0"  # seat 0 is the last seat's left neighbour
    assert index.index(ck.Spy(0, 0), seat=last) == index.index(ck.Spy(1, 0), seat=0)


def test_actions_outside_the_index_are_left_out_never_an_error() -> None:
    index = ActionIndex(ck.Rules.preset("deluxe"), 2)
    assert index.index(ck.Peek(MAX_POSITIONS), 0) is None and index.index(ck.Exchange((0, 1, 2, 3, 4)), 0) is None
    legal = ck.LegalActions((ck.Discard(),) + tuple(ck.Exchange((p,)) for p in range(14)), hand_size=14)
    mask = index.mask(legal, 0)
    # 15 fixed actions, 12 of them in the index; of the 2**14 - 15 multi-exchanges, those of 2..4 of the first 12 positions
    assert int(mask.sum()) == 13 + (66 + 220 + 495) and index.unindexed(legal, 0) == len(legal) - int(mask.sum())
    full = ActionIndex(ck.Rules.preset("deluxe"), 2, multi=MAX_POSITIONS)  # every multi-exchange of 12 positions
    assert full.index(ck.Exchange(tuple(range(12))), 0) is not None and full.size == index.size + 4083 - 781
    with pytest.raises(ck.IllegalActionError, match="action 0 \\(deck\\) is not legal for seat 1 now; legal: pass"):
        index.action(0, seat=1, legal=(ck.Pass(),))
    with pytest.raises(ValueError, match="not in the index: give a number from 0 to 984"):
        index.action(985, seat=0)


def _random_games(preset: str, games: int, seed: int = 0):
    """(observation, legal, seat, chosen action) of every decision in seeded RandomBot games, table sizes in turn."""
    rules = ck.Rules.preset(preset)
    sizes = list(range(rules.min_players, rules.max_players + 1))
    for g in range(games):
        n = sizes[g % len(sizes)]
        game = ck.Game(rules, seed + g, n)
        bots = [ck.bots.RandomBot() for _ in range(n)]
        for s, bot in enumerate(bots):
            bot.random = bot_random(seed + g, s)
        while not game.is_over:
            for s in game.to_move:
                obs = game.observation(s)
                action = bots[s].choose(obs, obs.legal_actions)
                yield obs, obs.legal_actions, s, action
                game.apply(action, s)


@pytest.mark.parametrize("preset", ["deluxe", "rush", "traveller"])
def test_masks_and_encodings_of_random_games(preset: str) -> None:
    """The mask holds exactly the legal actions in the index; the encoding is in bounds. A small run of the
    count benchmarks/rl_index_coverage.py makes over 10,000 games per preset."""
    decisions = outside_chosen = outside_any = 0
    for obs, legal, seat, action in _random_games(preset, 24):
        index, enc = action_index(obs.rules, obs.n_players), encoder(obs.rules, obs.n_players)
        mask = index.mask(legal, seat)
        assert mask.any()
        for i in np.flatnonzero(mask)[:40]:
            assert index.action(int(i), seat) in legal
        assert int(mask.sum()) + index.unindexed(legal, seat) == len(legal)
        if not isinstance(legal, ck.LegalActions):
            assert sorted(i for i in (index.index(a, seat) for a in legal) if i is not None) == list(np.flatnonzero(mask))
        x = enc.encode(obs)
        assert x.dtype == np.float32 and x.shape == (enc.size,) and x.min() >= -1 and x.max() <= 1
        decisions += 1
        outside_any += index.unindexed(legal, seat) > 0
        outside_chosen += index.index(action, seat) is None
    assert decisions > 2000
    assert outside_chosen / decisions < 0.001, (outside_chosen, decisions)


def test_the_encoding_is_what_the_layout_says() -> None:
    game = ck.Game(ck.Rules.preset("rush"), seed=3, n_players=3)
    enc = Encoder(game.rules, 3)
    assert sum(s.stop - s.start for s in enc.layout.values()) == enc.size
    x = enc.encode(game.observation(1))
    hands = x[enc.layout["hands"]].reshape(3, MAX_POSITIONS, 18)
    mine = game.observation(1).my_hand
    for p, card in enumerate(mine):  # offset 0 is seat 1 itself; the value one-hot starts at column 3 (value -1)
        assert hands[0, p, 0] == 1 and hands[0, p, 2] == card.known
        if card.known:
            assert hands[0, p, 4 + card.value] == 1
    assert not hands[1:, :, 2].any()  # nothing known of the others' cards
    assert x[enc.layout["phase"]][list(ck.Phase).index(game.phase)] == 1
    with pytest.raises(ValueError, match="this Encoder is for rush with 3 players"):
        enc.encode(ck.Game(game.rules, seed=3, n_players=2).observation(0))


# ------------------------------------------------------------------ the leak property


# Every preset at every table size it allows (deluxe and rush 2 to 6, traveller 3 to 6).
ALL_TABLES = [(preset, n) for preset in ("deluxe", "rush", "traveller")
              for n in range(ck.Rules.preset(preset).min_players, ck.Rules.preset(preset).max_players + 1)]


def _worlds(preset: str, n: int, memory: str, count: int = 6):
    rules = ck.Rules.preset(preset)
    for k in range(count):
        yield twin_worlds(rules, n, seat=k % n, seed=100 * n + k, memory=memory, setup=k % 2 == 0)


@pytest.mark.parametrize("memory", ["engine", "none"])
@pytest.mark.parametrize("preset,n", ALL_TABLES)
def test_a_world_the_seat_cannot_tell_apart_encodes_the_same(preset: str, n: int, memory: str) -> None:
    """Deal a different world consistent with one seat's observation, replay to the same points: identical encoding,
    mask, env observation and infos (RULES.md section 7)."""
    from cabo_kit.rl.pettingzoo_env import CaboAEC

    changed = steps = 0
    for worlds in _worlds(preset, n, memory):
        changed += worlds.changed
        steps += len(worlds.actions)

        def read(game: ck.Game, seat: int) -> tuple:
            obs = game.observation(seat)
            index = action_index(game.rules, game.n)
            return encode(obs), index.mask(obs.legal_actions, seat)

        assert differences(worlds, read) == []
        assert _env_differences(worlds, lambda: CaboAEC(preset, n, memory)) == []
    assert changed > 20 and steps > 60  # the worlds differ, and were played


def _env_differences(worlds, make_env) -> list[str]:
    envs = [make_env(), make_env()]
    for env, game in zip(envs, (worlds.make_a(), worlds.make_b())):
        env.reset_to(game)
    agent = envs[0].possible_agents[worlds.seat]
    out = []
    for step in range(len(worlds.actions) + 1):
        a, b = (env.observe(agent) for env in envs)
        if not (np.array_equal(a["observation"], b["observation"]) and np.array_equal(a["action_mask"], b["action_mask"])
                and envs[0].infos[agent] == envs[1].infos[agent]
                and envs[0].agent_selection == envs[1].agent_selection):
            out.append(f"{worlds.where}: the env's observe({agent!r}) or infos differ at step {step}")
        if step < len(worlds.actions):
            for env in envs:
                env.step(worlds.actions[step])
    return out


@pytest.mark.parametrize("memory", ["engine", "none"])
@pytest.mark.parametrize("preset,n", [("deluxe", 3), ("rush", 4), ("traveller", 5)])
def test_worlds_across_round_ends_encode_the_same(preset: str, n: int, memory: str) -> None:
    """The replay goes on through round ends: nothing of a round's unseen cards shows in the next rounds."""
    from cabo_kit.rl.pettingzoo_env import CaboAEC

    rules = ck.Rules.preset(preset)
    crossed = changed = 0
    for k in range(6):
        worlds = twin_worlds(rules, n, seat=k % n, seed=700 + k, memory=memory, steps=250, setup=k % 2 == 0,
                             across_rounds=True)
        crossed += worlds.rounds
        changed += worlds.changed if worlds.rounds else 0

        def read(game: ck.Game, seat: int) -> tuple:
            obs = game.observation(seat)
            return encode(obs), action_index(game.rules, game.n).mask(obs.legal_actions, seat)

        assert differences(worlds, read) == []
        assert _env_differences(worlds, lambda: CaboAEC(preset, n, memory)) == []
    assert crossed >= 3 and changed > 0  # round ends were crossed, in worlds that differ


def _card(game: ck.Game, cid: int) -> float:
    value = game.know.faces[cid].value
    return 0.0 if value is None else value / 13


def _own_unseen(game: ck.Game, seat: int) -> float:
    unseen = [cid for p, cid in enumerate(game.know.hands[seat]) if not game.know.views[seat][seat][p].known]
    return _card(game, unseen[0]) if unseen else 0.0


PLANTED = {  # each reads one thing the seat may not know
    "the deck's top card": lambda game, seat: _card(game, game.deck[-1]) if game.deck else 0.0,
    "a neighbour's card": lambda game, seat: _card(game, game.know.hands[(seat + 1) % game.n][0]),
    "the deck's bottom card": lambda game, seat: _card(game, game.deck[0]) if game.deck else 0.0,
    "the deck's second card": lambda game, seat: _card(game, game.deck[-2]) if len(game.deck) > 1 else 0.0,
    "the sum of the other hands": lambda game, seat: sum(
        _card(game, cid) for s in range(game.n) if s != seat for cid in game.know.hands[s]),
    "an own unseen card": _own_unseen,
}


@pytest.mark.parametrize("leak", list(PLANTED))
def test_a_planted_leak_is_found(leak: str) -> None:
    """The same worlds catch an encoding that reads one thing the seat never saw."""
    read_leak = PLANTED[leak]

    def leaky(game: ck.Game, seat: int) -> np.ndarray:
        x = encode(game.observation(seat))
        x[0] = read_leak(game, seat)  # the planted leak
        return x

    found = [d for w in _worlds("deluxe", 2, "engine") for d in differences(w, leaky)]
    found += [d for w in _worlds("rush", 4, "none", count=2) for d in differences(w, leaky)]
    assert found and "reads differently in a world it cannot tell apart" in found[0]


def test_a_planted_leak_in_the_env_is_found() -> None:
    from cabo_kit.rl.pettingzoo_env import CaboAEC

    class LeakyEnv(CaboAEC):
        def observe(self, agent):
            out = super().observe(agent)
            out["observation"][0] = self.game.know.faces[self.game.deck[-1]].value / 13 if self.game.deck else 0
            return out

    assert any(_env_differences(w, lambda: LeakyEnv("deluxe", 2)) for w in _worlds("deluxe", 2, "engine"))


# ------------------------------------------------------------------ the frameworks' own suites


@pytest.mark.parametrize("reward", ["game", "round"])
@pytest.mark.parametrize("memory", ["engine", "none"])
@pytest.mark.parametrize("preset,n", ALL_TABLES)
def test_pettingzoo_api_test_and_seed_test(preset: str, n: int, memory: str, reward: str) -> None:
    from cabo_kit.rl import aec_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice for dict observations (the usual action_mask form) is no failure
        pettingzoo_test.api_test(aec_env(preset, n, memory=memory, seed=1, reward=reward), num_cycles=1000)
        pettingzoo_test.seed_test(lambda: aec_env(preset, n, memory=memory, seed=1, reward=reward), num_cycles=500)


def test_aec_env_plays_whole_games_with_the_documented_rewards() -> None:
    from cabo_kit.rl import aec_env

    for reward in ("game", "round"):
        env = aec_env("rush", 3, seed=9, reward=reward)
        env.reset()
        totals = dict.fromkeys(env.possible_agents, 0.0)
        rng = np.random.default_rng(0)
        for agent in env.agent_iter():
            obs, r, terminated, truncated, info = env.last()
            totals[agent] += r
            env.step(None if terminated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        game = env.unwrapped.game
        assert game.is_over and not env.agents
        if reward == "game":
            assert totals == {f"player_{s}": (1.0 if s in game.winners else -1.0) for s in range(3)}
        else:
            expected = [sum(((sum(r.scores) - r.scores[s]) / 2 - r.scores[s]) / 10 for r in game.results) for s in range(3)]
            assert list(totals.values()) == pytest.approx(expected)


def test_an_illegal_action_is_refused_by_name() -> None:
    from cabo_kit.rl import aec_env

    env = aec_env("deluxe", 2, seed=1)
    env.reset()
    with pytest.raises(ck.IllegalActionError, match=r"action 0 \(deck\) is not legal for seat 0 now; legal: look 0,1"):
        env.step(0)


@pytest.mark.parametrize("preset,opponents,seat,reward", [
    ("deluxe", [1], 0, "game"), ("deluxe", [1, 2, 3], None, "round"), ("rush", [ck.bots.GreedyBot], 1, "game"),
    ("traveller", [ck.bots.RandomBot(), 2], 2, "round")])
def test_gymnasium_check_env(preset: str, opponents: list, seat: int | None, reward: str) -> None:
    from gymnasium.utils.env_checker import check_env

    from cabo_kit.rl.gymnasium_env import ENV_ID

    env = gymnasium.make(ENV_ID, rules=preset, opponents=opponents, seat=seat, reward=reward, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not a single warning from gymnasium's checker
        check_env(env.unwrapped)


def test_seat_env_masks_rewards_and_illegal_actions() -> None:
    from cabo_kit.rl import SeatEnv

    env = SeatEnv("rush", opponents=[1, 1], seat=1, seed=5)
    obs, info = env.reset(seed=5)
    rng = np.random.default_rng(1)
    steps = 0
    while True:
        mask = env.action_masks()
        assert mask.dtype == np.bool_ and mask.any()
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
        if terminated:
            break
        assert reward == 0.0 and not truncated
    assert reward == (1.0 if 1 in info["winners"] else -1.0) and steps > 10
    env.reset(seed=5)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert terminated and reward == -1.0 and "is not legal for seat 1 now" in info["illegal"]
    strict = SeatEnv("rush", opponents=[1, 1], seat=1, seed=5, illegal="raise")
    strict.reset()
    with pytest.raises(ck.IllegalActionError):
        strict.step(int(np.flatnonzero(~strict.action_masks())[0]))
    with pytest.raises(TypeError, match=r"opponents\[0\]=.*give a level \(1 to 4\), a cabo_kit.Bot instance or a Bot class"):
        SeatEnv("rush", opponents=[object()])


def test_seat_env_step_takes_an_int_or_a_numpy_integer_and_refuses_every_other_number() -> None:
    from cabo_kit.rl import SeatEnv

    def first_steps(cast: type) -> list[bytes]:
        env = SeatEnv("deluxe", opponents=[1, 1, 1], seat=0, seed=11)
        obs, _ = env.reset(seed=11)
        seen = [obs.tobytes()]
        for _ in range(6):
            obs, _, terminated, _, _ = env.step(cast(int(np.flatnonzero(env.action_masks())[-1])))
            seen.append(obs.tobytes())
            if terminated:
                break
        return seen

    assert first_steps(int) == first_steps(np.int64) == first_steps(np.int32)
    strict = SeatEnv("deluxe", opponents=[1, 1, 1], seat=0, seed=11, illegal="raise")
    strict.reset(seed=11)
    strict.step(int(np.flatnonzero(strict.action_masks())[0]))  # past the set-up look: a draw decision
    legal = int(np.flatnonzero(strict.action_masks())[0])
    masked_out = int(np.flatnonzero(~strict.action_masks())[0])
    for wrong in (True, np.True_, float(legal), str(legal), -1, strict.index.size, masked_out):
        with pytest.raises(ck.IllegalActionError):
            strict.step(wrong)  # type: ignore[arg-type]
    strict.step(legal)  # nothing was played by the refused ones


# ------------------------------------------------------------------ imports


def test_cabo_kit_rl_imports_without_the_rl_libraries_and_says_which_extra_to_install() -> None:
    code = (
        "import sys\n"
        "for name in ('pettingzoo', 'gymnasium', 'pyspiel'):\n"
        "    sys.modules[name] = None  # as if not installed\n"
        "import cabo_kit.rl, cabo_kit.rl.encoding\n"
        "from cabo_kit.rl import encode, policy_bot\n"
        "try:\n"
        "    cabo_kit.rl.aec_env\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
        "try:\n"
        "    cabo_kit.rl.SeatEnv\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    lines = out.strip().splitlines()
    assert len(lines) == 2, out
    assert lines[0].startswith("cabo_kit.rl needs pettingzoo and gymnasium: install the rl extra, pip install 'cabo-kit[rl]'")
    assert lines[1].startswith("cabo_kit.rl needs gymnasium: install the rl extra")


def test_the_encoding_module_imports_no_rl_library() -> None:
    code = ("import sys, cabo_kit.rl.encoding, cabo_kit.rl.policy\n"
            "print(sorted(m for m in ('pettingzoo', 'gymnasium', 'pyspiel', 'torch') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.strip() == "[]"


# ------------------------------------------------------------------ from training to the tournament


def _bot_file(tmp_path: Path, name: str = "policy_bot.py") -> Path:
    from cabo_kit.rl import MLPPolicy, policy_bot

    policy = MLPPolicy.new(ck.Rules.preset("deluxe"), 2, hidden=(16,), seed=3)
    rng = np.random.default_rng(4)
    policy.params[-1] = (rng.normal(0, 0.5, policy.params[-1][0].shape), policy.params[-1][1])
    policy = type(policy)(policy.rules, 2, policy.params)
    return policy_bot(tmp_path / name, policy, name="Learned")


def test_policy_bot_file_plays_its_policy_and_passes_check_bot(tmp_path: Path) -> None:
    path = _bot_file(tmp_path)
    report = ck.check_bot(path, games=2)
    assert report.ok, str(report)
    # In this process: the file's greedy choices are the policy's (float16 weights: the same argmax here).
    from cabo_kit.rl import MLPPolicy

    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    bot = namespace["Learned"]()
    bot.on_game_start(0, 2, ck.Rules.preset("deluxe"))
    assert bot.ours
    layers = namespace["LAYERS"]
    policy = MLPPolicy(ck.Rules.preset("deluxe"), 2, layers)
    for obs, legal, seat, _ in _random_games("deluxe", 5):
        if obs.n_players == 2:
            assert bot.choose(obs, legal) is policy.choose(obs)


def test_policy_bot_refuses_another_encoding_version(tmp_path: Path) -> None:
    path = _bot_file(tmp_path, "old_policy.py")
    path.write_text(path.read_text().replace("'encoding_version': 1,", "'encoding_version': 0,"))
    report = ck.check_bot(path, games=1)
    assert not report.ok
    assert "Learned was trained on cabo-kit's RL encoding version 0, and this cabo-kit encodes version 1" in str(report)


def test_policy_bot_plays_isolated_in_a_class_tournament_with_numpy_and_cabo_kit_only(tmp_path: Path) -> None:
    from cabo_kit.rl import policy_bot
    from cabo_kit.tournament.runner import run_tournament
    from cabo_kit.tournament.store import load_frames

    folder = tmp_path / "class"
    (folder / "bots").mkdir(parents=True)
    _bot_file(folder / "bots", "learned.py")
    # A policy given as source text that fails loudly if any RL library is loaded in its process at play time.
    policy_bot(folder / "bots" / "watchful.py", rules="deluxe", n_players=2, name="Watchful", source=(
        "import sys\n\n\ndef policy(x, mask, observation):\n"
        "    loaded = [m for m in ('pettingzoo', 'gymnasium', 'pyspiel', 'torch') if m in sys.modules]\n"
        "    if loaded:\n        raise RuntimeError(f'RL libraries loaded at play time: {loaded}')\n"
        "    return int(np.flatnonzero(mask)[-1])\n"))
    (folder / "tournament.toml").write_text('presets = ["deluxe"]\ntable_sizes = [2]\ngames = 4\nseed = 3\n'
                                            'reference = ["RandomBot"]\n')
    summary = run_tournament(folder, workers=1, progress=False, out=None)
    games, seats = load_frames(folder)
    assert summary.played == len(games) > 0
    assert set(seats.bot) == {"learned", "watchful", "RandomBot"}
    assert set(seats.status) == {"ok"}, seats[seats.status != "ok"][["bot", "fault"]].to_string()


def test_reinforce_credits_each_decision_with_its_own_rounds_rewards() -> None:
    from cabo_kit.rl.train import _returns, wilson

    assert _returns([0.0, 0.0, 1.0, 0.0, 2.0], [0, 0, 0, 1, 1]) == [1.0, 1.0, 1.0, 2.0, 2.0]
    assert _returns([0.0, 1.0, 2.0], [0, 0, 0]) == [3.0, 3.0, 2.0]
    low, high = wilson(650, 1000)
    assert 0.619 < low < 0.621 and 0.678 < high < 0.680 and wilson(0, 10)[0] == 0.0


def test_policy_bot_source_may_be_indented_and_must_not_rebind_the_files_names(tmp_path: Path) -> None:
    from cabo_kit.rl import policy_bot

    indented = """
        import numpy as np

        def helper(mask):
            return int(np.flatnonzero(mask)[0])

        def policy(x, mask, observation):
            return helper(mask)
    """
    path = policy_bot(tmp_path / "indented.py", source=indented, rules="deluxe", n_players=2, name="Indented")
    assert ck.check_bot(path, games=1).ok
    for bad, name in [("LAYERS = []\ndef policy(x, mask, observation):\n    return 0\n", "LAYERS"),
                      ("import torch as np\ndef policy(x, mask, observation):\n    return 0\n", "np"),
                      ("def policy(x, mask, observation):\n    return 0\nclass Mine:\n    pass\n", "Mine")]:
        with pytest.raises(ValueError, match=f"source binds '{name}', a name the bot file already uses"):
            policy_bot(tmp_path / "bad.py", source=bad, rules="deluxe", n_players=2, name="Mine")
    with pytest.raises(ValueError, match="source must define a top-level function policy"):
        policy_bot(tmp_path / "bad.py", source="def inner():\n    def policy(x, mask, observation):\n        return 0\n",
                   rules="deluxe", n_players=2)


def test_policy_bot_knows_its_table_by_its_rules_and_names_an_action_outside_the_mask(tmp_path: Path) -> None:
    from dataclasses import replace

    from cabo_kit.rl import policy_bot

    path = policy_bot(tmp_path / "careless.py", rules="deluxe", n_players=2, name="Careless",
                      source="def policy(x, mask, observation):\n    return int(np.flatnonzero(~mask)[0])\n")
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    bot = namespace["Careless"]()
    deluxe = ck.Rules.preset("deluxe")
    changed = replace(deluxe, max_turns=(deluxe.max_turns or 100) + 7)  # same preset name, another rule
    bot.on_game_start(0, 2, changed)
    assert changed.name == "deluxe" and not bot.ours
    bot.on_game_start(0, 2, deluxe)
    assert bot.ours
    obs = ck.Game(deluxe, seed=1, n_players=2).observation(0)
    with pytest.raises(ck.IllegalActionError, match=r"action \d+ \(.*\) is not legal for seat 0 now; legal: look"):
        bot.choose(obs, obs.legal_actions)


def test_gymnasium_make_finds_the_seat_env_without_importing_gymnasium_early() -> None:
    code = (
        "import sys\nimport cabo_kit.rl\nassert 'gymnasium' not in sys.modules\n"
        "import gymnasium\n"
        "env = gymnasium.make('cabo_kit.rl.gymnasium_env:cabo_kit/SeatEnv-v0', opponents=[1])\n"
        "print(type(env.unwrapped).__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.split() == ["SeatEnv"]
    code = ("import gymnasium\nimport cabo_kit.rl\n"
            "print(type(gymnasium.make('cabo_kit/SeatEnv-v0', opponents=[1, 1]).unwrapped).__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.split() == ["SeatEnv"]


class _HookLog(ck.bots.RandomBot):
    """A RandomBot that writes down each hook call it gets (what SeatEnv must call, when, with what)."""

    def __init__(self, log: list) -> None:
        super().__init__()
        self.log = log

    def on_game_start(self, seat: int, n_players: int, rules: ck.Rules) -> None:
        self.log.append(("game", seat, n_players))

    def on_round_start(self, observation: ck.Observation) -> None:
        self.log.append(("round", observation.seat, observation.round, len(observation.hands[observation.seat])))

    def on_round_end(self, result: object) -> None:
        self.log.append(("end", tuple(result.scores)))  # type: ignore[attr-defined]

    def on_game_end(self, totals: list[int], winners: list[int]) -> None:
        self.log.append(("over", tuple(totals), tuple(winners)))


def _seat_env_digest(preset: str, opponents: list, seat: int | None, reward: str, seed: int, log: list) -> tuple[str, int]:
    """The sha256 of seeded SeatEnv episodes: every observation, mask, reward, flag, info, seat and hook call."""
    import hashlib

    from cabo_kit.rl import SeatEnv

    env = SeatEnv(preset, opponents=opponents, seat=seat, seed=seed, reward=reward)
    rng = np.random.default_rng(seed)
    digest = hashlib.sha256()
    steps = 0
    for _ in range(4):
        obs, info = env.reset()
        digest.update(obs.tobytes() + repr((sorted(info.items()), env.seat)).encode())
        while True:
            mask = env.action_masks()
            digest.update(np.packbits(mask).tobytes())
            legal = np.flatnonzero(mask)
            obs, reward_, terminated, truncated, info = env.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
            digest.update(obs.tobytes() + repr((reward_, terminated, truncated, sorted(info.items()))).encode())
            if terminated:
                break
    digest.update(repr(log).encode())
    return digest.hexdigest()[:16], steps


# Pinned with SeatEnv as it was before its speed work (commit c2d8d9c): what a learner receives must not move. Like
# tests/test_rl_encoding_reference.py's digests these also depend on the engine playing the games as it does.
SEAT_ENV_DIGESTS = {
    "deluxe": ("477ae3ae15f5861e", 93),
    "deluxe round": ("056c22ad2fd562d9", 69),
    "rush": ("4c081f019eebb008", 102),
    "traveller round": ("0cbc8df73b623f3d", 92),
}


@pytest.mark.parametrize("case", sorted(SEAT_ENV_DIGESTS))
def test_seeded_seat_env_episodes_stay_what_they_were(case: str) -> None:
    log: list = []
    preset, opponents, seat, reward, seed = {
        "deluxe": ("deluxe", [1, 1, 1], 0, "game", 11),
        "deluxe round": ("deluxe", [2, _HookLog(log), 1], None, "round", 12),
        "rush": ("rush", [ck.bots.GreedyBot, 1], 1, "game", 13),
        "traveller round": ("traveller", [3, 2, _HookLog(log)], 2, "round", 14),
    }[case]
    result = _seat_env_digest(preset, opponents, seat, reward, seed, log)
    if reward == "round":  # the hook-logging bot sits at these tables: 4 games, each round started and ended
        kinds = [entry[0] for entry in log]
        assert kinds.count("game") == kinds.count("over") == 4 and kinds.count("round") == kinds.count("end") > 4
    assert result == SEAT_ENV_DIGESTS[case], (case, result)


@pytest.mark.parametrize("preset,levels,seat", [("deluxe", [2, 3, 1], 1), ("rush", [3, 2], 0), ("traveller", [1, 3], 2)])
def test_seat_env_plays_the_game_a_stepper_plays(preset: str, levels: list[int], seat: int) -> None:
    from cabo_kit.bots.levels import by_level
    from cabo_kit.rl import SeatEnv

    env = SeatEnv(preset, opponents=levels, seat=seat, seed=7)
    for _ in range(2):
        obs, _ = env.reset()
        first = []
        while True:
            action = int(env.action_masks().nonzero()[0][-1])  # the last legal action: a real game, rounds end
            first.append(action)
            obs, reward, terminated, truncated, info = env.step(action)
            if terminated:
                break
        game = ck.Game(env.rules, env.game.seed, env.n_players)
        others = [s for s in range(env.n_players) if s != seat]
        stepper = ck.Stepper(game, {s: by_level(level) for s, level in zip(others, levels)}, viewer=seat, game_hooks=True)
        stepper.advance()
        for action in first:
            stepper.apply(env.index.action(action, seat), seat)
            stepper.advance()
        assert game.is_over and game.history == env.game.history and game.totals == env.game.totals


def test_reinforce_credit_follows_the_envs_reward_and_both_envs_share_the_reward_formula() -> None:
    import warnings

    from cabo_kit.rl import MLPPolicy, SeatEnv
    from cabo_kit.rl.rewards import game_reward, round_reward
    from cabo_kit.rl.train import reinforce

    assert round_reward((10, 4, 7), 1) == pytest.approx(((10 + 7) / 2 - 4) / 10) and game_reward((0, 2), 2) == 1.0
    policy = MLPPolicy.new(ck.Rules.preset("rush"), 2, hidden=(4,), seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the default pairs with the env's reward: no warning
        reinforce(policy, SeatEnv("rush", opponents=[1], seed=1), games=2, batch=2)
        reinforce(policy, SeatEnv("rush", opponents=[1], seed=1, reward="round"), games=2, batch=2)
    with pytest.warns(UserWarning, match="only the last round's decisions get credit"):
        reinforce(policy, SeatEnv("rush", opponents=[1], seed=1), games=1, batch=1, credit="round")
    with pytest.raises(ValueError, match="credit='rounds'"):
        reinforce(policy, SeatEnv("rush", opponents=[1], seed=1), games=1, credit="rounds")
