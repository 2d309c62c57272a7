import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import type { AgentAdapter } from '../agents/types.js';
import { outcomeStands, type TrialOutcome } from '../run/schema.js';
import { runPipeline } from '../runner/pipeline.js';
import { InputError } from '../util/input-error.js';
import { loadSuite } from '../runner/load-suite.js';
import { inWatchedFolder } from '../workspace/watched.js';

/** What the short live check found: passed, or each way the CLI's trials differed from what they must be. */
export interface ProbeResult {
  passed: boolean;
  differs: string[];
}

/**
 * The live check's scenarios, the core of the conformance suite's: the simulator makes each case's model fire the
 * skill, answer plainly, fire the sibling or read the skill's file, and the trial must be graded as that (which also
 * needs the CLI's own evidence of what it listed and locked to check out).
 */
const SCENARIOS = [
  { id: 'fires', does: '{ skill: alpha, args: "create --name demo" }', column: 'alpha' },
  { id: 'quiet', does: '{ answer: "Just an answer." }', column: 'none' },
  { id: 'sibling', does: '{ sibling: alpha, args: "beta-thing" }', column: 'alpha-beta' },
  { id: 'reads', does: '{ read: alpha, args: "list" }', column: 'alpha' },
] as const;

const skillFile = (name: string, description: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n\nPlan one \`${name}\` call and show it to the user.\n`;

/** The probe's project: two sibling skills, a case per scenario, the simulator's profile, one trial each. */
function probeProject(adapter: AgentAdapter, binary: string): Record<string, string> {
  return {
    'skills/alpha/SKILL.md': skillFile('alpha', 'Handle alpha requests, create and list alpha records.'),
    'skills/alpha-beta/SKILL.md': skillFile('alpha-beta', 'Handle beta records inside alpha projects.'),
    'cases/probe.yaml': SCENARIOS.map(
      (s) => `- id: ${s.id}\n  prompt: "scenario ${s.id}: please handle an alpha record"\n  expect: { skill: alpha }\n`,
    ).join(''),
    'sim.yaml': `name: doctor-probe\nseed: 1\nrules:\n${SCENARIOS.map((s) => `  - { case: ${s.id}, do: [${s.does}] }\n`).join('')}`,
    'skillprobe.config.yaml': [
      `agent: ${adapter.id}`,
      `agentBinary: ${JSON.stringify(binary)}`,
      'trials: 1',
      'arms: [skill]',
      'maxTurns: 3',
      `concurrency: ${SCENARIOS.length}`,
      'transcriptsDir: runs',
      'timeouts: { trialSeconds: 120 }',
      'retries: { cli: 1, infra: 0 }',
      'decision: { mode: fixed }',
      '',
    ].join('\n'),
  };
}

/** The probe's run speaks of a folder removed afterwards: its progress and notices go nowhere. */
const DISCARDED = new Writable({ write: (_chunk, _encoding, done) => done() });

/**
 * How one scenario's trial differs from what it must be, or undefined when it is as it must be. A trial stopped once
 * its outcome was settled shows the model's choice as whole as one run to its end (the probe runs as a run does). Pure.
 */
export function scenarioDifference(id: string, column: string, outcome: TrialOutcome | undefined): string | undefined {
  if (!outcome) return `${id}: no trial was graded`;
  if (!outcomeStands(outcome.status))
    return `${id}: the trial ended ${outcome.status}${outcome.statusDetail ? ` (${outcome.statusDetail})` : ''}`;
  if (outcome.firedColumn !== column) return `${id}: graded as ${outcome.firedColumn} firing, where the model made ${column} fire`;
  return undefined;
}

/**
 * The short live check of one binary: the scenarios through it against the simulator on 127.0.0.1 (no credential
 * passed, nothing leaves the machine), in a temp project removed afterwards (a watched folder, watched.ts: killed
 * meanwhile, this process leaves neither it nor a CLI behind).
 */
export async function probeCli(adapter: AgentAdapter, binary: string, callerEnv: NodeJS.ProcessEnv): Promise<ProbeResult> {
  return inWatchedFolder(tmpdir(), 'doctor-', async (root) => {
    try {
      for (const [path, text] of Object.entries(probeProject(adapter, binary))) {
        await mkdir(dirname(join(root, 'project', path)), { recursive: true });
        await writeFile(join(root, 'project', path), text);
      }
      await mkdir(join(root, 'work'));
      const cwd = join(root, 'project');
      const suite = loadSuite({ cwd, sim: 'sim.yaml', overrides: {}, callerEnv });
      const { results } = await runPipeline(suite, { cwd, sim: 'sim.yaml', workdir: join(root, 'work'), callerEnv, stderr: DISCARDED });
      const differs = SCENARIOS.flatMap(
        (s) =>
          scenarioDifference(
            s.id,
            s.column,
            results.outcomes.find((o) => o.caseId === s.id),
          ) ?? [],
      );
      return { passed: differs.length === 0, differs };
    } catch (e) {
      // The machine check refused the binary (it would not lock down, or hid a skill): that is what differs.
      if (e instanceof InputError) return { passed: false, differs: e.problems.map((p) => `${p.what}: ${p.todo}`) };
      throw e;
    }
  });
}
