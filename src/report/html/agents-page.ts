import type { AgentsReportInput } from '../reporter.js';
import { AGENT_MATRIX_NOTE, agentCellText, missingAgentText, simulatorText, SIMULATED_NOTE } from '../wording.js';
import { html, type Html } from './markup.js';
import { standalonePage } from './page.js';
import { prose, section, simulatedBanner, VERDICT_TONE } from './parts.js';
import { summariseRun } from '../runs.js';
import { runsTable } from './runs.js';

function matrixTable({ matrix }: AgentsReportInput): Html {
  const head = matrix.agents.map((a) => html`<th>${a.id} <small>${a.cliVersion ?? '?'} · ${a.model}</small></th>`);
  const rows = matrix.rows.map(
    (r) =>
      html`<tr${r.divergent ? html` class="divergent"` : ''}><th scope="row">${r.divergent ? '◆ ' : ''}<code>${r.caseId}</code></th><td>${r.expect}</td>${r.cells.map(
        (cell) => (cell ? html`<td class="tone-${VERDICT_TONE[cell.verdict]}">${agentCellText(cell, r.negative)}</td>` : html`<td>—</td>`),
      )}</tr>`,
  );
  return html`<table class="cases"><thead><tr><th>case</th><th>expect</th>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

/** A run of several agents: the agents × cases matrix, and where each agent's own report is. */
export function agentsPage(input: AgentsReportInput): string {
  const simulated = input.runs.find((r) => r.results.run.simulator)?.results.run.simulator;
  const runs = runsTable(input.runs.map((r) => summariseRun(r.runDir, r.manifest, r.results)));
  const body = html`<h1>skillprobe · ${input.runs.length} agents · <code>${input.runDir}</code></h1>
${simulated ? simulatedBanner(`${simulatorText(simulated)} ${SIMULATED_NOTE}`) : ''}
${section('agents', 'Agents × cases', AGENT_MATRIX_NOTE, matrixTable(input))}
${section('runs', 'Each agent’s run', prose('Every agent ran the whole suite in its own run folder; `skillprobe report FOLDER --reporter html=FILE` gives its charts and trials.'), runs)}
${input.missing.length ? section('missing', 'Agents with nothing to report', 'The run was for these agents too; the exit code counts them as missing data.', html`<ul>${input.missing.map((m) => html`<li>${missingAgentText(m, input.runDir)}</li>`)}</ul>`) : ''}`;
  return standalonePage(`skillprobe · ${input.runs.map((r) => r.results.run.agent.id).join(', ')}`, body);
}
