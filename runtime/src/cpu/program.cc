//===- program.cc - Fusion, layouts, reorders and buffers for the cpu -----===//
#include "program.h"

#include "../branches.h"
#include "../buffer_pool.h"
#include "epilogue.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace quarry::runtime::cpu {

namespace {

constexpr size_t kPage = 4096;

/// The kernel for `n`: its CpuKernel, else its reference semantics.
Lowered make_kernel(Context &c, const Node &n, CpuOperands in, ResultTypes out,
                    PostOps post) {
  return dispatch(n.kind, [&](auto def) -> Lowered {
    using K = CpuKernel<typename decltype(def)::type>;
    if constexpr (K::supported)
      return K::make(c, n, in, out, post);
    else
      return reference_kernel(n, in, out);
  });
}

/// Thrown when a fused chain has no fast kernel: lower its nodes alone.
struct Unfuse {};

} // namespace

Program::Program(const Graph &g, Plan &p, Context &c,
                 const FusionPolicy &policy)
    : g_(g), p_(p), c_(c) {
  for (int32_t id : p.inputs) {
    const Shape &shape = p.values[id][0].type.shape;
    const int s = add_slot({id, 0}, plain_md(shape), -1);
    slots_[s].keep = true;
    input_slot_[id] = s;
    if (c.input_layout && shape.rank() == 4) {
      // Readers take the laid-out copy first (slots_of_'s front).
      slot_in({id, 0},
              dnnl::memory::desc(to_dims(shape), dnnl::memory::data_type::f32,
                                 *c.input_layout));
      std::swap(slots_of_[{id, 0}].front(), slots_of_[{id, 0}].back());
    }
  }
  const Composites composites = find_composites(g, p);
  const std::vector<FusedStep> steps = fuse_steps(g, p, policy, &composites);
  // The last step that reads each value, for sums computed in place.
  const std::vector<ScheduledStep> schedule = schedule_of(g, p, steps);
  for (size_t k = 0; k < schedule.size(); ++k)
    for (ValueRef v : schedule[k].reads)
      last_read_[v] = static_cast<int>(k);
  for (ValueRef v : g.outputs())
    last_read_[v] = static_cast<int>(schedule.size());
  for (size_t k = 0; k < steps.size(); ++k) {
    lowering_ = static_cast<int>(k);
    const FusedStep s = with_accumulation(steps[k], lowering_);
    if (!s.fused()) {
      lower(s);
      continue;
    }
    try {
      lower(s);
    } catch (const Unfuse &) {
      for (int32_t id : s.nodes)
        lower_alone(id);
    } catch (const dnnl::error &) {
      for (int32_t id : s.nodes)
        lower_alone(id);
    }
    for (ValueRef v : schedule[k].reads)
      if (last_read_[v] == static_cast<int>(k))
        let_go_if_copied(v);
  }
  for (ValueRef v : g.outputs()) {
    if (p.value(v).is_static)
      continue;
    const int s = slot_in(v, plain_md(p.value(v).type.shape));
    read(s, static_cast<int>(instrs_.size()));
    slots_[s].keep = true;
    output_slot_[v] = s;
  }
  guard_branches();
  assign_buffers();
  bind();
  // What no step reads: weights of static operators, folded already.
  for (int32_t id = 0; id < g.num_nodes(); ++id)
    for (size_t o = 0; o < p.static_values[id].size(); ++o)
      let_go_if_copied({id, static_cast<int32_t>(o)});
}

void Program::let_go_if_copied(ValueRef v) {
  if (!p_.value(v).is_static || static_reads_.count(v) ||
      std::find(g_.outputs().begin(), g_.outputs().end(), v) !=
          g_.outputs().end())
    return;
  p_.static_values[v.node][v.output] = Tensor<float>();
}

FusedStep Program::with_accumulation(FusedStep s, int step) const {
  // A full computed operand of an add that nothing reads later (and that
  // is no graph input or output, nor another operand of this step) can
  // hold the result: the kernel accumulates into its buffer. Only
  // convolutions and products do: oneDNN's pooling with a sum post-op
  // falls to a slow kernel, where an add post-op keeps the fast one.
  const OpKind anchor = step_node(g_, s).kind;
  if (anchor != OpKind::Conv2D && anchor != OpKind::MatMul)
    return s;
  std::map<ValueRef, int> uses;
  for (ValueRef v : step_node(g_, s).inputs)
    ++uses[v];
  for (const PostOp &op : s.post)
    if (op.kind == PostOp::Kind::Binary)
      ++uses[op.operand];
  for (PostOp &op : s.post) {
    if (op.kind != PostOp::Kind::Binary || op.operand_static ||
        op.spread != Spread::Full || op.binary != ops::BroadcastFn::Add)
      continue;
    const ValueRef v = op.operand;
    auto last = last_read_.find(v);
    if (uses[v] == 1 && last != last_read_.end() && last->second == step &&
        g_.node(v.node).kind != OpKind::Input) {
      op.accumulate = true;
      break;
    }
  }
  return s;
}

