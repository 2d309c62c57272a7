import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { familyHash, type Skill } from '../load/skills.js';
import type { Case } from '../load/cases.js';
import type { Config } from '../run/config-schema.js';
import { MUTATE_FILE, MUTATE_FORMAT_VERSION, fell, type MutateRecord, type StoredMutant } from '../run/mutate-schema.js';
import { readMutateRecord } from '../run/mutate-store.js';
import { planMutants, mutatedFamily, type PlannedMutant } from '../mutate/mutants.js';
import {
  aaVerdictFlipRate,
  fixedNoticePower,
  NOTICE_SEED,
  noticePower,
  simulatedNoticePower,
  TARGET_POWER,
  trialsToNotice,
  type MovedCase,
} from '../mutate/power.js';
import { passChance, type RatedCase } from '../mutate/rates.js';
import { isOperatorName, OPERATOR_NAMES, OPERATORS, type OperatorName } from '../mutate/registry.js';
import { runMutate as driveMutate, type MutateRunOptions, type PreparedMutate } from '../runner/mutate-driver.js';
import { editsProblem } from '../runner/tune-family.js';
import { startNestedRun } from '../runner/pipeline.js';
import { loadResults } from '../runner/stored-results.js';
import { storedSuiteCases } from '../runner/history.js';
import { decisionMode } from '../stats/decision-modes/registry.js';
import { fixedTrialsDesign } from '../stats/stopped-binomial.js';
import { gradableCase } from '../trials/stored-case.js';
import { refuse } from '../tune/options.js';
import { freshDrawSeed } from '../util/random.js';
import { describeRunDir, fromFolder } from '../util/paths.js';
import { plural } from '../util/text.js';
import { writeReports, type ReporterChoice, type ReportIo } from '../runner/reports.js';
import { COMPARE_DEFAULTS } from '../verdict/compare-defaults.js';
import { plannedTrials } from '../verdict/suite-plan.js';
import { loadSuite, type LoadedSuite } from '../runner/load-suite.js';
import { namedSkillFindings } from '../lint/prompts.js';
import { shownIn, sortFindings } from '../lint/render.js';
import { sequentialDesignOf, suiteHealthFindings } from '../lint/suite-health.js';
import { lintCase, lintSkill } from '../lint/types.js';

/**
 * `skillprobe mutate`: its input checked and its mutants planned (prepareMutate), what each mutant's run can see
 * before any trial (the exact power from the simulator's rates), its cost (planMutate) and the loop
 * (runner/mutate-driver.ts).
 */
export interface MutateOptions extends MutateRunOptions {
  /** Skills to mutate (folder or frontmatter name); none: every skill a case expects. */
  skills: string[];
  operators?: string[];
  config?: string;
  overrides: Partial<Record<keyof Config, unknown>>;
  drawSeed?: number;
  /** A stored run of the unmutated family to compare against, instead of running one. */
  base?: string;
  maxCostUsd?: number;
  pricePerTrial?: number;
}

const positiveFor = (cases: readonly Case[], dir: string) => cases.filter((c) => c.expect.skill === dir);

/** The skill arm at the suite's design: what the unmutated run and every mutant's run take. */
const mutantConfig = (config: Config): Config => ({ ...config, arms: ['skill'], ablation: 'scored', maxCostUsd: undefined });

