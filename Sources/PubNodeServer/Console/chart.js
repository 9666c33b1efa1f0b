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
 * Draws `series` ([{key, color, label}]) of `points` ([{at: ms, [key]: number}]) over the last
 * `windowMs` ending now; with `hoverX` (CSS pixels from the left), marks the nearest sample.
 */
export function drawChart(canvas, points, series, { windowMs = 120_000, hoverX = null } = {}) {
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

  if (hoverX !== null && visible.length) {
    const nearest = visible.reduce((best, p) => (Math.abs(x(p.at) - hoverX) < Math.abs(x(best.at) - hoverX) ? p : best));
    const xx = Math.round(x(nearest.at)) + 0.5;
    g.strokeStyle = css("--faint");
    g.lineWidth = 1;
    g.beginPath(); g.moveTo(xx, pad.top); g.lineTo(xx, pad.top + plotH); g.stroke();
    const time = new Date(nearest.at).toLocaleTimeString();
    const lines = [time, ...series.map((s) => `${(nearest[s.key] || 0).toFixed(1)} ${s.label}`)];
    g.font = `12px ${font}`;
    const boxW = Math.max(...lines.map((l) => g.measureText(l).width)) + 20, boxH = lines.length * 17 + 10;
    const bx = xx + 10 + boxW > width - pad.right ? xx - 10 - boxW : xx + 10;
    g.fillStyle = css("--panel");
    g.strokeStyle = css("--border-strong");
    g.beginPath(); g.rect(bx, pad.top + 4, boxW, boxH); g.fill(); g.stroke();
    g.textAlign = "left";
    g.textBaseline = "top";
    lines.forEach((line, i) => {
      g.fillStyle = i === 0 ? css("--muted") : css(series[i - 1].color);
      g.fillText(line, bx + 10, pad.top + 10 + i * 17);
    });
    for (const s of series) {
      g.fillStyle = css(s.color);
      g.beginPath(); g.arc(xx, y(nearest[s.key] || 0), 3, 0, 2 * Math.PI); g.fill();
    }
  }
}
