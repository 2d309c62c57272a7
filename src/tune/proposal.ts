/**
 * What `tune` asks the proposer (the agent CLI, headless, no tools) and how it reads the answer. The request is
 * prose for a real model with one machine-readable block, so the simulator's proposer stand-in reads exactly what a
 * real model would be shown.
 */

/** A tune case the current description gets wrong, with what happened instead. */
export interface ProposalFailure {
  /** missed: the skill should have fired and did not; stolen: it fired on a sibling's case; false-trigger: on a case expecting none. */
  kind: 'missed' | 'stolen' | 'false-trigger';
  prompt: string;
  /** Passes over scored trials, e.g. "0/3". */
  rate: string;
  /** What fired instead (missed) or whose case it was (stolen), when a family member. */
  other?: string;
}

export interface ProposalRequest {
  skill: string;
  current: string;
  failures: ProposalFailure[];
  /** The family's other skills as listed, so a rewrite can say "use this, not X, when …". */
  siblings: { name: string; description: string }[];
  /** Every earlier attempt with its tune score (recall on the tune cases, 0–1), or why it was never scored. */
  attempts: { description: string; tuneScore?: number; refused?: string }[];
  /** The most characters the description may have. */
  maxChars: number;
}

const OPEN = '<tune-request';
const CLOSE = '</tune-request>';

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const unescape = (s: string) => s.replace(/&(lt|gt|quot|amp);/g, (e) => ({ '&lt;': '<', '&gt;': '>', '&quot;': '"', '&amp;': '&' })[e]!);

/** The proposer's prompt: the task in words, then the block the answer is built from. */
export function proposalPrompt(r: ProposalRequest): string {
  const lines = [
    `Rewrite the description of the agent skill "${r.skill}" so that an AI assistant calls the skill for the requests it is meant for, and only for those.`,
    "The assistant sees only each skill's name and description when it decides which skill to use. Below are the requests the current",
    'description gets wrong (with how often it got them right), the sibling skills it must be told apart from, and earlier attempts with',
    'their scores. Say what the skill does and when to use it, in the third person; name the kinds of request it covers; where a sibling',
    `took or was given a request, say when to use this skill rather than that one. At most ${r.maxChars} characters, plain text on one`,
    'line, no angle brackets. Do not use any tools. Answer with the new description only, inside <description></description>.',
    '',
    `${OPEN} skill="${escape(r.skill)}">`,
    `<current>${escape(r.current)}</current>`,
    ...r.failures.map(
      (f) =>
        `<failure kind="${f.kind}" rate="${escape(f.rate)}"${f.other ? ` other="${escape(f.other)}"` : ''}>${escape(f.prompt)}</failure>`,
    ),
    ...r.siblings.map((s) => `<sibling name="${escape(s.name)}">${escape(s.description)}</sibling>`),
    ...r.attempts.map(
      (a) =>
        `<attempt ${a.tuneScore !== undefined ? `tune-score="${a.tuneScore.toFixed(3)}"` : `refused="${escape(a.refused ?? 'not scored')}"`}>${escape(a.description)}</attempt>`,
    ),
    `<limit chars="${r.maxChars}"/>`,
    CLOSE,
  ];
  return lines.join('\n');
}

const attr = (tag: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(tag)?.[1];

/** The request back from a prompt that holds one (what the simulator's stand-in reads); undefined otherwise. */
export function readProposalRequest(prompt: string): ProposalRequest | undefined {
  const start = prompt.indexOf(OPEN);
  const end = prompt.indexOf(CLOSE, start);
  if (start < 0 || end < 0) return undefined;
  const block = prompt.slice(start, end);
  const skill = attr(block.slice(0, block.indexOf('>')), 'skill');
  if (skill === undefined) return undefined;
  const elements = (tag: string) => [...block.matchAll(new RegExp(`<${tag}([^>]*)>([^<]*)</${tag}>`, 'g'))];
  return {
    skill: unescape(skill),
    current: unescape(elements('current')[0]?.[2] ?? ''),
    failures: elements('failure').map((m) => {
      const other = attr(m[1]!, 'other');
      return {
        kind: (attr(m[1]!, 'kind') ?? 'missed') as ProposalFailure['kind'],
        rate: unescape(attr(m[1]!, 'rate') ?? ''),
        prompt: unescape(m[2]!),
        ...(other !== undefined ? { other: unescape(other) } : {}),
      };
    }),
    siblings: elements('sibling').map((m) => ({ name: unescape(attr(m[1]!, 'name') ?? ''), description: unescape(m[2]!) })),
    attempts: elements('attempt').map((m) => {
      const score = attr(m[1]!, 'tune-score');
      const refused = attr(m[1]!, 'refused');
      return {
        description: unescape(m[2]!),
        ...(score !== undefined ? { tuneScore: Number(score) } : {}),
        ...(refused !== undefined ? { refused: unescape(refused) } : {}),
      };
    }),
    maxChars: Number(/<limit chars="(\d+)"/.exec(block)?.[1] ?? 1024),
  };
}

/** The proposed description from the proposer's answer: the last `<description>` block, trimmed to one line. */
export function readProposal(answer: string): string | undefined {
  const all = [...answer.matchAll(/<description>([\s\S]*?)<\/description>/g)];
  const text = all.at(-1)?.[1];
  if (text === undefined) return undefined;
  const line = unescape(text).replace(/\s+/g, ' ').trim();
  return line === '' ? undefined : line;
}

/** How the simulator's stand-in (or a real model) writes its answer. */
export const proposalAnswer = (description: string): string => `<description>${escape(description)}</description>`;
