import type { InvocationRequest } from './types.js';

/** Caller variables every trial keeps: they change formatting, never where a request goes. */
const LOCALE = ['LANG', 'LC_ALL', 'TZ'];

/** Proxies and their CA: what a trial against a real model may need to reach it. */
export const NETWORK = ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'NODE_EXTRA_CA_CERTS'];

/** Where the simulator listens: exempt from any proxy the CLI may still find. */
const LOOPBACK_HOSTS = '127.0.0.1,localhost';

/** The loopback exemption, in both spellings tools read. */
export const NO_PROXY_LOOPBACK = { NO_PROXY: LOOPBACK_HOSTS, no_proxy: LOOPBACK_HOSTS };

/**
 * The simulator as the proxy of every host but loopback: what a CLI sends to a vendor's own host (a login's account
 * and token calls) reaches the simulator, which serves plain HTTP and refuses every tunnel, never the network.
 */
export const simulatorProxy = (url: string) => ({
  HTTPS_PROXY: url,
  https_proxy: url,
  HTTP_PROXY: url,
  http_proxy: url,
  ...NO_PROXY_LOOPBACK,
});

/** The caller's non-empty variables that `kept` accepts: a trial never inherits the whole environment. */
function keptVariables(callerEnv: NodeJS.ProcessEnv, kept: (name: string) => boolean): Record<string, string> {
  return Object.fromEntries(
    Object.entries(callerEnv).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== '' && kept(e[0])),
  );
}

/**
 * What every trial's environment starts from: the caller's locale and whatever else `kept` accepts (for a real
 * model its key, endpoint and proxies), the caller's PATH, and the trial's own HOME and TMPDIR.
 */
export function baseTrialEnv(
  req: Pick<InvocationRequest, 'callerEnv' | 'home' | 'tmp'>,
  kept: (name: string) => boolean,
): Record<string, string> {
  return {
    ...keptVariables(req.callerEnv, (name) => LOCALE.includes(name) || kept(name)),
    PATH: req.callerEnv.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: req.home,
    TMPDIR: req.tmp,
  };
}
