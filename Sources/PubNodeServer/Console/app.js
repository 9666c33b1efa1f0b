// The console shell: login, navigation, keyboard shortcuts, theme, keyset picker, node status.

import { admin, session } from "./api.js";
import { fill, h, duration, toast } from "./ui.js";
import { keysets, onStats, refreshKeysets, selectKeyset, startSampling, stopSampling } from "./store.js";
import * as overview from "./overview.js";
import * as channels from "./channels.js";
import * as clients from "./clients.js";
import * as presence from "./presence.js";
import * as history from "./history.js";
import * as groups from "./groups.js";
import * as hooks from "./hooks.js";
import * as keysetsView from "./keysets.js";

const views = [
  { id: "overview", title: "Overview", key: "o", module: overview },
  { id: "channels", title: "Channels", key: "c", module: channels },
  { id: "clients", title: "Debug clients", key: "d", module: clients },
  { id: "presence", title: "Presence", key: "p", module: presence, keyset: true },
  { id: "history", title: "History", key: "h", module: history, keyset: true },
  { id: "groups", title: "Channel groups", key: "r", module: groups, keyset: true },
  { id: "hooks", title: "Hooks", key: "w", module: hooks },
  { id: "keysets", title: "Keysets & tokens", key: "k", module: keysetsView },
];

const $ = (id) => document.getElementById(id);
let current = { view: null, cleanup: null, hash: "" };

// ---- theme ---------------------------------------------------------------------------------

function effectiveTheme() {
  const chosen = document.documentElement.dataset.theme;
  if (chosen) return chosen;
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function applyTheme(theme) {
  if (theme) document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;
  $("theme-toggle").textContent = effectiveTheme() === "dark" ? "Light" : "Dark";
  window.dispatchEvent(new CustomEvent("pubnode:theme"));
}

function toggleTheme() {
  const next = effectiveTheme() === "dark" ? "light" : "dark";
  localStorage.setItem("pubnode.theme", next);
  applyTheme(next);
}

// ---- login ---------------------------------------------------------------------------------

function loginMessage(error) {
  if (error.status === 401) return "Wrong admin token: the node refused it.";
  if (error.status === 403) return "This node has no admin token configured. Start it with --admin-token (or PUBNODE_ADMIN_TOKEN) to use the console.";
  if (error.status === 404) return "This node does not serve /v1/admin/stats; update it to use the console.";
  if (error.status) return `The node answered ${error.status}: ${error.message}`;
  return "The node cannot be reached: " + error.message;
}

function showLogin(message) {
  stopSampling();
  clients.stopAll();
  $("shell").hidden = true;
  $("login").hidden = false;
  const err = $("login-error");
  err.hidden = !message;
  err.textContent = message || "";
  $("login-token").value = "";
  $("login-token").focus();
}

async function tryLogin(token) {
  session.token = token;
  try {
    await admin("/v1/admin/stats?channels=0");
    return null;
  } catch (error) {
    session.token = "";
    return loginMessage(error);
  }
}

$("login-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const button = $("login-submit");
  button.disabled = true;
  const problem = await tryLogin($("login-token").value.trim());
  button.disabled = false;
  if (problem) showLogin(problem);
  else enterShell();
});

$("logout").addEventListener("click", () => { session.token = ""; showLogin(""); });
window.addEventListener("pubnode:unauthorized", () => {
  if (!$("shell").hidden) { session.token = ""; showLogin("The admin token is no longer accepted; sign in again."); }
});

// ---- shell ---------------------------------------------------------------------------------

function buildNav() {
  fill($("nav"), views.map((v, i) =>
    h("li", {}, h("a", { href: "#/" + v.id, dataset: { view: v.id }, title: `${v.title} (g ${v.key} or ${i + 1})` },
      h("span", {}, v.title), h("kbd", {}, String(i + 1))))));
}

function renderKeysetSelect() {
  const select = $("keyset-select");
  const value = keysets.selected;
  fill(select, keysets.list.map((k) => h("option", { value: k.subscribeKey }, k.subscribeKey + (k.accessManager ? "  (PAM)" : ""))));
  select.value = value;
}

function renderNodeStatus(s) {
  const el = $("node-status");
  const text = el.querySelector(".status-text");
  if (s.error) { el.className = "node-status bad"; text.textContent = "unreachable: " + s.error.message; return; }
  const node = s.latest.node || {};
  el.className = "node-status " + (node.draining ? "warn" : node.ready === false ? "warn" : "ok");
  const state = node.draining ? "draining" : node.ready === false ? "not ready" : "ready";
  text.textContent = `${state} · up ${duration(node.uptimeSeconds || 0)}`;
}

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, "");
  const [id, q = ""] = raw.split("?");
  const params = Object.fromEntries(new URLSearchParams(q));
  return { view: views.find((v) => v.id === id) || views[0], params };
}

