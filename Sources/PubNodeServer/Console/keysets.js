// Keysets & tokens: list keysets with counters; create, rotate, disable/enable, delete; mint an
// Access Manager token (POST /v3/pam/{sub}/grant signed with the keyset's secret).

import { admin, authTokens, request, seg, consoleUUID } from "./api.js";
import { badge, busy, confirmAction, field, fill, h, num, onSubmit, panel, table, toast } from "./ui.js";
import { keysets, refreshKeysets } from "./store.js";
import { canonicalQuery, signV2 } from "./sign.js";
import { parseToken } from "./token.js";

const BITS = [["read", 1], ["write", 2], ["manage", 4], ["delete", 8], ["get", 32], ["update", 64], ["join", 128]];

/** What a token grants, as a small table (its signature is not checked here). */
function tokenDetails(token) {
  let t;
  try { t = parseToken(token); } catch (error) { return h("div", { class: "muted" }, "Not a token: " + error.message); }
  return h("div", { class: "stack" },
    h("dl", { class: "kv" },
      h("dt", {}, "Issued"), h("dd", {}, t.issued.toLocaleString()),
      h("dt", {}, "Expires"), h("dd", {}, `${t.expires.toLocaleString()} (ttl ${t.ttl} min)`),
      h("dt", {}, "Authorized uuid"), h("dd", {}, t.uuid || "any"),
      t.meta && Object.keys(t.meta).length ? [h("dt", {}, "Meta"), h("dd", {}, JSON.stringify(t.meta))] : null),
    table([
      { label: "Type", value: (r) => r.kind },
      { label: "Match", value: (r) => r.match },
      { label: "Name", value: (r) => r.name, class: "name" },
      { label: "Permissions", value: (r) => r.permissions },
    ], t.resources, { empty: "Grants no resources." }));
}

