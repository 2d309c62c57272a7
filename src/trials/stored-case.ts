import type { Case } from '../load/cases.js';
import { DESIGN_LIMIT, type Config, type DecisionMode } from '../run/config-schema.js';
import type { DecisionParams, GradableCase } from '../run/schema.js';
import { designSize, resolveDecision } from '../load/decision.js';
import { buildDesign } from '../stats/case-design.js';

/**
 * The resolved parameters and the design they give (maxTrials: the user's cap, else the design's maximum). Fixed
 * mode allows a delta finer than any design is built for: such a case stores none, and `plan` falls back to Wald's.
 */
function caseDecision(p: DecisionParams, mode: DecisionMode): Pick<GradableCase, 'decision' | 'design'> {
  const size = designSize(p);
  if (mode === 'fixed' && size > DESIGN_LIMIT) return { decision: { ...p, maxTrials: p.maxTrials ?? size } };
  // Wald's test under a cap needs no optimal design, whatever its size; decisionProblem bounded the rest.
  const built = buildDesign(p, mode);
  return { decision: built.params, design: built.design };
}

/** The case as run.json stores it: what graders need, its prompt and where it was written, so a regrade needs nothing but the run folder. */
export function gradableCase(c: Case, config: Config): GradableCase {
  return {
    id: c.id,
    expect: c.expect.skill,
    exclusive: c.exclusive,
    tags: c.tags,
    plan: c.plan,
    command: c.command ?? config.commands[c.expect.skill],
    ...caseDecision(resolveDecision(config.decision, c.tags, c.decision), config.decision.mode),
    prompt: c.prompt,
    source: { file: c.source.file, line: c.source.line },
  };
}
