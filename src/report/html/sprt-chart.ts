import { designOfKind } from '../../stats/decision-modes/registry.js';
import { alwaysDecides, type SequentialDesign } from '../../stats/sequential-design.js';
import { boundaries, increments, llrAt, llrWalk } from '../../stats/sprt.js';
import { fmt } from '../format.js';
import { linear, svg } from './charts.js';
import { html, type Html } from './markup.js';
import { signed } from './parts.js';
import type { SprtParams, StoredDesign } from '../../run/schema.js';

export interface LlrStep {
  /** The trial's number within its case and arm. */
  trial: number;
  passed: boolean;
  /** Λ after this trial. */
  llr: number;
}

/** Λ after each scored trial, in trial order: the walk the sequential test made. */
export function llrPath(scored: readonly { n: number; passed: boolean }[], p: Pick<SprtParams, 'threshold' | 'delta'>): LlrStep[] {
  const walk = llrWalk(
    scored.map((o) => o.passed),
    p,
  );
  return scored.map((o, i) => ({ trial: o.n, passed: o.passed, llr: walk[i]! }));
}

/** The design a case ran under, as the chart draws it: Wald's flat Λ boundaries, or the optimal design's per stage. */
export interface ChartDesign {
  kind: StoredDesign['kind'];
  /** As run: capped at the case's maxTrials. */
  design: SequentialDesign;
}

