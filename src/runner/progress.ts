import cliProgress from 'cli-progress';
import { plural } from '../util/text.js';
import type { TrialRef } from '../run/schema.js';

/** Where a run stands, for progress output. */
export interface ProgressState {
  done: number;
  /**
   * Trials the run is expected to take: exact for a fixed design; for sequential ones the exact expectation from
   * where each case stands, when its rate sits at a threshold (p0 or p1, whichever takes longer).
   */
  expectedTotal: number;
  /** The most it can take: every undecided case to its design's maximum. */
  plannedTotal: number;
  decided: number;
  cases: number;
  /** Scored skill-arm failures (the ablation arm is expected to fail its plan checks). */
  failures: number;
  /** Trials that may run at once now. */
  limit?: number;
  /** Seconds left, from the measured trial durations, the limit and the trials expected to remain. */
  etaSeconds?: number;
  /** What the CLI reported spending so far, and that projected to the expected end. */
  cost?: { spentUsd: number; projectedUsd: number };
}

/** Progress of a run: a live bar on a terminal, one plain line per trial otherwise (CI logs). */
export interface Progress {
  start(state: ProgressState): void;
  /** `verdict` is the trial's graded result in words: pass, fail and why, or not scored and why. */
  trialDone(ref: TrialRef, verdict: string, wallMs: number, state: ProgressState): void;
  /** A line about the run itself (the concurrency limit changed, and why). */
  note(text: string): void;
  stop(): void;
}

/** Seconds as a short duration: 45s, 3m05s, 1h02m. */
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** The pace of the run, where known: the ETA, the limit when it is not 2 fixed, the spend and its projection. */
function paceText(s: ProgressState): string {
  return [
    s.etaSeconds !== undefined ? `ETA ${duration(s.etaSeconds)}` : undefined,
    s.cost ? `$${s.cost.spentUsd.toFixed(2)} → ~$${s.cost.projectedUsd.toFixed(2)}` : undefined,
  ]
    .filter(Boolean)
    .map((t) => ` · ${t}`)
    .join('');
}

const trialName = (ref: TrialRef) => `${ref.caseId}/${ref.arm}#${ref.n}`;

/** Cuts `text` to `width` characters, marking the cut. */
export function fit(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

function barValues(s: ProgressState) {
  return {
    total: Math.max(s.expectedTotal, s.done),
    decided: `${s.decided}/${s.cases}`,
    failures: s.failures,
    remaining: s.etaSeconds === undefined ? '—' : duration(s.etaSeconds),
    limit: s.limit ?? '—',
  };
}

const BAR_SIZE = 12;
const BAR_FORMAT = '{bar} {value}/~{total} trials · {decided} decided · ETA {remaining} · ×{limit} · {failures} failed · {last}';

/** How wide the bar line is without the last trial's text (an ETA is at most 6 characters, e.g. "1h02m"). */
function fixedWidth(s: ProgressState): number {
  const v = barValues(s);
  return BAR_FORMAT.replace('{bar}', ' '.repeat(BAR_SIZE))
    .replace('{value}', String(s.done))
    .replace('{total}', String(v.total))
    .replace('{decided}', v.decided)
    .replace('{remaining}', '000000')
    .replace('{limit}', String(v.limit))
    .replace('{failures}', String(v.failures))
    .replace('{last}', '').length;
}

/**
 * What the run expects to take, said as what it is: before any trial nothing is known of a case's rate, so the
 * expectation is the one at its threshold, where a sequential design is slowest; the counts below update it.
 */
export function startLine(s: ProgressState): string {
  if (s.plannedTotal <= s.expectedTotal) return `running ${plural(s.expectedTotal, 'trial')} over ${plural(s.cases, 'case')}\n`;
  return (
    `running about ${plural(s.expectedTotal, 'trial')} over ${plural(s.cases, 'case')} (at most ${s.plannedTotal}; updated as cases decide)\n` +
    `  ${s.expectedTotal} is the designs' expected number if each case's rate sits at its threshold: fewer the further it is from one\n`
  );
}

/** Where progress is shown: a terminal gets a bar, anything else a line a trial. */
export type ProgressStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export function createProgress(stream: ProgressStream): Progress {
  if (stream.isTTY) {
    const width = () => stream.columns || 100;
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: BAR_FORMAT,
        barsize: BAR_SIZE,
        hideCursor: true,
        clearOnComplete: false,
        etaBuffer: 20,
        // The line is fitted to the terminal here (100 columns when it does not report its width); cli-progress's own
        // fallback would cut it at 80.
        linewrap: false,
      },
      cliProgress.Presets.shades_classic,
    );
    return {
      start: (s) => bar.start(Math.max(1, s.expectedTotal), 0, { ...barValues(s), last: '' }),
      trialDone: (ref, verdict, _wallMs, s) => {
        bar.setTotal(Math.max(1, s.expectedTotal, s.done));
        bar.update(s.done, { ...barValues(s), last: fit(`${trialName(ref)} ${verdict}`, Math.max(10, width() - fixedWidth(s) - 1)) });
      },
      // The bar shows the limit; a change's reason stays in run.json's trace.
      note: () => {},
      stop: () => bar.stop(),
    };
  }
  return {
    start: (s) => stream.write(startLine(s)),
    trialDone: (ref, verdict, wallMs, s) =>
      stream.write(
        `[${s.done}/~${Math.max(s.expectedTotal, s.done)} · ${s.decided}/${s.cases} decided] ${trialName(ref)}: ${fit(verdict, 160)} · ${wallMs} ms · ${s.failures} failed so far${paceText(s)}\n`,
      ),
    note: (text) => stream.write(`${text}\n`),
    stop: () => {},
  };
}
