import { SIMULATED_GOOGLE_HOSTS } from '../agents/gemini/simulated-google.js';

/**
 * The simulator's answers for the Google account hosts the Gemini CLI calls under a login (`simulated-google.ts`):
 * the token it was given is valid, the account is a simulated one, and a refresh hands out a simulated token. Pure.
 */

const SCOPES = 'https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/userinfo.email openid';
const EMAIL = 'simulated-user@skillprobe.invalid';
const TOKEN_SECONDS = 3599;

/** Whether a tunnel to `authority` (host:port) is one the simulator plays rather than refuses. */
export const playsTunnelTo = (authority: string): boolean => SIMULATED_GOOGLE_HOSTS.some((h) => authority === `${h}:443`);

/** The reply to a request on a played host: status and JSON body (404 for anything the CLI is not known to call). */
export function googleAccountReply(host: string, method: string, path: string): { status: number; body: unknown } {
  const call = `${method} ${host.replace(/:443$/, '')}${path}`;
  if (call === 'POST oauth2.googleapis.com/tokeninfo')
    return {
      status: 200,
      body: { scope: SCOPES, expires_in: TOKEN_SECONDS, email: EMAIL, email_verified: 'true', access_type: 'offline' },
    };
  if (call === 'POST oauth2.googleapis.com/token')
    return {
      status: 200,
      body: { access_token: 'ya29.skillprobe-simulated', expires_in: TOKEN_SECONDS, token_type: 'Bearer', scope: SCOPES },
    };
  if (call === 'GET www.googleapis.com/oauth2/v2/userinfo') return { status: 200, body: { id: '0', email: EMAIL, verified_email: true } };
  return { status: 404, body: { error: { code: 404, message: `simulator: ${call} is not played`, status: 'NOT_FOUND' } } };
}
