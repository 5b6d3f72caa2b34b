"""The results store: frames per the contract, retries are not duplicates, records round-trip and are checked."""

from __future__ import annotations

import sqlite3
import zlib
from pathlib import Path

import pytest

import cabo_kit as ck
from cabo_kit.tournament.store import COUNTS, SCHEMA_VERSION, GameRow, SeatRow, Store, StoreError, game_id, load_frames, load_record, load_rejected

SEAT_COLUMNS = ["game_id", "deal_id", "game_index", "preset", "rules", "table_size", "seat", "bot", "version", "total",
                "rank", "win", "status", "fault", *COUNTS, "decisions", "cpu_s", "cpu_hist"]
GAME_COLUMNS = ["game_id", "deal_id", "game_index", "preset", "rules", "table_size", "deal_seed", "status", "n_rounds",
                "record_sha256", "seconds"]


def _game(store: Store, seed: int, order: str, status: str = "ok") -> tuple[str, ck.GameRecord]:
    rec = ck.play_game([ck.bots.GreedyBot(), ck.bots.RandomBot()], ck.Rules.preset("rush"), seed=seed)
    gid = game_id("rush", "{}", 2, f"r0:{seed}", 0, [("GreedyBot", "g1"), ("RandomBot", "r1")])
    rank = rec.ranking()
    win = [1 / len(rec.winners) if s in rec.winners else 0.0 for s in range(2)]
    seats = [SeatRow(s, name, ver, rec.totals[s], rank[s], win[s], "error" if (status != "ok" and s == 1) else "ok",
                     "Traceback: boom" if (status != "ok" and s == 1) else "", {"rounds": len(rec.rounds), "cabo_calls": s})
             for s, (name, ver) in enumerate([("GreedyBot", "g1"), ("RandomBot", "r1")])]
    row = GameRow(gid, f"deal{seed}", order, "rush", "{}", 2, seed, 0, status, len(rec.rounds), rec.to_json().encode())
    assert store.add_game(row, seats)
    return gid, rec


def test_frames_follow_the_contract_and_records_round_trip(tmp_path: Path) -> None:
    db = tmp_path / "results.sqlite"
    with Store(db) as store:
        g2, rec2 = _game(store, 2, "00002")
        g1, rec1 = _game(store, 1, "00001", status="fault")
        store.set_rejected([("bad.py", "SyntaxError: invalid syntax (bad.py, line 3)")])
    games, seats = load_frames(db)
    assert list(games.columns) == GAME_COLUMNS and list(seats.columns) == SEAT_COLUMNS
    assert list(games.game_id) == [g1, g2] and list(games.game_index) == [0, 1]  # schedule order, not insert order
    assert list(games.status) == ["fault", "ok"]
    assert seats.dtypes["total"].kind == "i" and seats.dtypes["win"].kind == "f" and seats.dtypes["rounds"].kind == "i"
    assert list(seats.total[seats.game_id == g1]) == rec1.totals
    assert list(seats.status[seats.game_id == g1]) == ["ok", "error"]
    assert seats.fault[seats.game_id == g1].iloc[1] == "Traceback: boom"
    assert list(seats.cabo_calls[seats.game_id == g2]) == [0, 1]
    assert load_record(db, g1).to_json() == rec1.to_json()
    assert load_record(tmp_path, g2).winners == rec2.winners  # a folder works too
    rej = load_rejected(db)
    assert list(rej.columns) == ["file", "reason"] and rej.file.tolist() == ["bad.py"]


def test_a_retried_write_is_not_a_duplicate_and_scheduled_limits_the_frames(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    with Store(db) as store:
        g1, _ = _game(store, 1, "00001")
        with pytest.raises(AssertionError):
            _game(store, 1, "00001")  # add_game returns False the second time
        g2, _ = _game(store, 2, "00002")
        assert store.existing_ids() == {g1, g2}
        store.set_scheduled([g2])
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 2
    assert con.execute("SELECT COUNT(*) FROM seats").fetchone()[0] == 4
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.close()
    assert load_frames(db)[0].game_id.tolist() == [g2]
    assert len(load_frames(db, current_only=False)[0]) == 2
    with Store(db) as store:  # an adaptive run adds its next batch to the schedule
        store.add_scheduled([g1, g2])
    assert sorted(load_frames(db)[0].game_id) == sorted([g1, g2])


def test_a_corrupt_record_is_reported_with_the_game_and_the_fix(tmp_path: Path) -> None:
    db = tmp_path / "results.sqlite"
    with Store(db) as store:
        gid, rec = _game(store, 3, "00001")
    con = sqlite3.connect(db)
    con.execute("UPDATE games SET record=? WHERE game_id=?", (zlib.compress(rec.to_json().encode()[:-5] + b"xxxxx"), gid))
    con.commit()
    with pytest.raises(StoreError, match=rf"record of game {gid} is corrupt \(its sha256 does not match\).*delete_game"):
        load_record(db, gid)
    con.execute("UPDATE games SET record=? WHERE game_id=?", (b"not zlib", gid))
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="not zlib data"):
        load_record(db, gid)
    with Store(db) as store:
        store.delete_game(gid)
        assert store.existing_ids() == set()


def test_missing_store_and_unknown_game_say_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="cabo-kit tournament run"):
        load_frames(tmp_path / "results.sqlite")
    with Store(tmp_path / "results.sqlite"):
        pass
    with pytest.raises(StoreError, match="no game 'nope'"):
        load_record(tmp_path / "results.sqlite", "nope")


