// The portal's only script (served from its own origin: the page's CSP allows nothing else).
// Drag and drop a file onto the upload area, and follow a running check without a reload.
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
  if (check && check.dataset.status === "running") {
    const base = form ? form.getAttribute("action").replace(/\/upload$/, "") : "";
    const poll = () => fetch(base + "/check", { credentials: "same-origin" })
      .then((r) => r.json())
      .then((s) => { if (s.status !== "running") { window.location.reload(); } else { setTimeout(poll, 1500); } })
      .catch(() => setTimeout(poll, 5000));
    setTimeout(poll, 1500);
  }
})();
