#!/usr/bin/env python3
"""gpu-nccl-peer.py — the peers of gpubench's NCCL collectives on the same GPU: nccl-tests'
all_reduce_perf and all_gather_perf where a built nccl-tests is at hand (--nccl-tests DIR: its
build/ folder, or a folder of the binaries; nothing is fetched or built here), and PyTorch's
torch.distributed all_reduce and all_gather_into_tensor on the NCCL backend, one process of one
rank on GPU 0. Each figure is algbw as nccl-tests defines it (doc/PERFORMANCE.md): size / time,
GB/s (1e9 B/s), size being the larger buffer's bytes (all-gather: what every rank receives),
out of place, float32, sum; the time the best of TRIALS operations between two CUDA events
(torch) or nccl-tests' average over its iterations. gpubench's figure is the collective suite's
algbw at the same size, coll and transport nccl, read from --results; the ratio is gpubench /
peer. A peer that is absent or fails is a line that says why, never an error: the exit status is
0 unless the arguments are wrong (2).

  scripts/gpu-nccl-peer.py --results nccl-cuda.json [--size 64MiB] [--nccl-tests DIR]
                           [--md FILE]
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

TRIALS = 10  # timed operations per figure after WARMUP untimed ones: the fastest is kept
WARMUP = 3
COLLS = (("allreduce", "all_reduce_perf"), ("allgather", "all_gather_perf"))


def size_bytes(text):
    m = re.fullmatch(r"\s*([0-9]+)\s*(B|KiB|MiB|GiB)?\s*", text)
    if not m:
        raise ValueError("a size is N, NKiB, NMiB or NGiB, not '%s'" % text)
    return int(m.group(1)) << {None: 0, "B": 0, "KiB": 10, "MiB": 20, "GiB": 30}[m.group(2)]


def gpubench_figures(path, size):
    """{coll: algbw GB/s} of the collective suite's ok results at `size` bytes, transport nccl,
    out of place, f32, sum; {} (and the reason) when the file cannot be read."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return {}, "no gpubench results (%s)" % e
    out = {}
    for r in doc.get("results", []) or []:
        p = r.get("params", {}) or {}
        if r.get("suite") != "collective" or r.get("status") != "ok":
            continue
        if p.get("transport") != "nccl" or p.get("inplace") not in (None, False, "false"):
            continue
        if p.get("dtype", "f32") != "f32" or p.get("redop", "sum") != "sum":
            continue
        try:
            if size_bytes(str(p.get("size"))) != size:
                continue
        except ValueError:
            continue
        out[r.get("case") or p.get("coll")] = r.get("value")
    return out, ""


def nccl_env():
    """The environment nccl-tests' binaries run in: LD_LIBRARY_PATH led by the folders that may
    hold libnccl.so.2 (they link it by soname), the places gpubench's own loader looks."""
    dirs = []
    ev = os.environ.get("GPUBENCH_NCCL", "")
    if ev:
        dirs.append(ev if os.path.isdir(ev) else os.path.dirname(ev))
    for pat in (sys.prefix + "/lib/python3*/site-packages/nvidia/nccl/lib",
                "/opt/*/.venv/lib/python3*/site-packages/nvidia/nccl/lib",
                "/usr/local/lib/python3*/dist-packages/nvidia/nccl/lib",
                "/usr/local/cuda/lib64"):
        dirs += [d for d in sorted(glob.glob(pat)) if os.path.exists(d + "/libnccl.so.2")]
    env = dict(os.environ)
    old = env.get("LD_LIBRARY_PATH", "")
    env["LD_LIBRARY_PATH"] = ":".join(dirs + ([old] if old else []))
    return env


def nccl_tests(folder, size):
    """{coll: algbw} from nccl-tests' binaries in folder (one GPU, out of place), and notes."""
    figs, notes = {}, []
    if not folder:
        return figs, ["nccl-tests: not tried (no --nccl-tests folder: its sources cannot be "
                      "fetched on the GPU machine; carry a build to use it)"]
    for coll, exe in COLLS:
        path = next((p for p in (os.path.join(folder, exe), os.path.join(folder, "build", exe))
                     if os.access(p, os.X_OK)), None)
        if not path:
            notes.append("nccl-tests %s: no %s in %s" % (coll, exe, folder))
            continue
        cmd = [path, "-b", str(size), "-e", str(size), "-g", "1", "-w", str(WARMUP),
               "-n", str(TRIALS * 2), "-d", "float", "-o", "sum"]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=6, env=nccl_env())
        except (OSError, subprocess.TimeoutExpired) as e:
            notes.append("nccl-tests %s: %s" % (coll, e))
            continue
        # A data row: size count type redop root time algbw busbw #wrong (out of place) ...
        row = next((ln.split() for ln in p.stdout.splitlines()
                    if ln.split()[:1] == [str(size)]), None)
        try:
            figs[coll] = float(row[6])
        except (TypeError, IndexError, ValueError):
            notes.append("nccl-tests %s: exit %d, no row for %d bytes: %s" % (
                coll, p.returncode, size, " ".join((p.stdout + p.stderr).split())[-200:]))
    return figs, notes


