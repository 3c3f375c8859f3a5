/**
 * The Python side of the held-out value check (held-out-values.ts): a module in a directory of the
 * harness, read-only in the sandbox, that a fresh `python3 -c BOOT` imports before any code of the
 * repository. It connects to the harness's socket first, then the boot imports the called modules
 * (from its own top-level frame: the sentinel counts that as the command's own import), then each
 * call runs and its result goes to the socket as tagged JSON. Only exact builtin types are
 * serialised, with functions and types bound before any code of the repository ran: a subclass or
 * an object whose equality or conversion hooks the repository wrote is reported as a lie, anything
 * else as unserialisable. The expected values never enter the process: the harness compares.
 * Records, one JSON line each: `{"i": n, "value": tagged}`, `{"i": n, "raised": "Type"}`,
 * `{"i": n, "lying": "why"}`, `{"i": n, "unserialisable": "why"}`, `{"import": "mod", "raised": "Type"}`.
 */
export const VALUES_MODULE = 'crucible_held_out_values';

export const PYTHON_VALUES_SOURCE = String.raw`# Written by crucible for a held-out value run; see src/domain/evidence/held-out-values-python.ts.
def start(here):
    import _socket
    import json
    import os
    import sys
    from importlib.machinery import PathFinder

    _type, _str, _int, _float, _bool, _list, _tuple, _dict, _len = type, str, int, float, bool, list, tuple, dict, len
    _id, _set, _enumerate, _bytes, _any = id, set, enumerate, bytes, any
    mro_of = _type.__dict__["__mro__"].__get__
    dict_of = _type.__dict__["__dict__"].__get__
    name_of = _type.__dict__["__qualname__"].__get__
    dict_items = _dict.items
    int_repr, float_repr = _int.__repr__, _float.__repr__
    function_type = _type(start)
    dumps = json.dumps
    abspath = os.path.abspath
    builtin_values = (_bool, _int, _float, _str, _list, _tuple, _dict, _bytes, _set, frozenset, complex, bytearray)
    hooks = (
        "__eq__ __ne__ __hash__ __bool__ __index__ __int__ __float__ __complex__ __str__ __repr__ __format__ "
        "__lt__ __le__ __gt__ __ge__ __len__ __iter__ __getitem__ __contains__ __getattribute__ __getattr__ "
        "__class__ __abs__ __round__ __trunc__ __floor__ __ceil__ __neg__ __pos__ __reduce__ __reduce_ex__".split()
    )
    stdlib = os.path.dirname(os.__file__) + "/"

    with open(os.path.join(here, "calls.json"), encoding="utf-8") as handle:
        config = json.load(handle)
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    sock.connect(config["socket"])
    sendall = sock.sendall
    root = abspath(config["root"])
    calls = config["calls"]
    tops = _set(c["module"].split(".")[0] for c in calls)

    class CalledModules:
        """Serves the called modules' top-level names from the root, before any other finder."""

        @staticmethod
        def find_spec(name, path=None, target=None):
            if path is None and name in tops:
                return PathFinder.find_spec(name, [root])
            return None

        @staticmethod
        def invalidate_caches():
            return None

    sys.meta_path.insert(0, CalledModules)

    def send(record):
        try:
            sendall((dumps(record) + "\n").encode("utf-8", "replace"))
        except OSError:
            pass

    class Refused(Exception):
        def __init__(self, kind, why):
            Exception.__init__(self, why)
            self.kind, self.why = kind, why

    def trusted(member):
        """A hook the interpreter's library or an installed package wrote (the change writes neither); None unsets one."""
        if member is None:
            return True
        if _type(member) is not function_type:
            return False
        file = member.__code__.co_filename
        return file.startswith(stdlib) or "/site-packages/" in file or "/dist-packages/" in file

    def is_builtin(klass):
        for known in builtin_values:
            if klass is known:
                return True
        return False

    def judge(kind, where):
        """
        An object of no exact builtin type. A lie when a hook the repository wrote answers for it, or
        when a builtin's subclass has an equality of its own (even one borrowed from the library);
        otherwise merely not a value the check can compare.
        """
        below_builtin = False
        for klass in mro_of(kind):
            if is_builtin(klass):
                below_builtin = True
                continue
            if klass is object:
                continue
            own = dict_of(klass)
            for hook in hooks:
                if hook in own and not trusted(own[hook]):
                    raise Refused("lying", "a " + name_of(kind) + " with its own " + hook + " at " + where)
            if ("__eq__" in own or "__ne__" in own) and _any(is_builtin(k) for k in mro_of(kind)):
                raise Refused("lying", "a subclass of a builtin type (" + name_of(kind) + ") with its own equality at " + where)
        what = "a subclass of a builtin type" if below_builtin else "a value of type"
        raise Refused("unserialisable", what + " " + name_of(kind) + " at " + where)

    def encode(value, where, seen, count):
        count[0] += 1
        if count[0] > 100000:
            raise Refused("unserialisable", "more than 100000 values")
        if _len(seen) > 200:
            raise Refused("unserialisable", "nested deeper than 200")
        kind = _type(value)
        if value is None:
            return ["none"]
        if kind is _bool:
            return ["bool", value]
        if kind is _int:
            return ["int", int_repr(value)]
        if kind is _float:
            return ["float", float_repr(value)]
        if kind is _str:
            return ["str", value]
        if kind is _list or kind is _tuple or kind is _dict:
            key = _id(value)
            if key in seen:
                raise Refused("unserialisable", "a cycle at " + where)
            seen.add(key)
            try:
                if kind is _dict:
                    pairs = []
                    for k, v in _list(dict_items(value)):
                        if _type(k) is not _str:
                            if k is None or is_builtin(_type(k)):
                                raise Refused("unserialisable", "a dict key that is not a str at " + where)
                            judge(_type(k), where + " (a key)")
                        pairs.append([k, encode(v, where + "[" + dumps(k) + "]", seen, count)])
                    return ["dict", pairs]
                return ["list", [encode(v, where + "[" + _str(i) + "]", seen, count) for i, v in _enumerate(_list(value))]]
            finally:
                seen.discard(key)
        judge(kind, where)

    def resolve(call):
        target = sys.modules.get(call["module"])
        for part in call["attr"].split("."):
            target = getattr(target, part)
        return target

    failed = {}

    def failed_import(module, error):
        failed[module] = name_of(_type(error))

    def run():
        for i, call in _enumerate(calls):
            if call["module"] in failed:
                send({"i": i, "raised": "import of " + call["module"] + ": " + failed[call["module"]]})
                continue
            try:
                result = resolve(call)(*call["args"])
            except BaseException as error:
                send({"i": i, "raised": name_of(_type(error))})
                continue
            try:
                send({"i": i, "value": encode(result, "the result", _set(), [0])})
            except Refused as refused:
                send({"i": i, refused.kind: refused.why})
            except RecursionError:
                send({"i": i, "unserialisable": "nested too deep"})

    modules = []
    for call in calls:
        if call["module"] not in modules:
            modules.append(call["module"])
    return modules, failed_import, run
`;

/** The `python3 -c` program: the module above from the harness's directory, then the calls. */
export function pythonValuesBoot(dir: string): string {
  return [
    'import sys',
    `sys.path.insert(0, ${JSON.stringify(dir)})`,
    `import ${VALUES_MODULE} as _crucible`,
    'del sys.path[0]',
    `del sys.modules[${JSON.stringify(VALUES_MODULE)}]`,
    `_crucible_modules, _crucible_failed, _crucible_run = _crucible.start(${JSON.stringify(dir)})`,
    'del _crucible',
    'for _crucible_module in _crucible_modules:',
    '    try:',
    '        __import__(_crucible_module)',
    '    except BaseException as _crucible_error:',
    '        _crucible_failed(_crucible_module, _crucible_error)',
    '_crucible_run()',
    '',
  ].join('\n');
}
