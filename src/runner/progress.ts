import cliProgress from 'cli-progress';
import type { TrialRecord } from './trial.js';

/** Progress of a run: a live bar on a terminal, one plain line per trial otherwise (CI logs). */
export interface Progress {
  start(total: number): void;
  trialDone(r: TrialRecord, done: number, failures: number): void;
  setTotal(total: number): void;
  stop(): void;
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: 'trials {bar} {value}/{total} | ETA {eta_formatted} | failures so far {failures} | {last}',
        hideCursor: true,
        clearOnComplete: false,
        etaBuffer: 20,
      },
      cliProgress.Presets.shades_classic,
    );
    return {
      start: (total) => bar.start(total, 0, { failures: 0, last: '' }),
      trialDone: (r, done, failures) => bar.update(done, { failures, last: `${r.ref.caseId}/${r.ref.arm}#${r.ref.n} ${r.status}` }),
      setTotal: (total) => bar.setTotal(total),
      stop: () => bar.stop(),
    };
  }
  let total = 0;
  return {
    start: (t) => {
      total = t;
      stream.write(`running ${t} trials\n`);
    },
    trialDone: (r, done, failures) =>
      stream.write(
        `[${done}/${total}] ${r.ref.caseId} ${r.ref.arm} #${r.ref.n}: ${r.status}${r.detail ? ` (${r.detail.slice(0, 100)})` : ''} ${r.meta.wallMs} ms; failures so far ${failures}\n`,
      ),
    setTotal: (t) => {
      total = t;
    },
    stop: () => {},
  };
}
