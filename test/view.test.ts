import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EVENTS_PER_PAGE, RAW_PAGE_BYTES, RUNS_PER_PAGE, startView, VIEW_INDEX_FILE, viewApp } from '../src/commands/view.js';
import { LABELS_FILE, labelsSchema } from '../src/runner/labels.js';
import { href } from '../src/report/html/view-pages.js';
import { execa } from 'execa';
import { CLI, cleanup, runInProcess, testEnv } from './helpers.js';
import { JUDGED_ITEM } from './judged-run-fixture.js';
import { storeSyntheticRun, syntheticRun } from './run-fixtures.js';
import { CLIMBING_MUTANT, INJECTION, landTrial, VIEW_RUNS, viewTranscripts } from './view-fixture.js';

const PORT = 4321;
const HOST = `127.0.0.1:${PORT}`;
const ORIGIN = `http://${HOST}`;
const HUGE = 50 * 1024 * 1024;

let root: string;
let dir: string;
let app: ReturnType<typeof viewApp>;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'sp-view-'));
  dir = await viewTranscripts(root, { hugeBytes: HUGE, records: true });
  app = viewApp({
    transcriptsDir: 'transcripts',
    cwd: root,
    labeller: 'ada',
    port: () => PORT,
    now: () => new Date('2026-12-04T10:00:00Z'),
  });
}, 60_000);
afterAll(() => cleanup(root));

const get = (path: string, headers: Record<string, string> = {}) => app.request(path, { headers: { host: HOST, ...headers } });
const page = async (path: string) => {
  const r = await get(path);
  return { status: r.status, text: await r.text() };
};
const q = href;
const post = (form: Record<string, string>, headers: Record<string, string> = { origin: ORIGIN }) =>
  app.request('/labels', {
    method: 'POST',
    body: new URLSearchParams(form),
    headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });

describe('the runs list', () => {
  it('lists every run newest first with agent, model, status and verdicts, and names the damaged one and why', async () => {
    const { status, text } = await page('/');
    expect(status).toBe(200);
    const order = [VIEW_RUNS.judged, VIEW_RUNS.running, VIEW_RUNS.damaged, VIEW_RUNS.newer, VIEW_RUNS.older, VIEW_RUNS.huge].map((id) =>
      text.indexOf(`data-run="${id}"`),
    );
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toMatch(/claude-code 2\.1\.197 · claude-opus-4-1/);
    expect(text).toContain('running');
    expect(text).toMatch(/run\.json: run\.json not valid JSON/);
    expect(text).toContain('judged');
  });

  it('filters by any word of a run: a model, a status, a kind', async () => {
    const opus = await page('/?q=opus');
    expect(opus.text).toContain(`data-run="${VIEW_RUNS.newer}"`);
    expect(opus.text).not.toContain(`data-run="${VIEW_RUNS.older}"`);
    const judged = await page('/?q=judged');
    expect(judged.text).toContain(`data-run="${VIEW_RUNS.judged}"`);
    expect(judged.text).not.toContain(`data-run="${VIEW_RUNS.newer}"`);
    expect((await page('/?q=running')).text).toContain(`data-run="${VIEW_RUNS.running}"`);
  });

  it('serves its one script and a content security policy that allows only its own scripts', async () => {
    const r = await get('/view.js');
    expect(r.headers.get('content-type')).toMatch(/javascript/);
    expect((await get('/')).headers.get('content-security-policy')).toMatch(/script-src 'self'/);
  });
});

describe('refusals: another Host, a post from elsewhere, a path outside the folder', () => {
  it.each([['evil.example:4321'], ['127.0.0.1:9999'], ['']])('refuses Host %j (DNS rebinding)', async (host) => {
    const r = await app.request('/', { headers: host ? { host } : {} });
    expect(r.status).toBe(403);
  });

  it('accepts localhost by its name', async () => {
    expect((await get('/', { host: `localhost:${PORT}` })).status).toBe(200);
  });

  it.each([[{}], [{ origin: 'http://evil.example' }], [{ origin: `http://127.0.0.1:${PORT + 1}` }]])(
    'refuses a label post with origin %j (CSRF), writing nothing',
    async (headers) => {
      const r = await post({ id: VIEW_RUNS.judged, case: 'judged', arm: 'skill', n: '1', label0: 'no' }, headers);
      expect(r.status).toBe(403);
    },
  );

  it.each([
    ['/run', { id: '../../etc' }],
    ['/run', { id: '/etc' }],
    ['/run/report', { id: '..' }],
    ['/trial', { id: VIEW_RUNS.newer, case: '../../..', arm: 'skill', n: 1 }],
    ['/trial', { id: VIEW_RUNS.newer, case: 'login', arm: '../skill', n: 1 }],
    ['/trial', { id: VIEW_RUNS.newer, case: 'login', arm: 'skill', n: '1/../../2' }],
    ['/compare', { base: VIEW_RUNS.newer, candidate: '../x' }],
    ['/tune', { id: '../transcripts' }],
  ])('refuses %s %j: not a run or trial the folder holds', async (path, query) => {
    const { status, text } = await page(q(path, query));
    expect(status).toBe(404);
    expect(text).toContain('data-problem');
  });
});

