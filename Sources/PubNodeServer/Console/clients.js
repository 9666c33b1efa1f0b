// Debug clients: virtual PubNub clients, each with its own uuid, keyset and long-poll loop
// (GET /v2/subscribe), a live log, publish, signal and leave.

import { request, seg, list, query } from "./api.js";
import { badge, busy, clock, field, fill, h, toast, ttTime } from "./ui.js";
import { keysets } from "./store.js";

const MAX_LOG = 400;
// A browser keeps at most 6 HTTP/1.1 connections per host; each running client holds one for its
// long-poll, so more would stall the console's own requests.
const MAX_RUNNING = 4;
const clients = [];
let counter = 0;
let view = null; // {root, grid} while the view is mounted

const names = (text) => text.split(",").map((s) => s.trim()).filter(Boolean);
const randomId = () => Math.random().toString(36).slice(2, 8);

/** Adds a client (stopped unless `start`); options: subscribeKey, channels, groups, uuid, presence. */
export function addClient(options = {}) {
  const keyset = keysets.list.find((k) => k.subscribeKey === (options.subscribeKey || keysets.selected)) || keysets.list[0] || {};
  const client = {
    id: ++counter,
    uuid: options.uuid || `debug-${randomId()}`,
    subscribeKey: keyset.subscribeKey || "demo",
    channels: options.channels || "",
    groups: options.groups || "",
    presence: options.presence ?? !keyset.accessManager, // a token rarely grants the -pnpres channels
    heartbeat: options.heartbeat || "",
    heartbeatTimer: 0,
    auth: options.auth || "",
    state: options.state || "",
    publishChannel: names(options.channels || "").find((c) => !c.endsWith(".*")) || "",
    message: '{"text":"hello"}',
    running: false, status: "stopped", controller: null, tt: "0", tr: null, log: [], el: null,
  };
  clients.push(client);
  if (view) view.grid.append(renderClient(client));
  if (options.start) start(client);
  return client;
}

/** Stops every client (sign-out). */
export function stopAll() {
  for (const client of clients) if (client.running) stop(client, { leave: false });
}

function publishKeyOf(client) {
  const keyset = keysets.list.find((k) => k.subscribeKey === client.subscribeKey);
  return keyset ? keyset.publishKey : client.subscribeKey;
}

// ---- log -----------------------------------------------------------------------------------

function log(client, entry) {
  entry.at = entry.at || new Date();
  client.log.push(entry);
  if (client.log.length > MAX_LOG) client.log.shift();
  const box = client.el && client.el.querySelector(".log");
  if (!box) return;
  box.querySelector(".log-empty")?.remove();
  const stick = box.scrollTop + box.clientHeight >= box.scrollHeight - 8;
  box.append(logLine(entry));
  while (box.children.length > MAX_LOG) box.firstChild.remove();
  if (stick) box.scrollTop = box.scrollHeight;
}

const KIND_TONE = { message: "accent", signal: "teal", presence: "violet", sent: "ok", error: "bad", info: "" };

function logLine(entry) {
  const meta = [];
  if (entry.tt) meta.push(h("span", { class: "tt", dataset: { test: "tt" } }, entry.tt));
  if (entry.from) meta.push(" · from ", entry.from);
  if (entry.via) meta.push(" · via ", entry.via);
  return h("div", { class: "log-line", dataset: { kind: entry.kind, tt: entry.tt || "" } },
    h("span", { class: "time" }, entry.tt ? ttTime(entry.tt).slice(0, 8) : clock(entry.at).slice(0, 8)),
    h("span", {}, badge(entry.label || entry.kind, KIND_TONE[entry.kind] || "")),
    h("span", { class: "body" }, entry.channel ? h("span", { class: "ch" }, entry.channel) : null, entry.text,
      meta.length ? h("span", { class: "meta" }, meta) : null));
}

function logEnvelope(client, m) {
  const isPresence = m.c.endsWith("-pnpres");
  const text = JSON.stringify(m.d);
  if (isPresence) {
    const d = m.d || {};
    log(client, { kind: "presence", label: d.action || "presence", channel: m.c.slice(0, -"-pnpres".length),
      text: d.uuid ? `${d.uuid} · occupancy ${d.occupancy}${d.state ? " · state " + JSON.stringify(d.state) : ""}` : text,
      tt: m.p && m.p.t, via: m.b });
  } else {
    log(client, { kind: m.e === 1 ? "signal" : "message", label: m.e === 1 ? "signal" : "msg", channel: m.c, text,
      tt: m.p && m.p.t, from: m.i, via: m.b });
  }
}

