import { existsSync } from 'node:fs';
import { adapterFor, AGENT_IDS } from '../agents/registry.js';
import { fromFolder, shownFrom } from '../util/paths.js';
import { descriptionLengthFindings } from '../lint/description.js';
import { profileGapFindings } from '../lint/profile-gaps.js';
import { allowedToolsFindings } from '../lint/tools.js';
import { symlinkFindings } from '../lint/links.js';
import { balanceFindings } from '../lint/balance.js';
import { caseListingFindings, listingBudgetFindings } from '../lint/listing.js';
import { overlapFindings, overlapTable } from '../lint/overlap.js';
import { namedSkillFindings, todoPromptFindings } from '../lint/prompts.js';
import { hasErrors, renderFindings, renderFindingsJson, sortFindings } from '../lint/render.js';
import type { CheckId, Finding, LintCase, LintSkill } from '../lint/types.js';
import { loadCases, type Case } from '../load/cases.js';
import { DEFAULT_CONFIG_FILE, loadConfig } from '../load/config.js';
import { InputError, type InputProblem } from '../util/input-error.js';
import { loadSkills, type Skill } from '../load/skills.js';
import { caseNeighbourSkills, loadNeighbours } from '../load/neighbours.js';
import { DEFAULT_PROFILE_FILE, profileReferenceProblems, readProfile } from '../sim/profile.js';
import { EXIT } from '../run/exit-codes.js';
import { skillFolders } from '../load/family.js';
import type { Config } from '../run/config-schema.js';
import { aaFlipFindings, aaFlips, storedCases, stuckCaseFindings } from '../lint/suite-health.js';
import { COMPARE_DEFAULTS } from '../verdict/compare-defaults.js';
import { readHistory } from '../runner/history.js';
import { caseDesign } from '../stats/case-design.js';
import { decisionMode } from '../stats/decision-modes/registry.js';
import { gradableCase } from '../trials/stored-case.js';

export interface LintOptions {
  config?: string;
  skills?: string;
  cases?: string;
  /** The simulator profile to check; else the project's default one, when it exists. */
  sim?: string;
  json?: boolean;
}

export interface LintEnv {
  /** Inputs are found from here and findings name files relative to it. */
  cwd: string;
  out: { write(text: string): unknown };
}

const asErrors = (check: CheckId, problems: readonly InputProblem[]): Finding[] =>
  problems.map((p) => ({ ...p, severity: 'error', check }));

export const lintSkill = (s: Skill): LintSkill => {
  const at = (key: keyof Skill['source']['at']) => ({ file: s.source.file, ...s.source.at[key] });
  return {
    dir: s.dir,
    name: s.name,
    description: s.description,
    allowedTools: s.allowedTools,
    links: s.links,
    at: { name: at('name'), description: at('description'), allowedTools: at('allowedTools') },
  };
};

export const lintCase = (c: Case): LintCase => {
  const at = (key: keyof Case['source']['at']) => ({ file: c.source.file, ...c.source.at[key] });
  return {
    id: c.id,
    prompt: c.prompt,
    expect: c.expect.skill,
    against: c.against ?? [],
    tags: c.tags,
    at: { id: at('id'), prompt: at('prompt') },
  };
};

/** A finding as the user reads it: loaders name files relative to the working folder (or absolute); flags (`--cases`) are not files. */
export const shownIn =
  (cwd: string) =>
  (f: Finding): Finding => ({ ...f, file: f.file.startsWith('--') ? f.file : shownFrom(cwd, fromFolder(cwd, f.file)) });

/** The sequential design a case stops by in a run of `config`; undefined in a fixed-N suite. */
export const sequentialDesignOf = (c: Case, config: Config) =>
  decisionMode(config.decision.mode).sequential ? caseDesign(gradableCase(c, config)) : undefined;

/** The suite's health as the transcripts folder's stored runs show it (no stored run: nothing to say). */
export async function suiteHealthFindings(
  cases: readonly Case[],
  checked: readonly LintCase[],
  config: Config,
  cwd: string,
): Promise<Finding[]> {
  if (!existsSync(fromFolder(cwd, config.transcriptsDir))) return [];
  const stored = storedCases(await readHistory(config.transcriptsDir, cwd));
  const byId = new Map(cases.map((c) => [c.id, c]));
  const flips = aaFlips(checked, stored, (id) => sequentialDesignOf(byId.get(id)!, config));
  return [...stuckCaseFindings(checked, stored), ...aaFlipFindings(checked, flips, COMPARE_DEFAULTS.alpha)];
}

