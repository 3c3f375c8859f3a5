/**
 * The Node side of the held-out value check (held-out-values.ts): the main module of a fresh `node`
 * (with the Node sentinel preloaded), in a directory of the harness that is read-only in the
 * sandbox. It binds everything it judges with, connects to the harness's socket, and only then
 * imports the called modules. A result crosses as tagged JSON when it is made of primitives, arrays
 * and plain objects alone, with data properties only: a proxy, a boxed primitive, a getter, a symbol
 * key, or a conversion or equality hook (`valueOf`, `toString`, `Symbol.toPrimitive`, `equals`,
 * `toJSON`) of its own or on a prototype the repository made is reported as a lie; anything else
 * not plain as unserialisable. Records as in held-out-values-python.ts.
 */
export const NODE_VALUES_SOURCE = String.raw`// Written by crucible for a held-out value run; see src/domain/evidence/held-out-values-node.ts.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { types } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
// Bound before any code of the repository runs: nothing it replaces later is called here.
const { getPrototypeOf, getOwnPropertyDescriptor, hasOwn, prototype: objectPrototype } = Object;
const { ownKeys, apply } = Reflect;
const { isArray, prototype: arrayPrototype } = Array;
const { isProxy, isBoxedPrimitive, isPromise } = types;
const { isInteger } = Number;
const stringify = JSON.stringify;
const toText = String;
const toNumber = Number;
const setHas = Set.prototype.has;
const setAdd = Set.prototype.add;
const setDelete = Set.prototype.delete;
const setSize = getOwnPropertyDescriptor(Set.prototype, 'size').get;
const toPrimitive = Symbol.toPrimitive;
const hooks = new Set(['valueOf', 'toString', 'toJSON', 'equals', 'toLocaleString']);
const builtinPrototypes = new Set(
  [Object, Array, Number, String, Boolean, BigInt, Symbol, Date, RegExp, Map, Set, WeakMap, WeakSet, Promise, Error, Function, ArrayBuffer, DataView].map(
    (c) => c.prototype,
  ),
);
const has = (set, item) => apply(setHas, set, [item]);
const isIndex = (key) => {
  const n = toNumber(key);
  return isInteger(n) && n >= 0 && toText(n) === key;
};

class Refused {
  constructor(kind, why) {
    this.kind = kind;
    this.why = why;
  }
}

function judgeObject(value, where) {
  if (isBoxedPrimitive(value)) throw new Refused('lying', 'a boxed primitive at ' + where);
  for (let proto = value; proto !== null; proto = getPrototypeOf(proto)) {
    if (has(builtinPrototypes, proto)) break;
    if (isProxy(proto)) throw new Refused('lying', 'a proxy in the prototype chain at ' + where);
    const keys = ownKeys(proto);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k];
      if (key === toPrimitive || has(hooks, key)) throw new Refused('lying', 'an object with its own ' + toText(key) + ' at ' + where);
    }
  }
  throw new Refused('unserialisable', 'an object that is not plain at ' + where);
}

/** The value as tagged JSON text, built by concatenation: no toJSON, no array method runs. */
function encode(value, where, seen, count) {
  if (++count.n > 100000) throw new Refused('unserialisable', 'more than 100000 values');
  if (apply(setSize, seen, []) > 200) throw new Refused('unserialisable', 'nested deeper than 200');
  switch (typeof value) {
    case 'undefined':
      return '["undefined"]';
    case 'boolean':
      return value ? '["bool",true]' : '["bool",false]';
    case 'number':
      return '["float",' + stringify(toText(value)) + ']';
    case 'bigint':
      return '["int",' + stringify(toText(value)) + ']';
    case 'string':
      return '["str",' + stringify(value) + ']';
    case 'symbol':
    case 'function':
      throw new Refused('unserialisable', 'a ' + typeof value + ' at ' + where);
  }
  if (value === null) return '["none"]';
  if (isProxy(value)) throw new Refused('lying', 'a proxy at ' + where);
  const proto = getPrototypeOf(value);
  const array = isArray(value) && proto === arrayPrototype;
  if (!array && proto !== objectPrototype && proto !== null) judgeObject(value, where);
  if (has(seen, value)) throw new Refused('unserialisable', 'a cycle at ' + where);
  apply(setAdd, seen, [value]);
  try {
    const keys = ownKeys(value);
    let parts = '';
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k];
      if (typeof key === 'symbol') throw new Refused('lying', 'a symbol-keyed property ' + toText(key) + ' at ' + where);
      const d = getOwnPropertyDescriptor(value, key);
      if (!hasOwn(d, 'value')) throw new Refused('lying', 'a getter or setter for ' + key + ' at ' + where);
      if (has(hooks, key) && typeof d.value === 'function') throw new Refused('lying', 'an object with its own ' + key + ' at ' + where);
      if (array && key === 'length') continue;
      if (array && !isIndex(key)) throw new Refused('unserialisable', 'an array with a property ' + key + ' at ' + where);
      if (array || !d.enumerable) continue;
      parts += (parts === '' ? '' : ',') + '[' + stringify(key) + ',' + encode(d.value, where + '[' + stringify(key) + ']', seen, count) + ']';
    }
    if (!array) return '["dict",[' + parts + ']]';
    const length = getOwnPropertyDescriptor(value, 'length').value;
    for (let i = 0; i < length; i++) {
      const d = getOwnPropertyDescriptor(value, toText(i));
      parts += (i === 0 ? '' : ',') + encode(d === undefined ? undefined : d.value, where + '[' + i + ']', seen, count);
    }
    return '["list",[' + parts + ']]';
  } finally {
    apply(setDelete, seen, [value]);
  }
}

const config = JSON.parse(readFileSync(join(here, 'calls.json'), 'utf8'));
const calls = config.calls;
const count = calls.length;
const socket = connect(config.socket);
await new Promise((ok, fail) => {
  socket.once('connect', ok);
  socket.once('error', fail);
});
const write = socket.write.bind(socket);
const end = socket.end.bind(socket);
const exit = process.exit.bind(process);
const nameOf = (error) => {
  try {
    return typeof error === 'object' && error !== null && typeof error.name === 'string' ? error.name : typeof error;
  } catch {
    return 'an error';
  }
};
const send = (i, kind, text) => write('{"i":' + i + ',' + stringify(kind) + ':' + text + '}\n');

const loaded = new Map();
const loadedGet = Map.prototype.get;
const loadedSet = Map.prototype.set;
for (let i = 0; i < count; i++) {
  const call = calls[i];
  if (apply(loadedGet, loaded, [call.module]) !== undefined) continue;
  try {
    apply(loadedSet, loaded, [call.module, { ns: await import(pathToFileURL(resolve(config.root, call.module)).href) }]);
  } catch (error) {
    apply(loadedSet, loaded, [call.module, { error: nameOf(error) }]);
  }
}
for (let i = 0; i < count; i++) {
  const call = calls[i];
  const mod = apply(loadedGet, loaded, [call.module]);
  if (mod.error !== undefined) {
    send(i, 'raised', stringify('import of ' + call.module + ': ' + mod.error));
    continue;
  }
  let result;
  try {
    let fn = mod.ns[call.attr];
    if (fn === undefined && mod.ns.default != null) fn = mod.ns.default[call.attr];
    result = apply(fn, undefined, call.args);
    if (isPromise(result)) result = await result;
  } catch (error) {
    send(i, 'raised', stringify(nameOf(error)));
    continue;
  }
  let text;
  try {
    text = encode(result, 'the result', new Set(), { n: 0 });
  } catch (error) {
    if (error instanceof Refused) send(i, error.kind, stringify(error.why));
    else send(i, 'unserialisable', stringify('nested too deep'));
    continue;
  }
  send(i, 'value', text);
}
end(() => exit(0));
`;