// ---- subscribe loop ------------------------------------------------------------------------

function subscription(client) {
  const channels = names(client.channels), groups = names(client.groups);
  const withPresence = (xs) => (client.presence ? xs.flatMap((x) => [x, x + "-pnpres"]) : xs);
  return { channels, groups, subChannels: withPresence(channels), subGroups: withPresence(groups) };
}

function stateParam(client, sub) {
  if (!client.state.trim()) return undefined;
  const state = JSON.parse(client.state);
  const keyed = {};
  for (const name of [...sub.channels, ...sub.groups]) keyed[name] = state;
  return JSON.stringify(keyed);
}

function setStatus(client, status, text) {
  client.status = status;
  const el = client.el;
  if (!el) return;
  el.querySelector(".state-dot").className = "state-dot " + (status === "live" ? "live" : status === "error" ? "error" : "");
  el.querySelector("[data-status]").textContent = text || status;
  const toggle = el.querySelector("[data-action=toggle]");
  toggle.textContent = client.running ? "Unsubscribe" : "Subscribe";
  toggle.className = "btn btn-sm " + (client.running ? "" : "btn-primary");
  for (const input of el.querySelectorAll(".client-form input, .client-form select, .client-form textarea")) input.disabled = client.running;
}

function wait(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}

async function loop(client) {
  const sub = subscription(client);
  const path = `/v2/subscribe/${seg(client.subscribeKey)}/${list(sub.subChannels)}/0`;
  let state;
  try { state = stateParam(client, sub); } catch { toast("State must be a JSON object", "bad"); stop(client, { leave: false }); return; }
  client.tt = "0";
  client.tr = null;
  while (client.running) {
    const controller = client.controller;
    const params = { tt: client.tt, tr: client.tr ?? undefined, uuid: client.uuid,
      "channel-group": sub.subGroups.join(",") || undefined, auth: client.auth || undefined,
      state: client.tt === "0" ? state : undefined, heartbeat: heartbeatSeconds(client) || undefined };
    try {
      const answer = await request(path + query(params), { signal: controller.signal });
      if (!client.running) return;
      if (client.tt === "0") {
        log(client, { kind: "info", label: "connected", channel: "", tt: answer.t.t,
          text: `subscribed to ${[...sub.subChannels, ...sub.subGroups.map((g) => "group " + g)].join(", ")}` });
        setStatus(client, "live", "listening");
      }
      client.tt = answer.t.t;
      client.tr = answer.t.r;
      for (const m of answer.m || []) logEnvelope(client, m);
    } catch (error) {
      if (!client.running || error.name === "AbortError") return;
      log(client, { kind: "error", label: "error", text: `subscribe: ${error.message}` });
      if (error.status && error.status >= 400 && error.status < 500) {
        client.running = false;
        clearInterval(client.heartbeatTimer);
        setStatus(client, "error", `refused (${error.status})`);
        return;
      }
      setStatus(client, "error", "retrying…");
      await wait(3000, controller.signal);
    }
  }
}

/** The presence timeout asked for (seconds), 0 for the keyset's default. */
function heartbeatSeconds(client) {
  const seconds = Number.parseInt(String(client.heartbeat).trim(), 10);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
}

/**
 * With a presence timeout shorter than a parked long-poll, heartbeats keep the uuid present, as
 * the SDKs do (every timeout / 2 - 1 seconds).
 */
function startHeartbeats(client) {
  const seconds = heartbeatSeconds(client);
  if (!seconds || seconds >= 280) return;
  const sub = subscription(client);
  const path = `/v2/presence/sub-key/${seg(client.subscribeKey)}/channel/${list(sub.channels)}/heartbeat`;
  client.heartbeatTimer = setInterval(() => {
    request(path + query({ uuid: client.uuid, heartbeat: seconds, "channel-group": sub.groups.join(",") || undefined,
      auth: client.auth || undefined }))
      .catch((error) => log(client, { kind: "error", label: "error", text: `heartbeat: ${error.message}` }));
  }, Math.max(5, seconds / 2 - 1) * 1000);
}

