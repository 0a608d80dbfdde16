// `scoville op-cache`: where the persistent op cache of the op-table fidelity lives, how much it
// holds, and clearing it (sim/engine/op_cache_store.hpp).
#include <string>

#include "sim/cli/command_table.hpp"
#include "sim/engine/op_cache_store.hpp"
#include "sim/engine/simulated_op_cost.hpp"

namespace scoville::cli {

OptionSet op_cache_options() {
  OptionSet s("op-cache");
  s.synopsis("[info|prune|clear]",
             "the persistent op cache of the op-table fidelity: its directory "
             "($SCOVILLE_CACHE_DIR, else ~/.cache/scoville/ops) and entries")
      .positional("info|prune|clear",
                  "info (default): where it is and how many entries it holds; prune removes the "
                  "entries of other chip-model versions (never read again) and damaged ones; "
                  "clear removes every entry");
  return s;
}

int op_cache_command(const Invocation& invocation, std::ostream& out) {
  const std::vector<std::string> actions = op_cache_options().parse(invocation.args).positionals();
  if (actions.size() > 1) {
    throw UsageError("'scoville op-cache' takes one action: info, prune or clear");
  }
  const std::string action = actions.empty() ? "info" : actions.front();
  if (action != "info" && action != "clear" && action != "prune") {
    throw UsageError("'scoville op-cache': unknown action '" + action +
                     "'; expected info, prune or clear");
  }
  const std::optional<std::string> dir = engine::default_op_cache_dir();
  if (!dir) {
    out << "op cache: none (set SCOVILLE_CACHE_DIR, XDG_CACHE_HOME or HOME)\n";
    return 0;
  }
  const engine::OpCacheStore store(*dir);
  if (action == "clear") {
    out << "op cache: removed " << store.clear() << " entries from " << *dir << "\n";
    return 0;
  }
  if (action == "prune") {
    // Every key names the chip-model version it was simulated with (SimulatedOpCost's key).
    const int64_t removed = store.remove_unless(engine::is_current_chip_model_key);
    out << "op cache: removed " << removed
        << " entries of other chip-model versions (or damaged) from " << *dir << "; "
        << store.entries() << " left\n";
    return 0;
  }
  out << "op cache: " << *dir << "\n"
      << "entries: " << store.entries() << "\n"
      << "chip model version: " << engine::chip_model_version()
      << " (entries of other versions are never read)\n";
  return 0;
}

}  // namespace scoville::cli
