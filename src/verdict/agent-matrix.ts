import { expectLabel } from '../run/expectation.js';
import { NONE, type CaseArmSummary, type Results, type Verdict } from '../run/schema.js';

/** One agent's result for one case: its verdict and how its trials routed. */
export interface AgentCell {
  verdict: Verdict;
  /** Skill-arm trials with evidence, and how many of them passed. */
  scored: number;
  passes: number;
  /** Trials with evidence by what fired (expected, a sibling, another skill, nothing). */
  fired: CaseArmSummary['fired'];
  /**
   * For a positive case, the share of trials with evidence where the expected skill fired; for a negative case,
   * where a skill it forbids fired (a false trigger). Undefined without evidence.
   */
  triggerRate?: number;
}

export interface AgentMatrixRow {
  caseId: string;
  /** What the case expects, as reports name it (`none`, `not <skill>`, a skill). */
  expect: string;
  negative: boolean;
  /** One cell per agent, in the matrix's agent order; undefined where that agent's run has no such case. */
  cells: (AgentCell | undefined)[];
  /** The agents do not all reach the same verdict: where one CLI routes differently. */
  divergent: boolean;
}

export interface AgentMatrix {
  agents: { id: string; cliVersion?: string; model: string }[];
  rows: AgentMatrixRow[];
}

function cellOf(results: Results, caseId: string): AgentCell | undefined {
  const verdict = results.verdicts.find((v) => v.caseId === caseId);
  const skill = results.summary.cases.find((c) => c.caseId === caseId && c.arm === 'skill');
  if (!verdict || !skill) return undefined;
  const withEvidence =
    skill.fired.expected + skill.fired.sibling + skill.fired.neighbour + skill.fired.other + skill.fired.none + (skill.fired.self ?? 0);
  const hits = skill.expect === NONE ? skill.fired.sibling : skill.fired.expected;
  return {
    verdict: verdict.verdict,
    scored: verdict.scored,
    passes: verdict.passes,
    fired: skill.fired,
    ...(withEvidence ? { triggerRate: hits / withEvidence } : {}),
  };
}

/** Each agent's verdict and trigger rate per case, side by side. Pure: the agents' results in, a matrix out. */
export function agentMatrix(runs: readonly Results[]): AgentMatrix {
  const seen = new Map<string, CaseArmSummary>();
  for (const r of runs) for (const c of r.summary.cases) if (c.arm === 'skill' && !seen.has(c.caseId)) seen.set(c.caseId, c);
  const rows = [...seen].map(([caseId, summary]) => {
    const cells = runs.map((r) => cellOf(r, caseId));
    const verdicts = new Set(cells.flatMap((c) => (c ? [c.verdict] : [])));
    return { caseId, expect: expectLabel(summary), negative: summary.expect === NONE, cells, divergent: verdicts.size > 1 };
  });
  return {
    agents: runs.map((r) => ({
      id: r.run.agent.id,
      cliVersion: r.run.agent.cliVersion,
      model: r.run.model.reported ?? r.run.model.requested,
    })),
    rows,
  };
}
