//===- layout_cases.h - Operators on values in every layout ----*- C++ -*-===//
//
// Cases for the cpu backend's layouts, fusion and broadcasting. Operators
// that take their operand in any layout read a convolution's result, so
// they run in whatever layout the convolution wrote (forced per test to
// nchw, nhwc, nChw8c, nChw16c); channel counts of 12 leave blocked layouts
// with padding. Fusion cases say how many nodes must join another's kernel.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "cases.h"

#include <string>
#include <vector>

namespace quarry::runtime::testing {

/// "input x: [1,8,5,6]  weight w: [C,8,1,1]  c = conv2d(x, w)" then `body`
/// over c (and d = a second convolution of x, and a per-channel weight b).
inline std::string after_conv(int64_t channels, const std::string &body,
                              const std::string &outputs = "y") {
  const std::string c = std::to_string(channels);
  return "input x: [1,8,5,6]\nweight w: [" + c + ",8,1,1]\nweight v: [" + c +
         ",8,3,3]\nweight b: [" + c + ",1,1]\n" +
         "c = conv2d(x, w)\nd = conv2d(x, v)\n" + body + "\noutput " + outputs +
         "\n";
}

/// Every operator of the cpu backend on a convolution's result.
inline std::vector<Case> layout_cases() {
  struct Op {
    std::string name, body;
  };
  const std::vector<Op> ops = {
      {"relu", "y = relu(c)"},
      {"sigmoid", "y = sigmoid(c)"},
      {"tanh", "y = tanh(c)"},
      {"pool_avg", "y = pool2d_avg[k=3,3 s=2,2](c)"},
      {"pool_max", "y = pool2d_max[k=2,2 s=1,1 pad=valid](c)"},
      // A pooling with its chain: a residual, a per-channel bias and relu,
      // SiLU (quarry's loop after it, over a blocked layout's padding).
      {"pool_avg_residual",
       "y = ewadd(pool2d_avg[k=3,3 s=1,1 pad=same](c), d)"},
      {"pool_max_bias_relu",
       "y = relu(broadcast[fn=add](pool2d_max[k=3,3 s=1,1 pad=same](c), b))"},
      {"pool_avg_silu",
       "y = pointwise[fn=silu](pool2d_avg[k=2,2 s=2,2 pad=valid](c))"},
      {"ewadd", "y = ewadd(c, d)"},
      {"ewmul", "y = ewmul(d, c)"},
      {"ewadd_weight", "weight e: [1,C,5,6]\ny = ewadd(c, e)"},
      {"scalar_mul_static", "weight s: []\ny = scalar_mul(c, s)"},
      {"scalar_mul_computed", "input s: []\ny = scalar_mul(c, s)"},
      {"batchnorm", "weight g: [C]\nweight h: [C]\nweight m: [C]\n"
                    "weight q: [C]\ny = batchnorm(c, g, h, m, q)"},
      // A batchnorm that no convolution's weights can fold (a densely
      // connected network's, after a concatenation), with its relu and
      // without.
      {"batchnorm_alone_relu",
       "weight g: [C]\nweight h: [C]\nweight m: [C]\nweight q: [C]\n"
       "y = relu(batchnorm(relu(c), g, h, m, q))"},
      {"batchnorm_alone",
       "weight g: [C]\nweight h: [C]\nweight m: [C]\nweight q: [C]\n"
       "y = batchnorm(sigmoid(c), g, h, m, q)"},
      {"concat_channels", "y = concat[axis=1](c, d, c)"},
      // A concatenation that applies its batchnorm as it copies, with the
      // relu after it and without.
      {"concat_batchnorm_relu",
       "weight g: [C2]\nweight h: [C2]\nweight m: [C2]\nweight q: [C2]\n"
       "y = relu(batchnorm(concat[axis=1](c, d), g, h, m, q))"},
      {"concat_batchnorm",
       "weight g: [C2]\nweight h: [C2]\nweight m: [C2]\nweight q: [C2]\n"
       "y = batchnorm(concat[axis=1](relu(c), d), g, h, m, q)"},
      {"concat_width", "y = concat[axis=3](c, d)"},
      {"concat_weight", "weight e: [1,3,5,6]\ny = concat[axis=1](c, e, d)"},
      {"concat_batch", "y = concat[axis=0](c, d)"},
      {"conv_chain", "y = conv2d[act=relu](c, v2)"},
      // Windows over the whole input: a gemv, and per-channel dot products.
      {"conv_point",
       "weight p: [4,C,5,6]\ny = conv2d[pad=valid act=relu](c, p)"},
      {"conv_point_depthwise",
       "weight q: [C,1,5,6]\ny = conv2d[pad=valid act=tanh](c, q)"},
      {"conv_dilated_same", "y = conv2d[act=relu d=2,3](c, v2)"},
      // SiLU after a convolution, applied by quarry's loop over the
      // result (a blocked one's padding included), after a residual sum
      // and after a depthwise convolution.
      {"conv_silu", "y = pointwise[fn=silu](conv2d(c, v2))"},
      {"conv_silu_residual", "weight u: [C,C,1,1]\n"
                             "y = pointwise[fn=silu](ewadd(conv2d(c, u), d))"},
      {"conv_depthwise_silu",
       "weight q: [C,1,3,3]\ny = pointwise[fn=silu](conv2d(c, q))"},
      // Winograd where oneDNN has it (16 channels, AVX-512), in its own
      // layout with reorders around it; direct elsewhere.
      {"conv_winograd",
       "weight u: [16,C,3,3]\ny = conv2d[act=relu alg=winograd](c, u)"},
      {"conv_winograd_residual",
       "weight u: [C,C,3,3]\ny = relu(ewadd(conv2d[alg=winograd](c, u), d))"},
      {"conv_winograd_bias",
       "weight u: [C,C,3,3]\n"
       "y = broadcast[fn=add](conv2d[alg=winograd](c, u), b)"},
      // A 1x1 convolution as a matrix product over channels-last pixels,
      // alone, with its bias, a folded batchnorm, a residual sum (summed
      // in place) and its relu, a residual that arrives plain (a graph input),
      // SiLU after it; and one that is not a
      // product of pixels (strided), which runs directly.
      {"conv_matmul", "weight u: [16,C,1,1]\ny = conv2d[alg=matmul](c, u)"},
      {"conv_matmul_bias_relu",
       "weight u: [C,C,1,1]\n"
       "y = relu(broadcast[fn=add](conv2d[alg=matmul](c, u), b))"},
      {"conv_matmul_batchnorm",
       "weight u: [C,C,1,1]\nweight g: [C]\nweight h: [C]\nweight m: [C]\n"
       "weight q: [C]\ny = batchnorm(conv2d[alg=matmul](c, u), g, h, m, q)"},
      {"conv_matmul_residual", "weight u: [C,C,1,1]\n"
                               "y = relu(ewadd(conv2d[alg=matmul](c, u), d))"},
      {"conv_matmul_residual_input", "weight u: [C,C,1,1]\ninput r: [1,C,5,6]\n"
                                     "y = ewadd(conv2d[alg=matmul](c, u), r)"},
      {"conv_matmul_silu",
       "weight u: [C,C,1,1]\ny = pointwise[fn=silu](conv2d[alg=matmul](c, u))"},
      {"conv_matmul_strided",
       "weight u: [C,C,1,1]\ny = conv2d[s=2,2 alg=matmul](c, u)"},
      {"conv_dilated_strided_valid",
       "y = conv2d[s=2,1 pad=valid d=2,2](c, v2)"},
      {"softmax", "y = softmax[axis=1](c)"},
      {"layer_norm_last", "weight g: [6]\nweight h: [6]\n"
                          "y = layer_norm(c, g, h)"},
      {"layer_norm_channels", "weight g: [C,5,6]\n"
                              "y = layer_norm[axis=1 eps=0.001](c, g)"},
      {"resize_nearest_up", "y = resize[shape=1,C,10,12 mode=nearest](c)"},
      {"resize_nearest_down_floor",
       "y = resize[shape=1,C,3,4 coord=asymmetric nearest=floor](c)"},
      {"resize_nearest_channels_ceil",
       "y = resize[shape=1,7,7,9 coord=align_corners nearest=ceil](c)"},
      {"resize_linear", "y = resize[shape=1,C,7,9 mode=linear](c)"},
      {"resize_cubic",
       "y = resize[shape=1,C,8,4 mode=cubic exclude_outside=1](c)"},
      {"transpose", "y = transpose[perm=0,2,3,1](c)"},
      // Channels-last and back around a row operation: views where the
      // convolution wrote nhwc.
      {"transpose_round_trip",
       "weight g: [C]\ny = ewadd(transpose[perm=0,3,1,2](layer_norm("
       "transpose[perm=0,2,3,1](c), g)), d)"},
      {"transpose_inner_axes", "y = transpose[perm=0,1,3,2](c)"},
      {"reshape", "y = reshape[shape=1,-1](c)"},
      {"split", "y, z = split[axis=1 sizes=4,C4](c)"},
      {"split_on_blocks", "y, z = split[axis=1 sizes=8,C8](c)"},
      {"split_width", "y, z = split[axis=3 sizes=2,4](c)"},
      {"broadcast_channel", "y = broadcast[fn=add](c, b)"},
      {"broadcast_channel_first", "y = broadcast[fn=sub](b, c)"},
      {"broadcast_div_scalar", "input s: [1]\ny = broadcast[fn=div](c, s)"},
      {"broadcast_max_full", "y = broadcast[fn=max](c, d)"},
      {"broadcast_full_weight",
       "weight e: [1,C,5,6]\ny = broadcast[fn=sub](c, e)"},
      {"broadcast_full_computed", "y = broadcast[fn=div](c, sigmoid(d))"},
      {"broadcast_pow", "y = broadcast[fn=pow](sigmoid(c), b)"},
      // A squeeze-excitation's scale: one computed value per channel over
      // an operand read twice, so that nothing fuses it.
      {"broadcast_channel_computed",
       "s = sigmoid(pool2d_avg[k=5,6 s=1,1 pad=valid](c))\n"
       "y = broadcast[fn=mul](c, s)"},
      {"broadcast_channel_computed_div",
       "s = sigmoid(pool2d_avg[k=5,6 s=1,1 pad=valid](c))\n"
       "y = broadcast[fn=div](c, s)"},
      {"broadcast_channel_computed_first",
       "s = sigmoid(pool2d_avg[k=5,6 s=1,1 pad=valid](c))\n"
       "y = broadcast[fn=mul](s, c)"},
      {"broadcast_channel_computed_first_sub",
       "s = sigmoid(pool2d_avg[k=5,6 s=1,1 pad=valid](c))\n"
       "y = broadcast[fn=sub](s, c)"},
      {"broadcast_compare", "y = broadcast[fn=ge](c, b)"},
      {"where_compared", "y = where(broadcast[fn=gt](c, d), c, b)"},
      {"where_compared_full", "y = where(broadcast[fn=gt](c, d), c, d)"},
      {"where_scalar_condition",
       "input s: []\ny = where(broadcast[fn=gt](s, s), c, d)"},
      {"pointwise_exp", "y = pointwise[fn=exp](tanh(c))"},
      {"pointwise_clip", "y = pointwise[fn=clip alpha=-0.5 beta=0.25](c)"},
      {"pointwise_leaky", "y = pointwise[fn=leaky_relu alpha=0.1](c)"},
      {"pointwise_hard_swish", "y = pointwise[fn=hard_swish](c)"},
      {"pointwise_erf", "y = pointwise[fn=erf](c)"},
      // Loops that vectorize core's definitions.
      {"pointwise_round",
       "weight s: []\ny = pointwise[fn=round](scalar_mul(c, s))"},
      {"pointwise_floor_sign",
       "y = pointwise[fn=sign](pointwise[fn=floor](c))"},
      // Loops whose f(0) is not 0, on a blocked layout's padding.
      {"pointwise_cos", "y = pointwise[fn=cos](c)"},
      {"pool_explicit_avg",
       "y = pool2d_explicit[fn=avg k=3,2 s=2,1 pads=1,0,1,1](c)"},
      {"pool_explicit_max",
       "y = pool2d_explicit[fn=max k=2,2 s=2,2 pads=0,1,1,0 count_pad=1](c)"},
      {"pool_explicit_dilated_ceil",
       "y = pool2d_explicit[fn=max k=2,2 s=2,2 d=2,1 ceil=1](c)"},
      {"pool_explicit_avg_ceil",
       "y = pool2d_explicit[fn=avg k=3,3 s=2,2 pads=1,1,0,0 ceil=1](c)"},
      {"pool_explicit_avg_ceil_counting_pads",
       "y = pool2d_explicit[fn=avg k=3,3 s=2,2 pads=1,1,0,0 count_pad=1 "
       "ceil=1](c)"},
      {"reduce_mean", "y = reduce_mean[axes=2,3 keepdims=1](c)"},
      // Over every axis: read in the layout the operand has where that
      // holds just its floats.
      {"reduce_max_all", "y = reduce[fn=max axes=0,1,2,3 keepdims=0](c)"},
      {"reduce_min_all_kept", "y = reduce[fn=min axes=0,1,2,3](c)"},
      {"reduce_sum_all", "y = reduce[fn=sum axes=0,1,2,3 keepdims=0](c)"},
      {"reduce_mean_drop", "y = reduce_mean[axes=1 keepdims=0](c)"},
      {"reduce_over_extent_one",
       "y = reduce_mean[axes=1](reduce[fn=l2 axes=1](c))"},
      {"slice", "y = slice[starts=1,0 ends=4,9 axes=1,3 steps=2,2](c)"},
      {"slice_back", "y = slice[starts=-1 ends=-100 axes=2 steps=-2](c)"},
      {"pad", "y = pad[pads=0,1,2,0,0,0,1,1 value=0.5](c)"},
      {"pad_reflect", "y = pad[pads=0,0,2,1,0,0,1,3 mode=reflect](c)"},
      {"pad_edge", "y = pad[pads=0,1,1,0,0,2,0,2 mode=edge](c)"},
      {"reduce_l2", "y = reduce[fn=l2 axes=1,3](c)"},
      {"reduce_max_drop", "y = reduce[fn=max axes=2 keepdims=0](c)"},
      {"reduce_log_sum_exp", "y = reduce[fn=log_sum_exp axes=1](c)"},
      {"reduce_prod", "y = reduce[fn=prod axes=1](tanh(c))"},
      {"conv_transpose", "weight t: [C,3,2,2]\n"
                         "y = conv_transpose[s=2,2 pads=0,1,0,0](c, t)"},
      {"conv_transpose_groups",
       "weight t: [C,2,3,3]\n"
       "y = conv_transpose[s=1,2 pads=1,1,1,0 out_pad=0,1 groups=2](c, t)"},
      {"graph_output_blocked", "y = relu(c)\nz = ewadd(y, d)"},
  };
  std::vector<Case> cs;
  for (int64_t ch : {12, 16})
    for (const Op &op : ops) {
      std::string body = op.body;
      auto replace = [&](const std::string &from, const std::string &to) {
        for (size_t at; (at = body.find(from)) != std::string::npos;)
          body.replace(at, from.size(), to);
      };
      replace("[C2]", "[" + std::to_string(2 * ch) + "]");
      replace("C4", std::to_string(ch - 4));
      replace("C8", std::to_string(ch - 8));
      replace("[C]", "[" + std::to_string(ch) + "]");
      replace("[C,", "[" + std::to_string(ch) + ",");
      replace("[1,C,", "[1," + std::to_string(ch) + ",");
      replace(",C,", "," + std::to_string(ch) + ",");
      if (body.find("v2)") != std::string::npos)
        body = "weight v2: [8," + std::to_string(ch) + ",3,3]\n" + body;
      const bool two_outputs =
          op.name.rfind("split", 0) == 0 || op.name == "graph_output_blocked";
      cs.push_back({op.name + "_c" + std::to_string(ch),
                    after_conv(ch, body, two_outputs ? "y, z" : "y")});
    }
  return cs;
}

/// Broadcasting by every rule ONNX allows, for each function.
inline std::vector<Case> broadcast_cases() {
  struct Shapes {
    std::string name, a, b;
  };
  const std::vector<Shapes> shapes = {
      {"same", "[2,3,4]", "[2,3,4]"},
      {"scalar_right", "[2,3,4]", "[]"},
      {"scalar_left", "[]", "[2,3,4]"},
      {"one_right", "[2,3,4]", "[1]"},
      {"lower_rank_right", "[2,3,4]", "[4]"},
      {"lower_rank_left", "[3,4]", "[2,3,4]"},
      {"ones_inside", "[2,3,4]", "[2,1,4]"},
      {"both_ways", "[2,1,4]", "[1,3,1]"},
      {"column_row", "[3,1]", "[1,5]"},
      {"left_repeats", "[1,4]", "[3,4]"},
      {"rank4_channel", "[2,5,3,3]", "[5,1,1]"},
  };
  std::vector<Case> cs;
  for (const char *fn : {"add", "sub", "mul", "div", "pow", "max", "min", "eq",
                         "ne", "lt", "le", "gt", "ge"})
    for (const Shapes &s : shapes)
      for (bool weight : {false, true})
        cs.push_back({std::string(fn) + "_" + s.name + (weight ? "_w" : ""),
                      "input a: " + s.a + "\n" + (weight ? "weight" : "input") +
                          " b: " + s.b + "\ny = broadcast[fn=" + fn +
                          "](pointwise[fn=abs](a), b)\noutput y\n"});
  return cs;
}

/// A graph and how many of its nodes must run inside another's kernel.
struct FusionCase {
  Case c;
  int fused_nodes;
};

inline std::vector<FusionCase> fusion_cases() {
  const std::string conv = "input x: [1,8,6,6]\nweight w: [16,8,3,3]\n"
                           "weight b: [16,1,1]\nweight b4: [1,16,1,1]\n"
                           "input r: [1,16,6,6]\ninput s: [1]\n";
  const std::string mm = "input x: [4,6]\nweight w: [6,5]\nweight bn: [5]\n"
                         "input r: [4,5]\n";
  return {
      {{"conv_bias_relu",
        conv + "y = relu(broadcast[fn=add](conv2d(x, w), b))\noutput y\n"},
       2},
      {{"conv_act_bias_residual_relu",
        conv + "y = relu(ewadd(broadcast[fn=add](conv2d[act=relu](x, w), "
               "b4), r))\noutput y\n"},
       3},
      {{"conv_sub_mul_div",
        conv + "y = broadcast[fn=div](broadcast[fn=mul](broadcast[fn=sub]("
               "conv2d(x, w), b), b4), s)\noutput y\n"},
       3},
      {{"conv_max_min",
        conv + "y = broadcast[fn=min](broadcast[fn=max](conv2d(x, w), r), "
               "b)\noutput y\n"},
       2},
      {{"conv_residual_first",
        conv + "y = sigmoid(ewadd(r, tanh(conv2d(x, w))))\noutput y\n"},
       3},
      // A quantization and its dequantization (a QDQ pair as ONNX's
      // import writes it): the rounding joins the epilogue with the rest.
      {{"conv_quantize_dequantize",
        conv + "weight z: []\nweight lo: []\nweight hi: []\n"
               "q = broadcast[fn=min](broadcast[fn=max](broadcast[fn=add]("
               "pointwise[fn=round](broadcast[fn=div](conv2d(x, w), s)), z), "
               "lo), hi)\n"
               "y = broadcast[fn=mul](broadcast[fn=sub](q, z), s)\n"
               "output y\n"},
       7},
      // sub with the convolution on the right cannot be a post-op.
      {{"conv_sub_left_operand",
        conv + "y = relu(broadcast[fn=sub](b, conv2d(x, w)))\noutput y\n"},
       0},
      // A second reader keeps the convolution's result: no fusion.
      {{"conv_two_readers",
        conv + "c = conv2d(x, w)\ny = relu(c)\nz = sigmoid(c)\n"
               "output y, z\n"},
       0},
      // A concatenation along channels takes its batchnorm and relu; one
      // along the width does not (its batchnorm takes the relu).
      {{"concat_batchnorm_relu",
        conv + "weight g: [32]\nweight h: [32]\nweight m: [32]\n"
               "weight q: [32]\nc = conv2d(x, w)\nd = conv2d[act=relu](x, w)\n"
               "y = relu(batchnorm(concat[axis=1](c, d), g, h, m, q))\n"
               "output y\n"},
       2},
      {{"concat_width_batchnorm_relu",
        conv + "weight g: [16]\nweight h: [16]\nweight m: [16]\n"
               "weight q: [16]\nc = conv2d(x, w)\nd = conv2d[act=relu](x, w)\n"
               "y = relu(batchnorm(concat[axis=3](c, d), g, h, m, q))\n"
               "output y\n"},
       1},
      // A graph output ends the chain.
      {{"conv_output_midway",
        conv + "c = relu(conv2d(x, w))\ny = ewadd(c, r)\noutput c, y\n"},
       1},
      // Two convolutions summed: one absorbs the sum (and the relu).
      {{"conv_plus_conv",
        conv + "weight v: [16,8,1,1]\n"
               "y = relu(ewadd(conv2d(x, w), conv2d(x, v)))\noutput y\n"},
       2},
      // The summed convolution's buffer is read later: no sum in place.
      {{"conv_plus_conv_read_later",
        conv + "weight v: [16,8,1,1]\nd = conv2d(x, v)\n"
               "y = relu(ewadd(conv2d(x, w), d))\nz = sigmoid(d)\n"
               "output y, z\n"},
       2},
      // The summed operand is a view of a value read later: the sum starts
      // from a copy.
      {{"conv_plus_view_read_later",
        conv + "weight v: [16,8,1,1]\nd = conv2d(x, v)\n"
               "e = reshape[shape=1,16,6,6](d)\n"
               "y = relu(ewadd(conv2d(x, w), e))\nz = tanh(d)\n"
               "output y, z\n"},
       2},
      {{"matmul_bias_sigmoid",
        mm + "y = sigmoid(broadcast[fn=add](matmul(x, w), bn))\noutput y\n"},
       2},
      {{"matmul_residual_mul",
        mm + "y = ewmul(ewadd(matmul[act=tanh](x, w), r), r)\noutput y\n"},
       2},
      // One row times static weights (the streaming gemv), large enough
      // for several threads, and small.
      {{"gemv_bias_sigmoid_residual",
        "input x: [1,300]\nweight w: [300,700]\nweight bn: [700]\n"
        "input r: [1,700]\ninput s: [1]\n"
        "y = broadcast[fn=div](ewmul(sigmoid(broadcast[fn=add](matmul(x, w), "
        "bn)), r), s)\noutput y\n"},
       4},
      {{"gemv_small_relu",
        "input x: [1,7]\nweight w: [7,3]\ny = matmul[act=relu](x, w)\n"
        "output y\n"},
       0},
      // An N-D product imported as reshape, matmul, reshape: the bias and
      // the residual after the last reshape join through it (a view) ...
      {{"matmul_view_bias_residual",
        "input x: [2,3,6]\nweight w: [6,5]\nweight bn: [5]\n"
        "input r: [2,3,5]\n"
        "m = matmul(reshape[shape=6,6](x), w)\n"
        "y = relu(ewadd(broadcast[fn=add](reshape[shape=2,3,5](m), bn), r))\n"
        "output y\n"},
       4},
      // ... but not one that moves the last axis, nor as the chain's end.
      {{"matmul_view_of_other_axes",
        "input x: [4,6]\nweight w: [6,6]\nweight bn: [2,3]\n"
        "y = broadcast[fn=add](reshape[shape=4,2,3](matmul(x, w)), bn)\n"
        "output y\n"},
       0},
      {{"matmul_view_alone",
        "input x: [4,6]\nweight w: [6,5]\n"
        "y = softmax[axis=1](reshape[shape=2,2,5](matmul(x, w)))\n"
        "output y\n"},
       0},
      // Windows over the whole input take their chains too.
      {{"conv_point_bias_sigmoid",
        "input x: [1,8,3,3]\nweight w: [16,8,3,3]\nweight b: [16,1,1]\n"
        "y = sigmoid(broadcast[fn=add](conv2d[pad=valid](x, w), b))\n"
        "output y\n"},
       2},
      {{"conv_point_depthwise_bias_residual",
        "input x: [1,8,4,4]\nweight w: [8,1,4,4]\nweight b: [1,8,1,1]\n"
        "input r: [1,8,1,1]\n"
        "y = ewadd(broadcast[fn=add](conv2d[pad=valid](x, w), b), r)\n"
        "output y\n"},
       2},
      // A pooling takes its sum (a cell's branches joined: a computed
      // operand, another pooling of the same value, a static one), its
      // per-channel bias and activation; the identity pooling takes none.
      {{"pool_avg_residual_relu",
        conv + "c = conv2d(x, w)\n"
               "y = relu(ewadd(pool2d_avg[k=3,3 s=1,1 pad=same](c), r))\n"
               "output y\n"},
       2},
      {{"pool_max_plus_pool_avg",
        conv + "c = conv2d[act=relu](x, w)\n"
               "p = pool2d_avg[k=3,3 s=1,1 pad=same](c)\n"
               "q = pool2d_max[k=3,3 s=1,1 pad=same](c)\n"
               "y = ewadd(q, p)\noutput y\n"},
       1},
      // Two poolings alike are one (identical_nodes.h), read twice by the
      // sum: it runs alone.
      {{"pool_avg_plus_pool_avg",
        conv + "c = conv2d[act=relu](x, w)\n"
               "p = pool2d_avg[k=3,3 s=1,1 pad=same](c)\n"
               "q = pool2d_avg[k=3,3 s=1,1 pad=same](c)\n"
               "y = ewadd(q, p)\noutput y\n"},
       0},
      {{"pool_max_bias_sigmoid",
        conv + "c = conv2d(x, w)\n"
               "y = sigmoid(broadcast[fn=add](pool2d_max[k=2,2 s=2,2](c), b))\n"
               "output y\n"},
       2},
      {{"pool_max_static_residual",
        conv + "weight e: [1,16,3,3]\nc = conv2d(x, w)\n"
               "y = ewadd(pool2d_max[k=3,3 s=2,2 pad=same](c), e)\n"
               "output y\n"},
       1},
      {{"pool_identity_residual",
        conv + "c = conv2d(x, w)\n"
               "y = ewadd(pool2d_max[k=1,1 s=1,1 pad=same](c), r)\n"
               "output y\n"},
       0},
      // A batchnorm after a convolution (and its bias) folds into it.
      {{"conv_batchnorm_relu",
        conv + "weight g: [16]\nweight h: [16]\nweight m: [16]\n"
               "weight q: [16]\n"
               "y = relu(batchnorm(conv2d(x, w), g, h, m, q))\noutput y\n"},
       2},
      {{"conv_bias_batchnorm_residual",
        conv + "weight g: [16]\nweight h: [16]\nweight m: [16]\n"
               "weight q: [16]\n"
               "y = ewadd(batchnorm(broadcast[fn=add](conv2d(x, w), b), g, h, "
               "m, q), r)\noutput y\n"},
       3},
      // Not after the convolution's activation, nor of computed weights.
      {{"conv_act_batchnorm",
        conv + "weight g: [16]\nweight h: [16]\nweight m: [16]\n"
               "weight q: [16]\n"
               "y = batchnorm(conv2d[act=relu](x, w), g, h, m, q)\noutput y\n"},
       0},
      {{"conv_computed_weights_batchnorm",
        conv + "input wi: [16,8,3,3]\nweight g: [16]\nweight h: [16]\n"
               "weight m: [16]\nweight q: [16]\n"
               "y = batchnorm(conv2d(x, wi), g, h, m, q)\noutput y\n"},
       0},
      // A batchnorm takes the relu after it, nothing else.
      {{"batchnorm_relu",
        "input x: [1,16,6,6]\nweight g: [16]\nweight h: [16]\n"
        "weight m: [16]\nweight q: [16]\n"
        "y = relu(batchnorm(x, g, h, m, q))\noutput y\n"},
       1},
      {{"batchnorm_add_relu",
        "input x: [1,16,6,6]\nweight g: [16]\nweight h: [16]\n"
        "weight m: [16]\nweight q: [16]\n"
        "y = relu(ewadd(batchnorm(x, g, h, m, q), x))\noutput y\n"},
       0},
      // A broadcast that enlarges the result is not a post-op.
      {{"matmul_enlarging_add",
        "input x: [1,6]\nweight w: [6,5]\ninput r: [4,5]\n"
        "y = broadcast[fn=add](matmul(x, w), r)\noutput y\n"},
       0},
  };
}

} // namespace quarry::runtime::testing
