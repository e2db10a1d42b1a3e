//===- onnx_import_einsum.cc - Einsum as transposes and products ----------===//
//
// An Einsum is contracted pairwise, left to right: each operand first sums
// out the labels nothing else reads, then two operands become one batched
// product, [batch, free of A, contracted] x [batch, contracted, free of B],
// after a transpose and a reshape each; the last operand is transposed to
// the output's order. A label repeated within an operand is its diagonal,
// taken first (a strided slice of the two axes flattened). What is left to
// the graph is transpose, reshape, slice, reduce and matmul, which the
// optimizer and the backends know. Broadcast extents are refused.
//
//===----------------------------------------------------------------------===//
#include "onnx_importer.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace quarry::onnx_io {

namespace {

using Ints = std::vector<int64_t>;
using Labels = std::vector<int>;

/// Labels 0-51 are the letters; the ellipsis' axes are 52 on, aligned at
/// the right across operands as broadcasting aligns them.
constexpr int kEllipsisLabel = 52;

struct Operand {
  ValueRef value;
  Labels labels;
};

struct Equation {
  std::vector<Labels> inputs;
  Labels output;
};

/// One term's labels, its ellipsis (if any) standing for `ellipsis_rank`
/// axes numbered so that the last is kEllipsisLabel + `widest` - 1.
Labels term_labels(Importer &m, const std::string &term, int rank, int widest) {
  Labels letters, before, after;
  bool ellipsis = false;
  for (size_t i = 0; i < term.size(); ++i) {
    const char c = term[i];
    if (term.compare(i, 3, "...") == 0) {
      if (ellipsis)
        m.fail("the equation's term '" + term + "' has two ellipses");
      ellipsis = true;
      i += 2;
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(c)))
      m.fail("the equation's term '" + term + "' has '" + std::string(1, c) +
             "', not a letter");
    const int label =
        std::islower(static_cast<unsigned char>(c)) ? c - 'a' : 26 + (c - 'A');
    (ellipsis ? after : before).push_back(label);
  }
  const int named = static_cast<int>(before.size() + after.size());
  const int spread = rank - named;
  if (rank >= 0 && (spread < 0 || (spread > 0 && !ellipsis)))
    m.fail("the equation's term '" + term + "' names " + std::to_string(named) +
           " axes of an operand of rank " + std::to_string(rank));
  Labels out = before;
  for (int k = 0; ellipsis && k < spread; ++k)
    out.push_back(kEllipsisLabel + widest - spread + k);
  out.insert(out.end(), after.begin(), after.end());
  return out;
}

/// The labels of each input and of the output; `ranks` are the inputs'.
Equation parse(Importer &m, std::string eq, const std::vector<int> &ranks) {
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t from = 0;;) {
    const size_t comma = lhs.find(',', from);
    terms.push_back(lhs.substr(from, comma - from));
    if (comma == std::string::npos)
      break;
    from = comma + 1;
  }
  if (terms.size() != ranks.size())
    m.fail("the equation has " + std::to_string(terms.size()) + " terms for " +
           std::to_string(ranks.size()) + " inputs");
  // The ellipsis is as wide as the widest it stands for.
  int widest = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    int letters = 0;
    for (char c : terms[i])
      letters += std::isalpha(static_cast<unsigned char>(c)) ? 1 : 0;
    if (terms[i].find("...") != std::string::npos)
      widest = std::max(widest, ranks[i] - letters);
  }
  Equation e;
  for (size_t i = 0; i < terms.size(); ++i)
    e.inputs.push_back(term_labels(m, terms[i], ranks[i], widest));
  if (arrow != std::string::npos) {
    e.output = term_labels(m, eq.substr(arrow + 2), -1, widest);
    // An explicit "..." in the output stands for every ellipsis axis.
    if (eq.find("...", arrow) != std::string::npos) {
      Labels full;
      for (int l : e.output)
        if (l < kEllipsisLabel)
          full.push_back(l);
      const std::string out = eq.substr(arrow + 2);
      const size_t at = out.find("...");
      int letters_before = 0;
      for (size_t i = 0; i < at; ++i)
        letters_before += std::isalpha(static_cast<unsigned char>(out[i]));
      Labels dots;
      for (int k = 0; k < widest; ++k)
        dots.push_back(kEllipsisLabel + k);
      full.insert(full.begin() + letters_before, dots.begin(), dots.end());
      e.output = full;
    }
  } else {
    // Implicit: the ellipsis' axes, then the letters used once, in order.
    std::map<int, int> uses;
    for (const Labels &l : e.inputs)
      for (int x : l)
        ++uses[x];
    for (const auto &[label, count] : uses)
      if (label >= kEllipsisLabel)
        e.output.push_back(label);
    for (const auto &[label, count] : uses)
      if (label < kEllipsisLabel && count == 1)
        e.output.push_back(label);
  }
  return e;
}