/** Everything that can be wrong with a mutate's input, found before anything is spent. */
export async function prepareMutate(o: MutateOptions, need: { run: boolean } = { run: true }): Promise<PreparedMutate<LoadedSuite>> {
  const stored = o.resume === undefined ? undefined : await readMutateRecord(o.resume, o.cwd);
  if (stored) refuseResumeChanges(stored, o);
  if (o.drawSeed !== undefined && o.sim === undefined)
    refuse(
      '--draw-seed',
      "seeds the model simulator's draws, and this mutate has no simulator",
      'add --sim <profile>, or drop --draw-seed',
    );
  const unknown = (o.operators ?? []).filter((name) => !isOperatorName(name));
  if (unknown.length) refuse('--operator', `no operator named ${unknown.join(', ')}`, `name one of ${OPERATOR_NAMES.join(', ')}`);
  const operators = (stored?.operators ?? o.operators ?? OPERATOR_NAMES) as OperatorName[];
  const maxCostUsd = o.maxCostUsd ?? stored?.maxCostUsd;
  const overrides = {
    ...o.overrides,
    ...(stored
      ? { agent: stored.agent, context: stored.context ?? 'lab', ...(stored.model !== undefined ? { model: stored.model } : {}) }
      : {}),
    ...(maxCostUsd !== undefined ? { maxCostUsd } : {}),
  };
  const loaded = loadSuite({ cwd: o.cwd, config: o.config, sim: o.sim, overrides, callerEnv: o.callerEnv }, need);
  const cases = loaded.suite.cases;
  const named = stored?.skills ?? o.skills;
  const targets = named.length
    ? named.map((name) => {
        const skill = loaded.skills.find((s) => s.dir === name || s.name === name);
        if (!skill)
          return refuse(name, 'no skill of that name in the skills folder', `name one of ${loaded.skills.map((s) => s.dir).join(', ')}`);
        if (!positiveFor(cases, skill.dir).length)
          refuse(
            name,
            'no case expects this skill, so the suite could notice none of its mutants',
            `add a positive case (\`expect: { skill: ${skill.dir} }\`), then mutate`,
          );
        return skill.dir;
      })
    : loaded.skills.filter((s) => positiveFor(cases, s.dir).length).map((s) => s.dir);
  if (!targets.length)
    refuse(
      [loaded.config.cases].flat().join(', '),
      'no case expects a skill of the family: no mutant could be noticed',
      'add positive cases, then mutate',
    );
  if (stored && stored.familyHash !== familyHash(loaded.skills))
    refuse(
      loaded.config.skillsDir,
      'a skill of the family changed since the mutate began',
      'put the skills back as they were, or start a new mutate',
    );
  const config = mutantConfig(loaded.config);
  // A resumed mutate compares with the base it began with: the stored run it named, or its own unmutated run.
  const baseDir = stored ? (stored.base.given ? stored.base.dir : undefined) : o.base;
  const base = baseDir === undefined ? undefined : await storedBase(baseDir, o.cwd, loaded);
  const planned = planMutants(loaded.skills, targets, operators, (dir) => positiveFor(cases, dir).map((c) => c.prompt));
  checkCap(loaded, config, base !== undefined, maxCostUsd, o.pricePerTrial);
  const record = stored
    ? { ...stored, ...(maxCostUsd !== undefined ? { maxCostUsd } : {}) }
    : startingRecord(loaded, o, {
        targets,
        operators,
        planned,
        config,
        base: o.base,
        maxCostUsd,
        health: await suiteHealth(loaded, o.cwd),
      });
  return { loaded, config, planned, record, ...(base ? { base } : {}), ...(maxCostUsd !== undefined ? { maxCostUsd } : {}) };
}

/** Lint's word on the suite as the mutate begins: cases that give the answer away, and what the stored runs show. */
async function suiteHealth(loaded: LoadedSuite, cwd: string): Promise<MutateRecord['health']> {
  const cases = loaded.suite.cases.map(lintCase);
  const found = [
    ...namedSkillFindings(loaded.skills.map(lintSkill), cases),
    ...suiteHealthFindings(loaded.suite.cases, cases, await storedSuiteCases(loaded.config.transcriptsDir, cwd), loaded.config),
  ];
  return sortFindings(found.map(shownIn(cwd))).map(({ file, line, col, what, todo }) => ({ file, line, col, what, todo }));
}

/**
 * A resume finishes the mutate it began: every mutant compared with the same base, run by the same agent, model, context,
 * simulator and draws, over the same skills and operators. A flag that would change one of these is refused, never
 * ignored; `--max-cost` may change (a new cap on the whole mutate, as `tune --resume` takes it).
 */
function refuseResumeChanges(stored: MutateRecord, o: MutateOptions): void {
  const id = `mutate ${stored.mutateId}`;
  if (stored.simulator && o.sim === undefined)
    refuse(
      '--sim',
      `${id} ran against the model simulator (profile ${stored.simulator.profile}), and its resume must too`,
      `add --sim ${stored.simulator.profile}`,
    );
  if (!stored.simulator && o.sim !== undefined) refuse('--sim', `${id} ran against the real model, and its resume must too`, 'drop --sim');
  const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  const changes: [flag: string, given: unknown, differs: boolean, storedAs: string][] = [
    [
      '--base',
      o.base,
      o.base !== (stored.base.given ? stored.base.dir : undefined),
      stored.base.given ? `base ${stored.base.dir}` : 'its own unmutated run as base',
    ],
    ['--operator', o.operators, !same(o.operators ?? [], stored.operators), `operators ${stored.operators.join(',')}`],
    ['--draw-seed', o.drawSeed, o.drawSeed !== stored.draws?.seed, `draw seed ${stored.draws?.seed ?? 'none'}`],
    ['--agent', o.overrides.agent, o.overrides.agent !== stored.agent, `agent ${stored.agent}`],
    ['--model', o.overrides.model, o.overrides.model !== stored.model, `model ${stored.model ?? "the agent's default"}`],
    ['--context', o.overrides.context, o.overrides.context !== (stored.context ?? 'lab'), `the ${stored.context ?? 'lab'} context`],
  ];
  for (const [flag, given, differs, storedAs] of changes)
    if (given !== undefined && differs)
      refuse(flag, `${id} runs with ${storedAs}, and its resume must too (every mutant is compared alike)`, `drop ${flag}`);
  if (o.skills.length && !same(o.skills, stored.skills))
    refuse(
      '--resume',
      `${id} mutates ${stored.skills.join(', ')}, not ${o.skills.join(', ')}`,
      'leave the skills out: the resume reads them from its folder',
    );
}

