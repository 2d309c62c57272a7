import { it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { htmlReporter } from '../src/report/html.js';
import { terminalReporter } from '../src/report/terminal.js';
import { markdownReporter } from '../src/report/markdown.js';
import { junitReporter } from '../src/report/junit.js';
import { designedInput, reportInput } from './report-inputs.js';
import type { TrialOutcome } from '../src/run/schema.js';
import { OUTCOMES } from './report-inputs.js';
it('x', async () => {
  // more trials for vague-sprint so the path is long
  const extra: TrialOutcome[] = Array.from({ length: 40 }, (_, i) => ({ ...OUTCOMES.find(o => o.caseId === 'vague-sprint')!, n: i + 3, passed: (i * 7) % 10 < 8 }));
  const input = designedInput('sequential', [...OUTCOMES, ...extra]);
  const page = htmlReporter.render(input);
  writeFileSync('/tmp/designed.html', page);
  writeFileSync('/tmp/wald.html', htmlReporter.render(designedInput('sprt', [...OUTCOMES, ...extra])));
  writeFileSync('/tmp/old.html', htmlReporter.render(reportInput()));
  console.log(terminalReporter(false).render(input));
  console.log(markdownReporter.render(input));
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  for (const name of ['designed', 'wald', 'old']) {
    const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await p.goto(`file:///tmp/${name}.html`);
    await p.locator('#sprt').screenshot({ path: `/tmp/${name}-sprt.png` });
    await p.locator('#cases').screenshot({ path: `/tmp/${name}-cases.png` });
  }
  await browser.close();
}, 60000);
