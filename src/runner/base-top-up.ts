/**
 * `run --baseline BASE --top-up-baseline`: a base too small for the canary to see a drop of the margin in some case
 * is topped up first, in its own run folder and with its own stored suite, when it ran the agent, CLI and model
 * (or simulator profile) this run is configured for; priced before anything runs.
 */
import { join } from 'node:path';
import { familyHash } from '../load/skills.js';
import type { Config } from '../run/config-schema.js';
import type { Results, RunManifest, StoredCanary, TrialOutcome } from '../run/schema.js';
import { newManifest, type RunPlace } from './execute.js';
import { armsFor } from '../trials/schedule.js';
import { COMPARE_DEFAULTS } from '../verdict/compare-defaults.js';
import { priceTopUp, resumeChanges, type TopUpPrice } from './resume.js';
import type { Profile } from '../sim/profile.js';
import { InputError } from '../util/input-error.js';
import { valueHash } from '../util/json.js';
import { plural } from '../util/text.js';
import { gradableCase } from '../trials/stored-case.js';
import { prescribedBaseTrials, toppedUpCap } from '../verdict/canary.js';
import { runPipeline } from './pipeline.js';
import { loadSuite, type LoadedSuite, type RunOptions } from './load-suite.js';

/** A case whose base bounds the canary, and the trials it lacks of the base's prescribed size. */
export interface LackingCase {
  caseId: string;
  /** The base's trials of the case now. */
  trials: number;
  /** The trials per case `run --for-baseline` would have given it (`prescribedBaseTrials`). */
  needs: number;
}

/** What a top-up of the base adds: every case of the base takes `addTrials` (`--add-trials`), the largest lack. */
export interface BaseTopUpPlan {
  lacking: LackingCase[];
  addTrials: number;
}

/**
 * The cases of `bounded` (those whose canary caps the base's size cut) that have fewer trials than the size
 * `run --for-baseline` prescribes for their threshold, each with what it lacks; undefined when none does. A top-up
 * adds the same number to every case after its design stopped it (the exact tests know that rule), so it adds the
 * largest lack. Pure.
 */
export function planBaseTopUp(
  canary: Pick<StoredCanary, 'cases' | 'margin' | 'alpha'>,
  bounded: readonly string[],
  threshold: (caseId: string) => number,
  power: number,
): BaseTopUpPlan | undefined {
  const lacking = canary.cases
    .filter((c) => bounded.includes(c.caseId))
    .map((c) => ({
      caseId: c.caseId,
      trials: c.base.trials,
      needs: prescribedBaseTrials(canary.cases.length, threshold(c.caseId), canary.margin, canary.alpha, power),
    }))
    .filter((c) => c.needs > c.trials);
  if (lacking.length === 0) return undefined;
  return { lacking, addTrials: Math.max(...lacking.map((c) => c.needs - c.trials)) };
}

/** Each case's lack, in words: `a 441, b 430`. */
export const lackText = (lacking: readonly LackingCase[]) => lacking.map((c) => `${c.caseId} ${c.needs - c.trials}`).join(', ');

/** What this run would ask of the model: the agent, its CLI's version, the model, and the simulator's behaviour. */
export interface ConfiguredModel {
  agent: string;
  cliVersion: string | undefined;
  model: string;
  profile: Profile | undefined;
}

/** The configured model of a loaded suite (the CLI's version is asked of its binary). */
export const configuredModel = async (loaded: LoadedSuite): Promise<ConfiguredModel> => ({
  agent: loaded.adapter.id,
  cliVersion: await loaded.adapter.cliVersion(loaded.binary),
  model: loaded.config.model ?? loaded.adapter.defaultModel,
  profile: loaded.profile,
});

/**
 * How the base's agent, CLI version, model and simulator profile differ from what this run is configured for, in
 * words; empty when its trials are this configuration's (a CLI version or profile the base did not record differs:
 * it cannot be shown to be the same). Pure.
 */
