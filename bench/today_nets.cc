//===- today_nets.cc - Today's architectures as exporters write them ------===//
//
// Writes ONNX files of architectures newer than the six benchmark networks,
// node for node in the forms PyTorch's exporters (eval mode, constants
// folded) give torchvision's models: linear layers as MatMul and Add, GELU
// as Div, Erf, Add and two Muls (one Gelu from opset 20), a channels-first
// LayerNorm as Transpose, LayerNormalization, Transpose, batch norms after a
// convolution folded into it. Beside them, small networks in the forms
// users bring today: opset 21 as the dynamo exporter writes it, float16
// from `model.half()`, QDQ int8 from ONNX Runtime's quantizer, a video
// network of 3-D convolutions. The weights are seeded random numbers
// scaled by fan-in, so outputs stay in range and quarry's and ONNX
// Runtime's outputs can be compared. The files are written where the caller
// says (a cache outside the repository), never committed.
//
//   build/bin/today_nets OUTDIR [NAME...]
//   build/bin/today_nets --list
//
// NAME is convnext_t, vit_b16, densenet121, efficientnet_b0,
// shufflenet_v2, two small detectors, retinanet_s and faster_rcnn_s
// (today_detectors.cc), or one of the small networks of today's forms:
// convnext_s_fp16, vit_s_opset21, r3d_s, resnet_s_qdq, resnet_s_qdq_u8,
// vit_s_qdq, resnet_s_dynamic and resnet_s_dynamic_u8 (today_quantized.cc).
// All of them when none is given. Prints each file's path (--list: the
// names).
//
//===----------------------------------------------------------------------===//
#include "bench_cli.h"
#include "today_net.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace quarry::bench;

/// A ConvNeXt of stages `depths` wide `dims` (torchvision's convnext_tiny
/// is {3, 3, 9, 3} wide {96, 192, 384, 768}).
void convnext(Net &n, const Ints &depths, const Ints &dims,
              const std::string &path) {
  std::string x =
      n.layer_norm_2d(n.conv("input", 3, dims[0], 4, 4, 0), dims[0]);
  for (size_t s = 0; s < depths.size(); ++s) {
    const int64_t c = dims[s];
    if (s > 0)
      x = n.conv(n.layer_norm_2d(x, dims[s - 1]), dims[s - 1], c, 2, 2, 0);
    for (int64_t b = 0; b < depths[s]; ++b) {
      std::string y = n.transpose(n.conv(x, c, c, 7, 1, 3, c), {0, 2, 3, 1});
      y = n.linear(n.gelu(n.linear(n.layer_norm(y, c, 1e-6f), c, 4 * c)), 4 * c,
                   c);
      y = n.transpose(y, {0, 3, 1, 2});
      y = n.op("Mul", {y, n.uniform({c, 1, 1}, 0.05f, 0.15f)});
      x = n.op("Add", {y, x});
    }
  }
  const int64_t last = dims.back();
  x = n.layer_norm_2d(n.op("GlobalAveragePool", {x}), last);
  const std::string f = n.fresh("flatten");
  set_int(n.node("Flatten", {x}, f), "axis", 1);
  n.write(n.gemm(f, last, 1000), path);
}

void convnext_t(const std::string &path) {
  Net n({1, 3, 224, 224});
  convnext(n, {3, 3, 9, 3}, {96, 192, 384, 768}, path);
}

/// A small ConvNeXt exported after `model.half()` at opset 18: every
/// tensor float16, the interface too.
void convnext_s_fp16(const std::string &path) {
  Net n({1, 3, 128, 128}, 18, onnx::TensorProto::FLOAT16);
  convnext(n, {1, 1, 2, 1}, {48, 96, 192, 384}, path);
}

} // namespace