export interface StageBoundary {
  /** Scored trials. */
  n: number;
  /** Λ above which the case PASSes after n trials; below `reject` it FAILs. */
  accept: number;
  reject: number;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/**
 * The smoothest line through per-stage ranges: relaxation towards each neighbour's average, kept inside every
 * range, so it runs straight wherever the ranges allow and bends only where a stage demands. `fixedEnd` pins the
 * last value (where two boundaries meet).
 */
function smooth(ranges: readonly { lo: number; hi: number; at: number }[], fixedEnd: boolean): number[] {
  const b = ranges.map((r) => r.at);
  const free = fixedEnd ? b.length - 1 : b.length;
  for (let sweep = 0; sweep < 5000; sweep++) {
    let moved = 0;
    for (let i = 0; i < free; i++) {
      const target = i === 0 ? (b[1] ?? b[0]!) : i === b.length - 1 ? b[i - 1]! : (b[i - 1]! + b[i + 1]!) / 2;
      const next = clamp(target, ranges[i]!.lo, ranges[i]!.hi);
      moved = Math.max(moved, Math.abs(next - b[i]!));
      b[i] = next;
    }
    if (moved < 1e-5) break;
  }
  return b;
}

/**
 * A design's boundaries in Λ, one value per stage from minTrials to its last. After n scored trials Λ takes only
 * n + 1 values, one per pass count, a step (log(p0/p1) − log((1−p0)/(1−p1))) apart; the accept boundary at n lies
 * between the Λ of the most passes that go on and of the fewest that PASS (acceptFrom[n]), the reject boundary
 * between the most that FAIL (rejectUpTo[n]) and the fewest that go on, each at least a quarter step from both,
 * so every stage's pass counts fall on the side the design puts them. Within those ranges each boundary is drawn
 * as smooth as it can be (Λ's steps would otherwise make it a saw); where the design decides every case by its
 * last stage, the two meet there.
 */
export function stageBoundaries(d: SequentialDesign, p: Pick<SprtParams, 'threshold' | 'delta'>): StageBoundary[] {
  const first = Math.max(1, d.minTrials);
  if (first > d.maxTrials) return [];
  const ns = Array.from({ length: d.maxTrials - first + 1 }, (_, i) => first + i);
  const inc = increments(p);
  const quarter = (inc.pass - inc.fail) / 4;
  // The Λ range between pass counts `below` (the last on the lower side) and below + 1 (the first above), margins kept.
  const between = (n: number, below: number) => {
    const lo = below >= 0 ? llrAt(n, below, p) + quarter : -Infinity;
    const hi = below + 1 <= n ? llrAt(n, below + 1, p) - quarter : Infinity;
    return { lo, hi, at: Number.isFinite(lo) && Number.isFinite(hi) ? (lo + hi) / 2 : Number.isFinite(lo) ? lo : hi };
  };
  const accept = ns.map((n) => between(n, d.acceptFrom[n]! - 1));
  const reject = ns.map((n) => between(n, d.rejectUpTo[n]!));
  // A rate of 1 or 0 makes a step infinite: no room to smooth, the middle of each range is drawn as it is.
  if (!Number.isFinite(quarter) || [...accept, ...reject].some((r) => Number.isNaN(r.at))) {
    return ns.map((n, i) => ({ n, accept: accept[i]!.at, reject: reject[i]!.at }));
  }
  const meets = alwaysDecides(d);
  const a = smooth(accept, meets);
  const r = smooth(reject, meets);
  return ns.map((n, i) => {
    // Where no case goes on at a stage the two ranges coincide: the lines may not cross there.
    const cross = a[i]! < r[i]!;
    const both = (a[i]! + r[i]!) / 2;
    return { n, accept: cross ? both : a[i]!, reject: cross ? both : r[i]! };
  });
}

const c = (x: number) => x.toFixed(1);

/**
 * The walk against its accept (PASS) and reject (FAIL) boundaries, up to the design's last stage (marked on the
 * trials axis); no decision is taken before minTrials. Wald's boundaries are flat lines in Λ; the optimal design's
 * are drawn through one point per stage (stageBoundaries) and close in until they meet where it has decided every
 * case.
 */
export function sprtChart(
  steps: readonly LlrStep[],
  p: SprtParams,
  chart: ChartDesign,
  decidedAt: number | undefined,
  title: string,
): Html {
  const [width, height] = [350, 170];
  const m = { l: 34, r: 78, t: 10, b: 28 };
  const d = chart.design;
  const flat = designOfKind(chart.kind).flatInLlr;
  const b = boundaries(p);
  const stages = flat ? [] : stageBoundaries(d, p);
  const finite = [...steps.map((s) => s.llr), ...(flat ? [b.accept, b.reject] : stages.flatMap((s) => [s.accept, s.reject]))].filter(
    Number.isFinite,
  );
  const lo = Math.min(0, ...finite) * 1.15;
  const hi = Math.max(lo + 1, Math.max(0, ...finite) * 1.15);
  const last = Math.max(steps.length, p.minTrials, d.maxTrials, 1);
  const x = linear(0, last, m.l, width - m.r);
  const y = linear(lo, hi, height - m.b, m.t);
  const [right, bottom] = [width - m.r, height - m.b];
  // A fail at p0 = 1 is −∞: drawn on the floor, its title says so; a boundary out of reach sits on the edge.
  const yOf = (v: number) => (Number.isFinite(v) ? y(v) : v > 0 ? m.t : bottom);
  const end = x(d.maxTrials);
  const decides = !flat && alwaysDecides(d);

  let zones: Html;
  let lines: Html;
  if (flat) {
    zones = html`<rect class="zone-accept" x="${m.l}" y="${m.t}" width="${c(end - m.l)}" height="${c(y(b.accept) - m.t)}"/><rect class="zone-reject" x="${m.l}" y="${c(y(b.reject))}" width="${c(end - m.l)}" height="${c(bottom - y(b.reject))}"/>`;
    const boundary = (v: number, cls: string, name: string) =>
      html`<line class="${cls}" x1="${m.l}" x2="${c(end)}" y1="${c(y(v))}" y2="${c(y(v))}"><title>${name} boundary: Λ = ${fmt(v, 3)}</title></line><text class="label ${cls}" x="${right + 4}" y="${c(y(v) + 3.5)}">${name} ${signed(v)}</text>`;
    lines = html`${boundary(b.accept, 'accept', 'PASS')}${boundary(b.reject, 'reject', 'FAIL')}`;
  } else {
    const points = (key: 'accept' | 'reject') => stages.map((s) => `${c(x(s.n))},${c(yOf(s[key]))}`);
    const [accept, reject] = [points('accept'), points('reject')];
    const start = c(x(stages[0]?.n ?? 0));
    zones = html`<polygon class="zone-accept" points="${[`${start},${m.t}`, ...accept, `${c(end)},${m.t}`].join(' ')}"/><polygon class="zone-reject" points="${[`${start},${bottom}`, ...reject, `${c(end)},${bottom}`].join(' ')}"/>`;
    const lastStage = stages.at(-1);
    const meet = decides ? `; it meets the FAIL boundary at ${d.maxTrials} trials, where every case is decided` : '';
    const label = (cls: string, name: string, at: number) => html`<text class="label ${cls}" x="${right + 4}" y="${c(at)}">${name}</text>`;
    lines = html`<polyline class="boundary accept" points="${accept.join(' ')}"><title>PASS boundary, per stage: after n scored trials the case passes with at least the design's number of passes for n${meet}</title></polyline><polyline class="boundary reject" points="${reject.join(' ')}"><title>FAIL boundary, per stage: after n scored trials the case fails with at most the design's number of passes for n</title></polyline>${
      lastStage
        ? html`${label('accept', 'PASS', (m.t + yOf(lastStage.accept)) / 2 + 3.5)}${label('reject', 'FAIL', (yOf(lastStage.reject) + bottom) / 2 + 3.5)}`
        : ''
    }`;
  }
  const zero = html`<line class="zero" x1="${m.l}" x2="${right}" y1="${c(y(0))}" y2="${c(y(0))}"/><text class="label" x="${m.l - 5}" y="${c(y(0) + 3.5)}" text-anchor="end">0</text>`;
  const minTrials =
    p.minTrials > 1
      ? html`<line class="min-trials" x1="${c(x(p.minTrials))}" x2="${c(x(p.minTrials))}" y1="${m.t}" y2="${bottom}"><title>no decision before ${p.minTrials} scored trials (minTrials)</title></line>`
      : '';
  // The design's last stage on the axis: where it has decided every case, or (Wald's, or cut by maxTrials) where
  // a case still between the boundaries ends INCONCLUSIVE.
  const endTitle = decides
    ? `the design decides every case by ${d.maxTrials} scored trials`
    : `last stage: a case still undecided after ${d.maxTrials} scored trials is INCONCLUSIVE`;
  const designMax = html`<line class="tick design-max" x1="${c(end)}" x2="${c(end)}" y1="${bottom}" y2="${bottom + 4}"><title>${endTitle}</title></line>`;
  // Tick labels, most important first; one too close to a label already placed is left out.
  const placed: number[] = [];
  const xTicks = [0, d.maxTrials, last, ...(decidedAt !== undefined ? [decidedAt] : [])].flatMap((k) => {
    if (placed.some((at) => Math.abs(x(at) - x(k)) < 14)) return [];
    placed.push(k);
    const cls = k === d.maxTrials ? 'label design-max' : 'label';
    return [
      html`<text class="${cls}" x="${c(x(k))}" y="${bottom + 13}" text-anchor="middle">${k}${k === d.maxTrials ? html`<title>${endTitle}</title>` : ''}</text>`,
    ];
  });
  const axisTitles = html`<text class="label" x="${c((m.l + right) / 2)}" y="${height - 2}" text-anchor="middle">scored trials</text><text class="label" x="${m.l - 5}" y="${m.t + 8}" text-anchor="end">Λ</text>`;
  const line = [`${c(x(0))},${c(y(0))}`, ...steps.map((s, i) => `${c(x(i + 1))},${c(yOf(s.llr))}`)].join(' ');
  // Dots shrink when many trials share the width, so neighbours stay apart.
  const r = Math.min(3, Math.max(1.6, (x(1) - x(0)) / 2.4));
  const dots = steps.map(
    (s, i) =>
      html`<circle class="${s.passed ? 'step-pass' : 'step-fail'}${decidedAt === i + 1 ? ' decided' : ''}" cx="${c(x(i + 1))}" cy="${c(yOf(s.llr))}" r="${decidedAt === i + 1 ? 4.5 : r.toFixed(1)}"><title>scored trial ${i + 1} (#${s.trial}): ${s.passed ? 'pass' : 'fail'}, Λ = ${signed(s.llr)}${decidedAt === i + 1 ? ' · decided here' : ''}</title></circle>`,
  );
  return svg(width, height, title, `chart sprt design-${chart.kind}`, [
    zones,
    zero,
    lines,
    minTrials,
    designMax,
    ...xTicks,
    axisTitles,
    html`<polyline class="path" points="${line}"/>`,
    ...dots,
  ]);
}
