import { readJudgeRequest } from '../checks/judge-prompt.js';
import { proposalAnswer, readProposalRequest } from '../tune/proposal.js';
import { fencedCommands } from '../util/markdown.js';
import type { ActKind, ConversationView, SkillBody } from './conversation.js';
import type { Behaviour, PlanPolicy, Profile, Rule } from './profile.js';
import { DEFAULT_JUDGE, judgeReply } from './judge.js';
import { DEFAULT_PROPOSER_WORDS, proposeDescription } from './proposer.js';
import { routerChances } from './router.js';
import { seededUniform } from '../util/random.js';
import { compileLinearRegex } from '../util/linear-regex.js';

/**
 * What the simulated model does with one request, in terms every CLI shares; each dialect writes these its CLI's way.
 * `skill` invokes a skill, `read` reads its SKILL.md with a file read, `read_file` reads a file of the workspace (a
 * user's file, by its path there), `search` is a harmless tool call, `act` goes around the skills with the CLI's own
 * acting call of that kind (with `load`: the lookup that loads that call's deferred tool, made the turn before it).
 */
export type ReplyBlock =
  | { type: 'text'; text: string }
  | { type: 'skill'; name: string; args?: string }
  | { type: 'read'; name: string }
  | { type: 'read_file'; path: string }
  | { type: 'search'; pattern: string }
  | { type: 'act'; act: ActKind; load?: true }
  | { type: 'mcp'; server: string; tool: string; input: Record<string, unknown>; wireName?: string; namespace?: string; load?: true };

export type Reply =
  | { type: 'message'; blocks: ReplyBlock[] }
  | { type: 'http_error'; status: number; message: string; retryAfter?: number }
  | { type: 'stall'; partialText: string };

export interface TrialIdentity {
  /** Stable for one conversation: the harness's trial key, else the CLI's session id. */
  key: string;
  caseId?: string;
}

export function pickWeighted<T extends { p: number }>(items: T[], u: number): T {
  const total = items.reduce((s, b) => s + b.p, 0);
  let x = u * total;
  for (const item of items) {
    if (x < item.p) return item;
    x -= item.p;
  }
  return items[items.length - 1]!;
}

export function matchingRule(profile: Profile, prompt: string, caseId: string | undefined): Rule | undefined {
  return profile.rules.find((r) => {
    if (r.case !== undefined) return r.case === caseId;
    // Checked when the profile loaded; a pattern that does not compile matches nothing.
    const compiled = compileLinearRegex(r.prompt!, { ignoreCase: true });
    return compiled.ok && compiled.regex.test(prompt);
  });
}

const DEFAULT_ANSWER =
  'Here is a general answer without using any skill: I would start by checking the documentation for the tool you mentioned.';
const DEFAULT_CLARIFY = 'Could you tell me a bit more about what you need — which project or system should I work with?';

function answer(text: string | true | undefined, fallback: string): Reply {
  return { type: 'message', blocks: [{ type: 'text', text: typeof text === 'string' ? text : fallback }] };
}

/** How the router names an MCP tool among the skills it weighs (no skill name holds a colon). */
const TOOL_CHOICE = 'mcp:';

/**
 * The router's draw for a prompt no rule matched: a skill, or an MCP tool the request offers, in proportion to how well
 * its description as the CLI sent it matches (the tool is then called without arguments), or neither: then, with the router's `act` chance, an acting call of its own (so acting falls as a description
 * matches better), else a plain answer. Without a way to invoke a skill (the ablation arm) only no skill is left.
 */
function routedBehaviour(router: NonNullable<Profile['router']>, seed: number, view: ConversationView, id: TrialIdentity): Behaviour {
  const offered = view.canInvokeSkill
    ? view.offeredSkills.map((name) => ({ name, description: view.skillDescriptions.get(name) ?? '' }))
    : [];
  const tools = (view.mcpTools ?? []).map((t) => ({ name: `${TOOL_CHOICE}${t.server}/${t.tool}`, description: t.description }));
  const chances = routerChances(view.prompt, [...offered, ...tools], router);
  const options: { name?: string; p: number }[] = [...chances.skills, { p: chances.none }];
  const { name } = pickWeighted(options, seededUniform(seed, id.key, 'router'));
  if (name?.startsWith(TOOL_CHOICE)) return { p: 1, mcp: name.slice(TOOL_CHOICE.length) };
  if (name !== undefined) return { p: 1, skill: name };
  // Its own draw, taken only when acting can happen: a router without `act` draws as it always did.
  const acts = (router.act ?? 0) > 0 && seededUniform(seed, id.key, 'router-act') < router.act!;
  return acts ? { p: 1, act: router.actWith ?? 'shell' } : { p: 1, answer: true };
}