function start(client) {
  if (client.running) return;
  const sub = subscription(client);
  if (!sub.channels.length && !sub.groups.length) { toast("Give at least one channel or channel group", "bad"); return; }
  if (clients.filter((c) => c.running).length >= MAX_RUNNING) {
    toast(`At most ${MAX_RUNNING} clients listen at once: the browser keeps 6 connections per host and each listening client holds one. Unsubscribe another first.`, "bad");
    return;
  }
  if (!client.publishChannel) {
    client.publishChannel = sub.channels.find((c) => !c.endsWith(".*")) || "";
    const input = client.el && client.el.querySelector("[data-field=publish-channel]");
    if (input) input.value = client.publishChannel;
  }
  client.running = true;
  client.controller = new AbortController();
  setStatus(client, "connecting", "connecting…");
  startHeartbeats(client);
  loop(client);
}

function stop(client, { leave = true } = {}) {
  client.running = false;
  clearInterval(client.heartbeatTimer);
  client.heartbeatTimer = 0;
  if (client.controller) client.controller.abort();
  client.controller = null;
  setStatus(client, "stopped", "stopped");
  if (!leave) return;
  const sub = subscription(client);
  const path = `/v2/presence/sub-key/${seg(client.subscribeKey)}/channel/${list(sub.channels)}/leave`;
  request(path + query({ uuid: client.uuid, "channel-group": sub.groups.join(",") || undefined, auth: client.auth || undefined }))
    .then(() => log(client, { kind: "info", label: "left", text: "unsubscribed (leave sent)" }))
    .catch((error) => log(client, { kind: "error", label: "error", text: `leave: ${error.message}` }));
}

async function publish(client, signal) {
  const channel = client.publishChannel.trim();
  if (!channel) throw new Error("Give a channel to publish to");
  let text = client.message.trim();
  try { text = JSON.stringify(JSON.parse(text)); } catch { throw new Error("The message is not valid JSON"); }
  const base = `/${signal ? "signal" : "publish"}/${seg(publishKeyOf(client))}/${seg(client.subscribeKey)}/0/${seg(channel)}/0`;
  const params = query({ uuid: client.uuid, auth: client.auth || undefined });
  const answer = signal
    ? await request(`${base}/${encodeURIComponent(text)}${params}`)
    : await request(base + params, { method: "POST", body: text });
  log(client, { kind: "sent", label: signal ? "signaled" : "published", channel, text, tt: answer[2] });
}

// ---- rendering -----------------------------------------------------------------------------

