import type { CohenKappa } from '../stats/cohen-kappa.js';
import { KAPPA_TARGET_HALF_WIDTH, MIN_LABELS } from '../stats/cohen-kappa.js';
import type { RejudgeFlip } from '../stats/rejudge-flip.js';
import type { RunStatus } from '../run/schema.js';

/** What `skillprobe rejudge` measured, as every reporter that has a rejudge report gets it. */
export interface RejudgeReportInput {
  /** The rejudge's own run folder, as the user would name it. */
  dir: string;
  /** Stored judge requests asked again. */
  requests: number;
  /** Samples per request. */
  samples: number;
  flip: RejudgeFlip;
  /** How the rejudge's run of judge requests ended. */
  status: RunStatus;
  /** With `--labels`: the stored verdicts against the human ones. */
  labels?: { file: string } & LabelAgreement;
}

/** The judge's verdicts against human labels, and how many labels more κ's interval needs (undefined: cannot say). */
export interface LabelAgreement {
  kappa: CohenKappa;
  pairs: number;
  unmatched: number;
  moreNeeded: number | undefined;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** κ with its interval and raw agreement, or why κ is undefined; and the labels its interval still needs. Pure. */
export function agreementText(a: LabelAgreement): string {
  const k = a.kappa;
  const unmatched = a.unmatched ? ` · ${a.unmatched} labels matched no judged verdict` : '';
  const more =
    a.moreNeeded === undefined || a.moreNeeded === 0
      ? ''
      : ` · about ${a.moreNeeded} labels more for an interval of ±${KAPPA_TARGET_HALF_WIDTH}`;
  return k.kappa === null
    ? `${a.pairs} matched · κ undefined: ${k.reason}${unmatched}`
    : `Cohen's κ ${k.kappa.toFixed(2)} [${k.lo.toFixed(2)}, ${k.hi.toFixed(2)}] over ${a.pairs} items, ` +
        `raw agreement ${pct(k.agreement.p)}${unmatched}${more}` +
        (k.fewLabels ? ` · WARNING: fewer than ${MIN_LABELS} labels, the interval is wide` : '');
}

/** The title and the lines of figures every rejudge report says, in one wording. Pure. */
function rejudgeFindings(r: RejudgeReportInput): { title: string; lines: string[] } {
  const f = r.flip;
  // With no readable pair (the new answers all unreadable, or the step stopped first), a share would be 0/0.
  const share = (n: number, p: number, x: { lo: number; hi: number }) =>
    n === 0 ? 'none to compare' : `${pct(p)} [${pct(x.lo)}, ${pct(x.hi)}]`;
  const lines = [
    `answers changed: ${f.changed.successes} of ${f.changed.n} paired samples, ${share(f.changed.n, f.changed.p, f.changed)}` +
      (f.errorPairs ? ` · ${f.errorPairs} pairs with an unreadable reply left out` : ''),
    `per-sample flip rate: ${share(f.changed.n, f.flipRate.e, f.flipRate)} (each sample leaves the judge's usual answer this often)`,
    `verdicts changed: ${f.verdicts.successes} of ${f.verdicts.n} items, ${share(f.verdicts.n, f.verdicts.p, f.verdicts)}` +
      (f.verdictErrors ? ` · ${f.verdictErrors} judge_error verdicts left out` : ''),
  ];
  if (r.labels) lines.push(`labels (${r.labels.file}): ${agreementText(r.labels)}`);
  return {
    title: `REJUDGE · ${r.requests} stored judge requests asked again, ${r.samples} samples each (${r.status}) → ${r.dir}`,
    lines,
  };
}

/** The rejudge report for people: its title, then a line per figure. */
export function rejudgeTerminal(r: RejudgeReportInput): string {
  const { title, lines } = rejudgeFindings(r);
  return [title, ...lines].join('\n') + '\n';
}

/** The rejudge report for a pull request or a step summary: a heading and a bullet per figure. */
export function rejudgeMarkdown(r: RejudgeReportInput): string {
  const { title, lines } = rejudgeFindings(r);
  return [`## skillprobe ${title.replace(/^REJUDGE/, 'rejudge')}`, '', ...lines.map((l) => `- ${l}`)].join('\n') + '\n';
}
