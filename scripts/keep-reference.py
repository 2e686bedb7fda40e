#!/usr/bin/env python3
"""keep-reference.py — files one run's results (a gpu-check OUT folder, or results files) under
results/reference/ as reference runs: one file per device model, backend and profile, named
    <device-model>-<backend>-<profile>-<driver>-<date>.json
(device model: device 0's name, lowercase, every run of other characters than a-z, 0-9 and '.'
as one '-', a dot only between other characters; driver: device 0's driver version; date: the
run's start, YYYY-MM-DD; another run of the same day, one that started at another time, gets
the next free "-2", "-3", ... before ".json"), and the peers' figures of gpu-check's peer step (peers.json) as
<device-model>-<backend>-peers-<driver>-<date>.json (one in which no peer measured anything is
left). Each kept file gets a row in results/reference/README.md's table: the file, the device,
the command that made it, the machine. `gpubench expect results/reference/` reduces them to
expectations (docs/expect.md).

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
import html
import json
import os
import re
import sys
import tempfile

HEADER = "| file | device | command | notes |\n|---|---|---|---|\n"


def slug(text, fallback):
    s = re.sub(r"[^a-z0-9.]+", "-", str(text or "").lower())
    s = re.sub(r"\.{2,}", ".", re.sub(r"[-.]*-[-.]*", "-", s)).strip("-.")
    return s[:60] or fallback


def cell(text):
    """One table cell: one line (every line or paragraph separator Python or Markdown knows
    replaced), no '|' or '`', HTML escaped."""
    t = re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029|`]+", " ", str(text if text is not None else ""))
    return html.escape(t.strip(), quote=False)[:200] or "-"


def obj(v):
    return v if isinstance(v, dict) else {}


def items(v):
    return v if isinstance(v, list) else []


def describe(path, doc):
    """(name, device, command, machine) for a results or peers document, or None."""
    schema = str(doc.get("schema", ""))
    if schema.startswith("gpubench-results/"):
        devs = [d for d in items(doc.get("devices")) if isinstance(d, dict)]
        d0 = devs[0] if devs else {}
        run = obj(doc.get("run"))
        prof = obj(run.get("profile"))
        backends = sorted({str(r.get("backend")) for r in items(doc.get("results"))
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
        name = "%s-%s-peers-%s-%s.json" % (slug(doc.get("device"), "unknown-device"),
                                            slug(doc.get("backend"), "x"),
                                            slug(doc.get("driver"), "driver"), slug(date, "undated"))
        ran = ", ".join(str(r) for r in items(doc.get("ran"))) or "none"
        return name, "%s (%s peers, driver %s)" % (doc.get("device", "?"), doc.get("backend", "?"),
                                                   doc.get("driver", "?")), \
            "scripts/gpu-peers.py (gpu-check's peer step); peers: " + ran, ""
    return None


def started(path):
    """The run's start time a kept results file records ("" when none can be read)."""
    try:
        with open(path, "rb") as fh:
            return str(obj(obj(json.loads(fh.read())).get("run")).get("start_utc", ""))
    except (OSError, ValueError, RecursionError):
        return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", help="results files, or folders of them (*.json)")
    ap.add_argument("--dest", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "..", "results", "reference"),
                    help="where they are kept (default: the repository's results/reference)")
    ap.add_argument("-n", "--dry-run", action="store_true", help="say what would be kept, keep nothing")
    args = ap.parse_args()
    files, status = [], 0
    for p in args.paths:
        if os.path.isdir(p):
            found = sorted(glob.glob(os.path.join(p, "*.json")))
            if not found:
                print("keep-reference: %s: no *.json in it" % p, file=sys.stderr)
                status = 1
            files += found
        else:
            files.append(p)
    dest = os.path.normpath(args.dest)
    readme = os.path.join(dest, "README.md")
    if os.path.exists(dest) and not os.path.isdir(dest):
        print("keep-reference: --dest %s is not a folder" % dest, file=sys.stderr)
        return 2
    if os.path.islink(readme) or (os.path.exists(readme) and not os.path.isfile(readme)):
        print("keep-reference: %s is not a plain file: refused" % readme, file=sys.stderr)
        return 2
    if not args.dry_run:
        try:
            os.makedirs(dest, exist_ok=True)
            if not os.path.exists(readme):
                with open(readme, "w") as fh:
                    fh.write("# Reference runs\n\n" + HEADER)
        except OSError as e:
            print("keep-reference: --dest %s: %s" % (dest, e.strerror), file=sys.stderr)
            return 2
    for f in files:
        try:
            if not os.path.isfile(f):  # a FIFO or a device would block or never end
                raise ValueError("not a regular file")
            with open(f, "rb") as fh:
                raw = fh.read()
            doc = json.loads(raw)
        except OSError as e:
            print("keep-reference: %s: %s" % (f, e.strerror), file=sys.stderr)
            status = 1
            continue
        except (ValueError, RecursionError) as e:
            print("keep-reference: %s: not readable JSON (%s)" % (f, e), file=sys.stderr)
            status = 1
            continue
        d = describe(f, doc) if isinstance(doc, dict) else None
        if d is not None and str(doc.get("schema", "")).startswith("gpubench-peers/") and \
                not items(doc.get("figures")):
            print("keep-reference: %s: no peer measured anything: left" % f, file=sys.stderr)
            continue
        if d is None:
            print("keep-reference: %s: not a gpubench results or peers file: left" % f,
                  file=sys.stderr)
            continue
        name, device, command, machine = d
        target = os.path.join(dest, name)
        # Another run of the same day (another start): the next free name, "-2", "-3", ...
        start = str(obj(doc.get("run")).get("start_utc", ""))
        k = 2
        while start and os.path.isfile(target) and not os.path.islink(target) and \
                open(target, "rb").read() != raw and started(target) not in ("", start):
            name = "%s-%d.json" % (d[0][:-5], k)
            target = os.path.join(dest, name)
            k += 1
        row = "| %s | %s | %s | %s |\n" % (cell(name), cell(device), cell(command), cell(machine))
        try:
            if os.path.lexists(target):
                same = (not os.path.islink(target) and os.path.isfile(target) and
                        open(target, "rb").read() == raw)
                if not same:
                    print("keep-reference: %s: %s exists with other contents: refused (rename "
                          "one)" % (f, target), file=sys.stderr)
                    status = 1
                    continue
                print("keep-reference: %s: already kept as %s" % (f, target))
            else:
                print("keep-reference: %s -> %s%s" % (f, target, " (dry run)" if args.dry_run else ""))
                if args.dry_run:
                    continue
                # A fresh temporary file (O_EXCL: never one planted there), renamed into place.
                fd, tmp = tempfile.mkstemp(prefix=".keep-", dir=dest)
                with os.fdopen(fd, "wb") as fh:
                    fh.write(raw)
                os.replace(tmp, target)
            if args.dry_run:
                continue
            # The row, unless the table has it (a file kept by an earlier, interrupted run).
            with open(readme) as fh:
                have = any(l.startswith("| %s |" % cell(name)) for l in fh)
            if not have:
                with open(readme, "a") as fh:
                    fh.write(row)
        except OSError as e:
            print("keep-reference: %s: %s" % (f, e.strerror), file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
