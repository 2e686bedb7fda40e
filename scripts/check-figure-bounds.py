#!/usr/bin/env python3
"""Every figure of a results file against its bound, from the file alone.

Usage: scripts/check-figure-bounds.py RESULTS.json...

The run holds each figure to its bound when it is made (gb_results_check_figures,
src/run/case_result.h) and fails a result above it as implausible; the bounds a suite gives are
not written to the file. This script checks again, independently, what the file lets it: for
every ok result,
  - the headline against its numeric `peak` figure in its own unit;
  - every GB/s figure of a memory-regime result against the device's peak_mem_gbs (the
    20,000 GB/s ceiling where the device states none);
  - every GFLOP/s or GOP/s figure against the result's `peak` in a compute unit (without one,
    the largest compute peak any result of its device states), the sparse
    suite's `dense_equiv_gflops` against that peak x m k / nnz (the dense work in the same time)
    and its `speedup_vs_dense` against the dense baseline's time over the sparse work's at the
    peak.
Rate figures the file gives no bound for (a cache-resident or undeclared working set, a device
that states no bandwidth beyond the ceiling's regimes) are listed as such. It prints, per suite
and figure, how many values it checked and the largest value over its
bound, lists the results the run itself failed as implausible, and exits 1 when an ok result has
a figure above 1.05 x its bound (the run's slack, backends/precision.h GB_PLAUSIBLE_SLACK).
"""
import json
import sys

SLACK = 1.05
CEILING_MEMORY_GBS = 20000.0
COMPUTE = ("GFLOP/s", "GOP/s")


def figures(r):
    return {f["name"]: f for f in r.get("figures", [])}


def shape_mk(r):
    s = r["params"].get("shape", "")
    parts = s.split("x") if isinstance(s, str) else []
    if len(parts) == 3 and all(p.isdigit() for p in parts):
        return float(parts[0]) * float(parts[2])
    return None


def main(paths):
    worst = {}  # (suite, figure) -> [count, largest ratio, where]
    above = []
    own_verdicts = []
    unbounded = {}  # rate figures with no bound the file states: (suite, name, unit, regime)

    def note(r, name, value, bound):
        if bound is None or not bound > 0 or value is None:
            return
        key = (r["suite"], name)
        ratio = value / bound
        w = worst.setdefault(key, [0, 0.0, ""])
        w[0] += 1
        if ratio > w[1]:
            w[1], w[2] = ratio, "%s %s" % (r["case"], r["params"])
        if ratio > SLACK:
            above.append("%s %s %s: %s %.4g > bound %.4g" %
                         (r["suite"], r["case"], r["params"], name, value, bound))

    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        devs = doc.get("devices", [])
        results = doc.get("results", [])
        # A result without a peak of its own (a file from before sparse stated one): the largest
        # compute peak any result of its device states, the device's peak as far as the file says.
        device_peak = {}
        for r in results:
            p = figures(r).get("peak", {})
            if p.get("unit") in COMPUTE and p.get("value"):
                d = r.get("device")
                device_peak[d] = max(device_peak.get(d, 0), p["value"])
        for r in results:
            if r.get("status") == "failed" and r.get("implausible"):
                own_verdicts.append("%s: %s %s %s: %s" % (path, r["suite"], r["case"],
                                                          r["params"], r.get("reason", "")))
            if r.get("status") != "ok":
                continue
            dev = devs[r["device"]] if isinstance(r.get("device"), int) and \
                r["device"] < len(devs) else {}
            figs = figures(r)
            peak = figs.get("peak", {}).get("value")
            peak_unit = figs.get("peak", {}).get("unit")
            if peak is None and r.get("unit") in COMPUTE and r.get("device") in device_peak:
                peak, peak_unit = device_peak[r["device"]], r["unit"]
            if peak is not None and peak_unit == r.get("unit"):
                note(r, "(headline %s)" % r["unit"], r["value"], peak)
            mem = dev.get("peak_mem_gbs") or 0
            # The compute peak a compute-rate figure is held to (a memory-bound GEMM's peak
            # figure is its bandwidth's, or text): the result's, else its device's.
            cpeak = peak if peak_unit in COMPUTE else device_peak.get(r.get("device"))
            if r.get("unit") == "GB/s" and r.get("regime") in ("memory", "unknown") and \
                    not (peak is not None and peak_unit == "GB/s"):
                note(r, "(headline GB/s)", r["value"], mem if mem > 0 and
                     r.get("regime") == "memory" else CEILING_MEMORY_GBS)
            for name, f in figs.items():
                v = f.get("value")
                if v is None or name == "peak":
                    continue
                unit = f.get("unit", "")
                if r["suite"] == "sparse" and name == "dense_equiv_gflops" and \
                        figs.get("nnz", {}).get("value") == 0:
                    # No work timed: a launch's time, a rate of nothing.
                    above.append("%s %s %s: %s %.4g with nnz 0" %
                                 (r["suite"], r["case"], r["params"], name, v))
                    continue
                if unit == "GB/s" and r.get("regime") in ("memory", "unknown"):
                    note(r, name, v, mem if mem > 0 and r.get("regime") == "memory"
                         else CEILING_MEMORY_GBS)
                elif unit in ("GB/s",) + COMPUTE and not (unit in COMPUTE and cpeak):
                    unbounded[(r["suite"], name, unit, r.get("regime", ""))] = \
                        unbounded.get((r["suite"], name, unit, r.get("regime", "")), 0) + 1
                elif unit in COMPUTE:
                    bound = cpeak
                    if r["suite"] == "sparse" and name == "dense_equiv_gflops":
                        nnz = figs.get("nnz", {}).get("value")
                        mk = shape_mk(r)
                        bound = cpeak * mk / nnz if nnz and mk and cpeak else None
                    note(r, name, v, bound)
            if r["suite"] == "sparse" and "speedup_vs_dense" in figs and peak:
                for b in results:
                    if b["suite"] == "sparse" and b.get("status") == "ok" and \
                            b["params"].get("density") == 1 and \
                            b["params"].get("shape") == r["params"].get("shape") and \
                            (b["case"] == "spmv") == (r["case"] == "spmv") and \
                            b.get("device") == r.get("device"):
                        fastest_us = r["flops_per_op"] / (peak * 1e9) * 1e6
                        note(r, "speedup_vs_dense", figs["speedup_vs_dense"]["value"],
                             b["op_time_us"]["median"] / fastest_us)
                        break
    print("%-12s %-28s %6s %12s  %s" % ("suite", "figure", "values", "max/bound", "where"))
    for (suite, name), (n, ratio, where) in sorted(worst.items()):
        print("%-12s %-28s %6d %12.4g  %s" % (suite, name, n, ratio, where[:90]))
    for (suite, name, unit, regime), n in sorted(unbounded.items()):
        print("%-12s %-28s %6d %12s  no bound in the file (%s, regime %s)" %
              (suite, name, n, "-", unit, regime or "none"))
    print("results the run failed as implausible: %d" % len(own_verdicts))
    for line in own_verdicts:
        print("  " + line[:300])
    print("ok results with a figure above its bound: %d" % len(above))
    for line in above:
        print("  " + line[:300])
    return 1 if above else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
