#!/usr/bin/env python3
"""gpu-peers.py — the specialised tools beside gpubench, on the same device in the same call, and
gpubench / peer ratios per figure.

The gpubench side is a results file (--results, e.g. gpu-check's smoke-cuda.json) or a run this
script makes (--exe, --profile, --backend). Every peer then measures the cases of that file it
knows, at the file's own sizes, shapes and precisions:
  torch        (PyTorch with a CUDA device) torch.matmul f32 (TF32 off), tf32 (on), f16, bf16;
               torch._scaled_mm FP8 (e4m3, B column-major, as the TN GEMM); a device-to-device
               copy (copy_, counted as memory copy: read + write) and a triad
               (torch.add(b, c, alpha=0.4, out=a): 3 arrays); pinned H2D and D2H (copy_ with
               non_blocking from and to page-locked host memory) and D2D
               torch.nn.functional.conv2d (cuDNN, cudnn.benchmark: its fastest algorithm) at
               each forward conv case's dims, NCHW or channels_last, f32 (TF32 off), tf32, f16,
               bf16
  cupy         an elementwise triad and copy (cupy.ElementwiseKernel), one element per thread
  babelstream  BabelStream's CUDA model (grid-stride, unroll 4), or its OpenCL model on an
               OpenCL run; built here from SRC/BabelStream with nvcc (or the C++ compiler),
               run at each memory size: copy, mul, add, triad, dot
  nvbandwidth  NVIDIA's nvbandwidth, built here from SRC/nvbandwidth with CMake (it needs Boost
               program_options), run for H2D, D2H (copy engines) and the device-local copy
A binary scripts/peers-prebuild.sh made (BUILD/babelstream-cuda/cuda-stream,
BUILD/nvbandwidth/nvbandwidth) or an earlier call built is used as it is (delete it to rebuild).
Every timing is the peer's own best of several repetitions (CUDA events around one operation
for torch and CuPy; BabelStream's max; nvbandwidth's own figure), set against gpubench's best
sample of the same case: ratio = gpubench / peer for rates (higher is better), so a ratio of
0.98 means gpubench measured 2% less than the specialist. A peer that is absent, does not
build or fails is recorded under "missing" with why, and the others still run.

  scripts/gpu-peers.py --results FILE [options]
  scripts/gpu-peers.py --exe GPUBENCH --profile FILE --backend cuda|opencl [options]
Options: -o DIR (peers.json and peers.md go there; default .), --src DIR (the peers' sources,
default build-peers/src), --build DIR (where they are built, default build-peers), --budget S
(seconds for the whole step, default 100: a peer that would start after it is recorded as
missing), --only NAMES (comma list of peers to try), --md FILE (the table; default
OUT/peers.md). The gpubench side is device 0 of the backend, the device every peer uses.
Exit status: 0 the step ran (whichever peers were there); 1 the gpubench side failed or gave no
results; 2 usage.
"""
import argparse
import datetime
import html
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

SCHEMA = "gpubench-peers/1"
PEERS = ("torch", "cupy", "babelstream", "nvbandwidth")
TRIAD_SCALAR = 0.4
GEMM_TORCH = {"f32": ("float32", False), "tf32": ("float32", True), "f16": ("float16", False),
              "bf16": ("bfloat16", False)}
CONV_DIMS = re.compile(r"(\d{1,6})x(\d{1,6})x(\d{1,6})x(\d{1,6})-(\d{1,6})x(\d{1,3})x(\d{1,3})"
                       r"((?:-[spd]\d{1,3}(?:x\d{1,3})?)*)(?:-g(\d{1,6}))?")
TRIALS = 10  # timed repetitions per figure (after warm-ups): the best is kept


class Budget:
    def __init__(self, seconds):
        self.end = time.monotonic() + seconds

    def left(self):
        return self.end - time.monotonic()


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---- the gpubench side ---------------------------------------------------------------------------

# The values a results file may give the params a key is made of (gpubench's own choices): any
# other value is not a case a peer knows, and its result is left out.
TYPES, TRANSES, MEMORIES = ("float", "double"), ("nn", "nt", "tn", "tt"), ("pinned", "device")
MAX_BYTES = 1 << 40


def size_of(v):
    """A byte count from a results file, or None unless it is a whole number in 1 B .. 1 TiB."""
    if isinstance(v, bool) or not isinstance(v, int) or not 0 < v <= MAX_BYTES:
        return None
    return v


