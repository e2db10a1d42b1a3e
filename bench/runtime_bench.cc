//===- runtime_bench.cc - Operator and graph latency per backend ----------===//
//
// Prints JSON with, per backend at hand (cpu always; cuda when a GPU is
// present; the reference for the group sweep unless --no-reference):
//   - layers: ResNet-50 and BERT-base layers at batch 1 (shapes from He et
//     al. 2016 and Devlin et al. 2019, sequence length 128), each as a
//     one-operator graph through quarry's runtime, next to the same oneDNN
//     primitive timed directly (plain activations, weights laid out once),
//     so the runtime's overhead reads as a ratio;
//   - graphs: a ResNet-50 bottleneck block and a BERT-base attention and
//     feed-forward block, whole;
//   - group_sweep: TASO's Figure 9, a 3x3 convolution of 1x512x28x28 to 512
//     channels as 1, 2, 4, 8, 16 and 32 groups;
//   - gemv_sweep: about 64 MiB of weights, more than a CPU's last-level
//     cache, as products of one 512-element row with [512, n] matrices, n
//     from 512 to 4096 (what merging NasRNN's products makes of them),
//     whole, with the weights' bytes per second.
// Every figure is the median of --runs timed runs after --warmup.
//
//   build/bin/runtime_bench [--runs N] [--warmup N] [--no-reference]
//
//===----------------------------------------------------------------------===//
#include "bench_cli.h"
#include "provenance.h"

#include "quarry/core/random.h"
#include "quarry/core/text.h"
#include "quarry/core/timed_in_turn.h"
#include "quarry/runtime/backends.h"
#include "quarry/runtime/measure.h"
#include "quarry/runtime/run_inputs.h"

#include <nlohmann/json.hpp>
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

using namespace quarry;
using dims = dnnl::memory::dims;

struct Layer {
  const char *model, *name, *text;
};

// conv: "input x: [n,c,h,w]\nweight w: [co,ci,kh,kw]\ny = conv2d[...](x, w)"
const Layer kLayers[] = {
    {"resnet50", "conv1_7x7_s2",
     "input x: [1,3,224,224]\nweight w: [64,3,7,7]\n"
     "y = conv2d[s=2,2 act=relu](x, w)\noutput y"},
    {"resnet50", "pool1_max_3x3_s2",
     "input x: [1,64,112,112]\ny = pool2d_max[k=3,3 s=2,2](x)\noutput y"},
    {"resnet50", "conv2_1x1_64",
     "input x: [1,64,56,56]\nweight w: [64,64,1,1]\n"
     "y = conv2d[act=relu](x, w)\noutput y"},
    {"resnet50", "conv2_3x3_64",
     "input x: [1,64,56,56]\nweight w: [64,64,3,3]\n"
     "y = conv2d[act=relu](x, w)\noutput y"},
    {"resnet50", "conv2_1x1_256",
     "input x: [1,64,56,56]\nweight w: [256,64,1,1]\n"
     "y = conv2d(x, w)\noutput y"},
    {"resnet50", "conv3_3x3_128",
     "input x: [1,128,28,28]\nweight w: [128,128,3,3]\n"
     "y = conv2d[act=relu](x, w)\noutput y"},
    {"resnet50", "conv4_3x3_256",
     "input x: [1,256,14,14]\nweight w: [256,256,3,3]\n"
     "y = conv2d[act=relu](x, w)\noutput y"},
    {"resnet50", "conv5_3x3_512",
     "input x: [1,512,7,7]\nweight w: [512,512,3,3]\n"
     "y = conv2d[act=relu](x, w)\noutput y"},
    {"resnet50", "conv5_1x1_2048_512",
     "input x: [1,2048,7,7]\nweight w: [512,2048,1,1]\n"
     "y = conv2d[act=relu](x, w)\noutput y"},
    {"resnet50", "fc_2048_1000",
     "input x: [1,2048]\nweight w: [2048,1000]\ny = matmul(x, w)\noutput y"},
    {"bert_base", "qkv_projection",
     "input x: [128,768]\nweight w: [768,768]\ny = matmul(x, w)\noutput y"},
    {"bert_base", "attention_scores",
     "input q: [12,128,64]\ninput k: [12,64,128]\ny = matmul(q, k)\noutput y"},
    {"bert_base", "attention_context",
     "input p: [12,128,128]\ninput v: [12,128,64]\ny = matmul(p, v)\noutput y"},
    {"bert_base", "ffn_up",
     "input x: [128,768]\nweight w: [768,3072]\n"
     "y = matmul[act=relu](x, w)\noutput y"},
    {"bert_base", "ffn_down",
     "input x: [128,3072]\nweight w: [3072,768]\ny = matmul(x, w)\noutput y"},
};

