import type { StoredRoleComparison, TuneIteration, TuneRecord } from '../../run/tune-schema.js';
import { pct } from '../../util/text.js';
import { fmt, interval, usd } from '../format.js';

/** What every tune report shows, in words and figures, so the four reporters say the same thing. Pure. */
export interface TuneReportInput {
  record: TuneRecord;
  /** The tune folder as the user named it. */
  dir: string;
  /** The winning description as a unified diff against SKILL.md (empty when the original stays). */
  diff: string;
}

const DROPPED: Record<NonNullable<TuneIteration['dropped']>, string> = {
  'worse-on-tune': 'dropped: worse on tune',
  constraint: 'dropped: hurt siblings or negatives',
  'not-better': 'not better on select',
  lint: 'refused by lint',
  duplicate: 'duplicate',
  'no-proposal': 'no proposal',
};

/** One row per iteration: its description and where it got. */
export function iterationRows(
  r: TuneRecord,
): { index: string; description: string; tune: string; select: string; trials: string; cost: string; outcome: string }[] {
  return r.iterations.map((it) => {
    const trials = (it.proposer?.trials ?? 0) + (it.tune?.trials ?? 0) + (it.select?.trials ?? 0);
    const costs = [it.proposer?.costUsd, it.tune?.costUsd, it.select?.costUsd].filter((c): c is number => c !== undefined);
    const outcome =
      it.index === r.winner && it.index !== 0
        ? 'winner on select'
        : it.index === 0
          ? r.winner === 0
            ? 'kept (nothing beat it)'
            : 'original'
          : it.dropped
            ? DROPPED[it.dropped]
            : '';
    return {
      index: it.index === 0 ? 'original' : String(it.index),
      description: it.description ?? '(none)',
      tune: it.tune ? `${pct(it.tune.score.recall)} · ${pct(it.tune.score.siblings)} · ${pct(it.tune.score.negatives)}` : '—',
      select: it.select ? `${pct(it.select.score.recall)} · ${pct(it.select.score.siblings)} · ${pct(it.select.score.negatives)}` : '—',
      trials: String(trials),
      cost: costs.length ? usd(costs.reduce((a, b) => a + b, 0)) : '—',
      outcome,
    };
  });
}

/** A holdout comparison in one line: rates, difference with its interval, exact p. */
export const comparisonText = (c: StoredRoleComparison) =>
  c.pairs === 0
    ? 'no holdout pairs'
    : `${pct(c.original)} → ${pct(c.winner)}, difference ${fmt(c.diff ?? Number.NaN)} ${interval(c)}, exact p = ${fmt(c.pValue, 3)} (${c.pairs} pairs, ${c.discordant} discordant)`;

/** The answer in one sentence. */
export function verdictText(r: TuneRecord, dir: string): string {
  if (r.status !== 'completed') return `the tune is ${r.status.replace('_', ' ')}: \`skillprobe tune --resume ${dir}\` goes on`;
  if (r.winner === 0) return 'no candidate beat the original on the select cases, so the holdout was never touched: the original stays';
  if (r.verdict === 'IMPROVED')
    return `the winner is significantly better on the holdout cases it never saw${r.written ? ', and SKILL.md was rewritten' : ' (--write puts it in SKILL.md)'}`;
  if (r.verdict === 'WORSE') return 'the winner is significantly worse on the holdout: the original stays';
  const s = r.holdout?.sequential;
  if (s?.outcome === 'ruled-out')
    return `the holdout rules out a recall gain of ${s.gain} or more (a true gain that size is ruled out with chance at most ${pct(s.beta)}): the original stays`;
  if (s?.outcome === 'cap') {
    const resume = `skillprobe tune --resume ${dir}${r.simulator ? ` --sim ${r.simulator.profile}` : ''} --holdout-trials`;
    const settle =
      s.settleRounds !== undefined
        ? `${s.settleRounds} would give ${pct(1 - s.beta)}: \`${resume} ${s.settleRounds}\` goes on`
        : `even ${4 * s.rounds} would not give ${pct(1 - s.beta)}: more positive holdout cases would`;
    return `the holdout reached its cap of ${s.rounds} trials per case undecided, so the original stays: its power for a recall gain of ${s.gain} was ${pct(s.power)}; ${settle}`;
  }
  return 'the winner is not significantly better on the holdout: the original stays';
}

/** The holdout's rounds and cap, and each constraint too thin to flag a drop of the gain, in words. */
export function roundsText(r: TuneRecord): { rounds: string; thin: string[] } {
  const s = r.holdout?.sequential;
  if (!s) return { rounds: `${r.options.holdoutTrials} trials per case`, thin: [] };
  const thin = (['siblings', 'negatives'] as const).flatMap((role) =>
    s.dropPower[role] < 1 - s.beta
      ? [
          `${role}: too few holdout pairs (${r.holdout![role].pairs}) to flag a drop of ${s.gain} (chance at best ${pct(s.dropPower[role])}); add ${role === 'siblings' ? 'sibling' : 'negative'} cases or pin some with split: holdout`,
        ]
      : [],
  );
  const why = s.outcome === 'improved' ? 'IMPROVED boundary crossed' : s.outcome === 'ruled-out' ? 'gain ruled out' : 'cap reached';
  return {
    rounds: `${s.rounds} of at most ${s.cap} trials per case, sequential: ${s.winnerOnly} of ${s.discordant} discordant recall pairs for the winner, ${why}`,
    thin,
  };
}

/** The winner's curse, made visible: its score where it was chosen beside its score where it was not. */
export function curseText(r: TuneRecord): string | undefined {
  const won = r.iterations.find((it) => it.index === r.winner && it.index !== 0);
  if (!won?.select || !r.holdout) return undefined;
  return `the winner's recall was ${pct(won.select.score.recall)} on the select cases that chose it and ${pct(r.holdout.recall.winner)} on the holdout: a score on the cases that chose the winner is biased upward by the choice, the holdout's is not`;
}

export function spendText(r: TuneRecord): string {
  return `${r.trials} trials${r.costUsd !== undefined ? `, ${usd(r.costUsd)}` : ''}`;
}

export const splitText = (r: TuneRecord) =>
  `splits (seed ${r.options.seed}): tune ${r.splits.tune.length} cases, select ${r.splits.select.length}, holdout ${r.splits.holdout.length}`;
