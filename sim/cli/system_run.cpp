#include "sim/cli/system_run.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include "sim/base/error.hpp"
#include "sim/base/json_text.hpp"
#include "sim/base/number_format.hpp"
#include "sim/base/yaml_reader.hpp"
#include "sim/config/mapping_loader.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/output/atomic_file.hpp"
#include "sim/output/system_results.hpp"
#include "sim/output/system_trace.hpp"
#include "sim/serving/physical_limits.hpp"
#include "workloads/model_loader.hpp"
#include "workloads/routing_distribution.hpp"

namespace scoville::cli {

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

std::string si(double v, const std::string& unit) { return format_si(v, unit, 4); }

}  // namespace

bool read_system_flag(ArgReader& a, SystemRunArgs& r) {
  if (a.is("--kv-placement")) {
    r.kv_placement = a.value();
  } else if (a.is("--fidelity")) {
    r.fidelity = a.value();
  } else if (a.is("--overlap")) {
    r.overlap = a.value();
  } else if (a.is("--routing")) {
    r.routing = a.value();
  } else if (a.is("--tp")) {
    r.tp = a.count();
  } else if (a.is("--ep")) {
    r.ep = a.count();
  } else if (a.is("--pp")) {
    r.pp = a.count();
  } else if (a.is("--dp")) {
    r.dp = a.count();
  } else if (a.is("--attn-dp")) {
    r.attn_dp = a.count();
  } else if (a.is("--mapping")) {
    r.mapping_file = a.value();
  } else if (a.is("--reuse-repeated-ops")) {
    r.reuse_repeated_ops = true;
  } else {
    return false;
  }
  r.any_system_flag = true;
  return true;
}

bool names_system(const std::string& name, const config::DataPaths& paths) {
  const std::string path = paths.resolve(name, "arch/systems");
  if (!std::filesystem::exists(path)) return false;
  try {
    return static_cast<bool>(load_yaml_file(path)["system"]);
  } catch (const std::exception&) {
    return false;
  }
}

engine::SystemSetup system_setup(const SystemRunArgs& r, const config::SystemConfig& system,
                                 const config::DataPaths& paths) {
  if (!r.model) throw UsageError("scoville run --system needs --model NAME|FILE");
  const std::string model_path = paths.resolve(*r.model, "workloads/models");
  config::require_known(*r.model, model_path, "workloads/models", paths, "model");
  const workloads::ModelConfig model = workloads::load_model(model_path);
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
  engine::SystemSetup setup = engine::make_setup(system, model, mapping, paths, options);
  // The physical limits, before any chip is elaborated or anything simulated.
  serving::check_context(setup.model, r.isl, r.osl, r.where, r.from_study ? "study.isl" : "--isl");
  serving::check_mapped_fit(setup.model, setup.mapping, setup.chip, r.batch, r.isl + r.osl);
  return setup;
}

engine::SystemStudyConfig study_config(const SystemRunArgs& r) {
  engine::SystemStudyConfig c;
  c.batch = r.batch;
  c.isl = r.isl;
  c.osl = r.osl;
  return c;
}

std::vector<std::pair<std::string, double>> time_parts(const engine::SystemIterationResult& r) {
  return {{"compute", r.compute_time.si()},
          {"hbm", r.hbm_time.si()},
          {"local_network", r.local_network_time.si()},
          {"scale_out", r.scale_out_time.si()},
          {"kv_transfer", r.kv_transfer_time.si()},
          {"software", r.software_time.si()}};
}

std::vector<std::pair<std::string, double>> energy_parts(const engine::SystemIterationResult& r) {
  return {{"compute", r.compute_energy.si()},
          {"hbm", r.hbm_energy.si()},
          {"local_network", r.local_network_energy.si()},
          {"scale_out", r.scale_out_energy.si()},
          {"kv_transfer", r.kv_transfer_energy.si()},
          {"static", r.static_energy.si()}};
}

