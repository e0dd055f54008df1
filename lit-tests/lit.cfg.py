# lit configuration for mtpc's FileCheck tests.
#   lit -v lit-tests        (after cargo build --release)
# Each test states one invariant in a comment beside its CHECK lines.
import os

import lit.formats

config.name = "mtpc"
config.test_format = lit.formats.ShTest()
config.suffixes = [".ll"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(config.test_source_root)
config.test_exec_root = os.path.join(repo, "target", "lit")

llvm_bin = os.environ.get("LLVM_BIN", "/usr/lib/llvm-16/bin")
plugin = os.environ.get("MTPC_PLUGIN", os.path.join(repo, "target", "release", "libmtpc.so"))
if not os.path.exists(plugin):
    lit_config.fatal("the plugin %s does not exist: run cargo build --release first" % plugin)

# Tools by their plain names (FileCheck, not, llvm-dis, opt) from LLVM 16.
config.environment["PATH"] = os.pathsep.join([llvm_bin, config.environment.get("PATH", os.environ["PATH"])])
config.environment.pop("MTPC_THREADS", None)
config.substitutions.append(("%mtpc", plugin))
config.substitutions.append(("%opt-mtpc", "opt -load-pass-plugin=%s" % plugin))

# A host of another LLVM, for the test that mtpc refuses to load into it.
if os.path.exists("/usr/bin/opt-15"):
    config.available_features.add("opt-15")
