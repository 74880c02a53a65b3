// The Python side of the assertion worker, run with `python3 -c`. It lives in a TypeScript string so
// that it ships inside the compiled package (tsc copies no .py files) and needs no temporary file.
//
// Protocol: one JSON object per line each way. The worker first writes {"ready": true, "python": v}.
// Requests: {"id", "kind": "inline"|"file", "code"|"path", "fn", "header", "args"}. Replies:
// {"id", "ok": true, "result"} or {"id", "ok": false, "error", "where"?}. Requests are served in
// arrival order, one at a time. The worker exits when its stdin closes. The protocol uses private
// copies of fds 0 and 1: user code reads /dev/null from stdin and writes to stderr from stdout.
//
// Written without f-strings so that a Python 2 interpreter reaches the version check instead of
// failing with a syntax error nobody can read.

/** The worker's Python source. */
export const PYTHON_WORKER_SOURCE = String.raw`
import sys
if sys.version_info < (3, 7):
    sys.stderr.write("assay needs Python 3.7 or newer for python assertions, found %s\n" % sys.version.split()[0])
    sys.exit(3)

import asyncio
import dataclasses
import importlib.util
import inspect
import json
import os
import platform
import signal
import threading
import time
import traceback

# Importing a suite's scripts must not leave __pycache__ folders in the user's project.
sys.dont_write_bytecode = True

INLINE = "<inline python>"
_inline = {}
_modules = {}


def _protocol_channel():
    # Ctrl-C reaches the whole process group; assay decides when the worker stops (by closing stdin).
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except Exception:
        pass
    # Replies go to a private copy of stdout; fd 1 then points at stderr, so a print() in user code
    # (even from C) cannot corrupt the protocol.
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    # Requests come from a private copy of stdin; fd 0 then reads /dev/null, so input() or
    # sys.stdin.read() in user code sees end of input instead of the next request.
    requests = os.fdopen(os.dup(0), "rb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    return channel, requests


def _watch_parent(parent):
    # EOF on stdin ends the worker, but only between requests: user code stuck in a loop would
    # never see it. When assay dies the worker is re-parented, and this thread notices.
    while True:
        time.sleep(1)
        if os.getppid() != parent:
            os._exit(0)


def _jsonable(o):
    if hasattr(o, "tolist"):
        return o.tolist()
    if hasattr(o, "item"):
        return o.item()
    if dataclasses.is_dataclass(o) and not isinstance(o, type):
        return dataclasses.asdict(o)
    if isinstance(o, (set, frozenset)):
        return list(o)
    if hasattr(o, "__dict__"):
        return vars(o)
    raise TypeError("Object of type %s is not JSON serializable" % type(o).__name__)


def _send(channel, message):
    try:
        data = json.dumps(message, default=_jsonable, allow_nan=False)
    except Exception as e:
        text = str(e)
        if "Out of range float" in text:
            text = "the result contains NaN or Infinity, which JSON cannot carry"
        else:
            text = "the result cannot be sent as JSON: %s" % text
        data = json.dumps({"id": message.get("id"), "ok": False, "error": text})
    channel.write(data.encode("utf-8") + b"\n")
    channel.flush()


def _from_inline(code):
    fn = _inline.get(code)
    if fn is None:
        namespace = {"__name__": "__assay_inline__"}
        exec(compile(code, INLINE, "exec"), namespace)
        fn = namespace["main"]
        if len(_inline) >= 1000:
            _inline.clear()
        _inline[code] = fn
    return fn


def _from_file(path, name):
    module = _modules.get(path)
    if module is None:
        folder = os.path.dirname(path)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        module_name = "_assay_assert_%d" % len(_modules)
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise ImportError("cannot load %s as a Python module" % path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[module_name]
            raise
        _modules[path] = module
    target = module
    for part in name.split("."):
        if not hasattr(target, part):
            raise AttributeError("%s has no function '%s'" % (os.path.basename(path), name))
        target = getattr(target, part)
    if not callable(target):
        raise TypeError("'%s' in %s is not a function" % (name, os.path.basename(path)))
    return target


def _line(filename, lineno, header):
    return lineno - header if filename == INLINE and lineno is not None else lineno


def _describe(e, header):
    if isinstance(e, SyntaxError):
        line = _line(e.filename, e.lineno, header)
        return "SyntaxError: %s%s" % (e.msg, " (line %s)" % line if line else "")
    text = str(e)
    return "%s: %s" % (type(e).__name__, text) if text else type(e).__name__


def _where(e, header):
    frames = traceback.extract_tb(e.__traceback__)
    # The worker's own frames come from the -c source, named "<string>".
    frames = [f for f in frames if f.filename != "<string>"]
    if not frames:
        return None
    last = frames[-1]
    name = "inline code" if last.filename == INLINE else last.filename
    return 'File "%s", line %s, in %s' % (name, _line(last.filename, last.lineno, header), last.name)


def _handle(request):
    rid = request.get("id")
    header = request.get("header") or 0
    try:
        if request.get("kind") == "inline":
            fn = _from_inline(request["code"])
        else:
            fn = _from_file(request["path"], request["fn"])
        result = fn(*request["args"])
        if inspect.iscoroutine(result):
            result = asyncio.run(result)
        return {"id": rid, "ok": True, "result": result}
    except BaseException as e:
        # SystemExit from user code included: one bad assertion must not stop the others.
        reply = {"id": rid, "ok": False, "error": _describe(e, header)}
        where = _where(e, header)
        if where:
            reply["where"] = where
        return reply


def _main():
    channel, requests = _protocol_channel()
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    _send(channel, {"ready": True, "python": platform.python_version()})
    for raw in requests:
        line = raw.strip()
        if not line:
            continue
        try:
            request = json.loads(line.decode("utf-8"))
        except Exception as e:
            _send(channel, {"id": None, "ok": False, "error": "unreadable request: %s" % e})
            continue
        _send(channel, _handle(request))


_main()
`;
