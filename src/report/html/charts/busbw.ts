/**
 * Bus bandwidth against message size, one line per run, on a log2 size axis, with the expected band: the line
 * rate the runs should reach (shaded down to where the judge calls a run slow) and the median of the runs'
 * large-message figures.
 */
import { bytesText, gbpsText } from "../format.js";
import { type Html, h } from "../html.js";
import { linearTicks, log2Ticks, px, shorten } from "./scale.js";

export type BusBwSeries = { name: string; points: readonly { bytes: number; busbw: number }[] };

export type BusBwChartSpec = {
  series: readonly BusBwSeries[];
  /** The figure the runs should reach (GB/s) and where it comes from. */
  expected?: { GBps: number; lowGBps: number; source: string } | null;
  /** The median large-message bus bandwidth of the runs (GB/s), drawn when there are several runs. */
  medianGBps?: number | null;
};

const W = 900;
const H = 380;
const M = { left: 70, right: 20, top: 20, bottom: 48 };

/** The series colour: a CSS variable of the page's palette (light and dark). */
export const seriesColour = (i: number): string => `var(--s${i % 8})`;

export function busBwChart(spec: BusBwChartSpec): Html {
  const points = spec.series.flatMap((s) => s.points).filter((p) => p.bytes > 0);
  if (points.length === 0) return h`<p class="none">No result rows to draw.</p>`;
  const lo = Math.log2(Math.min(...points.map((p) => p.bytes)));
  const hi = Math.log2(Math.max(...points.map((p) => p.bytes)));
  const top = Math.max(...points.map((p) => p.busbw), spec.expected?.GBps ?? 0, spec.medianGBps ?? 0) * 1.08;
  const yTicks = linearTicks(top);
  const yMax = yTicks[yTicks.length - 1]!;
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const x = (bytes: number) => px(M.left + (hi === lo ? plotW / 2 : ((Math.log2(bytes) - lo) / (hi - lo)) * plotW));
  const y = (gbps: number) => px(M.top + plotH - (gbps / yMax) * plotH);

  const grid = yTicks.map(
    (t) => h`<line class="grid" x1="${M.left}" x2="${W - M.right}" y1="${y(t)}" y2="${y(t)}"/>
<text class="muted" x="${M.left - 6}" y="${y(t) + 4}" text-anchor="end">${t}</text>`,
  );
  const xTicks = log2Ticks(Math.ceil(lo), Math.floor(hi)).map(
    (e) => h`<line class="axis" x1="${x(2 ** e)}" x2="${x(2 ** e)}" y1="${M.top + plotH}" y2="${M.top + plotH + 5}"/>
<text class="muted" x="${x(2 ** e)}" y="${M.top + plotH + 18}" text-anchor="middle">${bytesText(2 ** e)}</text>`,
  );
  const ex = spec.expected;
  const band = ex
    ? h`<rect class="band" x="${M.left}" width="${plotW}" y="${y(ex.GBps)}" height="${px(y(ex.lowGBps) - y(ex.GBps))}"><title>expected ${gbpsText(ex.GBps)} (${ex.source}); slow below ${gbpsText(ex.lowGBps)}</title></rect>
<line class="rate" x1="${M.left}" x2="${W - M.right}" y1="${y(ex.GBps)}" y2="${y(ex.GBps)}"/>
<text x="${W - M.right - 4}" y="${y(ex.GBps) + 14}" text-anchor="end">expected ${gbpsText(ex.GBps)}</text>`
    : null;
  const median =
    spec.medianGBps != null
      ? h`<line class="median" x1="${M.left}" x2="${W - M.right}" y1="${y(spec.medianGBps)}" y2="${y(spec.medianGBps)}"/>
<text x="${M.left + 6}" y="${y(spec.medianGBps) - 5}">median of the runs ${gbpsText(spec.medianGBps)}</text>`
      : null;
  const series = spec.series.map((s, i) => {
    const pts = [...s.points].filter((p) => p.bytes > 0).sort((a, b) => a.bytes - b.bytes);
    const colour = seriesColour(i);
    const path = pts.map((p) => `${x(p.bytes)},${y(p.busbw)}`).join(" ");
    const dots = pts.map(
      (p) =>
        h`<circle class="point" cx="${x(p.bytes)}" cy="${y(p.busbw)}" r="3" fill="${colour}"><title>${s.name}: ${bytesText(p.bytes)}, ${gbpsText(p.busbw)}</title></circle>`,
    );
    return h`<g class="series" data-name="${s.name}"><polyline class="line" stroke="${colour}" points="${path}"/>${dots}</g>`;
  });
  const legend = spec.series.map(
    (s, i) => h`<span title="${s.name}"><i style="background:${seriesColour(i)}"></i>${shorten(s.name, 64)}</span>`,
  );
  return h`<svg class="chart busbw" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" data-series="${spec.series.length}" aria-label="bus bandwidth against message size">
<title>Bus bandwidth (GB/s) against message size, ${spec.series.length} run(s)</title>
${band}${grid}
<line class="axis" x1="${M.left}" x2="${W - M.right}" y1="${M.top + plotH}" y2="${M.top + plotH}"/>
<line class="axis" x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${M.top + plotH}"/>
${xTicks}${median}${series}
<text class="muted" x="${M.left + plotW / 2}" y="${H - 8}" text-anchor="middle">message size (bytes, log scale)</text>
<text class="muted" transform="translate(16 ${M.top + plotH / 2}) rotate(-90)" text-anchor="middle">bus bandwidth (GB/s)</text>
</svg>
<div class="legend">${legend}${ex ? h`<span><i style="background:var(--band);border:1px dashed var(--ok)"></i>expected band: ${gbpsText(ex.lowGBps)} to ${gbpsText(ex.GBps)} (${ex.source})</span>` : null}${spec.medianGBps != null ? h`<span><i style="background:var(--accent)"></i>median of the runs' large-message bus bandwidth</span>` : null}</div>`;
}
