import { describe, expect, it } from 'vitest';
import { type ProcessState, stateLeftBehind } from './setup/process-state.js';

// The unit pass shares its workers between files; its setup fails a file that leaves the process changed.
const state = (over: Partial<ProcessState> = {}): ProcessState => ({
  cwd: '/repo',
  env: { HOME: '/home/u', PATH: '/bin' },
  signalListeners: { SIGINT: 1, SIGTERM: 0, SIGHUP: 0 },
  ...over,
});

describe('what a test file left changed in its process', () => {
  it.each([
    ['nothing', state(), []],
    ['the working folder', state({ cwd: '/tmp/x' }), ['the working folder is /tmp/x, was /repo']],
    ['a variable set', state({ env: { HOME: '/home/u', PATH: '/bin', TZ: 'UTC' } }), ['process.env.TZ set']],
    ['a variable changed', state({ env: { HOME: '/tmp/h', PATH: '/bin' } }), ['process.env.HOME changed']],
    ['a variable removed', state({ env: { PATH: '/bin' } }), ['process.env.HOME removed']],
    ['a stop-signal listener', state({ signalListeners: { SIGINT: 1, SIGTERM: 2, SIGHUP: 0 } }), ['2 more SIGTERM listener(s)']],
    [
      'one listener fewer (what was there before is no concern of the file)',
      state({ signalListeners: { SIGINT: 0, SIGTERM: 0, SIGHUP: 0 } }),
      [],
    ],
  ])('%s', (_, after, left) => {
    expect(stateLeftBehind(state(), after)).toEqual(left);
  });
});
