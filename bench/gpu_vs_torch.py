#!/usr/bin/env python3
"""quarry's cuda backend side by side with what a PyTorch user runs.

Each network is built in PyTorch with random weights (torchvision's
resnet50, resnext50_32x4d and inception_v3, BERT-base from its
configuration, timm's NASNet-A when timm has it), exported to ONNX and
timed on the same input at batch 1, alternately, round after round:

  torch eager, torch replaying a CUDA graph, torch.compile, quarry cuda on
  the exported file as it is and on the file `quarry optimize` wrote with
  the rule pack, each with its operators on one stream and with
  independent ones on several (--streams auto; optimized with its
  candidates timed so).

Each method's figure is the median of its rounds' medians. TF32 is off
everywhere (fp32 table). quarry's outputs are compared with torch eager's
(largest absolute error over the largest magnitude). The compile time of
torch.compile (its first calls) and of `quarry optimize` are reported, and
so is where quarry's time goes: `quarry run --profile`'s account of each
file's steps (fused, on streams, on the host) and `quarry cost`'s operators
summed by kind. Each network is measured in a process of its own, so a
fault that poisons one CUDA context ends that network alone. The JSON goes
to --out after every network, so a run cut short keeps what it measured.

  bench/gpu_vs_torch.py --quarry build/bin/quarry \
      --rules rules/quarry-k3.verified.pb --out results/gpu_vs_torch.json

Without PyTorch, --onnx-dir DIR times quarry alone on DIR/NAME.onnx for
--models (on --backend, cpu here), which rehearses everything but the
torch side.
"""
import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

# The networks with the most independent branches first, NASNet-A last:
# torch.compile takes longest on it, and a run cut short keeps the rest.
MODELS = ["inception_v3", "resnet50", "bert_base", "resnext50_32x4d",
          "nasnet_a"]

# Networks torch.compile (reduce-overhead) is not asked to compile unless
# --compile-models names them, and why: its CUDA graphs failed on them.
COMPILE_FAILS = {
    "bert_base": "torch 2.11's reduce-overhead mode failed on it twice on an "
                 "H200 (a host copy inside graph capture, then an illegal "
                 "memory access that poisoned the CUDA context)",
}


def build_torch_model(name, torch):
    """The module in eval mode and its one input, on the CPU."""
    gen = torch.Generator().manual_seed(0)
    if name in ("resnet50", "resnext50_32x4d", "inception_v3"):
        import torchvision
        kwargs = {"weights": None}
        size = 224
        if name == "inception_v3":
            # init_weights draws truncated normals through scipy, slowly;
            # the default initialization is as random.
            kwargs.update(aux_logits=False, init_weights=False)
            size = 299
        model = getattr(torchvision.models, name)(**kwargs)
        x = torch.randn(1, 3, size, size, generator=gen)
    elif name == "nasnet_a":
        import timm
        if "nasnetalarge" not in timm.list_models("nasnet*"):
            raise RuntimeError("timm has no nasnetalarge")
        model = timm.create_model("nasnetalarge", pretrained=False)
        x = torch.randn(1, 3, 331, 331, generator=gen)
    elif name == "bert_base":
        import transformers
        config = transformers.BertConfig(attn_implementation="sdpa")
        bert = transformers.BertModel(config, add_pooling_layer=False)

        class Embedded(torch.nn.Module):
            """BERT from its input embeddings: the token lookup is a
            gather the network's timing does not need."""

            def __init__(self, m):
                super().__init__()
                self.m = m

            def forward(self, e):
                return self.m(inputs_embeds=e).last_hidden_state

        model = Embedded(bert)
        x = torch.randn(1, 128, config.hidden_size, generator=gen)
    else:
        raise RuntimeError("unknown model " + name)
    return model.eval(), x


def export_onnx(torch, model, x, path):
    """TorchScript's exporter at opset 17, else the dynamo one."""
    try:
        torch.onnx.export(model, (x,), path, input_names=["x"],
                          output_names=["y"], opset_version=17, dynamo=False)
        return "torchscript, opset 17"
    except Exception as e:  # noqa: BLE001 - any failure: try the other
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
    torch.onnx.export(model, (x,), path, input_names=["x"],
                      output_names=["y"], opset_version=18, dynamo=True,
                      external_data=False)
    return "dynamo, opset 18 (torchscript failed: %s)" % first[:200]


def time_torch(torch, fn, runs, warmup):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def cuda_graph_fn(torch, model, x):
    """model(x) captured once into a CUDA graph; the replay."""
    static_x = x.clone()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            model(static_x)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        model(static_x)
    return graph.replay


MEDIAN = re.compile(r"median ([0-9.eE+-]+) ms")


