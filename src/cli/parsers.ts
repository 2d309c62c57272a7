import { InvalidArgumentError } from 'commander';
import type { Shard } from '../trials/shard.js';
import { ARMS, CONTEXTS, type Context } from '../run/config-schema.js';
import { AGENT_IDS } from '../agents/registry.js';

/** Parsers of flag values: each refuses a value that is no value of its kind, naming the flag (exit 2). */

export function int(name: string, min: number, max?: number) {
  const range = max === undefined ? `≥ ${min}` : `from ${min} to ${max}`;
  return (v: string) => {
    // Digits only: Number() would also take "1e3", "0x10" and "".
    const n = Number(v);
    if (!/^\s*\d+\s*$/.test(v) || n < min || (max !== undefined && n > max))
      throw new InvalidArgumentError(`${name} must be a whole number ${range}, got "${v}"`);
    return n;
  };
}

/** A flag's text: an empty one is a mistake (usually an unset shell variable), never a request for "nothing". */
export function text(name: string) {
  return (v: string) => {
    if (v.trim() === '') throw new InvalidArgumentError(`${name} is empty — give a value, or leave ${name} out`);
    return v;
  };
}

export function positive(name: string) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive number, got "${v}"`);
    return n;
  };
}

export function probability(name: string) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0 || n > 1) throw new InvalidArgumentError(`${name} must be a number in (0, 1], got "${v}"`);
    return n;
  };
}

/** A share strictly between 0 and 1: a significance level, a power, a margin. */
export function fraction(name: string) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0 || n >= 1)
      throw new InvalidArgumentError(`${name} must be a number strictly between 0 and 1, got "${v}"`);
    return n;
  };
}

/** `--shard I/N`: a share of the suite, 1 ≤ I ≤ N. */
export function shard(v: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(v);
  const [index, total] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
  if (!m || total < 1 || index < 1 || index > total)
    throw new InvalidArgumentError(`--shard must be I/N with 1 ≤ I ≤ N (e.g. 2/3), got "${v}"`);
  return { index, total };
}

/** `--agent a,b`: the agents to run, each once (unknown ids are the config check's, which names the flag). */
export function agentList(v: string): string[] {
  const list = v.split(',').map((s) => s.trim());
  if (list.some((a) => a === ''))
    throw new InvalidArgumentError(`--agent takes agent ids separated by commas (${AGENT_IDS.join(', ')}), got "${v}"`);
  return list;
}

/** `run --context`: one context, or both side by side (`lab,field`: one run per context, each reported with the difference). */
export function contextList(v: string): Context | Context[] {
  const list = v.split(',').map((s) => s.trim());
  const bad = list.filter((c) => !(CONTEXTS as readonly string[]).includes(c));
  if (bad.length || list.length === 0 || list.length > CONTEXTS.length || new Set(list).size !== list.length)
    throw new InvalidArgumentError(`--context takes lab, field, or lab,field (both, side by side), got "${v}"`);
  return list.length === 1 ? (list[0] as Context) : (list as Context[]);
}

export function armList(v: string): string[] {
  const list = v.split(',').map((s) => s.trim());
  // A repeated arm is left to the config check, which reports it for the file's `arms` too.
  const bad = list.filter((a) => !(ARMS as readonly string[]).includes(a));
  if (bad.length || list.length === 0) throw new InvalidArgumentError(`arms are ${ARMS.join(', ')} (comma-separated), got "${v}"`);
  return list;
}

/** `--concurrency`: a number of trials, or `auto`. */
export function concurrency(v: string): number | 'auto' {
  if (v.trim() === 'auto') return 'auto';
  if (!/^\s*\d+\s*$/.test(v) || Number(v) < 1)
    throw new InvalidArgumentError(`--concurrency must be a whole number ≥ 1 or auto, got "${v}"`);
  return Number(v);
}
