import { decodedSegment } from './dialects/request-reading.js';

/**
 * Which trial a request belongs to: the simulator draws each trial's behaviour from a stable key. Claude Code sends
 * custom headers; Codex and the Gemini CLI cannot, so their base URL carries the identity as a path prefix.
 */

export const TRIAL_HEADER = 'x-skillprobe-trial';
export const CASE_HEADER = 'x-skillprobe-case';

/** An empty segment is written `-`: clients that join paths (the Gemini SDK) collapse `//`, and no case id is `-`. */
const NONE = '-';
const segment = (value: string) => encodeURIComponent(value) || NONE;

/** A base URL for one trial: the CLI appends its API path (`/v1/responses`, `/v1beta/models/…`) after the prefix. */
export function simulatorBaseUrl(url: string, trialKey: string, caseId: string): string {
  return `${url.replace(/\/+$/, '')}/t/${segment(trialKey)}/${segment(caseId)}`;
}

export interface PrefixedPath {
  /** The API path after the prefix. */
  path: string;
  trial?: string;
  caseId?: string;
}

/** Splits `/t/<trial>/<case>/<rest>` into the identity it carries and the API path; other paths pass unchanged. */
export function splitTrialPrefix(pathname: string): PrefixedPath {
  const m = /^\/t\/([^/]*)\/([^/]*)(\/.*)?$/.exec(pathname);
  if (!m) return { path: pathname };
  const part = (s: string) => (s === NONE || s === '' ? undefined : decodedSegment(s));
  return { path: m[3] ?? '/', trial: part(m[1]!), caseId: part(m[2]!) };
}
