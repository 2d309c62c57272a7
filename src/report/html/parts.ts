import { fmt, interval } from '../format.js';
import type { Tone } from './charts.js';
import { html, join, type Html } from './markup.js';
import type { Rate, Verdict } from '../../run/schema.js';

/** Pieces both pages use. */

export const VERDICT_TONE: Record<Verdict, Tone> = { PASS: 'pass', FAIL: 'fail', INCONCLUSIVE: 'inconclusive', ERROR: 'error' };

export const verdictBadge = (v: Verdict): Html => html`<span class="verdict tone-${VERDICT_TONE[v]}">${v}</span>`;

/** `0.83 (5/6)`, or a dash when nothing was scored. */
export const rateWithCounts = (r: Rate): string => (r.n ? `${fmt(r.p)} (${r.successes}/${r.n})` : '—');

/** The exact numbers of a rate, for titles. */
export const rateTitle = (what: string, r: Rate, confidence?: number): string =>
  r.n
    ? `${what}: ${r.successes} of ${r.n} = ${fmt(r.p, 3)}, ${confidence ? `${Math.round(confidence * 100)}% ` : ''}interval ${interval(r, 3)}`
    : `${what}: no scored trials`;

/** A difference or a log-likelihood ratio: signed, with a true minus sign (a hyphen reads badly beside a number). */
export const signed = (x: number): string => {
  if (x === -Infinity) return '−∞';
  if (!Number.isFinite(x)) return '—';
  return x < 0 ? `−${fmt(-x)}` : `+${fmt(x)}`;
};

/** An id for a page anchor, made from a position (case ids may hold any character). */
export const anchor = (prefix: string, i: number): string => `${prefix}-${i + 1}`;

export function section(id: string, title: string, lead: Html | string, body: Html | Html[]): Html {
  return html`<section class="card" id="${id}" aria-labelledby="${id}-title"><h2 id="${id}-title">${title}</h2>${lead ? html`<p class="lead">${lead}</p>` : ''}${body}</section>`;
}

export function simulatedBanner(what: string): Html {
  return html`<p class="banner simulated" role="alert"><strong>SIMULATED</strong> · ${what}</p>`;
}

/** The reports' prose, where a command stands in backticks: each `…` span shown as code, the rest as text. */
export const prose = (text: string): Html =>
  join(
    text.split(/`([^`]+)`/).map((part, i) => (i % 2 ? html`<code>${part}</code>` : part)),
    '',
  );