const Layer kGraphs[] = {
    {"resnet50", "bottleneck_conv2",
     "input x: [1,256,56,56]\nweight w1: [64,256,1,1]\n"
     "weight w2: [64,64,3,3]\nweight w3: [256,64,1,1]\n"
     "y1 = conv2d[act=relu](x, w1)\ny2 = conv2d[act=relu](y1, w2)\n"
     "y = relu(ewadd(conv2d(y2, w3), x))\noutput y"},
    {"bert_base", "attention_ffn_block",
     "input x: [128,768]\nweight wq: [768,768]\nweight wk: [768,768]\n"
     "weight wv: [768,768]\nweight wo: [768,768]\n"
     "weight w1: [768,3072]\nweight w2: [3072,768]\n"
     "q = reshape[shape=128,12,64](matmul(x, wq))\n"
     "k = reshape[shape=128,12,64](matmul(x, wk))\n"
     "v = reshape[shape=128,12,64](matmul(x, wv))\n"
     "s = sigmoid(matmul(transpose[perm=1,0,2](q), transpose[perm=1,2,0](k)))\n"
     "c = reshape[shape=128,768](transpose[perm=1,0,2](\n"
     "      matmul(s, transpose[perm=1,0,2](v))))\n"
     "a = ewadd(matmul(c, wo), x)\n"
     "y = ewadd(matmul(matmul[act=relu](a, w1), w2), a)\noutput y"},
};

/// The median ms of `run` under the policy every timing shares.
template <class F> double median_ms(F &&run, const runtime::MeasureOptions &o) {
  TurnPolicy policy;
  policy.rounds = o.runs;
  policy.warmup_rounds = o.warmup;
  return median(time_in_turn(
      std::vector<std::function<double()>>{[&] { return time_ms(run); }},
      policy)[0]);
}
double graph_ms(runtime::Backend &b, const Graph &g,
                const runtime::MeasureOptions &o) {
  const auto values = runtime::random_run_bindings(g, 1);
  auto e = b.prepare(g, values);
  e->set_inputs(values);
  return runtime::median_ms(*e, o);
}

