// The live leaderboard and the student's own ratings: one EventSource per page, rows built with textContent only
// (never markup from the data). The page's CSP allows only this origin's scripts: this file, no inline code.
"use strict";
(function () {
  const anchor = document.querySelector("[data-live]");
  if (!anchor || !window.EventSource) { return; }
  let board = null;
  let mine = null;

  function cell(row, text) {
    const td = document.createElement("td");
    td.textContent = String(text);
    row.appendChild(td);
  }

  function renderBoard() {
    const wrap = document.getElementById("cabo-portal-live-board");
    if (!wrap || !board) { return; }
    if (board.hidden) {
      const p = document.createElement("p");
      p.className = "hidden-board";
      p.textContent = "The leaderboard is shown to the teacher only.";
      wrap.replaceChildren(p);
      return;
    }
    let table = document.getElementById("cabo-portal-board");
    if (!table) {
      table = document.createElement("table");
      table.id = "cabo-portal-board";
      const head = document.createElement("tr");
      for (const name of ["preset", "rank", "bot", "Elo", "95% interval", "games"]) {
        const th = document.createElement("th");
        th.textContent = name;
        head.appendChild(th);
      }
      table.createTHead().appendChild(head);
      table.appendChild(document.createElement("tbody"));
      const note = document.createElement("p");
      note.className = "board-note";
      wrap.replaceChildren(table, note);
    }
    const body = table.tBodies[0] || table.appendChild(document.createElement("tbody"));
    const rows = board.rows.map((r) => {
      const own = mine && r.bot === mine.key;
      const tr = document.createElement("tr");
      tr.dataset.bot = own ? mine.bot : r.bot;
      tr.dataset.preset = r.preset;
      if (own) { tr.className = "mine"; }
      for (const v of [r.preset, r.rank, own ? mine.name : r.name, r.elo, r.interval, r.games]) { cell(tr, v); }
      return tr;
    });
    body.replaceChildren(...rows);
    const note = wrap.querySelector(".board-note");
    if (note) { note.textContent = board.note; }
  }

  function renderMine() {
    const table = document.getElementById("cabo-portal-rating");
    if (!table || !mine) { return; }
    const rows = mine.rows.map((r) => {
      const tr = document.createElement("tr");
      tr.dataset.preset = r.preset;
      for (const v of [r.preset, r.elo, r.interval, r.rank + " of " + r.of, r.ranks, r.games]) { cell(tr, v); }
      return tr;
    });
    table.tBodies[0].replaceChildren(...rows);
    table.hidden = rows.length === 0;
    const note = table.parentNode.querySelector(".rating-note");
    if (note) { note.hidden = rows.length > 0; }
  }

  const source = new EventSource(anchor.dataset.live);
  source.addEventListener("mine", (e) => { mine = JSON.parse(e.data); renderMine(); renderBoard(); });
  source.addEventListener("board", (e) => { board = JSON.parse(e.data); renderBoard(); });
  source.addEventListener("end", (e) => {
    source.close();  // signed out, session ended, or too many pages open: do not reconnect
    const p = document.createElement("p");
    p.className = "live-ended";
    p.textContent = "This page no longer updates: " + JSON.parse(e.data).reason + ".";
    anchor.parentNode.insertBefore(p, anchor);
  });
})();
