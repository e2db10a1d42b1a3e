//===- program.h - A graph as the cpu backend runs it ----------*- C++ -*-===//
//
// The shared Plan (plan.h) folds static values and orders the dynamic
// nodes; the cpu Program then decides, once per graph:
//
//   - fusion: which nodes run as one oneDNN primitive (fusion.h);
//   - layouts: each kernel says which layout it reads and writes; a value
//     is kept in the layout its producer wrote, and a reorder is inserted
//     only where a consumer needs another one (graph inputs and outputs
//     are plain). A value reordered once is shared by all such consumers;
//   - branches: a kernel that only one side of a `where` on a computed
//     scalar needs runs only when that side is chosen (branches.h);
//   - memory: every slot (a value in one layout) gets a buffer in one arena
//     (page-aligned, in huge pages where the kernel gives them), reused
//     once its last reader has run (buffer_pool.h); views
//     (reshape) share their operand's buffer, and so does the result of a
//     residual sum with the operand it accumulates onto when nothing reads
//     that buffer afterwards (oneDNN's sum post-op), so that residual
//     blocks in a row all sum into one buffer.
//
// Then each instruction is bound to its buffers, so a run only executes
// the primitives in order. Static values a kernel copied are let go from
// the plan as soon as their last reader is lowered.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels.h"
#include "quarry/runtime/backend.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace quarry::runtime::cpu {

/// One value in one layout.
struct Slot {
  ValueRef value;
  dnnl::memory::desc md;
  int view_of = -1;  ///< the slot whose buffer this one shares
  int first = -1;    ///< the instruction that writes it; -1 for graph inputs
  int last = -1;     ///< the last instruction that reads it
  bool keep = false; ///< graph inputs and outputs keep their buffers
  int buffer = -1;
};

/// A kernel (one node, or an anchor with its epilogue) or a reorder.
struct Instruction {
  bool reorder = false;
  std::vector<int32_t> nodes; ///< the graph nodes it runs (kernels)
  std::string label, impl;
  std::vector<int> in;                  ///< slot per operand, -1 when static
  std::vector<const float *> static_in; ///< per operand: static floats
  std::vector<int> out;                 ///< slot per result
  std::function<Step(const Bound &)> bind;
  Step step; ///< empty for views
  /// Runs only while each slot's one value is non-zero (true) or zero
  /// (false): it computes only for one branch of a choice (branches.h).
  std::vector<std::pair<int, bool>> only_if;
  std::vector<std::pair<const float *, bool>> only_if_at; ///< bound
  /// Whether the branch it serves is taken on this run.
  bool taken() const {
    for (const auto &[at, when] : only_if_at)
      if ((*at != 0.0f) != when)
        return false;
    return true;
  }
};

class Program {
public:
  /// Lets go of the plan's static values that no instruction reads when it
  /// runs (weights a kernel copied in its own layout, Lowered::
  /// copied_static), each once its last reader is lowered, so that a
  /// network's weights are not held twice, even while it is prepared.
  Program(const Graph &g, Plan &p, Context &c, const FusionPolicy &policy);

  /// Runs every instruction once, in order.
  void run();
  /// Each instruction timed on its own: warm-up runs, then the median of
  /// `runs` (milliseconds), in instruction order.
  std::vector<double> time_instructions(int warmup, int runs);

  const std::vector<Instruction> &instructions() const { return instrs_; }
  const std::vector<Slot> &slots() const { return slots_; }
  /// Where a graph input is written and a graph output read (plain).
  float *input_data(int32_t input_node);
  const float *output_data(ValueRef v) const;
  /// Bytes in all buffers.
  int64_t buffer_bytes() const;

private:
  void lower(const FusedStep &s);
  /// Empties the plan's static value `v` unless it is a graph output or an
  /// instruction reads it when it runs (no kernel copied it,
  /// Lowered::copied_static).
  void let_go_if_copied(ValueRef v);
  void lower_alone(int32_t node);
  FusedStep with_accumulation(FusedStep s, int step) const;
  bool can_overwrite(int slot) const;
  static std::function<Step(const Bound &)>
  copy_then(std::function<Step(const Bound &)> bind, int operand, size_t bytes);
  /// Sets only_if on kernels and reorders that serve one branch.
  void guard_branches();
  int slot_in(ValueRef v, const dnnl::memory::desc &md);
  int add_slot(ValueRef v, const dnnl::memory::desc &md, int first);
  int root(int slot) const;
  void read(int slot, int instr);
  void assign_buffers();
  void bind();
  std::string value_name(ValueRef v) const;

  const Graph &g_;
  Plan &p_;
  Context &c_;
  std::vector<Slot> slots_;
  std::vector<Instruction> instrs_;
  std::map<ValueRef, std::vector<int>> slots_of_; ///< producer's first
  std::map<ValueRef, int> last_read_; ///< the last step reading a value
  int lowering_ = -1;                 ///< the step being lowered
  std::map<int32_t, int> input_slot_;
  std::map<ValueRef, int> output_slot_;
  std::set<ValueRef> static_reads_; ///< read at run time, not copied

  HugePagesBlock arena_;
  std::vector<float *> buffers_; ///< into arena_
  std::vector<int64_t> buffer_bytes_;
};

} // namespace quarry::runtime::cpu
