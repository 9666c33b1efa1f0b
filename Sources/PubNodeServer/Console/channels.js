// Channels: the busiest channels from /v1/admin/stats, a filter, and an inspector per channel
// (here-now with state, the last messages from history, a debug client for it).

import { request, seg, query, consoleUUID } from "./api.js";
import { fill, h, num, panel, rate, table, tt, badge } from "./ui.js";
import { onStats } from "./store.js";

export function mount(root, { params, navigate }) {
  let selected = params.channel ? { subscribeKey: params.key, name: params.channel } : null;
  let filter = "";
  const filterInput = h("input", { type: "search", placeholder: "Filter channels  ( / )", dataset: { filter: "" }, "aria-label": "Filter channels" });
  const tableBox = h("div", { class: "scroll" });
  const inspector = h("div", { class: "stack", dataset: { test: "inspector" } });
  root.append(h("div", { class: "split-wide" },
    panel("Busiest channels", tableBox, { flush: true, actions: [filterInput] }),
    inspector));

  let latest = [];
  const renderTable = () => {
    const rows = latest.filter((c) => !filter || c.name.toLowerCase().includes(filter) || c.subscribeKey.toLowerCase().includes(filter));
    fill(tableBox, table([
      { label: "Channel", value: (c) => c.name, class: "name" },
      { label: "Keyset", value: (c) => c.subscribeKey, class: "name" },
      { label: "Present", value: (c) => num(c.occupancy), num: true },
      { label: "msg/s", value: (c) => rate(c.perSecond), num: true },
      { label: "Published", value: (c) => num(c.publishes), num: true },
      { label: "Buffered", value: (c) => num(c.buffered), num: true },
      { label: "Parked", value: (c) => num(c.parked), num: true },
    ], rows, {
      testId: "channels",
      empty: filter ? "No channel matches the filter." : "No active channels.",
      rowClass: (c) => (selected && c.name === selected.name && c.subscribeKey === selected.subscribeKey ? "selected" : ""),
      onRow: (c) => { selected = c; renderTable(); inspect(); },
    }));
  };
  filterInput.addEventListener("input", () => { filter = filterInput.value.trim().toLowerCase(); renderTable(); });
  filterInput.addEventListener("keydown", (e) => {
    if (e.key === "Enter") tableBox.querySelector("tbody tr")?.focus();
  });

  let inspectSeq = 0;
  async function inspect() {
    if (!selected) {
      fill(inspector, panel("Inspector", h("div", { class: "empty" }, "Select a channel to see who is here and its last messages.")));
      return;
    }
    const seq = ++inspectSeq;
    const { subscribeKey: key, name } = selected;
    const presenceBox = h("div", {}, h("div", { class: "empty" }, "Loading…"));
    const historyBox = h("div", {}, h("div", { class: "empty" }, "Loading…"));
    fill(inspector,
      panel(h("span", { class: "mono" }, name), h("div", { class: "stack" }, h("dl", { class: "kv" },
        h("dt", {}, "Keyset"), h("dd", {}, key),
        selected.publishes !== undefined ? [
          h("dt", {}, "Published"), h("dd", {}, `${num(selected.publishes)} · ${rate(selected.perSecond)} msg/s`),
          h("dt", {}, "Buffered"), h("dd", {}, `${num(selected.buffered)} · ${num(selected.parked)} parked`),
          h("dt", {}, "Last timetoken"), h("dd", {}, selected.lastTimetoken ? tt(selected.lastTimetoken) : "–"),
        ] : null),
        h("div", { class: "row" },
          h("button", { class: "btn btn-sm btn-primary", dataset: { action: "debug-client" },
            onclick: () => navigate("clients", { key, channel: name }) }, "Debug client"),
          h("button", { class: "btn btn-sm", title: "Open in the Presence view", onclick: () => navigate("presence", { key, channel: name }) }, "Presence"),
          h("button", { class: "btn btn-sm", title: "Open in the History view", onclick: () => navigate("history", { key, channel: name }) }, "History"))), {
        actions: [h("button", { class: "btn btn-sm", onclick: () => inspect() }, "Refresh")],
      }),
      panel("Here now", presenceBox, { flush: true }),
      panel("Last messages", historyBox, { flush: true }));
    const base = `/sub-key/${seg(key)}/channel/${seg(name)}`;
    const [here, past] = await Promise.allSettled([
      request(`/v2/presence${base}${query({ state: 1, disable_uuids: 0, uuid: consoleUUID }, key)}`),
      request(`/v3/history${base}${query({ max: 10, include_meta: "true", include_uuid: "true", uuid: consoleUUID }, key)}`),
    ]);
    if (seq !== inspectSeq) return;
    if (here.status === "fulfilled") {
      const uuids = (here.value.uuids || []).map((u) => (typeof u === "string" ? { uuid: u } : u));
      fill(presenceBox, table([
        { label: "UUID", value: (u) => u.uuid, class: "name" },
        { label: "State", value: (u) => (u.state ? h("code", {}, JSON.stringify(u.state)) : h("span", { class: "faint" }, "–")) },
      ], uuids, { empty: "Nobody is present." }));
    } else fill(presenceBox, h("div", { class: "empty" }, here.reason.message));
    if (past.status === "fulfilled") {
      const items = ((past.value.channels || {})[name] || []).slice().reverse();
      fill(historyBox, table([
        { label: "Timetoken", value: (m) => tt(m.timetoken) },
        { label: "Publisher", value: (m) => m.uuid || h("span", { class: "faint" }, "–"), class: "name" },
        { label: "Message", value: (m) => h("code", {}, JSON.stringify(m.message)) },
      ], items, { empty: "No stored messages." }));
    } else fill(historyBox, h("div", { class: "empty" }, past.reason.status === 403 ? badge(past.reason.message, "warn") : past.reason.message));
  }

  const unsubscribe = onStats((s) => {
    if (!s.latest) return;
    latest = s.latest.channels || [];
    // Keep the rows still while they have keyboard focus or the pointer is over them.
    if ((document.activeElement && tableBox.contains(document.activeElement)) || tableBox.matches(":hover")) return;
    renderTable();
  });
  inspect();
  return unsubscribe;
}