/** The behaviour this trial draws on its first turn (recomputed on later turns, never stored). */
export function firstBehaviour(
  profile: Profile,
  view: ConversationView,
  id: TrialIdentity,
): { behaviour: Behaviour; plan: PlanPolicy; unskilled?: string } {
  const rule = matchingRule(profile, view.prompt, id.caseId);
  // Rules win; the router only answers what they leave open, so a profile without `router` plays as it always did.
  if (rule === undefined && profile.router !== undefined) {
    return { behaviour: routedBehaviour(profile.router, profile.seed, view, id), plan: profile.plan };
  }
  const behaviours = rule?.do ?? profile.default;
  const behaviour = pickWeighted(behaviours, seededUniform(profile.seed, id.key, 'behaviour'));
  return { behaviour, plan: rule?.plan ?? profile.plan, unskilled: rule?.unskilled };
}

function callSkill(name: string, args: string | undefined): Reply {
  return {
    type: 'message',
    blocks: [
      { type: 'text', text: `I'll use the ${name} skill for this.` },
      { type: 'skill', name, ...(args ? { args } : {}) },
    ],
  };
}

function firstTurn(profile: Profile, view: ConversationView, id: TrialIdentity): Reply {
  const { behaviour: b, unskilled } = firstBehaviour(profile, view, id);
  const offered = (name: string) => view.canInvokeSkill && view.offeredSkills.includes(name);
  // Asks first: a clarifying question ends each user turn before the one the action plays on. Asking is the skill's
  // way (its description says to), so where that skill is not offered (the ablation arm) the model answers at once.
  const asks = b.onTurn !== undefined && view.userTurn < b.onTurn && (b.skill === undefined || offered(b.skill));
  if (asks) return answer(b.ask, DEFAULT_CLARIFY);
  // A model cannot call what it was not shown: such behaviours degrade to a plain answer (the ablation arm).
  if (b.skill !== undefined) return offered(b.skill) ? callSkill(b.skill, b.args) : answer(unskilled, DEFAULT_ANSWER);
  if (b.sibling !== undefined) {
    const others = view.canInvokeSkill ? view.offeredSkills.filter((s) => s !== b.sibling) : [];
    if (others.length === 0) return answer(undefined, DEFAULT_ANSWER);
    const pick = others[Math.floor(seededUniform(profile.seed, id.key, 'sibling') * others.length)]!;
    return callSkill(pick, b.args);
  }
  if (typeof b.read === 'object') {
    if (!view.canReadFile) return answer(undefined, DEFAULT_ANSWER);
    return {
      type: 'message',
      blocks: [
        { type: 'text', text: `Let me look at ${b.read.file} first.` },
        { type: 'read_file', path: b.read.file },
      ],
    };
  }
  if (b.read !== undefined) {
    if (!view.offeredSkills.includes(b.read) || !view.canReadFile) return answer(undefined, DEFAULT_ANSWER);
    return {
      type: 'message',
      blocks: [
        { type: 'text', text: `Let me read the ${b.read} instructions first.` },
        { type: 'read', name: b.read },
      ],
    };
  }
  if (b.act !== undefined) {
    if (view.canAct?.includes(b.act)) return view.deferredActs?.includes(b.act) ? loadForAct(b.act) : actOnce(b.act);
    return b.otherwise !== undefined && offered(b.otherwise) ? callSkill(b.otherwise, b.args) : answer(unskilled, DEFAULT_ANSWER);
  }
  if (b.mcp !== undefined) return mcpCall(b.mcp, b.input, view, true) ?? answer(unskilled, DEFAULT_ANSWER);
  if (b.clarify !== undefined) return answer(b.clarify, DEFAULT_CLARIFY);
  if (b.http !== undefined) return { type: 'http_error', status: b.http, message: `simulated HTTP ${b.http}`, retryAfter: b.retryAfter };
  if (b.stall) return { type: 'stall', partialText: 'Let me think about' };
  if (b.loop) return loopStep(view.turn);
  return answer(b.answer, DEFAULT_ANSWER);
}

const ACT_INTENT: Record<ActKind, string> = {
  shell: "I'll run a command to do this myself.",
  write: "I'll write the file myself.",
  fetch: "I'll fetch what I need myself.",
  agent: "I'll hand this to a sub-agent.",
};

/** Going around the skills: the CLI's own acting call, whatever a skill would have done. */
function actOnce(act: ActKind): Reply {
  return {
    type: 'message',
    blocks: [
      { type: 'text', text: ACT_INTENT[act] },
      { type: 'act', act },
    ],
  };
}

