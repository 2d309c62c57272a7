import { VERDICTS, type Results, type Verdict } from '../run/schema.js';
import type { TokenPrice } from '../run/config-schema.js';

export interface CostLine {
  trials: number;
  /** Sum of the trials' reported costs, in USD; undefined when the CLI reported none for them. */
  costUsd?: number;
  /** Sum of the trials' wall times, in milliseconds (what a trial took, not the run's elapsed time). */
  wallMs: number;
}

export interface CostBreakdown {
  total: CostLine;
  byCase: (CostLine & { caseId: string; verdict?: Verdict })[];
  byVerdict: (CostLine & { verdict: Verdict })[];
}

function line(outcomes: Results['outcomes']): CostLine {
  const costs = outcomes.map((o) => o.costUsd).filter((c): c is number => c !== undefined);
  return {
    trials: outcomes.length,
    ...(costs.length ? { costUsd: costs.reduce((a, b) => a + b, 0) } : {}),
    wallMs: outcomes.reduce((a, o) => a + (o.wallMs ?? 0), 0),
  };
}

/** What the run cost, in money and trial time: in all, per case, per verdict. Pure. */
export function costBreakdown(results: Results): CostBreakdown {
  const verdictOf = new Map(results.verdicts.map((v) => [v.caseId, v.verdict]));
  const caseIds = [...new Set(results.outcomes.map((o) => o.caseId))];
  const byCase = caseIds.map((caseId) => ({
    caseId,
    ...line(results.outcomes.filter((o) => o.caseId === caseId)),
    ...(verdictOf.has(caseId) ? { verdict: verdictOf.get(caseId)! } : {}),
  }));
  const verdicts = VERDICTS.filter((k) => results.verdicts.some((v) => v.verdict === k));
  const byVerdict = verdicts.map((verdict) => ({ verdict, ...line(results.outcomes.filter((o) => verdictOf.get(o.caseId) === verdict)) }));
  return { total: line(results.outcomes), byCase, byVerdict };
}

/**
 * What tokens cost at a model's prices (USD per million): what was paid, with cached input at the cache price and
 * cache writes at theirs, and what the same tokens would have cost with no cache (every input token at the input
 * price).
 */
export function tokenCost(
  t: { input: number; cached: number; cacheWrite?: number; output: number },
  price: TokenPrice,
): { paidUsd: number; uncachedUsd: number } {
  const writes = t.cacheWrite ?? 0;
  const fresh = Math.max(0, t.input - t.cached - writes);
  const perMillion = (tokens: number, usdPerMillion: number) => (tokens * usdPerMillion) / 1_000_000;
  const output = perMillion(t.output, price.output);
  return {
    paidUsd:
      perMillion(fresh, price.input) +
      perMillion(t.cached, price.cachedInput) +
      perMillion(writes, price.cacheWrite ?? price.input) +
      output,
    uncachedUsd: perMillion(t.input, price.input) + output,
  };
}
