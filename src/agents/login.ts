import { chmod, copyFile, mkdir } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { isPlainObject } from '../util/json.js';
import { dirname, join } from 'node:path';

/** One file of a CLI's stored login: where the caller keeps it, and where a trial's copy goes. */
export interface LoginFile {
  /** The caller's file, from their environment (the CLI's own folder variable, else their HOME); undefined without HOME. */
  from(env: NodeJS.ProcessEnv): string | undefined;
  /** The trial's copy, relative to the trial's HOME. */
  to: string;
  /** The login works without it (an account list beside the tokens). */
  optional?: boolean;
  /**
   * When the login this file holds can no longer be used without the CLI renewing it (ms since the epoch), read from
   * its text; undefined when the file does not say. A trial must never renew it: the new tokens would go to the
   * trial's copy, and where the provider spends a refresh token once, the caller's own would stop working.
   */
  expiresAt?(text: string): number | undefined;
}

/** A CLI's subscription login (`auth: login`): its credential files, and nothing else of the caller's. */
export interface CliLogin {
  /** What is logged in, for messages and reports ("Claude subscription"). */
  what: string;
  files: readonly LoginFile[];
  /** How a user stores a login where `files` read it, as advice ("log in with `codex login`"). */
  logIn: string;
  /** How a user renews an expired login, as advice ("start `codex` once, which renews it"). */
  renew: string;
}

/** A credential file's JSON object, or undefined when it holds none (the CLI then says what is wrong with it). */
export function credentialJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A JWT's `exp` claim in ms since the epoch, read without verifying the token; undefined when it has none. */
export function jwtExpiry(token: unknown): number | undefined {
  if (typeof token !== 'string') return undefined;
  const claims = credentialJson(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
  return typeof claims?.exp === 'number' ? claims.exp * 1000 : undefined;
}

/** A number of ms since the epoch, or undefined. */
export const epochMs = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** A file under the CLI's own folder: `variable` when the caller set it, else `~/<folder>`. */
export const cliFolderFile =
  (variable: string | undefined, folder: string, name: string) =>
  (env: NodeJS.ProcessEnv): string | undefined => {
    const own = variable && env[variable];
    if (own) return join(own, name);
    return env.HOME ? join(env.HOME, folder, name) : undefined;
  };

/** The files a login copies, each with its caller's path resolved (undefined: the caller has no HOME). Pure. */
export function loginSources(login: CliLogin, env: NodeJS.ProcessEnv): { from: string | undefined; to: string; optional: boolean }[] {
  return login.files.map((f) => ({ from: f.from(env), to: f.to, optional: f.optional === true }));
}

/** How `loginProblem` reads the caller's files: the real file system, or a table in tests. */
export interface CallerFiles {
  exists(path: string): boolean;
  read(path: string): string;
}

const CALLER_FILES: CallerFiles = { exists: existsSync, read: (path) => readFileSync(path, 'utf8') };

/**
 * Why a run with `auth: login` cannot use this CLI's login ("what — what to do"), or undefined: the CLI has none,
 * a required file is missing from the caller's folder, or one says its login expired before `now`.
 */
export function loginProblem(
  adapter: { login?: CliLogin; skillListing: { cli: string } },
  env: NodeJS.ProcessEnv,
  now: Date,
  files: CallerFiles = CALLER_FILES,
): string | undefined {
  const cli = adapter.skillListing.cli;
  const login = adapter.login;
  if (!login) return `${cli} has no subscription login skillprobe can use — drop --login (auth: login) and export its API key`;
  const sources = loginSources(login, env);
  const missing = sources.filter((s) => !s.optional && (s.from === undefined || !files.exists(s.from)));
  if (missing.length > 0) {
    const where = missing.map((s) => s.from ?? `~/${s.to} (no HOME is set)`).join(', ');
    return `no ${login.what} login stored for ${cli}: ${where} not found — ${login.logIn}, or drop --login and export an API key`;
  }
  for (const [i, s] of sources.entries()) {
    const expiresAt = login.files[i]!.expiresAt;
    if (!expiresAt || s.from === undefined || !files.exists(s.from)) continue;
    const at = expiresAt(files.read(s.from));
    if (at !== undefined && at <= now.getTime())
      return `the ${login.what} login stored for ${cli} in ${s.from} expired at ${new Date(at).toISOString()}, and a trial never renews it — ${login.renew}, then run again`;
  }
  return undefined;
}

/**
 * Copies the caller's login into a trial's fresh HOME: only its credential files, each a copy readable by its owner
 * alone (never a link: a token the CLI refreshes in a trial must not rewrite the caller's file). Returns the copies'
 * paths relative to the HOME.
 */
export async function copyLogin(login: CliLogin, callerEnv: NodeJS.ProcessEnv, home: string): Promise<string[]> {
  const copied: string[] = [];
  for (const s of loginSources(login, callerEnv)) {
    if (s.from === undefined || (s.optional && !existsSync(s.from))) continue;
    const to = join(home, s.to);
    await mkdir(dirname(to), { recursive: true, mode: 0o700 });
    await copyFile(s.from, to);
    await chmod(to, 0o600);
    copied.push(s.to);
  }
  return copied;
}