def run_command(args, onnx_path, inputs, streams, runs, warmup):
    """`quarry run` of `onnx_path` on `inputs` (name -> .npy)."""
    cmd = [args.quarry, "run", onnx_path, "--backend", args.backend,
           "--runs", str(runs), "--warmup", str(warmup), "--streams", streams]
    for name, path in inputs.items():
        cmd += ["--input", "%s=%s" % (name, path)]
    return cmd


def quarry_run(args, onnx_path, inputs, outputs_dir, streams):
    """quarry's median over args.runs, and its device line."""
    cmd = run_command(args, onnx_path, inputs, streams, args.runs,
                      args.warmup)
    if outputs_dir:
        cmd += ["--save-outputs", outputs_dir]
    p = subprocess.run(cmd, capture_output=True, text=True,
                       timeout=args.timeout)
    m = MEDIAN.search(p.stdout)
    if p.returncode != 0 or not m:
        raise RuntimeError("quarry run: exit %d: %s" % (
            p.returncode, (p.stderr or p.stdout).strip()[-400:]))
    line = next(l for l in p.stdout.splitlines() if MEDIAN.search(l))
    return float(m.group(1)), line.split(": median")[0]


def quarry_optimize(args, onnx_path, out_path, streams):
    """`quarry optimize` whose selection times candidates on `streams`."""
    cmd = [args.quarry, "optimize", onnx_path, "--backend",
           args.backend, "--rules", args.rules, "--budget", str(args.budget),
           "--streams", streams, "--out", out_path]
    if args.cost_cache:
        cmd += ["--cost-cache", args.cost_cache]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True,
                       timeout=args.timeout)
    seconds = time.monotonic() - t0
    if p.returncode != 0:
        raise RuntimeError("quarry optimize: exit %d: %s" % (
            p.returncode, (p.stderr or p.stdout).strip()[-400:]))
    return seconds, p.stdout.strip().splitlines()[-3:]


def quarry_steps(args, onnx_path, inputs, streams):
    """What `quarry run --profile` says of how the graph runs (on cuda: its
    steps, those cuDNN fused, streams and waves, steps run on the host)."""
    cmd = run_command(args, onnx_path, inputs, streams, 3, 2) + ["--profile"]
    p = subprocess.run(cmd, capture_output=True, text=True,
                       timeout=args.timeout)
    lines = [l.rstrip() for l in p.stdout.splitlines() if l.strip()]
    return lines[-4:] if p.returncode == 0 else (
        ["exit %d" % p.returncode] + (p.stderr or p.stdout).splitlines()[-3:])


# node, ms, source, operator[attributes](operands)
COST_LINE = re.compile(r"^\S.*?\s([0-9.]+)\s+[a-z]+\s+([A-Za-z_0-9]+)[\[(]")


def quarry_cost_by_op(args, onnx_path):
    """`quarry cost` on one stream: each operator alone, summed by operator
    kind (the largest first), and the planned graph's summary lines, so a
    network slower than PyTorch shows where its time goes."""
    cmd = [args.quarry, "cost", onnx_path, "--backend", args.backend,
           "--streams", "1", "--runs", "5"]
    if args.cost_cache:
        cmd += ["--cost-cache", args.cost_cache]
    p = subprocess.run(cmd, capture_output=True, text=True,
                       timeout=args.timeout)
    if p.returncode != 0:
        return {"error": "exit %d: %s" % (
            p.returncode, (p.stderr or p.stdout).strip()[-400:])}
    kinds = {}
    for line in p.stdout.splitlines():
        m = COST_LINE.match(line)
        if m:
            k = kinds.setdefault(m.group(2), [0.0, 0])
            k[0] += float(m.group(1))
            k[1] += 1
    top = sorted(kinds.items(), key=lambda kv: -kv[1][0])[:12]
    return {"ms_by_operator": {k: {"ms": round(v[0], 4), "nodes": v[1]}
                               for k, v in top},
            "summary": [l.strip() for l in p.stdout.splitlines()
                        if l.startswith(("sum ", "kernels ", "on "))]}


def compare(ref, got_path):
    """Largest absolute difference over the reference's largest magnitude."""
    import numpy as np
    import onnx
    from onnx import numpy_helper
    got = numpy_helper.to_array(onnx.load_tensor(got_path))
    ref = np.asarray(ref, dtype=np.float64)
    if got.shape != ref.shape:
        return "shape %s, torch's %s" % (list(got.shape), list(ref.shape))
    scale = max(float(np.abs(ref).max()), 1e-30)
    return float(np.abs(got.astype(np.float64) - ref).max()) / scale


