# lit configuration for mtpc's FileCheck tests.
#   lit -v lit-tests        (after cargo build --release)
#   MTPC_LLVM=22 lit -v lit-tests   (after cargo build-llvm22: the plugin for
#                                    LLVM 22, with LLVM 22's tools)
# Each test states one invariant in a comment beside its CHECK lines.
import os

import lit.formats

config.name = "mtpc"
config.test_format = lit.formats.ShTest()
config.suffixes = [".ll"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(config.test_source_root)
config.test_exec_root = os.path.join(repo, "target", "lit")

# The LLVM major under test: its tools, and the plugin built for it.
major = int(os.environ.get("MTPC_LLVM", "16"))
llvm_bin = os.environ.get("LLVM_BIN", "/usr/lib/llvm-%d/bin" % major)
build = ["release"] if major == 16 else ["llvm-%d" % major, "release"]
plugin = os.environ.get("MTPC_PLUGIN", os.path.join(repo, "target", *build, "libmtpc.so"))
if not os.path.exists(plugin):
    how = "cargo build --release" if major == 16 else "cargo build-llvm%d" % major
    lit_config.fatal("the plugin %s does not exist: run %s first" % (plugin, how))
config.name = "mtpc (LLVM %d)" % major

# Tools by their plain names (FileCheck, not, llvm-dis, opt) from that LLVM.
config.environment["PATH"] = os.pathsep.join([llvm_bin, config.environment.get("PATH", os.environ["PATH"])])
config.environment.pop("MTPC_THREADS", None)
config.substitutions.append(("%mtpc", plugin))
config.substitutions.append(("%llvm-major", str(major)))
config.substitutions.append(("%opt-mtpc", "opt -load-pass-plugin=%s" % plugin))

# A host of another LLVM, for the test that mtpc refuses to load into it:
# the first opt of another major installed.
for other in (15, 16, 19, 22):
    other_opt = "/usr/lib/llvm-%d/bin/opt" % other
    if other != major and os.path.exists(other_opt):
        config.available_features.add("other-llvm-opt")
        config.substitutions.append(("%other-opt", other_opt))
        config.substitutions.append(("%other-major", str(other)))
        break
