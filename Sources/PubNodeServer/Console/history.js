// History: fetch (v3), message counts and delete for a channel of the selected keyset.

import { request, seg, query, consoleUUID } from "./api.js";
import { busy, confirmAction, field, fill, h, num, onSubmit, panel, table, toast, tt, ttTime } from "./ui.js";
import { keysets } from "./store.js";

export function mount(root, { params }) {
  const channelInput = h("input", { type: "text", class: "mono", placeholder: "channel", dataset: { filter: "", field: "channel" }, value: params.channel || "" });
  const maxInput = h("input", { type: "number", min: 1, max: 100, value: 25, dataset: { field: "max" } });
  const startInput = h("input", { type: "text", class: "mono", placeholder: "older than (exclusive)", dataset: { field: "start" } });
  const countInput = h("input", { type: "text", class: "mono", placeholder: "timetoken", value: "1", dataset: { field: "count-tt" } });
  const resultBox = h("div", { dataset: { test: "history" } }, h("div", { class: "empty" }, "Enter a channel and press Enter."));
  const countBox = h("div", { class: "muted", dataset: { test: "count" } }, "Counts messages newer than the timetoken.");

  const channel = () => {
    const name = channelInput.value.trim();
    if (!name) throw new Error("Enter a channel");
    return name;
  };
  const base = () => `/v3/history/sub-key/${seg(keysets.selected)}`;

  async function load() {
    const name = channel();
    const answer = await request(`${base()}/channel/${seg(name)}${query({ max: maxInput.value || 25, start: startInput.value.trim() || undefined,
      include_meta: "true", include_uuid: "true", include_message_type: "true", uuid: consoleUUID }, keysets.selected)}`);
    const items = ((answer.channels || {})[name] || []).slice().reverse();
    fill(resultBox, table([
      { label: "Timetoken", value: (m) => tt(m.timetoken) },
      { label: "Time", value: (m) => h("span", { class: "mono faint" }, ttTime(m.timetoken)) },
      { label: "Publisher", value: (m) => m.uuid || h("span", { class: "faint" }, "–"), class: "name" },
      { label: "Message", value: (m) => h("code", {}, JSON.stringify(m.message)) },
      { label: "Meta", value: (m) => (m.meta === "" || m.meta === undefined ? h("span", { class: "faint" }, "–") : h("code", {}, JSON.stringify(m.meta))) },
    ], items, { empty: `No stored messages on ${name}.`, testId: "history" }));
  }

  const fetchForm = onSubmit(h("form", { class: "row" },
    field("Channel", channelInput, "grow"), field("Max", maxInput), field("Start", startInput),
    h("button", { type: "submit", class: "btn btn-primary" }, "Fetch")), load);

  const countForm = onSubmit(h("form", { class: "row" }, field("Newer than timetoken", countInput, "grow"),
    h("button", { type: "submit", class: "btn", dataset: { action: "count" } }, "Count")), async () => {
    const name = channel();
    const answer = await request(`${base()}/message-counts/${seg(name)}${query({ timetoken: countInput.value.trim() || "1", uuid: consoleUUID }, keysets.selected)}`);
    fill(countBox, h("span", {}, h("b", { dataset: { test: "count-value" } }, num((answer.channels || {})[name] ?? 0)),
      ` message(s) on ${name} newer than `, h("span", { class: "mono" }, countInput.value.trim() || "1")));
  });

  const deleteButton = h("button", { type: "button", class: "btn btn-danger", dataset: { action: "delete" } }, "Delete history…");
  deleteButton.addEventListener("click", () => busy(deleteButton, async () => {
    const name = channel();
    if (!(await confirmAction("Delete history", `Delete every stored message of ${name} on keyset ${keysets.selected}? This cannot be undone.`, "Delete"))) return;
    await request(`${base()}/channel/${seg(name)}${query({ uuid: consoleUUID }, keysets.selected)}`, { method: "DELETE" });
    toast(`History of ${name} deleted`);
    await load();
  }));

  root.append(h("div", { class: "stack" },
    panel("Fetch", h("div", {}, h("div", { class: "panel-body" }, fetchForm), resultBox), { flush: true }),
    h("div", { class: "grid cols-2" },
      panel("Message count", h("div", { class: "stack" }, countForm, countBox)),
      panel("Delete", h("div", { class: "stack" },
        h("p", { class: "muted small" }, "Deletes every stored message of the channel. Messages still in its live buffer stay deliverable to catch-up until they leave it."),
        h("div", {}, deleteButton))))));
  if (params.channel) fetchForm.requestSubmit();
}
