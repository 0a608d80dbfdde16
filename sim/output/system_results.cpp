#include "sim/output/system_results.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <tuple>

#include "sim/base/yaml_reader.hpp"

namespace scoville::output {

namespace {

constexpr int64_t kSchemaVersion = 1;

const engine::SystemPhaseResult* phase_named(const engine::SystemStudyResult& r,
                                             const std::string& name) {
  for (const engine::SystemPhaseResult& p : r.phases) {
    if (p.phase == name) return &p;
  }
  return nullptr;
}

double ratio(double a, double b) { return b > 0 ? a / b : std::nan(""); }

// One row: the configuration that varies between points and the metrics a sweep compares.
// Names shared with the single-chip /summary (chip, model, request_time_s, ...) mean the same.
Table summary_table(const engine::SystemSetup& setup, const engine::SystemStudyConfig& study,
                    const engine::SystemStudyResult& r, const SystemRunRecord& record) {
  const engine::SystemPhaseResult* prefill = phase_named(r, "prefill");
  const engine::SystemPhaseResult* decode = phase_named(r, "decode");
  const double prefill_s = prefill ? prefill->total.time.si() : 0;
  const double decode_s = decode ? decode->total.time.si() : 0;
  double energy = 0, kv_bytes = 0, kv_s = 0;
  for (const engine::SystemPhaseResult& p : r.phases) {
    energy += p.total.energy.si();
    kv_bytes += p.total.kv_transfer_bytes.si();
    kv_s += p.total.kv_transfer_time.si();
  }
  const double out_tokens = decode ? static_cast<double>(decode->tokens) : 0;
  const double chips = static_cast<double>(setup.mapping.chips);
  const auto& d = setup.mapping.degrees;
  auto text = [](const std::string& v) { return std::vector<std::string>{v}; };
  auto real = [](double v) { return std::vector<double>{v}; };
  auto count = [](int64_t v) { return std::vector<int64_t>{v}; };
  return Table{
      "/summary",
      {{"system", "", text(setup.system.name)},
       {"chip", "", text(setup.chip.name)},
       {"model", "", text(setup.model.name())},
       {"kv_placement", "", text(setup.options.kv_placement)},
       {"software", "", text(setup.software.name.empty() ? "none" : setup.software.name)},
       {"fidelity", "", text(record.fidelity)},
       {"overlap", "", text(record.overlap)},
       {"chips", "1", count(setup.mapping.chips)},
       {"tp", "1", count(d.tp)},
       {"ep", "1", count(d.ep)},
       {"pp", "1", count(d.pp)},
       {"dp", "1", count(d.dp)},
       {"attn_dp", "1", count(d.attn_dp)},
       {"batch", "1", count(study.batch)},
       {"isl", "1", count(study.isl)},
       {"osl", "1", count(study.osl)},
       {"request_time_s", "s", real(prefill_s + decode_s)},
       {"prefill_time_s", "s", real(prefill_s)},
       {"decode_time_s", "s", real(decode_s)},
       {"prefill_tokens_per_s", "1/s",
        real(prefill ? ratio(static_cast<double>(prefill->tokens), prefill_s) : std::nan(""))},
       {"decode_tokens_per_s", "1/s", real(ratio(out_tokens, decode_s))},
       {"decode_tokens_per_s_per_chip", "1/s", real(ratio(out_tokens, decode_s) / chips)},
       {"energy_J", "J", real(energy)},
       {"energy_per_output_token_J", "J", real(ratio(energy, out_tokens))},
       {"kv_transfer_time_s", "s", real(kv_s)},
       {"kv_transfer_bytes", "B", real(kv_bytes)}},
      {{"description", std::string("one row: the system run's configuration and key metrics")}}};
}

Table phases_table(const engine::SystemStudyResult& r) {
  std::vector<std::string> phase;
  std::vector<int64_t> tokens, iterations, simulated, collectives;
  std::vector<double> time, hardware, software, energy, per_token, tps, flops, hbm, network, kv;
  for (const engine::SystemPhaseResult& p : r.phases) {
    const engine::SystemIterationResult& t = p.total;
    phase.push_back(p.phase);
    tokens.push_back(p.tokens);
    iterations.push_back(p.iterations);
    time.push_back(t.time.si());
    hardware.push_back(t.hardware_time.si());
    software.push_back(t.software_time.si());
    energy.push_back(t.energy.si());
    per_token.push_back(ratio(t.energy.si(), static_cast<double>(p.tokens)));
    tps.push_back(ratio(static_cast<double>(p.tokens), t.time.si()));
    flops.push_back(t.flops.si());
    hbm.push_back(t.hbm_bytes.si());
    network.push_back(t.network_bytes.si());
    kv.push_back(t.kv_transfer_bytes.si());
    simulated.push_back(t.simulated_chips);
    collectives.push_back(t.collectives);
  }
  return Table{"/phases",
               {{"phase", "", phase},
                {"tokens", "1", tokens},
                {"iterations", "1", iterations},
                {"time_s", "s", time},
                {"hardware_time_s", "s", hardware},
                {"software_time_s", "s", software},
                {"tokens_per_s", "1/s", tps},
                {"energy_J", "J", energy},
                {"energy_per_token_J", "J", per_token},
                {"flops", "FLOP", flops},
                {"hbm_bytes", "B", hbm},
                {"network_bytes", "B", network},
                {"kv_transfer_bytes", "B", kv},
                {"simulated_chips", "1", simulated},
                {"collectives", "1", collectives}},
               {{"description", std::string("one row per phase (all sequences, all iterations)")}}};
}

// Time parts are those of the slowest role (they add up to hardware_time with overlap none;
// software is the profile's time); energy parts add up to the phase energy. A component without
// a time (static) or an energy (software) has NaN there.
Table components_table(const engine::SystemStudyResult& r) {
  std::vector<std::string> phase, component;
  std::vector<double> time, energy;
  const double nan = std::nan("");
  for (const engine::SystemPhaseResult& p : r.phases) {
    const engine::SystemIterationResult& t = p.total;
    const std::tuple<const char*, double, double> parts[] = {
        {"compute", t.compute_time.si(), t.compute_energy.si()},
        {"hbm", t.hbm_time.si(), t.hbm_energy.si()},
        {"local_network", t.local_network_time.si(), t.local_network_energy.si()},
        {"scale_out", t.scale_out_time.si(), t.scale_out_energy.si()},
        {"kv_transfer", t.kv_transfer_time.si(), t.kv_transfer_energy.si()},
        {"software", t.software_time.si(), nan},
        {"static", nan, t.static_energy.si()}};
    for (const auto& [name, s, j] : parts) {
      phase.push_back(p.phase);
      component.push_back(name);
      time.push_back(s);
      energy.push_back(j);
    }
  }
  return Table{"/components",
               {{"phase", "", phase},
                {"component", "", component},
                {"time_s", "s", time},
                {"energy_J", "J", energy}},
               {{"description", std::string("one row per phase x component")}}};
}

}  // namespace

H5Document build_system_h5(const engine::SystemSetup& setup, const engine::SystemStudyConfig& study,
                           const engine::SystemStudyResult& result, const Provenance& p,
                           const SystemRunRecord& record) {
  H5Document doc;
  doc.root_attributes = {{"schema", std::string("scoville.results")},
                         {"schema_version", int64_t{kSchemaVersion}},
                         {"file_kind", std::string("system")},
                         {"tool_version", p.tool_version},
                         {"git_sha", p.git_sha},
                         {"seed", static_cast<int64_t>(p.seed)},
                         {"command_line", p.command_line},
                         {"created_utc", p.created_utc},
                         {"system", setup.system.name},
                         {"chip", setup.chip.name},
                         {"model", setup.model.name()},
                         {"kv_placement", setup.options.kv_placement},
                         {"software", setup.software.name.empty() ? "none" : setup.software.name},
                         {"fidelity", record.fidelity}};
  doc.strings.push_back({"/config/study_yaml", record.study_yaml});
  doc.strings.push_back({"/config/resolved_yaml", record.resolved_yaml});
  std::vector<std::string> seen;
  for (const std::string& file : record.inputs) {
    const std::string name = std::filesystem::path(file).filename().string();
    // Two inputs of one name (a chip and a system both called h200.yaml) keep the first.
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
    seen.push_back(name);
    doc.strings.push_back({"/config/inputs/" + name, read_text_file(file)});
  }
  doc.tables = {summary_table(setup, study, result, record), phases_table(result),
                components_table(result)};
  return doc;
}

}  // namespace scoville::output
