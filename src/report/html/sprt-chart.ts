import { boundaries, llrWalk } from '../../stats/sprt.js';
import { fmt } from '../format.js';
import { linear, svg } from './charts.js';
import { html, type Html } from './markup.js';
import { signed } from './parts.js';
import type { SprtParams } from '../../run/schema.js';

export interface LlrStep {
  /** The trial's number within its case and arm. */
  trial: number;
  passed: boolean;
  /** Λ after this trial. */
  llr: number;
}

/** Λ after each scored trial, in trial order: the walk the sequential test made. */
export function llrPath(scored: readonly { n: number; passed: boolean }[], p: Pick<SprtParams, 'threshold' | 'delta'>): LlrStep[] {
  const walk = llrWalk(scored.map((o) => o.passed), p);
  return scored.map((o, i) => ({ trial: o.n, passed: o.passed, llr: walk[i]! }));
}

const c = (x: number) => x.toFixed(1);

/** The walk against its accept (PASS) and reject (FAIL) boundaries; no decision is taken before minTrials. */
export function sprtChart(steps: readonly LlrStep[], p: SprtParams, decidedAt: number | undefined, title: string): Html {
  const [width, height] = [350, 170];
  const m = { l: 34, r: 78, t: 10, b: 28 };
  const b = boundaries(p);
  const finite = steps.map((s) => s.llr).filter(Number.isFinite);
  const lo = Math.min(b.reject, 0, ...finite) * 1.15;
  const hi = Math.max(b.accept, 0, ...finite) * 1.15;
  const last = Math.max(steps.length, p.minTrials, 1);
  const x = linear(0, last, m.l, width - m.r);
  const y = linear(lo, hi, height - m.b, m.t);
  // A fail at p0 = 1 is −∞: drawn on the floor, its title says so.
  const yOf = (v: number) => (Number.isFinite(v) ? y(v) : y(lo));
  const [right, bottom] = [width - m.r, height - m.b];

  const zones = html`<rect class="zone-accept" x="${m.l}" y="${m.t}" width="${right - m.l}" height="${c(y(b.accept) - m.t)}"/><rect class="zone-reject" x="${m.l}" y="${c(y(b.reject))}" width="${right - m.l}" height="${c(bottom - y(b.reject))}"/>`;
  const boundary = (v: number, cls: string, name: string) =>
    html`<line class="${cls}" x1="${m.l}" x2="${right}" y1="${c(y(v))}" y2="${c(y(v))}"><title>${name} boundary: Λ = ${fmt(v, 3)}</title></line><text class="label ${cls}" x="${right + 4}" y="${c(y(v) + 3.5)}">${name} ${signed(v)}</text>`;
  const zero = html`<line class="zero" x1="${m.l}" x2="${right}" y1="${c(y(0))}" y2="${c(y(0))}"/><text class="label" x="${m.l - 5}" y="${c(y(0) + 3.5)}" text-anchor="end">0</text>`;
  const minTrials =
    p.minTrials > 1
      ? html`<line class="min-trials" x1="${c(x(p.minTrials))}" x2="${c(x(p.minTrials))}" y1="${m.t}" y2="${bottom}"><title>no decision before ${p.minTrials} scored trials (minTrials)</title></line>`
      : '';
  const xTicks = [...new Set([0, ...(decidedAt !== undefined ? [decidedAt] : []), last])].map(
    (k) => html`<text class="label" x="${c(x(k))}" y="${bottom + 13}" text-anchor="middle">${k}</text>`,
  );
  const axisTitles = html`<text class="label" x="${c((m.l + right) / 2)}" y="${height - 2}" text-anchor="middle">scored trials</text><text class="label" x="${m.l - 5}" y="${m.t + 8}" text-anchor="end">Λ</text>`;
  const line = [`${c(x(0))},${c(y(0))}`, ...steps.map((s, i) => `${c(x(i + 1))},${c(yOf(s.llr))}`)].join(' ');
  const dots = steps.map(
    (s, i) =>
      html`<circle class="${s.passed ? 'step-pass' : 'step-fail'}${decidedAt === i + 1 ? ' decided' : ''}" cx="${c(x(i + 1))}" cy="${c(yOf(s.llr))}" r="${decidedAt === i + 1 ? 4.5 : 3}"><title>scored trial ${i + 1} (#${s.trial}): ${s.passed ? 'pass' : 'fail'}, Λ = ${signed(s.llr)}${decidedAt === i + 1 ? ' · decided here' : ''}</title></circle>`,
  );
  return svg(width, height, title, 'chart sprt', [zones, zero, boundary(b.accept, 'accept', 'PASS'), boundary(b.reject, 'reject', 'FAIL'), minTrials, ...xTicks, axisTitles, html`<polyline class="path" points="${line}"/>`, ...dots]);
}
