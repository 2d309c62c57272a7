/** How `compare` decides: the CLI's defaults, apart from the statistics so that reading them loads none. */
export interface CompareOptions {
  /** False-discovery rate across each arm's cases (Benjamini–Hochberg), and the significance level. */
  alpha: number;
  /** The smallest change worth detecting: a difference interval inside ±margin is UNCHANGED. */
  margin: number;
  /** The power `trialsToDecide` plans for. */
  power: number;
}

export const COMPARE_DEFAULTS: CompareOptions = { alpha: 0.05, margin: 0.15, power: 0.8 };
