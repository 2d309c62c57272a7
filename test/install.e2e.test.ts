import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, ROOT, skillMd, testEnv, writeFiles } from './helpers.js';
import { SCHEMA_NAMES } from '../src/schema/json-schemas.js';
import { schemaFileName } from '../src/schema/schema-files.js';
import { buildInputsHash } from '../scripts/build-stamp.mjs';

/**
 * skillprobe as a user gets it: `npm pack`, installed into an empty project by npm itself beside the one CLI the user
 * has (Claude Code; the CLIs are optional peers), then `npx skillprobe doctor`, `init` and a short simulated run
 * there. npm runs offline from the local cache that `npm ci` filled, against a lockfile made from this repo's (the
 * exact tree the tests ran), so nothing leaves the machine. What is packed is dist/ as the `prepare` script builds it
 * (the build a git install runs after cloning; in a fresh clone, `npm ci` ran that very hook): its stamp shows it was
 * built from these sources, so no second build from a copy of them is needed here.
 */
const run = (cmd: string, args: string[], cwd: string, env: Record<string, string>) =>
  execa(cmd, args, { cwd, env, extendEnv: false, reject: false, stdin: 'ignore', timeout: 180_000, all: true });

const OWN = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, unknown>;
  bin: unknown;
  scripts: Record<string, string>;
};
const CLAUDE = '@anthropic-ai/claude-code';
/** The author's project: skillprobe, and the one CLI they use at the version skillprobe pins. */
const projectDependencies = (tarball: string) => ({ skillprobe: `file:${tarball}`, [CLAUDE]: OWN.devDependencies[CLAUDE]! });

/** A lockfile for a project of the packed tarball and Claude Code, with this repo's production tree and that CLI's. */
function projectLock(tarball: string, registry: string): object {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, Record<string, unknown>> };
  const packages: Record<string, unknown> = {
    '': { name: 'author-project', version: '1.0.0', devDependencies: projectDependencies(tarball) },
    'node_modules/skillprobe': {
      version: OWN.version,
      resolved: `file:${tarball}`,
      dev: true,
      dependencies: OWN.dependencies,
      peerDependencies: OWN.peerDependencies,
      peerDependenciesMeta: OWN.peerDependenciesMeta,
      bin: OWN.bin,
    },
  };
  const claude = lock.packages[`node_modules/${CLAUDE}`]!;
  const claudeTree = [CLAUDE, ...Object.keys(claude.optionalDependencies ?? {})].map((name) => `node_modules/${name}`);
  for (const [path, entry] of Object.entries(lock.packages)) {
    // The tests' own Node builds are links into this repo (`scripts/node-builds/`): never the author's.
    if (!path.startsWith('node_modules/') || entry.link === true || (entry.dev === true && !claudeTree.includes(path))) continue;
    // This repo's lockfile records no download addresses; npm needs one per package even when it reads the cache.
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    packages[path] = {
      ...entry,
      dev: true,
      resolved: entry.resolved ?? `${registry}${name}/-/${name.split('/').pop()}-${String(entry.version)}.tgz`,
    };
  }
  return { name: 'author-project', version: '1.0.0', lockfileVersion: 3, requires: true, packages };
}

