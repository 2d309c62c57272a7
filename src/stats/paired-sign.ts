import betaln from '@stdlib/math-base-special-betaln';

export interface PairedSignTest {
  /** Pairs formed: the i-th scored trial of each run, up to the shorter run. */
  pairs: number;
  /** Discordant pairs: passed only in the base run, only in the candidate run. */
  baseOnly: number;
  candidateOnly: number;
  /** Anytime-valid two-sided p-value: 1 / the running maximum of the e-process. */
  pValue: number;
}

/** Beta(½, ½) mixing prior over the share of discordant pairs that favour the candidate. */
const PRIOR = 0.5;

/**
 * A two-sample test that stays valid when either run stopped early (SPRT), and far stronger than asking two
 * confidence sequences to separate. Pair the i-th scored trial of each run: under "no change" a discordant pair is
 * as likely to favour either run, whatever the common rate. The beta-binomial mixture over the discordant pairs'
 * split, against a fair split, is then a nonnegative martingale in the pairs' own order, and the pairs end at a
 * stopping time (the shorter run's), so by Ville's inequality its running maximum ever reaches 1/α with
 * probability at most α: p = 1 / max E. Trials beyond the shorter run are not used.
 */
export function pairedSignTest(base: readonly boolean[], candidate: readonly boolean[]): PairedSignTest {
  const pairs = Math.min(base.length, candidate.length);
  let [baseOnly, candidateOnly, maxLogE] = [0, 0, 0];
  for (let i = 0; i < pairs; i++) {
    if (base[i] === candidate[i]) continue;
    if (base[i]) baseOnly++;
    else candidateOnly++;
    const d = baseOnly + candidateOnly;
    const logE = betaln(PRIOR + candidateOnly, PRIOR + baseOnly) - betaln(PRIOR, PRIOR) + d * Math.LN2;
    maxLogE = Math.max(maxLogE, logE);
  }
  return { pairs, baseOnly, candidateOnly, pValue: Math.min(1, Math.exp(-maxLogE)) };
}
