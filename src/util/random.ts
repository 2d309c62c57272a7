import { createHash, randomInt } from 'node:crypto';

/**
 * A uniform draw in [0, 1) from a hash of the seed and labels: deterministic per trial and purpose,
 * independent across trials, and needs no shared generator state (safe under concurrency).
 */
export function seededUniform(seed: number, ...labels: string[]): number {
  const h = createHash('sha256')
    .update([String(seed), ...labels].join('\u0000'))
    .digest();
  return h.readUIntBE(0, 6) / 2 ** 48;
}

/** Draw seeds are whole numbers below this. */
const DRAW_SEEDS = 2 ** 31;

/** A fresh seed for a run's draws: runs that are not given one draw independently of each other. */
export const freshDrawSeed = (): number => randomInt(DRAW_SEEDS);

/** The seed of a run nested in another (a tune's step): distinct per label, the same for the same parent seed and label. */
export const derivedDrawSeed = (seed: number, label: string): number => Math.floor(seededUniform(seed, 'draws', label) * DRAW_SEEDS);
