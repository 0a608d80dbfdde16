#include "sim/engine/serving_hardware.hpp"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "models/kv/kv_placement.hpp"
#include "models/network/topology_builders.hpp"
#include "sim/base/registry.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/config/calibration_overlay.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/engine/simulated_op_cost.hpp"
#include "sim/serving/physical_limits.hpp"

namespace scoville::engine {

namespace {

// A chip name alone: its chips on one switch, each with all its ports into it. The latencies
// and energies are those of arch/systems/gb200-nvl72.yaml, the one NVLink switch we describe.
models::Topology switch_of_chip(const models::ChipParams& chip, int64_t chips) {
  models::TopologySpec spec;
  spec.kind = "switch";
  spec.endpoints = chips;
  spec.link.lanes = std::max<int64_t>(1, chip.ports.count);
  spec.link.bandwidth_per_lane = chip.ports.bandwidth_per_port;
  spec.link.latency = Duration(150e-9);      // [ASSUMPTION] as gb200-nvl72.yaml
  spec.link.energy = EnergyPerBit(5.5e-12);  // [SECONDARY] as gb200-nvl72.yaml
  models::SwitchParams sw;
  sw.radix = chips;
  sw.port_bandwidth = spec.link.bandwidth();
  sw.latency = Duration(250e-9);     // [ASSUMPTION] as gb200-nvl72.yaml
  sw.energy = EnergyPerBit(10e-12);  // [EST] as gb200-nvl72.yaml
  spec.switch_params = sw;
  return models::build_topology(spec);
}

}  // namespace

ServingHardware resolve_hardware(const std::string& chip, const std::string& system, int64_t chips,
                                 const std::string& software, bool calibration,
                                 ServingFidelity fidelity) {
  const config::DataPaths paths = config::DataPaths::from_environment();
  ServingHardware hw;
  hw.chip = config::load_chip(chip, paths);
  std::string system_stack;  // the system file's own stack (its resolved `software:` file)
  if (system.empty()) {
    hw.system_name = hw.chip.name + " x" + std::to_string(chips) + " switch";
    if (chips > 1 && hw.chip.ports.count > 0) hw.network = switch_of_chip(hw.chip, chips);
  } else {
    const config::SystemConfig s = config::load_system(system, paths);
    hw.system_name = s.name;
    hw.network = config::build_network(s);
    hw.system_power = s.power;
    hw.system_chips = s.chips;
    hw.host = s.host;
    system_stack = s.software_file;
    // An overlay describes the system's own chip; a --chip override runs other silicon.
    const bool own_chip =
        !s.chip_file.empty() && config::load_chip(s.chip_file, paths).name == hw.chip.name;
    if (calibration && own_chip && fidelity != ServingFidelity::kCycle) {
      if (const auto overlay = config::find_overlay(s.file, overlay_fidelity(fidelity))) {
        hw.efficiency = overlay->knobs;
        hw.calibration = overlay->describe();
      }
    }
  }
  const std::string stack = config::software_in_effect(software, system_stack);
  if (!stack.empty()) {
    const config::SoftwareProfile p = config::load_software(stack, paths);
    hw.software_name = p.name;
    hw.software = serving::SoftwareOverheads{p.per_op_launch,
                                             p.per_layer_sync,
                                             p.per_iteration,
                                             p.per_collective,
                                             p.per_all_to_all,
                                             p.per_sequence,
                                             p.per_kv_transfer,
                                             p.fused_vector_ops,
                                             p.kernel_paths_on(hw.chip.name),
                                             p.top_p_sorts_vocabulary,
                                             p.disaggregated_kv_whole_context};
    hw.software_file = paths.resolve(stack, "arch/software");
    if (calibration && fidelity != ServingFidelity::kCycle) {
      hw.stack_calibration =
          config::find_stack_calibration(hw.software_file, overlay_fidelity(fidelity));
      apply_stack_calibration(hw);
    }
  }
  return hw;
}

namespace {

// Names the stack calibration in hw.calibration; `kept`: the software knobs an overlay given by
// hand kept over the stack's.
void label_stack_calibration(ServingHardware& hw, const std::vector<std::string>& kept) {
  const std::string name = std::filesystem::path(hw.stack_calibration->file).filename().string();
  std::string own;
  for (const std::string& k : kept) own += (own.empty() ? "" : ", ") + k;
  hw.calibration = (hw.calibration.empty() ? std::string() : hw.calibration + " + ") + name +
                   " (software knobs of the stack" +
                   (own.empty() ? std::string() : "; the given overlay's own " + own + " kept") +
                   ")";
}

}  // namespace

void apply_stack_calibration(ServingHardware& hw) {
  if (!hw.stack_calibration) return;
  hw.stack_calibration->apply(hw.efficiency);
  label_stack_calibration(hw, {});
}

void apply_calibration_file(ServingHardware& hw, const std::string& file,
                            ServingFidelity fidelity) {
  const config::CalibrationOverlay overlay = config::load_overlay(file);
  if (overlay.fidelity != overlay_fidelity(fidelity)) {
    throw InputError(SourceLocation{file, 0, 0}, "calibration.fidelity",
                     "the overlay's knobs were fitted at the " + overlay.fidelity +
                         " fidelity; this run prices at " + to_string(fidelity) +
                         " (give an overlay fitted at it, or --fidelity " + overlay.fidelity + ")");
  }
  hw.efficiency = overlay.knobs;
  hw.calibration = overlay.describe() + " (given by --calibration)";
  // Software time belongs to the stack, so its knobs fill the overlay's; but an overlay given by
  // hand that sets a software knob itself is the more specific, and that knob stays (a user's
  // what-if, e.g. the Jalapeño study's overhead sweep, is never silently replaced).
  if (!hw.stack_calibration && !hw.software_file.empty()) {
    hw.stack_calibration =
        config::find_stack_calibration(hw.software_file, overlay_fidelity(fidelity));
  }
  if (!hw.stack_calibration) return;
  label_stack_calibration(hw, hw.stack_calibration->apply_where_unset(hw.efficiency));
}

namespace {

using FidelityRegistry = Registry<ServingFidelity>;

const FidelityRegistry& fidelity_registry() {
  static const FidelityRegistry registry = [] {
    FidelityRegistry r("fidelity");
    r.add("roofline", [] { return ServingFidelity::kRoofline; });
    r.add("op-table", [] { return ServingFidelity::kOpTable; });
    r.add("cycle", [] { return ServingFidelity::kCycle; });
    return r;
  }();
  return registry;
}

}  // namespace

std::vector<std::string> serving_fidelity_names() { return fidelity_registry().names(); }

ServingFidelity parse_serving_fidelity(const std::string& text) {
  if (!fidelity_registry().contains(text)) {
    throw UsageError{"--fidelity: expected " + list_of_choices(serving_fidelity_names()) +
                     ", found '" + text + "'"};
  }
  return fidelity_registry().create(text);
}

std::string to_string(ServingFidelity fidelity) {
  switch (fidelity) {
    case ServingFidelity::kRoofline:
      return "roofline";
    case ServingFidelity::kOpTable:
      return "op-table";
    case ServingFidelity::kCycle:
      return "cycle";
  }
  return "roofline";
}

workloads::ModelConfig sampled_model(const workloads::ModelConfig& model, const ServingHardware& hw,
                                     workloads::RequestSampling sampling) {
  return sampling == workloads::RequestSampling::kTopP && hw.software.top_p_sorts_vocabulary
             ? model.with_sampler(workloads::Sampler::kFullSort)
             : model;
}

void set_kv_placement(ServingHardware& hw, const std::string& name) {
  models::make_kv_placement(name);  // an unknown name: InputError naming the known ones
  if (name == "remote_pool" && !hw.host) {
    throw InputError(SourceLocation{"<command line>", 0, 0}, "kv_placement",
                     "remote_pool keeps the KV in host memory: expected --system to name a "
                     "system file with a host section (e.g. gb200-nvl72), found " +
                         hw.system_name);
  }
  hw.kv_placement = name;
}

std::string overlay_fidelity(ServingFidelity fidelity) {
  return fidelity == ServingFidelity::kCycle ? std::string() : to_string(fidelity);
}

void use_op_table(ServingHardware& hw, bool persistent_cache) {
  engine::SimulatedOpCostOptions options;
  if (!persistent_cache) options.cache_dir.reset();
  hw.op_cost = std::make_shared<engine::SimulatedOpCost>(hw.chip, options);
}

std::string op_table_report(const ServingHardware& hw) {
  if (!hw.op_cost) return std::string();
  const serving::OpTableStats s = hw.op_cost->stats();
  const std::string& dir = s.cache_directory;
  std::string line = "op table: " + std::to_string(s.lookups) + " lookups, " +
                     std::to_string(s.memory_hits) + " in memory, " + std::to_string(s.disk_hits) +
                     " from the op cache, " + std::to_string(s.simulated) + " simulated";
  if (dir.empty()) return line + " (op cache bypassed)";
  line += " (op cache " + dir + ", " + std::to_string(s.disk_writes) + " written";
  if (s.disk_write_failures > 0) {
    line += ", " + std::to_string(s.disk_write_failures) + " could not be written";
  }
  return line + ")";
}

std::string software_label(const ServingHardware& hw) {
  return hw.software_name.empty() ? std::string(config::kNoSoftware) : hw.software_name;
}

std::string calibration_label(const ServingHardware& hw) {
  if (!hw.calibration.empty()) return hw.calibration;
  return hw.op_cost ? "none (the chip model's op times)" : "none (raw spec peaks)";
}

Power parse_power_cap(const std::string& text, const std::string& flag) {
  const SourceLocation cli{"<command line>", 0, 0};
  Power cap;
  try {
    cap = Power(parse_quantity(text, Dimension::kPower));
  } catch (const UnitParseError& e) {
    throw InputError(cli, flag, e.what());
  }
  if (!(cap.si() > 0)) throw InputError(cli, flag, "expected a power > 0 W");
  return cap;
}

void apply_power_cap(ServingHardware& hw, const std::optional<Power>& cap,
                     const SourceLocation& where, const std::string& key) {
  if (!cap) return;
  if (!hw.chip.power.management.present) {
    throw InputError(where, key,
                     "chip '" + hw.chip.name +
                         "' has no power_management section (DVFS points, time constant) to "
                         "hold a cap with");
  }
  serving::check_power_cap(*cap, hw.chip, where, key);
  hw.chip.power.management.cap = *cap;
}

void set_power_inputs(const ServingHardware& hw, serving::MetricInputs& metrics) {
  // A scenario's explicit all-in power per chip wins over the system file's section.
  if (!hw.system_power || metrics.all_in_power_per_chip) return;
  metrics.system_power = hw.system_power;
  metrics.system_chips = hw.system_chips;
}

}  // namespace scoville::engine
