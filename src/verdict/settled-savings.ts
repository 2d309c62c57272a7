import type { SettledSavings, TrialOutcome } from '../run/schema.js';

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** A measure of the settled trial and of its peers, when each of them has it. */
function difference(o: TrialOutcome, peers: readonly TrialOutcome[], of: (t: TrialOutcome) => number | undefined): number | undefined {
  const own = of(o);
  const theirs = peers.map(of);
  if (own === undefined || theirs.some((x) => x === undefined)) return undefined;
  return mean(theirs as number[]) - own;
}

/**
 * What settling saved, estimated per settled trial from the trials of the same case and arm that made the same choice
 * (`fired`) and ran to their end (status `ok`): their mean tokens, time and cost less its own. A settled trial with none
 * alike (with settling on, a choice that settles always does) is counted, never estimated. Pure.
 */
export function settledSavings(outcomes: readonly TrialOutcome[]): SettledSavings | undefined {
  const settled = outcomes.filter((o) => o.status === 'settled');
  if (!settled.length) return undefined;
  const saved: SettledSavings['saved'] = { inputTokens: 0, outputTokens: 0, wallMs: 0 };
  let estimated = 0;
  let costKnown = true;
  for (const o of settled) {
    const peers = outcomes.filter((p) => p.status === 'ok' && p.caseId === o.caseId && p.arm === o.arm && p.fired === o.fired);
    if (!peers.length) continue;
    estimated++;
    saved.inputTokens += difference(o, peers, (t) => t.usage?.input) ?? 0;
    saved.outputTokens += difference(o, peers, (t) => t.usage?.output) ?? 0;
    saved.wallMs += difference(o, peers, (t) => t.wallMs) ?? 0;
    const cost = difference(o, peers, (t) => t.costUsd);
    if (cost === undefined) costKnown = false;
    else saved.costUsd = (saved.costUsd ?? 0) + cost;
  }
  if (!costKnown) delete saved.costUsd;
  return { settled: settled.length, estimated, saved };
}
