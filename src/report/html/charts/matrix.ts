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
  fill: string;
  /** Short text inside the cell (drawn only when cells are large enough). */
  text?: string;
  title: string;
  marked?: boolean;
  /** Extra class, e.g. `sev-error`, so tests and styles can find the cell's kind. */
  kind?: string;
};

export type MatrixLabel = { name: string; marked?: boolean; note?: string };

export type MatrixSpec = {
  rows: readonly MatrixLabel[];
  cols: readonly MatrixLabel[];
  cells: readonly MatrixCell[];
  cell?: number;
  className: string;
  title: string;
};

const CHAR_W = 6.6;

export function matrixChart(spec: MatrixSpec): Html {
  const size = spec.cell ?? 28;
  const rowLabelW = Math.min(24, Math.max(4, ...spec.rows.map((r) => labelText(r).length))) * CHAR_W + 12;
  const colLabelH = Math.min(24, Math.max(4, ...spec.cols.map((c) => labelText(c).length))) * CHAR_W * 0.72 + 16;
  const width = px(rowLabelW + spec.cols.length * size + colLabelH * 0.75 + 8);
  const height = px(colLabelH + spec.rows.length * size + 8);
  const x0 = rowLabelW;
  const y0 = colLabelH;
  const font = size >= 14 ? 11 : 9;
  const rowLabels = spec.rows.map(
    (r, i) =>
      h`<text class="row-label${r.marked ? " bad-label" : ""}" x="${x0 - 6}" y="${px(y0 + i * size + size / 2 + font / 3)}" text-anchor="end" font-size="${font}"><title>${r.name}${r.note ? ` (${r.note})` : ""}</title>${shorten(labelText(r))}</text>`,
  );
  const colLabels = spec.cols.map((c, j) => {
    const cx = px(x0 + j * size + size / 2 + 3);
    return h`<text class="col-label${c.marked ? " bad-label" : ""}" transform="translate(${cx} ${y0 - 6}) rotate(-45)" font-size="${font}"><title>${c.name}${c.note ? ` (${c.note})` : ""}</title>${shorten(labelText(c))}</text>`;
  });
  const showText = size >= 24;
  const cells = spec.cells.map((c) => {
    const x = x0 + c.col * size;
    const y = y0 + c.row * size;
    const text =
      showText && c.text
        ? h`<text x="${px(x + size / 2)}" y="${px(y + size / 2 + 4)}" text-anchor="middle" class="cell-text">${c.text}</text>`
        : null;
    return h`<rect class="cell${c.kind ? ` ${c.kind}` : ""}" x="${x}" y="${y}" width="${size}" height="${size}" style="fill:${c.fill}"><title>${c.title}</title></rect>${text}`;
  });
  const marks = spec.cells
    .filter((c) => c.marked)
    .map(
      (c) =>
        h`<rect class="mark" x="${x0 + c.col * size + 1.5}" y="${y0 + c.row * size + 1.5}" width="${size - 3}" height="${size - 3}"/>`,
    );
  return h`<svg class="chart matrix ${spec.className}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" data-rows="${spec.rows.length}" data-cols="${spec.cols.length}" aria-label="${spec.title}">
<title>${spec.title}</title>
${rowLabels}${colLabels}${cells}${marks}
</svg>`;
}

function labelText(l: MatrixLabel): string {
  return l.marked ? `✖ ${l.name}` : l.name;
}