/** The lookup that loads a deferred acting tool; the acting call follows on the next turn. */
function loadForAct(act: ActKind): Reply {
  return {
    type: 'message',
    blocks: [
      { type: 'text', text: 'Let me load the tool I need.' },
      { type: 'act', act, load: true },
    ],
  };
}

/**
 * The call of an MCP tool (`server/tool`) the request offers, or may call by name where it defers the server; with
 * `mayLoad`, the lookup that loads the tool's schema where the request defers that tool; undefined where neither.
 */
function mcpCall(name: string, input: Record<string, unknown> | undefined, view: ConversationView, mayLoad: boolean): Reply | undefined {
  const [server, tool] = name.split('/') as [string, string];
  const offeredTool = view.mcpTools?.find((t) => t.server === server && t.tool === tool);
  if (!offeredTool && mayLoad && view.mcpLoadable?.some((t) => t.server === server && t.tool === tool)) {
    return {
      type: 'message',
      blocks: [
        { type: 'text', text: 'Let me load the tool I need.' },
        { type: 'mcp', server, tool, input: {}, load: true },
      ],
    };
  }
  if (!offeredTool && !view.mcpDeferred?.includes(server)) return undefined;
  return {
    type: 'message',
    blocks: [
      { type: 'text', text: `I'll use the ${name} tool for this.` },
      { type: 'mcp', wireName: offeredTool?.wireName, namespace: offeredTool?.namespace, server, tool, input: input ?? {} },
    ],
  };
}

/** What the model says once its acting call came back refused (or done): it goes on without a skill. */
const AFTER_ACTING = 'That step was not allowed here, so here is how to do it by hand instead: ';

function loopStep(turn: number): Reply {
  return {
    type: 'message',
    blocks: [
      { type: 'text', text: `Searching, step ${turn + 1}.` },
      { type: 'search', pattern: `**/*step${turn}*` },
    ],
  };
}

/** A plausible mistake: the first hyphenated subcommand cut short (`create-issue` → `create`), or a flag dropped. */
export function mutateCommand(cmd: string, how: PlanPolicy['mutate']): string {
  const tokens = cmd.split(' ');
  if (how === 'abbreviate') {
    const i = tokens.findIndex((t) => !t.startsWith('-') && /^[a-z]+-[a-z-]+$/.test(t));
    if (i >= 0) {
      tokens[i] = tokens[i]!.split('-')[0]!;
      return tokens.join(' ');
    }
  }
  const flag = tokens
    .map((t, i) => (t.startsWith('--') ? i : -1))
    .filter((i) => i >= 0)
    .at(-1);
  if (flag === undefined) return `${cmd} --force`;
  const valueFollows = tokens[flag + 1] !== undefined && !tokens[flag + 1]!.startsWith('-');
  tokens.splice(flag, valueFollows ? 2 : 1);
  return tokens.join(' ');
}

/** The instructions as the model follows them: a SKILL.md as stored loses its frontmatter and gets `$ARGUMENTS` filled. */
export function instructions(body: SkillBody, args: string): string {
  if (body.argumentsFilled) return body.text;
  return body.text.replace(/^---\n[\s\S]*?\n---\n/, '').replace(/\$ARGUMENTS/g, args);
}

/** The words `command` puts before `word`, when `word` is one of its words after the first. */
function wordsBefore(command: string, word: string): string | undefined {
  const words = command.split(/\s+/);
  const at = words.indexOf(word, 1);
  return at > 0 ? words.slice(0, at).join(' ') : undefined;
}

/**
 * The one call a model following the skill plans, whichever CLI loaded it: the rule's args after the skill's command
 * prefix. The body gives the prefix: its command that carries the args (`atl jira $ARGUMENTS`, filled in by the CLI or
 * the model), else the words a command puts before the args' subcommand (`atl jira` of `atl jira create-issue
 * --project KEY`). Without args, or a prefix, the body's first command. Never every line of every block: a real
 * SKILL.md holds install steps and alternatives that nobody would plan all at once.
 */
export function plannedCall(body: string, args: string | undefined): string | undefined {
  const cmds = fencedCommands(body);
  const given = args?.trim();
  if (!given) return cmds[0];
  const carrying = cmds.find((c) => c.includes(given));
  if (carrying !== undefined) return carrying;
  const subcommand = given.split(/\s+/)[0]!;
  const prefix = cmds.map((c) => wordsBefore(c, subcommand)).find((p) => p !== undefined);
  return prefix === undefined ? cmds[0] : `${prefix} ${given}`;
}

