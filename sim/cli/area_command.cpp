// `scoville area`: the die area and manufacturing cost of a chip, and how a change to it (--set)
// or another chip (--compare) moves both. Models in models/area, data in arch/area, the report
// in sim/output/area_report; docs/area-cost.md.
#include <optional>

#include "sim/cli/command_table.hpp"
#include "sim/config/area_loader.hpp"
#include "sim/output/area_report.hpp"

namespace scoville::cli {

OptionSet area_options() {
  OptionSet s("area");
  s.synopsis("--chip NAME|FILE [--set KEY=VALUE]... [--compare NAME|FILE] [options]",
             "die area per component and manufacturing cost per term; with --set or --compare, "
             "the change against the baseline")
      .text("--chip", "NAME|FILE", "the chip (names resolve to arch/chips/NAME.yaml)")
      .texts("--set", "KEY=VALUE",
             "change the chip: a key of its chip section (tiles.count, shared_sram.capacity, "
             "hbm.stacks), area.KEY (its silicon profile in arch/area/chips.yaml: node, "
             "compute_dies, ...) or cost.KEY (arch/area/cost.yaml: hbm_per_gb, yield_model, ...); "
             "cost.KEY applies to the baseline too")
      .text("--compare", "NAME|FILE", "the baseline chip (default: --chip without its changes)")
      .flag("--json", "print JSON")
      .text("-o,--output", "FILE.csv|FILE.h5", "also write the breakdown table");
  return s;
}

namespace {

struct AreaOptions {
  std::string chip;
  std::optional<std::string> compare;
  std::vector<config::Override> sets;
  bool json = false;
  std::optional<std::string> output;
};

AreaOptions parse_area(const std::vector<std::string>& args) {
  const ParsedOptions p = area_options().parse(args);
  AreaOptions o;
  o.chip = p.text_or("--chip", "");
  o.compare = p.text("--compare");
  for (const std::string& v : p.texts("--set")) {
    const size_t eq = v.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == v.size()) {
      throw UsageError("--set expects KEY=VALUE, got '" + v + "'");
    }
    o.sets.emplace_back(v.substr(0, eq), v.substr(eq + 1));
  }
  o.json = p.flag("--json");
  o.output = p.text("--output");
  if (o.chip.empty()) throw UsageError("scoville area needs --chip NAME|FILE");
  if (o.output) {
    const std::string& file = *o.output;
    const auto ends = [&](const std::string& s) {
      return file.size() > s.size() && file.compare(file.size() - s.size(), s.size(), s) == 0;
    };
    if (!ends(".csv") && !ends(".h5")) {
      throw UsageError("-o expects a file ending in .csv or .h5, got '" + file + "'");
    }
  }
  return o;
}

std::string describe(const std::string& chip, const std::vector<config::Override>& sets) {
  std::string label = chip;
  std::string changes;
  for (const auto& [k, v] : sets) changes += (changes.empty() ? "" : ", ") + k + "=" + v;
  return changes.empty() ? label : label + " with " + changes;
}

}  // namespace

int area_command(const Invocation& invocation, std::ostream& out) {
  const AreaOptions o = parse_area(invocation.args);
  const config::DataPaths paths = config::DataPaths::from_environment();
  std::vector<config::Override> cost_only;
  for (const auto& s : o.sets) {
    if (s.first.rfind("cost.", 0) == 0) cost_only.push_back(s);
  }
  const config::AreaInputs inputs = config::load_area_inputs(o.chip, o.sets, paths);
  const output::AreaReport report = output::area_report(inputs, describe(inputs.chip.name, o.sets));

  std::optional<output::AreaReport> base;
  if (o.compare || cost_only.size() != o.sets.size()) {
    const std::string base_chip = o.compare.value_or(o.chip);
    const config::AreaInputs base_inputs = config::load_area_inputs(base_chip, cost_only, paths);
    base = output::area_report(base_inputs, describe(base_inputs.chip.name, cost_only));
  }
  const output::AreaReport* base_ptr = base ? &*base : nullptr;
  if (o.json) {
    output::render_area_json(out, report, base_ptr);
  } else {
    output::render_area_text(out, report, base_ptr);
  }
  if (o.output) {
    const std::string& p = *o.output;
    if (p.size() > 3 && p.compare(p.size() - 3, 3, ".h5") == 0) {
      output::write_area_h5(p, report, base_ptr,
                            output::Provenance::current(invocation.argc, invocation.argv, 0));
    } else {
      output::write_area_csv(p, report, base_ptr);
    }
    if (!o.json) out << "wrote " << p << "\n";
  }
  return 0;
}

}  // namespace scoville::cli
