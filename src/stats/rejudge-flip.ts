import { itemVerdict } from '../checks/judge.js';
import type { Interval, Rate } from '../run/schema.js';
import type { TrialJudgeSamples } from './judge-stability.js';
import { clopperPearsonInterval } from './clopper-pearson.js';
import { wilsonInterval } from './wilson.js';

/**
 * `rejudge` asks the judge the stored requests again and pairs each new sample with the stored one at the same index.
 * If every sample leaves the item's usual answer with probability e, independently, a pair differs with probability
 * d = 2e(1 − e): the share of changed answers estimates d, and inverting it gives the judge's per-sample flip rate.
 * Where items differ in how often the judge wavers, e is the rate that would give the same share of changed pairs.
 */

export interface RejudgeFlip {
  /** Pairs with an unreadable sample on either side: counted here and left out of every share. */
  errorPairs: number;
  /** Changed answers among the readable pairs (d̂), with its Wilson interval. */
  changed: Rate;
  /** The per-sample flip rate ê = e(d̂), its interval the same transform of the Wilson bounds of d. */
  flipRate: { e: number } & Interval;
  /**
   * Item verdicts (stored vs re-asked, neither judge_error) that changed, with its exact (Clopper–Pearson) interval:
   * a few changes in many items is the usual count here, where Wilson's interval covers less than its level.
   */
  verdicts: Rate;
  /** Item verdicts left out because either side was judge_error. */
  verdictErrors: number;
}

/**
 * The per-sample flip rate whose pairs differ with probability d: the root of 2e(1 − e) = d in [0, 0.5]. d above 0.5
 * (possible by chance, never under the model) is read as 0.5, where the judge answers at random.
 */
export function flipRateFromChanged(d: number): number {
  return (1 - Math.sqrt(1 - 2 * Math.min(d, 0.5))) / 2;
}

/** The pairs of one trial's items, stored against re-asked; the same requests, so the shapes must match. */
function pairedItems(stored: readonly TrialJudgeSamples[], rejudged: readonly TrialJudgeSamples[]) {
  if (stored.length !== rejudged.length) throw new RangeError(`rejudged ${rejudged.length} trials of ${stored.length} stored`);
  return stored.flatMap((items, t) => {
    const again = rejudged[t]!;
    if (items.length !== again.length) throw new RangeError(`trial ${t + 1}: rejudged ${again.length} items of ${items.length} stored`);
    return items.map((samples, i) => {
      if (samples.length !== again[i]!.length)
        throw new RangeError(`trial ${t + 1}, item ${i + 1}: rejudged ${again[i]!.length} samples of ${samples.length} stored`);
      return { stored: samples, rejudged: again[i]! };
    });
  });
}

/** What rejudge measured: the changed answers, the flip rate they imply, and the changed verdicts. */
export function rejudgeFlip(stored: readonly TrialJudgeSamples[], rejudged: readonly TrialJudgeSamples[], confidence = 0.95): RejudgeFlip {
  const items = pairedItems(stored, rejudged);
  const pairs = items.flatMap((x) => x.stored.map((s, k) => [s, x.rejudged[k]!] as const));
  const readable = pairs.filter(([a, b]) => a !== 'error' && b !== 'error');
  const changed = wilsonInterval(readable.filter(([a, b]) => a !== b).length, readable.length, confidence);
  const verdictPairs = items.map((x) => [itemVerdict(x.stored), itemVerdict(x.rejudged)] as const);
  const decided = verdictPairs.filter(([a, b]) => a !== 'judge_error' && b !== 'judge_error');
  return {
    errorPairs: pairs.length - readable.length,
    changed,
    flipRate: { e: flipRateFromChanged(changed.p), lo: flipRateFromChanged(changed.lo), hi: flipRateFromChanged(changed.hi) },
    verdicts: clopperPearsonInterval(decided.filter(([a, b]) => a !== b).length, decided.length, confidence),
    verdictErrors: verdictPairs.length - decided.length,
  };
}
