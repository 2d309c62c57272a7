import { chmod, copyFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** One file of a CLI's stored login: where the caller keeps it, and where a trial's copy goes. */
export interface LoginFile {
  /** The caller's file, from their environment (the CLI's own folder variable, else their HOME); undefined without HOME. */
  from(env: NodeJS.ProcessEnv): string | undefined;
  /** The trial's copy, relative to the trial's HOME. */
  to: string;
  /** The login works without it (an account list beside the tokens). */
  optional?: boolean;
}

/** A CLI's subscription login (`auth: login`): its credential files, and nothing else of the caller's. */
export interface CliLogin {
  /** What is logged in, for messages and reports ("Claude subscription"). */
  what: string;
  files: readonly LoginFile[];
  /** How a user stores a login where `files` read it, as advice ("log in with `codex login`"). */
  logIn: string;
}

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

/**
 * Why a run with `auth: login` cannot use this CLI's login ("what — what to do"), or undefined: the CLI has none,
 * or a required file is missing from the caller's folder.
 */
export function loginProblem(
  adapter: { login?: CliLogin; skillListing: { cli: string } },
  env: NodeJS.ProcessEnv,
  exists: (path: string) => boolean = existsSync,
): string | undefined {
  const cli = adapter.skillListing.cli;
  const login = adapter.login;
  if (!login) return `${cli} has no subscription login skillprobe can use — drop --login (auth: login) and export its API key`;
  const missing = loginSources(login, env).filter((s) => !s.optional && (s.from === undefined || !exists(s.from)));
  if (missing.length === 0) return undefined;
  const where = missing.map((s) => s.from ?? `~/${s.to} (no HOME is set)`).join(', ');
  return `no ${login.what} login stored for ${cli}: ${where} not found — ${login.logIn}, or drop --login and export an API key`;
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