dnnl::memory::desc plain(const Shape &s) {
  dims d(s.dims.begin(), s.dims.end()), strides(d.size(), 1);
  for (int i = static_cast<int>(d.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * d[i + 1];
  return {d, dnnl::memory::data_type::f32, strides};
}

/// The layer's one oneDNN primitive, built and timed directly: the floor
/// quarry's cpu backend is compared against.
double onednn_ms(const Graph &g, const runtime::MeasureOptions &o) {
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  const Node &n = g.node(g.num_nodes() - 1);
  const Shape &x = g.type(n.inputs[0])->shape;
  const Shape &y = g.node(g.num_nodes() - 1).types[0].shape;
  std::vector<float> xs(x.numel()), ys(y.numel());
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = random_float(random_bits(1, "x", i));
  dnnl::primitive prim;
  std::unordered_map<int, dnnl::memory> args;
  args[DNNL_ARG_SRC] = dnnl::memory(plain(x), eng, xs.data());
  args[DNNL_ARG_DST] = dnnl::memory(plain(y), eng, ys.data());
  std::vector<float> ws;
  if (n.kind == OpKind::Pool2DMax) {
    const auto &k = n.attrs.list(ops::Pool2DMax::kKernel);
    const auto &s = n.attrs.list(ops::Pool2DMax::kStride);
    const auto [wy, wx] = ops::Pool2DMax::windows(n.attrs, x);
    dnnl::pooling_forward::desc d(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max,
        plain(x), plain(y), {s[0], s[1]}, {k[0], k[1]},
        {wy.pad_before, wx.pad_before}, {wy.pad_before, wx.pad_before});
    prim = dnnl::pooling_forward({d, eng});
  } else {
    const Shape &w = g.type(n.inputs[1])->shape;
    ws.resize(w.numel());
    for (size_t i = 0; i < ws.size(); ++i)
      ws[i] = random_float(random_bits(1, "w", i));
    dnnl::primitive_attr attr;
    const size_t act = n.kind == OpKind::Conv2D
                           ? static_cast<size_t>(ops::Conv2D::kAct)
                           : static_cast<size_t>(ops::MatMul::kAct);
    if (static_cast<Activation>(n.attrs.i(act)) == Activation::Relu) {
      dnnl::post_ops po;
      po.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
      attr.set_post_ops(po);
    }
    if (n.kind == OpKind::Conv2D) {
      const auto geo = ops::Conv2D::geometry(n.attrs, x, w);
      const auto &s = n.attrs.list(ops::Conv2D::kStride);
      const dims wd{geo.co, geo.cw, geo.kh, geo.kw};
      dnnl::convolution_forward::desc d(
          dnnl::prop_kind::forward_inference,
          dnnl::algorithm::convolution_direct, plain(x),
          {wd, dnnl::memory::data_type::f32, dnnl::memory::format_tag::any},
          plain(y), {s[0], s[1]}, {geo.y.pad_before, geo.x.pad_before},
          {geo.y.pad_before, geo.x.pad_before});
      dnnl::convolution_forward::primitive_desc pd(d, attr, eng);
      dnnl::memory user(plain(w), eng, ws.data());
      dnnl::memory laid(pd.weights_desc(), eng);
      dnnl::reorder(user, laid).execute(strm, user, laid);
      args[DNNL_ARG_WEIGHTS] = laid;
      prim = dnnl::convolution_forward(pd);
    } else {
      args[DNNL_ARG_WEIGHTS] = dnnl::memory(plain(w), eng, ws.data());
      // Batch dimensions as one, like the runtime.
      const int r = x.rank();
      const int64_t b = x.numel() / (x[r - 2] * x[r - 1]);
      auto md = [&](int64_t rows, int64_t cols) {
        return plain(Shape{b, rows, cols});
      };
      args[DNNL_ARG_SRC] = dnnl::memory(md(x[r - 2], x[r - 1]), eng, xs.data());
      args[DNNL_ARG_WEIGHTS] =
          dnnl::memory(md(w[r - 2], w[r - 1]), eng, ws.data());
      args[DNNL_ARG_DST] = dnnl::memory(md(y[r - 2], y[r - 1]), eng, ys.data());
      dnnl::matmul::desc d(md(x[r - 2], x[r - 1]), md(w[r - 2], w[r - 1]),
                           md(y[r - 2], y[r - 1]));
      prim = dnnl::matmul({d, attr, eng});
    }
  }
  return median_ms(
      [&] {
        prim.execute(strm, args);
        strm.wait();
      },
      o);
}

std::vector<std::unique_ptr<runtime::Backend>> backends_at_hand() {
  std::vector<std::unique_ptr<runtime::Backend>> bs;
  bs.push_back(runtime::make_backend("cpu"));
  try {
    bs.push_back(runtime::make_backend("cuda"));
  } catch (const Error &) {
    // no GPU here, or a build without the cuda backend
  }
  return bs;
}

std::string group_conv(int groups) {
  return "input x: [1,512,28,28]\nweight w: [512," +
         std::to_string(512 / groups) + ",3,3]\ny = conv2d(x, w)\noutput y";
}

/// About 64 MiB of weights as 512 x `n` matrices, each times the same
/// row.
int gemv_count(int n) { return (64 << 20) / (512 * n * 4); }
std::string gemv_graph(int n) {
  const int count = gemv_count(n);
  std::string text = "input x: [1,512]\n";
  for (int i = 0; i < count; ++i)
    text += "weight w" + std::to_string(i) + ": [512," + std::to_string(n) +
            "]\ny" + std::to_string(i) + " = matmul(x, w" + std::to_string(i) +
            ")\noutput y" + std::to_string(i) + "\n";
  return text;
}

} // namespace

int main(int argc, char **argv) {
  runtime::MeasureOptions opts{3, 20, 1};
  bool no_reference = false;
  CLI::App app{"Operator and graph latency per backend, as JSON",
               "runtime_bench"};
  quarry::bench::flag_defaults(app);
  app.add_option("--runs", opts.runs,
                 "Timed runs; each figure is their median (at least 1)");
  app.add_option("--warmup", opts.warmup, "Untimed runs before them");
  app.add_flag("--no-reference", no_reference,
               "Leave the reference backend out of the group sweep");
  quarry::bench::parse_or_exit(app, argc, argv);
  opts.runs = std::max(1, opts.runs);
  opts.warmup = std::max(0, opts.warmup);
  const bool reference = !no_reference;
  try {
    auto backends = backends_at_hand();
    nlohmann::json out = quarry::bench::provenance(argc, argv);
    out["benchmark"] = "runtime";
    out["runs"] = opts.runs;
    out["warmup"] = opts.warmup;
    out["statistic"] = "median ms";
    for (auto &b : backends)
      out["devices"][std::string(b->name())] = b->device_name();
    for (const Layer &l : kLayers) {
      const Graph g = parse_graph(l.text, l.name);
      nlohmann::json row{{"model", l.model}, {"layer", l.name}};
      for (auto &b : backends)
        row[std::string(b->name()) + "_ms"] = graph_ms(*b, g, opts);
      row["onednn_primitive_ms"] = onednn_ms(g, opts);
      row["cpu_over_onednn"] = row["cpu_ms"].get<double>() /
                               row["onednn_primitive_ms"].get<double>();
      out["layers"].push_back(row);
    }
    for (const Layer &l : kGraphs) {
      const Graph g = parse_graph(l.text, l.name);
      nlohmann::json row{{"model", l.model},
                         {"graph", l.name},
                         {"operators", g.num_operators()}};
      for (auto &b : backends)
        row[std::string(b->name()) + "_ms"] = graph_ms(*b, g, opts);
      out["graphs"].push_back(row);
    }
    for (int n : {512, 1024, 1536, 2048, 4096}) {
      const Graph g = parse_graph(gemv_graph(n), "gemv_sweep");
      const double bytes = 512.0 * n * 4 * gemv_count(n);
      nlohmann::json row{{"columns", n}, {"weight_bytes", bytes}};
      for (auto &b : backends) {
        const double ms = graph_ms(*b, g, opts);
        row[std::string(b->name()) + "_ms"] = ms;
        row[std::string(b->name()) + "_gb_per_s"] = bytes / ms / 1e6;
      }
      out["gemv_sweep"].push_back(row);
    }
    if (reference)
      backends.push_back(runtime::make_backend("reference"));
    for (int groups : {1, 2, 4, 8, 16, 32}) {
      const Graph g = parse_graph(group_conv(groups), "group_conv");
      nlohmann::json row{{"groups", groups}};
      for (auto &b : backends) {
        // The reference takes seconds per run; one run says enough.
        const bool slow = b->name() == "reference";
        row[std::string(b->name()) + "_ms"] =
            graph_ms(*b, g, slow ? runtime::MeasureOptions{0, 1, 1} : opts);
      }
      out["group_sweep"].push_back(row);
    }
    std::printf("%s\n", out.dump(2).c_str());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "runtime_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
