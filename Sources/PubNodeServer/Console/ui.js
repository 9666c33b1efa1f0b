// DOM helpers shared by every view: element builder, tables, formatting, toasts, confirmation.

/** Builds an element: h("div", {class: "x", onclick: f}, child, "text", [more]). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key in el && typeof value !== "string") el[key] = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces an element's children. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A panel with a header (title, extra header content) and a body. */
export function panel(title, body, { actions = [], flush = false, id } = {}) {
  return h("section", { class: "panel", id },
    h("div", { class: "panel-head" }, h("h2", {}, title), h("span", { class: "spacer" }), actions),
    h("div", { class: flush ? "panel-body flush" : "panel-body" }, body));
}

/** A labelled input: field("Channel", input). */
export function field(label, control, extraClass = "") {
  const id = control.id || (control.id = "f-" + Math.random().toString(36).slice(2, 9));
  return h("div", { class: "field " + extraClass }, h("label", { for: id }, label), control);
}

/**
 * A table: columns [{label, value(row) -> node|string, num, class}], rows; options.onRow(row)
 * makes rows clickable (and keyboard-focusable: Enter opens them).
 */
export function table(columns, rows, { empty = "Nothing here yet.", onRow, rowClass, testId } = {}) {
  if (!rows.length) return h("div", { class: "empty", dataset: testId ? { test: testId + "-empty" } : {} }, empty);
  const head = h("tr", {}, columns.map((c) => h("th", { class: c.num ? "num" : "" }, c.label)));
  const body = rows.map((row) => {
    const tr = h("tr", { class: [onRow ? "clickable" : "", rowClass ? rowClass(row) : ""].join(" ").trim() },
      columns.map((c) => {
        const value = c.value(row);
        const title = c.title ? c.title(row) : typeof value === "string" && /\b(name|clip)\b/.test(c.class || "") ? value : undefined;
        return h("td", { class: [c.num ? "num" : "", c.class || ""].join(" ").trim(), title }, value);
      }));
    if (onRow) {
      tr.tabIndex = 0;
      tr.addEventListener("click", () => onRow(row, tr));
      tr.addEventListener("keydown", (e) => { if (e.key === "Enter") onRow(row, tr); });
    }
    return tr;
  });
  return h("table", { class: "data", dataset: testId ? { test: testId } : {} }, h("thead", {}, head), h("tbody", {}, body));
}

/** A badge; tone: ok, warn, bad, accent, violet, teal. */
export const badge = (text, tone = "") => h("span", { class: "badge " + tone }, text);

const numberFormat = new Intl.NumberFormat();
/** Integer with grouping. */
export const num = (n) => (n === undefined || n === null ? "–" : numberFormat.format(n));
/** A rate with one or two decimals. */
export const rate = (n) => (n === undefined || n === null || !isFinite(n) ? "–" : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));

/** Seconds as "3d 4h", "2h 5m", "4m 10s", "12s". */
export function duration(seconds) {
  const s = Math.floor(seconds);
  const d = Math.floor(s / 86400), hr = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
  if (d) return `${d}d ${hr}h`;
  if (hr) return `${hr}h ${m}m`;
  if (m) return `${m}m ${sec}s`;
  return `${sec}s`;
}

/** A PubNub timetoken (string, 1e-7 s) as local time "HH:MM:SS.mmm". */
export function ttTime(tt) {
  const ms = Number(BigInt(String(tt)) / 10000n);
  return clock(new Date(ms));
}

/** "HH:MM:SS.mmm" of a Date. */
export function clock(date) {
  const p = (n, w = 2) => String(n).padStart(w, "0");
  return `${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}.${p(date.getMilliseconds(), 3)}`;
}

/** A timetoken cell: monospace, with its local time as tooltip. */
export function tt(value) {
  let title = "";
  try { title = new Date(Number(BigInt(String(value)) / 10000n)).toISOString(); } catch { /* not a timetoken */ }
  return h("span", { class: "tt", title }, String(value));
}

/** JSON text, compact or indented. */
export function json(value, indent = 0) {
  return JSON.stringify(value, null, indent);
}

/** A <pre> of a JSON value. */
export const pre = (value) => h("pre", { class: "json" }, json(value, 2));

/** Shows a short message at the bottom right. */
export function toast(message, tone = "") {
  const el = h("div", { class: "toast " + tone, role: "status" }, message);
  document.getElementById("toasts").append(el);
  setTimeout(() => el.remove(), tone === "bad" ? 6000 : 3000);
}

/** Asks for confirmation in a modal dialog; resolves true when confirmed. */
export function confirmAction(title, text, okLabel = "Confirm") {
  const dialog = document.getElementById("confirm-dialog");
  document.getElementById("confirm-title").textContent = title;
  document.getElementById("confirm-text").textContent = text;
  document.getElementById("confirm-ok").textContent = okLabel;
  dialog.returnValue = "";
  dialog.showModal();
  document.getElementById("confirm-ok").focus();
  return new Promise((resolve) => dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true }));
}

/** Runs an async action for a button: disables it meanwhile and toasts errors. */
export async function busy(button, action) {
  if (button) button.disabled = true;
  try { return await action(); } catch (error) { toast(error.message || String(error), "bad"); return undefined; } finally { if (button) button.disabled = false; }
}

/** Submitting `form` (Enter in any input) runs `action`. */
export function onSubmit(form, action) {
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    busy(form.querySelector("button[type=submit]"), action);
  });
  return form;
}