/**
 * The answer a model following a loaded skill writes: its planned call (`garbled`: as the profile's `plan.wrong`
 * garbles it), or that the skill gives no command. `body` is the skill's instructions as loaded (`instructions`).
 */
export function planAnswer(body: string, args: string | undefined, policy: PlanPolicy, garbled: boolean): string {
  const cmd = plannedCall(body, args);
  if (cmd === undefined) return 'I loaded the skill, but it gives no command to run for this request.';
  return `Here is the plan:\n\n\`\`\`bash\n${garbled ? mutateCommand(cmd, policy.mutate) : cmd}\n\`\`\`\n\nI can't run commands in this session, so run it yourself.`;
}

function planReply(profile: Profile, id: TrialIdentity, body: SkillBody, args: string | undefined, policy: PlanPolicy): Reply {
  // The service failing after the model chose its skill: what a trial cut short with its trigger settled looks like.
  if (seededUniform(profile.seed, id.key, 'plan-stall') < policy.stall) return { type: 'stall', partialText: 'Here is the plan' };
  const garbled = seededUniform(profile.seed, id.key, 'plan') < policy.wrong;
  return answer(planAnswer(instructions(body, args ?? ''), args, policy, garbled), '');
}

/** `tune`'s request for a description, answered by the proposer stand-in whatever the rules say; undefined for any other prompt. */
function proposal(profile: Profile, view: ConversationView): Reply | undefined {
  const request = readProposalRequest(view.prompt);
  if (request === undefined) return undefined;
  const words = profile.proposer?.words ?? DEFAULT_PROPOSER_WORDS;
  return answer(proposalAnswer(proposeDescription(request, { seed: profile.seed, words })), '');
}

/** A judge's request, answered by the judge stand-in whatever the rules say; undefined for any other prompt. */
function judgement(profile: Profile, view: ConversationView, id: TrialIdentity): Reply | undefined {
  const request = readJudgeRequest(view.prompt);
  if (request === undefined) return undefined;
  return answer(judgeReply(profile.judge ?? DEFAULT_JUDGE, profile.seed, request, id.key), '');
}

/** The simulated model's reply to one request. Pure: same profile, view and identity → same reply. */
export function decideReply(profile: Profile, view: ConversationView, id: TrialIdentity): Reply {
  if (view.turn === 0 || view.lastResults.length === 0) {
    if (view.turn > 0) return answer(undefined, DEFAULT_ANSWER);
    return proposal(profile, view) ?? judgement(profile, view, id) ?? firstTurn(profile, view, id);
  }
  const { behaviour, plan } = firstBehaviour(profile, view, id);
  if (behaviour.loop) return loopStep(view.turn);
  if (view.lastResults.some((r) => r.action === 'act')) return answer(`${AFTER_ACTING}${DEFAULT_ANSWER}`, '');
  // The deferred tool loaded: now the acting call; a lookup that loaded nothing leaves it deferred, and the model answers.
  if (behaviour.act !== undefined && view.lastResults.some((r) => r.action === 'load' && !r.isError)) {
    return view.canAct?.includes(behaviour.act) && !view.deferredActs?.includes(behaviour.act)
      ? actOnce(behaviour.act)
      : answer(`${AFTER_ACTING}${DEFAULT_ANSWER}`, '');
  }
  // The deferred MCP tool loaded: now its call; a lookup that loaded nothing leaves the model answering without it.
  if (behaviour.mcp !== undefined && view.lastResults.some((r) => r.action === 'load' && !r.isError)) {
    return mcpCall(behaviour.mcp, behaviour.input, view, false) ?? answer(undefined, DEFAULT_ANSWER);
  }
  const toolResult = view.lastResults.find((r) => r.action === 'mcp');
  if (toolResult) return answer(`${toolResult.isError ? 'The tool failed' : 'The tool answered'}: ${toolResult.text.slice(0, 200)}`, '');
  const skillResult = view.lastResults.find((r) => r.action === 'skill');
  if (skillResult) {
    if (skillResult.isError || view.skillBody === undefined) {
      return answer(`I could not load that skill (${skillResult.text.slice(0, 120)}). ${DEFAULT_ANSWER}`, '');
    }
    return planReply(profile, id, view.skillBody, behaviour.args, plan);
  }
  const read = view.lastResults.find((r) => r.action === 'read');
  if (read && !read.isError && view.skillBody) return planReply(profile, id, view.skillBody, behaviour.args, plan);
  return answer(undefined, DEFAULT_ANSWER);
}
