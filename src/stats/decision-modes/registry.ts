/**
 * The decision modes, the only list of them. Their names are stored vocabulary (DECISION_MODES, with the run
 * folder's contract), so the record is keyed by them: a name without a mode, or a mode without a name, does not compile.
 */
import type { DecisionMode as ModeName } from '../../run/config-schema.js';
import type { StoredDesign } from '../../run/schema.js';
import type { CaseDesignKind, ModeDefinition } from './decision-mode.js';
import { FIXED_MODE } from './fixed.js';
import { SEQUENTIAL_MODE } from './sequential.js';
import { SPRT_MODE } from './sprt.js';

export const DECISION_MODE_REGISTRY: Readonly<Record<ModeName, ModeDefinition>> = {
  sequential: SEQUENTIAL_MODE,
  sprt: SPRT_MODE,
  fixed: FIXED_MODE,
};

export const decisionMode = (name: ModeName): ModeDefinition => DECISION_MODE_REGISTRY[name];

const NAMES = Object.keys(DECISION_MODE_REGISTRY) as ModeName[];

/** The designs cases store, each once, in the registry's order. */
export const DESIGN_KINDS: readonly CaseDesignKind[] = [...new Set(NAMES.map((m) => DECISION_MODE_REGISTRY[m].design))];

export const designOfKind = (kind: StoredDesign['kind']): CaseDesignKind => DESIGN_KINDS.find((d) => d.kind === kind)!;

/** The mode a verdict reports for the design its case ran under: the sequential mode that walks that design. */
export const modeOfDesign = (kind: StoredDesign['kind']): ModeName =>
  NAMES.find((m) => DECISION_MODE_REGISTRY[m].sequential && DECISION_MODE_REGISTRY[m].design.kind === kind)!;