/** A stored unmutated run `--base` names, refused when it is not this suite's skill arm on this very family. */
async function storedBase(dir: string, cwd: string, loaded: LoadedSuite) {
  const stored = await loadResults(fromFolder(cwd, dir));
  if (stored.manifest.status !== 'completed')
    refuse(
      dir,
      `the run ended ${stored.manifest.status}, so it is no whole base`,
      `finish it (\`skillprobe run --resume ${dir}\`) or drop --base`,
    );
  if (stored.manifest.skillsHash !== familyHash(loaded.skills))
    refuse(
      dir,
      'the run was made with other skills than the skills folder holds now',
      'pass a run of the current skills, or drop --base to run one',
    );
  const ids = new Set(stored.manifest.cases.defs.map((d) => d.id));
  const missing = loaded.suite.cases.filter((c) => !ids.has(c.id)).map((c) => c.id);
  if (missing.length) refuse(dir, `the run holds no trials of ${missing.join(', ')}`, 'pass a run of the whole suite, or drop --base');
  if (!stored.manifest.config.arms.includes('skill')) refuse(dir, 'the run has no skill arm', 'pass a run with the skill arm');
  return { dir, manifest: stored.manifest, results: stored.results };
}

/** Each case's design in a run of `config`: the sequential design it stops by, or its fixed count. */
const designOf = (c: Case, config: Config) => sequentialDesignOf(c, config) ?? fixedTrialsDesign(config.trials);

/** What each mutant's run can see, from the simulator's exact rates (none without a simulator). */
function predictions(
  loaded: LoadedSuite,
  planned: readonly PlannedMutant[],
  refused: readonly (string | undefined)[],
  config: Config,
  alpha: number,
) {
  const profile = loaded.profile;
  if (!profile) return { mutants: planned.map(() => ({})), aaFlipRate: undefined };
  const cap = loaded.adapter.skillListing.descriptionCap;
  const offered = (family: ReturnType<typeof mutatedFamily<Skill>>) =>
    family.map((s) => ({ name: s.dir, description: s.description.slice(0, cap), body: s.body }));
  const shape = { carriesArgs: loaded.adapter.skillCallArgs };
  const rated: (RatedCase & { design: MovedCase['design'] })[] = loaded.suite.cases.map((c) => {
    const { id, expect, not, plan, command } = gradableCase(c, config);
    return {
      id,
      prompt: c.prompt,
      expect,
      ...(not !== undefined ? { not } : {}),
      ...(plan !== undefined ? { plan } : {}),
      ...(command !== undefined ? { command } : {}),
      design: designOf(c, config),
    };
  });
  const original = offered(mutatedFamily(loaded.skills, {}));
  const before = rated.map((c) => passChance(profile, c, original, shape));
  const sequential = decisionMode(config.decision.mode).sequential;
  return {
    aaFlipRate: sequential ? aaVerdictFlipRate(rated.map((c, i) => ({ design: c.design, rate: before[i]! }))) : undefined,
    mutants: planned.map((m, i): Partial<StoredMutant> => {
      if (!('edits' in m) || refused[i] !== undefined) return {};
      const family = offered(mutatedFamily(loaded.skills, m.edits));
      const cases: MovedCase[] = rated.map((c, i) => ({
        caseId: c.id,
        design: c.design,
        from: before[i]!,
        to: passChance(profile, c, family, shape),
      }));
      const power = sequential ? noticePower(cases, alpha) : fixedNoticePower(cases, config.trials, alpha);
      // The whole rule's chance where the floor is computed: a fixed count past it would take Boschloo's test too often.
      const rulePower = power === undefined ? undefined : simulatedNoticePower(cases, alpha, { seed: NOTICE_SEED, fixed: !sequential });
      const moved = cases.some(fell);
      return {
        moves: cases.map(({ caseId, from, to }) => ({ caseId, from, to })),
        ...(power !== undefined ? { power } : {}),
        ...(rulePower !== undefined ? { rulePower: { p: rulePower.p, lo: rulePower.lo, hi: rulePower.hi, draws: rulePower.n } } : {}),
        ...(moved && (rulePower?.p ?? 0) < TARGET_POWER ? { trialsNeeded: trialsToNotice(cases, alpha) ?? null } : {}),
      };
    }),
  };
}