void quarry::bench::vit(Net &n, const Vit &v, const std::string &path) {
  const int64_t hd = 64, d = v.heads * hd, mlp = 4 * d;
  const int64_t patches = (v.side / 16) * (v.side / 16);
  const int64_t tokens = patches + (v.class_token ? 1 : 0);
  std::string x = n.reshape(n.conv("input", 3, d, 16, 16, 0), {1, d, patches});
  x = v.class_token
          ? n.concat({n.weight({1, 1, d}, 0.02), n.transpose(x, {0, 2, 1})}, 1)
          : n.transpose(x, {0, 2, 1});
  x = n.op("Add", {x, n.weight({1, tokens, d}, 0.02)});
  for (int64_t b = 0; b < v.blocks; ++b) {
    std::string qkv = n.linear(n.layer_norm(x, d, 1e-6f), d, 3 * d);
    qkv = n.transpose(n.reshape(qkv, {1, tokens, 3, v.heads, hd}),
                      {2, 0, 3, 1, 4});
    const std::vector<std::string> part = n.unbind(qkv, 0, 3);
    const std::string q = n.op("Mul", {part[0], n.scalar(0.125f)});
    const std::string k = n.transpose(part[1], {0, 1, 3, 2});
    std::string a = n.op("Softmax", {n.op("MatMul", {q, k})});
    a = n.op("MatMul", {a, part[2]});
    a = n.reshape(n.transpose(a, {0, 2, 1, 3}), {1, tokens, d});
    x = n.op("Add", {x, n.linear(a, d, d)});
    x = n.op("Add",
             {x, n.linear(n.gelu(n.linear(n.layer_norm(x, d, 1e-6f), d, mlp)),
                          mlp, d)});
  }
  x = n.layer_norm(x, d, 1e-6f);
  std::string features;
  if (v.class_token) {
    features = n.fresh("gather");
    set_int(n.node("Gather", {x, n.index(0)}, features), "axis", 1);
  } else {
    features = n.reduce_mean(x, {1}, false);
  }
  n.write(n.gemm(features, d, 1000), path);
}

