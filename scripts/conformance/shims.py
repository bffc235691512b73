"""Lets current framework code import on Debian's torch 1.13 on a CPU (the conformance check's
only torch). Nothing that exists in torch 1.13 is replaced:

* torch.__version__ reads 2.9.0, so the frameworks' version gates take their current paths;
* a torch submodule that 1.13 lacks (torch.distributed.tensor, device_mesh, pipelining, ...)
  and a missing attribute of an existing torch module become stand-ins (`Anything`);
* the GPU is a mocked device of the host type's compute capability (PARAPLAN_GPU_CAPABILITY,
  "9.0" unless set), since validators ask for it (fp8, flash attention);
* `STUBBED` packages (CUDA/NPU-only libraries that no CPU wheel provides) import as stand-ins
  only where a framework imports them unconditionally.

A stand-in accepts any attribute, call, subclassing and decoration and is falsy, so a check that
depends on those libraries' behaviour is not exercised (report.md says which).
"""
import importlib.abc
import importlib.machinery
import os
import sys
import types
import typing

import dataclasses

# torch 1.13's torch.distributed._shard declares a dataclass field with an unhashable default,
# which Python 3.11 rejects ("mutable default ... use default_factory"): such a default becomes
# its default_factory, as torch 2.x writes it.
_get_field = dataclasses._get_field


def _get_field_allowing_instances(cls, name, type_, kw_only):
    try:
        return _get_field(cls, name, type_, kw_only)
    except ValueError as error:
        if "mutable default" not in str(error):
            raise
        default = cls.__dict__[name]
        setattr(cls, name, dataclasses.field(default_factory=lambda d=default: d))
        return _get_field(cls, name, type_, kw_only)


dataclasses._get_field = _get_field_allowing_instances

import torch  # noqa: E402


class Anything:
    """Stands in for any object: attributes, calls, decorators, base classes."""

    def __init__(self, name="stand-in"):
        self._name = name
        self.__name__ = self.__qualname__ = name.rsplit(".", 1)[-1]  # as a class would have

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Anything(f"{self._name}.{name}")

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]  # a decorator
        return Anything(f"{self._name}()")

    def __mro_entries__(self, bases):
        # A class of its own, so it combines with any other base (ABC, Generic, ...).
        if "_class" not in self.__dict__:
            self.__dict__["_class"] = type(self._name.rsplit(".", 1)[-1], (), {
                "__init__": lambda self, *a, **k: None,
                # class keywords (TypedDict's total=False, ...) are accepted
                "__init_subclass__": classmethod(lambda cls, **k: None),
                "__getattr__": lambda self, name: Anything(name)})
        return (self.__dict__["_class"],)

    def __instancecheck__(self, obj):
        return False

    def __subclasscheck__(self, cls):
        return False

    def __bool__(self):
        return False

    def __iter__(self):
        return iter(())

    def __getitem__(self, key):
        return Anything(f"{self._name}[]")

    def __or__(self, other):
        return other

    __ror__ = __or__

    def __repr__(self):
        return f"<stand-in {self._name}>"


class StandInModule(types.ModuleType):
    def __init__(self, name):
        super().__init__(name)
        self.__path__ = []
        # Older than any version gate asks for; Transformer Engine as VERSIONS says.
        self.__version__ = VERSIONS.get(name, "0.0.0")
        self.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        value = Anything(f"{self.__name__}.{name}")
        setattr(self, name, value)
        return value


# Imported unconditionally by the frameworks and absent on a CPU host (CUDA kernels), and
# Transformer Engine, which Megatron-Core's TransformerConfig asks for (fused RoPE, fp8): told it
# is 2.14 (the release current with core_v0.19.0), its kernels are stand-ins, so "TE is not
# installed" is never reported as a launch error.
VERSIONS = {"transformer_engine": "2.14.0", "tensorboard": "2.20.0"}
STUBBED = {"triton", "transformer_engine"} | set(filter(None, os.environ.get("PARAPLAN_STUBBED", "").split(",")))


class StandInFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on sys.meta_path: only what no real finder found gets a stand-in."""

    def find_spec(self, name, path, target=None):
        # `import torch.Tensor` (a patch manager resolving "torch.Tensor.x") fails as in torch:
        # an existing attribute that is not a module is never replaced by a stand-in module.
        parent, _, child = name.rpartition(".")
        existing = getattr(sys.modules.get(parent), "__dict__", {}).get(child)
        if existing is not None and not isinstance(existing, (types.ModuleType, Anything)):
            return None
        # a package or a dotted subpackage of one (megatron.energon) listed in STUBBED
        if name.startswith("torch.") or any(name == s or name.startswith(s + ".")
                                            for s in STUBBED):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        return StandInModule(spec.name)

    def exec_module(self, module):
        parent, _, child = module.__name__.rpartition(".")
        if parent in sys.modules:
            setattr(sys.modules[parent], child, module)


sys.meta_path.append(StandInFinder())


def _fallback(module_name):
    def __getattr__(name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Anything(f"{module_name}.{name}")

    return __getattr__


torch.__version__ = "2.9.0"
import torch.utils.checkpoint  # noqa: E402,F401  (given the fallback below: noop_context_fn)

for _name, _module in list(sys.modules.items()):
    if (_name == "torch" or _name.startswith("torch.")) and isinstance(_module, types.ModuleType):
        if "__getattr__" not in _module.__dict__:
            _module.__getattr__ = _fallback(_name)

# A mocked GPU of the host type's capability.
def _capability():
    """Read at each call: a validator that checks several launches in forked children sets it
    per launch."""
    return tuple(int(x) for x in os.environ.get("PARAPLAN_GPU_CAPABILITY", "9.0").split("."))


torch.cuda.is_available = lambda: True
torch.cuda.device_count = lambda: 8
torch.cuda.current_device = lambda: 0
torch.cuda.get_device_capability = lambda device=None: _capability()
torch.cuda.get_device_properties = lambda device=None: types.SimpleNamespace(
    major=_capability()[0], minor=_capability()[1], total_memory=80 << 30, name="mocked",
    multi_processor_count=132)
torch.cuda.get_device_name = lambda device=None: "mocked"

# Python 3.12's typing.override, used by current framework code.
if not hasattr(typing, "override"):
    typing.override = lambda f: f

# numpy.dtypes (numpy >= 1.25) for Debian's numpy 1.24: a stand-in module.
try:
    import numpy.dtypes  # noqa: F401
except ImportError:
    import numpy

    numpy.dtypes = sys.modules["numpy.dtypes"] = StandInModule("numpy.dtypes")


# Operators torch 1.13's aten lacks (torch.ops.aten._scaled_dot_product_*, ...): stand-ins.
_op_getattr = torch._ops._OpNamespace.__getattr__


def _op_or_stand_in(self, name):
    try:
        return _op_getattr(self, name)
    except (AttributeError, RuntimeError):
        if name.startswith("__"):
            raise
        return Anything(f"torch.ops.{self.name}.{name}")


torch._ops._OpNamespace.__getattr__ = _op_or_stand_in


# Bare @torch.no_grad (torch >= 2.1 accepts the function itself), as current framework code
# writes it; torch 1.13's no_grad only takes no argument. A subclass that accepts both.
class _NoGrad(torch.no_grad):
    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return torch.autograd.grad_mode.no_grad()(orig_func)

    def __init__(self, orig_func=None):
        super().__init__()


torch.no_grad = _NoGrad