function startingRecord(
  loaded: LoadedSuite,
  o: MutateOptions,
  s: {
    targets: string[];
    operators: OperatorName[];
    planned: PlannedMutant[];
    config: Config;
    base?: string;
    maxCostUsd?: number;
    health: MutateRecord['health'];
  },
): MutateRecord {
  const alpha = COMPARE_DEFAULTS.alpha;
  // A mutant no author could ship is refused as it is planned: neither priced nor run.
  const refused = s.planned.map((m) =>
    'edits' in m ? editsProblem(loaded.skills, m.edits, loaded.adapter.skillListing, loaded.neighbours) : undefined,
  );
  const predicted = predictions(loaded, s.planned, refused, s.config, alpha);
  return {
    version: MUTATE_FORMAT_VERSION,
    mutateId: '',
    status: 'running',
    startedAt: new Date().toISOString(),
    agent: loaded.adapter.id,
    context: loaded.config.context ?? 'lab',
    ...(loaded.config.model !== undefined ? { model: loaded.config.model } : {}),
    simulator: loaded.profile && o.sim ? { profile: o.sim, name: loaded.profile.name } : null,
    ...(loaded.profile && o.sim ? { draws: { seed: o.drawSeed ?? freshDrawSeed(), given: o.drawSeed !== undefined } } : {}),
    skills: s.targets,
    operators: s.operators,
    familyHash: familyHash(loaded.skills),
    alpha,
    ...(s.maxCostUsd !== undefined ? { maxCostUsd: s.maxCostUsd } : {}),
    base: { dir: s.base ?? 'original', given: s.base !== undefined },
    ...(predicted.aaFlipRate !== undefined ? { aaFlipRate: predicted.aaFlipRate } : {}),
    health: s.health,
    mutants: s.planned.map((m, i) => ({
      skill: m.skill,
      operator: m.operator,
      ...('edits' in m ? { what: m.what } : { inapplicable: m.inapplicable }),
      ...(refused[i] !== undefined ? { refused: refused[i] } : {}),
      killedBy: OPERATORS[m.operator].killedBy,
      ...predicted.mutants[i],
      trials: 0,
      flipped: [],
    })),
    trials: 0,
  };
}

/** A mutate's cost before anything runs: the unmutated run (unless `--base` gives it) and each mutant's, expected and at most. */
export function planMutate(p: PreparedMutate<LoadedSuite>): { what: string; expected: number; worst: number }[] {
  const one = plannedTrials(
    p.config,
    p.loaded.suite.cases.map((c) => gradableCase(c, p.config)),
  );
  const runnable = p.record.mutants.filter((m) => m.what !== undefined && m.refused === undefined).length;
  return [
    ...(p.base ? [] : [{ what: 'the unmutated family', ...one }]),
    { what: plural(runnable, 'mutant'), expected: runnable * one.expected, worst: runnable * one.worst },
  ];
}

/** Refuses a cap that could not pay for one mutant's run at the price given: it would stop before telling anything. */
function checkCap(
  loaded: LoadedSuite,
  config: Config,
  hasBase: boolean,
  maxCostUsd: number | undefined,
  pricePerTrial: number | undefined,
): void {
  if (maxCostUsd === undefined || pricePerTrial === undefined) return;
  const one = plannedTrials(
    config,
    loaded.suite.cases.map((c) => gradableCase(c, config)),
  );
  const needed = (hasBase ? 1 : 2) * one.expected * pricePerTrial;
  if (maxCostUsd < needed)
    refuse(
      '--max-cost',
      `${maxCostUsd} USD is below one mutant: the unmutated run${hasBase ? ' is given, yet one mutant' : ' and one mutant'} take about ${Math.round((hasBase ? 1 : 2) * one.expected)} trials, ${needed.toFixed(2)} USD at ${pricePerTrial} per trial`,
      `raise --max-cost to at least ${Math.ceil(needed * 100) / 100}, or run fewer operators (--operator)`,
    );
}

/** Runs a mutate to its end, each run through the run pipeline. */
export const runMutate = (p: PreparedMutate<LoadedSuite>, o: MutateOptions, say: (text: string) => void) =>
  driveMutate(p, o, say, startNestedRun);

export const isMutateFolder = (dir: string, cwd: string) => existsSync(join(fromFolder(cwd, dir), MUTATE_FILE));

/** Every chosen report of a mutate, from its record and its folder as the user named it. */
export function reportMutate(dir: string, record: MutateRecord, choices: readonly ReporterChoice[], io: ReportIo & { cwd: string }) {
  const input = { record, dir: describeRunDir({ dir }, io.cwd) };
  return writeReports(choices, (r) => r.renderMutate!(input), io);
}