describe('a run', () => {
  it("frames today's html report of the run", async () => {
    const shell = await page(q('/run', { id: VIEW_RUNS.newer }));
    expect(shell.text).toContain(`src="/run/report?id=${VIEW_RUNS.newer}"`);
    expect(shell.text).not.toContain('data-stamp-url');
    const report = await page(q('/run/report', { id: VIEW_RUNS.newer }));
    expect(report.text).toMatch(/class="tile[^"]*"[^>]*data-verdict="FAIL"/);
    expect(report.text).toContain('claude-opus-4-1');
  });

  it('names a damaged run folder and what to do, and keeps serving', async () => {
    const { status, text } = await page(q('/run', { id: VIEW_RUNS.damaged }));
    expect(status).toBe(422);
    expect(text).toMatch(/run\.json not valid JSON .* restore run\.json/);
    expect((await page('/')).status).toBe(200);
  });

  it('follows a running run: its stamp changes when a trial lands', async () => {
    const shell = await page(q('/run', { id: VIEW_RUNS.running }));
    expect(shell.text).toContain('data-stamp-url');
    const before = await (await get(q('/run/stamp', { id: VIEW_RUNS.running }))).text();
    expect(before).toMatch(/^1 /);
    await landTrial(dir, 2);
    const after = await (await get(q('/run/stamp', { id: VIEW_RUNS.running }))).text();
    expect(after).toMatch(/^2 /);
    expect((await page(q('/run/report', { id: VIEW_RUNS.running }))).text).toMatch(/2 trials|trial-n">#2/);
  });
});

describe('a trial', () => {
  it('shows what a transcript holds as text, never as markup', async () => {
    const { text } = await page(q('/trial', { id: VIEW_RUNS.newer, case: 'login', arm: 'skill', n: 1 }));
    expect(text).not.toContain(INJECTION);
    expect(text).not.toContain('<img');
    expect(text).toContain('&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(text).toContain('Raw stream');
  });

  it(`pages a ${HUGE / 1024 / 1024} MB transcript: the raw stream ${RAW_PAGE_BYTES / 1024} KiB at a time, the timeline by events`, async () => {
    const at = { id: VIEW_RUNS.huge, case: 'huge', arm: 'skill', n: 1 };
    const first = await page(q('/trial', at));
    expect(first.status).toBe(200);
    expect(first.text.length).toBeLessThan(3 * RAW_PAGE_BYTES + EVENTS_PER_PAGE * 6000);
    const next = /href="([^"]*offset=(\d+)[^"]*)" rel="next"/.exec(first.text)!;
    expect(Number(next[2])).toBeGreaterThan(RAW_PAGE_BYTES - 5000);
    expect(Number(next[2])).toBeLessThanOrEqual(RAW_PAGE_BYTES);
    expect(first.text).toMatch(new RegExp(`events 1–${EVENTS_PER_PAGE} of \\d+`));
    const second = await page(q('/trial', { ...at, offset: next[2]! }));
    expect(second.text).toContain(`bytes ${next[2]}–`);
  }, 60_000);
});

describe('a case across runs', () => {
  it('gives its rate in each run with an interval, annotated with what changed', async () => {
    const { text } = await page(q('/case', { id: 'login' }));
    expect(text).toContain('across 2 runs');
    expect(text).toContain('model claude-sonnet-4-5 → claude-opus-4-1');
    expect(text).toMatch(/0\.90 \[0\.\d\d, 0\.\d\d\]/);
    expect(text).toContain('<svg class="chart trend"');
  });

  it("gives each run's rate in the words history --case prints", async () => {
    const cells = (await page(q('/case', { id: 'search' }))).text.match(/<tr data-run="[^"]+">.*?<\/tr>/g)!;
    const printed = await runInProcess(['history', '--transcripts', 'transcripts', '--case', 'search'], { cwd: root, env: testEnv() });
    for (const row of cells) {
      const rate = /<td>(\d\.\d\d \[[^<]*)<\/td>/.exec(row)![1]!;
      expect(printed.stdout).toContain(rate);
    }
    expect(cells).toHaveLength(2);
  });

  it('says so for a case no run has', async () => {
    expect((await page(q('/case', { id: 'nope<b>' }))).text).toContain('no graded run has a case of this id');
  });
});

describe('compare', () => {
  it("frames compare's page for the pair picked", async () => {
    const shell = await page(q('/compare', { base: VIEW_RUNS.older, candidate: VIEW_RUNS.newer }));
    expect(shell.text).toContain('/compare/report?');
    const report = await page(q('/compare/report', { base: VIEW_RUNS.older, candidate: VIEW_RUNS.newer }));
    expect(report.text).toMatch(/data-change="REGRESSED"/);
  });

  it('asks for two runs when one is missing', async () => {
    expect((await page(q('/compare', { base: VIEW_RUNS.older }))).status).toBe(400);
  });
});

describe('labels', () => {
  it('writes labels in the format rejudge --labels reads, with who and when, and shows the agreement so far', async () => {
    const at = { id: VIEW_RUNS.judged, case: 'judged', arm: 'skill', n: 1 };
    const before = await page(q('/trial', at));
    expect(before.text).toContain(JUDGED_ITEM);
    expect(before.text).toContain('0 matched · κ undefined: no labels');
    for (const [n, label] of [
      [1, 'yes'],
      [2, 'no'],
      [3, 'yes'],
    ] as const) {
      const r = await post({
        ...at,
        n: String(n),
        label0: label,
        note0: n === 2 ? 'it never said <done>' : '',
        by: n === 3 ? 'grace' : '',
      });
      expect(r.status).toBe(303);
      expect(r.headers.get('location')).toBe(q('/trial', { ...at, n }));
    }
    const file = join(dir, LABELS_FILE);
    const labels = labelsSchema.parse(parse(readFileSync(file, 'utf8')));
    expect(labels).toHaveLength(3);
    expect(labels[1]).toEqual({
      run: 'judged',
      case: 'judged',
      arm: 'skill',
      n: 2,
      item: JUDGED_ITEM,
      label: 'no',
      note: 'it never said <done>',
      by: 'ada',
      at: '2026-12-04T10:00:00.000Z',
    });
    expect(labels[2]!.by).toBe('grace');
    // The judge said yes to all three: a person saying no once leaves κ undefined only if all labels agree in class.
    const after = await page(q('/trial', { ...at, n: 2 }));
    expect(after.text).toMatch(/Cohen&#39;s κ|Cohen's κ/);
    expect(after.text).toMatch(/value="no" checked/);
    expect(after.text).toContain('it never said &lt;done&gt;');
  });

  it('changes a label in place when a person changes their mind', async () => {
    await post({ id: VIEW_RUNS.judged, case: 'judged', arm: 'skill', n: '2', label0: 'yes' });
    const labels = labelsSchema.parse(parse(readFileSync(join(dir, LABELS_FILE), 'utf8')));
    expect(labels.filter((l) => l.n === 2).map((l) => l.label)).toEqual(['yes']);
  });

  it('refuses to label a trial with no judge, and leaves a damaged labels file as it is', async () => {
    const r = await post({ id: VIEW_RUNS.newer, case: 'login', arm: 'skill', n: '1', label0: 'yes' });
    expect(r.status).toBe(422);
    const file = join(dir, LABELS_FILE);
    const kept = readFileSync(file, 'utf8');
    writeFileSync(file, '- { case: judged, n: 1\n');
    const refused = await post({ id: VIEW_RUNS.judged, case: 'judged', arm: 'skill', n: '1', label0: 'yes' });
    expect(refused.status).toBe(422);
    expect(await refused.text()).toMatch(/labels\.yaml:\d+:\d+/);
    expect(readFileSync(file, 'utf8')).toBe('- { case: judged, n: 1\n');
    writeFileSync(file, kept);
  });
});

describe('a tune and a mutate in the folder', () => {
  it('lists each as one row: its kind, what came out, its trials and cost, linked to its own page', async () => {
    const { text } = await page('/');
    const row = (id: string) => new RegExp(`<tr data-run="${id}">.*?</tr>`).exec(text)?.[0] ?? '';
    expect(row(VIEW_RUNS.tune)).toContain(`href="/tune?id=${VIEW_RUNS.tune}"`);
    expect(row(VIEW_RUNS.tune)).toMatch(/completed, tune.*csv-report: IMPROVED.*>94<.*\$4\.20/);
    expect(row(VIEW_RUNS.mutate)).toContain(`href="/mutate?id=${VIEW_RUNS.mutate}"`);
    expect(row(VIEW_RUNS.mutate)).toMatch(/completed, mutate.*atl-jira: killed 1\/2.*>8</);
    // Neither is a run compare can take.
    expect(row(VIEW_RUNS.tune)).not.toContain('type="radio"');
    expect((await page('/?q=mutate')).text).toContain(`data-run="${VIEW_RUNS.mutate}"`);
  });

  it("a tune's page frames its report and links each step's run, which the view serves", async () => {
    const { status, text } = await page(q('/tune', { id: VIEW_RUNS.tune }));
    expect(status).toBe(200);
    const runs = [...text.matchAll(/href="\/run\?id=([^"]+)"/g)].map((m) => decodeURIComponent(m[1]!.replaceAll('&amp;', '&')));
    expect(runs).toEqual(
      [
        'iterations/0/tune',
        'iterations/0/select',
        'iterations/1/proposer',
        'iterations/2/proposer',
        'iterations/2/tune',
        'iterations/2/select',
        'holdout/original',
        'holdout/winner',
      ].map((d) => `${VIEW_RUNS.tune}/${d}`),
    );
    expect(text).toContain('candidate 2: select cases');
    const step = await page(q('/run', { id: `${VIEW_RUNS.tune}/holdout/winner` }));
    expect(step.status).toBe(200);
    expect((await page(q('/run/report', { id: `${VIEW_RUNS.tune}/holdout/winner` }))).text).toMatch(/data-verdict="PASS"/);
    // A step the tune never ran (refused by lint before its proposer's run was stored) is named, not a crash.
    const missing = await page(q('/run', { id: `${VIEW_RUNS.tune}/iterations/1/proposer` }));
    expect(missing.status).toBe(422);
    expect(missing.text).toContain('data-problem');
    expect((await page(q('/tune/report', { id: VIEW_RUNS.tune }))).text).toContain('Use &lt;this&gt; &amp; that');
  });

  it("a mutate's page frames its report and links the unmutated run and each mutant's, with a compare against the unmutated", async () => {
    const { status, text } = await page(q('/mutate', { id: VIEW_RUNS.mutate }));
    expect(status).toBe(200);
    expect(text).toContain(`href="/run?id=${encodeURIComponent(`${VIEW_RUNS.mutate}/original`)}"`);
    expect(text).toContain('atl-jira · skill-removed');
    expect(text).not.toContain('etc');
    const compare = /href="(\/compare\?[^"]+)">against the unmutated/.exec(text)![1]!.replaceAll('&amp;', '&');
    expect((await page(compare)).status).toBe(200);
    const report = await page(compare.replace('/compare?', '/compare/report?'));
    expect(report.text).toMatch(/data-change="REGRESSED"/);
    expect((await page(q('/mutate/report', { id: VIEW_RUNS.mutate }))).text).toMatch(/skill-removed.*killed/s);
  });

  it('refuses a run its record names outside its folder, and a tune or mutate page for a run that is neither', async () => {
    expect((await page(q('/run', { id: `${VIEW_RUNS.mutate}/${CLIMBING_MUTANT}/run` }))).status).toBe(404);
    expect((await page(q('/run', { id: `${VIEW_RUNS.mutate}/atl-jira` }))).status).toBe(404);
    expect((await page(q('/mutate', { id: VIEW_RUNS.tune }))).status).toBe(404);
    expect((await page(q('/tune', { id: VIEW_RUNS.newer }))).status).toBe(404);
    expect((await page('/')).status).toBe(200);
  });

  it("lists a run of several agents as each agent's run, each served", async () => {
    const { text } = await page('/');
    for (const id of ['claude-code', 'codex']) {
      const runId = `${VIEW_RUNS.agents}/${VIEW_RUNS.agents}-${id}`;
      expect(new RegExp(`<tr data-run="${runId}">.*?completed, several agents.*?</tr>`).test(text)).toBe(true);
      expect((await page(q('/run/report', { id: runId }))).status).toBe(200);
    }
  });

  it("keeps their runs out of a case's trend (their skills were changed on purpose)", async () => {
    expect((await page(q('/case', { id: 'login' }))).text).toContain('across 2 runs');
  });
});

/** Every file under the transcripts folder but the view's own two, with its size and time. */
const runFolderFiles = (at: string) =>
  readdirSync(at, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name !== LABELS_FILE && e.name !== VIEW_INDEX_FILE)
    .map((e) => {
      const s = statSync(join(e.parentPath, e.name));
      return `${join(e.parentPath, e.name)} ${s.size} ${s.mtimeMs}`;
    })
    .sort();

describe('over HTTP: bad input named, escaped, paged or refused, the server serving on, the run folders never written', () => {
  it('a transcript holding HTML, a 50 MB transcript, damaged folders and paths outside the folder', async () => {
    // One more damaged run: its results.json cut off, a trial's meta.json cut off, another's transcript not JSON lines.
    const cut = await storeSyntheticRun(dir, 'cut', syntheticRun({ login: { passes: 2, n: 2 } }));
    writeFileSync(join(cut, 'results.json'), '{"version": 1, "verd');
    writeFileSync(join(cut, 'trials/login/skill/1.meta.json'), '{"cut');
    writeFileSync(join(cut, 'trials/login/skill/2.jsonl'), 'not json <b>\n{"type":');
    const before = runFolderFiles(dir);
    const view = await startView({ transcriptsDir: 'transcripts', cwd: root, labeller: 'ada' }, 0);
    try {
      const asked: [string, number, RegExp][] = [
        ['/?q=claude', 200, /data-run/],
        [q('/run/report', { id: VIEW_RUNS.newer }), 200, /data-verdict/],
        [q('/compare/report', { base: VIEW_RUNS.older, candidate: VIEW_RUNS.newer }), 200, /REGRESSED/],
        [q('/case', { id: 'login' }), 200, /svg/],
        [q('/tune/report', { id: VIEW_RUNS.tune }), 200, /IMPROVED/],
        [q('/mutate/report', { id: VIEW_RUNS.mutate }), 200, /killed/],
        [
          q('/trial', { id: VIEW_RUNS.newer, case: 'login', arm: 'skill', n: 1 }),
          200,
          /&lt;\/script&gt;&lt;img src=x onerror=alert\(1\)&gt;/,
        ],
        [q('/trial', { id: VIEW_RUNS.huge, case: 'huge', arm: 'skill', n: 1 }), 200, /next page →/],
        [q('/run', { id: VIEW_RUNS.damaged }), 422, /run\.json not valid JSON/],
        [q('/run/report', { id: 'cut' }), 200, /trial-n/],
        [q('/trial', { id: 'cut', case: 'login', arm: 'skill', n: 1 }), 404, /stored but not graded: .*meta/],
        [q('/trial', { id: 'cut', case: 'login', arm: 'skill', n: 2 }), 200, /not json &lt;b&gt;/],
        [q('/run', { id: '../../etc' }), 404, /no run/],
        ['/run?id=..%2F..%2Fetc%2Fpasswd', 404, /no run/],
        [q('/run', { id: `${VIEW_RUNS.mutate}/${CLIMBING_MUTANT}/run` }), 404, /no run/],
      ];
      for (const [path, status, shown] of asked) {
        const r = await fetch(new URL(path, view.url));
        const text = await r.text();
        expect([path, r.status]).toEqual([path, status]);
        expect(text).toMatch(shown);
        expect(text).not.toMatch(/<img|\n\s+at /);
      }
      // A path outside the folder as the browser's own path, not a query: no such page.
      expect((await fetch(new URL('/../../etc/passwd', view.url))).status).toBe(404);
      const list = await (await fetch(view.url)).text();
      expect(list).toMatch(/data-run="cut".*results\.json not valid JSON/);
    } finally {
      await view.stop();
    }
    // Every page above read the run folders; none wrote in them (the labels and the index are beside them).
    expect(runFolderFiles(dir)).toEqual(before);
  }, 60_000);
});

describe('history shares the summaries', () => {
  it('prints the runs and a case across them, with what changed', async () => {
    const all = await runInProcess(['history', '--transcripts', 'transcripts'], { cwd: root, env: testEnv() });
    expect(all.exitCode).toBe(0);
    expect(all.stdout).toContain(VIEW_RUNS.older);
    expect(all.stdout).toMatch(/20261203-000000-dddddd: .*run\.json not valid JSON/);
    expect(all.stdout).toMatch(new RegExp(`${VIEW_RUNS.mutate}\\s+atl-jira: killed 1/2\\s+8\\s.*\\n.*completed, mutate`));
    expect(all.stdout).toMatch(new RegExp(`${VIEW_RUNS.tune}\\s+csv-report: IMPROVED\\s+94\\s+\\$4\\.20\\n.*completed, tune`));
    const login = await runInProcess(['history', '--transcripts', 'transcripts', '--case', 'login'], { cwd: root, env: testEnv() });
    expect(login.stdout).toContain('model claude-sonnet-4-5 → claude-opus-4-1');
  });
});

describe('the index kept beside the runs', () => {
  it('keeps the summaries read for the next start, and reads a run again once it changed', async () => {
    const file = join(dir, VIEW_INDEX_FILE);
    await page('/');
    const kept = JSON.parse(readFileSync(file, 'utf8'));
    expect(Object.keys(kept.runs)).toContain(VIEW_RUNS.newer);
    // A next start reads the newer run from the index: a summary planted there is what it lists.
    kept.runs[VIEW_RUNS.newer].summary.run.model = 'planted-model';
    writeFileSync(file, JSON.stringify(kept));
    const next = viewApp({ transcriptsDir: 'transcripts', cwd: root, labeller: 'ada', port: () => PORT });
    const listed = async () => (await next.request('/', { headers: { host: HOST } })).text();
    expect(await listed()).toContain('planted-model');
    // results.json rewritten: the stamp differs, so the run is read again.
    const results = join(dir, VIEW_RUNS.newer, 'results.json');
    writeFileSync(results, readFileSync(results, 'utf8') + '\n');
    expect(await listed()).not.toContain('planted-model');
  });
});

describe('the command', () => {
  it.each([
    ['no browser without --open', [], false],
    ['the desktop browser on its address with --open', ['--open'], true],
  ])(
    'prints its 127.0.0.1 address, serves until Ctrl-C, exits 0; %s',
    async (_, flags, opens) => {
      const bin = mkdtempSync(join(tmpdir(), 'sp-opener-'));
      const opened = join(bin, 'OPENED');
      writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\necho "$@" > '${opened}'\n`, { mode: 0o755 });
      const view = execa('node', [CLI, 'view', 'transcripts', ...flags], {
        cwd: root,
        env: testEnv({ PATH: `${bin}:${process.env.PATH}` }),
        extendEnv: false,
        reject: false,
      });
      try {
        let out = '';
        const url = await new Promise<string>((resolve) =>
          view.stdout!.on('data', (d: Buffer) => {
            out += d.toString();
            const m = /http:\/\/[^/\s]+\//.exec(out);
            if (m) resolve(m[0]);
          }),
        );
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
        expect((await fetch(url)).status).toBe(200);
        if (opens) await vi.waitFor(() => expect(readFileSync(opened, 'utf8').trim()).toBe(url), { timeout: 10_000 });
        else expect(existsSync(opened)).toBe(false);
      } finally {
        view.kill('SIGINT');
      }
      expect((await view).exitCode).toBe(0);
      cleanup(bin);
    },
    60_000,
  );
});

describe('warming', () => {
  it('reads every run a second after the first page, so a filter finds them read; never once the server stopped', async () => {
    // More runs than a page lists: copies of one run.
    const many = join(root, 'many');
    for (let i = 0; i < RUNS_PER_PAGE + 5; i++)
      cpSync(join(dir, VIEW_RUNS.older), join(many, `20261201-0000${String(i).padStart(2, '0')}-aaaaaa`), { recursive: true });
    const file = join(many, VIEW_INDEX_FILE);
    const kept = () => Object.keys(JSON.parse(readFileSync(file, 'utf8')).runs as object).length;
    const firstPage = (signal: AbortSignal) =>
      viewApp({ transcriptsDir: 'many', cwd: root, labeller: 'ada', port: () => PORT, warm: signal }).request('/', {
        headers: { host: HOST },
      });
    const stopped = new AbortController();
    await firstPage(stopped.signal);
    stopped.abort();
    await new Promise((r) => setTimeout(r, 1500));
    expect(kept()).toBe(RUNS_PER_PAGE);
    const going = new AbortController();
    await firstPage(going.signal);
    await vi.waitFor(() => expect(kept()).toBe(RUNS_PER_PAGE + 5), { timeout: 15_000, interval: 200 });
    going.abort();
  }, 30_000);
});