def one_model(args, name, work, torch):
    entry = {"model": name}
    onnx_path = os.path.join(work, name + ".onnx")
    inputs = {}
    ref = None
    methods = {}  # name -> callable returning a median in ms
    if torch is not None:
        import numpy as np
        model, x = build_torch_model(name, torch)
        entry["exporter"] = export_onnx(torch, model, x, onnx_path)
        x_path = os.path.join(work, name + ".x.npy")
        np.save(x_path, x.numpy())
        inputs["x"] = x_path
        model = model.cuda()
        xc = x.cuda()
        with torch.no_grad():
            ref = model(xc).float().cpu().numpy()
            eager = lambda: model(xc)
            methods["torch_eager"] = lambda: time_torch(
                torch, eager, args.runs, args.warmup)
            # A method that cannot be set up (a model that copies from the
            # host inside its forward cannot be captured) is reported, and
            # the others run.
            try:
                replay = cuda_graph_fn(torch, model, xc)
                methods["torch_cuda_graph"] = lambda: time_torch(
                    torch, replay, args.runs, args.warmup)
            except Exception as e:  # noqa: BLE001
                entry.setdefault("failed", {})["torch_cuda_graph"] = \
                    ("%s: %s" % (type(e).__name__, e))[:600]
                torch.cuda.synchronize()
            wanted = (name not in COMPILE_FAILS
                      if args.compile_models is None
                      else name in args.compile_models.split(","))
            if args.compile_mode != "off" and not wanted:
                entry["torch_compile_skipped"] = COMPILE_FAILS.get(
                    name, "not in --compile-models")
            if args.compile_mode != "off" and wanted:
                try:
                    compiled = torch.compile(model, mode=args.compile_mode)
                    t0 = time.monotonic()
                    for _ in range(3):
                        compiled(xc)
                    torch.cuda.synchronize()
                    entry["torch_compile_s"] = round(time.monotonic() - t0, 2)
                    entry["torch_compile_mode"] = args.compile_mode
                    methods["torch_compile"] = lambda: time_torch(
                        torch, lambda: compiled(xc), args.runs, args.warmup)
                except Exception as e:  # noqa: BLE001
                    entry.setdefault("failed", {})["torch_compile"] = \
                        ("%s: %s" % (type(e).__name__, e))[:600]
    else:
        src = os.path.join(args.onnx_dir, name + ".onnx")
        if not os.path.exists(src):
            raise RuntimeError(src + " is missing")
        onnx_path = src

    # Optimized twice: for one stream, and with the candidates timed on
    # auto streams (merging branches that would run at once anyway can be
    # slower there).
    optimized = {}
    for streams, suffix in (("1", ""), ("auto", "_streams")):
        path = os.path.join(work, name + ".opt" + suffix + ".onnx")
        try:
            seconds, tail = quarry_optimize(args, onnx_path, path, streams)
            entry["quarry_optimize" + suffix + "_s"] = round(seconds, 2)
            entry["quarry_optimize" + suffix + "_says"] = tail
            optimized[streams] = path
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            entry["quarry_optimize" + suffix + "_error"] = str(e)[:600]

    devices = {}

    def quarry_method(path, key, streams):
        def run():
            out = os.path.join(work, name + "." + key)
            ms, device = quarry_run(args, path, inputs, out if ref is not None
                                    else None, streams)
            devices[key] = device
            if ref is not None:
                entry["error_" + key] = compare(
                    ref, os.path.join(out, "output_0.pb"))
            return ms
        return run

    methods["quarry"] = quarry_method(onnx_path, "quarry", "1")
    methods["quarry_streams"] = quarry_method(onnx_path, "quarry_streams",
                                              "auto")
    if "1" in optimized:
        methods["quarry_optimized"] = quarry_method(
            optimized["1"], "quarry_optimized", "1")
    if "auto" in optimized:
        methods["quarry_optimized_streams"] = quarry_method(
            optimized["auto"], "quarry_optimized_streams", "auto")
    rounds = {k: [] for k in methods}
    for _ in range(args.rounds):
        for k, fn in methods.items():
            if k in entry.get("failed", {}):
                continue
            try:
                if torch is not None:
                    with torch.no_grad():
                        rounds[k].append(fn())
                else:
                    rounds[k].append(fn())
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                entry.setdefault("failed", {})[k] = str(e)[:600]
    entry["ms"] = {k: round(statistics.median(v), 4)
                   for k, v in rounds.items() if v}
    entry["rounds_ms"] = {k: [round(t, 4) for t in v]
                          for k, v in rounds.items() if v}
    if devices:
        entry["quarry_device"] = devices.get("quarry") or next(
            iter(devices.values()))
    if not args.no_breakdown:
        entry["quarry_steps"] = {}
        for key, path, streams in (
                ("quarry", onnx_path, "1"), ("quarry_streams", onnx_path, "auto"),
                ("quarry_optimized_streams", optimized.get("auto"), "auto")):
            if path is None:
                continue
            try:
                entry["quarry_steps"][key] = quarry_steps(args, path, inputs,
                                                          streams)
            except subprocess.TimeoutExpired:
                entry["quarry_steps"][key] = ["timed out"]
        try:
            entry["quarry_cost"] = quarry_cost_by_op(args, onnx_path)
        except subprocess.TimeoutExpired:
            entry["quarry_cost"] = {"error": "timed out"}
    torch_best = [entry["ms"][k] for k in
                  ("torch_eager", "torch_cuda_graph", "torch_compile")
                  if k in entry["ms"]]
    for k in ("quarry", "quarry_streams", "quarry_optimized",
              "quarry_optimized_streams"):
        if torch_best and k in entry["ms"]:
            entry[k + "_over_best_torch"] = round(
                entry["ms"][k] / min(torch_best), 4)
    for k in ("quarry", "quarry_optimized"):
        if k in entry["ms"] and k + "_streams" in entry["ms"]:
            entry[k + "_streams_speedup"] = round(
                entry["ms"][k] / entry["ms"][k + "_streams"], 4)
    return entry


