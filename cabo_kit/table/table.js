// The card table's page side: draws the frame Python sends and reports clicks. No game logic:
// which cards are clickable, and what a click means, is decided in Python from the engine's
// legal actions. Bot moves unfold by "tick" messages sent after each busy frame's hold time.
function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "cabo-table";
  root.dataset.seq = "0";
  root.dataset.busy = "0";
  el.appendChild(root);
  let seq = 0;
  let timer = null;

  function draw() {
    const frame = model.get("frame") || {};
    const focused = root.contains(document.activeElement) ? document.activeElement.getAttribute("data-click") : null;
    const help = root.querySelector(".cabo-help");
    const helpOpen = help ? help.open : false; // the legend stays open across pictures until closed
    root.innerHTML = frame.html || "";
    const again = root.querySelector(".cabo-help");
    if (again && helpOpen) again.open = true;
    const busy = !!frame.busy;
    root.dataset.busy = busy ? "1" : "0";
    root.classList.toggle("cabo-is-busy", busy);
    seq += 1;
    root.dataset.seq = String(seq);
    const log = root.querySelector(".cabo-log");
    if (log) log.scrollTop = log.scrollHeight;
    if (focused) {
      const back = root.querySelector(`[data-click="${CSS.escape(focused)}"]`);
      if (back) back.focus();
    }
    clearTimeout(timer);
    const token = frame.token;
    if (busy) {
      timer = setTimeout(() => model.send({ type: "tick", token }), Math.max(0, (frame.hold || 0) * 1000));
    } else if (frame.expire) {
      timer = setTimeout(() => model.send({ type: "expire", token }), frame.expire * 1000);
    }
  }

  // One click per picture: the kernel also drops a click that names an older picture's token.
  let sent = -1;
  function activate(node) {
    if (root.dataset.busy === "1") {
      model.send({ type: "skip" });
      return;
    }
    const token = (model.get("frame") || {}).token;
    if (token === sent) return;
    sent = token;
    model.send({ type: "click", target: node.getAttribute("data-click"), token });
  }

  root.addEventListener("click", (event) => {
    if (event.detail > 1) return; // the second click of a double click
    const node = event.target.closest("[data-click]");
    if (node && root.contains(node)) activate(node);
    else if (root.dataset.busy === "1" && event.target.closest(".cabo-felt")) model.send({ type: "skip" });
  });
  root.addEventListener("keydown", (event) => {
    if ((event.key !== "Enter" && event.key !== " ") || event.repeat) return;
    const node = event.target.closest("[data-click]");
    if (node && node.tagName !== "BUTTON") {
      event.preventDefault();
      activate(node);
    }
  });
  model.on("change:frame", draw);
  draw();
  return () => {
    clearTimeout(timer);
    model.off("change:frame", draw);
  };
}

export default { render };
