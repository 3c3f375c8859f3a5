import type { PairedVerdict } from '../../core/types/index.js';
import { assertConfidence, assertCount } from './validate.js';

/** An anytime-valid paired test of two agents on the pairs seen so far. */
export interface SequentialSignTest {
  verdict: PairedVerdict;
  /** E-value against "no task where the agents differ": the mixture martingale at this point. */
  eValue: number;
  /** The one-sided halves: evidence that A wins discordant pairs more often, and that B does. */
  eForA: number;
  eForB: number;
  /** Discordant pairs A won (A passed, B failed) and lost. */
  wins: number;
  losses: number;
  /** The e-value at which the test rejects: 1 / alpha. */
  threshold: number;
}

/**
 * Sequential sign test on discordant pairs with a mixture (Robbins) test martingale.
 *
 * A pair is trial k of agent A and trial k of agent B on the same task, both scheduled together.
 * Under the null "on every task both agents have the same pass probability p_t", a discordant pair
 * (one passed, one failed) is A's win with probability p_t(1−p_t) / 2p_t(1−p_t) = 1/2, whatever the
 * task and however the tasks were chosen from past results. So the signs of discordant pairs are
 * fair coin flips, and for any q the likelihood ratio Π (2q)^win (2(1−q))^loss is a nonnegative
 * martingale with mean 1; so is its mixture over q ~ Uniform[0, 1]:
 *
 *   E_n = 2^n · ∫ q^s (1−q)^f dq = 2^n · s! f! / (n+1)!        (n = s + f discordant pairs)
 *
 * By Ville's inequality P(sup_n E_n ≥ 1/α) ≤ α, so rejecting the first time E_n ≥ 1/α keeps the error
 * rate at α although the run looks after every pair and stops when it likes (Ramdas, Grünwald, Vovk &
 * Shafer 2023, "Game-theoretic statistics and safe anytime-valid inference", Stat. Sci. 38(4); the
 * Beta mixture is Robbins 1970). The halves over q > 1/2 and q < 1/2 are themselves test martingales,
 * computed exactly with P(Beta(s+1, f+1) > 1/2) = P(Binomial(n+1, 1/2) ≤ s). When E_n ≥ 1/α with s > f,
 * eForA ≥ E_n ≥ 1/α; eForA is a supermartingale whenever A is no better than B on every task, so even
 * the direction is wrong with probability at most α.
 */
export function sequentialSignTest(wins: number, losses: number, confidence = 0.95): SequentialSignTest {
  assertCount('wins', wins);
  assertCount('losses', losses);
  assertConfidence(confidence);
  const n = wins + losses;
  // 1 − 0.95 is 0.05000000000000004 in floating point; round so the threshold reads as 20.
  const threshold = Number((1 / (1 - confidence)).toPrecision(12));
  // log of 2^n · s! f! / (n+1)!
  const logE = n * Math.LN2 + logFactorial(wins) + logFactorial(losses) - logFactorial(n + 1);
  const eValue = Math.exp(logE);
  // Each half is the mixture over q on its side with a Uniform density of 2 there: 2 · E_n · P(side).
  const lowerTail = binomialHalfCdf(n + 1, wins);
  const eForA = 2 * eValue * lowerTail;
  const eForB = 2 * eValue * (1 - lowerTail);
  const verdict: PairedVerdict = eValue < threshold || wins === losses ? 'not separated' : wins > losses ? 'A better' : 'B better';
  return { verdict, eValue, eForA, eForB, wins, losses, threshold };
}

/** ln(k!) by summation: exact enough and fast for the pair counts a run reaches. */
function logFactorial(k: number): number {
  let s = 0;
  for (let i = 2; i <= k; i++) s += Math.log(i);
  return s;
}

/** P(Binomial(n, 1/2) ≤ k), summed in log space so large n cannot underflow term by term. */
function binomialHalfCdf(n: number, k: number): number {
  if (k >= n) return 1;
  let logTerm = -n * Math.LN2; // P(X = 0)
  let sum = 0;
  for (let i = 0; i <= k; i++) {
    sum += Math.exp(logTerm);
    logTerm += Math.log((n - i) / (i + 1));
  }
  return Math.min(1, sum);
}
