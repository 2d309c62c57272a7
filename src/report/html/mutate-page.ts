import { fmt, interval } from '../format.js';
import {
  aaFlipText,
  headText,
  healthLines,
  killRates,
  mutantRows,
  POWER_NOTE,
  statusText,
  type MutateReportInput,
} from '../mutate/view.js';
import { html } from './markup.js';
import { standalonePage } from './page.js';
import { prose, section, simulatedBanner } from './parts.js';

/** The mutate as one self-contained page: mutants × outcome, and the kill rate per operator. */
export function mutatePage({ record: r, dir }: MutateReportInput): string {
  const rows = mutantRows(r).map(
    (x) =>
      html`<tr><td>${x.skill}</td><th scope="row">${x.operator}</th><td>${x.outcome}</td><td class="num">${x.power}</td><td class="num">${x.flipped}</td><td>${prose(x.reading)}</td></tr>`,
  );
  const rates = killRates(r).map(
    (k) =>
      html`<tr><th scope="row">${k.operator}</th><td class="num">${k.killed}/${k.ran}</td><td class="num">${fmt(k.rate.p)}</td><td>${interval(k.rate)}</td></tr>`,
  );
  const body = html`<header class="top"><div class="title-row"><h1>mutate <code>${r.skills.join(', ')}</code></h1></div>
<ul class="meta"><li>${headText(r)}</li><li>${statusText(r, dir)}</li></ul>
${r.simulator ? simulatedBanner(`model simulator, profile "${r.simulator.name}": no real model answered`) : ''}</header>
${section(
  'mutants',
  'Mutants',
  `${aaFlipText(r)}; ${POWER_NOTE}.`,
  html`<div class="table-wrap"><table><thead><tr><th scope="col">Skill</th><th scope="col">Operator</th><th scope="col">Outcome</th><th scope="col" class="num">Power</th><th scope="col" class="num">Flips</th><th scope="col">Why</th></tr></thead><tbody>${rows}</tbody></table></div>`,
)}
${section(
  'kill-rates',
  'Kill rate per operator',
  'Killed of the mutants that ran to an answer, with the exact (Clopper–Pearson) 95% interval.',
  html`<div class="table-wrap"><table><thead><tr><th scope="col">Operator</th><th scope="col" class="num">Killed</th><th scope="col" class="num">Kill rate</th><th scope="col">95% interval</th></tr></thead><tbody>${rates}</tbody></table></div>`,
)}
${section(
  'suite-health',
  'Suite health',
  'What lint says of the suite as the mutate began: cases that give the answer away, cases the stored runs show cannot move, the A/A false-flip rate.',
  html`<ul>${healthLines(r).map((l) => html`<li>${l}</li>`)}</ul>`,
)}`;
  return standalonePage(`skillprobe mutate ${r.skills.join(', ')}`, body);
}
