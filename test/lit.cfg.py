# -*- Python -*-
# Main lit configuration of softmax-mlir. Loaded by the generated
# build*/test/lit.site.cfg.py, which sets the config.* paths used below.

import os

# Run from the source tree (`lit test/Dialect/Softmax/ops.mlir`), lit finds
# this file first and no site config has set the build's paths: load the
# site config of the build instead ($SOFTMAX_BUILD_DIR, relative to the
# repository root like in scripts/common.sh, default build/). It sets the
# paths and loads this file again; the bare `raise SystemExit` then returns
# control to lit (TestingConfig.load_from_path allows it), so the rest of
# this file runs once, with the site config's values. The suite's exec root
# is the build's test/ either way, so both spellings run the same tests.
if not hasattr(config, "softmax_obj_root"):
    _src_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    _build_dir = os.environ.get("SOFTMAX_BUILD_DIR", "build")
    _site_cfg = os.path.join(_src_root, _build_dir, "test", "lit.site.cfg.py")
    if not os.path.isfile(_site_cfg):
        lit_config.fatal(
            "no %s: configure and build first (bash scripts/setup.sh), or "
            "set SOFTMAX_BUILD_DIR to the build directory (relative to %s or "
            "absolute), or run lit on <build>/test" % (_site_cfg, _src_root)
        )
    lit_config.load_config(config, _site_cfg)
    raise SystemExit

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "SOFTMAX"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = [
    "Inputs",
    "CMakeLists.txt",
    "README.txt",
    "lit.cfg.py",
    "lit.site.cfg.py",
    "lit.local.cfg",
    "consumer",
]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.softmax_obj_root, "test")

# lit scrubs the environment: keep what GPU toolchains (libdevice lookup),
# ccache and the embedding test's nested CMake build need.
llvm_config.with_system_environment(
    [
        "HOME",
        "TMP",
        "TEMP",
        "TMPDIR",
        "XDG_CACHE_HOME",
        "CUDA_HOME",
        "CUDA_ROOT",
        "CUDA_PATH",
        "ROCM_PATH",
        "CCACHE_DIR",
        "CCACHE_BASEDIR",
        "CCACHE_MAXSIZE",
        "ASAN_OPTIONS",
        "UBSAN_OPTIONS",
    ]
)

# FileCheck, not, count (all in /usr/lib/llvm-22/bin only).
llvm_config.use_default_substitutions()

# Our tools first, then LLVM's.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.softmax_tools_dir, append_path=True)

runner_libs = ",".join(
    os.path.join(config.llvm_lib_dir, lib)
    for lib in ("libmlir_c_runner_utils.so", "libmlir_runner_utils.so")
)
softmax_opt = os.path.join(config.softmax_tools_dir, "softmax-opt")
if os.path.exists(os.path.join(config.llvm_lib_dir, "libomp.so")):
    config.available_features.add("libomp")

config.substitutions.extend(
    [
        ("%softmax_src_root", config.softmax_src_root),
        ("%softmax_obj_root", config.softmax_obj_root),
        ("%softmax_opt", softmax_opt),
        ("%mlir_opt", os.path.join(config.llvm_tools_dir, "mlir-opt")),
        ("%mlir_runner", os.path.join(config.llvm_tools_dir, "mlir-runner")),
        ("%runner_libs", "-shared-libs=" + runner_libs),
        # Programs lowered with softmax-to-cpu{threads != 1} call libomp.
        ("%omp_runner_libs", "-shared-libs=" + runner_libs + ","
         + os.path.join(config.llvm_lib_dir, "libomp.so")),
        ("%mlir_lib_dir", config.llvm_lib_dir),
        ("%python", config.python_executable),
        ("%plugin", config.softmax_plugin),
        ("%cmake_generator", '"%s"' % config.cmake_generator),
        ("%cmake", config.cmake_command),
        ("%host_cxx", config.host_cxx),
        ("%host_cc", config.host_cc),
        ("%mlir_cmake_dir", config.mlir_cmake_dir),
    ]
)

# A bare `softmax-opt` in a RUN line resolves to the one just built.
llvm_config.add_tool_substitutions(
    [ToolSubst("softmax-opt", softmax_opt)], [config.softmax_tools_dir]
)

if os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")

# ROCDL binaries need Debian's rocm-device-libs (the setup script installs
# them); without them the ROCDL tests are reported unsupported, not skipped
# silently.
if os.path.isdir("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"):
    config.available_features.add("rocm-device-libs")

if config.softmax_sanitizers:
    config.available_features.add("asan")
    # softmax-opt is instrumented, libMLIR.so/libLLVM.so are not. ASan
    # replaces malloc/new process-wide, so that mix works, and LeakSanitizer
    # stays on: run over this whole suite it reports nothing from MLIR's
    # process-lifetime registries (they stay reachable through globals). If
    # it ever does, add "detect_leaks=0" here rather than in every test.
    # allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons the unused
    # part of each slab when compiled with ASan. Our attribute storage
    # (#softmax.gpu_strategy, ...) is allocated by that code inlined into
    # softmax-opt, from the context's allocator, which the uninstrumented
    # libMLIR.so then allocates from without unpoisoning: a false
    # use-after-poison in StringAttr::get. Without manual poisoning ASan
    # still checks every heap access.
    # The caller's ASAN_OPTIONS/UBSAN_OPTIONS come last and win.
    asopts = config.environment.get("ASAN_OPTIONS", "")
    config.environment["ASAN_OPTIONS"] = ":".join(
        o for o in ("allow_user_poisoning=0", asopts) if o
    )
    ubopts = config.environment.get("UBSAN_OPTIONS", "")
    config.environment["UBSAN_OPTIONS"] = ":".join(
        o for o in ("print_stacktrace=1", ubopts) if o
    )
