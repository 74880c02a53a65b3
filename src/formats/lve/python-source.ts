// The Python side of LVE's Python checkers, run in assay's long-lived python3 worker: lambdas are
// `eval`'d as LVE evaluates them (with `re` in scope), and custom `checker/checker*.py` files are
// imported as they are, against a small stand-in for the `lve.checkers` package (written for
// assay: base classes with LVE's documented behaviour, a registry by class name). Third-party
// modules a checker imports but never needs for a text check (openai, transformers) resolve to
// placeholders that fail only when used, naming the missing package.

/** The program: `main(request)` answers one check with {"safe": bool}. */
export const LVE_PYTHON_SOURCE = String.raw`
import enum, importlib.abc, importlib.machinery, importlib.util, json, numbers, re, sys, types

_INT = r"((?:\d{1,3}(?:[,']\d{3})+)|\d+)"
_FLOAT = r"((?:\d{1,3}(?:[,'_]\d{3})*(?:\.\d+)?)|(?:\d+[eE][+-]?\d+))"


def _extract(value, mode):
    if mode is None:
        return value
    try:
        found = re.findall(_INT if mode.startswith("int") else _FLOAT, value)
        text = found[0] if mode.endswith("first") else found[-1]
        text = text.replace(",", "").replace("'", "").replace("_", "")
        return int(text) if mode.startswith("int") else float(text)
    except Exception:
        return value


class Role(str, enum.Enum):
    user = "user"
    assistant = "assistant"
    system = "system"


class Message:
    def __init__(self, content=None, role=Role.user, variable=None, image_url=None):
        self.content = content
        self.role = Role(role)
        self.variable = variable
        self.image_url = image_url

    def __repr__(self):
        return "Message(content=%r, role=%r, variable=%r)" % (self.content, self.role.value, self.variable)


class _Registry(type):
    checkers = {}

    def __new__(mcs, name, bases, attrs):
        cls = type.__new__(mcs, name, bases, attrs)
        if "BaseChecker" not in name:
            _Registry.checkers[name] = cls
        return cls


class BaseChecker(metaclass=_Registry):
    def __init__(self, extract=None):
        if extract not in (None, "int_first", "int_last", "float_first", "float_last"):
            raise ValueError("unknown extract mode %r" % (extract,))
        self.extract = extract

    def _extract(self, value):
        return _extract(value, getattr(self, "extract", None))

    def extract_response_from_prompt(self, prompt, full=False):
        last = prompt[-1]
        if last.role != Role.assistant:
            raise AssertionError("the last message is not the model's answer")
        return last.content if full else self._extract(last.content)

    def extract_variables_from_prompt(self, prompt, full=False):
        out = {}
        for message in prompt:
            if message.role == Role.assistant:
                key = message.variable if message.variable is not None else str(len(out))
                out[key] = message.content if full else self._extract(message.content)
        return out

    def is_safe(self, prompt_out, param_values=None):
        raise NotImplementedError

    def postprocess_response(self, response):
        return response

    @classmethod
    def is_multi_run(cls):
        return False

    @classmethod
    def is_multi_variable(cls):
        return False


class MultiRunBaseChecker(BaseChecker):
    @classmethod
    def is_multi_run(cls):
        return True


def ensure_installed(*names, **kwargs):
    return None


class _Missing(types.ModuleType):
    """A module that is not installed: importing works, using anything from it fails."""

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _MissingThing("%s.%s" % (self.__name__, attr))


class _MissingThing:
    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        return _MissingThing("%s.%s" % (self._name, attr))

    def __call__(self, *args, **kwargs):
        raise ModuleNotFoundError("the checker uses %s, which is not installed for assay's python3" % self._name)


class _MissingFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on sys.meta_path: consulted only for modules nothing else finds, and only answers
    imports written in a checker file itself (a library's optional imports still fail normally)."""

    files = set()

    def find_spec(self, name, path, target=None):
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename.startswith("<frozen"):
            frame = frame.f_back
        if frame is None or frame.f_code.co_filename not in _MissingFinder.files:
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        module = _Missing(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        return None


def _install_shim():
    if getattr(sys.modules.get("lve"), "_assay_shim", False):
        return
    lve = types.ModuleType("lve")
    lve._assay_shim = True
    lve.__path__ = []
    checkers = types.ModuleType("lve.checkers")
    checkers.__path__ = []
    base = types.ModuleType("lve.checkers.base")
    prompt = types.ModuleType("lve.prompt")
    utils = types.ModuleType("lve.utils")
    utils.__path__ = []
    importutils = types.ModuleType("lve.utils.importutils")
    for module in (checkers, base):
        module.BaseChecker = BaseChecker
        module.MultiRunBaseChecker = MultiRunBaseChecker
        module.Role = Role
        module.re = re
    prompt.Role = Role
    prompt.Message = Message
    importutils.ensure_installed = ensure_installed
    lve.checkers, checkers.base, lve.prompt, lve.utils, utils.importutils = checkers, base, prompt, utils, importutils
    sys.modules.update({
        "lve": lve, "lve.checkers": checkers, "lve.checkers.base": base, "lve.prompt": prompt,
        "lve.utils": utils, "lve.utils.importutils": importutils,
    })
    sys.meta_path.append(_MissingFinder())


_loaded = {}


def _load(path):
    if path in _loaded:
        return
    _install_shim()
    name = "_assay_lve_checker_%d" % len(_loaded)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    _MissingFinder.files.add(path)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    _loaded[path] = module


def _messages(raw):
    return [Message(m["content"], m["role"], m.get("variable"), m.get("image_url")) for m in raw]


def _verdict(value, what):
    # LVE records the value as TestInstance.passed, a pydantic bool: the caller applies pydantic's
    # lax rules to the scalars returned here.
    # Values JSON cannot carry are brought to one it can, as pydantic reads them: bytes as UTF-8
    # text, any other number (numpy's, Decimal, Fraction) as False or True where it equals 0 or 1;
    # what pydantic refuses is sent as an int, a finite float or a repr, which the caller refuses with the rest.
    if isinstance(value, bool):
        return value
    if type(value).__module__ == "numpy" and type(value).__name__ in ("bool_", "bool"):
        return bool(value)
    if value is None or type(value) in (int, str):
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bytes):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return repr(value)
    if isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real):
        return repr(value)
    if isinstance(value, numbers.Number):
        if value == 0:
            return False
        if value == 1:
            return True
        if isinstance(value, numbers.Integral):
            return int(value)
        value = float(value)
        return value if value - value == 0 else repr(value)
    raise TypeError("%s returned %r, not a bool (LVE records it as the instance's passed)" % (what, value))


def main(request):
    params = json.loads(request["params"])
    if request["kind"] == "lambda":
        func = eval(request["func"], {"re": re, "__builtins__": __builtins__})
        if request.get("multi"):
            value = func(request["responses"], **params)
        else:
            value = func(_extract(request["response"], request.get("extract")), **params)
        return {"safe": _verdict(value, "the lambda")}
    for path in request["files"]:
        _load(path)
    # The LVE's own files first: two LVEs may each define a checker of the same name.
    cls = None
    for path in request["files"]:
        found = getattr(_loaded[path], request["checker"], None)
        if isinstance(found, type):
            cls = found
    if cls is None:
        cls = _Registry.checkers.get(request["checker"])
    if cls is None:
        raise LookupError("no class %s in %s" % (request["checker"], ", ".join(request["files"])))
    if not request.get("multi") and cls.is_multi_run():
        # LVE's run() passes score_callback, which the multi-run invoke_check does not take.
        raise TypeError("a multi-run checker needs a multi_run_prompt (LVE raises: invoke_check() got an unexpected keyword argument 'score_callback')")
    checker = cls(**json.loads(request["args"]))
    if request.get("multi"):
        prompt_out = [_messages(run) for run in request["runs"]]
    else:
        prompt_out = _messages(request["messages"])
    return {"safe": _verdict(checker.is_safe(prompt_out, params), request["checker"] + ".is_safe")}
`;
