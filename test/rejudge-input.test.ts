import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rejudgeMarkdown, rejudgeTerminal, type RejudgeReportInput } from '../src/report/rejudge.js';
import { runInProcess, testEnv } from './helpers.js';
import { damagedRun, rejudge } from './rejudge-fixture.js';

/**
 * `rejudge` of a damaged run folder or with bad labels: each is refused in one line naming the file and what to do,
 * exit 2, before any judge trial is spent (no `rejudge/` folder is made). The runs are written by hand, as if
 * simulated, so even a rejudge that went ahead would ask only the simulator on loopback.
 */

/** Whether a rejudge step was started: its folder made under the run's `rejudge/`. */
const madeRejudge = (dir: string) => existsSync(join(dir, 'rejudge')) && statSync(join(dir, 'rejudge')).isDirectory();

const metas = (step: string) => readdirSync(join(step, 'trials')).map((c) => join(step, 'trials', c, 'ablation', '1.meta.json'));

describe('rejudge refuses damaged judge files and bad labels before spending anything', () => {
  it.each<[string, (r: { root: string; dir: string; step: string }) => void, RegExp, string[]?, (() => string)?]>([
    [
      "a file where the run's judge folder belongs",
      ({ dir }) => {
        rmSync(join(dir, 'judge'), { recursive: true });
        writeFileSync(join(dir, 'judge'), 'x');
      },
      /judged\/judge: not a folder: the run's judge answers are kept in a folder of that name — move the file away, then `skillprobe run --resume .*judged` asks the judge again$/,
    ],
    [
      "damaged judge trial metas (every one of the step's)",
      ({ step }) => metas(step).forEach((m) => writeFileSync(m, '{')),
      /judged\/judge\/step-1\/trials\/.*\/ablation\/1\.meta\.json: .* \(and 4 more judge files like it\): the judge's stored answers cannot all be read — restore it, or remove its judge step folder \(.*judged\/judge\/step-1\), then `skillprobe run --resume/,
    ],
    [
      "one judge trial's transcript gone",
      ({ step }) => rmSync(metas(step)[0]!.replace('.meta.json', '.jsonl')),
      /judged\/judge\/step-1\/trials\/.*\/ablation\/1\.meta\.json: meta\.json without its transcript: the judge's stored answers cannot all be read — /,
    ],
    [
      "a judge step's run.json missing",
      ({ step }) => rmSync(join(step, 'run.json')),
      /judged\/judge\/step-1\/run\.json: missing: the judge step holds no readable run: the judge's stored answers cannot all be read — restore it/,
    ],
    [
      "a judge step's run.json garbled",
      ({ step }) => writeFileSync(join(step, 'run.json'), '{"version": 3, "runId": '),
      /judged\/judge\/step-1\/run\.json: run\.json .*: the judge's stored answers cannot all be read — restore it/,
    ],
    [
      'a file where the rejudge folder belongs',
      ({ dir }) => writeFileSync(join(dir, 'rejudge'), 'x'),
      /judged\/rejudge: not a folder: rejudge keeps each of its runs in a folder of that name — move the file away, then rejudge again$/,
    ],
    [
      'labels that are not YAML',
      ({ root }) => writeFileSync(join(root, 'labels.yaml'), '- { case: judged, n: 1\n'),
      /labels\.yaml:\d+:\d+: .* — /,
      ['--labels', 'labels.yaml'],
    ],
    [
      'labels with a label other than yes or no',
      ({ root }) => writeFileSync(join(root, 'labels.yaml'), '- { case: judged, n: 1, item: "Does it say done?", label: maybe }\n'),
      /labels\.yaml:1:\d+: .*label.* — /,
      ['--labels', 'labels.yaml'],
    ],
    [
      'an empty labels file',
      ({ root }) => writeFileSync(join(root, 'labels.yaml'), '[]\n'),
      /labels\.yaml.*: .*holds no labels/,
      ['--labels', 'labels.yaml'],
    ],
    ['a labels file that is missing', () => undefined, /labels\.yaml: labels file not found — /, ['--labels', 'labels.yaml']],
    [
      'stored answers none of which is readable',
      () => undefined,
      /judged\/judge: none of the judge's 2 stored answers has a readable YES or NO: nothing to compare a new answer with — /,
      [],
      () => 'I would rather not say.',
    ],
  ])('%s: one line, exit 2, nothing asked', async (_, damage, message, more = [], reply) => {
    const { root, dir } = await damagedRun(damage, reply);
    const r = await rejudge(root, dir, ...more);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/at .*\.[jt]s:\d+/);
    expect(r.exitCode).toBe(2);
    expect(madeRejudge(dir)).toBe(false);
  });

  it.each([
    [['--reporter', 'junit'], /^skillprobe: --reporter: the junit reporter has no rejudge report — use terminal, json or markdown$/],
    [['--reporter', 'html=r.html'], /^skillprobe: --reporter: the html reporter has no rejudge report — /],
    [['--draw-seed', '7'], /^skillprobe: --draw-seed: seeds the model simulator's draws, and this rejudge has no simulator — add --sim/],
  ])('%j: refused in one line, exit 2, nothing asked', async (flags, message) => {
    const { root, dir } = await damagedRun(() => undefined);
    const r = await runInProcess(['rejudge', dir, ...(flags[0] === '--draw-seed' ? [] : ['--sim', 'sim.yaml']), ...flags], {
      cwd: root,
      env: testEnv(),
    });
    expect(r.stderr).toMatch(message);
    expect(r.exitCode).toBe(2);
    expect(madeRejudge(dir)).toBe(false);
  });
});

describe('rejudge text', () => {
  it('says there was nothing to compare, never NaN, when no pair was readable', () => {
    const none = { successes: 0, n: 0, p: Number.NaN, lo: 0, hi: 1 };
    const r: RejudgeReportInput = {
      dir: 'runs/r/rejudge/x',
      requests: 2,
      samples: 3,
      status: 'completed',
      flip: { errorPairs: 6, changed: none, flipRate: { e: Number.NaN, lo: 0, hi: 0.5 }, verdicts: none, verdictErrors: 2 },
    };
    const text = rejudgeTerminal(r);
    expect(text).not.toContain('NaN');
    expect(text).toContain('answers changed: 0 of 0 paired samples, none to compare · 6 pairs with an unreadable reply left out');
    expect(text).toContain('per-sample flip rate: none to compare');
    // The markdown report says the same figures, a bullet each.
    const markdown = rejudgeMarkdown(r);
    expect(markdown).not.toContain('NaN');
    expect(markdown).toContain('\n- answers changed: 0 of 0 paired samples, none to compare · 6 pairs with an unreadable reply left out\n');
    expect(markdown.split('\n')[0]).toBe(
      '## skillprobe rejudge · 2 stored judge requests asked again, 3 samples each (completed) → runs/r/rejudge/x',
    );
  });
});
