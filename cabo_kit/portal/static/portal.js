// The portal's only script (served from its own origin: the page's CSP allows nothing else).
// Drag and drop a file onto the upload area, and follow a running check (and the rest of it) without a reload.
"use strict";
(function () {
  const zone = document.getElementById("cabo-portal-dropzone");
  const input = document.getElementById("cabo-portal-upload");
  const form = document.getElementById("cabo-portal-form");
  if (zone && input && form) {
    zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
    zone.addEventListener("dragleave", () => zone.classList.remove("over"));
    zone.addEventListener("drop", (e) => {
      e.preventDefault();
      zone.classList.remove("over");
      if (e.dataTransfer && e.dataTransfer.files.length === 1) {
        input.files = e.dataTransfer.files;
        form.requestSubmit();
      }
    });
  }
  const check = document.getElementById("cabo-portal-check");
  const resting = check && check.dataset.rest === "running";
  if (check && (check.dataset.status === "running" || resting)) {
    const base = form ? form.getAttribute("action").replace(/\/upload$/, "") : "";
    const every = resting ? 3000 : 1500;
    const changed = (s) => s.status !== check.dataset.status || Boolean(s.rest) !== resting ||
      String(s.number) !== check.dataset.number;
    const poll = () => fetch(base + "/check", { credentials: "same-origin" })
      .then((r) => r.json())
      .then((s) => { if (changed(s)) { window.location.reload(); } else { setTimeout(poll, every); } })
      .catch(() => setTimeout(poll, 5000));
    setTimeout(poll, every);
  }
})();