namespace {

std::string mapping_text(const workloads::PoolMapping& m) {
  std::ostringstream s;
  s << "tp " << m.degrees.tp << ", ep " << m.degrees.ep << ", pp " << m.degrees.pp << ", dp "
    << m.degrees.dp << ", attn_dp " << m.degrees.attn_dp << " (" << m.chips << " chips)";
  return s.str();
}

}  // namespace

void render_system_text(std::ostream& out, const engine::SystemSetup& setup,
                        const engine::SystemStudyConfig& study,
                        const engine::SystemStudyResult& result) {
  out << "system " << setup.system.name << ": " << setup.system.chips << " x " << setup.chip.name
      << "; model " << setup.model.name() << "; mapping " << mapping_text(setup.mapping) << "\n";
  out << "batch " << study.batch << ", isl " << study.isl << ", osl " << study.osl
      << "; kv_placement " << setup.options.kv_placement << "; software "
      << (setup.software.name.empty() ? "none" : setup.software.name) << "\n\n";
  std::ostringstream header;
  header << std::left << std::setw(9) << "phase" << std::right << std::setw(12) << "time"
         << std::setw(12) << "energy";
  for (const auto& [name, v] : time_parts(engine::SystemIterationResult{})) {
    header << std::setw(14) << name;
  }
  out << "time per phase (whole phase, all sequences) and its parts:\n" << header.str() << "\n";
  for (const engine::SystemPhaseResult& p : result.phases) {
    out << std::left << std::setw(9) << p.phase << std::right << std::setw(12)
        << si(p.total.time.si(), "s") << std::setw(12) << si(p.total.energy.si(), "J");
    for (const auto& [name, v] : time_parts(p.total)) out << std::setw(14) << si(v, "s");
    out << "\n";
  }
  out << "\nenergy per component:\n" << std::left << std::setw(9) << "phase" << std::right;
  for (const auto& [name, v] : energy_parts(engine::SystemIterationResult{})) {
    out << std::setw(14) << name;
  }
  out << std::setw(14) << "J/token"
      << "\n";
  for (const engine::SystemPhaseResult& p : result.phases) {
    out << std::left << std::setw(9) << p.phase << std::right;
    for (const auto& [name, v] : energy_parts(p.total)) out << std::setw(14) << si(v, "J");
    out << std::setw(14) << si(p.total.energy.si() / static_cast<double>(p.tokens), "J") << "\n";
  }
  out << "\nsimulated chips per iteration: " << result.phases.front().total.simulated_chips
      << " of " << setup.mapping.chips << " (fidelity "
      << (setup.options.fidelity == engine::Fidelity::kAll ? "all" : "representative") << ")\n";
  if (setup.options.routing.distribution != workloads::RoutingDistribution::kExpected) {
    out << "MoE routing " << workloads::to_spec(setup.options.routing) << " (seed "
        << setup.options.routing.seed
        << "): most loaded EP rank's token-expert pairs over the mean rank's, mean over layers "
           "(largest):";
    for (const engine::SystemPhaseResult& p : result.phases) {
      out << " " << p.phase << " " << std::fixed << std::setprecision(2) << p.total.ep_imbalance
          << " (" << p.total.ep_imbalance_max << ")";
      out.unsetf(std::ios::fixed);
    }
    out << "\n";
  }
}

