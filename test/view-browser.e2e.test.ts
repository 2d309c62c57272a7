import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABELS_FILE, labelsSchema } from '../src/runner/labels.js';
import { startView } from '../src/commands/view.js';
import { cleanup, runInProcess, testEnv } from './helpers.js';
import { CHROMIUM, hasBrowser, launchChromium, watchPage } from './headless-chromium.js';
import { INJECTION, landTrial, VIEW_RUNS, viewTranscripts } from './view-fixture.js';

/**
 * `skillprobe view` in a real headless browser, served as the command serves it: the list and its filter, a run, a
 * running run as its trials land, a case's trend, a compare picked in the list, a trial's timeline, and labels given
 * in the page, then read by `rejudge --labels` (the judge asked again through the real CLI, on the simulator).
 * Screenshots go to test/artifacts/ for a person to look at; nothing checks them in.
 */
const ARTIFACTS = join(import.meta.dirname, 'artifacts');

if (!hasBrowser) console.warn(`view-browser: ${CHROMIUM} is missing, so the browser tests of skillprobe view are skipped`);

describe.skipIf(!hasBrowser)('skillprobe view in a real headless browser', () => {
  let root: string;
  let dir: string;
  let browser: Browser;
  let view: Awaited<ReturnType<typeof startView>>;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'sp-view-browser-'));
    dir = await viewTranscripts(root);
    mkdirSync(ARTIFACTS, { recursive: true });
    view = await startView({ transcriptsDir: 'transcripts', cwd: root, labeller: 'ada' }, 0);
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await view?.stop();
    cleanup(root);
  });

  /** A page of the view; everything but the view's own address is a problem. */
  async function open(path: string): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = watchPage(page, (url) => url.startsWith(view.url) || url.startsWith('data:'));
    await page.goto(new URL(path, view.url).href, { waitUntil: 'load' });
    return { page, problems };
  }

  const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `view-${name}.png`), fullPage: true });

  it('lists the runs, filters them, and opens a run with its report framed', async () => {
    const { page, problems } = await open('/');
    expect(await page.locator('table.runs tbody tr').count()).toBe(5);
    await expect(page.locator(`tr[data-run="${VIEW_RUNS.damaged}"] .problem`).textContent()).resolves.toContain('not valid JSON');
    await shot(page, 'list');
    await page.fill('input[name=q]', 'opus');
    await page.press('input[name=q]', 'Enter');
    await page.waitForURL(/q=opus/);
    expect(await page.locator('table.runs tbody tr').count()).toBe(1);
    await page.click(`tr[data-run="${VIEW_RUNS.newer}"] th a`);
    const report = page.frameLocator('iframe.report');
    await expect(report.locator('.tile[data-verdict="FAIL"] .count').textContent()).resolves.toBe('2');
    await shot(page, 'run');
    expect(problems, problems.join('\n')).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows a running run’s new trial within two seconds of it landing', async () => {
    const { page, problems } = await open(`/run?id=${VIEW_RUNS.running}`);
    const report = page.frameLocator('iframe.report');
    await expect(report.locator('.trial-n').allTextContents()).resolves.toEqual(['#1']);
    const landed = Date.now();
    await landTrial(dir, 2);
    await report.locator('.trial-n', { hasText: '#2' }).waitFor({ timeout: 2000 });
    console.log(`view: a landed trial shown after ${Date.now() - landed} ms`);
    await expect(page.locator('[data-live]').textContent()).resolves.toContain('updated');
    expect(problems, problems.join('\n')).toEqual([]);
    await page.close();
  }, 60_000);

  it('draws a case across runs, annotated with what changed', async () => {
    const { page, problems } = await open('/case?id=login');
    expect(await page.locator('svg.trend circle.est').count()).toBe(2);
    await expect(page.locator('svg.trend text.changed').textContent()).resolves.toBe('model');
    await expect(page.locator(`tr[data-run="${VIEW_RUNS.newer}"] .changes`).textContent()).resolves.toBe(
      'model claude-sonnet-4-5 → claude-opus-4-1',
    );
    await shot(page, 'trend');
    expect(problems, problems.join('\n')).toEqual([]);
    await page.close();
  }, 60_000);

  it('compares the pair picked in the list', async () => {
    const { page, problems } = await open('/');
    await page.check(`input[name=base][value="${VIEW_RUNS.older}"]`);
    await page.check(`input[name=candidate][value="${VIEW_RUNS.newer}"]`);
    await page.click('button:has-text("compare")');
    await page.waitForURL(/\/compare\?/);
    const report = page.frameLocator('iframe.report');
    await expect(report.locator('.tile[data-change="REGRESSED"] .count').textContent()).resolves.toBe('1');
    await shot(page, 'compare');
    expect(problems, problems.join('\n')).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows a trial as a timeline beside its raw stream, what it holds as text', async () => {
    const { page, problems } = await open(`/trial?id=${VIEW_RUNS.newer}&case=login&arm=skill&n=1`);
    await expect(page.locator('.timeline .ev.src-assistant pre').last().textContent()).resolves.toContain(INJECTION);
    await expect(page.locator('pre.raw').textContent()).resolves.toContain('onerror=alert(1)');
    expect(await page.locator('img').count()).toBe(0);
    await shot(page, 'trial');
    expect(problems, problems.join('\n')).toEqual([]);
    await page.close();
  }, 60_000);

  it('takes labels in the page, which rejudge --labels reads and answers with κ', async () => {
    const { page, problems } = await open(`/trial?id=${VIEW_RUNS.judged}&case=judged&arm=skill&n=1`);
    for (const [n, label] of [
      [1, 'yes'],
      [2, 'no'],
      [3, 'yes'],
    ] as const) {
      await page.goto(new URL(`/trial?id=${VIEW_RUNS.judged}&case=judged&arm=skill&n=${n}`, view.url).href);
      await page.check(`fieldset.label input[value=${label}]`);
      if (n === 2) await page.fill('fieldset.label input[type=text]', 'it said done before it was');
      await page.click('button:has-text("save labels")');
      await page.waitForURL(new RegExp(`n=${n}$`));
      await expect(page.locator(`fieldset.label input[value=${label}]`).isChecked()).resolves.toBe(true);
    }
    // The judge said yes to every trial; people said no once: κ is 0 (one answer throughout agrees only by chance).
    await expect(page.locator('[data-agreement]').textContent()).resolves.toMatch(/Cohen's κ 0\.00 \[-?\d\.\d\d, \d\.\d\d\] over 3 items/);
    await shot(page, 'labels');
    expect(problems, problems.join('\n')).toEqual([]);
    await page.close();

    const labels = labelsSchema.parse(parse(readFileSync(join(dir, LABELS_FILE), 'utf8')));
    expect(labels.map((l) => [l.n, l.label, l.by])).toEqual([
      [1, 'yes', 'ada'],
      [2, 'no', 'ada'],
      [3, 'yes', 'ada'],
    ]);
    const r = await runInProcess(['rejudge', VIEW_RUNS.judged, '--sim', 'sim.yaml', '--labels', LABELS_FILE], { cwd: dir, env: testEnv() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/labels \(labels\.yaml\): Cohen's κ 0\.00 \[.*\] over 3 items/);
  }, 120_000);
});
