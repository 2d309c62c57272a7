import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClaudeStream } from '../src/agents/claude-code/parse.js';
import { parseCodexStream } from '../src/agents/codex/parse.js';
import { parseGeminiStream } from '../src/agents/gemini/parse.js';
import { adapterFor, AGENT_IDS } from '../src/agents/registry.js';
import type { TrialMeta } from '../src/run/schema.js';
import type { Transcript } from '../src/transcript/types.js';
import { testedVersion } from './agent-binaries.js';
import { cleanup } from './helpers.js';
import {
  describeStalledTrial,
  leftBehind,
  of,
  resultsOf,
  SCENARIO_IDS,
  scenarioRun,
  stalledRun,
  storedTrial,
  type ConversationParts,
  type StalledRun,
} from './e2e-scenarios.js';

/**
 * The agent conformance suite: every agent in the registry through its real pinned CLI against the simulator, one
 * case per scenario, all in one run; `SKILLPROBE_TEST_BINARY_<AGENT>` runs another installed version instead
 * (test/agent-binaries.ts). Every assertion reads the stored transcript and meta, as a regrade would. What
 * differs between the CLIs is a row of AGENTS; adding an agent adds a row.
 */
type Trial = { t: Transcript; meta: TrialMeta };

interface AgentRow {
  /** The config the run is given (none: the defaults). */
  config: string | undefined;
  parse: (raw: string, meta: TrialMeta) => Transcript;
  /** The pinned CLI's version, which run.json names (the knob's binary names its own: test/agent-binaries.ts). */
  cliVersion: string;
  /** What else run.json says of the agent's model. */
  manifest: Record<string, unknown>;
  /** Where the workspace keeps the family, as the loaded skill's path shows it. */
  skillsFolder: string;
  /** The CLI's own evidence of a skill firing, beyond the canonical skill call. */
  fires: (trial: Trial) => void;
  /** A read of alpha's SKILL.md: a read tool call (and no load), or for a CLI with no skill tool, the load itself. */
  reads: (trial: Trial) => void;
  /** The CLI's exit code once it gave up on HTTP 429, and its own evidence of the retries. */
  limited: { exitCode: number; check?: (trial: Trial) => void };
  /** How the CLI stops a model that keeps calling tools, under --max-turns 3. */
  loops: (trial: Trial) => void;
  /** What every trial's meta says the model was shown, where the CLI gives evidence of it. */
  shown?: (meta: TrialMeta) => void;
  stall: { agentConfig: string; deadlineS: number; ends: 'deadline' | 'cli'; partial: (t: Transcript) => void };
}

const CODEX = 'agent: codex\nmodel: sim-model\n';
const GEMINI_MODEL = 'gemini-2.5-flash';
const GEMINI = `agent: gemini\nmodel: ${GEMINI_MODEL}\n`;
const modelRead = (trial: Trial) => {
  expect(of(trial.t, 'skill_load')).toEqual([]);
};

