import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installCommand, notInstalled, pinnedVersion } from '../src/agents/cli-binary.js';
import { conformanceOf, type Conformance, type ConformanceRecord } from '../src/agents/conformance.js';
import { adapterFor, AGENT_IDS } from '../src/agents/registry.js';
import { scenarioDifference } from '../src/commands/doctor-probe.js';
import { conformanceWords, doctorVerdicts, renderDoctor } from '../src/cli/doctor-report.js';
import type { AgentCheck, FoundCli } from '../src/commands/doctor.js';
import { EXIT } from '../src/run/exit-codes.js';
import type { TrialOutcome } from '../src/run/schema.js';
import { cleanup, makeProject, ROOT, runInProcess, testEnv } from './helpers.js';

const passed: ConformanceRecord = { version: '1.0.0', passed: true, date: '2026-12-01', differs: [] };
const failed: ConformanceRecord = { version: '1.1.0', passed: false, date: '2026-12-02', differs: ['the init event lists no skills'] };
const RECORDS = [passed, failed];

describe('a version looked up in its CLI’s record', () => {
  it.each<[string, Conformance]>([
    ['1.0.0', { kind: 'passed', record: passed }],
    ['1.1.0', { kind: 'failed', record: failed }],
    ['1.2.0', { kind: 'unrecorded', checked: RECORDS }],
    ['1.0', { kind: 'unrecorded', checked: RECORDS }],
  ])('%s', (version, standing) => expect(conformanceOf(RECORDS, version)).toEqual(standing));

  it.each<[Conformance, string]>([
    [{ kind: 'passed', record: passed }, "passed skillprobe's conformance checks (2026-12-01)"],
    [{ kind: 'failed', record: failed }, "failed skillprobe's conformance checks (2026-12-02)"],
    [{ kind: 'unrecorded', checked: RECORDS }, "never run through skillprobe's conformance checks (1.0.0 passed, 1.1.0 failed)"],
    [{ kind: 'unrecorded', checked: [] }, "never run through skillprobe's conformance checks (none recorded)"],
  ])('said in words: %j', (standing, words) => expect(conformanceWords(standing)).toBe(words));
});

const cli = (found: Partial<FoundCli> & Pick<FoundCli, 'source'>): FoundCli => ({ binary: `/bin/${found.source}`, ...found });
const check = (found: FoundCli[]): AgentCheck => ({
  agent: 'codex',
  cli: 'Codex CLI',
  package: '@openai/codex',
  pinned: '1.0.0',
  install: 'npm install -D @openai/codex@1.0.0',
  found,
});
const recorded = (version: string) => ({ version, conformance: conformanceOf(RECORDS, version) });

describe('the exit code: the worst of the CLIs found', () => {
  it.each<[string, FoundCli[][], number[]]>([
    ['no CLI at all is an error', [[], []], [EXIT.error]],
    ['a version that passed', [[cli({ source: 'installed', ...recorded('1.0.0') })]], [EXIT.pass]],
    ['a version that failed', [[cli({ source: 'PATH', ...recorded('1.1.0') })]], [EXIT.fail]],
    ['an unchecked version', [[cli({ source: 'PATH', ...recorded('1.2.0') })]], [EXIT.inconclusive]],
    [
      'an unchecked version the live check passed',
      [[cli({ source: 'PATH', ...recorded('1.2.0'), probe: { passed: true, differs: [] } })]],
      [EXIT.pass],
    ],
    [
      'an unchecked version the live check failed',
      [[cli({ source: 'PATH', ...recorded('1.2.0'), probe: { passed: false, differs: ['x'] } })]],
      [EXIT.fail],
    ],
    ['a binary that will not say its version', [[cli({ source: '--agent-binary' })]], [EXIT.inconclusive]],
    ['one agent missing, another found', [[], [cli({ source: 'installed', ...recorded('1.0.0') })]], [EXIT.pass]],
  ])('%s', (_name, agents, codes) => expect(doctorVerdicts(agents.map(check))).toEqual(codes));
});

describe('the report', () => {
  it('names the package to add for a CLI not installed beside skillprobe, and says no CLI was found', () => {
    const text = renderDoctor([check([])]);
    expect(text).toContain('Codex CLI (codex; package @openai/codex, skillprobe pins 1.0.0)');
    expect(text).toContain('not installed beside skillprobe; to run it without --agent-binary: npm install -D @openai/codex@1.0.0');
    expect(text).toMatch(/No agent CLI found/);
  });

  it('gives each copy its source, version, standing and path; a recorded difference; the live check offered for an unchecked one', () => {
    const text = renderDoctor([check([cli({ source: 'installed', ...recorded('1.1.0') }), cli({ source: 'PATH', ...recorded('1.2.0') })])]);
    expect(text.split('\n').slice(1, 7)).toEqual([
      "  installed: 1.1.0, failed skillprobe's conformance checks (2026-12-02)",
      '    /bin/installed',
      '    differs: the init event lists no skills',
      "  PATH: 1.2.0, never run through skillprobe's conformance checks (1.0.0 passed, 1.1.0 failed)",
      '    /bin/PATH',
      '    for a short live check against the simulator: skillprobe doctor --probe',
    ]);
    expect(text).not.toContain('not installed');
  });

  it('says what the live check found in place of the record', () => {
    const probe = { passed: false, differs: ['fires: the trial ended agent_error (exit 1)'] };
    const text = renderDoctor([check([cli({ source: 'PATH', ...recorded('1.2.0'), probe })])]);
    expect(text).toContain('    live check (--probe): failed\n    differs: fires: the trial ended agent_error (exit 1)\n');
    expect(text).not.toContain('skillprobe doctor --probe');
  });
});

