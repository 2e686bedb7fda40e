#!/usr/bin/env bash
# The verdicts measured: how often each gate cries wolf on unchanged runs of this machine, and what
# share of a planted slowdown it catches. From N real A/A runs of one profile
# (configs/quick.yaml: about a minute each on PoCL) and copies of them with one case or every case
# made slower by a factor (0.9, 0.8, 0.5 of the performance: a rate times the factor, a time —
# `better: lower` — divided by it; samples, stats and op_time_us alike), it runs at the defaults:
#   compare   two-file `gpubench compare A.json B.json`: every ordered pair of distinct runs (A/A),
#             and A against a slowed copy of B;
#   nights    the nightly gate, `gpubench compare BASELINE-FOLDER NEW.json`: the nights are the other
#             N-1 runs (`gpubench baseline`, in start order), NEW the left-out run or a slowed copy;
#   check     `gpubench check RUN.json -e E.json`, E made by `gpubench expect` from the other N-1
#             runs (leave one out), RUN the left-out run or a slowed copy;
#   fleet     `gpubench fleet` over NODES nodes (50) made of the runs in turn (each node's host and
#             device UUID its own), then with one node slowed (each of the first N nodes in turn).
# A trial alarms when the command exits 3 (2 is counted as an error); a case alarms when its row is
# a regression (compare: `regression`), LOW / IMPLAUSIBLE / FAILED (check), or an outlier (fleet:
# the slowed node's flag is neither ok nor deviates, or the node is LOW by its shift), read from
# the commands' JSON (--json FILE). A planted fault is caught when the command exits 3 and the
# planted case's row alarms (it is found by its value). One-case faults rotate over the cases ok
# in every run, so that each case is planted about once a scale per command (--per-trial K sets
# how many one-case copies a trial gets).
#
#   scripts/bench-verdicts.sh [--runs DIR] [-n N (8)] [--profile YAML (configs/quick.yaml)]
#                             [--nodes K (50)] [--scales 0.9,0.8,0.5] [--per-trial K]
#                             [--only compare,nights,check,fleet] [--json FILE] [--markdown]
#
# --runs DIR: the A/A runs (its *.json files; default results/bench-verdicts/runs); when it holds
# fewer than N, `gpubench run PROFILE` makes the rest there (aa-K.json), one after the other, so
# that a second call reuses them. Output: two tables (the false alarms on the A/A set; the share
# of each planted fault caught), text or --markdown, and --json FILE (`gpubench-bench-verdicts/1`:
# every figure, with the trials and case-trials counted). GPUBENCH_BUILD (build) names the build.
# Scratch files go to a temporary folder, removed at the end. Given the runs, a few minutes on a
# 2-core VM.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GPUBENCH_BUILD:-build}
runs=results/bench-verdicts/runs
n=8
profile=configs/quick.yaml
nodes=50
scales=0.9,0.8,0.5
per_trial=0
only=compare,nights,check,fleet
json=
markdown=0
usage() { sed -n '22,24p' "$0" | sed 's/^# \{0,1\}//' >&2; exit "${1:-2}"; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    -n) n=$2; shift 2 ;;
    --profile) profile=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --scales) scales=$2; shift 2 ;;
    --per-trial) per_trial=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    --markdown) markdown=1; shift ;;
    -h | --help) usage 0 ;;
    *) echo "bench-verdicts: unknown argument $1" >&2; usage ;;
  esac
done
command -v python3 >/dev/null || { echo "bench-verdicts: needs python3" >&2; exit 2; }
[[ -x $build/gpubench ]] || { echo "bench-verdicts: $build/gpubench is missing: build first (scripts/bootstrap.sh)" >&2; exit 2; }
[[ $n -ge 2 ]] || { echo "bench-verdicts: -n needs at least 2 runs" >&2; exit 2; }