void Program::lower_alone(int32_t node) {
  FusedStep s;
  s.anchor = node;
  s.nodes = {node};
  s.post = own_activation(g_.node(node), node);
  lower(s);
}

void Program::lower(const FusedStep &s) {
  const Node &n = step_node(g_, s);
  std::vector<ValueRef> operands = n.inputs;
  for (const PostOp &op : s.post)
    for (ValueRef v : op.operands())
      operands.push_back(v);
  // A convolution or product of quantized integers may run in int8
  // (kernels_int8.cc); a computed zero point of theirs is read last.
  std::optional<QuantizationGrid> grid;
  if (n.kind == OpKind::Conv2D || n.kind == OpKind::MatMul)
    grid = quantization_grid(g_, p_, operands[0]);
  if (grid && grid->computed_zero)
    operands.push_back(*grid->computed_zero);
  std::vector<CpuOperand> in;
  for (ValueRef v : operands) {
    const PlannedValue &pv = p_.value(v);
    CpuOperand o{&pv.type, {}, nullptr, {}};
    if (pv.is_static) {
      o.md = plain_md(pv.type.shape);
      o.static_data = p_.static_values[v.node][v.output].data.data();
    } else {
      o.md = slots_[slots_of_.at(v).front()].md;
    }
    if (in.empty())
      o.grid = grid;
    in.push_back(o);
  }
  std::vector<ValueRef> results;
  std::vector<TensorType> types;
  if (s.fused()) {
    results = {s.result()};
    types = {p_.value(s.result()).type};
  } else {
    for (size_t o = 0; o < p_.values[s.anchor].size(); ++o) {
      results.push_back({s.anchor, static_cast<int32_t>(o)});
      types.push_back(p_.values[s.anchor][o].type);
    }
  }
  Lowered l;
  try {
    l = make_kernel(c_, n, in, types, s.post);
  } catch (const dnnl::error &e) {
    if (s.fused())
      throw;
    throw Error("backend cpu: " + describe_node(g_, s.anchor) +
                ": oneDNN: " + e.what());
  }
  // A chain that only oneDNN's reference code can run is slower fused.
  if (s.fused() && is_reference_impl(l.impl))
    throw Unfuse{};

  Instruction ins;
  ins.nodes = s.nodes;
  ins.label =
      describe_node(g_, s.anchor) +
      (!s.as ? std::string()
       : s.as->kind == OpKind::Pointwise
           ? " as " + std::string(
                          ops::kPointwiseNames[n.attrs.i(ops::Pointwise::kFn)])
           : " as " + std::string(op_name(s.as->kind))) +
      Epilogue::describe(s.post);
  ins.impl = l.impl;
  ins.bind = std::move(l.bind);
  for (size_t i = 0; i < operands.size(); ++i) {
    if (in[i].is_static()) {
      const bool copied =
          std::find(l.copied_static.begin(), l.copied_static.end(),
                    static_cast<int>(i)) != l.copied_static.end();
      ins.in.push_back(-1);
      ins.static_in.push_back(copied ? nullptr : in[i].static_data);
      if (!copied)
        static_reads_.insert(operands[i]);
      continue;
    }
    ins.in.push_back(slot_in(operands[i], l.in[i]));
    ins.static_in.push_back(nullptr);
  }
  const int at = static_cast<int>(instrs_.size());
  for (int slot : ins.in)
    if (slot >= 0)
      read(slot, at);
  for (size_t o = 0; o < results.size(); ++o) {
    const int slot = add_slot(results[o], l.out[o], at);
    if (o == 0 && l.alias >= 0)
      slots_[slot].view_of = root(ins.in[l.alias]);
    ins.out.push_back(slot);
  }
  if (l.accumulate >= 0) {
    // The result starts as the accumulated operand: share its buffer when
    // nothing else can still read it there, else copy it in first.
    const int from = ins.in[l.accumulate];
    if (can_overwrite(from)) {
      slots_[ins.out[0]].view_of = from;
    } else {
      ins.bind = copy_then(std::move(ins.bind), l.accumulate,
                           slots_[from].md.get_size());
      ins.label += " (onto a copy)";
    }
  }
  instrs_.push_back(std::move(ins));
}

