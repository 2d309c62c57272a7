import type { CaseArmSummary, CaseVerdict, RefusedStatus, TrialCount } from '../run/schema.js';
import type { RefusalFixes } from './reporter.js';
import { noEvidence } from './wording.js';

/** What to change when the model did a case's work by hand, in every report that says so. */
export const byHandAdvice = (skill: string) => `say in ${skill}'s description what the skill adds over doing it by hand`;

/** What to change per refusal, in any CLI's terms; an adapter names its own cause where it has one. */
const REFUSED_FIX: Record<RefusedStatus, (asked: string) => string> = {
  invalid: (asked) => `the agent will not let the model call ${asked}: remove what in its SKILL.md frontmatter reserves it for the user`,
  denied: (asked) =>
    `the agent denied loading ${asked}: drop what makes it ask permission (e.g. allowed-tools in its frontmatter) or allow the skill in the agent's settings`,
  unknown: (asked) =>
    `the model asked for a skill named "${asked}", which does not exist: make the description or frontmatter name the one the model reaches for`,
};

/**
 * On a simulated run, what the model did was the simulator's profile's choice (a rule for the case, its default, or
 * its description router), never evidence on SKILL.md: said as what happened and where to change it.
 */
const PROFILE_DECIDED =
  "the simulator's profile decided what the model did here, not a model: change the profile's rule for the case (or give the profile a router) to play it otherwise, and run a real model to judge the skill";

/**
 * One line on what to change in SKILL.md, for the biggest problem of a case (ties: the order below), and a trial
 * that shows it. Refused calls come first: until the skill can load, nothing else about it can be measured. On a
 * `simulated` run, what the model chose is put down to the simulator's profile, never to a skill.
 */
export function advice(
  s: CaseArmSummary,
  v: CaseVerdict,
  agentFixes: RefusalFixes = {},
  simulated = false,
): { text: string; example?: number } {
  const f = s.failures;
  const refused = f.refused.calls[0];
  if (refused) return { text: (agentFixes[refused.status] ?? REFUSED_FIX[refused.status])(refused.requested), example: f.refused.example };
  const sibling = f.firedOthers[0]?.skill ?? 'a sibling';
  // The neighbour that fired most often; only read when one took trials, so there is one.
  const neighbour = f.firedNeighbours[0] ?? { skill: 'a neighbour', share: { p: 0 } };
  const check = f.planChecks[0];
  // Only a calibrated judge's no's failed the trials: an uncalibrated judge's are shown, never scored.
  const judgedNo = f.judged.filter((j) => j.scored && j.no > 0).sort((a, b) => b.no - a.no)[0];
  const judged: [TrialCount, string][] = judgedNo
    ? [
        [
          f.judgeNo,
          `the judge said no to "${judgedNo.item}": make SKILL.md's instructions lead the model to do it, or reword the rubric item if the answers already do`,
        ],
      ]
    : [];
  const onSkills: [TrialCount, string][] = [
    [f.falseTrigger, `narrow ${s.not ?? sibling}'s description so it no longer claims this request (say what it is not for)`],
    [f.sibling, `${sibling} took this from ${s.expect}: sharpen the two descriptions apart, each saying when to use the other`],
    [
      f.neighbour,
      `neighbour ${neighbour.skill} took ${Math.round(100 * neighbour.share.p)}% of this case's trials: sharpen ${s.expect}'s description against it (say what ${s.expect} does that ${neighbour.skill} does not)`,
    ],
    [f.didNotFire, `make ${s.expect}'s description name this request (its words and its intent)`],
    [
      f.wentAround ?? { trials: 0 },
      `the model did it by hand in ${Math.round(100 * (s.wentAround?.p ?? 0))}% of trials: ${byHandAdvice(s.expect)}`,
    ],
    [
      f.usedTool ?? { trials: 0 },
      `the model used the MCP tool ${f.usedTool?.tools[0]?.tool ?? 'a tool'} instead: say in ${s.expect}'s description what it adds over that tool (or expect the tool here)`,
    ],
    [
      f.planWrong,
      `make SKILL.md's command for this unambiguous${check ? ` (${check.check}: ${check.details[0]?.detail || 'failed'})` : ''}`,
    ],
  ];
  const modelChose = simulated ? onSkills.map(([count]): [TrialCount, string] => [count, PROFILE_DECIDED]) : onSkills;
  const problems: [TrialCount, string][] = [
    ...modelChose,
    ...judged,
    [f.budgetStop, 'trials ran out of budget: raise the trial timeout or maxTurns, or make the skill reach its answer in fewer steps'],
  ];
  const [worst, text] = problems.reduce((best, p) => (p[0].trials > best[0].trials ? p : best));
  if (worst.trials > 0) return { text, example: worst.example };
  // No evidence to read SKILL.md by: more of the same trials would be left out too.
  if (v.verdict === 'ERROR') {
    const judgeless = f.judged.some((j) => j.scored && j.noVerdict) ? ['the judge gave no verdict on some judged items'] : [];
    const left = [noEvidence(s).text, ...judgeless].filter(Boolean).join('; ');
    return { text: `nothing to change in SKILL.md yet: too few trials were usable (${left}); fix what left them out, then run again` };
  }
  const more = v.fixedNEquivalent !== undefined ? ` (about ${v.fixedNEquivalent} decide at this threshold)` : '';
  return { text: `no failure stands out: run more trials${more}` };
}
