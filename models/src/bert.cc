//===- bert.cc - BERT attention layers as TASO's example builds them ------===//
//
// Eight layers on [B*seq, 1024], 16 heads of 64: q, k, v projections
// (matmul), reshape to [B, seq, 16, 64] and transpose to heads, logits =
// q k^T, softmax (float-only), logits x v, transpose and reshape back, and a
// final projection. TASO's example multiplies q by k untransposed and
// projects the layer's input instead of the attention output, which leaves
// the attention dead; quarry keeps the intended computation.
//
//===----------------------------------------------------------------------===//
#include "quarry/models/builder.h"
#include "quarry/models/zoo.h"

namespace quarry {

namespace {
constexpr int64_t kHidden = 1024, kHeads = 16, kLayers = 8;

ValueRef reshape(NetBuilder &b, ValueRef x, std::vector<int64_t> dims) {
  return b.op(OpKind::Reshape,
              make_attrs(OpKind::Reshape, {{"shape", std::move(dims)}}), {x});
}
ValueRef transpose(NetBuilder &b, ValueRef x, std::vector<int64_t> perm) {
  return b.op(OpKind::Transpose,
              make_attrs(OpKind::Transpose,
                         {{"perm", std::move(perm)}, {"shuffle", int64_t{1}}}),
              {x});
}

ValueRef attention(NetBuilder &b, ValueRef x, int64_t batch, int64_t seq) {
  const int64_t dk = kHidden / kHeads;
  const std::vector<int64_t> heads{batch, seq, kHeads, dk};
  const ValueRef q =
      transpose(b, reshape(b, b.dense(x, kHidden), heads), {0, 2, 1, 3});
  const ValueRef k =
      transpose(b, reshape(b, b.dense(x, kHidden), heads), {0, 2, 3, 1});
  const ValueRef v =
      transpose(b, reshape(b, b.dense(x, kHidden), heads), {0, 2, 1, 3});
  const ValueRef probs = b.op(OpKind::Softmax, {b.op(OpKind::MatMul, {q, k})});
  const ValueRef ctx = b.op(OpKind::MatMul, {probs, v});
  const ValueRef merged =
      reshape(b, transpose(b, ctx, {0, 2, 1, 3}), {batch * seq, kHidden});
  return b.dense(merged, kHidden);
}
} // namespace

Model build_bert(const ModelOptions &o) {
  NetBuilder b(o.seed, o.weight_values);
  ValueRef x = b.input("x", Shape{o.batch * o.size, kHidden});
  for (int64_t i = 0; i < kLayers; ++i)
    x = attention(b, x, o.batch, o.size);
  return b.finish(x);
}

} // namespace quarry
