import pc from 'picocolors';
import type { CaseArmSummary } from '../stats/summary.js';
import { fmt, interval, table } from './format.js';
import type { ReportInput, Reporter } from './reporter.js';

type Colors = ReturnType<typeof pc.createColors>;

function statusList(s: CaseArmSummary): string {
  return Object.entries(s.statuses)
    .filter(([k]) => k !== 'ok')
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}

function firedText(s: CaseArmSummary): string {
  const f = s.fired;
  const read = f.readOnly ? ` (read-only ${f.readOnly})` : '';
  return `${f.expected}/${f.sibling}/${f.other}/${f.none}${read}`;
}

function rateCell(s: CaseArmSummary, c: Colors): string {
  if (s.rate.n === 0) return c.dim('—');
  const text = `${fmt(s.rate.p)} ${interval(s.rate)}`;
  return s.rate.p === 1 ? c.green(text) : s.rate.p < 0.5 ? c.red(text) : c.yellow(text);
}

function caseTable(rows: CaseArmSummary[], c: Colors): string {
  const head = ['case', 'tags', 'expect', 'n', 'pass', 'rate [CI]', 'pass@3', 'pass^3', 'fired exp/sib/oth/none', 'plan fail', 'not scored'];
  const body = rows.map((s) => {
    const k3 = s.passK.find((p) => p.k === Math.min(3, s.rate.n));
    return [
      s.caseId,
      s.tags.join(',') || '-',
      s.expect,
      String(s.rate.n),
      String(s.rate.successes),
      rateCell(s, c),
      k3 ? fmt(k3.passAtK) : '—',
      k3 ? fmt(k3.passHatK) : '—',
      firedText(s),
      String(s.planFailures),
      s.excluded ? `${s.excluded}${statusList(s) ? ` (${statusList(s)})` : ''}` : '0',
    ];
  });
  return table([head.map((h) => c.bold(h)), ...body], ['l', 'l', 'l', 'r', 'r', 'l', 'r', 'r', 'l', 'r', 'l']);
}

/** Every k ≤ n, ten to a line: `.77` style keeps the rows short. */
function passKBlock(rows: CaseArmSummary[]): string {
  const short = (x: number) => fmt(x).replace(/^0\./, '.');
  const width = Math.max(...rows.map((s) => s.caseId.length));
  return rows
    .filter((s) => s.passK.length)
    .flatMap((s) => {
      const cells = s.passK.map((p) => `k=${p.k} ${short(p.passAtK)}/${short(p.passHatK)}`.padEnd(16));
      const lines: string[] = [];
      for (let i = 0; i < cells.length; i += 10) lines.push(`  ${(i === 0 ? s.caseId : '').padEnd(width)}  ${cells.slice(i, i + 10).join('').trimEnd()}`);
      return lines;
    })
    .join('\n');
}

const VERDICT_COLOUR = { PASS: 'green', FAIL: 'red', INCONCLUSIVE: 'yellow', ERROR: 'magenta' } as const;

function verdictBlock(results: ReportInput['results'], mode: string, c: Colors): string {
  const rateOf = new Map(results.summary.cases.filter((s) => s.arm === 'skill').map((s) => [s.caseId, s]));
  const rows = results.verdicts.map((v) => {
    const s = rateOf.get(v.caseId);
    const rate = s && s.rate.n ? `${fmt(s.rate.p)} ${interval(s.rate)}${v.descriptiveInterval ? '*' : ''}` : '—';
    const used = v.decidedAt !== undefined ? `${v.decidedAt}${v.afterDecision ? ` (+${v.afterDecision} in flight)` : ''}` : String(v.scored);
    return [v.caseId, c[VERDICT_COLOUR[v.verdict]](v.verdict), `${fmt(v.params.threshold)}`, used, v.fixedNEquivalent === undefined ? '—' : String(v.fixedNEquivalent), rate, v.reason];
  });
  const counts = (['PASS', 'FAIL', 'INCONCLUSIVE', 'ERROR'] as const).map((k) => `${results.verdicts.filter((v) => v.verdict === k).length} ${k}`).join(' · ');
  const lines = [
    c.bold(`VERDICTS · ${mode === 'sprt' ? 'sequential (Wald SPRT per case)' : 'fixed N (exact binomial tests)'} · ${counts} · exit code ${results.exitCode}`),
    table([['case', 'verdict', 'p0', 'trials used', 'fixed-N equiv.', 'rate [CI]', 'why'].map((h) => c.bold(h)), ...rows], ['l', 'l', 'r', 'r', 'r', 'l', 'l']),
  ];
  if (results.verdicts.some((v) => v.descriptiveInterval)) lines.push(c.dim('* descriptive only: the case stopped early by a sequential rule, which biases the interval'));
  return lines.join('\n');
}

