//===- cmd_rules.cc - `quarry rules`: show and convert rule files ---------===//
//
//   quarry rules show FILE                     list a rule pack (either format)
//   quarry rules convert --from-taso IN --out OUT
//                                              import a TASO rule collection
//                                              as a quarry rule pack
//   quarry rules compare A B [--no-derive] [--max-graphs N] [--max-steps N]
//                            [--json FILE]
//                                              which rules of A B has,
//                                              derives or lacks
//   quarry rules minimize PACK --out OUT [--forward-only]
//                                              leave out the rules the
//                                              others derive
//
//===----------------------------------------------------------------------===//
#include "commands.h"

#include "quarry/core/file_io.h"
#include "quarry/core/progress_line.h"
#include "quarry/rulepack/rule_pack_io.h"
#include "quarry/rulepack/rule_print.h"
#include "quarry/rulepack/taso_import.h"
#include "quarry/ruleset/compare.h"
#include "quarry/ruleset/minimize.h"

#include <iostream>
#include <memory>
#include <string>

namespace quarry::cli {

namespace {

void register_show(CLI::App &rules) {
  auto file = std::make_shared<std::string>();
  CLI::App *show =
      rules.add_subcommand("show", "Print the rules of a quarry or TASO file");
  show->add_option("FILE", *file, "Rule pack or TASO rule collection")
      ->required();
  show->callback([file] {
    std::cout << print_rule_pack(read_rule_pack(*file)) << std::flush;
  });
}

void register_convert(CLI::App &rules) {
  struct Options {
    std::string taso_in, out;
  };
  auto opts = std::make_shared<Options>();
  CLI::App *convert = rules.add_subcommand(
      "convert", "Convert a TASO rule collection into a quarry rule pack");
  convert
      ->add_option("--from-taso", opts->taso_in,
                   "TASO rule collection (graph_subst.pb) to import")
      ->required();
  convert->add_option("--out", opts->out, "Rule pack to write")->required();
  convert->callback([opts] {
    const RulePack pack = import_taso_rules(opts->taso_in);
    write_rule_pack(pack, opts->out);
    std::cout << "wrote " << pack.rules.size() << " rules to " << opts->out
              << "\n";
  });
}

void register_compare(CLI::App &rules) {
  struct Options {
    std::string a, b, json;
    bool no_derive = false;
    size_t max_graphs = ruleset::DeriveOptions{}.max_graphs;
    int max_steps = ruleset::DeriveOptions{}.max_steps;
  };
  auto opts = std::make_shared<Options>();
  CLI::App *compare = rules.add_subcommand(
      "compare", "Say for each rule of A whether B has it, derives it (a "
                 "rewrite by B's rules, found at small shapes) or lacks it");
  compare
      ->add_option("A", opts->a,
                   "Rule pack or TASO collection whose "
                   "rules are looked for")
      ->required();
  compare->add_option("B", opts->b, "Rule pack or TASO collection to look in")
      ->required();
  compare->add_flag("--no-derive", opts->no_derive,
                    "Only look for the same rules, no derivations");
  compare->add_option("--max-graphs", opts->max_graphs,
                      "Graphs a derivation search explores per rule");
  compare->add_option("--max-steps", opts->max_steps,
                      "Rewrites in a derivation at most");
  compare->add_option("--json", opts->json, "Also write the result as JSON");
  compare->callback([opts] {
    ruleset::CompareOptions o;
    o.derive = !opts->no_derive;
    o.derive_options.max_graphs = opts->max_graphs;
    o.derive_options.max_steps = opts->max_steps;
    const ruleset::Comparison c = ruleset::compare_packs(
        read_rule_pack(opts->a), read_rule_pack(opts->b), o);
    if (!opts->json.empty())
      write_file_atomic(opts->json, ruleset::comparison_json(c));
    std::cout << ruleset::format_comparison(c) << std::flush;
  });
}

void register_minimize(CLI::App &rules) {
  struct Options {
    std::string in, out;
    bool forward_only = false, quiet = false;
    int threads = 0;
    ruleset::DeriveOptions derive;
  };
  auto opts = std::make_shared<Options>();
  CLI::App *minimize = rules.add_subcommand(
      "minimize", "Leave out every rule that the rules kept derive (smaller "
                  "rules first), recording its derivation in the pack");
  minimize->add_option("PACK", opts->in, "Rule pack or TASO collection")
      ->required();
  minimize->add_option("--out", opts->out, "Rule pack to write")->required();
  minimize->add_flag("--forward-only", opts->forward_only,
                     "Derive with rules read from source to target only (for "
                     "quarry optimize --forward-only; by default rules apply "
                     "both ways, as the optimizer applies them)");
  minimize->add_option("--max-graphs", opts->derive.max_graphs,
                       "Graphs a derivation search explores per rule");
  minimize->add_option("--max-steps", opts->derive.max_steps,
                       "Rewrites in a derivation at most");
  minimize
      ->add_option("--threads", opts->threads,
                   "Worker threads (default: every core)")
      ->check(CLI::Range(1, 1024));
  minimize->add_flag("--quiet", opts->quiet, "No progress line");
  minimize->callback([opts] {
    const RulePack pack = read_rule_pack(opts->in);
    ruleset::MinimizeOptions o;
    o.derive_options = opts->derive;
    o.forward_only = opts->forward_only;
    o.threads = opts->threads;
    RulePack out;
    {
      ProgressLine line(!opts->quiet);
      out = ruleset::minimize_pack(
          pack, o, [&](const ruleset::MinimizeProgress &p) {
            const bool last = p.done == p.total;
            if (last || line.due())
              line.show("minimize: " + std::to_string(p.done) + "/" +
                            std::to_string(p.total) + " rules, " +
                            std::to_string(p.kept) + " kept",
                        last);
          });
    }
    write_rule_pack(out, opts->out);
    std::cout << "kept " << out.rules.size() << " of " << pack.rules.size()
              << " rules (" << out.derived.size() << " derived from them) in "
              << opts->out << "\n";
  });
}

} // namespace

void register_rules_command(CLI::App &app) {
  CLI::App *rules =
      app.add_subcommand("rules", "Inspect, convert and compare rule files");
  rules->require_subcommand(1);
  register_show(*rules);
  register_convert(*rules);
  register_compare(*rules);
  register_minimize(*rules);
}

} // namespace quarry::cli