namespace {

/// torchvision's vit_b_16: 12 encoder blocks of 12 heads over 197 tokens.
void vit_b16(const std::string &path) {
  Net n({1, 3, 224, 224});
  vit(n, {224, 12, 12, true}, path);
}

/// A small ViT (4 blocks of 3 heads over 64 patches, mean-pooled) as the
/// dynamo exporter writes it at opset 21: q, k and v split into
/// num_outputs and squeezed, Gelu, the mean a ReduceMean whose axes are an
/// input.
void vit_s_opset21(const std::string &path) {
  Net n({1, 3, 128, 128}, 21);
  vit(n, {128, 4, 3, false}, path);
}

/// A video network after torchvision's r3d_18, smaller: 3-D convolutions
/// (a 3x7x7 stem strided in space, residual blocks of 3x3x3), a 3-D max
/// pooling, and global pooling over time and space, on clips of 8 frames.
void r3d_s(const std::string &path) {
  Net n({1, 3, 8, 56, 56});
  std::string x =
      n.op("Relu", {n.conv3d("input", 3, 32, {3, 7, 7}, {1, 2, 2}, {1, 3, 3})});
  const std::string pooled = n.fresh("pool");
  auto &pool = n.node("MaxPool", {x}, pooled);
  set_ints(pool, "kernel_shape", {1, 3, 3});
  set_ints(pool, "strides", {1, 2, 2});
  set_ints(pool, "pads", {0, 1, 1, 0, 1, 1});
  x = pooled;
  int64_t c = 32;
  for (int64_t cout : {32, 64, 128}) {
    const int64_t s = cout == c ? 1 : 2;
    std::string y =
        n.op("Relu", {n.conv3d(x, c, cout, {3, 3, 3}, {s, s, s}, {1, 1, 1})});
    y = n.conv3d(y, cout, cout, {3, 3, 3}, {1, 1, 1}, {1, 1, 1});
    const std::string skip =
        s == 1 ? x : n.conv3d(x, c, cout, {1, 1, 1}, {s, s, s}, {0, 0, 0});
    x = n.op("Relu", {n.op("Add", {y, skip})});
    c = cout;
  }
  n.write(n.head(x, c, 400), path);
}

/// torchvision's densenet121: four dense blocks, growth 32.
void densenet121(const std::string &path) {
  Net n({1, 3, 224, 224});
  std::string x = n.op("Relu", {n.conv("input", 3, 64, 7, 2, 3)});
  x = n.pool("MaxPool", x, 3, 2, 1);
  int64_t c = 64;
  const Ints blocks = {6, 12, 24, 16};
  for (size_t bi = 0; bi < blocks.size(); ++bi) {
    std::vector<std::string> features = {x};
    for (int64_t l = 0; l < blocks[bi]; ++l) {
      const int64_t cin = c + 32 * l;
      std::string y =
          features.size() == 1 ? features[0] : n.concat(features, 1);
      y = n.op("Relu", {n.batch_norm(y, cin)});
      y = n.op("Relu", {n.conv(y, cin, 128, 1, 1, 0)});
      features.push_back(n.conv(y, 128, 32, 3, 1, 1));
    }
    c += 32 * blocks[bi];
    x = n.concat(features, 1);
    if (bi + 1 < blocks.size()) {
      x = n.conv(n.op("Relu", {n.batch_norm(x, c)}), c, c / 2, 1, 1, 0);
      x = n.pool("AveragePool", x, 2, 2, 0);
      c /= 2;
    }
  }
  n.write(n.head(n.op("Relu", {n.batch_norm(x, c)}), c), path);
}

/// torchvision's efficientnet_b0: MBConv blocks with squeeze-excitation.
void efficientnet_b0(const std::string &path) {
  Net n({1, 3, 224, 224});
  struct Stage {
    int64_t expand, k, stride, cout, layers;
  };
  const Stage stages[] = {
      {1, 3, 1, 16, 1},  {6, 3, 2, 24, 2},  {6, 5, 2, 40, 2}, {6, 3, 2, 80, 3},
      {6, 5, 1, 112, 3}, {6, 5, 2, 192, 4}, {6, 3, 1, 320, 1}};
  std::string x = n.silu(n.conv("input", 3, 32, 3, 2, 1));
  int64_t c = 32;
  for (const Stage &s : stages) {
    for (int64_t l = 0; l < s.layers; ++l) {
      const int64_t stride = l == 0 ? s.stride : 1, e = c * s.expand;
      std::string y = x;
      if (s.expand != 1)
        y = n.silu(n.conv(y, c, e, 1, 1, 0));
      y = n.silu(n.conv(y, e, e, s.k, stride, s.k / 2, e));
      const int64_t squeeze = std::max<int64_t>(1, c / 4);
      std::string se = n.op("GlobalAveragePool", {y});
      se = n.silu(n.conv(se, e, squeeze, 1, 1, 0));
      se = n.op("Sigmoid", {n.conv(se, squeeze, e, 1, 1, 0)});
      y = n.conv(n.op("Mul", {se, y}), e, s.cout, 1, 1, 0);
      x = stride == 1 && c == s.cout ? n.op("Add", {y, x}) : y;
      c = s.cout;
    }
  }
  n.write(n.head(n.silu(n.conv(x, c, 1280, 1, 1, 0)), 1280), path);
}

/// torchvision's shufflenet_v2_x1_0: channel split, shuffle by reshapes.
void shufflenet_v2(const std::string &path) {
  Net n({1, 3, 224, 224});
  std::string x = n.op("Relu", {n.conv("input", 3, 24, 3, 2, 1)});
  x = n.pool("MaxPool", x, 3, 2, 1);
  int64_t c = 24, hw = 56;
  auto shuffle = [&](const std::string &y, int64_t ch, int64_t side) {
    std::string s = n.reshape(y, {1, 2, ch / 2, side, side});
    return n.reshape(n.transpose(s, {0, 2, 1, 3, 4}), {1, ch, side, side});
  };
  const Ints repeats = {4, 8, 4}, outs = {116, 232, 464};
  for (size_t si = 0; si < repeats.size(); ++si) {
    const int64_t co = outs[si], half = co / 2;
    // The first unit of a stage halves the resolution on both branches.
    std::string left = n.conv(n.conv(x, c, c, 3, 2, 1, c), c, half, 1, 1, 0);
    left = n.op("Relu", {left});
    std::string right = n.op("Relu", {n.conv(x, c, half, 1, 1, 0)});
    right = n.conv(right, half, half, 3, 2, 1, half);
    right = n.op("Relu", {n.conv(right, half, half, 1, 1, 0)});
    hw /= 2;
    x = shuffle(n.concat({left, right}, 1), co, hw);
    for (int64_t u = 1; u < repeats[si]; ++u) {
      const std::string a = n.fresh("split"), b = n.fresh("split");
      auto &split = n.node("Split", {x, n.ints({half, half})}, a);
      split.add_output(b);
      set_int(split, "axis", 1);
      std::string r = n.op("Relu", {n.conv(b, half, half, 1, 1, 0)});
      r = n.conv(r, half, half, 3, 1, 1, half);
      r = n.op("Relu", {n.conv(r, half, half, 1, 1, 0)});
      x = shuffle(n.concat({a, r}, 1), co, hw);
    }
    c = co;
  }
  n.write(n.head(n.op("Relu", {n.conv(x, c, 1024, 1, 1, 0)}), 1024), path);
}

} // namespace