describe('the live check’s grading of one scenario', () => {
  const outcome = (o: Partial<TrialOutcome>) => ({ status: 'ok', firedColumn: 'alpha', ...o }) as TrialOutcome;
  it.each<[string, TrialOutcome | undefined, string | undefined]>([
    ['as the model did', outcome({}), undefined],
    ['stopped once settled', outcome({ status: 'settled' }), undefined],
    [
      'settled on the wrong column',
      outcome({ status: 'settled', firedColumn: 'none' }),
      'fires: graded as none firing, where the model made alpha fire',
    ],
    ['no trial', undefined, 'fires: no trial was graded'],
    [
      'an isolation error',
      outcome({ status: 'isolation_error', statusDetail: 'no init event' }),
      'fires: the trial ended isolation_error (no init event)',
    ],
    ['the wrong column', outcome({ firedColumn: 'none' }), 'fires: graded as none firing, where the model made alpha fire'],
  ])('%s', (_name, o, difference) => expect(scenarioDifference('fires', 'alpha', o)).toBe(difference));
});

describe('every CLI is an optional peer, pinned for the tests, its pin recorded as passing', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, unknown>>;
  it.each(AGENT_IDS)('%s', (id) => {
    const { package: pkg, conformance } = adapterFor(id);
    expect(manifest.dependencies![pkg.name]).toBeUndefined();
    expect(manifest.peerDependencies![pkg.name]).toBeDefined();
    expect(manifest.peerDependenciesMeta![pkg.name]).toEqual({ optional: true });
    const pin = pinnedVersion(pkg.name);
    expect(pin).toMatch(/^\d+\.\d+\.\d+$/);
    expect(conformanceOf(conformance, pin).kind, `a passing record of the pinned ${pin}`).toBe('passed');
  });

  it('a missing CLI is refused naming the package to add', () => {
    const e = notInstalled(adapterFor('codex').package, 'Codex CLI');
    expect(e.message).toContain(`npm install -D @openai/codex@${pinnedVersion('@openai/codex')}`);
    expect(installCommand('@openai/codex')).toBe(`npm install -D @openai/codex@${pinnedVersion('@openai/codex')}`);
  });
});

describe('skillprobe doctor, in process (nothing spawned but a stand-in on PATH)', () => {
  const project = makeProject({
    'bin/codex': '#!/bin/sh\necho "codex-cli 0.170.5"\n',
  });
  chmodSync(join(project, 'bin/codex'), 0o755);
  afterAll(() => cleanup(project));

  it('finds the installed CLIs by their manifests; npm’s .bin links to them on PATH are the same copies', async () => {
    const r = await runInProcess(['doctor', '--json'], { cwd: project, env: testEnv({ PATH: join(ROOT, 'node_modules', '.bin') }) });
    expect(r.exitCode, r.stderr).toBe(EXIT.pass);
    const { agents } = JSON.parse(r.stdout) as { agents: AgentCheck[] };
    expect(agents.map((a) => [a.agent, a.found.map((f) => [f.source, f.version, f.conformance?.kind])])).toEqual(
      AGENT_IDS.map((id) => [id, [['installed', pinnedVersion(adapterFor(id).package.name), 'passed']]]),
    );
  });

  it('a CLI on PATH at a version never checked is inconclusive, and the live check is offered', async () => {
    const r = await runInProcess(['doctor', '--agent', 'codex'], { cwd: project, env: testEnv({ PATH: join(project, 'bin') }) });
    expect(r.exitCode, r.stderr).toBe(EXIT.inconclusive);
    expect(r.stdout).toContain(`  PATH: 0.170.5, never run through skillprobe's conformance checks`);
    expect(r.stdout).toContain(join(project, 'bin/codex'));
    expect(r.stdout).toContain('skillprobe doctor --probe');
  });

  it.each([
    [['doctor', '--agent-binary', 'bin/codex'], /^skillprobe: --agent-binary: names a binary but not whose it is — add --agent ID/],
    [['doctor', '--agent', 'kodex'], /^skillprobe: --agent: unknown agent "kodex"/],
    [['doctor', '--agent', 'codex', '--agent-binary', 'bin/none'], /^skillprobe: agentBinary: agent binary .*bin\/none does not exist/],
  ])('%j is refused in one line, exit 2', async (args, message) => {
    const r = await runInProcess(args, { cwd: project });
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.stderr.split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });
});
