import { plural } from '../../util/text.js';
import type { StoredRoleComparison } from '../../run/tune-schema.js';
import {
  comparisonText,
  curseText,
  iterationRows,
  roundsText,
  spendText,
  splitText,
  verdictText,
  type TuneReportInput,
} from '../tune/view.js';
import { differenceWhisker, type Tone } from './charts.js';
import { html } from './markup.js';
import { standalonePage } from './page.js';
import { section, simulatedBanner } from './parts.js';

const VERDICT_TONES: Record<string, Tone> = { IMPROVED: 'pass', WORSE: 'fail', 'NO SIGNIFICANT CHANGE': 'neutral' };

function comparisonRow(role: string, c: StoredRoleComparison) {
  const tone: Tone = c.pValue < 0.05 && c.diff !== null ? (c.diff > 0 ? 'pass' : 'fail') : 'neutral';
  const whisker = c.diff === null ? '' : differenceWhisker({ diff: c.diff, lo: c.lo, hi: c.hi }, 0, `${role}: winner − original`, tone);
  return html`<tr><th scope="row">${role}</th><td>${comparisonText(c)}</td><td>${whisker}</td></tr>`;
}

/** The tune as one self-contained page: one row per iteration, the holdout verdict and the diff. */
export function tunePage({ record: r, dir, diff }: TuneReportInput): string {
  const verdict = r.verdict ?? r.status;
  const rows = iterationRows(r).map(
    (x) =>
      html`<tr><th scope="row">${x.index}</th><td>${x.description}</td><td class="num">${x.tune}</td><td class="num">${x.select}</td><td class="num">${x.trials}</td><td class="num">${x.cost}</td><td>${x.outcome}</td></tr>`,
  );
  const curse = curseText(r);
  const holdout = r.holdout
    ? section(
        'holdout',
        'Holdout',
        `The original and the winner, ${roundsText(r).rounds}, on cases neither the proposer nor the choice saw, paired by case and trial; exact McNemar p-values.`,
        html`<div class="table-wrap"><table><tbody>${comparisonRow('recall', r.holdout.recall)}${comparisonRow('siblings', r.holdout.siblings)}${comparisonRow('negatives', r.holdout.negatives)}</tbody></table></div>${r.holdout.leftOut ? html`<p class="note">${plural(r.holdout.leftOut, 'pair')} left out: a trial without evidence is never scored as a miss.</p>` : ''}${curse ? html`<p class="note">${curse}</p>` : ''}${roundsText(r).thin.map((t) => html`<p class="note">${t}</p>`)}`,
      )
    : '';
  const body = html`<header class="top"><div class="title-row"><h1>tune <code>${r.skill}</code></h1><span class="verdict tone-${VERDICT_TONES[verdict] ?? 'neutral'}">${verdict}</span></div>
<ul class="meta"><li><b>agent</b> ${r.agent}${r.model ? ` (${r.model})` : ''}</li><li>${splitText(r)}</li><li><b>spent</b> ${spendText(r)}</li><li><b>folder</b> ${dir}</li></ul>
${r.simulator ? simulatedBanner(`model simulator, profile "${r.simulator.name}": no real model answered`) : ''}
<p class="banner">${verdictText(r, dir)}</p></header>
${section(
  'iterations',
  'Iterations',
  'Scores are recall · siblings · negatives: the mean pass rate of the cases expecting the skill, a sibling, and no skill.',
  html`<div class="table-wrap"><table><thead><tr><th scope="col">Iteration</th><th scope="col">Description</th><th scope="col" class="num">Tune</th><th scope="col" class="num">Select</th><th scope="col" class="num">Trials</th><th scope="col" class="num">Cost</th><th scope="col"></th></tr></thead><tbody>${rows}</tbody></table></div>`,
)}
${holdout}
${diff ? section('diff', 'SKILL.md', '', html`<pre>${diff}</pre>`) : ''}`;
  return standalonePage(`skillprobe tune ${r.skill}: ${verdict}`, body);
}