/** Checks a skill family and its suite without running anything; returns the exit code (1 if any error). */
export async function lintProject(opts: LintOptions, env: LintEnv): Promise<number> {
  const findings: Finding[] = [];
  const skipped: string[] = [];
  const attempt = <T>(fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      findings.push(...asErrors('load', e.problems));
      return undefined;
    }
  };
  const inCwd = (p: string) => fromFolder(env.cwd, p);

  const defaultConfig = inCwd(DEFAULT_CONFIG_FILE);
  const configFile = opts.config !== undefined ? inCwd(opts.config) : existsSync(defaultConfig) ? defaultConfig : undefined;
  const config = attempt(() => loadConfig(configFile, { skillsDir: opts.skills, cases: opts.cases }, env.cwd).config);
  let checkedSkills: LintSkill[] | undefined;
  if (!config) skipped.push('skills', 'cases', 'profile');
  else {
    const skillsDir = inCwd(config.skillsDir);
    const skills = attempt(() => loadSkills(skillsDir, env.cwd));
    const family = skills ?? skillFolders(skillsDir);
    // The user's other skills share the listing with the family (the budget is measured with them), and a profile may play them.
    const neighbours = (config.neighbours !== undefined && attempt(() => loadNeighbours(config.neighbours!, family, env.cwd))) || [];
    const suite = family.length
      ? attempt(() => loadCases(config.cases, family, config.decision, undefined, neighbours, env.cwd, config.maxTurns))
      : undefined;
    const sim = opts.sim ?? (existsSync(inCwd(DEFAULT_PROFILE_FILE)) ? DEFAULT_PROFILE_FILE : undefined);
    if (sim !== undefined) {
      const profile = attempt(() => readProfile(inCwd(sim)));
      if (profile && family.length) {
        findings.push(
          ...asErrors(
            'profile',
            profileReferenceProblems(profile, {
              skills: [...family, ...neighbours, ...caseNeighbourSkills(suite?.cases ?? [])].map((s) => s.dir),
              caseIds: suite?.cases.map((c) => c.id),
            }),
          ),
        );
      }
      if (profile && suite) findings.push(...profileGapFindings(profile.profile, sim, suite.cases.map(lintCase)));
      if (profile && !suite) skipped.push(family.length ? 'profile case references' : 'profile references');
    }
    checkedSkills = skills?.map(lintSkill);
    const checkedCases = suite?.cases.map(lintCase);
    if (checkedSkills) {
      const adapter = adapterFor(config.agent);
      findings.push(
        ...descriptionLengthFindings(
          checkedSkills,
          AGENT_IDS.map((id) => adapterFor(id).skillListing),
        ),
        ...listingBudgetFindings(checkedSkills, adapter.skillListing, neighbours),
        ...caseListingFindings(
          checkedSkills,
          adapter.skillListing,
          neighbours,
          (suite?.cases ?? []).map((c) => ({
            id: c.id,
            at: { file: c.source.file, ...c.source.at.id },
            neighbours: c.neighbourSkills ?? [],
          })),
        ),
        ...overlapFindings(checkedSkills),
        ...allowedToolsFindings(checkedSkills, adapter.trialTools),
        ...symlinkFindings(checkedSkills),
      );
    } else skipped.push('description length', 'listing budget', 'sibling overlap', 'allowed-tools');
    // What an imported eval file holds that its cases do not carry: said, never silently dropped.
    findings.push(
      ...(suite?.uncarried ?? []).map((n): Finding => ({
        ...n,
        severity: 'warning',
        check: 'load',
        todo: 'add it to the cases by hand if it matters (`skillprobe import` writes them as YAML to edit)',
      })),
    );
    if (checkedCases) findings.push(...todoPromptFindings(checkedCases));
    else skipped.push(family.length ? 'TODO prompts' : 'cases');
    if (checkedSkills && checkedCases)
      findings.push(...balanceFindings(checkedSkills, checkedCases), ...namedSkillFindings(checkedSkills, checkedCases));
    else skipped.push('suite balance');
    if (suite && checkedCases) findings.push(...(await suiteHealthFindings(suite.cases, checkedCases, config, env.cwd)));
  }

  const sorted = sortFindings(findings.map(shownIn(env.cwd)));
  env.out.write(
    opts.json ? renderFindingsJson(sorted) : renderFindings(sorted, skipped) + (checkedSkills ? overlapTable(checkedSkills) : ''),
  );
  return hasErrors(sorted) ? EXIT.fail : EXIT.pass;
}
