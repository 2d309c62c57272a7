import { describe, expect, it } from 'vitest';
import { planSuite } from '../src/verdict/suite-plan.js';
import { renderPlan } from '../src/report/plan.js';
import { DECISION_MODES, configSchema, type DecisionMode } from '../src/run/config-schema.js';
import { storedDesignSchema, type GradableCase } from '../src/run/schema.js';
import { buildDesign, caseDesign, caseDesignKind } from '../src/stats/case-design.js';
import { DECISION_MODE_REGISTRY, DESIGN_KINDS, modeOfDesign } from '../src/stats/decision-modes/registry.js';
import { alwaysDecides } from '../src/stats/sequential-design.js';

const PARAMS = { threshold: 0.9, delta: 0.2, alpha: 0.05, beta: 0.2, minTrials: 5 };

/** What each mode must be: the design its cases store, its names, and how it schedules. */
interface Expected {
  kind: string;
  label: string;
  planTest: string;
  sequential: boolean;
  alwaysDecides: boolean;
  settings: string;
}
const EXPECTED: Record<DecisionMode, Expected> = {
  sequential: {
    kind: 'optimal',
    label: 'sequential (a design that decides every case by its maximum)',
    planTest: 'the sequential design',
    sequential: true,
    alwaysDecides: true,
    settings: 'sequential 5–design max trials',
  },
  sprt: {
    kind: 'wald',
    label: 'sequential (Wald SPRT per case)',
    planTest: "Wald's SPRT",
    sequential: true,
    alwaysDecides: false,
    settings: 'sprt 5–design max trials',
  },
  fixed: {
    kind: 'optimal',
    label: 'fixed N (exact binomial tests)',
    planTest: 'the sequential design',
    sequential: false,
    alwaysDecides: true,
    settings: 'fixed 10 trials, bh',
  },
};

describe('the decision mode registry', () => {
  it('has a mode for every stored mode name, and no other', () => {
    expect(Object.keys(DECISION_MODE_REGISTRY).sort()).toEqual([...DECISION_MODES].sort());
  });

  it('lists each stored design kind once, and every sequential mode walks a design of its own', () => {
    expect(DESIGN_KINDS.map((d) => d.kind).sort()).toEqual([...storedDesignSchema.innerType().shape.kind.options].sort());
    const walked = DECISION_MODES.filter((m) => DECISION_MODE_REGISTRY[m].sequential).map((m) => DECISION_MODE_REGISTRY[m].design.kind);
    expect(new Set(walked).size).toBe(walked.length);
  });

  describe.each(DECISION_MODES)('%s', (name) => {
    const mode = DECISION_MODE_REGISTRY[name];
    const want = EXPECTED[name];
    const config = configSchema.parse({ decision: { mode: name, ...PARAMS } });

    it('builds the design its cases store, as data the scheduler walks', () => {
      const built = buildDesign(PARAMS, name);
      expect(storedDesignSchema.parse(built.design)).toEqual(built.design);
      expect(built.design.kind).toBe(want.kind);
      expect(built.params.maxTrials).toBe(built.design.maxTrials);
      const stored: Pick<GradableCase, 'decision' | 'design'> = { decision: built.params, design: built.design };
      expect(caseDesignKind(stored)).toBe(mode.design);
      expect(alwaysDecides(caseDesign(stored))).toBe(want.alwaysDecides);
    });

    it('names itself in reports, in a comparison and in a verdict', () => {
      expect(mode.label).toBe(want.label);
      expect(mode.sequential).toBe(want.sequential);
      expect(mode.settings(config)).toBe(want.settings);
      if (mode.sequential) expect(modeOfDesign(mode.design.kind)).toBe(name);
    });

    it('has its plan row: its mode, the test it is priced under, and what it runs', () => {
      const { params, design } = buildDesign(PARAMS, name);
      const c: GradableCase = { id: 'a', expect: 'x', exclusive: false, tags: [], decision: params, design };
      const plan = planSuite(config, [c]);
      expect(plan.mode).toBe(name);
      expect(plan.cases[0]!.design.kind).toBe(want.kind);
      const text = renderPlan(plan).replace(/\s*\n\s*/g, ' ');
      expect(text).toContain(`plan · mode ${name} · 1 cases`);
      expect(text).toContain(`suite: ${want.planTest} at most`);
      expect(text.includes(`this config's ${name} mode runs 10`)).toBe(!want.sequential);
    });
  });
});
