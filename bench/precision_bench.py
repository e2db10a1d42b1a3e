#!/usr/bin/env python3
"""quarry's latency at each arithmetic precision, with its error.

For each network (a built-in name or an ONNX file), `quarry run` at every
--precision asked, alternately, round after round; each run also checks
its outputs against the reference backend. The figure per precision is the
median of the rounds' medians; the error is the largest over the rounds
(largest |difference| over largest |reference|). JSON on stdout.

  bench/precision_bench.py --backend cpu --precisions fp32,bf16 \\
      resnet50 bert /tmp/nets/convnext_t.onnx
"""
import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys

MEDIAN = re.compile(r"^(.*): median ([0-9.eE+-]+) ms", re.M)
ERROR = re.compile(r"max relative error vs reference: ([0-9.eE+-]+|nan|inf)")


def run(args, net, precision):
    source = [net]
    cmd = [args.quarry, "run", *source, "--backend", args.backend,
           "--precision", precision, "--runs", str(args.runs), "--threads",
           str(args.threads), "--check", "--tolerance", "1"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    m, e = MEDIAN.search(p.stdout), ERROR.search(p.stdout)
    if p.returncode != 0 or not m or not e:
        raise RuntimeError(" ".join(cmd) + ": " +
                           (p.stderr or p.stdout).strip()[-300:])
    return m.group(1), float(m.group(2)), float(e.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("networks", nargs="+")
    ap.add_argument("--quarry", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin",
        "quarry"))
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--precisions", default="fp32,bf16")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args()
    precisions = args.precisions.split(",")
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True,
        text=True, cwd=os.path.dirname(os.path.abspath(__file__))).stdout
    out = {"bench": "precision_bench", "commit": commit.strip(),
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
               timespec="seconds"),
           "command": " ".join(sys.argv), "networks": []}
    for net in args.networks:
        entry = {"network": os.path.basename(net)}
        ms = {p: [] for p in precisions}
        err = {p: 0.0 for p in precisions}
        try:
            for _ in range(args.rounds):
                for p in precisions:
                    device, t, e = run(args, net, p)
                    entry.setdefault("devices", {})[p] = device
                    ms[p].append(t)
                    err[p] = max(err[p], e)
            entry["ms"] = {p: round(statistics.median(v), 4)
                           for p, v in ms.items()}
            entry["max_relative_error"] = err
            base = entry["ms"][precisions[0]]
            entry["speedup_over_" + precisions[0]] = {
                p: round(base / entry["ms"][p], 3) for p in precisions[1:]}
        except RuntimeError as e:
            entry["error"] = str(e)
        out["networks"].append(entry)
        print(json.dumps({k: entry.get(k) for k in
                          ("network", "ms", "max_relative_error", "error")}),
              file=sys.stderr, flush=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