/// `o` with each label it repeats taken once: the elements whose axes of
/// that label agree (a diagonal). The two axes go last, flattened, and
/// every (n + 1)-th of their n * n elements is one of the diagonal's.
void take_diagonals(Importer &m, Operand &o,
                    const std::map<int, int64_t> &extent) {
  for (;;) {
    size_t first = o.labels.size(), second = first;
    for (size_t i = 0; i < o.labels.size() && second == o.labels.size(); ++i)
      for (size_t j = i + 1; j < o.labels.size(); ++j)
        if (o.labels[i] == o.labels[j]) {
          first = i;
          second = j;
          break;
        }
    if (second == o.labels.size())
      return;
    const int label = o.labels[first];
    const int64_t n = extent.at(label);
    Ints perm, dims;
    Labels rest;
    for (size_t k = 0; k < o.labels.size(); ++k)
      if (k != first && k != second) {
        perm.push_back(static_cast<int64_t>(k));
        rest.push_back(o.labels[k]);
        dims.push_back(extent.at(o.labels[k]));
      }
    perm.push_back(static_cast<int64_t>(first));
    perm.push_back(static_cast<int64_t>(second));
    dims.push_back(n * n);
    const ValueRef pairs = reshape_to(m, transpose(m, o.value, perm), dims);
    rest.push_back(label);
    o = {slice_along(m, pairs, static_cast<int64_t>(dims.size()) - 1, 0, n * n,
                     n + 1),
         rest};
  }
}

int64_t extent_product(const std::map<int, int64_t> &extent, const Labels &ls) {
  int64_t p = 1;
  for (int l : ls)
    p *= extent.at(l);
  return p;
}

/// `x` (labelled `from`) transposed to the order of `to`.
ValueRef arrange(Importer &m, ValueRef x, const Labels &from,
                 const Labels &to) {
  Ints perm;
  for (int l : to)
    perm.push_back(std::find(from.begin(), from.end(), l) - from.begin());
  return transpose(m, x, perm);
}

/// `o` with the labels that neither `keep` nor another operand reads
/// summed out.
void sum_out(Importer &m, Operand &o, const std::set<int> &keep) {
  Ints axes;
  Labels left;
  for (size_t i = 0; i < o.labels.size(); ++i)
    if (keep.count(o.labels[i]))
      left.push_back(o.labels[i]);
    else
      axes.push_back(static_cast<int64_t>(i));
  if (axes.empty())
    return;
  o.value = reduce_over(m, ops::ReduceFn::Sum, o.value, axes, false);
  o.labels = left;
}

