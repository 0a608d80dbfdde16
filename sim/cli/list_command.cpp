// `scoville list [KIND]`: what exists, by name. Registered choices come from the registries
// themselves (a new policy, placement, topology or collective shows up here without an edit), and
// shipped files from the data folders, so a user can find every name a flag or a YAML key takes.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "models/kv/kv_placement.hpp"
#include "models/network/collective.hpp"
#include "models/network/topology_builders.hpp"
#include "sim/base/error.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/engine/serving_hardware.hpp"
#include "sim/serving/scheduling_policy.hpp"

namespace scoville::cli {

OptionSet list_options() {
  OptionSet s("list");
  s.synopsis("[KIND]", "the names every registry and data folder holds")
      .positional("KIND",
                  "fidelities, batching-policies, handoff-policies, kv-placements, topologies, "
                  "collectives (with their algorithms), chips, systems, models, software, energy "
                  "(default: all of them)");
  return s;
}

namespace {

struct Listing {
  std::string kind;
  std::function<std::vector<std::string>()> names;
};

std::vector<Listing> listings() {
  const config::DataPaths paths = config::DataPaths::from_environment();
  auto folder = [paths](const std::string& f) { return [paths, f] { return paths.available(f); }; };
  return {
      {"fidelities", [] { return engine::serving_fidelity_names(); }},
      {"batching-policies", [] { return serving::batching_policy_names(); }},
      {"handoff-policies", [] { return serving::handoff_policy_names(); }},
      {"kv-placements", [] { return models::kv_placement_registry().names(); }},
      {"topologies", [] { return models::topology_registry().names(); }},
      {"collectives",
       [] {
         std::vector<std::string> out;
         for (const std::string& c : models::collective_names()) {
           std::string line = c + " (";
           const std::vector<std::string> algorithms = models::collective(c).algorithm_names();
           for (size_t i = 0; i < algorithms.size(); ++i) line += (i ? ", " : "") + algorithms[i];
           out.push_back(line + ")");
         }
         return out;
       }},
      {"chips", folder("arch/chips")},
      {"systems", folder("arch/systems")},
      {"models", folder("workloads/models")},
      {"software", folder("arch/software")},
      {"energy", folder("arch/energy")},
  };
}

}  // namespace

int list_command(const Invocation& invocation, std::ostream& out) {
  const std::vector<std::string> args = list_options().parse(invocation.args).positionals();
  if (args.size() > 1) throw UsageError{"'scoville list' takes at most one KIND"};
  const std::vector<Listing> all = listings();
  if (args.empty()) {
    for (const Listing& l : all) {
      out << l.kind << ":";
      for (const std::string& name : l.names()) out << " " << name;
      out << "\n";
    }
    return 0;
  }
  std::vector<std::string> kinds;
  for (const Listing& l : all) {
    if (l.kind == args.front()) {
      for (const std::string& name : l.names()) out << name << "\n";
      return 0;
    }
    kinds.push_back(l.kind);
  }
  throw UsageError{"unknown KIND '" + args.front() + "'; expected " + list_of_choices(kinds)};
}

}  // namespace scoville::cli
