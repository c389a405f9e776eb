/**
 * A grid of coloured cells with row and column labels: the pair heat map (node × node), the fleet's node × check
 * matrix and the GPU × NIC distances share it. Cells carry their own colour (a CSS colour or variable), an optional
 * short text, a tooltip, and a mark (a thick outline) for what the reader must see first.
 */
import { type Html, h } from "../html.js";
import { px, shorten } from "./scale.js";

export type MatrixCell = {
  row: number;
  col: number;
  /** A CSS colour; without one the cell's `kind` class colours it (cheaper for large grids). */
  fill?: string;
  /** Short text inside the cell (drawn only when cells are large enough). */
  text?: string;
  /** The tooltip; left out for the unremarkable cells of a large grid. */
  title?: string;
  marked?: boolean;
  /** Extra class, e.g. `sev-error`, so tests and styles can find the cell's kind. */
  kind?: string;
};

export type MatrixLabel = { name: string; marked?: boolean; note?: string };

export type MatrixSpec = {
  rows: readonly MatrixLabel[];
  cols: readonly MatrixLabel[];
  cells: readonly MatrixCell[];
  /** Cell size in px (square), or width and height apart (a wide column for long check names). */
  cell?: number | { w: number; h: number };
  className: string;
  title: string;
};

const CHAR_W = 6.6;

export function matrixChart(spec: MatrixSpec): Html {
  const { w, h: hgt } = typeof spec.cell === "object" ? spec.cell : { w: spec.cell ?? 28, h: spec.cell ?? 28 };
  const size = Math.min(w, hgt);
  const rowLabelW = Math.min(24, Math.max(4, ...spec.rows.map((r) => labelText(r).length))) * CHAR_W + 12;
  const colLabelH = Math.min(24, Math.max(4, ...spec.cols.map((c) => labelText(c).length))) * CHAR_W * 0.72 + 16;
  const width = px(rowLabelW + spec.cols.length * w + colLabelH * 0.75 + 8);
  const height = px(colLabelH + spec.rows.length * hgt + 8);
  const x0 = rowLabelW;
  const y0 = colLabelH;
  const font = size >= 14 ? 11 : 9;
  const rowLabels = spec.rows.map(
    (r, i) =>
      h`<text class="row-label${r.marked ? " bad-label" : ""}" x="${x0 - 6}" y="${px(y0 + i * hgt + hgt / 2 + font / 3)}" text-anchor="end" font-size="${font}"><title>${r.name}${r.note ? ` (${r.note})` : ""}</title>${shorten(labelText(r))}</text>`,
  );
  const colLabels = spec.cols.map((c, j) => {
    const cx = px(x0 + j * w + w / 2 + 3);
    return h`<text class="col-label${c.marked ? " bad-label" : ""}" transform="translate(${cx} ${y0 - 6}) rotate(-45)" font-size="${font}"><title>${c.name}${c.note ? ` (${c.note})` : ""}</title>${shorten(labelText(c))}</text>`;
  });
  const showText = size >= 24;
  // Cells with nothing to say (no tooltip, text, colour or mark: the thousands of ok cells of a fleet) are drawn
  // as one path per kind; a 1,000-node page then holds a few hundred elements instead of ten thousand.
  const isPlain = (c: MatrixCell) => !c.title && !c.text && !c.fill && !c.marked;
  const paths = new Map<string, string[]>();
  for (const c of spec.cells.filter(isPlain)) {
    const d = `M${x0 + c.col * w + 0.5} ${y0 + c.row * hgt + 0.5}h${w - 1}v${hgt - 1}h-${w - 1}z`;
    const list = paths.get(c.kind ?? "");
    if (list) list.push(d);
    else paths.set(c.kind ?? "", [d]);
  }
  const drawnPlain = [...paths].map(
    ([kind, ds]) => h`<path class="cells${kind ? ` ${kind}` : ""}" data-cells="${ds.length}" d="${ds.join("")}"/>`,
  );
  const cells = spec.cells
    .filter((c) => !isPlain(c))
    .map((c) => {
      const x = x0 + c.col * w;
      const y = y0 + c.row * hgt;
      const text =
        showText && c.text
          ? h`<text x="${px(x + w / 2)}" y="${px(y + hgt / 2 + 4)}" text-anchor="middle" class="cell-text">${c.text}</text>`
          : null;
      const fill = c.fill ? h` style="fill:${c.fill}"` : null;
      const title = c.title ? h`<title>${c.title}</title>` : null;
      return h`<rect class="cell${c.kind ? ` ${c.kind}` : ""}" x="${x}" y="${y}" width="${w}" height="${hgt}"${fill}>${title}</rect>${text}`;
    });
  const marks = spec.cells
    .filter((c) => c.marked)
    .map(
      (c) =>
        h`<rect class="mark" x="${x0 + c.col * w + 1.5}" y="${y0 + c.row * hgt + 1.5}" width="${w - 3}" height="${hgt - 3}"/>`,
    );
  return h`<svg class="chart matrix ${spec.className}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" data-rows="${spec.rows.length}" data-cols="${spec.cols.length}" data-cells="${spec.cells.length}" aria-label="${spec.title}">
<title>${spec.title}</title>
${rowLabels}${colLabels}${drawnPlain}${cells}${marks}
</svg>`;
}

function labelText(l: MatrixLabel): string {
  return l.marked ? `✖ ${l.name}` : l.name;
}
