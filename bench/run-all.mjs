// npm run bench: every benchmark, printed as ratios against its target, in one run.
import { benchDemo, printDemo } from './demo.mjs';
import { benchOverhead, printOverhead } from './overhead.mjs';
import { benchRegrade, printRegrade } from './regrade.mjs';
import { benchSprt, printSprt } from './sprt.mjs';
import { benchCompare, printCompare } from './compare.mjs';

printSprt(benchSprt());
printCompare(benchCompare());
printRegrade(await benchRegrade());
printOverhead(await benchOverhead());
printDemo(await benchDemo());
