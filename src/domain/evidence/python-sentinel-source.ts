/**
 * The Python sentinel (docs/grading.md, "The interpreter's own evidence"): the first part of the
 * sitecustomize every Python start of a verification run loads (python-sentinel.ts writes it). It
 * installs an audit hook, which nothing can remove, and reports on the harness's socket, before
 * each takes effect, the events only tampering needs, attributed to code of the change by the
 * frames on the stack (never by reading the change's text). Everything the hook uses is bound in
 * its closure at install: nothing stays in module globals, and a builtin or library function the
 * change replaces later never runs inside it. Protocol, one line each, tab-separated:
 * `hello kind pid ppid runner token argv`, `event name detail file line`, `end pid token`.
 */
export const SENTINEL_SOURCE = String.raw`def _crucible_sentinel():
    import _socket
    import _thread
    import atexit
    import builtins
    import json
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    try:
        with open(os.path.join(here, "sentinel.json"), encoding="utf-8") as handle:
            config = json.load(handle)
    except (OSError, ValueError):
        return None

    _type, _str, _len, _isinstance, _list, _set, _tuple = type, str, len, isinstance, list, set, tuple
    _bytes, _int, _dict, _enumerate, _any = bytes, int, dict, enumerate, any
    code_type = _type(_crucible_sentinel.__code__)
    function_type = _type(_crucible_sentinel)
    module_type = _type(os)
    module_dict = module_type.__dict__["__dict__"].__get__
    type_dict = _type.__dict__["__dict__"].__get__
    property_type, static_type, class_type = property, staticmethod, classmethod
    # The import system's own loader, taken before any code of the repository runs: a module it loads
    # is compiled under its own file's name from that file's bytes.
    _external = sys.modules.get("_frozen_importlib_external")
    source_loader = getattr(_external, "SourceFileLoader", None)
    source_get_data = getattr(source_loader, "get_data", None)
    # Their code objects, by identity: a frame that only names itself source_to_code or get_code (code the
    # change compiled under a "<frozen importlib…>" name) is not the import system.
    source_to_code_code = getattr(getattr(source_loader, "source_to_code", None), "__code__", None)
    get_code_code = getattr(getattr(source_loader, "get_code", None), "__code__", None)
    removed_code = getattr(getattr(sys.modules.get("_frozen_importlib"), "_call_with_frames_removed", None), "__code__", None)
    type_attr = _type.__getattribute__
    getframe = sys._getframe
    get_ident = _thread.get_ident
    new_lock = _thread.allocate_lock
    fstat, stat, write, getpid, getppid, getcwd, urandom = os.fstat, os.stat, os.write, os.getpid, os.getppid, os.getcwd, os.urandom
    new_socket, unix, stream = _socket.socket, _socket.AF_UNIX, _socket.SOCK_STREAM
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_TRUNC | os.O_CREAT
    sys_modules = sys.modules
    sep = "/"

    def normal(path):
        """Lexically normalised absolute path: no symlink is read (the report may not exist yet)."""
        if not path.startswith(sep):
            path = getcwd() + sep + path
        parts = []
        for part in path.split(sep):
            if part == "" or part == ".":
                continue
            if part == "..":
                if parts:
                    parts.pop()
                continue
            parts.append(part)
        return sep + sep.join(parts)

    roots = _tuple(normal(r).rstrip(sep) + sep for r in config.get("roots", []))
    change = _set()
    for rel in config.get("change", []):
        for root in roots:
            change.add(root + rel)
    reports = _set(normal(p) for p in config.get("reports", []))
    channel_path = config.get("socket", "")
    stdlib = os.path.dirname(os.__file__) + sep
    ctypes_dir = stdlib + "ctypes" + sep
    frame_files = _set([stdlib + "inspect.py", stdlib + "traceback.py"])
    # The functions of the standard library that hand frames to their caller (others keep them).
    giver_names = _set(["currentframe", "stack", "trace", "getouterframes", "getinnerframes", "walk_stack", "walk_tb", "getframeinfo"])
    import_machinery = _set([stdlib + "importlib" + sep + "__init__.py"])
    machinery_suffixes = ("_pytest/assertion/rewrite.py",)
    # The runner importing what the test command names (-m target, collected tests, -p plugins): not a reach.
    collectors = ("/runpy.py", "/unittest/loader.py", "/unittest/main.py", "/_pytest/pathlib.py", "/_pytest/python.py", "/_pytest/doctest.py", "/_pytest/main.py", "/_pytest/config/__init__.py")
    orig = _list(getattr(sys, "orig_argv", sys.argv))

    watched = _set(
        "gc.get_objects gc.get_referrers gc.get_referents sys._getframe sys._current_frames object.__getattr__ exec open "
        "ctypes.dlsym ctypes.dlsym/handle ctypes.string_at ctypes.wstring_at ctypes.cdata ctypes.cdata/buffer ctypes.call_function "
        "ctypes.addressof subprocess.Popen os.posix_spawn os.exec os.spawn os.system os.rename os.link os.symlink os.remove "
        "os.truncate sys.settrace sys.setprofile compile function.__new__ code.__new__ object.__setattr__ object.__delattr__ "
        "socket.connect".split()
    )
    gc_events = _set(["gc.get_objects", "gc.get_referrers", "gc.get_referents"])
    frame_events = _set(["sys._getframe", "sys._current_frames"])
    frame_attrs = _set(["tb_frame", "gi_frame", "cr_frame", "ag_frame"])
    spawn_events = _set(["subprocess.Popen", "os.posix_spawn", "os.exec", "os.spawn", "os.system"])
    move_events = _set(["os.rename", "os.link", "os.symlink", "os.remove", "os.truncate"])
    trace_events = _set(["sys.settrace", "sys.setprofile"])
    runner_tops = _set(["pytest", "_pytest", "pluggy", "unittest", "py"])

    def text(value):
        if _type(value) is _str:
            return value
        if _type(value) is _bytes:
            return value.decode("utf-8", "replace")
        return None

    def words_of(value):
        single = text(value)
        if single is not None:
            return single.split()
        try:
            return [w for w in (text(v) for v in _list(value)) if w is not None]
        except Exception:
            return []

    def base(word):
        return word.rsplit(sep, 1)[-1]

    def starts_runner(words):
        """-m pytest, -m unittest, a pytest script, or a shell line that runs one."""
        for i, word in _enumerate(words):
            for piece in word.split():
                if base(piece) in ("pytest", "py.test"):
                    return True
            if word == "-m" and i + 1 < _len(words) and words[i + 1].split(".")[0] in runner_tops:
                return True
            if " -m pytest" in word or " -m unittest" in word or "-m pytest " in word or "-m unittest " in word:
                return True
        return False

    runner = starts_runner(orig[1:])
    token = urandom(12).hex()
    busy = _set()
    change_codes = _set()
    state = {"fd": -1, "id": None, "pid": getpid(), "sent": 0, "lock": new_lock()}

    def field(value):
        return _str(value).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")[:1500]

    def write_all(fd, data):
        while data:
            try:
                n = write(fd, data)
            except InterruptedError:
                continue
            except OSError:
                return
            data = data[n:]

    def connect(kind):
        try:
            sock = new_socket(unix, stream)
            sock.connect(channel_path)
        except OSError:
            return
        fd = sock.detach()
        info = fstat(fd)
        state["fd"], state["id"], state["pid"], state["sent"] = fd, (info.st_dev, info.st_ino), getpid(), 0
        line = "\t".join(["hello", kind, field(getpid()), field(getppid()), "1" if runner and kind == "start" else "0", token, field(" ".join(orig[:12]))])
        write_all(fd, (line + "\n").encode("utf-8", "replace"))

    def send(parts):
        line = ("\t".join(field(p) for p in parts) + "\n").encode("utf-8", "replace")
        with state["lock"]:
            fd = state["fd"]
            try:
                info = fstat(fd)
                same = (info.st_dev, info.st_ino) == state["id"]
            except OSError:
                same = False
            if not same:
                # Closed or replaced by the process itself: a new connection says so first.
                connect("reconnect")
                fd = state["fd"]
                if fd < 0:
                    return
                write_all(fd, b"event\tchannel\tthe sentinel's connection was closed or replaced inside the process\t\t0\n")
            write_all(fd, line)

    def is_change(code):
        name = code.co_filename
        return code in change_codes or name in change

    def change_on_stack(frame):
        while frame is not None:
            if is_change(frame.f_code):
                return frame
            frame = frame.f_back
        return None

    def relative(name):
        for root in roots:
            if name.startswith(root):
                return name[_len(root):]
        return name

    def report(event, detail, frame):
        if state["sent"] >= 200:
            return
        state["sent"] += 1
        file, line = (relative(frame.f_code.co_filename), frame.f_lineno) if frame is not None else ("", 0)
        send(["event", event, detail, file, line])

    def mark(code):
        todo = [code]
        while todo:
            c = todo.pop()
            if c in change_codes:
                continue
            change_codes.add(c)
            for const in c.co_consts:
                if _type(const) is code_type:
                    todo.append(const)

    def requester(frame, skip):
        """The frame that asked: synthetic frames of no change and frames skip names are passed over."""
        while frame is not None:
            name = frame.f_code.co_filename
            if (name.startswith("<") and frame.f_code not in change_codes) or skip(name):
                frame = frame.f_back
                continue
            return frame
        return None

    def in_stdlib(name):
        return name.startswith(stdlib) and ("site-packages" + sep) not in name

    def in_workspace(name):
        return name.startswith(roots) and ("site-packages" + sep) not in name and ("dist-packages" + sep) not in name

    def importer_of(frame):
        while frame is not None:
            name = frame.f_code.co_filename
            if name.startswith("<frozen importlib") or name in import_machinery or name.endswith(machinery_suffixes):
                frame = frame.f_back
                continue
            return frame
        return None

    def on_exec(code, frame):
        name = code.co_filename
        if name in change:
            mark(code)
            if code.co_name != "<module>":
                return
            importer = importer_of(frame)
            if importer is None:
                report("import", "a module of the change (" + relative(name) + ") ran with no code importing it", None)
                return
            iname = importer.f_code.co_filename
            if is_change(importer.f_code) or in_workspace(iname) or iname.endswith(collectors):
                return
            if iname == "<string>" and importer.f_back is None:
                # python -c: the test command's own code.
                return
            report("import", "a module of the change (" + relative(name) + ") imported by code outside the repository", importer)
        elif change_on_stack(frame) is not None:
            mark(code)

    def touches_report(path):
        full = normal(path)
        if full in reports:
            return True
        try:
            info = stat(full)
        except (OSError, ValueError):
            return False
        for known in reports:
            try:
                other = stat(known)
            except (OSError, ValueError):
                continue
            if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
                return True
        return False

    def judge_report_write(what, frame):
        culprit = change_on_stack(frame)
        origin = requester(frame, in_stdlib)
        if culprit is not None or origin is None or in_workspace(origin.f_code.co_filename):
            report("report-write", what, culprit or origin)

    def on_open(args, frame):
        path, mode, flags = text(args[0]), args[1], args[2]
        if path is None:
            return
        full = normal(path)
        if full == here or full.startswith(here + sep):
            report("channel", "opened the sentinel's own files: " + path, requester(frame, in_stdlib))
            return
        if full.startswith("/proc/") and full.endswith("/mem"):
            report("memory", "opened a process's memory: " + path, requester(frame, in_stdlib))
            return
        writing = (_type(mode) is _str and _any(c in mode for c in "wax+")) or (_type(flags) is _int and flags & write_flags)
        if writing and reports and touches_report(path):
            judge_report_write("opened the test report for writing: " + path, frame)

    def on_move(event, args, frame):
        for value in args[:2]:
            path = text(value)
            if path is not None and reports and touches_report(path):
                judge_report_write(event + " on the test report: " + path, frame)
                return

    def on_spawn(event, args, frame):
        if event == "os.system":
            words = words_of(args[0])
        elif event == "subprocess.Popen":
            words = words_of(args[1]) or words_of(args[0])
        elif event == "os.spawn":
            words = words_of(args[2])
        else:
            words = words_of(args[1])
        if not starts_runner(words):
            return
        culprit = change_on_stack(frame)
        if culprit is not None or runner:
            report("rerun", "started the test runner again: " + " ".join(words[:8]), culprit or requester(frame, in_stdlib))

    def loading_module(frame):
        """compile called by the import system's SourceFileLoader, unaltered, for a module it loads."""
        if frame is not None and removed_code is not None and frame.f_code is removed_code:
            frame = frame.f_back
        if frame is None or source_to_code_code is None or frame.f_code is not source_to_code_code:
            return False
        up = frame.f_back
        if up is None or get_code_code is None or up.f_code is not get_code_code:
            return False
        loader = up.f_locals.get("self")
        if source_loader is None or _type(loader) is not source_loader or getattr(source_loader, "get_data", None) is not source_get_data:
            return False
        own = getattr(loader, "__dict__", None)
        return not (_isinstance(own, _dict) and "get_data" in own)

    def handle(event, args, frame):
        if event in gc_events:
            culprit = change_on_stack(frame)
            if culprit is not None:
                report("gc", event + " with code of the change running", culprit)
        elif event in frame_events or event == "object.__getattr__":
            who = frame
            while who is not None and who.f_code.co_filename in frame_files and who.f_code.co_name in giver_names:
                who = who.f_back
            who = requester(who, lambda n: False)
            if who is not None and is_change(who.f_code):
                report("frame", (event if event in frame_events else "." + args[1]) + " from code of the change", who)
        elif event == "exec":
            if change or change_codes:
                on_exec(args[0], frame)
        elif event == "open":
            on_open(args, frame)
        elif event.startswith("ctypes."):
            who = requester(frame, lambda n: n.startswith(ctypes_dir))
            if who is not None and is_change(who.f_code):
                report("ctypes", event + " from code of the change", who)
        elif event in spawn_events:
            on_spawn(event, args, frame)
        elif event in move_events:
            on_move(event, args, frame)
        elif event in trace_events:
            culprit = change_on_stack(frame)
            if culprit is not None:
                report("trace", event + " from code of the change", culprit)
        elif event == "compile":
            caller = requester(frame, lambda n: False)
            name = text(args[1])
            if caller is not None and name is not None and is_change(caller.f_code) and not loading_module(frame):
                # Code compiled from a string is the change's by identity, when it is run or made a
                # function (exec, function.__new__): a shared name like "<string>" would taint others'.
                if not name.startswith("<") and normal(name) not in change:
                    report("compile", "compiled code under another file's name: " + name, caller)
        elif event == "function.__new__":
            if _type(args[0]) is code_type and change_on_stack(frame) is not None:
                mark(args[0])
        elif event == "code.__new__":
            culprit = change_on_stack(frame)
            if culprit is not None:
                report("code", "built a code object", culprit)
        elif event == "object.__setattr__" or event == "object.__delattr__":
            target, name = args[0], text(args[1])
            runner_type = _isinstance(target, _type) and runner_module(type_attr(target, "__module__"))
            if name == "__code__" or runner_type:
                culprit = change_on_stack(frame)
                if culprit is not None:
                    owner = type_attr(target, "__qualname__") if runner_type else "a function"
                    report("patch", event.split(".")[1].strip("_") + " " + _str(name) + " of " + _str(owner), culprit)
        elif event == "socket.connect":
            if text(args[1]) == channel_path:
                report("channel", "connected to the sentinel's channel", requester(frame, in_stdlib))

    def runner_module(name):
        return _type(name) is _str and name.split(".")[0] in runner_tops

    def hook(event, args):
        if event not in watched or (event == "object.__getattr__" and args[1] not in frame_attrs):
            return
        me = get_ident()
        if me in busy:
            return
        busy.add(me)
        try:
            if getpid() != state["pid"]:
                state["lock"] = new_lock()
                connect("fork")
            handle(event, args, getframe(1))
        except BaseException:
            pass
        finally:
            busy.discard(me)

    def changed_value(value):
        """A function, or a property, static or class method around one, whose code is the change's."""
        kind = _type(value)
        if kind is property_type:
            parts = [value.fget, value.fset, value.fdel]
        elif kind is static_type or kind is class_type:
            parts = [value.__func__]
        else:
            parts = [value]
        return _any(_type(p) is function_type and is_change(p.__code__) for p in parts)

    def finish():
        me = get_ident()
        busy.add(me)
        try:
            if getpid() != state["pid"]:
                return
            if (change or change_codes) and _type(sys_modules) is _dict:
                # Module attributes are written without an audit event: what the change put in the
                # runner's modules is found here, at exit.
                for name, module in _list(sys_modules.items()):
                    if not runner_module(name) or _type(module) is not module_type:
                        continue
                    for key, value in _list(module_dict(module).items()):
                        if changed_value(value):
                            report("patch", name + "." + _str(key) + " replaced by code of the change", None)
                        elif _isinstance(value, _type) and type_attr(value, "__module__") == name:
                            # A class attribute is set without an audit event too (only special ones raise one).
                            for attr, member in _list(type_dict(value).items()):
                                if changed_value(member):
                                    report("patch", name + "." + _str(key) + "." + _str(attr) + " replaced by code of the change", None)
            send(["end", _str(getpid()), token])
        except BaseException:
            pass
        finally:
            busy.discard(me)

    connect("start")
    sys.addaudithook(hook)
    atexit.register(finish)
    return None


_crucible_sentinel()
del _crucible_sentinel
`;
