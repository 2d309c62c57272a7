import { parse } from 'yaml';

/**
 * Characters a YAML double-quoted scalar must not hold raw: what JSON leaves as it is but YAML does not print (DEL,
 * C1 controls), reads as a line break under YAML 1.1 (NEL, U+2028, U+2029) or drops (a byte order mark).
 */
const UNPRINTABLE = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;

/** A double-quoted YAML scalar: JSON's escaping (a valid YAML escape set), with YAML's unprintable characters escaped too. */
export function doubleQuoted(value: string): string {
  return JSON.stringify(value).replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Starts a plain scalar may not have (an indicator), and what it may not hold anywhere (a comment, a key, a flow indicator). */
const PLAIN_START = /^[-?:,[\]{}#&*!|>'"%@`\s]/;
const PLAIN_NEVER = /: |:$|\s#|[\s]$|[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udfff]/u; // with `u`, a lone surrogate only
const FLOW_INDICATOR = /[,[\]{}]/;

/** Whether `value` reads back as exactly itself when written plain, under YAML 1.2 and 1.1 (PyYAML reads `yes` as true). */
function plainReadsBack(value: string, inFlow: boolean): boolean {
  if (value === '' || PLAIN_START.test(value) || PLAIN_NEVER.test(value) || (inFlow && FLOW_INDICATOR.test(value))) return false;
  const text = inFlow ? `{k: ${value}}` : `k: ${value}\n`;
  try {
    return (['1.2', '1.1'] as const).every((version) => (parse(text, { version }) as { k?: unknown })?.k === value);
  } catch {
    return false;
  }
}

/**
 * `value` as one line of YAML that reads back exactly: plain when that is safe, else double-quoted. `inFlow`: the
 * scalar sits inside a flow collection (`{…}`, `[…]`), where commas and brackets end a plain scalar.
 */
export function yamlScalar(value: string, inFlow = false): string {
  return plainReadsBack(value, inFlow) ? value : doubleQuoted(value);
}
