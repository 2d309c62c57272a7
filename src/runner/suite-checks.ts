import { join } from 'node:path';
import { adapterFor, AGENT_IDS } from '../agents/registry.js';
import type { AgentAdapter } from '../agents/types.js';
import type { CaseSuite } from '../load/cases.js';
import { namedTools } from '../load/mcp.js';
import { checkValueAt, splitProblem, type LoadedConfig, type ValueLocation } from '../load/config.js';
import { loginProblem } from '../agents/login.js';
import type { Skill } from '../load/skills.js';
import { placeOf } from '../load/suite-inputs.js';
import { readAgentRunsSync, readManifestSync } from '../run/store.js';
import { loadProfile, loadProfileForSuite, type Profile } from '../sim/profile.js';
import { decisionMode } from '../stats/decision-modes/registry.js';
import { InputError, type InputProblem, type ProblemList } from '../util/input-error.js';
import { fromFolder } from '../util/paths.js';
import { contextOf } from '../trials/stored-case.js';
import { judgeProblems, type JudgeCli } from './judge-check.js';

/**
 * The checkers of what a suite runs with, beyond its own files (`load/suite-inputs.ts`): the simulator profile, the
 * design's arms, the agent and its binary, the credentials, the judge. Each adds what is wrong to `problems` and returns what it
 * could load; `loadSuite` composes them.
 */

/**
 * The simulator profile, checked against every case, so one written for the whole suite stays valid for a selection.
 * Case files chosen by `--cases` are a selection too: a rule naming a case outside them is only inactive (lint checks
 * the profile against the config's own cases).
 */
export function checkProfile(
  sim: string | undefined,
  family: readonly Pick<Skill, 'dir'>[],
  all: CaseSuite | undefined,
  caseFilesChosen: boolean,
  problems: ProblemList,
  cwd: string,
): Profile | undefined {
  if (sim === undefined) return undefined;
  const targets = { skills: family.map((s) => s.dir), caseIds: caseFilesChosen ? undefined : all?.cases.map((c) => c.id) };
  return problems.collect(() => (family.length ? loadProfileForSuite(sim, targets, cwd) : loadProfile(sim, cwd)));
}

/** A sequential design decides on the skill arm, which the arms must then include. */
export function checkArms(loaded: LoadedConfig, problems: ProblemList): void {
  const { config } = loaded;
  if (decisionMode(config.decision.mode).sequential && !config.arms.includes('skill'))
    problems.add({
      ...placeOf(loaded, 'arms'),
      what: 'sequential mode decides on the skill arm, but `arms` leaves it out',
      todo: 'add `skill` to arms, or use `decision.mode: fixed`',
    });
}

/**
 * A context the agent's trials cannot run in (the field, for a CLI whose refusal of acting calls is not measured
 * yet): refused where it was asked for, the config's `context` or the first case that sets its own.
 */
export function checkContext(loaded: LoadedConfig, adapter: AgentAdapter, all: CaseSuite, problems: ProblemList): void {
  const { config } = loaded;
  if (adapter.contexts.includes('field')) return;
  const asked = all.cases.find((c) => contextOf(c, config) === 'field');
  if (!asked) return;
  const where = asked.context === 'field' ? { file: asked.source.file, line: asked.source.line } : placeOf(loaded, 'context');
  problems.add({
    ...where,
    what: `context field: ${adapter.skillListing.cli} cannot run trials in the field yet (its refusal of every acting call is not measured)`,
    todo: `run this suite in the lab (context: lab), or in the field with an agent that supports it (${fieldAgents().join(', ')})`,
  });
}

/** The agents whose trials take a case's history (`history`) or its follow-ups (`followUps`). */
const conversationAgents = (part: 'history' | 'followUps') => AGENT_IDS.filter((id) => adapterFor(id).conversation?.[part]);

/**
 * A case with a history (`history:`) or follow-ups (`followUps:`) for an agent that cannot take them yet: refused
 * at the first such case.
 */
export function checkConversation(adapter: AgentAdapter, all: CaseSuite, problems: ProblemList): void {
  const parts = (['history', 'followUps'] as const).filter((part) => !adapter.conversation?.[part]);
  for (const part of parts) {
    const asked = all.cases.find((c) => c[part]);
    if (!asked) continue;
    problems.add({
      file: asked.source.file,
      line: asked.source.line,
      what: `case "${asked.id}" has \`${part}\`, but ${adapter.skillListing.cli} cannot take ${part === 'history' ? 'a history' : 'follow-ups'} yet`,
      todo: `run it with an agent that can (${conversationAgents(part).join(', ')}), or remove \`${part}\``,
    });
    return;
  }
}

