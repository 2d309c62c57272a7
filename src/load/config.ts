import { existsSync } from 'node:fs';
import type { z } from 'zod';
import { configFileSchema, configSchema, storedContext, type Config, type Context } from '../run/config-schema.js';
import { resolveDecision, decisionProblem } from './decision.js';
import { InputError, ProblemList, type InputProblem } from '../util/input-error.js';
import { isPlainObject } from '../util/json.js';
import { fromFolder, wrongEntry } from '../util/paths.js';
import { parseYamlText, readTextFile, validateYaml, type LocatedYaml } from './yaml-file.js';

/** "what — what to do" → [what, what to do]. */
export function splitProblem(text: string): [string, string] {
  const [what, todo] = text.split(' — ');
  return [what!, todo ?? 'fix the value'];
}
export const DEFAULT_CONFIG_FILE = 'skillprobe.config.yaml';

/** Flag values by config key; nested sections (timeouts, decision) take theirs key by key. Undefined: not given. */
export type ConfigOverrides = Partial<Record<keyof Config, unknown>>;

type KeyPath = readonly (string | number)[];
/** Where the user set a value: a flag, or a place in the config file. */
export type ValueLocation = Pick<InputProblem, 'file' | 'line' | 'col'>;

export interface LoadedConfig {
  config: Config;
  /** The config file read, if any. */
  file?: string;
  /** The user's working folder: the config file, and every path in the config, relative to it is taken from it. */
  cwd: string;
  /** The values (dotted paths) that were wrong and fell back to their defaults: later checks should not rely on them. */
  fellBack: ReadonlySet<string>;
  /** `context: [lab, field]`: the contexts the suite runs in side by side, one run each; `config.context` is then neither. */
  contexts?: Context[];
  /** Where the value in use at `path` was set: its flag, or its place in the config file; undefined for a default. */
  where(path: KeyPath): ValueLocation | undefined;
}

/** Flags named otherwise than their key's last part in kebab case (`decision.maxTrials`: `--max-trials`). */
const FLAG_NAMES: Record<string, string> = {
  agents: '--agent',
  skillsDir: '--skills',
  transcriptsDir: '--transcripts',
  'timeouts.trialSeconds': '--timeout',
  maxCostUsd: '--max-cost',
  auth: '--login',
};

