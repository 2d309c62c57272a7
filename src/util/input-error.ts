/**
 * A mistake in the user's input (files or flags). Printed as `file:line:col: what — what to do`,
 * exit code 2, and never with a stack trace.
 */
export interface InputProblem {
  file: string;
  line?: number;
  col?: number;
  what: string;
  todo: string;
}

export class InputError extends Error {
  readonly problems: InputProblem[];

  constructor(problems: InputProblem[] | InputProblem) {
    const list = Array.isArray(problems) ? problems : [problems];
    super(list.map(formatProblem).join('\n'));
    this.name = 'InputError';
    this.problems = list;
  }
}

export function formatProblem(p: InputProblem): string {
  return `${placeText(p)}: ${p.what} — ${p.todo}`;
}

/** Where a problem (or what it is about) is: `file:line:col`, or the file (or flag) alone. */
export const placeText = (p: Pick<InputProblem, 'file' | 'line' | 'col'>): string =>
  p.line !== undefined ? `${p.file}:${p.line}:${p.col ?? 1}` : p.file;

/** Collects problems across many files so the user sees all of them in one go. */
export class ProblemList {
  readonly items: InputProblem[] = [];

  add(p: InputProblem): void {
    this.items.push(p);
  }

  /** Runs `fn`, folding any InputError it throws into this list. */
  collect<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (e) {
      if (e instanceof InputError) {
        this.items.push(...e.problems);
        return undefined;
      }
      throw e;
    }
  }

  throwIfAny(): void {
    if (this.items.length) throw new InputError(this.items);
  }
}
