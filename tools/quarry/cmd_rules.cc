//===- cmd_rules.cc - `quarry rules`: show and convert rule files ---------===//
//
//   quarry rules show FILE                     list a rule pack (either format)
//   quarry rules convert --from-taso IN --out OUT
//                                              import a TASO rule collection
//                                              as a quarry rule pack
//
//===----------------------------------------------------------------------===//
#include "commands.h"

#include "quarry/rules/rule_pack_io.h"
#include "quarry/rules/rule_print.h"
#include "quarry/rules/taso_import.h"

#include <iostream>
#include <memory>
#include <string>

namespace quarry::cli {

namespace {

void register_show(CLI::App &rules) {
  auto file = std::make_shared<std::string>();
  CLI::App *show =
      rules.add_subcommand("show", "Print the rules of a quarry or TASO file");
  show->add_option("file", *file, "Rule pack or TASO rule collection")
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

} // namespace

void register_rules_command(CLI::App &app) {
  CLI::App *rules =
      app.add_subcommand("rules", "Inspect and convert rule files");
  rules->require_subcommand(1);
  register_show(*rules);
  register_convert(*rules);
}

} // namespace quarry::cli
