/**
 * The preload every Node process of a verification run loads before any code of the repository
 * (node-sentinel.ts says how it gets there). It freezes `node:assert` (the legacy function and its
 * members, `assert.strict` = `node:assert/strict`, `AssertionError` and its prototype) and
 * `node:test`'s exports and reporters: every own property becomes a non-configurable accessor whose
 * setter refuses, and the object is frozen. The ESM views (`import { equal } from 'node:assert'`,
 * the default export) are built from these objects when first imported, after this ran.
 *
 * A refused write is evidence: the setter (plain assignment, destructuring, `Object.assign`,
 * `Reflect.set`, a write through `createRequire`) and wrappers of `Object.defineProperty` and the
 * like (which cannot succeed on a non-configurable property anyway) append one JSON line to a file
 * in the results directory, with the first stack frame outside node's own code. Everything the
 * setter calls was taken before user code ran, so patching `fs` or `JSON` later does not silence it.
 * Writing the same value back is allowed and not recorded (`assert.strict = assert.strict`).
 */
export function nodeSentinelSource(recordsPath: string): string {
  return `'use strict';
// Written by crucible for a verification run; see src/domain/evidence/node-sentinel-source.ts.
(() => {
  const RECORDS = ${JSON.stringify(recordsPath)};
  const SELF = __filename;
  const fs = require('fs');
  const { writeSync, openSync } = fs;
  const stringify = JSON.stringify;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const captureStackTrace = Error.captureStackTrace;
  const { apply, ownKeys } = Reflect;
  const { getOwnPropertyDescriptor, defineProperty, freeze } = Object;
  const guarded = new WeakMap();
  const weakGet = WeakMap.prototype.get;
  const weakSet = WeakMap.prototype.set;
  const weakHas = WeakMap.prototype.has;
  const StringCtor = String;
  const split = String.prototype.split;
  const includes = String.prototype.includes;
  const startsWith = String.prototype.startsWith;
  const trim = String.prototype.trim;
  const pid = process.pid;
  let fd;

  function where() {
    const holder = {};
    const prepare = ErrorCtor.prepareStackTrace;
    const limit = ErrorCtor.stackTraceLimit;
    ErrorCtor.prepareStackTrace = undefined;
    ErrorCtor.stackTraceLimit = 30;
    try {
      captureStackTrace(holder, where);
      const lines = apply(split, StringCtor(holder.stack), ['\\n']);
      for (let i = 1; i < lines.length; i++) {
        const line = apply(trim, lines[i], []);
        if (apply(includes, line, [SELF]) || apply(includes, line, ['(node:']) || apply(startsWith, line, ['at node:']) || line === 'at <anonymous>' || apply(includes, line, ['(<anonymous>)'])) continue;
        return line;
      }
      return undefined;
    } finally {
      ErrorCtor.prepareStackTrace = prepare;
      ErrorCtor.stackTraceLimit = limit;
    }
  }

  function record(target, via) {
    try {
      if (fd === undefined) fd = openSync(RECORDS, 'a', 0o600);
      writeSync(fd, stringify({ target, via, at: where(), pid }) + '\\n');
    } catch {}
  }

  function guard(object, label) {
    if ((typeof object !== 'object' && typeof object !== 'function') || object === null || apply(weakHas, guarded, [object])) return;
    apply(weakSet, guarded, [object, label]);
    for (const key of ownKeys(object)) {
      const path = label + '.' + (typeof key === 'symbol' ? '[' + StringCtor(key.description) + ']' : key);
      const d = getOwnPropertyDescriptor(object, key);
      if (d.configurable) {
        const read = 'value' in d ? ((v) => () => v)(d.value) : d.get;
        defineProperty(object, key, {
          configurable: false,
          enumerable: d.enumerable,
          get: read,
          set(value) {
            if (read !== undefined && apply(read, this, []) === value) return;
            record(path, 'set');
            throw new TypeErrorCtor('crucible: ' + path + ' is frozen for this test run');
          },
        });
      }
      if ('value' in d) guard(d.value, path);
    }
    freeze(object);
  }

  // Writes the accessors do not see: redefinition, deletion and prototype changes on a guarded object.
  function watch(holder, key, label) {
    const original = holder[key];
    const wrapped = {
      [original.name](target, ...rest) {
        if ((typeof target === 'object' || typeof target === 'function') && target !== null && apply(weakHas, guarded, [target])) {
          record(apply(weakGet, guarded, [target]) + (typeof rest[0] === 'string' ? '.' + rest[0] : ''), label);
        }
        return apply(original, this, [target, ...rest]);
      },
    }[original.name];
    // Looks like the original to code that reads its arity.
    defineProperty(wrapped, 'length', { value: original.length });
    defineProperty(holder, key, { value: wrapped, writable: true, configurable: true, enumerable: false });
  }

  try {
    guard(require('assert'), 'node:assert');
    guard(require('node:test'), 'node:test');
    guard(require('node:test/reporters'), 'node:test/reporters');
  } catch {}
  watch(Object, 'defineProperty', 'Object.defineProperty');
  watch(Object, 'defineProperties', 'Object.defineProperties');
  watch(Object, 'setPrototypeOf', 'Object.setPrototypeOf');
  watch(Reflect, 'defineProperty', 'Reflect.defineProperty');
  watch(Reflect, 'setPrototypeOf', 'Reflect.setPrototypeOf');
  watch(Reflect, 'deleteProperty', 'Reflect.deleteProperty');
})();
`;
}
