"""The Rules object: presets (RULES.md §2 table), replace, validation, plain-data round trips, player counts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cabo_kit import Card, Game, Rules, RulesError
from cabo_kit.rules import PRESETS

# §2, row by row, as rules fields.
PRESET_TABLE: dict[str, dict[str, Any]] = {
    "deluxe": dict(
        deck="deluxe", jokers=0, double_deck_from=6, min_players=2, max_players=6, hand_size=4, initial_peeks=2,
        peek_choice=True, cabo_timing="instead", discard_draw_face_up=True, discard_draw_may_discard=False,
        multi_exchange=True, multi_exchange_penalty_at=3, power_timing="before_discard", snapping=False,
        deck_out="end_round", caller_win_keeps_total=False, caller_win_bonus=0, caller_loss_penalty=10,
        ties_to_caller=True, kamikaze=True, royal_roulette=False, reset_at_100=True, game_end="over",
        end_score=100, second_exact_100_ends=False, next_start="lowest",
    ),
    "rush": dict(
        deck="standard", jokers=0, double_deck_from=None, min_players=2, max_players=6, hand_size=4,
        initial_peeks=2, peek_choice=False, cabo_timing="instead", discard_draw_face_up=False,
        discard_draw_may_discard=False, multi_exchange=False, power_timing="before_discard", snapping=True,
        snap_give="mandatory", snap_penalty_own=1, snap_penalty_other=1, deck_out="reshuffle",
        empty_hand="end_now", caller_win_keeps_total=False, caller_win_bonus=-3, caller_loss_penalty=5,
        ties_to_caller=True, kamikaze=False, royal_roulette=False, reset_at_100=False, game_end="reaches",
        end_score=100, next_start="winning_caller",
    ),
    "traveller": dict(
        deck="standard", jokers=2, double_deck_from=None, min_players=3, max_players=6, hand_size=4,
        initial_peeks=2, peek_choice=False, cabo_timing="end_of_turn", discard_draw_face_up=False,
        discard_draw_may_discard=True, multi_exchange=False, power_timing="after_snap", snapping=True,
        snap_give="optional", snap_penalty_own=1, snap_penalty_other=2, deck_out="reshuffle",
        empty_hand="final_turns", caller_win_keeps_total=True, caller_win_bonus=-5, caller_loss_penalty=0,
        caller_bonus_on_empty_hand=False, ties_to_caller=True, kamikaze=False, royal_roulette=True,
        reset_at_100=False, game_end="over", end_score=100, second_exact_100_ends=False, next_start="lowest",
    ),
}


@pytest.mark.parametrize("preset, field, value", [(p, f, v) for p, row in PRESET_TABLE.items() for f, v in row.items()])
def test_preset_fields_follow_the_section_2_table(preset: str, field: str, value: Any) -> None:
    assert getattr(Rules.preset(preset), field) == value


POWER_TABLE = {
    # §2 powers row: value -> power for a card drawn from the deck
    "deluxe": {7: "peek", 8: "peek", 9: "spy", 10: "spy", 11: "swap", 12: "swap", 13: None, 0: None, 6: None},
    "rush": {7: "peek", 8: "peek", 9: "spy", 10: "spy", 11: "swap", 12: "swap", 13: "peek_swap", 0: None, 6: None},
    "traveller": {7: "peek", 8: "peek", 9: "spy", 10: "spy", 11: "swap", 12: "swap", 13: "spy_swap", 0: None},
}
STANDARD = {0: "KH", 6: "6D", 7: "7S", 8: "8H", 9: "9C", 10: "10D", 11: "JS", 12: "QH", 13: "KS"}


@pytest.mark.parametrize("preset, value, power", [(p, v, w) for p, row in POWER_TABLE.items() for v, w in row.items()])
def test_power_of(preset: str, value: int, power: str | None) -> None:
    card = Card.parse(value) if preset == "deluxe" else Card.parse(STANDARD[value])
    assert Rules.preset(preset).power_of(card) == power


def test_joker_and_red_king_have_no_power() -> None:
    rules = Rules.preset("traveller")
    assert rules.power_of(Card.parse("JOKER")) is None
    assert rules.power_of(Card.parse("KD")) is None and rules.power_of(Card.parse("KC")) == "spy_swap"


def test_preset_names_and_unknown_preset_names_the_choices() -> None:
    assert set(PRESETS) == {"deluxe", "rush", "traveller"}
    for name in PRESETS:
        assert Rules.preset(name).name == name
    with pytest.raises(RulesError, match="unknown preset 'poker': choose one of 'deluxe', 'rush', 'traveller'"):
        Rules.preset("poker")
    with pytest.raises(RulesError, match="choose one of"):
        Rules.preset(None)  # type: ignore[arg-type]


def test_preset_with_overrides_and_replace() -> None:
    # §2 "a teacher can mix them": replace keeps the name and changes only the given fields
    r = Rules.preset("deluxe", hand_size=6, initial_peeks=3)
    assert (r.name, r.hand_size, r.initial_peeks, r.multi_exchange) == ("deluxe", 6, 3, True)
    assert r.differences() == {"hand_size": 6, "initial_peeks": 3}
    base = Rules.preset("rush")
    assert base.replace(snap_penalty_own=2).snap_penalty_own == 2
    assert base.snap_penalty_own == 1  # frozen: the preset itself is untouched
    assert Rules.preset("traveller").replace() == Rules.preset("traveller")


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"handsize": 6}, "unknown rules field 'handsize' (did you mean 'hand_size'?)"),
        ({"zzz": 1}, "unknown rules field 'zzz': fields are name, deck"),
    ],
)
def test_replace_unknown_field(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(RulesError) as err:
        Rules.preset("deluxe").replace(**changes)
    assert message in str(err.value)


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("deck", "tarot", "choose one of 'deluxe', 'standard'"),
        ("cabo_timing", "never", "choose one of 'instead', 'end_of_turn'"),
        ("power_timing", "x", "choose one of 'before_discard', 'after_snap'"),
        ("snap_give", "x", "choose one of 'mandatory', 'optional'"),
        ("deck_out", "x", "choose one of 'end_round', 'reshuffle'"),
        ("empty_hand", "x", "choose one of 'end_now', 'final_turns'"),
        ("game_end", "x", "choose one of 'over', 'reaches'"),
        ("next_start", "x", "choose one of 'lowest', 'winning_caller'"),
        ("hand_size", 0, "hand_size=0 must be a whole number >= 1"),
        ("hand_size", 2.5, "must be a whole number"),
        ("hand_size", True, "must be a whole number"),
        ("initial_peeks", 5, "initial_peeks=5 is more than hand_size=4"),
        ("jokers", 2, "jokers need deck='standard'"),
        ("min_players", 1, "must be a whole number >= 2"),
        ("min_players", 7, "is more than max_players"),
        ("max_turns", 0, "max_turns=0 must be a whole number >= 1"),
        ("max_rounds", 0, "max_rounds=0 must be a whole number >= 1"),
        ("snap_penalty_other", -1, "must be a whole number >= 0"),
        ("powers", ((7, "fly"),), "power 'fly' is not known"),
        ("powers", ((14, "peek"),), "values with powers are 0..13"),
        ("powers", (7,), "must be (value, power) pairs"),
        ("hand_size", 18, "need more cards than the deck has"),
        # Yes/no fields take booleans only: the string "no" is truthy and would switch snapping on.
        ("snapping", "no", "snapping='no' must be True or False"),
        ("kamikaze", "false", "kamikaze='false' must be True or False"),
        ("snapping", None, "snapping=None must be True or False"),
        ("multi_exchange", 1, "multi_exchange=1 must be True or False"),
        ("caller_win_bonus", "x", "caller_win_bonus='x' must be a whole number (it may be negative)"),
        ("caller_loss_penalty", 2.5, "must be a whole number"),
        ("double_deck_from", 1, "double_deck_from=1 must be a number of players >= 2, or None"),
        ("name", 7, "name=7 must be a string"),
        ("max_players", 65, "cabo-kit seats at most 64 players"),
    ],
)
def test_invalid_values_are_refused_with_a_clear_message(field: str, value: Any, message: str) -> None:
    with pytest.raises(RulesError) as err:
        Rules.preset("deluxe").replace(**{field: value})
    assert message in str(err.value)


@pytest.mark.parametrize(
    "rules",
    [
        Rules.preset("deluxe"), Rules.preset("rush"), Rules.preset("traveller"),
        Rules.preset("traveller", hand_size=6, initial_peeks=3, min_players=2),
        Rules.preset("deluxe", powers=((13, "peek_swap"),), second_exact_100_ends=True),
    ],
)
def test_to_dict_from_dict_round_trip(rules: Rules) -> None:
    data = rules.to_dict()
    assert Rules.from_dict(data) == rules
    assert Rules.from_dict(json.loads(json.dumps(data))) == rules
    back = Rules.from_dict(json.loads(json.dumps(data)))
    assert back.power_of(Card.parse(7)) == rules.power_of(Card.parse(7))


def test_from_dict_unknown_key() -> None:
    data = Rules.preset("rush").to_dict()
    data["snapp"] = True
    with pytest.raises(RulesError, match="unknown rules field 'snapp'"):
        Rules.from_dict(data)


@pytest.mark.parametrize(
    "preset, ok, bad",
    [
        ("deluxe", [2, 3, 4, 5, 6], [1, 7]),    # §2: 2-5, 6 with two decks
        ("rush", [2, 3, 4, 5, 6], [1, 7]),      # 2-6 (Decided here)
        ("traveller", [3, 4, 5, 6], [1, 2, 7]),  # 3-6; 2 only as an option
    ],
)
def test_check_players(preset: str, ok: list[int], bad: list[int]) -> None:
    rules = Rules.preset(preset)
    for n in ok:
        rules.check_players(n)
        assert len(Game(rules, 1, n).know.hands) == n
    for n in bad:
        with pytest.raises(RulesError, match=f"{preset} is for {rules.min_players} to {rules.max_players} players"):
            rules.check_players(n)
        with pytest.raises(RulesError):
            Game(rules, 1, n)


def test_traveller_two_players_as_teaching_option() -> None:
    # §2: "2 allowed as a teaching option"; the error says how
    with pytest.raises(RulesError, match=r"replace\(min_players=2\)"):
        Rules.preset("traveller").check_players(2)
    rules = Rules.preset("traveller").replace(min_players=2)
    rules.check_players(2)
    assert Game(rules, 1, 2).n == 2


def test_six_deluxe_players_play_with_two_decks() -> None:
    game = Game(Rules.preset("deluxe"), 3, 6)
    assert len(game.know.faces) == 104
    assert sum(c.value for c in game.know.faces) == 676


def test_non_integer_player_count() -> None:
    with pytest.raises(RulesError):
        Rules.preset("rush").check_players("4")  # type: ignore[arg-type]


def test_game_requires_a_rules_object() -> None:
    with pytest.raises(TypeError, match="Rules.preset"):
        Game("deluxe", 1, 2)  # type: ignore[arg-type]
