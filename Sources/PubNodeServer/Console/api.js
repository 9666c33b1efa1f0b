// Same-origin HTTP: the admin API (bearer token) and the PubNub endpoints of the node.

const TOKEN_KEY = "pubnode.adminToken";

/** An error carrying the HTTP status and the node's message. */
export class ApiError extends Error {
  constructor(status, message, body) { super(message); this.status = status; this.body = body; }
}

export const session = {
  get token() { return sessionStorage.getItem(TOKEN_KEY) || ""; },
  set token(value) { if (value) sessionStorage.setItem(TOKEN_KEY, value); else sessionStorage.removeItem(TOKEN_KEY); },
};

/** Access Manager tokens the console uses per subscribe key (this tab only). */
export const authTokens = new Map();

/** The message of a PubNub-shaped error body (object or array form). */
function messageOf(body, status) {
  if (Array.isArray(body) && typeof body[1] === "string") return body[1];
  if (body && typeof body === "object") {
    if (typeof body.message === "string" && body.message) return body.message;
    if (typeof body.error_message === "string" && body.error_message) return body.error_message;
    if (body.error && typeof body.error.message === "string") return body.error.message;
  }
  return `HTTP ${status}`;
}

/** Fetches `path`, parses JSON, throws ApiError for a non-2xx answer. */
export async function request(path, { method = "GET", body, admin = false, signal, headers = {} } = {}) {
  const init = { method, signal, headers: { ...headers }, cache: "no-store" };
  if (admin) init.headers.Authorization = `Bearer ${session.token}`;
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let parsed = text;
  try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
  if (!response.ok) throw new ApiError(response.status, messageOf(parsed, response.status), parsed);
  return parsed;
}

/** Admin endpoint call. */
export const admin = (path, options = {}) => request(path, { ...options, admin: true });

/** Percent-encodes one path segment. */
export const seg = (value) => encodeURIComponent(value);
/** A comma list of names as one path segment (each name encoded). */
export const list = (names) => (names.length ? names.map(seg).join(",") : ",");

/**
 * A query string from an object, skipping empty values; adds the keyset's auth token. Values are
 * percent-encoded (never `+` for a space: the node reads `+` as a plus, as PubNub does).
 */
export function query(params, subscribeKey) {
  const pairs = Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== "");
  const auth = subscribeKey && authTokens.get(subscribeKey);
  if (auth && !pairs.some(([k]) => k === "auth")) pairs.push(["auth", auth]);
  const text = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join("&");
  return text ? "?" + text : "";
}

/** The uuid the console itself uses for presence, history and group calls. */
export const consoleUUID = "pubnode-console";