describe('installed from a packed tarball into an empty project', () => {
  const work = realpathSync(mkdtempSync(join(tmpdir(), 'sp-install-')));
  const project = join(work, 'author-project');
  let env: Record<string, string>;

  beforeAll(async () => {
    const callerEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root' };
    const cache = (await execa('npm', ['config', 'get', 'cache'], { env: callerEnv, extendEnv: false })).stdout.trim();
    const registry = (await execa('npm', ['config', 'get', 'registry'], { env: callerEnv, extendEnv: false })).stdout
      .trim()
      .replace(/\/?$/, '/');
    // dist/ is built already (`npm ci`'s prepare, or `npm test` when a source changed): packing must not rebuild it
    // under the test's feet.
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT, callerEnv);
    expect(packed.exitCode).toBe(0);
    const tarball = join(work, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
    env = testEnv({
      npm_config_cache: cache,
      npm_config_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    });
    writeFiles(project, {
      'package.json': JSON.stringify(
        { name: 'author-project', version: '1.0.0', private: true, devDependencies: projectDependencies(tarball) },
        null,
        2,
      ),
      '.claude/skills/notes-search/SKILL.md': skillMd('notes-search', 'Search the team notes for a phrase and list matching pages.'),
      '.claude/skills/notes-write/SKILL.md': skillMd('notes-write', 'Write a new page into the team notes with a title and body.'),
    });
    writeFileSync(join(project, 'package-lock.json'), JSON.stringify(projectLock(tarball, registry), null, 2));
    const installed = await run('npm', ['ci'], project, env);
    expect(installed.all).not.toMatch(/ENOTCACHED/);
    expect(installed.exitCode, installed.all).toBe(0);
  }, 240_000);

  afterAll(() => cleanup(work));

  it('ships the CLI as a git install builds it, the JSON Schemas and the README, and no tests or sources', () => {
    const pkg = join(project, 'node_modules', 'skillprobe');
    const files = readdirSync(pkg);
    expect(files).toEqual(expect.arrayContaining(['dist', 'schemas', 'examples', 'docs', 'README.md', 'package.json']));
    // npm runs `prepare` in a git checkout after installing its build tools: it is the build, and what ships is that
    // build of exactly these sources (its last step stamps the hash of what it read).
    expect(OWN.scripts.prepare).toBe('npm run build');
    expect(existsSync(join(pkg, 'dist', 'cli.js'))).toBe(true);
    expect(readFileSync(join(pkg, 'dist', 'build-inputs.sha256'), 'utf8'), 'dist/ is stale: npm run build').toBe(buildInputsHash(ROOT));
    // The README points at the example workflow: it ships.
    expect(existsSync(join(pkg, 'examples', 'github-actions', 'skillprobe-sharded.yml'))).toBe(true);
    expect(files).not.toContain('test');
    expect(files).not.toContain('src');
    expect(readdirSync(join(pkg, 'schemas')).sort()).toEqual(SCHEMA_NAMES.map(schemaFileName).sort());
    // The watchdog runs as its own process: its entry must ship beside the CLI.
    expect(existsSync(join(pkg, 'dist', 'workspace', 'watchdog-main.js'))).toBe(true);
  });

  it('holds only the CLI the author installed; `npx skillprobe doctor` finds it and names the package to add for each other', async () => {
    expect(readdirSync(join(project, 'node_modules', '@anthropic-ai'))).toContain('claude-code');
    expect(existsSync(join(project, 'node_modules', '@openai'))).toBe(false);
    expect(existsSync(join(project, 'node_modules', '@google', 'gemini-cli'))).toBe(false);
    const doctor = await run('npx', ['--no', 'skillprobe', 'doctor'], project, env);
    expect(doctor.exitCode, doctor.all).toBe(0);
    expect(doctor.stdout).toContain(`  installed: ${OWN.devDependencies[CLAUDE]}, passed skillprobe's conformance checks`);
    for (const pkg of ['@openai/codex', '@google/gemini-cli'])
      expect(doctor.stdout).toContain(
        `not installed beside skillprobe; to run it without --agent-binary: npm install -D ${pkg}@${OWN.devDependencies[pkg]}`,
      );
    // A run of a CLI the author lacks is refused before anything starts, naming the package.
    const codex = await run('npx', ['--no', 'skillprobe', 'run', '--agent', 'codex', '--sim', 'none.yaml'], project, env);
    expect(codex.exitCode).toBe(2);
    expect(codex.stderr).toContain(`npm install -D @openai/codex@${OWN.devDependencies['@openai/codex']}`);
  });

  it('`npx skillprobe init` scaffolds the suite, then a short simulated run works with the installed Claude Code CLI', async () => {
    const init = await run('npx', ['--no', 'skillprobe', 'init'], project, env);
    expect(init.exitCode).toBe(0);
    const written = readdirSync(project);
    expect(written).toContain('skillprobe.config.yaml');
    const profile = readdirSync(join(project, 'sim')).find((f) => f.endsWith('.yaml'))!;
    expect(readFileSync(join(project, 'skillprobe.config.yaml'), 'utf8')).toMatch(
      /^# yaml-language-server: \$schema=node_modules\/skillprobe\/schemas\/config\.schema\.json/,
    );

    // Each skill's happy case, one trial each, is the fewest that shows the installed CLIs working together on every
    // scaffolded skill: the verdicts are not the claim.
    const r = await run(
      'npx',
      [
        '--no',
        'skillprobe',
        'run',
        '--sim',
        join('sim', profile),
        '--min-trials',
        '1',
        '--max-trials',
        '1',
        '--grep',
        '-happy$',
        '--no-gate',
        '--transcripts',
        'runs',
      ],
      project,
      env,
    );
    expect(r.exitCode).toBe(0);
    expect(r.all).toMatch(/gate off \(--no-gate\)/);
    const runDir = join(project, 'runs', readdirSync(join(project, 'runs'))[0]!);
    const manifest = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as {
      agent: { binary: string; cliVersion?: string };
      status: string;
    };
    expect(manifest.status).toBe('completed');
    expect(manifest.agent.binary.startsWith(join(project, 'node_modules'))).toBe(true); // the project's own install, not this repo's
    expect(manifest.agent.cliVersion).toBe(OWN.devDependencies[CLAUDE]);
    const results = JSON.parse(readFileSync(join(runDir, 'results.json'), 'utf8')) as { outcomes: { caseId: string; status: string }[] };
    expect(results.outcomes.map((o) => o.caseId).sort()).toEqual(['notes-search-happy', 'notes-write-happy']);
    // A trial stops once its outcome was settled (a trigger-only case's skill loaded): its outcome stands too.
    expect(results.outcomes.every((o) => ['ok', 'settled'].includes(o.status))).toBe(true);
  }, 300_000);
});
