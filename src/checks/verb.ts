import { z } from 'zod';
import { checkKind } from './kind.js';

/** The subcommand of a canonical plan: the first token after the canonical command prefix (or the first token without one). */
export function verbOf(plan: string, command?: string): string | undefined {
  const prefix = command ?? '';
  if (prefix && !(plan === prefix || plan.startsWith(prefix + ' '))) return undefined;
  return plan.slice(prefix.length).trim().split(' ')[0] || undefined;
}

/** `verb`: every call of the command uses exactly this subcommand: `atl jira create` is not `atl jira create-issue`. */
export const verb = checkKind({
  authored: z.string().min(1).optional(),
  stored: z.string().optional(),
  grade: (want, { plans, command }) => {
    const verbs = plans.map((p) => verbOf(p, command)).filter((v): v is string => v !== undefined);
    const wrong = verbs.filter((v) => v !== want);
    return [
      {
        check: `verb ${want}`,
        pass: verbs.length > 0 && wrong.length === 0,
        detail: verbs.length === 0 ? 'no call of the command found' : wrong.length ? `used ${[...new Set(wrong)].join(', ')}` : undefined,
      },
    ];
  },
});
