import { fmt } from '../format.js';
import { html, type Html, type Part } from './markup.js';
import type { Interval, Rate } from '../../run/schema.js';

/** Small inline SVG charts. Each carries a <title> with its exact numbers, for tooltips and screen readers. */

/** Coordinates to one decimal: enough for the screen, short in the file. */
const c = (x: number) => x.toFixed(1);

/** A linear map from a domain onto a pixel range. */
export const linear = (d0: number, d1: number, r0: number, r1: number) => (v: number) => r0 + ((v - d0) / (d1 - d0)) * (r1 - r0);

/** The colour family of a mark (CSS classes `tone-…`). */
export type Tone = 'pass' | 'fail' | 'inconclusive' | 'error' | 'neutral';

export function svg(width: number, height: number, title: string, cls: string, body: Part): Html {
  return html`<svg class="${cls}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${title}"><title>${title}</title>${body}</svg>`;
}

const WHISKER = { width: 136, height: 20, pad: 7 };

function intervalMarks(x: (v: number) => number, r: Interval & { p: number }, mid: number): Html {
  return html`<line class="ci" x1="${c(x(r.lo))}" x2="${c(x(r.hi))}" y1="${mid}" y2="${mid}"/><line class="cap" x1="${c(x(r.lo))}" x2="${c(x(r.lo))}" y1="${mid - 4}" y2="${mid + 4}"/><line class="cap" x1="${c(x(r.hi))}" x2="${c(x(r.hi))}" y1="${mid - 4}" y2="${mid + 4}"/><circle class="est" cx="${c(x(r.p))}" cy="${mid}" r="3.5"/>`;
}

/** A rate on [0, 1] with its interval, and the case's threshold as a tick. */
export function rateWhisker(r: Rate, title: string, tone: Tone, threshold?: number): Html {
  const { width, height, pad } = WHISKER;
  const x = linear(0, 1, pad, width - pad);
  const mid = height / 2;
  const ticks = [0, 0.5, 1].map((v) => html`<line class="tick" x1="${c(x(v))}" x2="${c(x(v))}" y1="${mid - 3}" y2="${mid + 3}"/>`);
  const bar =
    threshold === undefined
      ? ''
      : html`<line class="threshold" x1="${c(x(threshold))}" x2="${c(x(threshold))}" y1="1" y2="${height - 1}"/>`;
  const body = html`<line class="axis" x1="${c(x(0))}" x2="${c(x(1))}" y1="${mid}" y2="${mid}"/>${ticks}${bar}${Number.isFinite(r.p) ? intervalMarks(x, r, mid) : ''}`;
  return svg(width, height, title, `whisker tone-${tone}`, body);
}

/** A difference on [−1, 1] with its interval around 0, and (margin > 0) the ±margin band inside which nothing changed. */
export function differenceWhisker(d: Interval & { diff: number }, margin: number, title: string, tone: Tone): Html {
  const width = 190;
  const { height, pad } = WHISKER;
  const x = linear(-1, 1, pad, width - pad);
  const mid = height / 2;
  const band =
    margin > 0 ? html`<rect class="band" x="${c(x(-margin))}" y="2" width="${c(x(margin) - x(-margin))}" height="${height - 4}"/>` : '';
  const zero = html`<line class="zero" x1="${c(x(0))}" x2="${c(x(0))}" y1="1" y2="${height - 1}"/>`;
  const body = html`${band}<line class="axis" x1="${c(x(-1))}" x2="${c(x(1))}" y1="${mid}" y2="${mid}"/>${zero}${Number.isFinite(d.diff) ? intervalMarks(x, { ...d, p: d.diff }, mid) : ''}`;
  return svg(width, height, title, `whisker tone-${tone}`, body);
}

export interface PassKPoint {
  k: number;
  passAtK: number;
  passHatK: number;
}

/** pass@k (at least one of k passes) rising and pass^k (all k pass) falling, over k = 1 … n. */
export function passKChart(points: readonly PassKPoint[], title: string): Html {
  const [width, height] = [226, 130];
  const m = { l: 30, r: 10, t: 10, b: 26 };
  const maxK = Math.max(1, ...points.map((p) => p.k));
  const x = maxK === 1 ? () => (m.l + width - m.r) / 2 : linear(1, maxK, m.l, width - m.r);
  const y = linear(0, 1, height - m.b, m.t);
  const grid = [0, 0.5, 1].map(
    (v) =>
      html`<line class="grid" x1="${m.l}" x2="${width - m.r}" y1="${c(y(v))}" y2="${c(y(v))}"/><text class="label" x="${m.l - 5}" y="${c(y(v) + 3.5)}" text-anchor="end">${fmt(v, 1)}</text>`,
  );
  const kTicks = [...new Set([1, Math.round((1 + maxK) / 2), maxK])].map(
    (k) => html`<text class="label" x="${c(x(k))}" y="${height - m.b + 14}" text-anchor="middle">${k}</text>`,
  );
  const series = (key: 'passAtK' | 'passHatK', cls: string, name: string) => {
    const finite = points.filter((p) => Number.isFinite(p[key]));
    const line = finite.map((p) => `${c(x(p.k))},${c(y(p[key]))}`).join(' ');
    const dots = finite.map(
      (p) =>
        html`<circle class="${cls}" cx="${c(x(p.k))}" cy="${c(y(p[key]))}" r="2.6"><title>k = ${p.k}: ${name} ${fmt(p[key], 3)}</title></circle>`,
    );
    return html`<polyline class="${cls}" points="${line}"/>${dots}`;
  };
  const axisTitle = html`<text class="label" x="${c((m.l + width - m.r) / 2)}" y="${height - 2}" text-anchor="middle">k</text>`;
  return svg(width, height, title, 'chart passk', [
    ...grid,
    ...kTicks,
    axisTitle,
    series('passHatK', 'hat', 'pass^k'),
    series('passAtK', 'at', 'pass@k'),
  ]);
}
