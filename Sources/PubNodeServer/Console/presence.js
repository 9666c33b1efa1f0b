// Presence: here-now (with state) for channels of the selected keyset, and where-now for a uuid.

import { request, seg, list, query, consoleUUID } from "./api.js";
import { field, fill, h, num, onSubmit, panel, table, badge } from "./ui.js";
import { keysets } from "./store.js";

const names = (text) => text.split(",").map((s) => s.trim()).filter(Boolean);

/** Normalizes both here-now shapes to [{channel, occupancy, uuids: [{uuid, state}]}]. */
function hereNowRows(answer, channels) {
  const uuidsOf = (list) => (list || []).map((u) => (typeof u === "string" ? { uuid: u } : u));
  if (answer.payload && answer.payload.channels) {
    return Object.entries(answer.payload.channels).map(([channel, c]) => ({ channel, occupancy: c.occupancy, uuids: uuidsOf(c.uuids) }));
  }
  return [{ channel: channels[0], occupancy: answer.occupancy, uuids: uuidsOf(answer.uuids) }];
}

export function mount(root, { params }) {
  const channelInput = h("input", { type: "text", class: "mono", placeholder: "chat, news", dataset: { filter: "", field: "channels" }, value: params.channel || "" });
  const groupInput = h("input", { type: "text", class: "mono", placeholder: "optional", dataset: { field: "groups" } });
  const hereBox = h("div", { dataset: { test: "here-now" } }, h("div", { class: "empty" }, "Enter channels (or leave empty for the whole keyset) and press Enter."));
  const uuidInput = h("input", { type: "text", class: "mono", placeholder: "uuid", dataset: { field: "uuid" } });
  const whereBox = h("div", { dataset: { test: "where-now" } }, h("div", { class: "empty" }, "Enter a uuid to list its channels."));

  const hereForm = onSubmit(h("form", { class: "row" },
    field("Channels", channelInput, "grow"), field("Channel groups", groupInput),
    h("button", { type: "submit", class: "btn btn-primary" }, "Here now")), async () => {
    const key = keysets.selected;
    const channels = names(channelInput.value), groups = names(groupInput.value);
    const path = channels.length || groups.length
      ? `/v2/presence/sub-key/${seg(key)}/channel/${list(channels)}`
      : `/v2/presence/sub-key/${seg(key)}`;
    const answer = await request(path + query({ state: 1, disable_uuids: 0, uuid: consoleUUID,
      "channel-group": groups.join(",") || undefined }, key));
    const rows = hereNowRows(answer, channels);
    const total = rows.reduce((n, r) => n + (r.occupancy || 0), 0);
    fill(hereBox,
      h("div", { class: "panel-body" }, h("span", { class: "muted" }, `${num(rows.length)} channel(s) · ${num(total)} present`)),
      table([
        { label: "Channel", value: (r) => r.channel, class: "name" },
        { label: "UUID", value: (r) => r.uuid, class: "name" },
        { label: "State", value: (r) => (r.state ? h("code", {}, JSON.stringify(r.state)) : h("span", { class: "faint" }, "–")) },
      ], rows.flatMap((r) => r.uuids.map((u) => ({ channel: r.channel, ...u }))), { empty: "Nobody is present.", testId: "presence" }));
  });

  const whereForm = onSubmit(h("form", { class: "row" }, field("UUID", uuidInput, "grow"),
    h("button", { type: "submit", class: "btn btn-primary" }, "Where now")), async () => {
    const key = keysets.selected;
    const uuid = uuidInput.value.trim();
    if (!uuid) throw new Error("Enter a uuid");
    const answer = await request(`/v2/presence/sub-key/${seg(key)}/uuid/${seg(uuid)}${query({ uuid: consoleUUID }, key)}`);
    const channels = (answer.payload && answer.payload.channels) || [];
    fill(whereBox, channels.length
      ? h("div", { class: "panel-body row" }, channels.map((c) => badge(c, "accent")))
      : h("div", { class: "empty" }, `${uuid} is not present anywhere.`));
  });

  root.append(h("div", { class: "split" },
    panel("Here now", h("div", {}, h("div", { class: "panel-body" }, hereForm), hereBox), { flush: true }),
    panel("Where now", h("div", {}, h("div", { class: "panel-body" }, whereForm), whereBox), { flush: true })));
  const onKeyset = () => fill(hereBox, h("div", { class: "empty" }, `Keyset ${keysets.selected}: press Enter to load.`));
  keysets.listeners.add(onKeyset);
  if (params.channel) hereForm.requestSubmit();
  return () => keysets.listeners.delete(onKeyset);
}
