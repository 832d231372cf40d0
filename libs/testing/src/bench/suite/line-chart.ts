import { Resvg } from '@resvg/resvg-js';

export interface Series {
  name: string;
  points: [number, number][];
}

export interface ChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  /** Logarithmic x axis (data sizes). */
  logX?: boolean;
}

// Tableau 20: the dark shade of each hue first, then the light ones (15+ series stay apart).
const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf',
  '#aec7e8', '#ffbb78', '#98df8a', '#ff9896', '#c5b0d5', '#c49c94', '#f7b6d2', '#c7c7c7', '#dbdb8d', '#9edae5'];
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fmt = (n: number) => (n >= 1e6 ? `${n / 1e6}M` : n >= 1e3 ? `${n / 1e3}k` : Number(n.toPrecision(3)).toString());

/** A line chart as SVG (no dependencies): one line with dots per series, axes with ticks, a legend at the right. */
export function lineChartSvg(spec: ChartSpec): string {
  const W = 960, H = 480, L = 70, R = 360, T = 40, B = 50;
  const pts = spec.series.flatMap((s) => s.points).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  const xs = [...new Set(pts.map(([x]) => x))].sort((a, b) => a - b);
  const tx = (x: number) => (spec.logX ? Math.log10(x) : x);
  const [x0, x1] = [tx(xs[0] ?? 0), tx(xs[xs.length - 1] ?? 1)];
  const yMax = Math.max(...pts.map(([, y]) => y), 1e-3) * 1.1;
  const px = (x: number) => L + (x1 === x0 ? (W - L - R) / 2 : ((tx(x) - x0) / (x1 - x0)) * (W - L - R));
  const py = (y: number) => H - B - (y / yMax) * (H - T - B);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="DejaVu Sans, sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="22" text-anchor="middle" font-size="15">${esc(spec.title)}</text>`,
    `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="black"/>`,
    `<line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="black"/>`,
    `<text x="${(L + W - R) / 2}" y="${H - 12}" text-anchor="middle">${esc(spec.xLabel)}</text>`,
    `<text transform="translate(18 ${(T + H - B) / 2}) rotate(-90)" text-anchor="middle">${esc(spec.yLabel)}</text>`,
  ];
  for (const x of xs) out.push(`<line x1="${px(x)}" y1="${H - B}" x2="${px(x)}" y2="${H - B + 5}" stroke="black"/><text x="${px(x)}" y="${H - B + 18}" text-anchor="middle">${fmt(x)}</text>`);
  for (let i = 0; i <= 5; i++) {
    const y = (yMax / 5) * i;
    out.push(`<line x1="${L}" y1="${py(y)}" x2="${W - R}" y2="${py(y)}" stroke="#ddd"/><text x="${L - 6}" y="${py(y) + 4}" text-anchor="end">${fmt(y)}</text>`);
  }
  spec.series.forEach((s, i) => {
    const c = COLORS[i % COLORS.length]!;
    const p = s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y)).sort((a, b) => a[0] - b[0]);
    if (p.length > 1) out.push(`<polyline fill="none" stroke="${c}" stroke-width="2"${i >= 10 ? ' stroke-dasharray="6 3"' : ''} points="${p.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ')}"/>`);
    for (const [x, y] of p) out.push(`<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3" fill="${c}"/>`);
    const ly = T + 10 + i * 18;
    out.push(`<rect x="${W - R + 15}" y="${ly - 9}" width="12" height="12" fill="${c}"/><text x="${W - R + 32}" y="${ly + 1}" font-size="11">${esc(s.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n');
}

/** The chart as PNG (resvg, prebuilt; text with the system's fonts). */
export function lineChartPng(spec: ChartSpec): Buffer {
  return new Resvg(lineChartSvg(spec), { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } }).render().asPng();
}
