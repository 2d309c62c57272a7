import { Ajv } from 'ajv';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { globSync } from 'tinyglobby';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { jsonSchemas, SCHEMA_NAMES, schemaText } from '../src/schema/json-schemas.js';
import { schemaFileName } from '../src/schema/schema-files.js';
import { AGENT_IDS } from '../src/agents/registry.js';
import { gradeStored } from '../src/runner/stored-grades.js';
import { RunStore } from '../src/run/store.js';
import { buildResults } from '../src/verdict/results.js';
import { ROOT } from './helpers.js';
import { fakeRun } from './run-fixtures.js';

const schemas = jsonSchemas();
const ajv = new Ajv({ allErrors: true, strict: false });
const validate = (name: string, doc: unknown) => {
  const check = ajv.compile(schemas[name]!);
  return { ok: check(doc), errors: check.errors };
};
const yamlOf = (rel: string) => parse(readFileSync(join(ROOT, rel), 'utf8')) as unknown;

describe('JSON Schemas generated from the zod schemas', () => {
  it.each(SCHEMA_NAMES)('schemas/%s.schema.json is what the zod schemas generate (run `npm run build` to refresh it)', (name) => {
    expect(readFileSync(join(ROOT, 'schemas', schemaFileName(name)), 'utf8')).toBe(schemaText(schemas[name]!));
  });

  it('the repo’s own config, case files and simulator profile validate', () => {
    expect(validate('config', yamlOf('skillprobe.config.yaml'))).toMatchObject({ ok: true });
    for (const file of globSync('cases/*.yaml', { cwd: ROOT })) expect(validate('cases', yamlOf(file))).toMatchObject({ ok: true });
    expect(validate('profile', yamlOf('sim/demo.profile.yaml'))).toMatchObject({ ok: true });
  });

  it("the config schema offers exactly the agents registry's ids, so an editor flags an agent skillprobe cannot drive", () => {
    expect(validate('config', { agent: AGENT_IDS[0] })).toMatchObject({ ok: true });
    expect(validate('config', { agent: 'robot' })).toMatchObject({ ok: false });
    expect((schemas.config as { properties: { agent: { enum: string[] } } }).properties.agent.enum).toEqual(AGENT_IDS);
  });

  it('the config schema says models are per agent: `model` for a run of one agent, with no default for any CLI', () => {
    const { model, models } = (schemas.config as { properties: Record<string, { default?: unknown; description?: string }> }).properties;
    expect(model).not.toHaveProperty('default');
    expect(model!.description).toMatch(/a run of one agent.*the CLI's own default.*Several agents: `models`/);
    expect(models!.description).toMatch(/per agent id.*its CLI's own default/);
  });

  it('each of the repo’s YAML files names its schema for editors', () => {
    const files = [
      ['skillprobe.config.yaml', 'config'],
      ...globSync('cases/*.yaml', { cwd: ROOT }).map((f) => [f, 'cases']),
      ['sim/demo.profile.yaml', 'profile'],
    ];
    expect(files.length).toBeGreaterThan(2);
    for (const [file, name] of files) {
      const path = /^# yaml-language-server: \$schema=(\S+)$/.exec(readFileSync(join(ROOT, file!), 'utf8').split('\n')[0]!)?.[1];
      // An editor resolves the path from the file's own folder.
      expect(path && resolve(ROOT, dirname(file!), path), file).toBe(join(ROOT, 'schemas', schemaFileName(name!)));
    }
  });

  it('a run folder’s run.json, meta.json and results.json validate against the published run-folder schemas', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sp-schema-run-'));
    try {
      const dir = await fakeRun(root);
      const { store, manifest } = await RunStore.open(dir);
      const { outcomes, damaged } = await gradeStored(store, manifest);
      await store.writeResults(buildResults(manifest, outcomes, damaged, new Date()));
      const json = (rel: string) => JSON.parse(readFileSync(join(dir, rel), 'utf8')) as unknown;
      expect(validate('run', json('run.json'))).toMatchObject({ ok: true });
      expect(validate('trial-meta', json('trials/pos/skill/1.meta.json'))).toMatchObject({ ok: true });
      // NaN estimates (n = 0) are stored as null, which the schema allows.
      expect(validate('results', json('results.json'))).toMatchObject({ ok: true });
      expect(validate('run', { ...(json('run.json') as object), status: 'paused' }).ok).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it.each<[string, unknown, string]>([
    ['config', { trials: 0 }, 'a value below its minimum'],
    ['config', { decision: { mode: 'bayes' } }, 'an unknown enum value'],
    ['config', { concurency: 2 }, 'a misspelt key'],
    ['cases', [{ id: 'a b', prompt: 'x', expect: { skill: 'y' } }], 'an id with a space'],
    ['cases', [{ id: 'a', expect: { skill: 'y' } }], 'a case without a prompt'],
    ['cases', [], 'a file with no case'],
    ['cases', [{ id: 'a', prompt: 'x', expect: { skill: 'y' }, split: 'train' }], 'a split that is no tune split'],
    ['profile', { rules: [{ case: 'a', do: [{ p: -1, answer: true }] }] }, 'a negative weight'],
    ['profile', { seed: 1.5 }, 'a fractional seed'],
  ])('%s rejects %j (%s)', (name, doc) => {
    expect(validate(name, doc).ok).toBe(false);
  });

  it.each<[string, unknown]>([
    ['config', {}],
    ['config', { cases: ['a/*.yaml', 'b/*.yaml'], decision: { tags: { vague: { threshold: 0.5 } } } }],
    ['cases', [{ id: 'a', prompt: 'p', expect: { skill: 'none' }, against: 'b', tags: ['trap'] }]],
    ['cases', [{ id: 'a', prompt: 'p', expect: { skill: 'y' }, split: 'holdout' }]],
    ['profile', { rules: [{ prompt: 'wiki', do: [{ skill: 'x', args: 'y' }] }] }],
  ])('%s accepts %j (defaults make fields optional)', (name, doc) => {
    expect(validate(name, doc)).toMatchObject({ ok: true });
  });
});
