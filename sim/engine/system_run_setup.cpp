#include "sim/engine/system_run_setup.hpp"

#include <algorithm>
#include <filesystem>

#include "sim/base/unit_parser.hpp"
#include "sim/config/mapping_loader.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/config/stack_calibration.hpp"
#include "sim/serving/physical_limits.hpp"
#include "workloads/model_loader.hpp"
#include "workloads/routing_distribution.hpp"

namespace scoville::engine {

namespace {

const SourceLocation kCli{"<command line>", 0, 0};

// A mapping degree within 1..max, named as the user wrote it: the flag (--tp) or the study key
// (study.mapping.tp).
int64_t bounded(long long v, const SystemRunArgs& r, const char* degree, int64_t max) {
  if (v < 1 || v > max) {
    std::string flag = std::string("--") + degree;
    if (flag == "--attn_dp") flag = "--attn-dp";
    throw InputError(
        r.where, r.from_study ? std::string("study.mapping.") + degree : flag,
        "expected 1 to " + std::to_string(max) + " (the system's chips), got " + std::to_string(v));
  }
  return v;
}

}  // namespace

bool names_system(const std::string& name, const config::DataPaths& paths) {
  const std::string path = paths.resolve(name, "arch/systems");
  if (!std::filesystem::exists(path)) return false;
  try {
    return static_cast<bool>(load_yaml_file(path)["system"]);
  } catch (const std::exception&) {
    return false;
  }
}

SystemSetup system_setup(const SystemRunArgs& r, const config::SystemConfig& system,
                         const config::DataPaths& paths) {
  if (!r.model) throw UsageError("scoville run --system needs --model NAME|FILE");
  const std::string model_path = paths.resolve(*r.model, "workloads/models");
  config::require_known(*r.model, model_path, "workloads/models", paths, "model");
  const workloads::ModelConfig model = config::model_with(model_path, r.overrides.model);
  workloads::PoolMapping mapping;
  const bool degrees = r.tp || r.ep || r.pp || r.dp || r.attn_dp;
  if (r.mapping_file) {
    if (degrees) throw UsageError("--mapping excludes --tp, --ep, --pp, --dp and --attn-dp");
    // (A study's mapping: is either a file or degrees, so it never gets here with both.)
    const workloads::MappingConfig config = config::load_mapping(*r.mapping_file);
    mapping = config.pools.size() == 1 ? config.pools.front() : config.pool("decode");
  } else {
    const int64_t max = system.chips;
    const int64_t local = system.network.kind == "hierarchical" ? system.network.local->endpoints
                                                                : system.network.endpoints;
    const bool moe = model.ffn().experts > 0;
    mapping.degrees.tp = r.tp ? bounded(*r.tp, r, "tp", max) : std::min<int64_t>(8, local);
    mapping.degrees.ep = r.ep ? bounded(*r.ep, r, "ep", max) : (moe ? mapping.degrees.tp : 1);
    mapping.degrees.pp = r.pp ? bounded(*r.pp, r, "pp", max) : 1;
    mapping.degrees.dp = r.dp ? bounded(*r.dp, r, "dp", max) : 1;
    mapping.degrees.attn_dp = r.attn_dp ? bounded(*r.attn_dp, r, "attn_dp", max) : 1;
    mapping.chips = mapping.degrees.tp * mapping.degrees.pp * mapping.degrees.dp;
    mapping.where = r.where;
    mapping.pool = "default";
  }
  if (mapping.chips > system.chips) {
    throw InputError(mapping.where, "mapping.chips",
                     "the mapping needs " + std::to_string(mapping.chips) + " chips but '" +
                         system.name + "' has " + std::to_string(system.chips));
  }
  engine::SystemEngineOptions options;
  options.fidelity = engine::parse_fidelity(r.fidelity);
  options.overlap = engine::parse_overlap(r.overlap);
  options.kv_placement = r.kv_placement;
  options.simulate_repeated_ops_once = r.reuse_repeated_ops;
  try {
    options.routing = workloads::parse_routing_spec(r.routing);
  } catch (const std::invalid_argument& e) {
    throw InputError(r.where, r.from_study ? "study.routing" : "--routing", e.what());
  }
  options.routing.seed = r.seed;
  models::make_kv_placement(r.kv_placement);  // an unknown name fails here, listing the known
  SystemSetup setup = engine::make_setup(system, model, mapping, paths, options);
  if (!r.overrides.chip.empty()) {
    setup.chip = config::chip_with(config::require_chip(system), paths, r.overrides.chip);
  }
  // --software over the system file's own stack (make_setup loaded that one), then any
  // software.KEY settings of an ablation over the stack in effect.
  const std::string stack = config::software_in_effect(r.software, system.software_file);
  if (!r.overrides.software.empty()) {
    if (stack.empty()) {
      throw InputError(SourceLocation{system.file, 0, 0}, "system.software",
                       "cannot set " + r.overrides.software.front().key +
                           ": no software profile is in effect (set software=NAME)");
    }
    setup.software =
        config::software_with(paths.resolve(stack, "arch/software"), r.overrides.software);
  } else {
    setup.software =
        stack.empty() ? config::SoftwareProfile{} : config::load_software(stack, paths);
  }
  // The stack's fitted software knobs (`calibrate --per-stack`) at the op table, the fidelity
  // whose hardware time is the chip model's, as here: software time the chip model does not see.
  if (!stack.empty()) {
    if (const auto c =
            config::find_stack_calibration(paths.resolve(stack, "arch/software"), "op-table")) {
      setup.software.per_op_launch += c->per_op;
      setup.software.per_iteration += c->per_iteration;
      setup.software.per_sequence += c->per_sequence;
      setup.software.description +=
          " + " + std::filesystem::path(c->file).filename().string() + " (fitted software knobs)";
    }
  }
  // The physical limits, before any chip is elaborated or anything simulated.
  serving::check_context(setup.model, r.isl, r.osl, r.where, r.from_study ? "study.isl" : "--isl");
  serving::check_mapped_fit(setup.model, setup.mapping, setup.chip, r.batch, r.isl + r.osl);
  return setup;
}

SystemStudyConfig study_config(const SystemRunArgs& r) {
  SystemStudyConfig c;
  c.batch = r.batch;
  c.isl = r.isl;
  c.osl = r.osl;
  return c;
}

SystemRunArgs system_args(const study::StudyConfig& s) {
  if (!s.system) throw std::logic_error("system_args: a study without system:");
  const study::SystemStudyKeys& k = *s.system;
  SystemRunArgs a;
  a.system = k.system;
  a.model = s.model;
  a.batch = s.batch;
  a.isl = s.isl;
  a.osl = s.osl;
  a.kv_placement = k.kv_placement;
  a.fidelity = k.fidelity;
  a.overlap = k.overlap;
  a.routing = k.routing;
  a.reuse_repeated_ops = k.reuse_repeated_ops;
  if (!k.mapping_file.empty()) a.mapping_file = k.mapping_file;
  auto degree = [](const std::optional<int64_t>& v) -> std::optional<long long> {
    if (!v) return std::nullopt;
    return static_cast<long long>(*v);
  };
  a.tp = degree(k.tp);
  a.ep = degree(k.ep);
  a.pp = degree(k.pp);
  a.dp = degree(k.dp);
  a.attn_dp = degree(k.attn_dp);
  a.seed = s.seed;
  a.where = k.where;
  a.from_study = true;
  a.study_yaml = s.yaml_text;
  return a;
}

study::StudyConfig resolved_study(const SystemRunArgs& a, const SystemSetup& setup) {
  study::StudyConfig s;
  s.name = setup.system.name;
  s.model = *a.model;
  s.batch = a.batch;
  s.isl = a.isl;
  s.osl = a.osl;
  s.seed = a.seed;
  study::SystemStudyKeys k;
  k.system = *a.system;
  k.kv_placement = setup.options.kv_placement;
  k.fidelity = a.fidelity;
  k.overlap = a.overlap;
  k.routing = a.routing;
  k.reuse_repeated_ops = a.reuse_repeated_ops;
  k.tp = setup.mapping.degrees.tp;
  k.ep = setup.mapping.degrees.ep;
  k.pp = setup.mapping.degrees.pp;
  k.dp = setup.mapping.degrees.dp;
  k.attn_dp = setup.mapping.degrees.attn_dp;
  s.system = k;
  return s;
}

void set_run_field(SystemRunArgs& r, const std::string& key, const std::string& value) {
  auto number = [&] { return parse_count("--vary " + key, value); };
  if (key == "kv_placement") {
    r.kv_placement = value;
  } else if (key == "fidelity") {
    r.fidelity = value;
  } else if (key == "overlap") {
    r.overlap = value;
  } else if (key == "routing") {
    r.routing = value;
  } else if (key == "tp") {
    r.tp = number();
  } else if (key == "ep") {
    r.ep = number();
  } else if (key == "pp") {
    r.pp = number();
  } else if (key == "dp") {
    r.dp = number();
  } else if (key == "attn_dp") {
    r.attn_dp = number();
  } else if (key == "batch") {
    r.batch = number();
  } else if (key == "isl") {
    r.isl = number();
  } else if (key == "osl") {
    r.osl = number();
  } else {
    throw InputError(
        SourceLocation{"<command line>", 0, 0}, "--vary",
        "unknown key '" + key +
            "'; expected kv_placement, fidelity, overlap, routing, tp, ep, pp, dp, attn_dp, "
            "batch, isl, osl, or a dotted key of an input file: system.X (also network.X, "
            "host.X, power.X, chips, chip, software), chip.X, model.X (precision.X) or "
            "software.X");
  }
}

std::string idle_chips_warning(const SystemRunArgs& r, const SystemSetup& setup) {
  const bool given = r.mapping_file || r.tp || r.ep || r.pp || r.dp || r.attn_dp;
  const int64_t used = setup.mapping.chips;
  const int64_t chips = setup.system.chips;
  if (given || used <= 0 || 4 * used >= chips) return std::string();
  const workloads::ParallelDegrees& d = setup.mapping.degrees;
  const int64_t replica = d.tp * d.pp;
  const int64_t dp = chips / replica;
  return "the default mapping (tp " + std::to_string(d.tp) + ", ep " + std::to_string(d.ep) +
         ") uses " + std::to_string(used) + " of the " + std::to_string(chips) + " chips of '" +
         setup.system.name + "': the whole batch of " + std::to_string(r.batch) +
         " runs on them; --dp " + std::to_string(dp) + " spreads it over " +
         std::to_string(dp * replica) + " chips (docs/mapping.md)";
}

}  // namespace scoville::engine