function route() {
  if ($("shell").hidden) return;
  const { view, params } = parseHash();
  if (current.cleanup) { try { current.cleanup(); } catch { /* view already gone */ } }
  current = { view, cleanup: null };
  for (const a of document.querySelectorAll("#nav a")) {
    if (a.dataset.view === view.id) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
  $("view-title").textContent = view.title;
  // The keyset picker applies to the views that work on one keyset.
  if (params.key && keysets.list.some((k) => k.subscribeKey === params.key)) selectKeyset(params.key);
  document.querySelector(".keyset-pick").hidden = !view.keyset;
  document.title = `${view.title} · PubNode console`;
  const root = $("view");
  root.replaceChildren();
  root.dataset.view = view.id;
  current.cleanup = view.module.mount(root, { params, navigate }) || null;
}

/** Opens a view, optionally with parameters (`navigate("presence", {channel: "chat"})`). */
export function navigate(id, params = {}) {
  const q = new URLSearchParams(params).toString();
  const hash = "#/" + id + (q ? "?" + q : "");
  if (location.hash === hash) route(); else location.hash = hash;
}

let shellReady = false;
async function enterShell() {
  $("login").hidden = true;
  $("shell").hidden = false;
  if (!shellReady) {
    shellReady = true;
    buildNav();
    window.addEventListener("hashchange", route);
    $("keyset-select").addEventListener("change", (e) => selectKeyset(e.target.value));
    keysets.listeners.add(renderKeysetSelect);
    onStats(renderNodeStatus);
  }
  startSampling();
  try { await refreshKeysets(); } catch (error) { toast("Keysets: " + error.message, "bad"); }
  route();
}

// ---- keyboard ------------------------------------------------------------------------------

function showHelp() {
  const key = (k) => h("kbd", {}, k);
  const rows = [
    ...views.map((v, i) => [[key("g"), " ", key(v.key), h("span", { class: "muted small" }, "  or  "), key(String(i + 1))], v.title]),
    [[key("/")], "Focus the view's filter or first field"],
    [[key("Enter")], "Submit the focused form; open the focused row"],
    [[key("Esc")], "Leave a field; close a dialog"],
    [[key("n")], "New debug client (in Debug clients)"],
    [[key("t")], "Toggle light / dark theme"],
    [[key("?")], "Show these shortcuts"],
  ];
  fill($("help-keys"), rows.map(([keys, text]) => h("tr", {}, h("td", {}, keys), h("td", {}, text))));
  $("help-dialog").showModal();
}

let pendingG = 0;
document.addEventListener("keydown", (e) => {
  if ($("shell").hidden || e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target;
  const typing = t instanceof HTMLElement && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName));
  if (e.key === "Escape" && typing) { t.blur(); return; }
  if (typing || document.querySelector("dialog[open]")) return;
  if (pendingG && Date.now() - pendingG < 1500) {
    pendingG = 0;
    const view = views.find((v) => v.key === e.key);
    if (view) { e.preventDefault(); navigate(view.id); }
    return;
  }
  if (e.key === "g") { pendingG = Date.now(); return; }
  if (/^[1-9]$/.test(e.key) && views[Number(e.key) - 1]) { e.preventDefault(); navigate(views[Number(e.key) - 1].id); return; }
  if (e.key === "/") {
    const target = document.querySelector("#view [data-filter]") || document.querySelector("#view input, #view textarea");
    if (target) { e.preventDefault(); target.focus(); target.select?.(); }
    return;
  }
  if (e.key === "t") { toggleTheme(); return; }
  if (e.key === "?") { showHelp(); return; }
  if (current.view && current.view.module.onKey && current.view.module.onKey(e.key)) e.preventDefault();
});
$("theme-toggle").addEventListener("click", toggleTheme);
$("help-toggle").addEventListener("click", showHelp);

// ---- start ---------------------------------------------------------------------------------

applyTheme(localStorage.getItem("pubnode.theme") || "");
matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => applyTheme(document.documentElement.dataset.theme || ""));
if (session.token) {
  tryLogin(session.token).then((problem) => (problem ? showLogin(problem) : enterShell()));
} else {
  showLogin("");
}
