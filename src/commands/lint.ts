import { existsSync } from 'node:fs';
import { adapterFor, AGENT_IDS } from '../agents/registry.js';
import { fromFolder } from '../util/paths.js';
import { descriptionLengthFindings } from '../lint/description.js';
import { profileGapFindings } from '../lint/profile-gaps.js';
import { allowedToolsFindings } from '../lint/tools.js';
import { symlinkFindings } from '../lint/links.js';
import { balanceFindings } from '../lint/balance.js';
import { caseListingFindings, listingBudgetFindings } from '../lint/listing.js';
import { overlapFindings, overlapTable } from '../lint/overlap.js';
import { namedSkillFindings, todoPromptFindings } from '../lint/prompts.js';
import { hasErrors, renderFindings, renderFindingsJson, shownIn, sortFindings } from '../lint/render.js';
import { lintCase, lintSkill, type CheckId, type Finding, type LintSkill } from '../lint/types.js';
import { loadCases } from '../load/cases.js';
import { DEFAULT_CONFIG_FILE, loadConfig } from '../load/config.js';
import { InputError, type InputProblem } from '../util/input-error.js';
import { loadSkills } from '../load/skills.js';
import { caseNeighbourSkills, loadNeighbours } from '../load/neighbours.js';
import { DEFAULT_PROFILE_FILE, profileReferenceProblems, readProfile } from '../sim/profile.js';
import { EXIT } from '../run/exit-codes.js';
import { skillFolders } from '../load/family.js';
import { suiteHealthFindings } from '../lint/suite-health.js';
import { storedSuiteCases } from '../runner/history.js';

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
    if (suite && checkedCases)
      findings.push(...suiteHealthFindings(suite.cases, checkedCases, await storedSuiteCases(config.transcriptsDir, env.cwd), config));
  }

  const sorted = sortFindings(findings.map(shownIn(env.cwd)));
  env.out.write(
    opts.json ? renderFindingsJson(sorted) : renderFindings(sorted, skipped) + (checkedSkills ? overlapTable(checkedSkills) : ''),
  );
  return hasErrors(sorted) ? EXIT.fail : EXIT.pass;
}
