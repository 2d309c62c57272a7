// npm run bench: every benchmark, printed as ratios against its target, in one run.
import { benchOverhead, printOverhead } from './overhead.mjs';
import { benchRegrade } from './regrade.mjs';
import { benchSprt, printSprt } from './sprt.mjs';

printSprt(benchSprt());
const r = await benchRegrade();
console.log(`regrade   ${r.trials} transcripts: ${r.seconds.toFixed(2)} s (target < 10 s, ratio ${(r.seconds / 10).toFixed(2)}); peak RSS ${r.peakMb.toFixed(0)} MB (target < 300 MB, ratio ${(r.peakMb / 300).toFixed(2)})`);
printOverhead(await benchOverhead());