function renderClient(client) {
  const bind = (input, key, kind = "value") => {
    input[kind] = client[key];
    input.addEventListener(kind === "checked" ? "change" : "input", () => { client[key] = input[kind]; });
    return input;
  };
  const keysetSelect = bind(h("select", { dataset: { field: "keyset" } },
    keysets.list.map((k) => h("option", { value: k.subscribeKey }, k.subscribeKey + (k.accessManager ? " (PAM)" : "")))), "subscribeKey");
  const form = h("form", { class: "client-form" },
    field("Keyset", keysetSelect),
    field("UUID", bind(h("input", { type: "text", class: "mono", dataset: { field: "uuid" }, spellcheck: false }), "uuid")),
    field("Channels (a.* wildcards)", bind(h("input", { type: "text", class: "mono", dataset: { field: "channels" }, placeholder: "chat, news.*", spellcheck: false }), "channels")),
    field("Channel groups", bind(h("input", { type: "text", class: "mono", dataset: { field: "groups" }, placeholder: "group-a", spellcheck: false }), "groups")),
    field("Presence state (JSON object)", bind(h("input", { type: "text", class: "mono", dataset: { field: "state" }, placeholder: '{"mood":"ok"}', spellcheck: false }), "state")),
    field("Auth token", bind(h("input", { type: "text", class: "mono", dataset: { field: "auth" }, placeholder: "Access Manager only", spellcheck: false }), "auth")),
    field("Presence timeout (s)", bind(h("input", { type: "number", min: 0, dataset: { field: "heartbeat" }, placeholder: "keyset default" }), "heartbeat")),
    h("label", { class: "check" }, bind(h("input", { type: "checkbox", dataset: { field: "presence" } }), "presence", "checked"),
      "Presence events (-pnpres)"),
    h("button", { type: "submit", hidden: true }));
  form.addEventListener("submit", (e) => { e.preventDefault(); start(client); });

  const logBox = h("div", { class: "log", dataset: { test: "log" }, tabIndex: 0 },
    client.log.length ? client.log.map(logLine) : h("div", { class: "log-empty" }, "Subscribe to see messages, signals and presence events here."));
  const pub = h("form", { class: "client-pub" },
    bind(h("textarea", { rows: 1, dataset: { field: "message" }, spellcheck: false, "aria-label": "Message JSON", placeholder: "JSON message" }), "message"),
    bind(h("input", { type: "text", class: "mono", dataset: { field: "publish-channel" }, placeholder: "channel to publish to", "aria-label": "Publish channel" }), "publishChannel"),
    h("div", { class: "btns" },
      h("button", { type: "submit", class: "btn btn-primary", dataset: { action: "publish" } }, "Publish"),
      h("button", { type: "button", class: "btn", dataset: { action: "signal" } }, "Signal")));
  pub.addEventListener("submit", (e) => { e.preventDefault(); busy(pub.querySelector("[data-action=publish]"), () => publish(client, false)); });
  pub.querySelector("[data-action=signal]").addEventListener("click", (e) => busy(e.currentTarget, () => publish(client, true)));
  const grow = (area) => {
    area.style.height = "auto";
    area.style.height = Math.min(area.scrollHeight + 2, 160) + "px";
    area.style.overflowY = area.scrollHeight > 158 ? "auto" : "hidden";
  };
  pub.querySelector("textarea").addEventListener("input", (e) => grow(e.target));
  requestAnimationFrame(() => grow(pub.querySelector("textarea")));
  pub.querySelector("textarea").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); pub.requestSubmit(); }
  });

  const el = h("section", { class: "panel client", dataset: { client: String(client.id), uuid: client.uuid } },
    h("div", { class: "panel-head" },
      h("span", { class: "state-dot" }), h("span", { class: "uuid" }, client.uuid),
      h("span", { class: "muted small", dataset: { status: "" } }, client.status),
      h("span", { class: "spacer" }),
      h("button", { type: "button", class: "btn btn-sm btn-primary", dataset: { action: "toggle" },
        onclick: () => (client.running ? stop(client) : start(client)) }, "Subscribe"),
      h("button", { type: "button", class: "btn btn-sm btn-ghost", title: "Clear the log",
        onclick: () => { client.log = []; fill(logBox, h("div", { class: "log-empty" }, "Log cleared.")); } }, "Clear"),
      h("button", { type: "button", class: "btn btn-sm btn-ghost", title: "Remove this client",
        onclick: () => { if (client.running) stop(client); clients.splice(clients.indexOf(client), 1); el.remove(); renderEmpty(); } }, "Remove")),
    form, logBox, pub);
  el.querySelector("[data-field=uuid]").addEventListener("input", (e) => {
    el.querySelector(".uuid").textContent = e.target.value;
    el.dataset.uuid = e.target.value;
  });
  client.el = el;
  setStatus(client, client.status, client.running ? (client.status === "live" ? "listening" : client.status) : "stopped");
  requestAnimationFrame(() => { logBox.scrollTop = logBox.scrollHeight; });
  return el;
}

function renderEmpty() {
  if (!view) return;
  view.root.querySelector("[data-empty-clients]")?.remove();
  if (!clients.length) view.grid.before(h("div", { class: "panel empty", dataset: { emptyClients: "" } },
    "No debug clients yet. Add one to subscribe to channels, watch messages arrive and publish."));
}

function newClient() {
  const client = addClient();
  renderEmpty();
  client.el.querySelector("[data-field=channels]").focus();
  client.el.scrollIntoView({ block: "nearest" });
}

/** View shortcuts: `n` adds a client. */
export function onKey(key) {
  if (key !== "n" || !view) return false;
  newClient();
  return true;
}

export function mount(root, { params }) {
  const grid = h("div", { class: "clients", dataset: { test: "clients" } });
  const addButton = h("button", { type: "button", class: "btn btn-primary", dataset: { action: "add-client" }, title: "New debug client (n)" }, "Add client");
  addButton.addEventListener("click", newClient);
  root.append(h("div", { class: "toolbar" }, addButton,
    h("span", { class: "muted small" }, "Each client runs its own long-poll.  n adds a client · Enter in a field subscribes · Enter in the message publishes (Shift+Enter: new line)")), grid);
  view = { root, grid };
  for (const client of clients) grid.append(renderClient(client));
  if (params.key && (params.channel || params.auth)) {
    // From the channel inspector (subscribes at once) or a freshly granted token (asks for channels).
    const client = addClient({ subscribeKey: params.key, channels: params.channel || "", auth: params.auth || "", start: !!params.channel });
    if (!params.channel) requestAnimationFrame(() => client.el && client.el.querySelector("[data-field=channels]").focus());
    window.history.replaceState(null, "", "#/clients");
  }
  renderEmpty();
  return () => { view = null; for (const client of clients) client.el = null; };
}
