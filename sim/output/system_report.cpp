#include "sim/output/system_report.hpp"

#include <iomanip>
#include <sstream>

#include "sim/base/json_text.hpp"
#include "sim/base/number_format.hpp"
#include "sim/base/unit_parser.hpp"

namespace scoville::output {

namespace {

std::string si(double v, const std::string& unit) { return format_si(v, unit, 4); }

}  // namespace

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
      << (setup.software.name.empty() ? "none" : setup.software.name)
      << (setup.software.fused_vector_ops ? " (vector ops fused into their neighbours)" : "")
      << "\n\n";
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
  out << "{\"system\": \"" << json_escape(setup.system.name) << "\", \"chip\": \""
      << json_escape(setup.chip.name) << "\", \"model\": \"" << json_escape(setup.model.name())
      << "\", \"chips\": " << setup.mapping.chips << ", \"tp\": " << setup.mapping.degrees.tp
      << ", \"ep\": " << setup.mapping.degrees.ep << ", \"pp\": " << setup.mapping.degrees.pp
      << ", \"dp\": " << setup.mapping.degrees.dp
      << ", \"attn_dp\": " << setup.mapping.degrees.attn_dp << ", \"batch\": " << study.batch
      << ", \"isl\": " << study.isl << ", \"osl\": " << study.osl << ", \"kv_placement\": \""
      << json_escape(setup.options.kv_placement) << "\", \"routing\": \""
      << json_escape(workloads::to_spec(setup.options.routing)) << "\", \"software\": \""
      << json_escape(setup.software.name.empty() ? "none" : setup.software.name)
      << "\", \"phases\": [";
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

}  // namespace scoville::output