void render_system_json(std::ostream& out, const engine::SystemSetup& setup,
                        const engine::SystemStudyConfig& study,
                        const engine::SystemStudyResult& result) {
  using output::json_escape;
  using output::json_number;
  out << "{\"system\": \"" << json_escape(setup.system.name) << "\", \"chip\": \""
      << json_escape(setup.chip.name) << "\", \"model\": \"" << json_escape(setup.model.name())
      << "\", \"chips\": " << setup.mapping.chips << ", \"tp\": " << setup.mapping.degrees.tp
      << ", \"ep\": " << setup.mapping.degrees.ep << ", \"pp\": " << setup.mapping.degrees.pp
      << ", \"dp\": " << setup.mapping.degrees.dp
      << ", \"attn_dp\": " << setup.mapping.degrees.attn_dp << ", \"batch\": " << study.batch
      << ", \"isl\": " << study.isl << ", \"osl\": " << study.osl << ", \"kv_placement\": \""
      << json_escape(setup.options.kv_placement) << "\", \"routing\": \""
      << json_escape(workloads::to_spec(setup.options.routing)) << "\", \"phases\": [";
  for (size_t i = 0; i < result.phases.size(); ++i) {
    const engine::SystemPhaseResult& p = result.phases[i];
    out << (i ? ", " : "") << "{\"phase\": \"" << p.phase << "\", \"tokens\": " << p.tokens
        << ", \"time_s\": " << json_number(p.total.time.si())
        << ", \"energy_j\": " << json_number(p.total.energy.si())
        << ", \"kv_transfer_bytes\": " << json_number(p.total.kv_transfer_bytes.si())
        << ", \"network_bytes\": " << json_number(p.total.network_bytes.si())
        << ", \"ep_imbalance\": " << json_number(p.total.ep_imbalance)
        << ", \"ep_imbalance_max\": " << json_number(p.total.ep_imbalance_max)
        << ", \"time_breakdown_s\": {";
    const auto tp = time_parts(p.total);
    for (size_t k = 0; k < tp.size(); ++k) {
      out << (k ? ", " : "") << "\"" << tp[k].first << "\": " << json_number(tp[k].second);
    }
    out << "}, \"energy_breakdown_j\": {";
    const auto ep = energy_parts(p.total);
    for (size_t k = 0; k < ep.size(); ++k) {
      out << (k ? ", " : "") << "\"" << ep[k].first << "\": " << json_number(ep[k].second);
    }
    out << "}}";
  }
  out << "]}\n";
}

}  // namespace scoville::cli

namespace scoville::cli {

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

namespace {

// The study this run amounts to, with every default filled in (the mapping as degrees).
study::StudyConfig resolved_study(const SystemRunArgs& a, const engine::SystemSetup& setup) {
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

}  // namespace

void run_system_study(const SystemRunArgs& args, const output::Provenance& provenance,
                      const std::optional<std::string>& h5_output, std::ostream& out,
                      const SystemTraceRequest* trace) {
  const config::DataPaths paths = config::DataPaths::from_environment();
  if (!args.system) throw UsageError("a system run needs --system NAME|FILE");
  const config::SystemConfig system = config::load_system(*args.system, paths);
  const engine::SystemSetup setup = system_setup(args, system, paths);
  engine::SystemStudy study(setup, study_config(args));
  // A bad --trace-chips is refused before the simulation, not after it.
  if (trace) {
    output::selected_trace_chips(trace->options.chips,
                                 static_cast<int>(study.engine().topology().endpoints()));
  }
  // Recording the critical paths only observes: the report is the same with and without.
  std::vector<engine::SystemTimelineIteration> timeline;
  const engine::SystemStudyResult result = study.run(trace ? &timeline : nullptr);
  if (trace) {
    output::write_text_atomically(
        trace->file, output::render_system_trace(study.engine().topology(), setup, timeline,
                                                 trace->provenance, trace->options));
  }
  if (h5_output) {
    output::SystemRunRecord record;
    record.resolved_yaml = study::to_yaml(resolved_study(args, setup));
    record.study_yaml = args.study_yaml.empty() ? record.resolved_yaml : args.study_yaml;
    record.inputs = {system.file, paths.resolve(*args.model, "workloads/models")};
    if (!system.chip_file.empty()) record.inputs.push_back(system.chip_file);
    if (!system.software_file.empty()) record.inputs.push_back(system.software_file);
    if (args.mapping_file) record.inputs.push_back(*args.mapping_file);
    record.fidelity = args.fidelity;
    record.overlap = args.overlap;
    output::write_h5_atomically(
        output::build_system_h5(setup, study.config(), result, provenance, record), *h5_output);
  }
  if (args.json) {
    render_system_json(out, setup, study.config(), result);
  } else {
    render_system_text(out, setup, study.config(), result);
  }
}

}  // namespace scoville::cli