bool Program::can_overwrite(int slot) const {
  // Its value has no later reader (with_accumulation). Every other value
  // sharing its buffer (the operand it views, an earlier sum accumulated
  // there, a reshape of it) must be read for the last time before this
  // step, and none may be a graph input.
  const int r = root(slot);
  for (int s = 0; s < static_cast<int>(slots_.size()); ++s) {
    if (root(s) != r)
      continue;
    if (slots_[s].keep)
      return false;
    if (slots_[s].value == slots_[slot].value)
      continue;
    auto last = last_read_.find(slots_[s].value);
    if (last != last_read_.end() && last->second >= lowering_)
      return false;
  }
  return true;
}

std::function<Step(const Bound &)>
Program::copy_then(std::function<Step(const Bound &)> bind, int operand,
                   size_t bytes) {
  return [bind = std::move(bind), operand, bytes](const Bound &b) -> Step {
    Step step = bind(b);
    return
        [step = std::move(step), from = b.in[operand], to = b.out[0], bytes] {
          std::memcpy(to, from, bytes);
          step();
        };
  };
}

void Program::guard_branches() {
  const auto guards = branch_guards(g_, p_);
  if (guards.empty())
    return;
  const auto guards_of = [&](int32_t node) {
    const auto it = guards.find(node);
    return it == guards.end() ? std::vector<BranchGuard>() : it->second;
  };
  for (size_t i = 0; i < instrs_.size(); ++i) {
    Instruction &ins = instrs_[i];
    if (ins.impl == "view" || (ins.nodes.empty() && ins.in.empty()))
      continue;
    // A kernel serves a branch when all its nodes do; a reorder, when the
    // value it lays out does.
    std::vector<BranchGuard> common = guards_of(
        ins.reorder ? slots_[ins.in[0]].value.node : ins.nodes.front());
    for (int32_t node : ins.nodes) {
      const std::vector<BranchGuard> own = guards_of(node);
      std::erase_if(common, [&](const BranchGuard &g) {
        return std::find(own.begin(), own.end(), g) == own.end();
      });
    }
    const int at = static_cast<int>(i);
    for (const BranchGuard &guard : common)
      // The condition must be known when the kernel would start.
      for (int s : slots_of_.at(guard.cond))
        if (slots_[s].first < at && slots_[root(s)].first < at) {
          ins.only_if.push_back({s, guard.when});
          read(s, at);
          break;
        }
    for (const auto &[s, when] : ins.only_if)
      ins.label += (when ? " if " : " unless ") + value_name(slots_[s].value);
  }
}

int Program::add_slot(ValueRef v, const dnnl::memory::desc &md, int first) {
  Slot s;
  s.value = v;
  s.md = md;
  s.first = first;
  slots_.push_back(s);
  const int id = static_cast<int>(slots_.size()) - 1;
  slots_of_[v].push_back(id);
  return id;
}

int Program::root(int slot) const {
  while (slots_[slot].view_of >= 0)
    slot = slots_[slot].view_of;
  return slot;
}

void Program::read(int slot, int instr) {
  for (int s = slot; s >= 0; s = slots_[s].view_of)
    slots_[s].last = std::max(slots_[s].last, instr);
}

int Program::slot_in(ValueRef v, const dnnl::memory::desc &md) {
  const std::vector<int> &have = slots_of_.at(v);
  for (int s : have)
    if (slots_[s].md == md)
      return s;
  const int from = have.front();
  const int at = static_cast<int>(instrs_.size());
  read(from, at);
  const int to = add_slot(v, md, at);
  Instruction ins;
  ins.reorder = true;
  ins.label = "reorder " + value_name(v) + " " + layout_name(slots_[from].md) +
              " -> " + layout_name(md);
  const dnnl::reorder::primitive_desc pd(c_.engine, slots_[from].md, c_.engine,
                                         md);
  ins.impl = impl_name(pd);
  ins.in = {from};
  ins.static_in = {nullptr};
  ins.out = {to};
  ins.bind = [&c = c_, pd](const Bound &b) -> Step {
    dnnl::memory src(pd.src_desc(), c.engine, b.in[0]);
    dnnl::memory dst(pd.dst_desc(), c.engine, b.out[0]);
    return [p = dnnl::reorder(pd), src, dst, s = c.stream]() mutable {
      p.execute(s, src, dst);
    };
  };
  instrs_.push_back(std::move(ins));
  return to;
}