const AGENTS: Record<string, AgentRow> = {
  'claude-code': {
    config: undefined,
    parse: parseClaudeStream,
    cliVersion: '2.1.332',
    manifest: {},
    skillsFolder: '.claude/skills',
    fires: ({ t }) =>
      expect(
        of(t, 'tool_call')
          .filter((c) => c.intent === 'skill')
          .map((c) => [c.skill, c.args]),
      ).toEqual([['alpha', 'create --name demo']]),
    reads: (trial) => {
      expect(of(trial.t, 'tool_call').map((c) => [c.intent, c.path])).toEqual([['read', '.claude/skills/alpha/SKILL.md']]);
      modelRead(trial);
    },
    limited: {
      exitCode: 1,
      check: ({ t }) => {
        expect(of(t, 'error').filter((e) => e.retrying)).toHaveLength(2); // CLAUDE_CODE_MAX_RETRIES=2
        expect(of(t, 'error').filter((e) => !e.retrying)[0]).toMatchObject({ errorKind: 'rate_limit', httpStatus: 429 });
        expect(of(t, 'result')[0]).toMatchObject({ httpStatus: 429 });
      },
    },
    loops: ({ t, meta }) => {
      expect(meta.exitCode).toBe(1);
      expect(of(t, 'tool_call').filter((c) => c.name === 'Glob')).toHaveLength(3);
      expect(of(t, 'result')[0]).toMatchObject({ status: 'max_turns', message: 'Reached maximum number of turns (3)' });
    },
    stall: { agentConfig: '', deadlineS: 20, ends: 'deadline', partial: () => {} },
  },
  codex: {
    config: `${CODEX}retries:\n  cli: 1\n`,
    parse: parseCodexStream,
    cliVersion: '0.171.0',
    manifest: { model: 'sim-model' },
    skillsFolder: '.agents/skills',
    // Codex has no skill tool: the shell read of a SKILL.md is the firing, made unforgeable by a planted nonce.
    fires: ({ meta }) => expect(Object.keys(meta.evidence?.skillNonces ?? {}).sort()).toEqual(['alpha', 'alpha-beta']),
    reads: ({ t }) => expect(of(t, 'skill_load')).toEqual([expect.objectContaining({ name: 'alpha', status: 'loaded' })]),
    limited: {
      exitCode: 1,
      check: ({ t }) =>
        expect(
          of(t, 'error')
            .filter((e) => !e.retrying)
            .at(-1),
        ).toMatchObject({ errorKind: 'rate_limit', httpStatus: 429 }),
    },
    // The harness counts the commands Codex has no limit for.
    loops: ({ t, meta }) => {
      expect(meta.turnLimitHit).toBe(true);
      expect(of(t, 'tool_call').length).toBeGreaterThan(3);
    },
    shown: (meta) =>
      expect(meta.evidence?.shown).toMatchObject({ skills: ['alpha', 'alpha-beta'], contextFiles: [], sandbox: 'read-only' }),
    // Its stream-idle timeout is set so that it and its retries end inside the deadline: its own error.
    stall: {
      agentConfig: CODEX,
      deadlineS: 15,
      ends: 'cli',
      partial: (t) => {
        expect([...of(t, 'text'), ...of(t, 'tool_call')]).toEqual([]);
        expect(of(t, 'error').filter((e) => !e.retrying)).toEqual([expect.objectContaining({ errorKind: 'timeout' })]);
      },
    },
  },
  gemini: {
    // One CLI retry: a 429 then costs one backoff (about 5 s), not the default two.
    config: `${GEMINI}retries:\n  cli: 1\n`,
    parse: parseGeminiStream,
    cliVersion: '0.61.0',
    manifest: { model: GEMINI_MODEL, reportedModel: GEMINI_MODEL },
    skillsFolder: '.agents/skills',
    fires: ({ t }) => expect(of(t, 'tool_call').map((c) => [c.name, c.intent, c.skill])).toEqual([['activate_skill', 'skill', 'alpha']]),
    reads: (trial) => {
      expect(of(trial.t, 'tool_call').map((c) => [c.intent, c.path])).toEqual([
        ['read', expect.stringMatching(/\/ws\/\.agents\/skills\/alpha\/SKILL\.md$/)],
      ]);
      modelRead(trial);
    },
    limited: {
      exitCode: 173, // 429 & 0xFF
      check: ({ t }) => {
        expect(of(t, 'error').at(-1)).toMatchObject({ errorKind: 'rate_limit', httpStatus: 429, retrying: false });
        expect(of(t, 'result')[0]).toMatchObject({ httpStatus: 429 });
      },
    },
    loops: ({ t, meta }) => {
      expect(meta.exitCode).toBe(53);
      expect(of(t, 'tool_call').map((c) => c.name)).toEqual(['glob', 'glob', 'glob']);
      expect(of(t, 'result')[0]).toMatchObject({ status: 'max_turns', message: expect.stringMatching(/^Reached max session turns/) });
    },
    shown: (meta) =>
      expect(meta.evidence?.shown).toEqual({
        source: 'gemini skills list (once per arm)',
        skills: ['alpha', 'alpha-beta'],
        contextFiles: [],
      }),
    // The stream's first words arrive and never finish: kept, but not as the model's text.
    stall: {
      agentConfig: GEMINI,
      deadlineS: 20,
      ends: 'deadline',
      partial: (t) => {
        expect(of(t, 'text')).toEqual([]);
        expect(t.events.at(-1)).toEqual({ kind: 'other', source: 'assistant', type: 'unfinished_text' });
      },
    },
  },
};