int main(int argc, char **argv) {
  const std::map<std::string, std::function<void(const std::string &)>> nets = {
      {"convnext_t", convnext_t},
      {"vit_b16", vit_b16},
      {"densenet121", densenet121},
      {"efficientnet_b0", efficientnet_b0},
      {"shufflenet_v2", shufflenet_v2},
      {"retinanet_s", retinanet_s},
      {"faster_rcnn_s", faster_rcnn_s},
      {"convnext_s_fp16", convnext_s_fp16},
      {"vit_s_opset21", vit_s_opset21},
      {"r3d_s", r3d_s},
      {"resnet_s_qdq", resnet_s_qdq},
      {"resnet_s_qdq_u8", resnet_s_qdq_u8},
      {"vit_s_qdq", vit_s_qdq},
      {"resnet_s_dynamic", resnet_s_dynamic},
      {"resnet_s_dynamic_u8", resnet_s_dynamic_u8}};
  std::string outdir;
  std::vector<std::string> names;
  bool list = false;
  CLI::App app{"Writes ONNX files of today's architectures as exporters "
               "write them, and prints their paths",
               "today_nets"};
  quarry::bench::flag_defaults(app);
  app.add_option("OUTDIR", outdir, "Directory the files are written to");
  app.add_option("NAME", names,
                 "Networks: convnext_t, vit_b16, densenet121, "
                 "efficientnet_b0, shufflenet_v2, retinanet_s, faster_rcnn_s, "
                 "convnext_s_fp16, vit_s_opset21, r3d_s, resnet_s_qdq, "
                 "resnet_s_qdq_u8, vit_s_qdq, resnet_s_dynamic, "
                 "resnet_s_dynamic_u8 "
                 "(default: all)");
  app.add_flag("--list", list, "Print the networks' names instead");
  quarry::bench::parse_or_exit(app, argc, argv);
  if (list) {
    for (const auto &[name, make] : nets)
      std::printf("%s\n", name.c_str());
    return 0;
  }
  if (!app.count("OUTDIR"))
    quarry::bench::usage_error(app, "OUTDIR is required (or --list)");
  const std::filesystem::path dir = outdir;
  if (names.empty())
    for (const auto &[name, make] : nets)
      names.push_back(name);
  try {
    std::filesystem::create_directories(dir);
    for (const std::string &name : names) {
      auto it = nets.find(name);
      if (it == nets.end()) {
        std::fprintf(stderr, "today_nets: unknown network '%s'\n",
                     name.c_str());
        return 2;
      }
      const std::string path = (dir / (name + ".onnx")).string();
      it->second(path);
      std::printf("%s\n", path.c_str());
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "today_nets: %s\n", e.what());
    return 1;
  }
  return 0;
}
