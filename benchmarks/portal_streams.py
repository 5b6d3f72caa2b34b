"""How fast the portal's live leaderboard reaches 200 open pages when new games are stored.

Sets up a class of ``--students`` (default 200) in a temporary folder, each with a ``bots/<id>.py``
and a store of ``--games`` made-up 4-player games among them (the versions of those files, so
they are on the board), starts ``cabo-kit serve`` on it (real uvicorn, the live board fitting in
processes of its own), signs every student in and opens one Server-Sent Events stream each (the
leaderboard page's ``/live``). Then, ``--rounds`` times, it stores a few games (one transaction each,
as the runner does) and times, for every stream, from the last game's commit to the stream's
first board with the new count. It prints the median, 95th percentile and maximum of those
latencies, and the spread of one broadcast over the 200 streams; then the time of a student's
page (``GET /``) while the streams are open.

The issue's target: every open page updated within 2 s of new games being stored. The board's
point estimates are refitted at most every 2 s (the issue's cadence), so a game stored just after
a fit waits for the next one: the latency is up to 2 s plus the poll (0.25 s) and the fit.
``--flow RATE`` then stores games steadily, RATE a second for ``--flow-seconds``, as a running
tournament does, and prints each game's latency to the last of the 200 streams.

    .venv/bin/python benchmarks/portal_streams.py
    .venv/bin/python benchmarks/portal_streams.py --students 30 --games 5000 --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import hashlib
import http.client
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cabo_kit.tournament.store import GameRow, SeatRow, Store  # noqa: E402

GAMES = re.compile(rb'"games":(\d+),"note"')


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def make_class(folder: Path, students: int, games: int, seed: int) -> tuple[Path, dict[str, str]]:
    ids = [f"s{i:03d}" for i in range(students)]
    roster = folder.parent / "roster.csv"
    roster.write_text("id,name\n" + "".join(f"{sid},Student {sid}\n" for sid in ids))
    (folder / "bots").mkdir(parents=True)
    versions = {}
    for sid in ids:
        data = f"# {sid}'s bot (a stand-in: this benchmark plays no game)\n".encode()
        (folder / "bots" / f"{sid}.py").write_bytes(data)
        versions[sid] = hashlib.sha256(data).hexdigest()[:12]
    store = Store(folder / "results.sqlite")
    try:
        add_games(store, versions, games, seed, 0, one_transaction=True)
    finally:
        store.close()
    return roster, versions


def add_games(store: Store, versions: dict[str, str], n: int, seed: int, first: int, one_transaction: bool = False) -> None:
    rng = random.Random(seed + first)
    bots = sorted(versions)
    strength = {b: i / len(bots) * 3 for i, b in enumerate(bots)}

    def rows(i: int) -> tuple[GameRow, list[SeatRow]]:
        table = rng.sample(bots, 4)
        order = sorted(table, key=lambda b: -(strength[b] + rng.gauss(0, 1)))
        seats = [SeatRow(s, b, versions[b], order.index(b), order.index(b) + 1, float(order.index(b) == 0), "ok", "")
                 for s, b in enumerate(table)]
        return GameRow(f"g{i:07d}", f"d{i // 4}", f"{i // 4:06d}:x:{i % 4}", "rush", "{}", 4, i, i % 4, "ok", 3, b"{}"), seats

    if not one_transaction:
        for i in range(first, first + n):
            store.add_game(*rows(i))
        return
    from cabo_kit.tournament.store import _GAME_COLUMNS, _SEAT_COLUMNS, COUNTS

    con = store.con
    con.execute("BEGIN")
    for i in range(first, first + n):
        g, seats = rows(i)
        con.execute(f"INSERT INTO games ({_GAME_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (g.game_id, g.deal_id, g.order_key, g.preset, g.rules, g.table_size, g.deal_seed, g.rotation,
                     g.status, g.n_rounds, b"x", "0", 0.1))
        con.executemany(f"INSERT INTO seats ({_SEAT_COLUMNS}) VALUES ({','.join('?' * (12 + len(COUNTS)))})",
                        [(g.game_id, s.seat, s.bot, s.version, s.total, s.rank, s.win, s.status, s.fault,
                          *([0] * len(COUNTS)), None, None, None) for s in seats])
    con.execute("COMMIT")


def sign_in(port: int, link: str) -> str:
    con = http.client.HTTPConnection("127.0.0.1", port)
    con.request("GET", link.split(f":{port}", 1)[1])
    response = con.getresponse()
    cookie = response.getheader("set-cookie") or ""
    con.close()
    return cookie.split(";", 1)[0]


class Reader:
    """One open stream: the games count of each board it received, and when."""

    def __init__(self) -> None:
        self.seen: list[tuple[float, int]] = []
        self.buffer = b""

    async def follow(self, port: int, cookie: str, ready: asyncio.Event, count: list[int], stored: int = 0) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET /live HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\nAccept: text/event-stream\r\n\r\n".encode())
        await writer.drain()
        first = True
        try:
            while True:
                chunk = await reader.read(65536)
                if not chunk:
                    return
                now = time.perf_counter()
                self.buffer = self.buffer[-200:] + chunk
                for m in GAMES.finditer(self.buffer):
                    self.seen.append((now, int(m.group(1))))
                self.buffer = self.buffer[-30:] if GAMES.search(self.buffer) else self.buffer
                if first and self.seen and self.seen[-1][1] >= stored:  # the board of the games stored before
                    first = False
                    count[0] += 1
                    if count[0] == count[1]:
                        ready.set()
        finally:
            writer.close()

    def first_at_least(self, games: int) -> float | None:
        return next((t for t, g in self.seen if g >= games), None)


async def measure(port: int, cookies: list[str], store_path: Path, versions: dict[str, str], start_games: int,
                  rounds: int, per_round: int, seed: int, page_cookie: str, flow: float = 0.0,
                  flow_seconds: float = 20.0) -> None:
    readers = [Reader() for _ in cookies]
    ready = asyncio.Event()
    count = [0, len(cookies)]
    tasks = [asyncio.create_task(r.follow(port, c, ready, count, start_games)) for r, c in zip(readers, cookies)]
    await asyncio.wait_for(ready.wait(), 300)
    # (the server's first fit reads every stored game: on busy cores it can end after the streams open)
    print(f"{len(cookies)} streams open, each with the board of the {start_games} games stored before")
    total = start_games
    latencies: list[float] = []
    spreads: list[float] = []
    store = Store(store_path)
    try:
        for r in range(rounds):
            await asyncio.sleep(random.Random(seed + r).uniform(2.0, 4.0))  # a game lands anywhere in the 2 s cadence
            add_games(store, versions, per_round, seed, total)  # a few ms: the streams' reading waits that long
            stored = time.perf_counter()
            total += per_round
            deadline = stored + 60
            while time.perf_counter() < deadline and any(x.first_at_least(total) is None for x in readers):
                await asyncio.sleep(0.02)
            got = [x.first_at_least(total) for x in readers]
            arrived = [t - stored for t in got if t is not None]
            missing = sum(t is None for t in got)
            latencies += arrived
            spreads.append(max(arrived) - min(arrived))
            print(f"round {r + 1}: {per_round} games stored; all {len(arrived)} streams updated in "
                  f"{min(arrived):.2f}..{max(arrived):.2f} s{f'; {missing} never' if missing else ''}")
    finally:
        store.close()
    print(f"latency from the last game's commit to each stream's new board, over {len(latencies)} updates: "
          f"median {statistics.median(latencies):.2f} s, p95 {percentile(latencies, 0.95):.2f} s, "
          f"max {max(latencies):.2f} s; one broadcast reaches all streams within {max(spreads) * 1000:.0f} ms")
    if flow:
        latencies = []
        stored_at: list[tuple[int, float]] = []
        store = Store(store_path)
        try:
            end = time.perf_counter() + flow_seconds
            while time.perf_counter() < end:
                add_games(store, versions, 1, seed, total)
                total += 1
                stored_at.append((total, time.perf_counter()))
                await asyncio.sleep(1.0 / flow)
        finally:
            store.close()
        deadline = time.perf_counter() + 30
        while time.perf_counter() < deadline and any(x.first_at_least(total) is None for x in readers):
            await asyncio.sleep(0.05)
        for n, t in stored_at:
            got = [x.first_at_least(n) for x in readers]
            if all(g is not None for g in got):
                latencies.append(max(g for g in got if g is not None) - t)
        print(f"steady flow of {flow:g} games/s for {flow_seconds:g} s ({len(stored_at)} games): from each game's "
              f"commit to the last of {len(readers)} streams showing it: median {statistics.median(latencies):.2f} s, "
              f"p95 {percentile(latencies, 0.95):.2f} s, max {max(latencies):.2f} s "
              f"({len(stored_at) - len(latencies)} never shown)")
    times = []
    for _ in range(60):
        t0 = time.perf_counter()
        await asyncio.to_thread(get_page, port, page_cookie)
        times.append((time.perf_counter() - t0) * 1000)
        await asyncio.sleep(0.05)
    print(f"a student's page (GET /) with {len(cookies)} streams open: median {statistics.median(times):.0f} ms, "
          f"p95 {percentile(times, 0.95):.0f} ms")
    for t in tasks:
        t.cancel()


def get_page(port: int, cookie: str) -> None:
    con = http.client.HTTPConnection("127.0.0.1", port)
    con.request("GET", "/", headers={"Cookie": cookie})
    response = con.getresponse()
    response.read()
    assert response.status == 200, response.status
    con.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--students", type=int, default=200)
    p.add_argument("--games", type=int, default=20000, help="games in the store before the streams open")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--per-round", type=int, default=8, help="games stored in each round")
    p.add_argument("--port", type=int, default=8791)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--flow", type=float, default=0.0, metavar="RATE", help="then store RATE games a second, steadily")
    p.add_argument("--flow-seconds", type=float, default=20.0)
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="cabo-portal-bench-") as tmp:
        folder = Path(tmp) / "class"
        t0 = time.perf_counter()
        roster, versions = make_class(folder, args.students, args.games, args.seed)
        print(f"a class of {args.students} with {args.games} games stored ({time.perf_counter() - t0:.1f} s)")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        log = Path(tmp) / "server.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen([sys.executable, "-m", "cabo_kit.cli", "serve", str(folder), "--roster", str(roster),
                                     "--port", str(args.port), "--same-user-bots"], stdout=out, stderr=subprocess.STDOUT,
                                    env=env)
        try:
            deadline = time.monotonic() + 60
            while b"Uvicorn running" not in log.read_bytes():
                if proc.poll() is not None or time.monotonic() > deadline:
                    print(log.read_text(), file=sys.stderr)
                    return 1
                time.sleep(0.1)
            with open(folder / "portal-links.csv", newline="") as f:
                links = {row["id"]: row["link"] for row in csv.DictReader(f)}
            cookies = [sign_in(args.port, links[sid]) for sid in sorted(versions)]
            page_cookie = sign_in(args.port, links[sorted(versions)[0]])
            asyncio.run(measure(args.port, cookies, folder / "results.sqlite", versions, args.games, args.rounds,
                                args.per_round, args.seed, page_cookie, args.flow, args.flow_seconds))
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
