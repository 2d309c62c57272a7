/** Caller variables every trial keeps: they change formatting, never where a request goes. */
export const LOCALE = ['LANG', 'LC_ALL', 'TZ'];

/** Proxies and their CA: what a trial against a real model may need to reach it. */
export const NETWORK = ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'NODE_EXTRA_CA_CERTS'];

/** Where the simulator listens: exempt from any proxy the CLI may still find. */
export const LOOPBACK_HOSTS = '127.0.0.1,localhost';

/** The loopback exemption, in both spellings tools read. */
export const NO_PROXY_LOOPBACK = { NO_PROXY: LOOPBACK_HOSTS, no_proxy: LOOPBACK_HOSTS };

/** The caller's non-empty variables that `kept` accepts: a trial never inherits the whole environment. */
export function keptVariables(callerEnv: NodeJS.ProcessEnv, kept: (name: string) => boolean): Record<string, string> {
  return Object.fromEntries(Object.entries(callerEnv).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== '' && kept(e[0])));
}