std::string Program::value_name(ValueRef v) const {
  const Node &n = g_.node(v.node);
  std::string name =
      n.name.empty() ? "#" + std::to_string(v.node) : "'" + n.name + "'";
  if (p_.values[v.node].size() > 1)
    name += ":" + std::to_string(v.output);
  return name;
}

void Program::assign_buffers() {
  // Views extend their root's life; roots get buffers.
  std::vector<int> roots;
  for (size_t s = 0; s < slots_.size(); ++s) {
    const int r = root(static_cast<int>(s));
    if (r != static_cast<int>(s)) {
      slots_[r].keep = slots_[r].keep || slots_[s].keep;
      slots_[r].last = std::max(slots_[r].last, slots_[s].last);
    } else {
      roots.push_back(r);
    }
  }
  std::vector<BufferUse> uses;
  for (int r : roots) {
    const Slot &s = slots_[r];
    uses.push_back({s.first,
                    s.keep ? BufferUse::kForever : s.last,
                    static_cast<int64_t>(s.md.get_size()),
                    {}});
  }
  const std::vector<int> buffer = runtime::assign_buffers(uses, buffer_bytes_);
  for (size_t i = 0; i < roots.size(); ++i)
    slots_[roots[i]].buffer = buffer[i];
  for (size_t s = 0; s < slots_.size(); ++s)
    slots_[s].buffer = slots_[root(static_cast<int>(s))].buffer;
  // One arena for all buffers, in huge pages (huge_pages.h): activations
  // are streamed through every run.
  size_t total = 0;
  std::vector<size_t> offset;
  for (int64_t bytes : buffer_bytes_) {
    offset.push_back(total);
    total += (std::max<size_t>(bytes, 1) + kPage - 1) / kPage * kPage;
  }
  arena_ = huge_pages(total, "buffers");
  auto *arena = reinterpret_cast<float *>(arena_.get());
  for (size_t off : offset)
    buffers_.push_back(arena + off / sizeof(float));
}

void Program::bind() {
  for (Instruction &ins : instrs_) {
    Bound b;
    for (size_t i = 0; i < ins.in.size(); ++i)
      b.in.push_back(ins.in[i] >= 0 ? buffers_[slots_[ins.in[i]].buffer]
                                    : const_cast<float *>(ins.static_in[i]));
    for (int s : ins.out)
      b.out.push_back(buffers_[slots_[s].buffer]);
    ins.step = ins.bind(b);
    for (const auto &[s, when] : ins.only_if)
      ins.only_if_at.push_back({buffers_[slots_[s].buffer], when});
  }
}

void Program::run() {
  for (const Instruction &ins : instrs_)
    if (ins.step && ins.taken())
      ins.step();
  c_.stream.wait();
}

std::vector<double> Program::time_instructions(int warmup, int runs) {
  std::vector<std::vector<double>> ms(instrs_.size());
  for (int r = 0; r < warmup + runs; ++r)
    for (size_t i = 0; i < instrs_.size(); ++i) {
      if (!instrs_[i].step || !instrs_[i].taken())
        continue;
      const auto t0 = std::chrono::steady_clock::now();
      instrs_[i].step();
      c_.stream.wait();
      const auto t1 = std::chrono::steady_clock::now();
      if (r >= warmup)
        ms[i].push_back(
            std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
  std::vector<double> median(instrs_.size(), 0.0);
  for (size_t i = 0; i < ms.size(); ++i) {
    if (ms[i].empty())
      continue;
    std::nth_element(ms[i].begin(), ms[i].begin() + ms[i].size() / 2,
                     ms[i].end());
    median[i] = ms[i][ms[i].size() / 2];
  }
  return median;
}

float *Program::input_data(int32_t input_node) {
  return buffers_[slots_[input_slot_.at(input_node)].buffer];
}

const float *Program::output_data(ValueRef v) const {
  return buffers_[slots_[output_slot_.at(v)].buffer];
}

int64_t Program::buffer_bytes() const {
  int64_t n = 0;
  for (int64_t b : buffer_bytes_)
    n += b;
  return n;
}

} // namespace quarry::runtime::cpu
