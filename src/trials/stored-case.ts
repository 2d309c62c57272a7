import type { Case } from '../load/cases.js';
import type { McpServer } from '../load/mcp.js';
import { storedContext, type Config, type Context } from '../run/config-schema.js';
import type { GradableCase, StoredMcpServer } from '../run/schema.js';
import { resolveDecision } from '../load/decision.js';
import { storedDecision } from '../stats/case-design.js';
import { conversationHash } from '../load/conversation.js';

/** MCP servers as run.json stores them: its name and hash, and a stub's tools (what its trials must list). */
export const storedMcp = (servers: readonly McpServer[] = []): StoredMcpServer[] =>
  servers.map((s) => ({
    name: s.name,
    hash: s.hash,
    ...(s.kind === 'stub' ? { stubTools: s.stub.tools.map((t) => t.name) } : s.readOnly === false ? {} : { readOnly: s.readOnly }),
  }));

/** Where a case's trials run: its own context, else the config's, else the lab. */
export const contextOf = (c: Pick<Case, 'context'>, config: Pick<Config, 'context'>): Context => c.context ?? config.context ?? 'lab';

/** A case's conversation as run.json stores it; nothing for a case of one user message. */
function storedConversation(c: Pick<Case, 'history' | 'followUps'>): Pick<GradableCase, 'conversation'> {
  const hash = conversationHash(c);
  return hash === undefined ? {} : { conversation: { hash, history: c.history?.length ?? 0, followUps: c.followUps?.length ?? 0 } };
}

/** The case as run.json stores it: what graders need, its prompt and where it was written, so a regrade needs nothing but the run folder. */
export function gradableCase(c: Case, config: Config): GradableCase {
  return {
    id: c.id,
    expect: c.expect.skill,
    ...(c.expect.not !== undefined ? { not: c.expect.not } : {}),
    exclusive: c.exclusive,
    tags: c.tags,
    plan: c.plan,
    ...(c.expect.judge ? { judge: c.expect.judge } : {}),
    command: c.command ?? config.commands[c.expect.skill],
    ...storedDecision(resolveDecision(config.decision, c.tags, c.decision), config.decision.mode),
    ...(c.fixtures ? { fixtures: { hash: c.fixtures.hash, instructions: c.fixtures.instructions !== undefined } } : {}),
    ...(c.neighbourSkills?.length ? { neighbours: c.neighbourSkills.map(({ dir, name, hash }) => ({ dir, name, hash })) } : {}),
    ...storedContext(contextOf(c, config)),
    ...(c.expect.by !== undefined ? { by: c.expect.by } : {}),
    ...storedConversation(c),
    ...(c.mcpServers?.length ? { mcp: storedMcp(c.mcpServers) } : {}),
    ...((c.settle ?? config.settle) ? {} : { settle: false as const }),
    prompt: c.prompt,
    source: { file: c.source.file, line: c.source.line },
  };
}