mkdir -p "$runs"
have=$(grep -l '"gpubench-results/' "$runs"/*.json 2>/dev/null | wc -l)
k=0
while [[ $have -lt $n ]]; do
  k=$((k + 1))
  [[ -e $runs/aa-$k.json ]] && continue
  echo "bench-verdicts: run $((have + 1)) of $n: $build/gpubench run $profile -o $runs/aa-$k.json" >&2
  rc=0
  "$build/gpubench" run "$profile" -q -o "$runs/aa-$k.json" >/dev/null || rc=$?
  # exit 1 (a case failed) still leaves a run to judge; anything else is the end
  [[ $rc -le 1 && -s $runs/aa-$k.json ]] || { echo "bench-verdicts: run exited $rc" >&2; exit 1; }
  have=$((have + 1))
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/gpubench-verdicts.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
GB="$build/gpubench" RUNS="$runs" N="$n" NODES="$nodes" SCALES="$scales" PER_TRIAL="$per_trial" \
  ONLY="$only" JSON_OUT="$json" MARKDOWN="$markdown" SCRATCH="$scratch" python3 - <<'EOF'
import copy, glob, json, math, os, subprocess, sys, time

gb = os.path.abspath(os.environ["GB"])
scratch = os.environ["SCRATCH"]
nodes = int(os.environ["NODES"])
scales = [float(s) for s in os.environ["SCALES"].split(",") if s]
per_trial = int(os.environ["PER_TRIAL"])
only = set(os.environ["ONLY"].split(","))
markdown = os.environ["MARKDOWN"] == "1"


def load(path):
    with open(path) as f:
        return json.load(f)


def key(r):
    return (r.get("suite"), r.get("case"), r.get("backend"), r.get("device_name"),
            json.dumps(r.get("params", {}), sort_keys=True))


def ok_keys(doc):
    return {key(r) for r in doc["results"] if r.get("status") == "ok" and r.get("value")}


# The runs, oldest first (the nights gate takes them in that order).
paths = sorted(glob.glob(os.path.join(os.environ["RUNS"], "*.json")))
docs = []
for p in paths:
    try:
        d = load(p)
        if str(d.get("schema", "")).startswith("gpubench-results/") and d.get("results"):
            docs.append((d.get("run", {}).get("start_utc", ""), p, d))
    except (OSError, ValueError) as e:
        print(f"bench-verdicts: {p} skipped: {e}", file=sys.stderr)
docs.sort(key=lambda t: (t[0], t[1]))
docs = docs[: int(os.environ["N"])]
runs = [p for _, p, _ in docs]
docs = [d for _, _, d in docs]
T = len(docs)
if T < 2:
    sys.exit("bench-verdicts: fewer than 2 readable runs")
common = sorted(set.intersection(*[ok_keys(d) for d in docs]))
print(f"bench-verdicts: {T} runs, {len(common)} cases ok in all of them; scales {scales}",
      file=sys.stderr)


def scaled(doc, keys, s, out, host=None, uuid=None):
    """Writes doc to out with the results in keys made slower by s (perf times s); returns the
    planted values (the new headline of each result slowed). host / uuid: the node's identity."""
    d = dict(doc)
    d["run"] = dict(doc["run"])
    if host is not None:
        d["run"]["host"] = host
    if uuid is not None:
        devs = []
        for k, dev in enumerate(doc.get("devices", [])):
            dev = dict(dev)
            dev["uuid"] = "%08x-0000-4000-8000-%012x" % (int(uuid), k)
            dev["identity"] = "uuid"
            devs.append(dev)
        d["devices"] = devs
    planted = []
    res = []
    for r in doc["results"]:
        if keys and key(r) in keys:
            r = copy.deepcopy(r)
            f = s if r.get("better", "higher") == "higher" else 1.0 / s
            r["value"] *= f
            planted.append(r["value"])
            r["samples"] = [x * f for x in r.get("samples") or []]
            for st, g in (("stats", f), ("op_time_us", 1.0 / s)):
                if isinstance(r.get(st), dict):
                    for m in ("min", "max", "mean", "median", "stddev", "p5", "p95", "ci95"):
                        if isinstance(r[st].get(m), (int, float)):
                            r[st][m] *= g
        res.append(r)
    d["results"] = res
    with open(out, "w") as f:
        json.dump(d, f)
    return planted


def near(v, planted):
    return isinstance(v, (int, float)) and any(abs(v - p) <= 1e-9 * abs(p) for p in planted)


def gpubench(args):
    """Runs gpubench ARGS --json J -q; returns (exit status, the JSON or None)."""
    j = os.path.join(scratch, "out.json")
    if os.path.exists(j):
        os.unlink(j)
    rc = subprocess.run([gb] + args + ["-q", "--json", j], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode
    try:
        return rc, load(j)
    except (OSError, ValueError):
        return rc, None


# Each verdict's alarms, as (value) lists: what a reader of its JSON sees as a fault.
def compare_alarms(doc):
    out = []
    for r in (doc or {}).get("rows", []):
        bad = r.get("regression")
        if bad is None:
            bad = r.get("verdict") in ("SLOWER", "FAILED")
        if bad:
            out.append(r.get("new_median", r.get("value")))
    return out


def check_alarms(doc):
    out = []
    for t in (doc or {}).get("tables", []):
        if t.get("id") not in (None, "check") and "value" not in t.get("columns", []):
            continue
        for r in t.get("rows", []):
            if str(r.get("verdict", "")).upper() in ("LOW", "IMPLAUSIBLE", "FAILED"):
                out.append(r.get("value"))
    return out


def fleet_alarms(doc, node_file=None):
    """(nodes flagged, [values of node_file's flagged cases], flags of all nodes' cases)."""
    if not doc:
        return 0, [], 0
    files = {nd.get("node"): os.path.basename(nd.get("file", "")) for nd in doc.get("nodes", [])}
    outlier = lambda nd: nd.get("outlier", nd.get("outlier_cases", 0) > 0)
    flagged = sum(1 for nd in doc.get("nodes", []) if outlier(nd))
    # A node LOW by its shift is flagged as a whole: each of its figures counts as caught.
    low = {nd.get("node") for nd in doc.get("nodes", []) if nd.get("shift_low")}
    mine, flags = [], 0
    for c in doc.get("cases", []):
        for v in c.get("values", []):
            f = str(v.get("flag", "ok")).lower()
            mynode = files.get(v.get("node")) == node_file
            if f in ("ok", "deviates"):  # deviates: listed, no alarm (uncalibrated)
                if mynode and v.get("node") in low:
                    mine.append(v.get("value"))
                continue
            flags += 1
            if mynode and (f != "fast" or v.get("node") in low):
                mine.append(v.get("value"))
    return flagged, mine, flags


class Tally:
    def __init__(self):
        self.trials = self.alarmed = self.errors = self.cases = self.case_alarms = 0

    def add(self, rc, ncases, nalarms):
        self.trials += 1
        self.errors += rc not in (0, 3)
        self.alarmed += rc == 3
        self.cases += ncases
        self.case_alarms += nalarms

    def json(self, hit="alarmed", case_hit="case_alarms", cases="case_trials"):
        return {"trials": self.trials, hit: self.alarmed, "errors": self.errors,
                cases: self.cases, case_hit: self.case_alarms}


aa = {}       # verdict -> Tally of the unchanged runs
caught = {}   # (verdict, scale, "one"|"all") -> Tally: alarmed = caught trials, cases = planted


def rotate(t, ntrials):
    """The one-case faults of trial t: every case about once over the trials."""
    k = per_trial or max(1, math.ceil(len(common) / ntrials))
    return [common[(t * k + i) % len(common)] for i in range(min(k, len(common)))]


def planted_trials(verdict, ntrials, judge):
    """judge(t, keys, s, path) -> (rc, planted values, alarm values) for trial t."""
    for s in scales:
        for mode in ("one", "all"):
            tl = caught.setdefault((verdict, s, mode), Tally())
            for t in range(ntrials):
                sets = [[c] for c in rotate(t, ntrials)] if mode == "one" else [common]
                for keys in sets:
                    rc, planted, alarms = judge(t, set(keys), s)
                    hit = sum(1 for p in planted if near(p, alarms))
                    tl.trials += 1
                    tl.errors += rc not in (0, 3)
                    tl.alarmed += rc == 3 and hit > 0
                    tl.cases += len(planted)
                    tl.case_alarms += hit


started = time.time()
slow = os.path.join(scratch, "slow.json")

if "compare" in only:
    pairs = [(i, j) for i in range(T) for j in range(T) if i != j]
    tl = aa["compare"] = Tally()
    for i, j in pairs:
        rc, out = gpubench(["compare", runs[i], runs[j]])
        tl.add(rc, len(ok_keys(docs[i]) & ok_keys(docs[j])), len(compare_alarms(out)))

    def judge(t, keys, s):
        i, j = pairs[t]
        planted = scaled(docs[j], keys, s, slow)
        rc, out = gpubench(["compare", runs[i], slow])
        return rc, planted, compare_alarms(out)

    planted_trials("compare", len(pairs), judge)
    print(f"bench-verdicts: compare done, {time.time() - started:.0f} s", file=sys.stderr)

if "nights" in only:
    tl = aa["nights"] = Tally()
    folders = []
    for i in range(T):
        d = os.path.join(scratch, f"baselines-{i}")
        for j in range(T):
            if j != i:
                subprocess.run([gb, "baseline", runs[j], "--dir", d, "--keep", str(max(T, 14))],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        p = subprocess.run([gb, "baseline", runs[i], "--dir", d, "--print-path"],
                           capture_output=True, text=True, check=True).stdout.strip()
        folders.append(p[:-5] if p.endswith(".json") else p)
        rc, out = gpubench(["compare", folders[i], runs[i]])
        tl.add(rc, len(ok_keys(docs[i])), len(compare_alarms(out)))

    def judge(t, keys, s):
        planted = scaled(docs[t], keys, s, slow)
        rc, out = gpubench(["compare", folders[t], slow])
        return rc, planted, compare_alarms(out)

    planted_trials("nights", T, judge)
    print(f"bench-verdicts: nights done, {time.time() - started:.0f} s", file=sys.stderr)

if "check" in only:
    tl = aa["check"] = Tally()
    expects = []
    for i in range(T):
        e = os.path.join(scratch, f"expect-{i}.json")
        subprocess.run([gb, "expect"] + [runs[j] for j in range(T) if j != i] + ["-o", e, "-q"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        expects.append(e)
        rc, out = gpubench(["check", runs[i], "-e", e])
        tl.add(rc, len(ok_keys(docs[i])), len(check_alarms(out)))

    def judge(t, keys, s):
        planted = scaled(docs[t], keys, s, slow)
        rc, out = gpubench(["check", slow, "-e", expects[t]])
        return rc, planted, check_alarms(out)

    planted_trials("check", T, judge)
    print(f"bench-verdicts: check done, {time.time() - started:.0f} s", file=sys.stderr)

if "fleet" in only:
    fdir = os.path.join(scratch, "fleet")
    os.mkdir(fdir)
    name = lambda k: f"node{k:02d}.json"
    for k in range(nodes):
        scaled(docs[k % T], set(), 1.0, os.path.join(fdir, name(k)), f"node{k:02d}", k + 1)
    rc, out = gpubench(["fleet", fdir])
    flagged, _, flags = fleet_alarms(out)
    judged = sum(1 for c in (out or {}).get("cases", []) if c.get("judged", True))
    tl = aa["fleet"] = Tally()
    tl.trials, tl.alarmed, tl.errors = nodes, flagged, int(rc not in (0, 3))
    tl.cases, tl.case_alarms = nodes * judged, flags

    def judge(t, keys, s):
        k = t % nodes
        p = os.path.join(fdir, name(k))
        planted = scaled(docs[k % T], keys, s, p, f"node{k:02d}", k + 1)
        rc, out = gpubench(["fleet", fdir])
        scaled(docs[k % T], set(), 1.0, p, f"node{k:02d}", k + 1)
        return rc, planted, fleet_alarms(out, name(k))[1]

    planted_trials("fleet", min(T, nodes), judge)
    print(f"bench-verdicts: fleet done, {time.time() - started:.0f} s", file=sys.stderr)

# The tables.
what = {"compare": "compare A.json B.json", "nights": "compare NIGHTS/ NEW.json",
        "check": "check RUN -e EXPECT(others)", "fleet": f"fleet ({nodes} nodes)"}


def pct(a, b):
    return f"{a}/{b} ({100.0 * a / b:.1f}%)" if b else "-"


rows1 = [["verdict", "trials", "alarmed", "case alarms", "errors"]]
for v, tl in aa.items():
    rows1.append([what[v], str(tl.trials), pct(tl.alarmed, tl.trials),
                  pct(tl.case_alarms, tl.cases), str(tl.errors)])
rows2 = [["verdict"] + [f"{s:g}x {m}" for s in scales for m in ("one", "all")]]
for v in aa:
    row = [what[v]]
    for s in scales:
        one, al = caught[(v, s, "one")], caught[(v, s, "all")]
        row.append(pct(one.alarmed, one.trials))
        row.append(f"{pct(al.case_alarms, al.cases)}, runs {al.alarmed}/{al.trials}")
    rows2.append(row)


def table(rows):
    if markdown:
        lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
        lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    else:
        w = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
        lines = ["  ".join(x.ljust(w[c]) for c, x in enumerate(r)).rstrip() for r in rows]
    return "\n".join(lines)


commit = docs[0].get("gpubench", {}).get("git_commit", "?")
print(f"Unchanged runs ({T} A/A runs of {docs[0]['run'].get('profile', {}).get('name', '?')}, "
      f"{len(common)} cases ok in all; the runs' build {commit}): the false alarms at the defaults")
print()
print(table(rows1))
print()
print("Planted faults: the share caught (one: one case slowed, trials caught; all: every case "
      "slowed, cases caught and runs that exited 3)")
print()
print(table(rows2))
print(f"\n({time.time() - started:.0f} s)")
if os.environ["JSON_OUT"]:
    doc = {"schema": "gpubench-bench-verdicts/1", "runs": runs, "cases": len(common),
           "nodes": nodes, "scales": scales,
           "aa": {v: tl.json() for v, tl in aa.items()},
           "planted": [dict(verdict=v, scale=s, mode=m,
                            **tl.json("caught", "cases_caught", "cases_planted"))
                       for (v, s, m), tl in caught.items()]}
    with open(os.environ["JSON_OUT"], "w") as f:
        json.dump(doc, f, indent=1)
EOF