def key_of(suite, case, params):
    """What identifies a figure across tools: the suite, the case and the params that change what
    is measured (not gpubench's tunables such as wg or vec); None for anything else, or for a
    value gpubench would not have written."""
    if not isinstance(params, dict) or not isinstance(case, str):
        return None
    p = params
    if suite == "memory" and case in ("copy", "mul", "add", "triad", "dot"):
        t, n = p.get("type", "float"), size_of(p.get("size"))
        return (suite, case, t, n) if t in TYPES and n else None
    if suite == "gemm" and case in GEMM_TORCH or suite == "gemm" and case == "f8e4m3":
        shape, tr = p.get("shape"), p.get("trans", "nn")
        ok = isinstance(shape, str) and re.fullmatch(r"\d{1,6}(x\d{1,6}x\d{1,6})?", shape)
        return (suite, case, shape, tr) if ok and tr in TRANSES else None
    if suite == "transfer" and case in ("h2d", "d2h", "d2d"):
        m, n = p.get("memory"), size_of(p.get("size"))
        return (suite, case, m, n) if m in MEMORIES and n else None
    if suite == "conv" and case == "fwd":
        prec, layout, dims = p.get("prec", "f32"), p.get("layout", "nchw"), p.get("dims")
        ok = isinstance(prec, str) and isinstance(layout, str) and prec in GEMM_TORCH and \
            layout in ("nchw", "nhwc") and isinstance(dims, str) and CONV_DIMS.fullmatch(dims)
        return (suite, case, prec, layout, dims) if ok else None
    return None


def conv_geometry(dims):
    """(N, C, H, W, K, R, S, stride, padding, dilation, groups) of a conv `dims` figure, each of
    stride, padding, dilation a (height, width) pair; None unless it is the form gpubench writes
    and describes an output of at least 1 x 1."""
    m = CONV_DIMS.fullmatch(dims) if isinstance(dims, str) else None
    if not m:
        return None
    n, c, h, w, k, r, s = (int(x) for x in m.groups()[:7])
    pairs = {"s": (1, 1), "p": (0, 0), "d": (1, 1)}
    for key, a, b in re.findall(r"-([spd])(\d+)(?:x(\d+))?", m.group(8) or ""):
        pairs[key] = (int(a), int(b or a))
    g = int(m.group(9) or 1)
    if 0 in (n, c, h, w, k, r, s, g) or c % g or k % g or 0 in pairs["s"] + pairs["d"]:
        return None
    out = [(size + 2 * pd - dl * (f - 1) - 1) // st + 1 for size, pd, dl, f, st in
           ((h, pairs["p"][0], pairs["d"][0], r, pairs["s"][0]),
            (w, pairs["p"][1], pairs["d"][1], s, pairs["s"][1]))]
    if min(out) < 1:
        return None
    return n, c, h, w, k, r, s, pairs["s"], pairs["p"], pairs["d"], g, out[0], out[1]