export function terminalReporter(colour: boolean): Reporter {
  const c = pc.createColors(colour);
  return {
    name: 'terminal',
    render({ manifest, results }: ReportInput): string {
      const s = results.summary;
      const pct = Math.round(s.confidence * 100);
      const out: string[] = [];
      const sim = manifest.simulator ? c.magenta(` · SIMULATOR profile "${manifest.simulator.name}" (not a real model)`) : '';
      out.push(
        c.bold(`skillprobe run ${manifest.runId}`) +
          ` · ${manifest.agent.id} ${manifest.agent.cliVersion ?? '?'} · model ${manifest.reportedModel ?? manifest.model}${sim}`,
        c.dim(`${pct}% Wilson intervals · pass@k = at least one of k passes, pass^k = all k pass (unbiased, k ≤ n) · ${manifest.status}`),
      );
      for (const arm of manifest.config.arms) {
        const rows = s.cases.filter((r) => r.arm === arm);
        out.push('', c.bold(arm === 'skill' ? 'CASES · skill arm (the family installed)' : 'CASES · ablation arm (none of the family installed; scores plan checks only)'));
        out.push(caseTable(rows, c));
      }
      const skillRows = s.cases.filter((r) => r.arm === 'skill');
      out.push('', c.bold('pass@k / pass^k by k · skill arm'), passKBlock(skillRows));

      const m = s.confusion;
      if (m.rows.length) {
        out.push('', c.bold(`CONFUSION · skill arm · rows: expected, columns: what fired (count/n, share and ${pct}% CI)`));
        const grid = [
          ['expected \\ fired', ...m.columns].map((h) => c.bold(h)),
          ...m.rows.map((row) => [
            row,
            ...m.columns.map((col) => {
              const cell = m.cells[row]![col]!;
              if (cell.n === 0) return c.dim('—');
              if (cell.successes === 0) return c.dim(`0/${cell.n} ≤${fmt(cell.hi)}`);
              const text = `${cell.successes}/${cell.n} ${fmt(cell.p)} ${interval(cell)}`;
              return row === col ? c.green(text) : c.red(text);
            }),
          ]),
        ];
        out.push(table(grid));
      }

      if (s.ablation.length) {
        out.push('', c.bold('ABLATION · paired i-th skill trial vs i-th ablation trial · plan checks · McNemar exact test'));
        out.push(
          table(
            [
              ['case', 'pairs', 'skill', 'ablation', `difference [${pct}% CI]`, 'p'].map((h) => c.bold(h)),
              ...s.ablation.map((a) => [
                a.caseId,
                String(a.pairs),
                fmt(a.skillRate.p),
                fmt(a.ablationRate.p),
                `${a.difference.diff >= 0 ? '+' : ''}${fmt(a.difference.diff)} ${interval(a.difference)}`,
                a.pValue < 0.05 ? c.bold(fmt(a.pValue, 3)) : fmt(a.pValue, 3),
              ]),
            ],
            ['l', 'r', 'r', 'r', 'l', 'r'],
          ),
        );
      }

      const a = s.aggregates;
      out.push('', c.bold('AGGREGATES · skill arm'));
      out.push(
        table([
          ['trigger recall (positives)', `${fmt(a.recall.p)} ${interval(a.recall)}`, `${a.recall.successes}/${a.recall.n}`],
          ['false-trigger rate (negatives)', `${fmt(a.falseTriggerRate.p)} ${interval(a.falseTriggerRate)}`, `${a.falseTriggerRate.successes}/${a.falseTriggerRate.n}`],
          ['precision', `${fmt(a.precision.p)} ${interval(a.precision)}`, `${a.precision.successes}/${a.precision.n}`],
          ['F1', fmt(a.f1), ''],
        ]),
      );
      out.push('', verdictBlock(results, manifest.config.decision.mode, c));
      const excluded = results.outcomes.filter((o) => o.passed === null && o.excludedBecause && o.excludedBecause !== 'nothing to score without the skill');
      if (excluded.length) {
        out.push('', c.yellow(`${excluded.length} trial(s) carried no evidence and were left out of n (never scored as "did not trigger"):`));
        for (const o of excluded.slice(0, 10)) out.push(`  ${o.caseId}/${o.arm}#${o.n}: ${o.status}${o.statusDetail ? ` — ${o.statusDetail.slice(0, 120)}` : ''}`);
        if (excluded.length > 10) out.push(`  … and ${excluded.length - 10} more (see results.json)`);
      }
      return out.join('\n') + '\n';
    },
  };
}