export function baseModelChanges(base: Pick<RunManifest, 'agent' | 'model' | 'simulator'>, now: ConfiguredModel): string[] {
  const sim = base.simulator;
  const profileNow = now.profile ? valueHash(now.profile) : undefined;
  return [
    base.agent.id !== now.agent && `agent ${base.agent.id} → ${now.agent}`,
    (base.agent.cliVersion === undefined || base.agent.cliVersion !== now.cliVersion) &&
      `CLI ${base.agent.cliVersion ?? 'version unknown'} → ${now.cliVersion ?? 'version unknown'}`,
    base.model !== now.model && `model ${base.model} → ${now.model}`,
    !sim && now.profile && `a real model → the simulator (profile ${now.profile.name})`,
    sim && !now.profile && `the simulator (profile ${sim.name}) → a real model`,
    sim && now.profile && sim.behaviourHash !== profileNow && `simulator profile ${sim.name} → ${now.profile.name} (its behaviour differs)`,
  ].filter((c): c is string => typeof c === 'string');
}

/** The top-up and the candidate after it, priced at the base's mean cost per trial. */
export interface CanaryPrice {
  topUp: TopUpPrice;
  /** The most trials the candidate can take (every case to its cap, the ablation arm where it scores). */
  candidate: { trials: number; costUsd?: number };
}

/**
 * The price of adding `addTrials` per case and arm to the base, beside the candidate's most trials; refused (exit 2,
 * nothing recorded or spawned) when the top-up alone passes `maxCostUsd`: the candidate runs with what it leaves.
 * Pure.
 */
export function priceCanaryTopUp(
  file: string,
  baseOutcomes: readonly TrialOutcome[],
  addTrials: number,
  candidateTrials: number,
  maxCostUsd: number | undefined,
): CanaryPrice {
  const topUp = priceTopUp(file, baseOutcomes, addTrials, undefined);
  const perTrial = topUp.costUsd === undefined ? undefined : topUp.costUsd / topUp.trials;
  if (topUp.costUsd !== undefined && maxCostUsd !== undefined && topUp.costUsd > maxCostUsd) {
    throw new InputError({
      file,
      what: `--top-up-baseline adds ${topUp.trials} trials to the base, about $${topUp.costUsd.toFixed(2)} at its mean cost per trial, past --max-cost ${maxCostUsd} before the candidate runs`,
      todo: `raise --max-cost to at least ${Math.ceil(Number(topUp.costUsd.toFixed(2)))} (the candidate's trials come on top), or drop --top-up-baseline`,
    });
  }
  return { topUp, candidate: { trials: candidateTrials, ...(perTrial === undefined ? {} : { costUsd: perTrial * candidateTrials }) } };
}

const usd = (x: number | undefined) => (x === undefined ? '' : ` (about $${x.toFixed(2)} at the base's mean cost per trial)`);

/** The price line said before the top-up runs. */
export function priceText(plan: BaseTopUpPlan, price: CanaryPrice, baseCases: number): string {
  const both = price.topUp.costUsd === undefined ? undefined : price.topUp.costUsd + (price.candidate.costUsd ?? 0);
  return (
    `canary: topping up the base first (--top-up-baseline): it lacks trials of the ${plan.lacking[0]!.needs} per case a canary needs (${lackText(plan.lacking)}); ` +
    `it takes ${plan.addTrials} more in ${baseCases === 1 ? 'its one case' : `each of its ${baseCases} cases`}: ${plural(price.topUp.trials, 'trial')}${usd(price.topUp.costUsd)}, ` +
    `then the candidate at most ${plural(price.candidate.trials, 'trial')}${usd(price.candidate.costUsd)}: at most ${price.topUp.trials + price.candidate.trials} in all` +
    `${both === undefined ? '' : `, about $${both.toFixed(2)}`}\n`
  );
}

/**
 * The base's suite as its run folder stored it, loaded again as `--resume` loads it: its config file under its
 * stored config, its simulator profile, its skills folder and its cases.
 */
function storedSuite(
  base: RunManifest,
  dir: string,
  place: Pick<RunOptions, 'cwd' | 'callerEnv'>,
  now: Pick<Config, 'concurrency' | 'maxCostUsd'>,
): LoadedSuite {
  const loaded = loadSuite({
    cwd: place.cwd,
    config: base.configFile,
    sim: base.simulator?.profile,
    // How fast and how far are this run's; what a trial does is the base's.
    overrides: { ...base.config, ...now },
    resume: dir,
    ...(base.shard ? { shard: { index: base.shard.index, total: base.shard.total } } : {}),
    callerEnv: place.callerEnv,
  });
  const ids = new Set(base.cases.defs.map((d) => d.id));
  return { ...loaded, suite: { ...loaded.suite, cases: loaded.suite.cases.filter((c) => ids.has(c.id)) } };
}

