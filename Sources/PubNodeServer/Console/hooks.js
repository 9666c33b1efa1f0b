// Hooks: each after-hook's queue and counters, its dead letters, and replay.

import { admin, query } from "./api.js";
import { busy, clock, fill, h, num, panel, table, toast, badge } from "./ui.js";

export function mount(root) {
  let filterHook = "";
  const selectedIds = new Set();
  const hooksBox = h("div", { dataset: { test: "hooks" } }, h("div", { class: "empty" }, "Loading…"));
  const deadBox = h("div", { class: "scroll", dataset: { test: "dead-letters" } });
  const replaySelected = h("button", { type: "button", class: "btn btn-sm btn-primary", dataset: { action: "replay-selected" }, disabled: true }, "Replay selected");
  const hookFilter = h("select", { "aria-label": "Dead letters of", dataset: { filter: "" } });

  async function replay(params, button) {
    await busy(button, async () => {
      const answer = await admin(`/v1/admin/hooks/replay${query(params)}`, { method: "POST" });
      toast(`Replayed ${answer.replayed} event(s)`);
      selectedIds.clear();
      await load();
    });
  }
  replaySelected.addEventListener("click", () => replay({ id: [...selectedIds].join(",") }, replaySelected));
  hookFilter.addEventListener("change", () => { filterHook = hookFilter.value; selectedIds.clear(); load(); });

  async function load() {
    let hooks = [], dead = [];
    try {
      [hooks, dead] = await Promise.all([
        admin("/v1/admin/hooks").then((a) => a.hooks || []),
        admin(`/v1/admin/hooks/dead-letters${query({ hook: filterHook || undefined, limit: 200 })}`).then((a) => a.deadLetters || []),
      ]);
    } catch (error) { fill(hooksBox, h("div", { class: "empty" }, error.message)); return; }
    fill(hooksBox, table([
      { label: "Hook", value: (x) => x.name, class: "name" },
      { label: "Event", value: (x) => badge(x.event, x.event.startsWith("before") ? "warn" : x.event === "on-request" ? "violet" : "accent") },
      { label: "Target", value: (x) => x.target, class: "name" },
      { label: "Pending", value: (x) => num(x.pending), num: true },
      { label: "In flight", value: (x) => num(x.inFlight), num: true },
      { label: "Delivered", value: (x) => num(x.delivered), num: true },
      { label: "Retries", value: (x) => num(x.retries), num: true },
      { label: "Dropped", value: (x) => num(x.dropped), num: true },
      { label: "Dead", value: (x) => (x.deadLetters ? badge(num(x.deadLetters), "bad") : "0"), num: true },
      { label: "", value: (x) => h("button", { type: "button", class: "btn btn-sm", disabled: !x.deadLetters,
        onclick: (e) => replay({ hook: x.name }, e.currentTarget) }, "Replay all") },
    ], hooks, { empty: "No hooks are configured (see Docs/hooks.md)." }));
    const current = hookFilter.value;
    fill(hookFilter, h("option", { value: "" }, "All hooks"), hooks.map((x) => h("option", { value: x.name }, x.name)));
    hookFilter.value = current;
    fill(deadBox, table([
      { label: "", value: (d) => {
        const box = h("input", { type: "checkbox", "aria-label": "Select dead letter " + d.id, checked: selectedIds.has(d.id) });
        box.addEventListener("change", () => {
          if (box.checked) selectedIds.add(d.id); else selectedIds.delete(d.id);
          replaySelected.disabled = !selectedIds.size;
        });
        return box;
      } },
      { label: "Id", value: (d) => h("span", { class: "mono" }, d.id) },
      { label: "Hook", value: (d) => d.hook, class: "name" },
      { label: "Attempts", value: (d) => num(d.attempts), num: true },
      { label: "Created", value: (d) => h("span", { class: "mono" }, clock(new Date(d.createdAt))), title: (d) => new Date(d.createdAt).toString(), class: "nowrap" },
      { label: "Last error", value: (d) => d.lastError, class: "clip small" },
      { label: "Event", value: (d) => h("code", {}, JSON.stringify(d.event)), title: (d) => JSON.stringify(d.event, null, 2), class: "clip" },
    ], dead, { empty: "No dead letters." }));
    replaySelected.disabled = !selectedIds.size;
  }

  root.append(h("div", { class: "stack" },
    panel("Hooks", hooksBox, { flush: true, actions: [h("button", { class: "btn btn-sm", onclick: () => load() }, "Refresh")] }),
    panel("Dead letters", deadBox, { flush: true, actions: [hookFilter, replaySelected] })));
  load();
  const timer = setInterval(() => { if (!root.contains(document.activeElement) || document.activeElement === root) load(); }, 5000);
  return () => clearInterval(timer);
}