/** A deadline no normal trial comes near, even on a loaded machine (a trial takes 0.5–11 s there). */
const NORMAL_DEADLINE_S = 120;

it('every agent in the registry has a conformance row, and every row is an agent', () => {
  expect(Object.keys(AGENTS).sort()).toEqual([...AGENT_IDS].sort());
});

describe.each(Object.entries(AGENTS))('end to end: the real %s CLI against the simulator', (id, row) => {
  let project: string;
  let workdir: string;
  let runDir: string;
  let exitCode: number | undefined;
  let stdout: string;
  let cliVersion: string;
  const trial = (caseId: string, suffix = '') => storedTrial(row.parse, runDir, caseId, 'skill', 1, suffix);
  const outcome = (caseId: string) => resultsOf(runDir).outcomes.find((o) => o.caseId === caseId);
  const takes = adapterFor(id).conversation;
  const conversation: ConversationParts = [
    ...(takes?.history ? ['history' as const] : []),
    ...(takes?.followUps ? ['followUps' as const] : []),
  ];
  const planned = SCENARIO_IDS.length + conversation.length;

  beforeAll(async () => {
    let stderr: string;
    cliVersion = await testedVersion(id, row.cliVersion);
    ({ project, workdir, runDir, exitCode, stdout, stderr } = await scenarioRun(id, row.config, NORMAL_DEADLINE_S, conversation));
    expect(stderr).not.toMatch(/at .*\.js:\d+/);
    expect(readdirSync(join(project, 'runs'))).toHaveLength(1);
  }, 240_000);

  afterAll(() => cleanup(project, workdir));

  it('completes, names the agent, its CLI version and model, and says where the run is', () => {
    expect(exitCode).not.toBe(2);
    expect(stdout).toMatch(/run folder: runs\/\d{8}-\d{6}-[0-9a-f]{6}/);
    const manifest = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
    expect(manifest).toMatchObject({
      status: 'completed',
      simulator: { name: `e2e-${id}`, seed: 7 },
      trials: { planned, finished: planned },
      agent: { id, cliVersion },
      ...row.manifest,
    });
    expect(manifest.skills.map((s: { dir: string }) => s.dir)).toEqual(['alpha', 'alpha-beta']);
    expect(manifest.skillsHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a skill fires: the skill call, loaded from the workspace, the plan from the model', () => {
    const fired = trial('fires');
    expect(fired.meta.exitCode).toBe(0);
    row.fires(fired);
    expect(
      of(fired.t, 'tool_call')
        .filter((c) => c.intent === 'skill')
        .map((c) => c.skill),
    ).toEqual(['alpha']);
    expect(of(fired.t, 'skill_load')).toEqual([
      expect.objectContaining({
        name: 'alpha',
        status: 'loaded',
        path: expect.stringMatching(new RegExp(`/ws/${row.skillsFolder.replaceAll('.', '\\.')}/alpha$`)),
      }),
    ]);
    expect(
      of(fired.t, 'text')
        .filter((e) => e.source === 'assistant')
        .at(-1)!.text,
    ).toContain('alpha create --name demo');
    expect(of(fired.t, 'result')[0]!.status).toBe('success');
    expect(outcome('fires')).toMatchObject({ status: 'ok', fired: 'expected', passed: true });
  });

  it('nothing fires: a plain answer and no tool call', () => {
    const { t, meta } = trial('quiet');
    expect(meta.exitCode).toBe(0);
    expect(of(t, 'tool_call')).toEqual([]);
    expect(of(t, 'text').map((e) => e.text)).toEqual(['Just an answer.']);
    expect(outcome('quiet')).toMatchObject({ status: 'ok', fired: 'none', passed: false });
  });

  it('a wrong sibling fires: the confusion column is the sibling', () => {
    const { t } = trial('sibling');
    expect(of(t, 'skill_load')).toEqual([expect.objectContaining({ name: 'alpha-beta', status: 'loaded' })]);
    expect(outcome('sibling')).toMatchObject({ fired: 'sibling', firedColumn: 'alpha-beta', passed: false });
  });

  it('a read of SKILL.md is recorded as the CLI gives it, and the plan still comes from the model', () => {
    const read = trial('reads');
    row.reads(read);
    expect(
      of(read.t, 'text')
        .filter((e) => e.source === 'assistant')
        .at(-1)!.text,
    ).toContain('alpha list');
  });

  it('HTTP 429 until the CLI gives up: missing data, retried once by the harness, both attempts kept', () => {
    const attempts = [trial('limited', '.a1'), trial('limited')];
    for (const attempt of attempts) {
      expect(attempt.meta.exitCode).toBe(row.limited.exitCode);
      expect(of(attempt.t, 'error').filter((e) => !e.retrying)).toContainEqual(
        expect.objectContaining({ errorKind: 'rate_limit', httpStatus: 429 }),
      );
      expect(of(attempt.t, 'result')[0]).toMatchObject({ status: 'api_error' });
      row.limited.check?.(attempt);
    }
    expect(attempts.map((a) => a.meta.attempt)).toEqual([1, 2]);
    expect(outcome('limited')).toMatchObject({ status: 'infra_error', passed: null });
  });

  it('stops at the turn limit, a budget stop and a failure', () => {
    row.loops(trial('loops'));
    expect(outcome('loops')).toMatchObject({ status: 'max_turns', passed: false });
  });

  if (conversation.includes('history')) {
    it('a two-turn history reaches the model: the skill meant for the request’s user turn 2 fires on the case’s turn 1', () => {
      const { meta } = trial('history');
      expect(meta.evidence?.history).toMatchObject({ held: true });
      expect(outcome('history')).toMatchObject({ status: 'ok', fired: 'expected', passed: true });
    });
  }
  if (conversation.includes('followUps')) {
    it('a follow-up goes in after a clarifying question, and the skill fires on turn 2', () => {
      const { t, meta } = trial('asks');
      expect(meta.exitCode).toBe(0);
      expect(of(t, 'user_turn').map((e) => e.turn)).toEqual([1, 2]);
      expect(of(t, 'text').find((e) => e.source === 'assistant')?.text).toBe('Which alpha record do you mean?');
      expect(of(t, 'result').map((r) => r.status)).toEqual(['success', 'success']);
      expect(outcome('asks')).toMatchObject({ status: 'ok', fired: 'expected', firedTurn: 2, passed: true });
      expect(outcome('asks')?.firings).toEqual([expect.objectContaining({ skill: 'alpha', turn: 2 })]);
    });
  }

  const { shown } = row;
  if (shown) {
    it('every trial shows, from the CLI’s own evidence, exactly the family', () => {
      for (const caseId of ['fires', 'quiet', 'sibling', 'reads', 'loops']) shown(trial(caseId).meta);
    });
  }

  it('writes every transcript atomically (no temporary files left)', () => {
    const leftovers = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? leftovers(join(dir, e.name)) : e.name.endsWith('.tmp') ? [e.name] : [],
      );
    expect(leftovers(runDir)).toEqual([]);
    expect(existsSync(join(runDir, 'trials', 'fires', 'skill', '1.meta.json'))).toBe(true);
  });

  it('leaves no process and no workspace behind', () => {
    expect(leftBehind(workdir)).toEqual({ processes: [], files: [] });
  });
});

/**
 * Every agent's stalled-trial run, all started when the first is wanted (after the scenarios): each mostly waits for
 * its deadline, so they wait together rather than one after another.
 */
let stalled: Record<string, Promise<StalledRun>> | undefined;
const stalledRunOf = (id: string): Promise<StalledRun> => {
  stalled ??= Object.fromEntries(
    Object.entries(AGENTS).map(([agent, row]) => {
      const run = stalledRun(agent, row.stall.agentConfig, row.stall.deadlineS);
      run.catch(() => {}); // its own describe awaits it and reports a failure
      return [agent, run];
    }),
  );
  return stalled[id]!;
};
// Each describe removes its own run's folders; this catches a run whose describe was left out (a filtered run).
afterAll(async () => {
  for (const r of await Promise.allSettled(Object.values(stalled ?? {})))
    if (r.status === 'fulfilled') cleanup(r.value.project, r.value.workdir);
});

for (const [id, row] of Object.entries(AGENTS))
  describeStalledTrial(id, () => stalledRunOf(id), row.stall.deadlineS, row.stall.ends, row.parse, row.stall.partial);
