// bench/field: what the field's pass rule and its went-around rate measure, beside the simpler readings they replace.
// A model offered the default tools acts by itself first with probability q (it goes around the skill); after the
// refusal it may still call the skill (probability r); otherwise it calls the skill first.
//   pass rate:  the field's rule (the skill fired before any acting call) has expectation exactly 1 − q; the simpler
//               rule "the skill fired at all" reads 1 − q + q·r, and the lab (no acting tool offered) reads 1. Both
//               computed exactly, and confirmed by seeded trials graded by the product's gradeTrial.
//   interval:   the went-around rate's 95% Wilson interval, its exact coverage at n trials (binomial sum), beside
//               the simpler Wald interval.
// FIELD_REPS sets the seeded trials per setting.
import { claudeCode } from '../dist/agents/claude-code/adapter.js';
import { gradeTrial } from '../dist/grade/outcome.js';
import { wilsonInterval, zFor } from '../dist/stats/wilson.js';
import { generator } from './lib.mjs';

const REPS = Number(process.env.FIELD_REPS ?? 4000);
const SEED = 34;
const SETTINGS = [
  { q: 0.1, r: 0.5 },
  { q: 0.3, r: 0.5 },
  { q: 0.5, r: 0.8 },
];
const SIZES = [10, 20, 40];
const FAMILY = [{ dir: 'chart', name: 'chart' }];
const CASE = {
  id: 'c',
  expect: 'chart',
  exclusive: false,
  tags: [],
  context: 'field',
  decision: { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 5, maxTrials: 50 },
};
const OPTS = {
  family: FAMILY,
  skillsFolder: claudeCode.skillsFolder,
  readCountsAsFiring: true,
  budgetStopsFail: true,
  conventions: claudeCode.grading,
};
const META = {
  exitCode: 0,
  signal: null,
  wallMs: 100,
  timedOut: false,
  interrupted: false,
  stderrTail: '',
  evidence: { workspaceChanged: [] },
};
// The pinned Claude Code's (2.1.332) default menu, as its init event lists it in a fresh HOME (measured).
const MENU = [
  'Task',
  'Bash',
  'CronCreate',
  'CronDelete',
  'CronList',
  'Edit',
  'EnterWorktree',
  'ExitWorktree',
  'ListAgents',
  'Monitor',
  'NotebookEdit',
  'Read',
  'ReportFindings',
  'ScheduleWakeup',
  'SendMessage',
  'Skill',
  'TaskStop',
  'ToolSearch',
  'WebFetch',
  'WebSearch',
  'Workflow',
  'Write',
];
const REFUSAL = 'Not permitted in this session; the call was not run';

/** One field trial's canonical transcript: the acting call refused, then maybe the skill; or the skill first. */
function transcript(actsFirst, skillAfter) {
  const init = { kind: 'init', source: 'system', model: 'm', cliVersion: '2.1.332', cwd: '/ws', tools: MENU, skills: ['chart'] };
  const act = [
    { kind: 'tool_call', source: 'assistant', id: 'a', name: 'Bash', input: { command: 'python chart.py' }, intent: 'act' },
    { kind: 'tool_result', source: 'tool', id: 'a', isError: true, text: REFUSAL },
  ];
  const skill = [
    { kind: 'tool_call', source: 'assistant', id: 's', name: 'Skill', input: { skill: 'chart' }, intent: 'skill', skill: 'chart' },
    { kind: 'skill_load', source: 'harness', callId: 's', name: 'chart', status: 'loaded' },
  ];
  const body = actsFirst ? [...act, ...(skillAfter ? skill : [])] : skill;
  return {
    events: [init, ...body, { kind: 'text', source: 'assistant', text: 'done' }, { kind: 'result', source: 'system', status: 'success' }],
    warnings: [],
  };
}

const binomial = (n, k, p) => {
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return c * p ** k * (1 - p) ** (n - k);
};

/** Exact coverage of an interval rule for a true rate p at n trials. */
function coverage(n, p, interval) {
  let covered = 0;
  for (let k = 0; k <= n; k++) {
    const { lo, hi } = interval(k, n);
    if (lo <= p && p <= hi) covered += binomial(n, k, p);
  }
  return covered;
}

const wald = (k, n) => {
  const p = k / n;
  const half = zFor(0.95) * Math.sqrt((p * (1 - p)) / n);
  return { lo: p - half, hi: p + half };
};

export function benchField() {
  const random = generator(SEED);
  const rates = SETTINGS.map(({ q, r }) => {
    let passed = 0;
    let firedAtAll = 0;
    for (let i = 0; i < REPS; i++) {
      const actsFirst = random() < q;
      const skillAfter = random() < r;
      const o = gradeTrial(transcript(actsFirst, skillAfter), META, CASE, 'skill', 1, OPTS);
      if (o.passed) passed++;
      if (o.firings.some((f) => f.skill === 'chart')) firedAtAll++;
    }
    return { q, r, exact: 1 - q, simulated: passed / REPS, naiveExact: 1 - q + q * r, naive: firedAtAll / REPS, lab: 1 };
  });
  const intervals = SETTINGS.flatMap(({ q }) =>
    SIZES.map((n) => ({ q, n, wilson: coverage(n, q, (k, m) => wilsonInterval(k, m, 0.95)), wald: coverage(n, q, wald) })),
  );
  return { rates, intervals };
}

export function printField({ rates, intervals }) {
  console.log(`\nbench/field · pass rate in the field, ${REPS} seeded trials per row graded by gradeTrial`);
  console.log('went around q  skill after r  field rule exact  simulated  "fired at all" exact  simulated  lab reads');
  for (const x of rates)
    console.log(
      `${x.q.toFixed(2).padStart(13)}  ${x.r.toFixed(2).padStart(13)}  ${x.exact.toFixed(3).padStart(16)}  ${x.simulated.toFixed(3).padStart(9)}  ${x.naiveExact.toFixed(3).padStart(20)}  ${x.naive.toFixed(3).padStart(9)}  ${x.lab.toFixed(3).padStart(9)}`,
    );
  console.log('went-around rate: exact coverage of the 95% interval (nominal 0.95)');
  console.log('    q    n  Wilson  Wald (simpler)');
  for (const x of intervals)
    console.log(
      `${x.q.toFixed(2).padStart(5)}  ${String(x.n).padStart(3)}  ${x.wilson.toFixed(3).padStart(6)}  ${x.wald.toFixed(3).padStart(14)}`,
    );
  const worst = (key) => Math.min(...intervals.map((x) => x[key])).toFixed(3);
  console.log(`worst coverage over these rows: Wilson ${worst('wilson')}, Wald ${worst('wald')} (nominal 0.95)`);
}

if (import.meta.url === `file://${process.argv[1]}`) printField(benchField());
