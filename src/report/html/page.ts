import { html, trusted, type Html } from './markup.js';

/**
 * The page shell: one self-contained document. The content security policy forbids every fetch, script and
 * frame, so the page works from file:// with no network and stays inert whatever a transcript holds.
 */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const STYLE = trusted(`
:root {
  --fg: #1f2328; --muted: #59636e; --faint: #818b98; --line: #d1d9e0; --soft: #eef1f4; --bg: #f6f8fa; --card: #fff;
  --accent: #0969da;
  --pass: #1a7f37; --pass-bg: #dafbe1; --fail: #cf222e; --fail-bg: #ffebe9; --inconclusive: #9a6700; --inconclusive-bg: #fff8c5;
  --error: #8250df; --error-bg: #fbefff; --neutral: #59636e; --neutral-bg: #eef1f4;
  --assistant: #0969da; --assistant-bg: #f3f8ff; --tool: #6e7781; --tool-bg: #f6f8fa; --harness: #bc4c00; --harness-bg: #fff5eb;
  --system: #818b98;
  --mono: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace;
}
* { box-sizing: border-box; }
html { background: var(--bg); }
body { margin: 0; color: var(--fg); font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", "Noto Sans", "Liberation Sans", Arial, sans-serif; }
main { max-width: 1240px; margin: 0 auto; padding: 24px 28px 64px; }
h1 { font-size: 22px; margin: 0; font-weight: 600; }
h2 { font-size: 17px; margin: 0 0 4px; font-weight: 600; }
h3 { font-size: 15px; margin: 0; font-weight: 600; }
h4 { font-size: 13px; margin: 16px 0 6px; font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
code, pre, .mono { font-family: var(--mono); font-size: 12.5px; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
p { margin: 6px 0; }
.muted { color: var(--muted); }
.note { color: var(--muted); font-size: 12.5px; }
section.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 18px 20px; margin: 18px 0; }
section.card > .lead { color: var(--muted); margin: 0 0 12px; font-size: 13px; }

/* header and verdict strip */
header.top { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 20px 22px; }
.title-row { display: flex; align-items: baseline; gap: 12px; flex-wrap: wrap; }
.title-row h1 code { font-size: 20px; }
.meta { display: flex; flex-wrap: wrap; gap: 4px 18px; margin: 10px 0 0; padding: 0; list-style: none; color: var(--muted); font-size: 13px; }
.meta b { color: var(--fg); font-weight: 600; }
.strip { display: flex; gap: 12px; margin-top: 16px; flex-wrap: wrap; }
.tile { flex: 1 1 120px; border: 1px solid var(--line); border-top: 4px solid var(--tone); border-radius: 6px; padding: 8px 14px; background: var(--card); }
.tile .count { display: block; font-size: 28px; font-weight: 650; line-height: 1.15; color: var(--tone); font-variant-numeric: tabular-nums; }
.tile .name { font-size: 12px; font-weight: 600; letter-spacing: .05em; color: var(--muted); }
.tile.zero { --tone: var(--faint) !important; opacity: .75; }
.banner { margin: 14px 0 0; padding: 10px 14px; border-radius: 6px; font-weight: 500; }
.banner strong { letter-spacing: .06em; }
.banner.simulated { color: #fff; background: repeating-linear-gradient(135deg, #8250df 0 14px, #7443d1 14px 28px); }
.banner.warn { color: #6c4a00; background: var(--inconclusive-bg); border: 1px solid #e5c158; }
nav.toc { margin: 14px 0 0; display: flex; flex-wrap: wrap; gap: 6px 16px; font-size: 13px; }

.tone-pass { --tone: var(--pass); --tone-bg: var(--pass-bg); }
.tone-fail { --tone: var(--fail); --tone-bg: var(--fail-bg); }
.tone-inconclusive { --tone: var(--inconclusive); --tone-bg: var(--inconclusive-bg); }
.tone-error { --tone: var(--error); --tone-bg: var(--error-bg); }
.tone-neutral { --tone: var(--neutral); --tone-bg: var(--neutral-bg); }
.verdict { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 11.5px; font-weight: 650; letter-spacing: .04em; color: var(--tone); background: var(--tone-bg); border: 1px solid color-mix(in srgb, var(--tone) 35%, transparent); white-space: nowrap; }
.status { font-size: 12px; padding: 1px 8px; border-radius: 999px; border: 1px solid var(--line); color: var(--muted); }

/* tables */
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 7px 10px; border-bottom: 1px solid var(--soft); vertical-align: middle; }
thead th { font-size: 11.5px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); font-weight: 600; border-bottom: 1px solid var(--line); white-space: nowrap; }
tbody th { font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.why { color: var(--muted); font-size: 12.5px; min-width: 200px; }
td.why .cause { margin: 6px 0 0; padding-left: 16px; }
td.why .cause .alarm { color: var(--fail); font-weight: 600; }
td.why .fix { margin: 4px 0 0; color: var(--fg); }
/* A transcript path may break anywhere: kept on one line, it would widen the column past the page. */
td.why code { white-space: normal; overflow-wrap: anywhere; }
td.nowrap, td code { white-space: nowrap; }
.case-id { font-family: var(--mono); font-size: 12.5px; font-weight: 600; overflow-wrap: break-word; }
.prompt { display: block; max-width: 240px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; color: var(--muted); font-weight: 400; font-size: 12px; }
.tag { display: inline-block; font-size: 11px; padding: 0 6px; margin-right: 4px; border-radius: 4px; background: var(--soft); color: var(--muted); font-weight: 500; }
tr.differs th, tr.differs td { background: #fff8c5; }
table.drift { table-layout: fixed; }
table.drift th:first-child { width: 24%; }
table.drift th:last-child { width: 12%; }
table.drift code { white-space: normal; overflow-wrap: anywhere; }
.kv { display: grid; grid-template-columns: repeat(auto-fit, minmax(210px, 1fr)); gap: 10px; margin-top: 14px; }
.kv div { background: var(--bg); border-radius: 6px; padding: 8px 12px; }
.kv .k { display: block; font-size: 12px; color: var(--muted); }
.kv .v { font-size: 16px; font-weight: 600; font-variant-numeric: tabular-nums; }
.kv .v small { font-size: 12px; color: var(--muted); font-weight: 400; }

/* charts */
svg { display: block; overflow: visible; }
svg .axis, svg .tick { stroke: #afb8c1; stroke-width: 1; }
svg .grid { stroke: var(--soft); stroke-width: 1; }
svg .label { fill: var(--muted); font-size: 10.5px; font-family: inherit; }
svg .ci { stroke: var(--tone); stroke-width: 3; stroke-linecap: round; opacity: .55; }
svg .cap { stroke: var(--tone); stroke-width: 1.5; }
svg .est { fill: var(--tone); stroke: #fff; stroke-width: 1.2; }
svg .threshold { stroke: var(--fg); stroke-width: 2; }
svg .zero { stroke: #8c959f; stroke-width: 1; }
svg .band { fill: #d0d7de; opacity: .55; }
svg.trend .changed { stroke: #bc4c00; stroke-dasharray: 3 3; }
svg.trend text.changed { fill: #bc4c00; stroke: none; font-size: 10px; }
svg polyline { fill: none; stroke-width: 2; stroke-linejoin: round; }
svg polyline.at { stroke: #0969da; }
svg polyline.hat { stroke: #bc4c00; stroke-dasharray: 5 3; }
svg circle.at { fill: #0969da; }
svg circle.hat { fill: #bc4c00; }
svg .zone-accept { fill: var(--pass-bg); opacity: .7; }
svg .zone-reject { fill: var(--fail-bg); opacity: .8; }
svg line.accept { stroke: var(--pass); stroke-width: 1.5; }
svg line.reject { stroke: var(--fail); stroke-width: 1.5; }
svg polyline.boundary { stroke-width: 1.5; stroke-linejoin: miter; }
svg polyline.accept { stroke: var(--pass); }
svg polyline.reject { stroke: var(--fail); }
svg line.design-max { stroke: var(--fg); stroke-width: 1.5; }
svg text.design-max { fill: var(--fg); font-weight: 600; }
svg text.accept { fill: var(--pass); font-weight: 600; }
svg text.reject { fill: var(--fail); font-weight: 600; }
svg .min-trials { stroke: #8c959f; stroke-dasharray: 3 3; }
svg polyline.path { stroke: var(--fg); stroke-width: 1.6; }
svg circle.step-pass { fill: var(--pass); }
svg circle.step-fail { fill: #fff; stroke: var(--fail); stroke-width: 1.8; }
svg circle.decided { stroke: var(--fg); stroke-width: 2; }
.legend { display: flex; gap: 18px; font-size: 12.5px; color: var(--muted); margin: 0 0 10px; flex-wrap: wrap; }
.legend .swatch { display: inline-block; width: 18px; height: 0; border-top: 2px solid; vertical-align: middle; margin-right: 6px; }
.legend .swatch.at { border-color: #0969da; }
.legend .swatch.hat { border-color: #bc4c00; border-top-style: dashed; }
.legend .swatch.box { height: 10px; border: 1px solid var(--line); }
.multiples { display: grid; grid-template-columns: repeat(auto-fill, minmax(250px, 1fr)); gap: 14px; }
.multiples.wide { grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); }
.multiples svg { width: 100%; height: auto; }
figure { margin: 0; border: 1px solid var(--soft); border-radius: 6px; padding: 10px 12px 8px; background: var(--card); }
figcaption { font-size: 12.5px; margin-bottom: 6px; display: flex; gap: 4px 8px; align-items: baseline; flex-wrap: wrap; }
figcaption .params { flex-basis: 100%; }
figcaption .case-id { font-size: 12px; }
figcaption .muted { font-size: 12px; }

/* confusion heatmap */
table.heatmap { width: auto; border-collapse: separate; border-spacing: 3px; }
table.heatmap th, table.heatmap td { border: 0; padding: 6px 8px; }
table.heatmap thead th { text-transform: none; letter-spacing: 0; font-family: var(--mono); font-size: 12px; color: var(--fg); text-align: center; vertical-align: bottom; }
table.heatmap thead th.corner { font-family: inherit; color: var(--muted); font-size: 11.5px; text-align: left; }
table.heatmap tbody th { font-family: var(--mono); font-size: 12px; white-space: nowrap; }
td.cell { min-width: 78px; text-align: center; border-radius: 4px; font-variant-numeric: tabular-nums; line-height: 1.25; }
td.cell .count { display: block; font-weight: 650; font-size: 13px; }
td.cell .share { display: block; font-size: 11px; opacity: .85; }
td.cell.empty { color: #afb8c1; background: var(--bg); }
td.cell.dark { color: #fff; }

/* drill-down */
.case-trials { border-top: 1px solid var(--line); padding-top: 14px; margin-top: 18px; }
.case-trials:first-of-type { border-top: 0; margin-top: 4px; padding-top: 0; }
.case-trials > header { display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; }
.case-trials .prompt-full { margin: 6px 0 0; padding: 8px 12px; background: var(--bg); border-left: 3px solid var(--line); border-radius: 0 4px 4px 0; white-space: pre-wrap; font-size: 13px; }
.divergence { margin: 6px 0 10px; padding: 8px 12px; border-radius: 6px; background: #ddf4ff; color: #0a3069; font-size: 13px; }
.divergence.same { background: var(--bg); color: var(--muted); }
.divergence code { background: rgba(255,255,255,.7); padding: 0 4px; border-radius: 3px; }
details.trial { border: 1px solid var(--line); border-left: 4px solid var(--tone); border-radius: 6px; margin: 6px 0; background: var(--card); }
details.trial > summary { cursor: pointer; padding: 7px 12px; display: flex; gap: 10px; align-items: center; flex-wrap: wrap; font-size: 13px; list-style: none; }
details.trial > summary::-webkit-details-marker { display: none; }
details.trial > summary::before { content: "▸"; color: var(--muted); width: 10px; }
details.trial[open] > summary::before { content: "▾"; }
details.trial[open] > summary { border-bottom: 1px solid var(--soft); }
.trial-n { font-family: var(--mono); font-weight: 650; }
.trial-body { padding: 10px 14px 14px; }
.facts { color: var(--muted); font-size: 12.5px; }
.facts-list { display: flex; flex-wrap: wrap; gap: 4px 18px; font-size: 12.5px; color: var(--muted); margin: 0 0 10px; padding: 0; list-style: none; }
.facts-list b { color: var(--fg); font-weight: 600; }
ul.checks { list-style: none; padding: 0; margin: 4px 0 10px; font-size: 13px; }
ul.checks li { padding: 2px 0; }
ul.checks .mark { display: inline-block; width: 18px; font-weight: 700; }
ul.checks .ok .mark { color: var(--pass); }
ul.checks .bad .mark { color: var(--fail); }
ul.checks .detail { color: var(--muted); font-family: var(--mono); font-size: 12px; margin-left: 6px; word-break: break-all; }
.plans { margin: 0 0 10px; padding-left: 18px; font-size: 12.5px; }
.left-out { font-size: 12.5px; color: var(--muted); margin: 8px 0 0; }
.left-out code { word-break: break-all; }

/* transcript: who wrote each block is visible at a glance */
.transcript { display: flex; flex-direction: column; gap: 6px; margin-top: 8px; }
.ev { border-radius: 6px; border: 1px solid var(--line); border-left-width: 4px; background: var(--card); overflow: hidden; }
.ev-head { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; padding: 4px 10px; font-size: 12px; }
.ev-head .who { font-size: 10.5px; font-weight: 700; text-transform: uppercase; letter-spacing: .06em; padding: 0 6px; border-radius: 3px; color: #fff; }
.ev-head .what { font-weight: 600; }
.ev-head .facts { font-size: 12px; }
.ev-head code.call { font-size: 12px; background: rgba(9,105,218,.08); padding: 0 5px; border-radius: 3px; }
.ev-body { padding: 0 10px 8px; }
.ev pre { margin: 0; white-space: pre-wrap; word-break: break-word; font-size: 12.5px; line-height: 1.45; }
.src-assistant { border-left-color: var(--assistant); background: var(--assistant-bg); }
.src-assistant .who { background: var(--assistant); }
.src-tool { border-left-color: var(--tool); background: var(--tool-bg); margin-left: 28px; }
.src-tool .who { background: var(--tool); }
.src-tool pre { color: #424a53; }
.src-harness { border-left-color: var(--harness); background: var(--harness-bg); margin-left: 28px; }
.src-harness .who { background: var(--harness); }
.src-harness details summary { cursor: pointer; color: var(--muted); font-size: 12.5px; }
.src-harness details pre { margin-top: 6px; color: #6b4a2a; }
.src-system { border-left-color: var(--system); background: var(--card); border-style: dashed; border-left-style: solid; }
.src-system .who { background: var(--system); }
.ev.error { border-color: var(--fail); }
.ev.graded-call { box-shadow: 0 0 0 2px #fff, 0 0 0 4px #f0b400; }
.badge { font-size: 11px; padding: 0 7px; border-radius: 999px; background: var(--soft); color: var(--muted); font-weight: 600; }
.badge.graded { background: #fff1b8; color: #6c4a00; border: 1px solid #e5c158; }
.badge.ok { background: var(--pass-bg); color: var(--pass); }
.badge.bad { background: var(--fail-bg); color: var(--fail); }
mark.plan { background: #fff1b8; color: inherit; border-bottom: 2px solid #e5a400; padding: 0 1px; }
.cut { display: block; color: var(--faint); font-style: italic; margin-top: 4px; }
.run-cards { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; margin-top: 14px; }
.run-card { background: var(--bg); border-radius: 6px; padding: 10px 14px; }
.run-card h3 { margin-bottom: 6px; display: flex; gap: 8px; align-items: center; }
.run-card .facts-list { margin: 0; }
.legend-inline b { font-size: 10.5px; text-transform: uppercase; letter-spacing: .05em; padding: 0 5px; border-radius: 3px; color: #fff; }
.legend-inline .who-assistant { background: var(--assistant); }
.legend-inline .who-tool { background: var(--tool); }
.legend-inline .who-harness { background: var(--harness); }
.legend-inline .who-system { background: var(--system); }
footer { margin-top: 28px; color: var(--faint); font-size: 12px; text-align: center; }
@media print { details.trial { break-inside: avoid; } html { background: #fff; } }
`);

export function standalonePage(title: string, body: Html): string {
  return pageDocument(title, body, CSP);
}

/** A page of the report's look under another content security policy (a served page's), with the scripts it names. */
export function pageDocument(title: string, body: Html, csp: string, scripts: readonly string[] = [], style = ''): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="generator" content="skillprobe">
<title>${title}</title>
<style>${STYLE}${trusted(style)}</style>${scripts.map((src) => html`\n<script src="${src}" defer></script>`)}
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`.text;
}