/** The flag that sets the config value at `path` (a path into a list names the list's flag). */
function flagFor(path: KeyPath): string {
  const keys = path.filter((p): p is string => typeof p === 'string');
  return FLAG_NAMES[keys.join('.')] ?? `--${keys.at(-1)!.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** The dotted paths of the values given as flags. */
function flagPaths(overrides: ConfigOverrides): Set<string> {
  return new Set(
    Object.entries(overrides).flatMap(([k, v]) =>
      isPlainObject(v) ? Object.entries(v).flatMap(([k2, x]) => (x === undefined ? [] : [`${k}.${k2}`])) : v === undefined ? [] : [k],
    ),
  );
}

function withOverrides(base: Record<string, unknown>, overrides: ConfigOverrides): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) continue;
    // Nested sections (timeouts, decision) take flag values key by key, into a copy: invalid values are deleted later.
    merged[k] = isPlainObject(v)
      ? { ...(isPlainObject(merged[k]) ? merged[k] : {}), ...Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined)) }
      : v;
  }
  return merged;
}

const valueAt = (data: unknown, path: KeyPath): unknown =>
  path.reduce<unknown>((v, key) => (typeof v === 'object' && v !== null ? (v as Record<string | number, unknown>)[key] : undefined), data);

/**
 * Deletes the value at `path` (the whole list, for a path into one), so that it takes its default; returns the dotted
 * path deleted, if there was a value.
 */
function dropAt(data: Record<string, unknown>, path: KeyPath): string | undefined {
  const listAt = path.findIndex((p) => typeof p === 'number');
  const at = listAt === -1 ? path : path.slice(0, listAt);
  const parent = valueAt(data, at.slice(0, -1));
  const key = String(at.at(-1));
  if (!isPlainObject(parent) || !(key in parent)) return undefined;
  delete parent[key];
  return at.join('.');
}

/**
 * Deletes from `data` every value the schema rejects (each then takes its default), so that later stages can still
 * be checked; their paths go into `fellBack`. Returns the issues found first, before any deletion.
 */
function dropInvalid(data: Record<string, unknown>, fellBack: Set<string>): z.ZodIssue[] {
  const first = configFileSchema.safeParse(data).error?.issues ?? [];
  let issues = first;
  // A pass that deletes nothing (an issue about a value that is not there) would repeat forever: parsing then throws.
  for (let deleted = true; issues.length && deleted; issues = configFileSchema.safeParse(data).error?.issues ?? []) {
    deleted = false;
    for (const issue of issues) {
      const paths = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...issue.path, k]) : [issue.path];
      for (const path of paths) {
        const dropped = dropAt(data, path);
        if (dropped === undefined) continue;
        fellBack.add(dropped);
        deleted = true;
      }
    }
  }
  return first;
}

/** The config file's values, each problem in them reported; undefined when the file cannot be read or parsed. */
function readConfigFile(
  path: string,
  cwd: string,
  problems: ProblemList,
): { data: Record<string, unknown>; yaml: LocatedYaml } | undefined {
  const yaml = problems.collect(() => parseYamlText(path, readTextFile(path, 'config file', { cwd })));
  if (!yaml) return undefined;
  problems.collect(() => validateYaml(yaml, configFileSchema));
  // A copy: invalid values are deleted from it, and the parsed file stays as it was read.
  const raw = structuredClone(yaml.value);
  return isPlainObject(raw) ? { data: raw, yaml } : undefined;
}

/** A "what — what to do" text as the two fields of a problem. */
const pair = (text: string) => {
  const [what, todo] = splitProblem(text);
  return { what, todo };
};

/** The decision parameters `decisionProblem` checks; its messages name them. */
const CHECKED_PARAMS = ['threshold', 'delta', 'alpha', 'beta', 'minTrials', 'maxTrials'] as const;

/**
 * Cross-field checks the schema cannot make, each reported where the user set the values; each wrong value is put
 * back to its default, so that the cases are not blamed for it once per case.
 */
function checkCombinations(config: Config, at: LoadedConfig['where'], fromFlags: ReadonlySet<string>, problems: ProblemList): void {
  if (config.agents && at(['agent']) && !fromFlags.has('agents')) {
    problems.add({
      ...(at(['agents']) ?? { file: 'agents' }),
      what: 'both `agent` and `agents` are set',
      todo: 'keep one: `agents: [a, b]` runs each, `agent: a` runs one',
    });
  }
  const repeated = (config.agents ?? []).filter((a, i, all) => all.indexOf(a) !== i);
  if (repeated.length) {
    problems.add({
      ...(at(['agents']) ?? { file: 'agents' }),
      what: `agents name ${[...new Set(repeated)].join(', ')} more than once (its trials would run twice)`,
      todo: 'name each agent once',
    });
    config.agents = [...new Set(config.agents)];
  }
  const defaults = configSchema.parse({}).decision;
  const bad = decisionProblem(resolveDecision(config.decision, [], undefined), config.decision.mode);
  if (bad) {
    const flags = CHECKED_PARAMS.filter((k) => bad.includes(k) && fromFlags.has(`decision.${k}`)).map((k) => flagFor(['decision', k]));
    problems.add({ ...(flags.length ? { file: flags.join(', ') } : (at(['decision']) ?? { file: 'decision' })), ...pair(bad) });
    Object.assign(config.decision, Object.fromEntries(CHECKED_PARAMS.map((k) => [k, defaults[k]])));
    if (defaults.maxTrials === undefined) delete config.decision.maxTrials;
  }
  for (const tag of Object.keys(config.decision.tags)) {
    const p = decisionProblem(resolveDecision(config.decision, [tag], undefined), config.decision.mode);
    if (!p) continue;
    problems.add({ ...(at(['decision', 'tags', tag]) ?? { file: 'decision.tags' }), ...pair(`tag "${tag}": ${p}`) });
    delete config.decision.tags[tag];
  }
  const twice = config.arms.filter((arm, i) => config.arms.indexOf(arm) !== i);
  if (twice.length) {
    problems.add({
      ...(at(['arms']) ?? { file: 'arms' }),
      what: `arms name ${[...new Set(twice)].join(', ')} more than once (its trials would run twice)`,
      todo: 'name each arm once',
    });
    config.arms = [...new Set(config.arms)];
  }
}

/**
 * Loads the config file (optional unless named explicitly) and applies flag overrides on top. Every problem goes into
 * `problems`, named by the flag the user typed or the file's line, and each wrong value falls back to its default so
 * that later stages can still be checked; undefined when a config file was meant but cannot be read at all.
 */
export function collectConfig(
  file: string | undefined,
  overrides: ConfigOverrides,
  problems: ProblemList,
  cwd: string,
): LoadedConfig | undefined {
  const path = file ?? DEFAULT_CONFIG_FILE;
  const wrong = file !== undefined ? wrongEntry(file, 'file', cwd) : undefined;
  if (wrong)
    problems.add({
      file: '--config',
      what: wrong,
      todo: 'pass the config YAML file, or leave --config out to use skillprobe.config.yaml if present',
    });
  const present = !wrong && existsSync(fromFolder(cwd, path));
  const read = present ? readConfigFile(path, cwd, problems) : undefined;
  const fellBack = new Set<string>();
  const fromFile = read?.data ?? {};
  // The file's own problems are reported already (with their lines); what is left wrong after them is a flag's.
  dropInvalid(fromFile, fellBack);
  const merged = withOverrides(fromFile, overrides);
  const fromFlags = flagPaths(overrides);
  // A flag's value replaces the file's, right or wrong.
  for (const p of fromFlags) fellBack.delete(p);
  for (const issue of dropInvalid(merged, fellBack)) {
    const given = JSON.stringify(valueAt(overrides, issue.path));
    problems.add({
      file: flagFor(issue.path),
      what: `${given} is not accepted: ${issue.message}`,
      todo: 'fix the flag (see `skillprobe run --help`)',
    });
  }
  const where = (p: KeyPath): ValueLocation | undefined => {
    if (fellBack.has(p.join('.'))) return undefined;
    if (fromFlags.has(p.join('.'))) return { file: flagFor(p) };
    if (read?.yaml.doc.hasIn(p)) return { file: read.yaml.file, ...read.yaml.locate(p) };
    return undefined;
  };
  const { context, ...parsed } = configFileSchema.parse(merged);
  // Both contexts are two runs; `--context` names one, and a flag's value replaced the file's list already.
  const contexts = Array.isArray(context) && context.length > 1 ? context : undefined;
  const one = Array.isArray(context) ? context[0] : context;
  // `lab` is no context at all: a run that names it is the same run as one made before contexts (run.json, resume).
  const config: Config = { ...parsed, ...storedContext(contexts ? undefined : one) };
  checkCombinations(config, where, fromFlags, problems);
  const usable = present ? read !== undefined : !wrong;
  return usable ? { config, file: read ? path : undefined, cwd, fellBack, where, ...(contexts ? { contexts } : {}) } : undefined;
}

/** Runs a check of the config value at `key`; its problems point where the user set that value, when they did. */
export function checkValueAt<T>(loaded: LoadedConfig, key: keyof Config, check: () => T): T {
  try {
    return check();
  } catch (e) {
    const at = loaded.where([key]);
    if (!(e instanceof InputError) || !at) throw e;
    throw new InputError(e.problems.map((p) => ({ ...p, line: undefined, col: undefined, ...at })));
  }
}

/** Loads the config file (optional unless named explicitly) and applies flag overrides on top; throws every problem. */
export function loadConfig(file: string | undefined, overrides: ConfigOverrides, cwd: string): { config: Config; file?: string } {
  const problems = new ProblemList();
  const loaded = collectConfig(file, overrides, problems, cwd);
  problems.throwIfAny();
  // No problem: the config loaded.
  return { config: loaded!.config, file: loaded!.file };
}