def git_commit():
    # A copy of the tree on another machine may carry a stale .git: the
    # commit it was packed from, when given, wins.
    if os.environ.get("QUARRY_COMMIT"):
        return os.environ["QUARRY_COMMIT"]
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True,
                              cwd=os.path.dirname(os.path.abspath(__file__))
                              ).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quarry", default="build/bin/quarry")
    ap.add_argument("--rules", default="rules/quarry-k3.verified.pb")
    ap.add_argument("--out", required=True, help="JSON written here")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--budget", type=int, default=20,
                    help="quarry optimize's --budget")
    ap.add_argument("--cost-cache", help="quarry optimize's --cost-cache")
    ap.add_argument("--compile-mode", default="reduce-overhead",
                    help="torch.compile's mode, or off")
    ap.add_argument("--compile-models",
                    help="torch.compile only these (comma-separated; "
                    "default: every model but those of COMPILE_FAILS)")
    ap.add_argument("--no-breakdown", action="store_true",
                    help="skip the per-step and per-operator breakdowns")
    ap.add_argument("--timeout", type=int, default=240,
                    help="seconds one quarry command may take")
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--onnx-dir", help="no torch: time quarry alone on "
                    "DIR/NAME.onnx")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()

    torch = None
    if not args.onnx_dir:
        import torch  # noqa: F811 - only here: the rehearsal has none
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")
        torch.manual_seed(0)

    result = {
        "bench": "gpu_vs_torch",
        "commit": git_commit(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"),
        "command": " ".join(sys.argv),
        "precision": "fp32, TF32 off",
        "batch": 1,
        "torch": torch.__version__ if torch else None,
        "device": torch.cuda.get_device_name(0) if torch else None,
        "networks": [],
    }

    def write():
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(result, f, indent=1)
        os.replace(tmp, args.out)

    with tempfile.TemporaryDirectory(prefix="gpu_vs_torch.") as work:
        for name in [m for m in args.models.split(",") if m]:
            t0 = time.monotonic()
            if not args.child:
                entry = isolated(name, work)
            else:
                try:
                    entry = one_model(args, name, work, torch)
                except Exception as e:  # noqa: BLE001 - next network
                    entry = {"model": name,
                             "error": ("%s: %s" % (type(e).__name__, e))[:800]}
            entry["seconds"] = round(time.monotonic() - t0, 1)
            result["networks"].append(entry)
            write()
            print(json.dumps({k: entry.get(k) for k in
                              ("model", "ms", "quarry_over_best_torch",
                               "quarry_optimized_streams_over_best_torch",
                               "quarry_streams_speedup", "error", "failed",
                               "seconds")}), flush=True)
    write()


def isolated(name, work):
    """One network measured by a child process of this script: a fault that
    poisons the CUDA context (PyTorch's, say) or a crash ends that network
    alone."""
    out = os.path.join(work, name + ".json")
    cmd = [sys.executable, os.path.abspath(__file__)] + sys.argv[1:] + [
        "--models", name, "--out", out, "--child"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    sys.stderr.write(p.stderr[-2000:])
    try:
        with open(out) as f:
            return json.load(f)["networks"][0]
    except (OSError, ValueError, KeyError, IndexError):
        return {"model": name, "error": "child exit %d: %s" % (
            p.returncode, p.stderr.strip()[-600:])}


if __name__ == "__main__":
    main()
