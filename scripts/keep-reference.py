#!/usr/bin/env python3
"""keep-reference.py — files one run's results (a gpu-check OUT folder, or results files) under
results/reference/ as reference runs: one file per device model, backend and profile, named
    <device-model>-<backend>-<profile>-<driver>-<date>.json
(device model: device 0's name, lowercase, every run of other characters than a-z, 0-9 and '.'
as one '-', a dot only between other characters; driver: device 0's driver version; date: the run's start, YYYY-MM-DD), and the peers'
figures of gpu-check's peer step (peers.json) as <device-model>-peers-<driver>-<date>.json. Each
kept file gets a row in results/reference/README.md's table: the file, the device, the command
that made it, the machine. Nothing reads them yet: they are the raw material of expectations.

Only gpubench results files (schema gpubench-results/N) and peers files (gpubench-peers/N) are
kept, each as it is, byte for byte; names and table cells come from the files but only through
the characters above (a name) or with '|' and line breaks replaced (a cell), so a hostile file
can neither choose a path nor break the table. An existing reference is never overwritten: the
same bytes are "already kept", other bytes under the same name are refused.

  scripts/keep-reference.py [--dest DIR] [--dry-run] PATH...   (a folder: its *.json files)
Exit status: 0 every results file was kept (or already was); 1 one was refused or unreadable;
2 usage.
"""
import argparse
import glob
import json
import os
import re
import sys


def slug(text, fallback):
    s = re.sub(r"[^a-z0-9.]+", "-", str(text or "").lower())
    s = re.sub(r"\.{2,}", ".", re.sub(r"[-.]*-[-.]*", "-", s)).strip("-.")
    return s[:60] or fallback


def cell(text):
    return re.sub(r"[|\r\n\t]+", " ", str(text if text is not None else ""))[:200]


def describe(path, doc):
    """(name, device, command, machine) for a results or peers document, or None."""
    schema = str(doc.get("schema", ""))
    if schema.startswith("gpubench-results/"):
        devs = [d for d in doc.get("devices") or [] if isinstance(d, dict)]
        d0 = devs[0] if devs else {}
        run = doc.get("run") if isinstance(doc.get("run"), dict) else {}
        prof = run.get("profile") if isinstance(run.get("profile"), dict) else {}
        backends = sorted({str(r.get("backend")) for r in doc.get("results") or []
                           if isinstance(r, dict) and r.get("backend")})
        backend = d0.get("backend") or (backends[0] if backends else "unknown")
        date = str(run.get("start_utc", ""))[:10]
        name = "%s-%s-%s-%s-%s.json" % (slug(d0.get("name"), "unknown-device"), slug(backend, "x"),
                                        slug(prof.get("name"), "profile"),
                                        slug(d0.get("driver"), "driver"), slug(date, "undated"))
        machine = "%s, %s" % (run.get("host", "?"), run.get("os", "?"))
        return name, "%s (%s, driver %s)" % (d0.get("name", "?"), backend, d0.get("driver", "?")), \
            run.get("command_line", ""), machine
    if schema.startswith("gpubench-peers/"):
        date = str(doc.get("created", ""))[:10]
        name = "%s-peers-%s-%s.json" % (slug(doc.get("device"), "unknown-device"),
                                         slug(doc.get("driver"), "driver"), slug(date, "undated"))
        ran = ", ".join(str(r) for r in doc.get("ran") or []) or "none"
        return name, "%s (%s peers, driver %s)" % (doc.get("device", "?"), doc.get("backend", "?"),
                                                   doc.get("driver", "?")), \
            "scripts/gpu-peers.py (gpu-check's peer step); peers: " + ran, ""
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--dest", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "..", "results", "reference"))
    ap.add_argument("-n", "--dry-run", action="store_true")
    args = ap.parse_args()
    files = []
    for p in args.paths:
        files += sorted(glob.glob(os.path.join(p, "*.json"))) if os.path.isdir(p) else [p]
    dest = os.path.normpath(args.dest)
    readme = os.path.join(dest, "README.md")
    rows, status = [], 0
    for f in files:
        try:
            with open(f, "rb") as fh:
                raw = fh.read()
            doc = json.loads(raw)
        except (OSError, ValueError) as e:
            print("keep-reference: %s: not readable JSON (%s)" % (f, e), file=sys.stderr)
            status = 1
            continue
        d = describe(f, doc) if isinstance(doc, dict) else None
        if d is None:
            print("keep-reference: %s: not a gpubench results or peers file: left" % f,
                  file=sys.stderr)
            continue
        name, device, command, machine = d
        target = os.path.join(dest, name)
        if os.path.exists(target):
            with open(target, "rb") as fh:
                same = fh.read() == raw
            if same:
                print("keep-reference: %s: already kept as %s" % (f, target))
            else:
                print("keep-reference: %s: %s exists with other contents: refused (rename one)"
                      % (f, target), file=sys.stderr)
                status = 1
            continue
        print("keep-reference: %s -> %s" % (f, target))
        if args.dry_run:
            continue
        os.makedirs(dest, exist_ok=True)
        with open(target + ".tmp", "wb") as fh:
            fh.write(raw)
        os.replace(target + ".tmp", target)
        rows.append("| %s | %s | `%s` | %s |" % (cell(name), cell(device),
                                                  cell(command).replace("`", "'"), cell(machine)))
    if rows and not args.dry_run:
        with open(readme, "a") as fh:
            fh.write("\n".join(rows) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