def test_game_ids_change_with_any_part_of_the_game() -> None:
    base = ("rush", "{}", 2, "r0:a", 0, [("a", "1"), ("b", "2")])
    ids = {game_id(*base)}
    for i, alt in enumerate(["deluxe", '{"hand_size":6}', 3, "r1:a", 1, [("b", "2"), ("a", "1")]]):
        args = list(base)
        args[i] = alt
        ids.add(game_id(*args))
    assert len(ids) == 7


STORE_V1 = Path(__file__).parent / "data" / "store_v1"


def test_a_store_written_before_issue_17_opens_and_keeps_every_game(tmp_path: Path) -> None:
    # tests/data/store_v1/results.sqlite was written by cabo-kit at commit 8b557dd (schema 1), from
    # tests/tournament_bots' steady.py, raises_late.py and broken_syntax.py and its tournament.toml:
    #   PYTHONPATH=<checkout at 8b557dd> python -c "from cabo_kit.tournament.runner import run_tournament; run_tournament(DIR, workers=1)"
    # 6 rush games (4 with a fault), 1 rejected file. Opened on a copy: the writer's open may write into it.
    from cabo_kit.tournament.ratings import fit_elo

    db = tmp_path / "results.sqlite"
    db.write_bytes((STORE_V1 / "results.sqlite").read_bytes())
    with Store(db) as store:  # the writer's open: checks the file
        assert len(store.existing_ids()) == 6
    con = sqlite3.connect(db)
    assert con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == str(SCHEMA_VERSION)
    con.close()
    games, seats = load_frames(tmp_path)
    assert len(games) == 6 and (games.status == "fault").sum() == 4 and len(seats) == 12
    assert sorted(seats.bot.unique()) == ["RandomBot", "raises_late", "steady"]
    assert load_rejected(db).file.tolist() == ["broken_syntax.py"]
    for gid in games.game_id:  # every record still reads and matches its sha256
        assert load_record(db, gid).totals == seats[seats.game_id == gid].sort_values("seat").total.tolist()
    board = fit_elo(seats)
    assert sorted(board.bot) == ["RandomBot", "raises_late", "steady"]
    assert board.set_index("bot").elo["steady"] > board.set_index("bot").elo["raises_late"]


def test_a_full_disk_is_named_as_such_and_the_store_goes_on(tmp_path: Path) -> None:
    db = tmp_path / "results.sqlite"
    with Store(db) as store:
        kept, _ = _game(store, 1, "00001")
        pages = store.con.execute("PRAGMA page_count").fetchone()[0]
        store.con.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full: no page more
        big = GameRow("big", "d", "00002", "rush", "{}", 2, 2, 0, "ok", 1, bytes(range(256)) * 4000)
        with pytest.raises(StoreError) as caught:
            store.add_game(big, [SeatRow(0, "a", "v", 0, 1, 1.0, "ok", "", {})])
        message = str(caught.value)
        assert f"the disk holding {db} is full" in message and "free some space" in message
        assert "no transaction" not in message
        assert not store.con.in_transaction and store.existing_ids() == {kept}  # nothing half-written
        store.con.execute(f"PRAGMA max_page_count = {10 ** 6}")  # space freed: the store goes on
        store.set_rejected([("x.py", "bad")])
        store.delete_game(kept)
        assert store.existing_ids() == set()


def test_a_store_of_a_newer_cabo_kit_is_refused_and_left_byte_identical(tmp_path: Path) -> None:
    db = tmp_path / "results.sqlite"
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    con.execute("INSERT INTO meta VALUES ('schema_version', '99')")  # and none of this cabo-kit's tables
    con.commit()
    con.close()
    before = db.read_bytes()
    with pytest.raises(StoreError, match=r"written by a newer cabo-kit \(schema 99\); upgrade cabo-kit"):
        Store(db)
    assert db.read_bytes() == before
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()  # its connection was closed


def test_a_store_without_a_recorded_seed_is_read_from_its_games_then_records_it(tmp_path: Path) -> None:
    """tests/data/store_v1 (seed 17, written before stores recorded their seed): another seed is refused, naming
    17 and changing nothing; seed 17 goes on with its games and records the seed."""
    import shutil

    from cabo_kit.tournament.config import ConfigError
    from cabo_kit.tournament.runner import run_tournament

    folder = tmp_path / "old"
    shutil.copytree(STORE_V1, folder)
    (folder / "bots").mkdir()
    shutil.copy(Path(__file__).parent / "tournament_bots" / "steady.py", folder / "bots")
    toml = (folder / "tournament.toml").read_text()
    (folder / "tournament.toml").write_text(toml.replace("seed = 17", "seed = 18"))
    db = folder / "results.sqlite"
    with pytest.raises(ConfigError) as caught:
        run_tournament(folder, workers=1, progress=False, out=None)
    assert str(caught.value) == (
        f"{db} holds games of seed 17; {folder / 'tournament.toml'} says seed = 18: set seed = 17 to go on with them, "
        f"or move results.sqlite aside (mv {db} {folder / 'results-seed-17.sqlite'}) to start over")
    con = sqlite3.connect(db)
    assert con.execute("SELECT value FROM meta WHERE key='seed'").fetchone() is None
    assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 6
    con.close()
    (folder / "tournament.toml").write_text(toml)
    assert run_tournament(folder, workers=1, progress=False, out=None).played == 2  # its own 2 games, 6 kept
    con = sqlite3.connect(db)
    assert con.execute("SELECT value FROM meta WHERE key='seed'").fetchone() == ("17",)
    assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 8
    con.close()
