// Channel groups of the selected keyset: list groups, list/add/remove channels, delete a group.

import { request, seg, query, consoleUUID } from "./api.js";
import { busy, confirmAction, field, fill, h, num, onSubmit, panel, table, toast } from "./ui.js";
import { keysets } from "./store.js";

const names = (text) => text.split(",").map((s) => s.trim()).filter(Boolean);

export function mount(root) {
  let selected = "";
  const base = () => `/v1/channel-registration/sub-key/${seg(keysets.selected)}/channel-group`;
  const q = (extra = {}) => query({ uuid: consoleUUID, ...extra }, keysets.selected);

  const groupsBox = h("div", { dataset: { test: "groups" } });
  const detail = h("div", { class: "stack" });
  const newGroup = h("input", { type: "text", class: "mono", placeholder: "group name", dataset: { filter: "", field: "group" } });
  const newChannels = h("input", { type: "text", class: "mono", placeholder: "a, b, c", dataset: { field: "group-channels" } });
  const addForm = onSubmit(h("form", { class: "row" }, field("Group", newGroup, "grow"), field("Channels", newChannels, "grow"),
    h("button", { type: "submit", class: "btn btn-primary", dataset: { action: "add-channels" } }, "Add channels")), async () => {
    const group = newGroup.value.trim(), channels = names(newChannels.value);
    if (!group || !channels.length) throw new Error("Give a group and at least one channel");
    await request(`${base()}/${seg(group)}${q({ add: channels.join(",") })}`);
    toast(`Added ${channels.length} channel(s) to ${group}`);
    newChannels.value = "";
    selected = group;
    await loadGroups();
  });

  const PAGE = 200;
  let groups = [], next = null;
  const moreButton = h("button", { type: "button", class: "btn btn-sm", hidden: true, onclick: (e) => busy(e.currentTarget, () => loadGroups({ more: true })) }, "More");

  function renderGroups() {
    fill(groupsBox, table([{ label: "Group", value: (g) => g, class: "name" }], groups, {
      empty: "No channel groups on this keyset.", testId: "groups",
      rowClass: (g) => (g === selected ? "selected" : ""),
      onRow: (g) => { selected = g; renderGroups(); loadDetail(); },
    }));
    moreButton.hidden = !next;
  }

  /** Lists the groups a page at a time (`limit`, `start` = the previous page's `next`). */
  async function loadGroups({ more = false } = {}) {
    try {
      const answer = await request(base() + q({ limit: PAGE, start: more ? next : undefined }));
      const payload = answer.payload || {};
      groups = more ? groups.concat(payload.groups || []) : (payload.groups || []);
      next = payload.next || null;
      if (!more && selected && !groups.includes(selected) && !next) selected = "";
      renderGroups();
    } catch (error) {
      fill(groupsBox, h("div", { class: "empty" }, error.status === 403 ? `Listing every group needs the keyset's secret: ${error.message}` : error.message));
    }
    if (!more) await loadDetail();
  }

  async function loadDetail() {
    if (!selected) { fill(detail, panel("Group", h("div", { class: "empty" }, "Select a group, or add channels to a new one."))); return; }
    const group = selected;
    let channels = [];
    try {
      const answer = await request(`${base()}/${seg(group)}${q()}`);
      channels = (answer.payload && answer.payload.channels) || [];
    } catch (error) { toast(error.message, "bad"); }
    const addInput = h("input", { type: "text", class: "mono", placeholder: "more channels" });
    const deleteButton = h("button", { type: "button", class: "btn btn-sm btn-danger", dataset: { action: "delete-group" } }, "Delete group…");
    deleteButton.addEventListener("click", () => busy(deleteButton, async () => {
      if (!(await confirmAction("Delete channel group", `Delete ${group} on keyset ${keysets.selected}? Subscribers to it stop receiving its channels.`, "Delete"))) return;
      await request(`${base()}/${seg(group)}/remove${q()}`);
      toast(`Deleted ${group}`);
      selected = "";
      await loadGroups();
    }));
    fill(detail, panel(h("span", { class: "mono" }, group), h("div", { class: "stack" },
      h("div", { class: "muted small" }, `${num(channels.length)} channel(s)`),
      table([
        { label: "Channel", value: (c) => c, class: "name" },
        { label: "", num: true, value: (c) => h("button", { type: "button", class: "btn btn-sm btn-ghost", onclick: (e) => busy(e.currentTarget, async () => {
          await request(`${base()}/${seg(group)}${q({ remove: c })}`);
          toast(`Removed ${c} from ${group}`);
          await loadDetail();
        }) }, "Remove") },
      ], channels, { empty: "This group has no channels.", testId: "group-channels" }),
      onSubmit(h("form", { class: "row" }, field("Add channels", addInput, "grow"), h("button", { type: "submit", class: "btn" }, "Add")), async () => {
        const more = names(addInput.value);
        if (!more.length) throw new Error("Give at least one channel");
        await request(`${base()}/${seg(group)}${q({ add: more.join(",") })}`);
        await loadDetail();
      })), { actions: [deleteButton] }));
  }

  root.append(h("div", { class: "stack" },
    panel("Add channels to a group", addForm),
    h("div", { class: "split" },
      panel("Groups", groupsBox, { flush: true, actions: [moreButton, h("button", { class: "btn btn-sm", onclick: () => loadGroups() }, "Refresh")] }),
      detail)));
  const onKeyset = () => { selected = ""; loadGroups(); };
  keysets.listeners.add(onKeyset);
  loadGroups();
  return () => keysets.listeners.delete(onKeyset);
}
