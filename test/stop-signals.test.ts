import { afterEach, describe, expect, it } from 'vitest';
import { onStopSignals } from '../src/runner/signals.js';

/**
 * Which signals stop a run, and how a second one forces it, in this process (`process.emit` calls the handlers
 * without a signal sent). One signal's whole stop, through the real CLI, is in faults.e2e.test.ts (SIGHUP) and
 * resume.e2e.test.ts (Ctrl-C); this table carries that every stop signal takes that path.
 */
describe('onStopSignals: Ctrl-C, kill and a closed terminal all stop a run; any second one forces it', () => {
  let remove: (() => void) | undefined;
  const FORCED = 'forced exit';
  /** The forced stop never returns (it exits the process): here it throws instead. */
  const forceExit = (calls: string[]) => (): never => {
    calls.push('force');
    throw new Error(FORCED);
  };
  afterEach(() => remove?.());

  const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  it.each(SIGNALS.flatMap((first) => SIGNALS.map((second) => [first, second] as const)))(
    '%s stops gracefully, then %s forces',
    (first, second) => {
      const calls: string[] = [];
      remove = onStopSignals(() => calls.push('stop'), forceExit(calls));
      process.emit(first);
      expect(calls).toEqual(['stop']);
      expect(() => process.emit(second)).toThrow(FORCED);
      expect(calls).toEqual(['stop', 'force']);
    },
  );

  it('once removed, a signal reaches none of its handlers', () => {
    const calls: string[] = [];
    onStopSignals(() => calls.push('stop'), forceExit(calls))();
    // Another listener stands in for Node's default, which would end the test process.
    const keep = () => {};
    process.on('SIGHUP', keep);
    process.emit('SIGHUP');
    process.off('SIGHUP', keep);
    expect(calls).toEqual([]);
  });
});
