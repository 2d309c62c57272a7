import { writeFiles, type Files } from './helpers.js';

/** An unsigned JWT with these claims: what Codex reads its ChatGPT plan and account from (it never verifies it). */
export const jwt = (claims: object) =>
  ['{"alg":"none","typ":"JWT"}', JSON.stringify(claims)].map((p) => Buffer.from(p).toString('base64url')).join('.') + '.c2ln';

/** A year from the fixed moment below: no CLI sees these tokens as expired, so none tries to refresh them. */
const LATER_MS = Date.UTC(2100, 0, 1);

/**
 * A caller's HOME as a logged-in user has it: each CLI's stored login (fake tokens), and beside them what must never
 * reach a trial: settings, a personal skill, instructions, history.
 */
export function fakeLoginHome(home: string): { files: Files } {
  const token = jwt({
    email: 'user@example.com',
    exp: LATER_MS / 1000,
    'https://api.openai.com/auth': { chatgpt_plan_type: 'plus', chatgpt_account_id: 'acct-test', chatgpt_user_id: 'user-test' },
  });
  const files: Files = {
    '.claude/.credentials.json': JSON.stringify({
      claudeAiOauth: {
        accessToken: 'sk-ant-oat01-skillprobe-test',
        refreshToken: 'sk-ant-ort01-skillprobe-test',
        expiresAt: LATER_MS,
        scopes: ['user:inference', 'user:profile'],
        subscriptionType: 'max',
      },
    }),
    '.codex/auth.json': JSON.stringify({
      OPENAI_API_KEY: null,
      tokens: { id_token: token, access_token: token, refresh_token: 'rt-skillprobe-test', account_id: 'acct-test' },
      last_refresh: new Date(LATER_MS).toISOString(),
    }),
    '.gemini/oauth_creds.json': JSON.stringify({ access_token: 'ya29.skillprobe-test', refresh_token: 'r', expiry_date: LATER_MS }),
    '.claude/settings.json': '{"permissions":{"allow":["Bash"]}}',
    '.claude/CLAUDE.md': 'HOME-MARKER\n',
    '.claude/skills/personal/SKILL.md': '---\nname: personal\ndescription: a personal skill\n---\n',
    '.claude/history.jsonl': '{"display":"HOME-MARKER"}\n',
    '.codex/config.toml': 'model = "HOME-MARKER"\n',
    '.codex/AGENTS.md': 'HOME-MARKER\n',
    '.codex/history.jsonl': '{"text":"HOME-MARKER"}\n',
    '.gemini/settings.json': '{"model":{"name":"HOME-MARKER"}}',
  };
  writeFiles(home, files);
  return { files };
}