/**
 * The most trials the candidate can take against the base once topped up, its rates kept: each case's cap, twice
 * where the ablation arm runs beside the skill arm.
 */
function candidateMost(loaded: LoadedSuite, canary: StoredCanary, plan: BaseTopUpPlan, maxTrials: number | undefined): number {
  const { config } = loaded;
  return canary.cases.reduce((sum, entry) => {
    const c = loaded.suite.cases.find((x) => x.id === entry.caseId)!;
    const def = gradableCase(c, config);
    const cap = toppedUpCap(canary, entry, {
      added: plan.addTrials,
      threshold: def.decision.threshold,
      power: COMPARE_DEFAULTS.power,
      maxTrials,
    });
    return sum + cap * armsFor(def, config.arms, config.ablation).length;
  }, 0);
}

const spentOn = (outcomes: readonly TrialOutcome[]) => outcomes.reduce((sum, o) => sum + (o.costUsd ?? 0), 0);

/**
 * Tops the base up by `plan.addTrials` per case (its own run folder, its own suite, as `run --resume BASE
 * --add-trials` would), once its model is the one configured and nothing it ran with changed; returns false,
 * having said why, when its model is another. The candidate's `--max-cost` is lowered by what the top-up spent.
 */
export async function topUpBase(
  loaded: LoadedSuite,
  base: { dir: string; manifest: RunManifest; results: Results },
  canary: StoredCanary,
  plan: BaseTopUpPlan,
  place: RunPlace,
  o: { maxTrials: number | undefined; say: (text: string) => void },
): Promise<boolean> {
  const { maxTrials, say } = o;
  const file = join(base.dir, 'run.json');
  const now = await configuredModel(loaded);
  const other = baseModelChanges(base.manifest, now);
  if (other.length) {
    say(
      `canary: --top-up-baseline: the base is not topped up, as its trials are not this configuration's (${other.join('; ')}); ` +
        `make a base for it with \`skillprobe run --for-baseline\`\n`,
    );
    return false;
  }
  const cap = loaded.config.maxCostUsd;
  const spentBefore = spentOn(base.results.outcomes);
  const suite = storedSuite(base.manifest, base.dir, place, {
    concurrency: loaded.config.concurrency,
    maxCostUsd: cap === undefined ? undefined : spentBefore + cap,
  });
  // What `--resume` would refuse, refused here with the way out a canary has; the candidate's skills are the base's too.
  const changes = resumeChanges(base.manifest, newManifest(suite, { sim: base.manifest.simulator?.profile }), now.cliVersion);
  if (familyHash(loaded.skills) !== base.manifest.skillsHash) changes.push("the skills this run tests (they are not the base's)");
  const neighboursHash = loaded.neighbours?.length ? familyHash(loaded.neighbours) : undefined;
  if (neighboursHash !== base.manifest.neighboursHash) changes.push("the neighbours this run installs (they are not the base's)");
  if (changes.length) {
    throw new InputError({
      file,
      what: `--top-up-baseline: the base cannot be topped up, as what its trials do changed since it ran: ${changes.join('; ')}`,
      todo: 'make a new base with `skillprobe run --for-baseline`, or drop --top-up-baseline',
    });
  }
  const price = priceCanaryTopUp(file, base.results.outcomes, plan.addTrials, candidateMost(loaded, canary, plan, maxTrials), cap);
  say(priceText(plan, price, base.manifest.cases.defs.length));
  const { results } = await runPipeline(suite, {
    ...place,
    sim: base.manifest.simulator?.profile,
    resume: base.dir,
    addTrials: plan.addTrials,
    force: false,
    runId: undefined,
    canary: undefined,
    drawSeed: undefined,
  });
  if (cap !== undefined) loaded.config.maxCostUsd = Math.max(0, cap - (spentOn(results.outcomes) - spentBefore));
  return true;
}
