# lit configuration for Kina's golden tests: every `.kina` and `.test` file under
# tests/lit/ is a test with `// RUN:` lines checked by FileCheck (DESIGN.md 4).
# Files that are only inputs (the verbatim seed kernel, fixtures) go in an
# `Inputs/` folder, which lit skips, as in LLVM; a test file without a RUN line
# is reported UNRESOLVED (a failure), never silently passed.
#
# Substitutions:
#   %kina        the `kina` driver from the build folder ($KINA_BUILD_DIR, default build/)
#   %kina-lsp    the language server binary
#   %{kina_root} the repository root;  %{stdlib}  its stdlib/ folder
#   %ptxas, %nvdisasm, %cuobjdump, %tileiras  the CUDA tools setup found
#   FileCheck, not, split-file, count come from /usr/lib/llvm-22/bin, first in PATH.
#   %s, %S, %t, %T are lit's own.
# Features: `gpu` when `nvidia-smi -L` lists a device (tests needing one say
# `REQUIRES: gpu` and are counted as skipped elsewhere); `ptxas`, `nvdisasm`,
# `cuobjdump`, `tileiras` when setup found those tools.
# Run it through scripts/test.sh, or directly: `lit -sv tests/lit`.
import os
import shutil
import subprocess

import lit.formats

config.name = "Kina"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".kina", ".test"]
config.excludes = {"Inputs", "lit.cfg.py", "README.md"}  # a lit.local.cfg may .add() more

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
build_dir = os.path.abspath(os.environ.get("KINA_BUILD_DIR", os.path.join(root, "build")))
llvm_bin = os.environ.get("KINA_LLVM_BIN", "/usr/lib/llvm-22/bin")

config.test_source_root = here
config.test_exec_root = os.path.join(build_dir, "tests", "lit")

# The tool paths that scripts/setup.sh wrote (KINA_PTXAS, ...), when the caller
# did not source .deps/env.sh itself.
env = dict(os.environ)
env_sh = os.path.join(root, ".deps", "env.sh")
if "KINA_PTXAS" not in env and os.path.exists(env_sh):
    try:
        out = subprocess.run(["bash", "-c", '. "$1" && env -0', "_", env_sh],
                             capture_output=True, timeout=30, check=True).stdout
        for item in out.split(b"\0"):
            key, _, value = item.decode("utf-8", "replace").partition("=")
            if key.startswith("KINA_") or key == "PATH":
                env[key] = value
    except (OSError, subprocess.SubprocessError) as e:
        lit_config.warning(f"could not read {env_sh}: {e}")

# lit starts tests with an almost empty environment: pass on what the tools need.
for key, value in env.items():
    if key.startswith(("KINA_", "CUDA_", "NVIDIA_")) or key in (
            "HOME", "XDG_CACHE_HOME", "LD_LIBRARY_PATH", "TMPDIR", "LANG", "LC_ALL"):
        config.environment[key] = value
config.environment["KINA_BUILD_DIR"] = build_dir


def find_binary(name, env_var, usual):
    """The built binary `name`: $env_var, then the usual places, then a search of
    the build folder. None when it has not been built."""
    explicit = os.environ.get(env_var)
    if explicit:
        return explicit
    for rel in usual:
        path = os.path.join(build_dir, rel)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    for dirpath, dirnames, filenames in os.walk(build_dir):
        dirnames[:] = [d for d in dirnames if d != "CMakeFiles" and not d.startswith(".")]
        if name in filenames:
            path = os.path.join(dirpath, name)
            if os.access(path, os.X_OK):
                return path
    return None


def tool_subst(name, env_var, usual):
    path = find_binary(name, env_var, usual)
    if path:
        return path
    # Not built: every test that uses it fails with this message (never passes).
    lit_config.note(f"'{name}' is not built in {build_dir}; tests that use it will fail")
    return f"{name}-is-not-built-in-{build_dir}"


kina = tool_subst("kina", "KINA_BIN", ["compiler/driver/kina", "bin/kina", "kina"])
kina_lsp = tool_subst("kina-lsp", "KINA_LSP_BIN",
                      ["lsp-server/kina-lsp", "bin/kina-lsp", "kina-lsp"])

# Longer names first: `%kina-lsp` must not be read as `%kina` + "-lsp".
config.substitutions.append(("%kina-lsp", kina_lsp))
config.substitutions.append(("%kina", kina))
config.substitutions.append(("%{kina_root}", root))
config.substitutions.append(("%{stdlib}", os.path.join(root, "stdlib")))

path = [llvm_bin, os.path.dirname(kina) if os.path.isabs(kina) else None,
        env.get("PATH", os.environ.get("PATH", ""))]
config.environment["PATH"] = os.pathsep.join(p for p in path if p)
for tool in ("FileCheck", "not", "split-file", "count"):
    if not os.path.exists(os.path.join(llvm_bin, tool)):
        lit_config.fatal(f"{tool} not found in {llvm_bin}: run scripts/setup.sh")


def has_gpu():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        r = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return r.returncode == 0 and "GPU" in r.stdout


if has_gpu():
    config.available_features.add("gpu")
for feature, var in (("ptxas", "KINA_PTXAS"), ("nvdisasm", "KINA_NVDISASM"),
                     ("cuobjdump", "KINA_CUOBJDUMP"), ("tileiras", "KINA_TILEIRAS")):
    tool = env.get(var)
    if tool and os.access(tool, os.X_OK):
        config.available_features.add(feature)
        # lit's shell does not expand $VARS: `%ptxas` names the tool instead.
        config.substitutions.insert(0, ("%" + feature, tool))

# A hung test fails after this many seconds instead of hanging CI (needs psutil).
try:
    import psutil  # noqa: F401
    lit_config.maxIndividualTestTime = int(os.environ.get("KINA_LIT_TIMEOUT", "300"))
except ImportError:
    lit_config.note("python3-psutil missing: no per-test timeout")

# `%python-numpy` is a Python 3 that imports NumPy ($PYTHON, python3 on PATH,
# or Debian's /usr/bin/python3, where scripts/setup.sh installs python3-numpy);
# without one, the tests that use it fail (never pass).
numpy_python = None
for cand in (os.environ.get("PYTHON"), shutil.which("python3"), "/usr/bin/python3"):
    if not cand:
        continue
    try:
        ok = subprocess.run([cand, "-c", "import numpy"], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    if ok:
        numpy_python = cand
        break
if not numpy_python:
    lit_config.note("no python3 with NumPy: tests using %python-numpy will fail")
    numpy_python = "python3-with-numpy-not-found"
config.substitutions.insert(0, ("%python-numpy", numpy_python))
