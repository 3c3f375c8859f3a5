/**
 * Argument checks shared by the estimators. They throw instead of returning NaN because a NaN
 * that reaches a report looks like a number until someone reads it closely.
 */

export function assertCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
}

export function assertSuccesses(successes: number, n: number): void {
  assertCount('n', n);
  assertCount('successes', successes);
  if (successes > n) throw new RangeError(`successes (${successes}) cannot exceed n (${n})`);
}

export function assertConfidence(confidence: number): void {
  if (!(confidence > 0 && confidence < 1)) {
    throw new RangeError(`confidence must lie strictly between 0 and 1, got ${confidence}`);
  }
}

export function assertFinite(name: string, values: readonly number[]): void {
  for (const v of values) {
    if (!Number.isFinite(v)) throw new RangeError(`${name} must be finite numbers, got ${v}`);
  }
}

export function assertPositiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
}
