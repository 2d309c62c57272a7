import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { baseProject, cleanup, makeProject, ROOT, runInProcess, testEnv } from './helpers.js';
import { onlyRun, resultsOf } from './e2e-scenarios.js';
import { copyImportFixtures, FORMATS } from './import-fixtures.js';

/**
 * Every importer's real-shaped fixture runs in place through Codex against the simulator and exports as
 * skill-creator's benchmark.json and plugin-eval's result: each case with the skill or the negative its import gave.
 * Formats that reuse case ids (the trigger lists) cannot share a suite, so the formats are packed into as few runs
 * as keep ids unique; one trial of the skill arm each.
 */
// The judged items the imports carry are judged once each: what they say is not exported, only that their cases ran.
const CONFIG = 'agent: codex\nmodel: sim-model\ncases: cases/*.yaml\njudge:\n  allowSelf: true\n  samples: 1\nretries:\n  cli: 1\n';

/** The formats in groups whose case ids do not collide, first fit. */
function runGroups(): (typeof FORMATS)[] {
  const groups: { formats: typeof FORMATS; ids: Set<string> }[] = [];
  for (const f of FORMATS) {
    const ids = f.cases.map((c) => c.id);
    const group = groups.find((g) => ids.every((id) => !g.ids.has(id)));
    if (group) {
      group.formats.push(f);
      ids.forEach((id) => group.ids.add(id));
    } else groups.push({ formats: [f], ids: new Set(ids) });
  }
  return groups.map((g) => g.formats);
}

/**
 * The real MCP server the imported formats name (`node mcp/records-server.js`, beside the file naming it): every run
 * first starts each real server once and refuses one that does not answer, so the project holds one that does (the
 * tests' issues server).
 */
const RECORDS = `import(${JSON.stringify(pathToFileURL(join(ROOT, 'test', 'fixtures', 'mcp', 'issues-server.mjs')).href)});\n`;

/** What an exporter writes as a case's expectation: the skill, or `not <skill>` for a negative. */
const label = (e: Record<string, unknown>) => (e.not === undefined ? String(e.skill) : `not ${String(e.not)}`);

describe('end to end: every imported format runs in place and exports', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it.each(runGroups().map((formats) => ({ formats, names: formats.map((f) => f.file).join(', ') })))(
    'runs $names and exports their cases',
    async ({ formats }) => {
      const project = makeProject({
        ...baseProject(),
        'sim.yaml': 'seed: 1\n',
        'skillprobe.config.yaml': CONFIG,
        'skills/alpha/evals/mcp/records-server.js': RECORDS,
        'skills/alpha/evals/waza-mcp/mcp/records-server.js': RECORDS,
      });
      dirs.push(project);
      copyImportFixtures(project);
      const glob = formats.length === 1 ? formats[0]!.file : `{${formats.map((f) => f.file).join(',')}}`;
      const env = testEnv();
      const flags = '--sim sim.yaml --trials 1 --arms skill --no-gate --transcripts runs'.split(' ');
      // In this process: the importers and exporters are under test, not skillprobe's own process.
      const r = await runInProcess(['run', '--cases', `skills/alpha/evals/${glob}`, ...flags], { cwd: project, env });
      expect(r.exitCode, r.stderr).toBe(0);
      const runDir = onlyRun(project);
      const manifest = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
      const ran = new Set(resultsOf(runDir).outcomes.map((o) => o.caseId));
      const exported = await runInProcess(
        ['report', runDir, '--reporter', 'benchmark=benchmark.json', '--reporter', 'plugin-eval=aggregate-result.json'],
        { cwd: project, env },
      );
      // The report's exit is the verdicts' (a fail is 3); only bad input (2) is wrong here.
      expect(exported.exitCode, exported.stderr).not.toBe(2);
      const benchmark = JSON.parse(readFileSync(join(project, 'benchmark.json'), 'utf8'));
      const aggregate = JSON.parse(readFileSync(join(project, 'aggregate-result.json'), 'utf8'));
      for (const { file, cases } of formats) {
        for (const c of cases) {
          const where = `${file}: ${c.id}`;
          const def = manifest.cases.defs.find((d: { id: string }) => d.id === c.id);
          expect({ expect: def?.expect, not: def?.not }, where).toEqual({ expect: c.expect.skill, not: c.expect.not });
          expect(ran.has(c.id), where).toBe(true);
          expect(
            benchmark.runs
              .filter((x: { eval_name: string }) => x.eval_name === c.id)
              .map((x: { configuration: string }) => x.configuration),
            where,
          ).toEqual(['with_skill']);
          expect(aggregate.cases.find((x: { name: string }) => x.name === c.id)?.expect, where).toBe(label(c.expect));
        }
      }
      expect(aggregate.aggregates.casesTotal).toBe(formats.reduce((n, f) => n + f.cases.length, 0));
    },
    240_000,
  );
});
