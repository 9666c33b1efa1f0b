// Overview: node counters, publish and delivery rates (live chart), keysets and busiest channels.

import { fill, h, num, panel, rate, table, badge, tt, duration } from "./ui.js";
import { onStats, stats } from "./store.js";
import { drawChart } from "./chart.js";

const SERIES = [
  { key: "publishes", color: "--chart-1", label: "published / s" },
  { key: "deliveries", color: "--chart-2", label: "delivered / s" },
];

function card(label, value, sub, test) {
  return h("div", { class: "stat", dataset: { test } }, h("div", { class: "label" }, label),
    h("div", { class: "value" }, value), h("div", { class: "sub" }, sub || "\u00a0"));
}

export function mount(root, { navigate }) {
  const cards = h("div", { class: "stats", dataset: { test: "overview-cards" } });
  const canvas = h("canvas", { "aria-label": "Publish and delivery rates over the last two minutes", role: "img" });
  const legend = h("div", { class: "legend" });
  let hoverX = null;
  const keysetsBox = h("div", {});
  const channelsBox = h("div", {});
  const nodeBox = h("div", {});
  root.append(cards,
    h("div", { class: "stack" },
      panel("Throughput · last 2 minutes", h("div", { class: "chart-wrap" }, canvas), { actions: [legend] }),
      h("div", { class: "split" },
        panel("Busiest channels", channelsBox, { flush: true, actions: [h("a", { href: "#/channels", class: "small" }, "All channels →")] }),
        h("div", { class: "stack" }, panel("Keysets", keysetsBox, { flush: true }), panel("Node", nodeBox)))));

  const render = (s) => {
    if (!s.latest) return;
    const { node = {}, totals = {} } = s.latest;
    const last = s.rates[s.rates.length - 1] || { publishes: 0, deliveries: 0 };
    fill(cards,
      card("Connections", num(node.connections), `${num(node.parkedPolls)} parked subscribers`, "connections"),
      card("Channels", num(totals.channels), `${num(totals.occupancy)} present`, "channels"),
      card("Publish rate", rate(last.publishes), "messages / s", "publish-rate"),
      card("Delivery rate", rate(last.deliveries), "messages / s", "delivery-rate"),
      card("Published", num(totals.publishes), `${num(totals.signals)} signals · ${num(totals.fires)} fires`, "publishes"),
      card("Delivered", num(totals.deliveries), `${num(totals.bufferGaps)} gaps · ${num(totals.rateLimited)} limited`, "deliveries"));
    fill(legend, SERIES.map((x) => h("span", {}, h("span", { class: "sw " + (x.key === "publishes" ? "sw-1" : "sw-2") }), x.label)));
    drawChart(canvas, s.rates, SERIES, { hoverX });
    canvas.dataset.samples = String(s.rates.length);
    fill(keysetsBox, table([
      { label: "Subscribe key", value: (k) => k.subscribeKey, class: "name" },
      { label: "Channels", value: (k) => num(k.channels), num: true },
      { label: "Present", value: (k) => num(k.occupancy), num: true },
      { label: "Published", value: (k) => num(k.publishes), num: true },
    ], s.latest.keysets || [], { empty: "No keysets." }));
    fill(channelsBox, table([
      { label: "Channel", value: (c) => c.name, class: "name" },
      { label: "Keyset", value: (c) => c.subscribeKey, class: "name" },
      { label: "msg/s", value: (c) => rate(c.perSecond), num: true },
      { label: "Present", value: (c) => num(c.occupancy), num: true },
      { label: "Parked", value: (c) => num(c.parked), num: true },
    ], (s.latest.channels || []).slice(0, 8), {
      empty: "No channels yet: publish or subscribe to create one.",
      onRow: (c) => navigate("channels", { key: c.subscribeKey, channel: c.name }),
    }));
    fill(nodeBox, h("dl", { class: "kv" },
      h("dt", {}, "State"), h("dd", {}, node.draining ? badge("draining", "warn") : node.ready === false ? badge("not ready", "warn") : badge("ready", "ok")),
      h("dt", {}, "Uptime"), h("dd", {}, duration(node.uptimeSeconds || 0)),
      h("dt", {}, "Started"), h("dd", {}, node.startedAt ? new Date(node.startedAt).toLocaleString() : "–"),
      h("dt", {}, "Timetoken"), h("dd", {}, node.timetoken ? tt(node.timetoken) : "–")));
  };
  const unsubscribe = onStats(render);
  const redraw = () => drawChart(canvas, stats.rates, SERIES, { hoverX });
  canvas.addEventListener("mousemove", (e) => { hoverX = e.offsetX; redraw(); });
  canvas.addEventListener("mouseleave", () => { hoverX = null; redraw(); });
  window.addEventListener("resize", redraw);
  window.addEventListener("pubnode:theme", redraw);
  return () => {
    unsubscribe();
    window.removeEventListener("resize", redraw);
    window.removeEventListener("pubnode:theme", redraw);
  };
}