export function mount(root, { navigate }) {
  const listBox = h("div", { dataset: { test: "keysets" } });
  const secretBox = h("div", {});

  function remember(keyset) {
    if (keyset && keyset.secretKey) {
      keysets.secrets.set(keyset.subscribeKey, keyset.secretKey);
      fill(secretBox, h("div", { class: "secret", dataset: { test: "new-secret" } },
        h("b", {}, `Secret of ${keyset.subscribeKey}`), " (shown once; kept in this tab for signing): ", keyset.secretKey));
    }
  }

  async function act(button, label, path, options, confirmText) {
    if (confirmText && !(await confirmAction(label, confirmText, label))) return;
    await busy(button, async () => {
      const answer = await admin(path, options);
      remember(answer.keyset);
      toast(`${label}: done`);
      await renderList();
      renderGrant();
    });
  }

  async function renderList() {
    try { await refreshKeysets(); } catch (error) { fill(listBox, h("div", { class: "empty" }, error.message)); return; }
    fill(listBox, table([
      { label: "Subscribe key", value: (k) => k.subscribeKey, class: "name" },
      { label: "Publish key", value: (k) => k.publishKey, class: "name short" },
      { label: "Access", value: (k) => h("span", { class: "badges" }, k.accessManager ? badge("access manager", "violet") : badge("open"),
        k.disabled ? badge("disabled", "bad") : null) },
      { label: "Admitted", value: (k) => num(k.counters && k.counters.admitted), num: true },
      { label: "Refused", value: (k) => num(k.counters && k.counters.refused), num: true },
      { label: "", value: (k) => (k.origin !== "created" ? h("span", { class: "faint small" }, "from configuration") : h("div", { class: "cell-actions" },
        h("button", { type: "button", class: "btn btn-sm", onclick: (e) => act(e.currentTarget, "Rotate secret", `/v1/admin/keysets/${seg(k.subscribeKey)}/rotate`, { method: "POST" },
          `Rotate the secret of ${k.subscribeKey}? Every token and signature made with the old one stops working at once.`) }, "Rotate"),
        h("button", { type: "button", class: "btn btn-sm", onclick: (e) => act(e.currentTarget, k.disabled ? "Enable" : "Disable",
          `/v1/admin/keysets/${seg(k.subscribeKey)}/${k.disabled ? "enable" : "disable"}`, { method: "POST" },
          k.disabled ? null : `Disable ${k.subscribeKey}? Every request on it is refused until it is enabled again.`) }, k.disabled ? "Enable" : "Disable"),
        h("button", { type: "button", class: "btn btn-sm btn-danger", onclick: (e) => act(e.currentTarget, "Delete keyset", `/v1/admin/keysets/${seg(k.subscribeKey)}`, { method: "DELETE" },
          `Delete ${k.subscribeKey} with its channels, groups, presence, history and tokens? This cannot be undone.`) }, "Delete"))) },
    ], keysets.list, { empty: "No keysets." }));
  }

  // ---- create ----------------------------------------------------------------------------
  const pubInput = h("input", { type: "text", class: "mono", placeholder: "generated", dataset: { field: "new-pub" } });
  const subInput = h("input", { type: "text", class: "mono", placeholder: "generated", dataset: { field: "new-sub" } });
  const amInput = h("input", { type: "checkbox", checked: true });
  const createForm = onSubmit(h("form", { class: "row" },
    field("Publish key", pubInput, "grow"), field("Subscribe key", subInput, "grow"),
    h("label", { class: "check" }, amInput, "Access Manager"),
    h("button", { type: "submit", class: "btn btn-primary", dataset: { action: "create-keyset" } }, "Create keyset")), async () => {
    const body = { accessManager: amInput.checked };
    if (pubInput.value.trim()) body.publishKey = pubInput.value.trim();
    if (subInput.value.trim()) body.subscribeKey = subInput.value.trim();
    const answer = await admin("/v1/admin/keysets", { method: "POST", body });
    remember(answer.keyset);
    toast(`Created ${answer.keyset.subscribeKey}`);
    pubInput.value = subInput.value = "";
    await renderList();
    renderGrant();
  });

  // ---- grant -----------------------------------------------------------------------------
  const grantBox = h("div", {});
  function resourceRow() {
    const kind = h("select", { "aria-label": "Resource type" }, ["channels", "groups", "uuids"].map((k) => h("option", { value: k }, k)));
    const match = h("select", { "aria-label": "Match" }, h("option", { value: "resources" }, "exact"), h("option", { value: "patterns" }, "pattern"));
    const name = h("input", { type: "text", class: "mono", placeholder: "name or ^regex$", "aria-label": "Resource name" });
    const perms = h("div", { class: "perms" }, BITS.map(([label, bit]) =>
      h("label", { class: "check" }, h("input", { type: "checkbox", value: String(bit), checked: bit <= 2 }), label)));
    const row = h("div", { class: "perm-row" }, kind, match, name, perms,
      h("button", { type: "button", class: "btn btn-sm btn-ghost", "aria-label": "Remove resource", onclick: () => row.remove() }, "×"));
    row.read = () => ({ kind: kind.value, match: match.value, name: name.value.trim(),
      bits: [...perms.querySelectorAll("input:checked")].reduce((n, i) => n | Number(i.value), 0) });
    return row;
  }

  function renderGrant() {
    const eligible = keysets.list.filter((k) => k.accessManager || keysets.secrets.has(k.subscribeKey));
    if (!eligible.length) { fill(grantBox, h("div", { class: "empty" }, "No Access Manager keyset. Create one above.")); return; }
    const keySelect = h("select", { dataset: { field: "grant-keyset" } }, eligible.map((k) => h("option", { value: k.subscribeKey }, k.subscribeKey)));
    const secretInput = h("input", { type: "password", class: "mono", placeholder: "the keyset's secret key", dataset: { field: "grant-secret" } });
    const syncSecret = () => { secretInput.value = keysets.secrets.get(keySelect.value) || ""; };
    keySelect.addEventListener("change", syncSecret);
    syncSecret();
    const ttlInput = h("input", { type: "number", min: 1, max: 43200, value: 60, dataset: { field: "grant-ttl" } });
    const uuidInput = h("input", { type: "text", class: "mono", placeholder: "any uuid", dataset: { field: "grant-uuid" } });
    const rows = h("div", {}, resourceRow());
    const output = h("div", {});
    const form = onSubmit(h("form", { class: "stack" },
      h("div", { class: "row" }, field("Keyset", keySelect), field("Secret key", secretInput, "grow"),
        field("TTL (minutes)", ttlInput), field("Authorized uuid", uuidInput)),
      h("div", {}, h("label", {}, "Resources"), rows,
        h("button", { type: "button", class: "btn btn-sm btn-ghost", onclick: () => rows.append(resourceRow()) }, "+ Add resource")),
      h("div", {}, h("button", { type: "submit", class: "btn btn-primary", dataset: { action: "grant" } }, "Grant token")),
      output), async () => {
      const subscribeKey = keySelect.value;
      const keyset = keysets.list.find((k) => k.subscribeKey === subscribeKey);
      const secret = secretInput.value;
      if (!secret) throw new Error("The secret key is needed to sign the grant");
      const permissions = { resources: { channels: {}, groups: {}, uuids: {}, users: {}, spaces: {} },
        patterns: { channels: {}, groups: {}, uuids: {}, users: {}, spaces: {} }, meta: {} };
      for (const row of rows.children) {
        const r = row.read();
        if (r.name && r.bits) permissions[r.match][r.kind][r.name] = r.bits;
      }
      if (uuidInput.value.trim()) permissions.uuid = uuidInput.value.trim();
      const body = JSON.stringify({ ttl: Number(ttlInput.value), permissions });
      const path = `/v3/pam/${seg(subscribeKey)}/grant`;
      const params = { timestamp: String(Math.floor(Date.now() / 1000)), uuid: consoleUUID };
      const signature = await signV2({ secret, method: "POST", publishKey: keyset.publishKey, path, params, body });
      const answer = await request(`${path}?${canonicalQuery(params)}&signature=${encodeURIComponent(signature)}`, { method: "POST", body });
      keysets.secrets.set(subscribeKey, secret);
      const token = answer.data.token;
      fill(output, h("div", { class: "stack" },
        h("div", { class: "token-out", dataset: { test: "token" } }, token),
        tokenDetails(token),
        h("div", { class: "row" },
          h("button", { type: "button", class: "btn btn-sm", onclick: () => navigator.clipboard?.writeText(token).then(() => toast("Token copied")) }, "Copy"),
          h("button", { type: "button", class: "btn btn-sm", dataset: { action: "token-client" },
            onclick: () => navigate("clients", { key: subscribeKey, auth: token }) }, "Open a debug client with it"),
          h("button", { type: "button", class: "btn btn-sm", onclick: () => { authTokens.set(subscribeKey, token); toast(`The console now uses this token on ${subscribeKey}`); } },
            "Use for the console's requests on this keyset"))));
    });
    fill(grantBox, form);
  }

  const parseInput = h("input", { type: "text", class: "mono", placeholder: "paste a token", dataset: { field: "parse-token" } });
  const parsed = h("div", {});
  const parseForm = onSubmit(h("form", { class: "row" }, field("Token", parseInput, "grow"),
    h("button", { type: "submit", class: "btn" }, "Parse")), async () => { fill(parsed, tokenDetails(parseInput.value)); });

  root.append(h("div", { class: "stack" },
    panel("Keysets", h("div", {}, listBox), { flush: true, actions: [h("button", { class: "btn btn-sm", onclick: () => renderList() }, "Refresh")] }),
    panel("Create a keyset", h("div", { class: "stack" }, createForm, secretBox)),
    panel("Grant a token", grantBox),
    panel("Parse a token", h("div", { class: "stack" }, parseForm, parsed))));
  renderList().then(renderGrant);
}
