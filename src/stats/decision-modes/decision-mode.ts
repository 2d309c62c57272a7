/**
 * What a decision mode is made of. Each mode is one module; the registry lists them. Everything the harness does
 * differently per mode asks the mode, so a new mode is a new module and a line in the registry.
 */
import type { Config } from '../../run/config-schema.js';
import type { DecisionParams, SprtParams, StoredDesign } from '../../run/schema.js';
import type { SequentialDesign } from '../sequential-design.js';

/** A design a case stores (its boundaries are then data the scheduler walks): how it is built, and what it is called. */
export interface CaseDesignKind {
  kind: StoredDesign['kind'];
  /** The boundaries for resolved parameters; `optimal` builds the optimal truncated design (its maximum ends an uncapped design). */
  build(params: SprtParams, optimal: () => SequentialDesign): SequentialDesign;
  /** The test as a verdict's reason names it, as a chart's title starts, and as `plan` names it. */
  names: { verdict: string; chart: string; plan: string };
  /** Where the design stops a case, in a verdict's design line: by its maximum, or by `cap` where maxTrials cuts it short. */
  reach(maxTrials: number, cap: number | undefined): string;
  /** Its boundaries are flat in Λ, so a chart draws them as two lines rather than stage by stage. */
  flatInLlr: boolean;
  /** What the HTML report says of its boundaries beside the charts: markup written here, never data. */
  chartNote: string;
}

export interface ModeDefinition {
  /** How a run under this mode decided its cases, in one phrase. */
  label: string;
  /** True: each case runs until its design stops it. False: `trials` per case, and the design is only priced by `plan`. */
  sequential: boolean;
  /** The design each case stores. */
  design: CaseDesignKind;
  /** Whether these parameters need the design built, so that it must stay within the size designs are built for. */
  needsDesign(p: DecisionParams): boolean;
  /** The run's decision settings in one phrase, as a comparison names each run's. */
  settings(config: Pick<Config, 'trials' | 'decision'>): string;
}

/** A sequential mode's settings: its name and trials per case. */
export const sequentialSettings = ({ decision: d }: Pick<Config, 'decision'>) =>
  `${d.mode} ${d.minTrials}–${d.maxTrials ?? 'design max'} trials`;