def torch_peer(size):
    """{coll: algbw} from torch.distributed (NCCL) with one rank on GPU 0, and notes."""
    try:
        import torch
        import torch.distributed as dist
    except Exception as e:  # an import of a broken install raises anything
        return {}, ["torch: not importable (%s)" % str(e)[:160]]
    if not torch.cuda.is_available():
        return {}, ["torch: CUDA not available to it"]
    if not dist.is_available() or not dist.is_nccl_available():
        return {}, ["torch: built without the NCCL backend of torch.distributed"]
    figs, notes = {}, []
    store = tempfile.NamedTemporaryFile(prefix="gpu-nccl-peer.", delete=False).name
    os.unlink(store)  # the file store must not exist yet
    try:
        torch.cuda.set_device(0)
        dist.init_process_group("nccl", init_method="file://" + store, rank=0, world_size=1)
        n = size // 4
        x = torch.ones(n, dtype=torch.float32, device="cuda")
        y = torch.empty(n, dtype=torch.float32, device="cuda")
        ops = {"allreduce": lambda: dist.all_reduce(x, op=dist.ReduceOp.SUM),
               "allgather": lambda: dist.all_gather_into_tensor(y, x)}
        for coll, fn in ops.items():
            for _ in range(WARMUP):
                fn()
            torch.cuda.synchronize()
            best = None
            for _ in range(TRIALS):
                s = torch.cuda.Event(enable_timing=True)
                e = torch.cuda.Event(enable_timing=True)
                s.record()
                fn()
                e.record()
                e.synchronize()
                t = s.elapsed_time(e) / 1e3
                best = t if best is None or t < best else best
            if best and best > 0:
                figs[coll] = size / best / 1e9
        v = torch.cuda.nccl.version()
        notes.append("torch %s, NCCL %s: one rank on %s" % (
            torch.__version__, ".".join(map(str, v)) if isinstance(v, tuple) else v,
            torch.cuda.get_device_name(0)))
    except Exception as e:
        notes.append("torch: %s" % str(e)[:200])
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
        if os.path.exists(store):
            os.unlink(store)
    return figs, notes


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", required=True, help="gpubench's results (the collective suite)")
    ap.add_argument("--size", default="64MiB", help="the size compared (default 64MiB)")
    ap.add_argument("--nccl-tests", help="a built nccl-tests: its build/ or its folder")
    ap.add_argument("--md", help="also write the table here")
    ap.add_argument("--only", default="nccl-tests,torch", help="comma list of peers to try")
    args = ap.parse_args()
    try:
        size = size_bytes(args.size)
    except ValueError as e:
        ap.print_usage(sys.stderr)
        print("gpu-nccl-peer: %s" % e, file=sys.stderr)
        return 2
    only = [p for p in args.only.split(",") if p]
    ours, why = gpubench_figures(args.results, size)
    peers, notes = {}, [why] if why else []
    for name, fn in (("nccl-tests", lambda: nccl_tests(args.nccl_tests, size)),
                     ("torch", lambda: torch_peer(size))):
        if name not in only:
            continue
        figs, n = fn()
        peers[name] = figs
        notes += n
    lines = ["## NCCL collectives beside their peers (%s, float32, out of place, one GPU)" %
             args.size, "",
             "algbw = size / time, GB/s (1e9 B/s), nccl-tests' definition; ratio = gpubench / "
             "peer.", "",
             "| coll | gpubench | %s |" % " | ".join("%s | ratio" % p for p in peers),
             "|---|---:|" + "---:|---:|" * len(peers)]
    for coll, _ in COLLS:
        g = ours.get(coll)
        row = "| %s | %s |" % (coll, "%.4g" % g if g else "-")
        for p in peers:
            v = peers[p].get(coll)
            row += " %s | %s |" % ("%.4g" % v if v else "-",
                                   "%.3f" % (g / v) if g and v else "-")
        lines.append(row)
    lines += [""] + ["- %s" % n for n in notes if n]
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
