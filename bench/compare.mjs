// bench/compare: is `skillprobe compare` honest as a canary? Measured on the model simulator's seeded draws.
// A/A: the same profile twice (two seeds), ≥ 200 repetitions: the share of repetitions that flag any case
// REGRESSED (the exit code 1) must stay ≤ α. Power: one case drops from 0.90 to 0.75 in the candidate; at the N
// `plan --compare` gives, the share of repetitions that flag it must reach the planned power.
// Each trial is the simulator's own seeded draw for that trial key (what the model stand-in does on its first
// turn); a trial passes when that draw calls the case's expected skill (or, for `none` cases, no skill). The CLI
// transport is left out: it adds minutes per repetition and nothing to the statistics, which is what this measures.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { planComparison } from '../dist/report/plan-compare.js';
import { configSchema } from '../dist/run/config-schema.js';
import { loadProfile } from '../dist/sim/profile.js';
import { firstBehaviour } from '../dist/sim/policy.js';
import { compareRuns } from '../dist/verdict/compare.js';
import { buildResults } from '../dist/verdict/results.js';

const ROOT = new URL('..', import.meta.url).pathname;
const REPS = Number(process.env.COMPARE_REPS ?? 200);
const ALPHA = 0.05;
const POWER = 0.8;
export const [FROM, TO] = [0.9, 0.75];
export const DROPPED = 'jira-create-bug';

const FAMILY = ['atl', 'atl-jira', 'atl-confluence'];
export const CASES = parse(readFileSync(join(ROOT, 'cases/atl.yaml'), 'utf8')).map((c) => ({
  id: c.id,
  prompt: c.prompt,
  expect: c.expect.skill,
}));
const DEMO = loadProfile(join(ROOT, 'sim/demo.profile.yaml'));

/** The demo profile with the dropped case's trigger rate set to `p` (its other behaviour: a plain answer). */
export function profileWith(p, seed) {
  const rules = DEMO.rules.map((r) =>
    r.case === DROPPED
      ? {
          ...r,
          do: [
            { p, skill: 'atl-jira', args: 'create-issue' },
            { p: 1 - p, answer: 'Open Jira and file it there.' },
          ],
        }
      : r,
  );
  return { ...DEMO, seed, rules };
}

function outcome(c, n, passed, column) {
  return {
    caseId: c.id,
    arm: 'skill',
    n,
    status: 'ok',
    passed,
    firings: [],
    firedColumn: column,
    fired: column === c.expect ? 'expected' : column === 'none' ? 'none' : FAMILY.includes(column) ? 'sibling' : 'other',
    readOnly: false,
    flags: { noop: false, clarifying: false },
    parseWarnings: 0,
  };
}

/** One fixed-N run of the atl cases: each trial the simulator's draw for its key. */
export function simulatedRun(profile, n) {
  const defs = CASES.map((c) => ({
    id: c.id,
    expect: c.expect,
    exclusive: false,
    tags: [],
    decision: { threshold: 0.9, delta: 0.1, alpha: 0.05, beta: 0.2, minTrials: 1, maxTrials: n },
  }));
  const outcomes = CASES.flatMap((c) =>
    Array.from({ length: n }, (_, i) => {
      const view = { offeredSkills: FAMILY, tools: ['Skill', 'Read'], prompt: c.prompt, turn: 0, lastResults: [] };
      const { behaviour: b } = firstBehaviour(profile, view, { key: `${c.id}/skill/${i + 1}`, caseId: c.id });
      const column = b.skill ?? 'none';
      return outcome(c, i + 1, column === c.expect, column);
    }),
  );
  const manifest = {
    runId: `sim-${profile.seed}`,
    harness: { name: 'skillprobe', version: 'bench' },
    status: 'completed',
    startedAt: '2026-12-01T00:00:00Z',
    agent: { id: 'claude-code', binary: 'claude', cliVersion: 'bench' },
    model: 'simulated',
    config: configSchema.parse({ arms: ['skill'], decision: { mode: 'fixed' }, trials: n }),
    skills: FAMILY.map((name) => ({ dir: name, name, hash: 'h' })),
    skillsHash: 'h',
    cases: { files: [], hash: 'c', defs },
    family: FAMILY.map((name) => ({ dir: name, name })),
    simulator: { profile: 'bench', name: DEMO.name, seed: profile.seed },
    trials: { planned: outcomes.length, finished: outcomes.length, notStarted: 0 },
  };
  return { dir: manifest.runId, manifest, results: buildResults(manifest, outcomes, [], new Date(0)) };
}

export function benchCompare() {
  const plan = planComparison(FROM, TO, ALPHA, POWER, { cases: CASES.length, caseArms: CASES.length, minTrials: 6 });
  const n = plan.acrossCases;
  const t0 = performance.now();
  let falseRegressions = 0;
  let caught = 0;
  for (let r = 0; r < REPS; r++) {
    const base = simulatedRun(profileWith(FROM, 10_000 + r), n);
    const again = simulatedRun(profileWith(FROM, 20_000 + r), n);
    if (compareRuns(base, again).exitCode === 1) falseRegressions++;
    const dropped = simulatedRun(profileWith(TO, 20_000 + r), n);
    if (compareRuns(base, dropped).cases.find((c) => c.caseId === DROPPED)?.change === 'REGRESSED') caught++;
  }
  return { reps: REPS, n, plan, aaRate: falseRegressions / REPS, power: caught / REPS, seconds: (performance.now() - t0) / 1000 };
}

export function printCompare({ reps, n, plan, aaRate, power, seconds }) {
  console.log(
    `compare   canary on the simulator's seeded draws: ${CASES.length} cases, N = ${n} per case and run (plan --compare: ${FROM} → ${TO}, power ${POWER}, α ${ALPHA}, BH across cases), ${reps} repetitions, ${seconds.toFixed(0)} s`,
  );
  console.log(
    `          A/A false-regression rate ${(100 * aaRate).toFixed(1)}% (target ≤ ${100 * ALPHA}%: ratio ${(aaRate / ALPHA).toFixed(2)})`,
  );
  console.log(
    `          power to flag ${DROPPED} ${FROM} → ${TO}: ${(100 * power).toFixed(1)}% (target ≥ ${100 * POWER}%: ratio ${(power / POWER).toFixed(2)}; one case tested alone would need N = ${plan.perCase})`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) printCompare(benchCompare());