/**
 * An MCP tool the suite names (a stub's, a real server's marked read-only) that the agent would rename on its model
 * wire (`AgentAdapter.mcpToolNames`): its stub could never be seen listed (every trial an `isolation_error`), its
 * read-only mark never matched. Refused at the server's name, once a server.
 */
export function checkMcpToolNames(adapter: AgentAdapter, all: CaseSuite, problems: ProblemList): void {
  const limit = adapter.mcpToolNames;
  if (!limit) return;
  const servers = new Set(all.cases.flatMap((c) => c.mcpServers ?? []));
  for (const server of servers) {
    const long = namedTools(server).find((tool) => limit.nameOf({ server: server.name, tool }).length > limit.maxLength);
    if (long === undefined) continue;
    problems.add({
      ...server.at,
      what: `MCP tool ${server.name}/${long}: ${adapter.skillListing.cli} names it "${limit.nameOf({ server: server.name, tool: long })}", over the ${limit.maxLength} characters it keeps whole (it shortens the name, so the tool could not be told apart)`,
      todo: "shorten the server's or the tool's name",
    });
  }
}

/**
 * A skill of the family or a neighbour named like one the agent bundles, when any trial runs in the field (where the
 * CLI lists its bundled skills beside the installed ones): refused at its `name`. The CLIs settle such a tie each their
 * own way (one replaces the other, or both are listed), and a firing of that name could not be told whose it was.
 */
export function checkBundledNames(
  loaded: LoadedConfig,
  adapter: AgentAdapter,
  all: CaseSuite,
  installed: readonly Skill[],
  problems: ProblemList,
): void {
  const field = all.cases.some((c) => contextOf(c, loaded.config) === 'field');
  if (!field || !adapter.contexts.includes('field')) return;
  for (const skill of installed) {
    const twin = adapter.grading.bundledSkills.find((b) => b === skill.name || b === skill.dir);
    if (twin === undefined) continue;
    problems.add({
      file: skill.source.file,
      ...skill.source.at.name,
      what: `skill "${skill.name}" has the name of ${adapter.skillListing.cli}'s bundled skill ${twin}, which a field trial lists beside it: a firing of that name could not be told whose it was`,
      todo: 'rename the skill (its folder and `name`), or run it in the lab only (context: lab)',
    });
  }
}

/** The agents whose trials can run in the field. */
const fieldAgents = () => AGENT_IDS.filter((id) => adapterFor(id).contexts.includes('field'));

/**
 * The agent that runs the suite (`agentId`, one of several, or the config's), and what the config asks of it: models
 * for known agents only, a cost cap only for an agent that reports cost, one binary and one model only for one agent.
 */
export function checkAgent(loaded: LoadedConfig, agentId: string | undefined, problems: ProblemList): AgentAdapter | undefined {
  const { config } = loaded;
  const adapter = problems.collect(() =>
    checkValueAt(loaded, config.agents ? 'agents' : 'agent', () => adapterFor(agentId ?? config.agents?.[0] ?? config.agent)),
  );
  for (const id of Object.keys(config.models ?? {})) problems.collect(() => checkValueAt(loaded, 'models', () => adapterFor(id, 'models')));
  if (adapter && config.maxCostUsd !== undefined && !adapter.reportsCost)
    problems.add({
      ...placeOf(loaded, 'maxCostUsd'),
      what: `the ${adapter.skillListing.cli} reports no cost, so the cap could never stop the run`,
      todo: 'drop --max-cost for this agent, and bound the spend with --trials or decision.maxTrials (`skillprobe plan` prices them)',
    });
  // The cost a CLI reports on a subscription is its price of the tokens at API rates: no money is spent to cap.
  else if (config.maxCostUsd !== undefined && config.auth === 'login')
    problems.add({
      ...placeOf(loaded, 'maxCostUsd'),
      what: 'a subscription login spends its quota, not dollars: the cost the CLI reports under it is notional, so --max-cost would cap no money',
      todo: 'drop --max-cost, and bound the quota with --max-trials or --trials (`skillprobe plan --login` counts the trials)',
    });
  if (agentId !== undefined && config.agentBinary !== undefined)
    problems.add({
      ...placeOf(loaded, 'agentBinary'),
      what: 'one CLI binary for several agents would run it for each of them',
      todo: 'leave it out (each agent runs its pinned CLI), or run the agent it belongs to on its own',
    });
  if (adapter && agentId !== undefined && loaded.where(['model']) && !config.models?.[adapter.id]) {
    // A model name belongs to one CLI, and which one is not for skillprobe to guess: every agent it would reach is named.
    const reached = (config.agents ?? [adapter.id]).filter((id) => !config.models?.[id]);
    problems.add({
      ...placeOf(loaded, 'model'),
      what: `one model for several agents would send ${config.model} to each agent not named under \`models:\` (${reached.join(', ')})`,
      todo: `name each agent's model under \`models:\` (\`models: { ${reached[0]}: … }\`), or leave \`model\` out for each CLI's own default`,
    });
  }
  return adapter;
}

