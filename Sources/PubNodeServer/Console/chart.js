// A small time-series line chart drawn on a <canvas> (no library): two minutes of rates.

function css(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

/** A top of the y axis whose quarters are round numbers. */
function niceMax(value) {
  const quarter = Math.max(value / 4, 0.25);
  const power = 10 ** Math.floor(Math.log10(quarter));
  for (const step of [1, 2, 2.5, 5, 10]) if (quarter <= step * power) return 4 * step * power;
  return 40 * power;
}

/**
 * Draws `series` ([{key, color}]) of `points` ([{at: ms, [key]: number}]) over the last
 * `windowMs` ending now.
 */
export function drawChart(canvas, points, series, windowMs = 120_000) {
  const dpr = window.devicePixelRatio || 1;
  const width = canvas.clientWidth, height = canvas.clientHeight;
  if (!width || !height) return;
  if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
  }
  const g = canvas.getContext("2d");
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, width, height);

  const pad = { left: 44, right: 12, top: 10, bottom: 22 };
  const plotW = width - pad.left - pad.right, plotH = height - pad.top - pad.bottom;
  const now = Date.now(), from = now - windowMs;
  const peak = Math.max(0, ...points.flatMap((p) => series.map((s) => p[s.key] || 0)));
  const top = niceMax(peak * 1.1);
  const x = (at) => pad.left + ((at - from) / windowMs) * plotW;
  const y = (v) => pad.top + plotH - (v / top) * plotH;

  const font = getComputedStyle(document.body).fontFamily;
  g.font = `11px ${font}`;
  g.fillStyle = css("--faint");
  g.strokeStyle = css("--grid");
  g.lineWidth = 1;
  g.textAlign = "right";
  g.textBaseline = "middle";
  for (let i = 0; i <= 4; i++) {
    const v = (top / 4) * i, yy = Math.round(y(v)) + 0.5;
    g.beginPath(); g.moveTo(pad.left, yy); g.lineTo(width - pad.right, yy); g.stroke();
    g.fillText(Number.isInteger(v) ? String(v) : v.toFixed(v < 1 ? 2 : 1), pad.left - 8, yy);
  }
  g.textAlign = "center";
  g.textBaseline = "top";
  for (let s = 120; s >= 0; s -= 30) {
    const xx = x(now - s * 1000);
    g.fillText(s === 0 ? "now" : `-${s}s`, Math.min(Math.max(xx, pad.left + 12), width - pad.right - 12), height - pad.bottom + 6);
  }

  const visible = points.filter((p) => p.at >= from - 5000);
  for (const s of series) {
    if (visible.length < 2) continue;
    const color = css(s.color);
    g.beginPath();
    visible.forEach((p, i) => (i ? g.lineTo(x(p.at), y(p[s.key])) : g.moveTo(x(p.at), y(p[s.key]))));
    g.strokeStyle = color;
    g.lineWidth = 1.75;
    g.lineJoin = "round";
    g.stroke();
    g.lineTo(x(visible[visible.length - 1].at), y(0));
    g.lineTo(x(visible[0].at), y(0));
    g.closePath();
    g.globalAlpha = 0.08;
    g.fillStyle = color;
    g.fill();
    g.globalAlpha = 1;
  }
}
