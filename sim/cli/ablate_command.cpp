// `scoville ablate`: one system study per value of one varied key, printed as one comparison
// table with differences relative to the first value. Every variant's design is elaborated
// before the first runs (one SystemC design per process).
#include <yaml-cpp/yaml.h>

#include <iomanip>
#include <memory>
#include <sstream>

#include "sim/base/error.hpp"
#include "sim/base/json_text.hpp"
#include "sim/base/number_format.hpp"
#include "sim/base/yaml_reader.hpp"
#include "sim/cli/arg_reader.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/cli/system_run.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/config/system_override.hpp"
#include "sim/output/system_report.hpp"

namespace scoville::cli {

extern const char kAblateUsage[] =
    R"(  scoville ablate --system NAME|FILE --model NAME|FILE --vary KEY=V1,V2[,...] [options]
                                    run the system study once per value and print one table
                                    with the differences relative to the first value
      --vary KEY=V1,V2,...          kv_placement, fidelity, overlap, routing, tp, ep, pp, dp,
                                    attn_dp, batch, isl, osl, or a dotted key of the system file such
                                    as system.network.local.topology (system.local.X is read
                                    as system.network.local.X)
      --batch N --isl N --osl N     the request shape (defaults 8, 1024, 128)
      --kv-placement, --tp, --ep, --pp, --dp, --attn-dp, --mapping, --fidelity, --overlap,
      --routing                     as for scoville run --system
      --json                        print the variants as JSON
)";

namespace {

struct AblateOptions {
  SystemRunArgs base;
  std::string key;
  std::vector<std::string> values;
};

AblateOptions parse_ablate(const std::vector<std::string>& args) {
  AblateOptions o;
  ArgReader a("scoville ablate", args);
  while (a.next()) {
    if (a.is("--system")) {
      o.base.system = a.value();
    } else if (a.is("--model")) {
      o.base.model = a.value();
    } else if (a.is("--batch")) {
      o.base.batch = a.count();
    } else if (a.is("--isl")) {
      o.base.isl = a.count();
    } else if (a.is("--osl")) {
      o.base.osl = a.count();
    } else if (a.is("--json")) {
      o.base.json = true;
    } else if (a.is("--vary")) {
      const std::string v = a.value();
      const size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == v.size()) {
        throw UsageError("--vary expects KEY=V1,V2,..., got '" + v + "'");
      }
      if (!o.key.empty()) throw UsageError("scoville ablate varies one key; --vary given twice");
      o.key = v.substr(0, eq);
      o.values = split_list(v.substr(eq + 1));
    } else if (!read_system_flag(a, o.base)) {
      a.unknown();
    }
  }
  if (!o.base.system) throw UsageError("scoville ablate needs --system NAME|FILE");
  if (!o.base.model) throw UsageError("scoville ablate needs --model NAME|FILE");
  if (o.key.empty()) throw UsageError("scoville ablate needs --vary KEY=V1,V2,...");
  return o;
}

std::string percent(double v, double base) {
  if (base == 0) return v == 0 ? "+0.0%" : "n/a";
  std::ostringstream s;
  s << std::showpos << std::fixed << std::setprecision(1) << 100.0 * (v - base) / base << "%";
  return s.str();
}

}  // namespace

int ablate_command(const Invocation& invocation, std::ostream& out) {
  const AblateOptions o = parse_ablate(invocation.args);
  const config::DataPaths paths = config::DataPaths::from_environment();
  const std::string system_path = paths.resolve(*o.base.system, "arch/systems");
  const config::SystemConfig base_system = config::load_system(*o.base.system, paths);
  const bool system_key = o.key.rfind("system.", 0) == 0;

  // Elaborate every variant first.
  std::vector<engine::SystemSetup> setups;
  std::vector<std::unique_ptr<engine::SystemStudy>> studies;
  for (const std::string& value : o.values) {
    SystemRunArgs args = o.base;
    config::SystemConfig system = base_system;
    if (system_key) {
      system = config::system_with(system_path, o.key, value);
    } else {
      engine::set_run_field(args, o.key, value);
    }
    setups.push_back(engine::system_setup(args, system, paths));
    studies.push_back(
        std::make_unique<engine::SystemStudy>(setups.back(), engine::study_config(args)));
  }
  std::vector<engine::SystemStudyResult> results;
  for (auto& s : studies) results.push_back(s->run());

  if (o.base.json) {
    out << "{\"key\": \"" << output::json_escape(o.key) << "\", \"variants\": [";
    for (size_t i = 0; i < results.size(); ++i) {
      out << (i ? ", " : "") << "{\"value\": \"" << output::json_escape(o.values[i])
          << "\", \"result\": ";
      std::ostringstream one;
      output::render_system_json(one, setups[i], studies[i]->config(), results[i]);
      std::string text = one.str();
      if (!text.empty() && text.back() == '\n') text.pop_back();
      out << text << "}";
    }
    out << "]}\n";
    return 0;
  }
  out << "ablation of " << o.key << " on " << base_system.name << ", model "
      << setups.front().model.name() << " (batch " << studies.front()->config().batch << ", isl "
      << studies.front()->config().isl << ", osl " << studies.front()->config().osl
      << "); relative to " << o.values.front() << "\n\n";
  out << std::left << std::setw(16) << o.key.substr(o.key.rfind('.') + 1) << std::right;
  for (const char* h : {"prefill", "rel", "decode", "rel", "energy", "rel", "kv_transfer",
                        "kv_energy", "network_time"}) {
    out << std::setw(13) << h;
  }
  out << "\n";
  const auto& b = results.front().phases;
  const double base_energy = (b[0].total.energy + b[1].total.energy).si();
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& p = results[i].phases;
    const double energy = (p[0].total.energy + p[1].total.energy).si();
    const double kv_time = (p[0].total.kv_transfer_time + p[1].total.kv_transfer_time).si();
    const double kv_energy = (p[0].total.kv_transfer_energy + p[1].total.kv_transfer_energy).si();
    const double net = (p[0].total.local_network_time + p[0].total.scale_out_time +
                        p[1].total.local_network_time + p[1].total.scale_out_time)
                           .si();
    out << std::left << std::setw(16) << o.values[i] << std::right << std::setw(13)
        << format_si(p[0].total.time.si(), "s", 4) << std::setw(13)
        << percent(p[0].total.time.si(), b[0].total.time.si()) << std::setw(13)
        << format_si(p[1].total.time.si(), "s", 4) << std::setw(13)
        << percent(p[1].total.time.si(), b[1].total.time.si()) << std::setw(13)
        << format_si(energy, "J", 4) << std::setw(13) << percent(energy, base_energy)
        << std::setw(13) << format_si(kv_time, "s", 4) << std::setw(13)
        << format_si(kv_energy, "J", 4) << std::setw(13) << format_si(net, "s", 4) << "\n";
  }
  out << "\nprefill/decode: phase time for all sequences; energy: both phases, every pool chip "
         "and the network; kv_transfer: KV moved by the placement (also inside the phase "
         "times)\n";
  return 0;
}

}  // namespace scoville::cli