/**
 * The config as one agent's run uses it: which agent, and which model it asked for (a model the user did not name is
 * the agent's own default, not another CLI's); against a real model, an adaptive concurrency unless one was fixed.
 */
export function settleAgent(loaded: LoadedConfig, adapter: AgentAdapter | undefined, simulated: boolean): void {
  const { config } = loaded;
  // Against a real model the provider's rate limits set the pace, so the limit adapts unless the user fixed one; the
  // simulator answers at once, and its runs keep the fixed default.
  if (!simulated && !loaded.where(['concurrency'])) config.concurrency = 'auto';
  if (!adapter) return;
  config.agent = adapter.id;
  delete config.agents;
  config.model = config.models?.[adapter.id] ?? (loaded.where(['model']) ? config.model : adapter.defaultModel);
  delete config.models;
}

/** The agent's CLI binary: the pinned one, or the one the config or `--agent-binary` names. */
export function checkBinary(loaded: LoadedConfig, adapter: AgentAdapter, problems: ProblemList): string | undefined {
  const override = loaded.config.agentBinary;
  const binary = override === undefined ? undefined : fromFolder(loaded.cwd, override);
  return problems.collect(() => checkValueAt(loaded, 'agentBinary', () => adapter.resolveBinary(binary)));
}

/**
 * A simulated run resumed without `--sim` would ask for credentials it never needed: the flag is named instead.
 * Returns the profile the resumed run ran with, if it did.
 */
export function checkSimulatedResume(
  resume: string | undefined,
  sim: string | undefined,
  problems: ProblemList,
  cwd: string,
): string | undefined {
  const simulated = resume !== undefined && sim === undefined ? simulatedRun(fromFolder(cwd, resume)) : undefined;
  if (simulated)
    problems.add({
      file: '--sim',
      what: `run ${resume} ran against the model simulator (profile ${simulated}), and its resume must too`,
      todo: `add --sim ${simulated}`,
    });
  return simulated;
}

/** The simulator profile a stored run (one agent's, or the first of several) ran with, if it did. */
function simulatedRun(dir: string): string | undefined {
  const outer = readAgentRunsSync(dir);
  const first = outer.ok ? outer.value.agents[0]?.dir : undefined;
  const m = readManifestSync(first ? join(dir, first) : dir);
  return m.ok ? m.value.simulator?.profile : undefined;
}

/**
 * What the agent's CLI lacks in the caller's environment to reach a real model (`whose` names a CLI other than the
 * run's); with `login` (`auth: login`), what its stored login lacks, against the simulator too (its file is copied).
 */
export function credentialProblem(
  adapter: AgentAdapter,
  env: NodeJS.ProcessEnv,
  whose?: string,
  login?: { where: ValueLocation },
): InputProblem | undefined {
  const missing = login ? loginProblem(adapter, env, new Date()) : adapter.credentialProblem(env);
  if (!missing) return undefined;
  const [what, todo] = splitProblem(missing);
  return { ...(login?.where ?? { file: 'environment' }), what: whose ? `${whose}: ${what}` : what, todo };
}

/**
 * The judge of a suite with judged cases: its settings, and, when the run goes ahead (`run`) with a judge of another
 * CLI, that CLI's binary and (against a real model, `run.real` the caller's environment) its credentials.
 */
export function checkJudge(
  loaded: LoadedConfig,
  adapter: AgentAdapter,
  all: CaseSuite,
  run: { real?: NodeJS.ProcessEnv; login?: { where: ValueLocation } } | undefined,
  problems: ProblemList,
): JudgeCli | undefined {
  if (!all.cases.some((c) => c.expect.judge?.length)) return undefined;
  for (const p of judgeProblems(loaded, adapter, loaded.config.model, all.cases)) problems.add(p);
  const judgeAgent = loaded.config.judge?.agent ?? adapter.id;
  if (!run || judgeAgent === adapter.id || !AGENT_IDS.includes(judgeAgent)) return undefined;
  // A judge of another CLI needs its own binary and credentials, checked with the run's.
  return problems.collect(() => {
    const judgeAdapter = adapterFor(judgeAgent, 'judge.agent');
    const missing = run.real && credentialProblem(judgeAdapter, run.real, `the judge (${judgeAgent})`, run.login);
    if (missing) throw new InputError(missing);
    return { adapter: judgeAdapter, binary: judgeAdapter.resolveBinary(undefined) };
  });
}