void einsum(Importer &m) {
  std::vector<Operand> ops;
  std::vector<int> ranks;
  for (int i = 0; i < m.num_inputs(); ++i) {
    ops.push_back({m.in(i), {}});
    ranks.push_back(m.shape(ops.back().value).rank());
  }
  if (ops.empty())
    m.fail("it has no inputs");
  const Equation eq = parse(m, m.attr_string("equation", ""), ranks);
  std::map<int, int64_t> extent;
  for (size_t i = 0; i < ops.size(); ++i) {
    ops[i].labels = eq.inputs[i];
    const Shape &s = m.shape(ops[i].value);
    for (size_t k = 0; k < ops[i].labels.size(); ++k) {
      auto [it, fresh] = extent.emplace(ops[i].labels[k], s[int(k)]);
      if (!fresh && it->second != s[int(k)])
        m.fail("a label has extents " + std::to_string(it->second) + " and " +
               std::to_string(s[int(k)]) + " (broadcasting is not supported)");
    }
  }
  for (int l : eq.output)
    if (!extent.count(l))
      m.fail("the output names a label no input has");
  if (std::set<int>(eq.output.begin(), eq.output.end()).size() !=
      eq.output.size())
    m.fail("the output names a label twice");
  for (Operand &o : ops)
    take_diagonals(m, o, extent);
  // What operands after the first `k` and the output read.
  auto read_after = [&](size_t k) {
    std::set<int> r(eq.output.begin(), eq.output.end());
    for (size_t j = k; j < ops.size(); ++j)
      r.insert(ops[j].labels.begin(), ops[j].labels.end());
    return r;
  };
  Operand acc = ops[0];
  for (size_t k = 1; k <= ops.size(); ++k) {
    std::set<int> keep = read_after(k);
    if (k == ops.size()) {
      sum_out(m, acc, keep);
      break;
    }
    Operand b = ops[k];
    std::set<int> keep_a = keep, keep_b = keep;
    keep_a.insert(b.labels.begin(), b.labels.end());
    keep_b.insert(acc.labels.begin(), acc.labels.end());
    sum_out(m, acc, keep_a);
    sum_out(m, b, keep_b);
    const std::set<int> later = read_after(k + 1);
    Labels batch, free_a, contracted, free_b;
    for (int l : acc.labels) {
      const bool in_b =
          std::find(b.labels.begin(), b.labels.end(), l) != b.labels.end();
      (in_b ? (later.count(l) ? batch : contracted) : free_a).push_back(l);
    }
    for (int l : b.labels)
      if (std::find(acc.labels.begin(), acc.labels.end(), l) ==
          acc.labels.end())
        free_b.push_back(l);
    Labels a_order = batch, b_order = batch;
    a_order.insert(a_order.end(), free_a.begin(), free_a.end());
    a_order.insert(a_order.end(), contracted.begin(), contracted.end());
    b_order.insert(b_order.end(), contracted.begin(), contracted.end());
    b_order.insert(b_order.end(), free_b.begin(), free_b.end());
    const int64_t nb = extent_product(extent, batch),
                  na = extent_product(extent, free_a),
                  nc = extent_product(extent, contracted),
                  nf = extent_product(extent, free_b);
    // One batch is a plain product (a weight reads as one).
    const Ints a_dims = nb == 1 ? Ints{na, nc} : Ints{nb, na, nc};
    const Ints b_dims = nb == 1 ? Ints{nc, nf} : Ints{nb, nc, nf};
    const ValueRef product = m.add(
        OpKind::MatMul,
        {reshape_to(m, arrange(m, acc.value, acc.labels, a_order), a_dims),
         reshape_to(m, arrange(m, b.value, b.labels, b_order), b_dims)});
    Labels labels = batch;
    labels.insert(labels.end(), free_a.begin(), free_a.end());
    labels.insert(labels.end(), free_b.begin(), free_b.end());
    Ints dims;
    for (int l : labels)
      dims.push_back(extent.at(l));
    acc = {reshape_to(m, product, dims), labels};
  }
  m.set_output(0, arrange(m, acc.value, acc.labels, eq.output));
}

} // namespace

void add_einsum_handler(std::map<std::string, Handler, std::less<>> &table) {
  table.emplace("Einsum", einsum);
}

} // namespace quarry::onnx_io
