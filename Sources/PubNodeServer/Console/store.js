// Shared state: the /v1/admin/stats sampler (rates by differencing samples), the keyset list and
// the keyset selected in the top bar.

import { admin } from "./api.js";

const SAMPLE_MS = 1500;
const WINDOW_MS = 120_000;
const listeners = new Set();

export const stats = {
  /** The latest /v1/admin/stats answer. */
  latest: null,
  /** [{at: ms, publishes, deliveries}] rates per second, oldest first, the last two minutes. */
  rates: [],
  error: null,
  timer: 0,
  previous: null,
};

/** Calls `fn(stats)` after each sample; returns the unsubscribe function. */
export function onStats(fn) {
  listeners.add(fn);
  if (stats.latest || stats.error) fn(stats);
  return () => listeners.delete(fn);
}

async function sample() {
  try {
    const answer = await admin("/v1/admin/stats?channels=100");
    const at = performance.now();
    const t = answer.totals || {};
    const current = { at, published: (t.publishes || 0) + (t.signals || 0) + (t.fires || 0), deliveries: t.deliveries || 0 };
    if (stats.previous) {
      const seconds = (at - stats.previous.at) / 1000;
      if (seconds > 0) {
        stats.rates.push({
          at: Date.now(),
          publishes: Math.max(0, current.published - stats.previous.published) / seconds,
          deliveries: Math.max(0, current.deliveries - stats.previous.deliveries) / seconds,
        });
      }
      const cutoff = Date.now() - WINDOW_MS;
      while (stats.rates.length && stats.rates[0].at < cutoff) stats.rates.shift();
    }
    stats.previous = current;
    stats.latest = answer;
    stats.error = null;
  } catch (error) {
    stats.error = error;
    if (error.status === 401 || error.status === 403) window.dispatchEvent(new CustomEvent("pubnode:unauthorized"));
  }
  for (const fn of listeners) fn(stats);
}

/** Starts sampling every 1.5 s (idempotent). */
export function startSampling() {
  if (stats.timer) return;
  sample();
  stats.timer = setInterval(sample, SAMPLE_MS);
}

/** Stops sampling and forgets the samples. */
export function stopSampling() {
  clearInterval(stats.timer);
  Object.assign(stats, { latest: null, rates: [], error: null, timer: 0, previous: null });
}

/** The keysets of GET /v1/admin/keysets, with secrets learned this session (create/rotate). */
export const keysets = {
  list: [],
  secrets: new Map(),
  selected: localStorage.getItem("pubnode.keyset") || "",
  listeners: new Set(),
};

/** Reloads the keyset list and notifies listeners. */
export async function refreshKeysets() {
  const answer = await admin("/v1/admin/keysets");
  keysets.list = answer.keysets || [];
  if (!keysets.list.some((k) => k.subscribeKey === keysets.selected)) {
    keysets.selected = keysets.list[0] ? keysets.list[0].subscribeKey : "";
  }
  for (const fn of keysets.listeners) fn(keysets);
  return keysets.list;
}

/** Selects the keyset used by presence, history and groups. */
export function selectKeyset(subscribeKey) {
  keysets.selected = subscribeKey;
  localStorage.setItem("pubnode.keyset", subscribeKey);
  for (const fn of keysets.listeners) fn(keysets);
}

/** The selected keyset object (or undefined). */
export const currentKeyset = () => keysets.list.find((k) => k.subscribeKey === keysets.selected);