def finite(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(float(v))


def with_array_bytes(r):
    """The params of result r, with a memory case's size 0 (the suite picked it) replaced by the
    size it picked (its figure array_bytes), so that a peer runs that size; a conv case's with
    the dimensions it ran (its text figure dims)."""
    params = r.get("params")
    if r.get("suite") == "conv" and isinstance(params, dict):
        for f in r.get("figures") if isinstance(r.get("figures"), list) else []:
            if isinstance(f, dict) and f.get("name") == "dims" and isinstance(f.get("text"), str):
                return dict(params, dims=f["text"])
        return params
    if r.get("suite") != "memory" or not isinstance(params, dict) or params.get("size") != 0:
        return params
    for f in r.get("figures") if isinstance(r.get("figures"), list) else []:
        if isinstance(f, dict) and f.get("name") == "array_bytes" and finite(f.get("value")):
            return dict(params, size=int(f["value"]))
    return params


def wants_of(doc):
    """The cases of a gpubench results document that a peer can measure, each with gpubench's
    best sample (the fastest, as peers report theirs) and its median."""
    wants = {}
    for r in doc.get("results", []) or []:
        # Device 0 of the run's backend: the one every peer measures.
        if not isinstance(r, dict) or r.get("status") != "ok" or r.get("device", 0) != 0:
            continue
        suite, case, params = r.get("suite"), r.get("case"), with_array_bytes(r) or {}
        if not isinstance(params, dict):
            continue
        if suite in ("gemm", "conv") and params.get("impl", "library") != "library":
            continue
        if suite == "transfer" and params.get("mode", "async") != "async":
            continue
        k = key_of(suite, case, params)
        better = r.get("better", "higher")
        if k is None or better not in ("higher", "lower"):
            continue
        samples = r.get("samples")
        samples = [float(x) for x in samples if finite(x) and x > 0] if isinstance(
            samples, list) else []
        higher = better == "higher"
        best = (max(samples) if higher else min(samples)) if samples else r.get("value")
        if not finite(best) or best <= 0:
            continue
        best = float(best)
        w = wants.get(k)
        if w is None or (best > w["best"] if higher else best < w["best"]):
            wants[k] = {"suite": suite, "case": case, "params": params, "best": best,
                        "median": r.get("value") if finite(r.get("value")) else None,
                        "unit": r.get("unit", "") if isinstance(r.get("unit"), str) else "",
                        "higher": higher}
    return wants


def run_gpubench(args, out):
    """Runs the gpubench side; returns the results file it wrote, or None. A file left by an
    earlier run is removed first, so that a run that writes none is not mistaken for one that
    did. gpubench exits non-zero when a case failed; its file is still the run's results."""
    path = os.path.join(out, "peers-gpubench-%s.json" % args.backend)
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as e:
        print("gpu-peers: cannot replace %s: %s" % (path, e.strerror), file=sys.stderr)
        return None
    cmd = [args.exe, "run", args.profile, "--device", args.backend + ":0", "-q", "-o", path]
    print("gpu-peers: gpubench side: %s" % " ".join(cmd), file=sys.stderr)
    try:
        rc = subprocess.call(cmd, stdout=subprocess.DEVNULL)
    except OSError as e:
        print("gpu-peers: cannot run %s: %s" % (args.exe, e.strerror), file=sys.stderr)
        return None
    if not os.path.isfile(path):
        print("gpu-peers: gpubench wrote no results (exit %d)" % rc, file=sys.stderr)
        return None
    if rc != 0:
        print("gpu-peers: gpubench exited %d (a case failed or was cut short): comparing what "
              "it measured" % rc, file=sys.stderr)
    return path


# ---- peers ---------------------------------------------------------------------------------------

class Run:
    def __init__(self, wants, budget, backend):
        self.wants, self.budget, self.backend = wants, budget, backend
        self.figures, self.missing, self.ran = [], [], []

    def miss(self, peer, why):
        print("gpu-peers: %s: %s" % (peer, why), file=sys.stderr)
        self.missing.append({"peer": peer, "why": why})

    def add(self, peer, key, value, unit, method):
        self.figures.append({"peer": peer, "suite": key[0], "case": key[1], "key": list(key),
                             "value": value, "unit": unit, "method": method})

    def of(self, suite, cases=None):
        return [(k, w) for k, w in sorted(self.wants.items(), key=lambda kv: str(kv[0]))
                if k[0] == suite and (cases is None or k[1] in cases)]


ESIZE = {"float": 4, "double": 8}  # bytes per element of the memory suite's types


def events_best(fn, new_event, elapsed_ms, sync, trials=TRIALS, warmup=3):
    """Seconds of the fastest of `trials` calls of fn, each between two CUDA events: new_event()
    makes one (with record() and synchronize()), elapsed_ms(start, end) reads the pair, sync()
    waits for the device. PyTorch's and CuPy's events both fit."""
    for _ in range(warmup):
        fn()
    sync()
    best = float("inf")
    for _ in range(trials):
        s, e = new_event(), new_event()
        s.record()
        fn()
        e.record()
        e.synchronize()
        best = min(best, elapsed_ms(s, e) / 1e3)
    return best


def peer_torch(run):
    if run.backend != "cuda":
        return run.miss("torch", "the gpubench side ran on %s, not CUDA" % run.backend)
    try:
        import torch
    except Exception as e:  # ImportError, or a broken install
        return run.miss("torch", "not importable (%s)" % str(e).splitlines()[0][:120])
    if not torch.cuda.is_available():
        return run.miss("torch", "PyTorch %s sees no CUDA device" % torch.__version__)
    dev = torch.device("cuda")

    def cuda_best(fn):
        return events_best(fn, lambda: torch.cuda.Event(enable_timing=True),
                           lambda s, e: s.elapsed_time(e), torch.cuda.synchronize)
    run.ran.append("torch %s (CUDA %s, %s)" % (torch.__version__, torch.version.cuda,
                                               torch.cuda.get_device_name(0)))
    for k, w in run.of("gemm"):
        if run.budget.left() < 5:
            return run.miss("torch", "out of the step's budget before gemm %s" % (k,))
        prec, shape = w["case"], k[2]
        m = re.fullmatch(r"(\d+)(?:x(\d+)x(\d+))?", shape)
        if not m:
            continue
        M, N, K = (int(m.group(1)),) * 3 if not m.group(2) else map(int, m.groups())
        flops = 2.0 * M * N * K
        try:
            if prec in GEMM_TORCH:
                dt, tf32 = GEMM_TORCH[prec]
                torch.backends.cuda.matmul.allow_tf32 = tf32
                a = torch.randn(M, K, device=dev, dtype=getattr(torch, dt))
                b = torch.randn(K, N, device=dev, dtype=getattr(torch, dt))
                t = cuda_best(lambda: torch.matmul(a, b))
                method = "torch.matmul %s%s" % (dt, ", allow_tf32" if tf32 else "")
            elif prec == "f8e4m3" and hasattr(torch, "_scaled_mm"):
                a = torch.randn(M, K, device=dev).to(torch.float8_e4m3fn)
                b = torch.randn(N, K, device=dev).to(torch.float8_e4m3fn).t()  # column-major
                one = torch.tensor(1.0, device=dev)
                t = cuda_best(lambda: torch._scaled_mm(
                    a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
                method = "torch._scaled_mm float8_e4m3fn, B column-major, out bf16"
            else:
                continue
        except Exception as e:
            run.miss("torch", "gemm %s %s failed: %s" % (prec, shape, str(e).splitlines()[0][:120]))
            continue
        finally:
            torch.backends.cuda.matmul.allow_tf32 = False
        run.add("torch", k, flops / t / 1e9, "GFLOP/s", method)
        del a, b
    for k, w in run.of("memory", ("copy", "triad")):
        if run.budget.left() < 5:
            return run.miss("torch", "out of the step's budget before memory %s" % (k,))
        dt = {"float": torch.float32, "double": torch.float64}.get(k[2])
        n = k[3] // ESIZE[k[2]]
        if dt is None or n == 0:
            continue
        a = torch.empty(n, device=dev, dtype=dt)
        b = torch.rand(n, device=dev, dtype=dt) + 1
        c = torch.rand(n, device=dev, dtype=dt) + 1
        if w["case"] == "copy":
            t = cuda_best(lambda: a.copy_(b))
            run.add("torch", k, 2 * k[3] / t / 1e9, "GB/s", "Tensor.copy_ (read + write)")
        else:
            t = cuda_best(lambda: torch.add(b, c, alpha=TRIAD_SCALAR, out=a))
            ok = torch.allclose(a, b + TRIAD_SCALAR * c)
            run.add("torch", k, 3 * k[3] / t / 1e9, "GB/s",
                    "torch.add(b, c, alpha=0.4, out=a)%s" % ("" if ok else " (WRONG RESULT)"))
        del a, b, c
    for k, w in run.of("transfer", ("h2d", "d2h", "d2d")):
        if run.budget.left() < 5:
            return run.miss("torch", "out of the step's budget before transfer %s" % (k,))
        n = k[3]
        if w["case"] == "d2d":
            src = torch.empty(n, dtype=torch.uint8, device=dev)
            dst = torch.empty_like(src)
        elif k[2] != "pinned":
            continue
        else:
            host = torch.empty(n, dtype=torch.uint8, pin_memory=True)
            devb = torch.empty(n, dtype=torch.uint8, device=dev)
            src, dst = (host, devb) if w["case"] == "h2d" else (devb, host)
        t = cuda_best(lambda: dst.copy_(src, non_blocking=True))
        # The transfer suite counts a D2D copy's bytes twice (read and written), an H2D or D2H
        # copy's once (what crosses the link).
        moved = 2 * n if w["case"] == "d2d" else n
        run.add("torch", k, moved / t / 1e9, "GB/s", "Tensor.copy_(non_blocking) %s" % w["case"])
        del src, dst
    torch.backends.cudnn.benchmark = True  # cuDNN's fastest algorithm, as gpubench's search
    for k, w in run.of("conv", ("fwd",)):
        if run.budget.left() < 5:
            return run.miss("torch", "out of the step's budget before conv %s" % (k,))
        geo = conv_geometry(k[4])
        if geo is None:
            continue
        n, c, h, wd, kk, r, s_, st, pd, dl, g, p, q = geo
        dt, tf32 = GEMM_TORCH[k[2]]
        try:
            torch.backends.cudnn.allow_tf32 = tf32
            fmt = torch.channels_last if k[3] == "nhwc" else torch.contiguous_format
            x = torch.randn(n, c, h, wd, device=dev, dtype=getattr(torch, dt)).to(
                memory_format=fmt)
            wt = torch.randn(kk, c // g, r, s_, device=dev, dtype=getattr(torch, dt)).to(
                memory_format=fmt)
            conv = torch.nn.functional.conv2d
            t = cuda_best(lambda: conv(x, wt, None, st, pd, dl, g))
        except Exception as e:
            run.miss("torch", "conv %s failed: %s" % (k[4], str(e).splitlines()[0][:120]))
            continue
        finally:
            torch.backends.cudnn.allow_tf32 = False
        flops = 2.0 * n * kk * (c // g) * r * s_ * p * q
        run.add("torch", k, flops / t / 1e9, "GFLOP/s", "torch.nn.functional.conv2d %s, %s%s" % (
            dt, "channels_last" if k[3] == "nhwc" else "NCHW", ", allow_tf32" if tf32 else ""))
        del x, wt


def peer_cupy(run):
    if run.backend != "cuda":
        return run.miss("cupy", "the gpubench side ran on %s, not CUDA" % run.backend)
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:
        return run.miss("cupy", "not usable (%s)" % str(e).splitlines()[0][:120])
    run.ran.append("cupy %s" % cupy.__version__)
    triad = cupy.ElementwiseKernel("T b, T c, T s", "T a", "a = b + s * c", "gb_peer_triad")
    copy = cupy.ElementwiseKernel("T x", "T y", "y = x", "gb_peer_copy")
    for k, w in run.of("memory", ("copy", "triad")):
        if run.budget.left() < 5:
            return run.miss("cupy", "out of the step's budget before memory %s" % (k,))
        dt = {"float": cupy.float32, "double": cupy.float64}.get(k[2])
        n = k[3] // ESIZE[k[2]]
        if dt is None or n == 0:
            continue
        b = cupy.random.random(n, dtype=dt) + 1
        c = cupy.random.random(n, dtype=dt) + 1
        a = cupy.empty_like(b)
        s = dt(TRIAD_SCALAR)
        fn = (lambda: copy(b, a)) if w["case"] == "copy" else (lambda: triad(b, c, s, a))
        best = events_best(fn, cupy.cuda.Event, cupy.cuda.get_elapsed_time,
                           cupy.cuda.Device().synchronize)
        arrays = 2 if w["case"] == "copy" else 3
        run.add("cupy", k, arrays * k[3] / best / 1e9, "GB/s",
                "cupy.ElementwiseKernel %s" % w["case"])
        del a, b, c


def driver_env():
    """The environment with the folders of the driver's libcuda.so.1 and libnvidia-ml.so.1 on
    LD_LIBRARY_PATH (a driver mounted outside the loader's path), for the peers' binaries."""
    env = dict(os.environ)
    dirs = [os.path.dirname(p) for p in (find_lib("libnvidia-ml.so.1"), find_lib("libcuda.so.1"))
            if p]
    if dirs:
        env["LD_LIBRARY_PATH"] = ":".join(dict.fromkeys(dirs + [
            d for d in env.get("LD_LIBRARY_PATH", "").split(":") if d]))
    return env


def sh(cmd, timeout, cwd=None, env=None):
    """(status, combined output) of cmd; status 124 when it ran out of time."""
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=max(1, timeout), env=env)
        return p.returncode, p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        return 124, (e.stdout or b"").decode("utf-8", "replace")
    except OSError as e:
        return 127, str(e)


def nvcc_path():
    for c in (shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"):
        if c and os.access(c, os.X_OK):
            return c
    return None


def cuda_arch():
    rc, out = sh(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"], 10)
    m = re.search(r"(\d+)\.(\d+)", out) if rc == 0 else None
    return "sm_%s%s" % m.groups() if m else None


# The NVML calls the CUDA peers make, declared for a toolkit without nvml.h (shared with
# scripts/peers-prebuild.sh).
NVML_DECLS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools",
                              "peer-nvml")


def find_lib(name):
    for d in ("/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", "/usr/lib/x86_64-linux-gnu",
              "/usr/lib64", "/usr/lib"):
        if os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    rc, out = sh(["ldconfig", "-p"], 10)
    for line in out.splitlines() if rc == 0 else []:
        if line.strip().startswith(name + " "):
            return line.split("=>")[-1].strip()
    return None


def build_babelstream(run, src, build):
    """The path of a BabelStream binary for this backend, or None (recorded as missing)."""
    if not os.path.isfile(os.path.join(src, "src", "main.cpp")):
        run.miss("babelstream", "no source in %s (fetch github.com/UoB-HPC/BabelStream there)" % src)
        return None
    s = os.path.join(src, "src")
    os.makedirs(build, exist_ok=True)
    if run.backend == "opencl":
        exe = os.path.join(build, "babelstream-ocl", "ocl-stream")
        cxx = shutil.which(os.environ.get("CXX", "c++"))
        if not cxx:
            run.miss("babelstream", "no C++ compiler to build its OpenCL model")
            return None
        cmd = [cxx, "-O3", "-std=c++17", "-DOCL", "-I" + s, "-I" + os.path.join(s, "ocl"),
               os.path.join(s, "main.cpp"), os.path.join(s, "ocl", "OCLStream.cpp"), "-lOpenCL",
               "-o", exe]
    else:
        exe = os.path.join(build, "babelstream-cuda", "cuda-stream")
        if os.access(exe, os.X_OK):  # peers-prebuild.sh's, or an earlier call's
            return exe
        nvcc, arch = nvcc_path(), cuda_arch()
        if not nvcc:
            run.miss("babelstream", "no nvcc to build its CUDA model")
            return None
        if not arch:
            run.miss("babelstream", "nvidia-smi gave no compute capability (no NVIDIA GPU)")
            return None
        nvml = find_lib("libnvidia-ml.so.1")
        if not nvml:
            run.miss("babelstream", "no libnvidia-ml.so.1 (the driver's NVML), which it links")
            return None
        inc = ["-I" + s, "-I" + os.path.join(s, "cuda")]
        tk = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
        if not os.path.exists(os.path.join(tk, "include", "nvml.h")):
            inc.append("-I" + os.path.normpath(NVML_DECLS_DIR))
        cmd = [nvcc, "-O3", "-std=c++17", "-arch=" + arch, "--extended-lambda", "-DCUDA",
               "-DGRID_STRIDE", "-DUNROLL_FACTOR=4"] + inc + [
               os.path.join(s, "main.cpp"), os.path.join(s, "cuda", "CUDAStream.cu"), nvml,
               "-o", exe]
    if os.access(exe, os.X_OK):  # built before (peers-prebuild.sh, or an earlier call)
        return exe
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    rc, out = sh(cmd, min(120, run.budget.left() - 5))
    if rc != 0:
        tail = " | ".join(l for l in out.strip().splitlines()[-3:])
        run.miss("babelstream", "did not build (exit %d): %s" % (rc, tail[:300]))
        return None
    return exe


def peer_babelstream(run, src, build):
    wanted = run.of("memory")
    if not wanted:
        return run.miss("babelstream", "the gpubench side has no memory case")
    exe = build_babelstream(run, src, build)
    if not exe:
        return
    run.ran.append("babelstream (%s)" % exe)
    sizes = sorted({(k[2], k[3]) for k, _ in wanted})
    for typ, size in sizes:
        if run.budget.left() < 5:
            return run.miss("babelstream", "out of the step's budget before %s %d B" % (typ, size))
        n = size // ESIZE[typ]
        # One kernel per run (--only), each run timed on its own, back to back, as gpubench runs
        # a case: in BabelStream's default order a kernel reads what the one before it wrote,
        # partly still in cache, and its --order Isolated reports the mean as every run's time.
        out = ""
        for kern in sorted({k[1] for k, _ in wanted if k[2] == typ and k[3] == size}):
            cmd = [exe, "-s", str(n), "-n", "20", "--only", kern.capitalize(), "--csv"] + (
                ["--float"] if typ == "float" else [])
            if run.backend == "opencl":
                cmd += ["--device", os.environ.get("DEVICE", "0")]
            rc, o = sh(cmd, min(120, run.budget.left() - 2),
                       env=driver_env() if run.backend == "cuda" else None)
            if rc != 0:
                run.miss("babelstream", "%s failed (exit %d): %s" % (
                    " ".join(cmd[1:]), rc, " | ".join(o.strip().splitlines()[-2:])[:300]))
                continue
            out += o
        for line in out.splitlines():
            f = line.split(",")
            if len(f) >= 5 and f[0] in ("Copy", "Mul", "Add", "Triad", "Dot"):
                try:
                    mbs = float(f[4])
                except ValueError:
                    continue
                k = ("memory", f[0].lower(), typ, size)
                run.add("babelstream", k, mbs / 1e3, "GB/s",
                        "BabelStream %s model, --only, max of -n 20" % (
                            "OpenCL" if run.backend == "opencl" else "CUDA"))


def peer_nvbandwidth(run, src, build):
    wanted = [(k, w) for k, w in run.of("transfer", ("h2d", "d2h", "d2d"))
              if w["case"] == "d2d" or k[2] == "pinned"]
    if run.backend != "cuda":
        return run.miss("nvbandwidth", "the gpubench side ran on %s, not CUDA" % run.backend)
    if not wanted:
        return run.miss("nvbandwidth", "the gpubench side has no pinned or D2D transfer case")
    exe = os.path.join(build, "nvbandwidth", "nvbandwidth")
    if not os.access(exe, os.X_OK):
        if not os.path.isfile(os.path.join(src, "CMakeLists.txt")):
            return run.miss("nvbandwidth", "no source in %s (fetch github.com/NVIDIA/nvbandwidth "
                            "there)" % src)
        if not shutil.which("cmake") or not nvcc_path():
            return run.miss("nvbandwidth", "no cmake or nvcc to build it")
        bdir = os.path.dirname(exe)
        rc, out = sh(["cmake", "-S", src, "-B", bdir, "-DCMAKE_BUILD_TYPE=Release",
                      "-DCMAKE_CUDA_COMPILER=" + nvcc_path()], min(60, run.budget.left() - 5))
        if rc == 0:
            rc, out = sh(["cmake", "--build", bdir, "-j", str(os.cpu_count() or 4)],
                         min(180, run.budget.left() - 5))
        if rc != 0 or not os.access(exe, os.X_OK):
            why = [l for l in out.splitlines() if "Boost" in l or "rror" in l][:2]
            return run.miss("nvbandwidth", "did not build (exit %d): %s" % (
                rc, " | ".join(why or out.strip().splitlines()[-2:])[:300]))
    run.ran.append("nvbandwidth (%s)" % exe)
    tests = {"h2d": "host_to_device_memcpy_ce", "d2h": "device_to_host_memcpy_ce",
             "d2d": "device_local_copy"}
    for k, w in wanted:
        if run.budget.left() < 5:
            return run.miss("nvbandwidth", "out of the step's budget before %s" % (k,))
        mib = max(1, k[3] // (1 << 20))
        t = tests[w["case"]]
        rc, out = sh([exe, "-t", t, "-b", str(mib), "-i", "10"], min(60, run.budget.left() - 2),
                     env=driver_env())
        m = re.search(r"SUM\s+%s\s+([0-9.]+)" % t, out)
        if rc != 0 or not m:
            run.miss("nvbandwidth", "%s: no SUM line (exit %d): %s" % (
                t, rc, " | ".join(out.strip().splitlines()[-2:])[:200]))
            continue
        # nvbandwidth counts a copy's bytes once; the transfer suite counts a D2D copy's twice.
        scale = 2 if w["case"] == "d2d" else 1
        run.add("nvbandwidth", k, scale * float(m.group(1)), "GB/s",
                "nvbandwidth -t %s -b %d (median of 10%s)" % (t, mib, ", x2: read + write"
                                                               if scale == 2 else ""))


# ---- ratios and the report -------------------------------------------------------------------

def ratios_of(wants, figures):
    rows = []
    for f in figures:
        w = wants.get(tuple(f["key"]))
        if not w or not finite(f["value"]) or f["value"] <= 0:
            continue
        r = w["best"] / f["value"] if w["higher"] else f["value"] / w["best"]
        rows.append({"suite": f["suite"], "case": f["case"], "key": f["key"], "peer": f["peer"],
                     "gpubench_best": w["best"], "gpubench_median": w["median"],
                     "peer_value": f["value"], "unit": f["unit"], "ratio": r,
                     "method": f["method"]})
    rows.sort(key=lambda r: (str(r["key"]), r["peer"]))
    return rows


def size_text(b):
    for unit, sh_ in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if b >= 1 << sh_ and b % (1 << sh_) == 0:
            return "%d %s" % (b >> sh_, unit)
    return "%d B" % b


def md(text):
    """Text for one Markdown table cell or list item: one line, no '|', '`' or HTML markup (any
    of it may come from a results file)."""
    t = re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029|`]+", " ", str(text))
    return html.escape(t, quote=False)[:300]


def markdown(doc):
    out = ["## gpubench beside the specialists", ""]
    out.append("gpubench side: %s (%s; device 0; the peers ran on it after it); peers that "
               "ran: %s  " % (
        md(doc["gpubench_results"]), md(doc["backend"]), md(", ".join(doc["ran"]) or "none")))
    for m in doc["missing"]:
        out.append("- missing: **%s**: %s" % (md(m["peer"]), md(m["why"])))
    out.append("")
    if not doc["ratios"]:
        out.append("No figure to compare: no peer measured a case of the gpubench side.")
        return "\n".join(out) + "\n"
    out.append("| figure | peer | gpubench best | peer best | unit | gpubench/peer |")
    out.append("|---|---|---:|---:|---|---:|")
    best = {}
    for r in doc["ratios"]:
        k = r["key"]
        what = "%s %s %s %s" % (k[0], k[1], k[2], size_text(k[3]) if isinstance(k[3], int) else k[3])
        out.append("| %s | %s | %.4g | %.4g | %s | %.3f |" % (
            md(what), md(r["peer"]), r["gpubench_best"], r["peer_value"], md(r["unit"]),
            r["ratio"]))
        kk = tuple(k)
        if kk not in best or r["ratio"] < best[kk]["ratio"]:
            best[kk] = r
    out.append("")
    out.append("Against the best peer per figure (the lowest ratio): %s." % md(", ".join(
        "%s %s %s: %.3f (%s)" % (k[0], k[1], "%s %s" % (k[2], size_text(k[3])) if isinstance(
            k[3], int) else k[2], r["ratio"], r["peer"]) for k, r in sorted(best.items(), key=str))))
    out.append("")
    out.append("Best sample against the peer's best; a ratio below 1 is gpubench measuring less "
               "than the specialist.")
    return "\n".join(out) + "\n"


def usage_error(ap, why):
    ap.print_usage(sys.stderr)
    print("gpu-peers: %s" % why, file=sys.stderr)
    return 2


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", help="the gpubench side: an existing results file")
    ap.add_argument("--exe", help="the gpubench side: run this gpubench (with --profile, --backend)")
    ap.add_argument("--profile", help="the profile --exe runs")
    ap.add_argument("--backend", choices=("cuda", "opencl"), help="the backend --exe runs on")
    ap.add_argument("-o", "--out", default=".", help="where peers.json goes (default .)")
    ap.add_argument("--src", default="build-peers/src",
                    help="the peers' sources: SRC/BabelStream, SRC/nvbandwidth")
    ap.add_argument("--build", default="build-peers", help="where the peers are built")
    ap.add_argument("--budget", type=float, default=100.0,
                    help="seconds for the whole step (default 100)")
    ap.add_argument("--only", default=",".join(PEERS), help="comma list of peers to try")
    ap.add_argument("--md", help="where peers.md goes (default OUT/peers.md)")
    args = ap.parse_args()
    only = [p for p in args.only.split(",") if p]
    bad = [p for p in only if p not in PEERS]
    if not args.results and not (args.exe and args.profile and args.backend):
        return usage_error(ap, "give --results FILE, or --exe, --profile and --backend")
    if bad or not only:
        return usage_error(ap, "--only names peers among %s, not '%s'" % (", ".join(PEERS),
                                                                        args.only))
    if not (math.isfinite(args.budget) and 0 < args.budget <= 3600):
        return usage_error(ap, "--budget needs seconds in (0, 3600], not %g" % args.budget)
    if args.exe and not args.results and not (os.path.isfile(args.exe) and
                                              os.access(args.exe, os.X_OK)):
        return usage_error(ap, "--exe %s is not an executable file" % args.exe)
    md_path = args.md or os.path.join(args.out, "peers.md")
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        return usage_error(ap, "-o %s: %s" % (args.out, e.strerror))
    if os.path.isdir(md_path) or not os.path.isdir(os.path.dirname(os.path.abspath(md_path))):
        return usage_error(ap, "--md %s: not a file in an existing folder" % md_path)
    budget = Budget(args.budget)
    path = args.results
    if not path:
        path = run_gpubench(args, args.out)
        if not path:
            return 1
    try:
        if not os.path.isfile(path):  # a folder, a FIFO, a device: not a results file
            raise ValueError("not a regular file")
        with open(path) as f:
            gb = json.load(f)
        if not isinstance(gb, dict):
            raise ValueError("not a results document")
    except (OSError, ValueError, RecursionError) as e:
        print("gpu-peers: cannot read %s: %s" % (path, e), file=sys.stderr)
        return 1
    results = gb.get("results") if isinstance(gb.get("results"), list) else []
    gb["results"] = results
    backend = args.backend
    if not backend:
        bs = {r.get("backend") for r in results if isinstance(r, dict) and
              isinstance(r.get("backend"), str)}
        backend = "cuda" if "cuda" in bs else "opencl"
    wants = wants_of(gb)
    run = Run(wants, budget, backend)
    steps = {"torch": lambda: peer_torch(run), "cupy": lambda: peer_cupy(run),
             "babelstream": lambda: peer_babelstream(run, os.path.join(args.src, "BabelStream"),
                                                     args.build),
             "nvbandwidth": lambda: peer_nvbandwidth(run, os.path.join(args.src, "nvbandwidth"),
                                                     args.build)}
    for p in PEERS:
        if p not in only:
            continue
        if budget.left() < 5:
            run.miss(p, "not started: the step's %g s budget was spent" % args.budget)
            continue
        try:
            steps[p]()
        except Exception as e:  # a peer's failure is recorded; the others still run
            run.miss(p, "failed: %s: %s" % (type(e).__name__, str(e).splitlines()[0][:200]
                                             if str(e) else ""))
    devs = gb.get("devices") if isinstance(gb.get("devices"), list) else []
    d0 = devs[0] if devs and isinstance(devs[0], dict) else {}
    text = lambda v: v if isinstance(v, str) else None
    doc = {"schema": SCHEMA, "created": now_utc(), "gpubench_results": os.path.basename(path),
           "backend": backend, "device": text(d0.get("name")), "driver": text(d0.get("driver")),
           "cases_comparable": len(wants), "ran": run.ran, "missing": run.missing,
           "figures": run.figures, "ratios": ratios_of(wants, run.figures)}
    table = markdown(doc)
    try:
        with open(os.path.join(args.out, "peers.json"), "w") as f:
            json.dump(doc, f, indent=1)
        with open(md_path, "w") as f:
            f.write(table)
    except OSError as e:
        print("gpu-peers: cannot write %s: %s" % (e.filename, e.strerror), file=sys.stderr)
        return 1
    sys.stdout.write(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
