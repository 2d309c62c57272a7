import type { GradingConventions } from '../agents/types.js';
import type { Transcript } from '../transcript/types.js';
import { holdsFolder } from './skill-paths.js';
import type { FamilyMember, Firing, SkillLoadStatus } from '../run/schema.js';
import { isConversation, userTurnOfEvents } from './turns.js';

/**
 * Exact match on folder or frontmatter name of the name the CLI resolves the request to; substrings never match
 * (`atl` is not `atl-jira`).
 */
export function resolveMember(requested: string, family: FamilyMember[], conventions: GradingConventions): string | undefined {
  const n = conventions.skillName(requested);
  return family.find((m) => m.dir === n || m.name === n)?.dir;
}

/** The member whose folder a read path points into (`…/<skillsFolder>/<dir>/…`), if any. */
export function memberReadBy(path: string, family: FamilyMember[], skillsFolder: string): string | undefined {
  return family.find((m) => holdsFolder(path, `${skillsFolder}/${m.dir}`))?.dir;
}

/**
 * Every firing in the whole run, in order: skill-tool invocations (with their load status, denied still counting
 * as the model's choice) and reads of a skill's files. Only assistant tool calls are considered. A name or read
 * outside the family that is one of the declared `neighbours` names that neighbour (`neighbour`): the model went to
 * another of the user's skills, which is graded apart from a name the suite never installed. In a conversation each
 * firing records the user turn it came in.
 */
export function firings(
  t: Transcript,
  family: FamilyMember[],
  skillsFolder: string,
  conventions: GradingConventions,
  neighbours: FamilyMember[] = [],
): Firing[] {
  const out: Firing[] = [];
  const turns = isConversation(t) ? userTurnOfEvents(t) : undefined;
  const turnAt = (at: number) => (turns ? { turn: turns[at]! } : {});
  const loads = new Map<string, SkillLoadStatus>();
  for (const e of t.events) if (e.kind === 'skill_load') loads.set(e.callId, e.status);
  const named = (skill: string | undefined, neighbour: string | undefined) => ({
    ...(skill !== undefined ? { skill } : {}),
    ...(skill === undefined && neighbour !== undefined ? { neighbour } : {}),
  });
  t.events.forEach((e, at) => {
    if (e.kind !== 'tool_call' || e.source !== 'assistant') return;
    if (e.intent === 'skill') {
      const requested = e.skill ?? '';
      out.push({
        ...named(resolveMember(requested, family, conventions), resolveMember(requested, neighbours, conventions)),
        requested,
        via: 'invoke',
        status: loads.get(e.id),
        callId: e.id,
        at,
        ...turnAt(at),
      });
    } else if (e.intent === 'read' && e.path) {
      const skill = memberReadBy(e.path, family, skillsFolder);
      const neighbour = memberReadBy(e.path, neighbours, skillsFolder);
      if (skill || neighbour) out.push({ ...named(skill, neighbour), requested: e.path, via: 'read', callId: e.id, at, ...turnAt(at) });
    }
  });
  return out;
}
