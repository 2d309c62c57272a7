import { createHash } from 'node:crypto';

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
