#include "sim/config/config_files.hpp"

#include <yaml-cpp/yaml.h>

#include "models/chip/matrix_clocks.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/base/yaml_reader.hpp"
#include "sim/config/calibration_overlay.hpp"
#include "sim/config/chip_loader.hpp"
#include "sim/config/software_profile.hpp"
#include "sim/config/stack_calibration.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/study/study_config.hpp"
#include "workloads/model_loader.hpp"

namespace scoville::config {

std::string to_string(FileKind kind) {
  switch (kind) {
    case FileKind::kChip:
      return "chip";
    case FileKind::kEnergy:
      return "energy table";
    case FileKind::kStudy:
      return "study";
    case FileKind::kModel:
      return "model";
    case FileKind::kSystem:
      return "system";
    case FileKind::kCalibration:
      return "calibration overlay";
    case FileKind::kSoftware:
      return "software stack";
    case FileKind::kStackCalibration:
      return "stack calibration";
  }
  return "model";
}

FileKind detect_kind(const std::string& path) {
  const YAML::Node root = load_yaml_file(path);
  if (root.IsMap()) {
    if (root["chip"]) return FileKind::kChip;
    if (root["energy"]) return FileKind::kEnergy;
    if (root["study"]) return FileKind::kStudy;
    if (root["system"]) return FileKind::kSystem;
    if (root["layers"] || root["attention"]) return FileKind::kModel;
    if (root["calibration"]) return FileKind::kCalibration;
    if (root["software"]) return FileKind::kSoftware;
    if (root["stack_calibration"]) return FileKind::kStackCalibration;
  }
  throw InputError(location_of(root, path), "",
                   "not a Scoville file: expected a top-level 'chip:', 'energy:', 'study:', "
                   "'system:', 'calibration:', 'software:' or 'stack_calibration:' section, or a "
                   "model description (layers, attention, ffn, ...)");
}

FileKind check_file(const std::string& path) {
  const FileKind kind = detect_kind(path);
  switch (kind) {
    case FileKind::kChip:
      parse_chip(path);
      break;
    case FileKind::kEnergy:
      parse_energy(path);
      break;
    case FileKind::kStudy:
      study::parse_study_file(path);
      break;
    case FileKind::kModel:
      workloads::load_model(path);
      break;
    case FileKind::kSystem:
      parse_system(path);
      break;
    case FileKind::kSoftware:
      parse_software(path);
      break;
    case FileKind::kStackCalibration:
      parse_stack_calibration(path);
      break;
    case FileKind::kCalibration: {
      // Beside its system file (the usual name): check it the way runs read it, inherits:
      // followed; under any other name, the file alone.
      // <name>.calibration.yaml (roofline) or <name>.<fidelity>.calibration.yaml.
      auto ends_with = [&](const std::string& suffix) {
        return path.size() > suffix.size() &&
               path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
      };
      const std::string suffix = ".calibration.yaml";
      if (!ends_with(suffix)) {
        parse_overlay(path);
        break;
      }
      std::string fidelity = "roofline";
      std::string stem = path.substr(0, path.size() - suffix.size());
      const std::string op_table = ".op-table";
      if (ends_with(op_table + suffix)) {
        fidelity = "op-table";
        stem.resize(stem.size() - op_table.size());
      }
      find_overlay(stem + ".yaml", fidelity);
      break;
    }
  }
  return kind;
}

namespace {

std::string si(double value, const std::string& unit) { return format_si(value, unit, 6); }

std::string dump_chip(const models::ChipParams& p, const std::string& energy, int digits = 6,
                      bool with_active_power = true) {
  const auto si = [digits](double value, const std::string& unit) {
    return format_si(value, unit, digits);
  };
  YAML::Emitter o;
  o << YAML::BeginMap << YAML::Key << "chip" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "name" << YAML::Value << p.name;
  o << YAML::Key << "description" << YAML::Value << p.description;
  o << YAML::Key << "tiles" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "count" << YAML::Value << p.tiles.count;
  o << YAML::Key << "clock" << YAML::Value << si(p.tiles.clock.si(), "Hz");
  o << YAML::Key << "matrix_engine" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "rows" << YAML::Value << p.tiles.matrix.rows;
  o << YAML::Key << "cols" << YAML::Value << p.tiles.matrix.cols;
  o << YAML::Key << "k_per_cycle" << YAML::Value << YAML::BeginMap;
  for (MathPrecision m : {MathPrecision::kBf16, MathPrecision::kFp8, MathPrecision::kFp4}) {
    if (p.tiles.matrix.supports(m)) {
      o << YAML::Key << to_string(m) << YAML::Value
        << p.tiles.matrix.k_per_cycle[models::index_of(m)];
    }
  }
  o << YAML::EndMap;
  o << YAML::Key << "pipeline_latency_cycles" << YAML::Value
    << p.tiles.matrix.pipeline_latency_cycles;
  if (p.tiles.matrix.sustained_clock.si() > 0) {
    o << YAML::Key << "sustained_clock" << YAML::Value
      << si(p.tiles.matrix.sustained_clock.si(), "Hz");
    o << YAML::Key << "sustained_clock_precision" << YAML::Value
      << to_string(p.tiles.matrix.sustained_clock_precision);
  }
  o << YAML::EndMap;
  if (p.tiles.library_tile.present()) {
    o << YAML::Key << "library_tile" << YAML::Value << YAML::BeginMap << YAML::Key << "rows"
      << YAML::Value << p.tiles.library_tile.rows << YAML::Key << "cols" << YAML::Value
      << p.tiles.library_tile.cols;
    const auto optional = [&](const char* key, int64_t v) {
      if (v > 0) o << YAML::Key << key << YAML::Value << v;
    };
    optional("min_rows", p.tiles.library_tile.min_rows);
    optional("min_cols", p.tiles.library_tile.min_cols);
    optional("max_split_k", p.tiles.library_tile.max_split_k);
    o << YAML::EndMap;
  }
  o << YAML::Key << "vector_unit" << YAML::Value << YAML::BeginMap << YAML::Key << "flops_per_cycle"
    << YAML::Value << p.tiles.vector.flops_per_cycle << YAML::EndMap;
  o << YAML::Key << "sram" << YAML::Value << si(p.tiles.sram.si(), "B");
  o << YAML::Key << "sram_bandwidth" << YAML::Value << si(p.tiles.sram_bandwidth.si(), "B/s");
  o << YAML::Key << "prefetch_next_op" << YAML::Value << p.tiles.prefetch_next_op;
  o << YAML::EndMap;
  o << YAML::Key << "shared_sram" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "capacity" << YAML::Value << si(p.shared_sram.capacity.si(), "B");
  o << YAML::Key << "bandwidth" << YAML::Value << si(p.shared_sram.bandwidth.si(), "B/s");
  o << YAML::Key << "banks" << YAML::Value << p.shared_sram.banks << YAML::EndMap;
  o << YAML::Key << "noc" << YAML::Value << YAML::BeginMap << YAML::Key << "latency" << YAML::Value
    << si(p.noc.latency.si(), "s");
  if (p.noc.topology == models::NocTopology::kMesh) {
    o << YAML::Key << "topology" << YAML::Value << "mesh";
    o << YAML::Key << "cols" << YAML::Value << p.noc.cols;
    o << YAML::Key << "rows" << YAML::Value << p.noc.rows;
    o << YAML::Key << "link_bandwidth" << YAML::Value << si(p.noc.link_bandwidth.si(), "B/s");
    o << YAML::Key << "hop_latency" << YAML::Value << si(p.noc.hop_latency.si(), "s");
  }
  o << YAML::EndMap;
  o << YAML::Key << "hbm" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "stacks" << YAML::Value << p.hbm.stacks;
  o << YAML::Key << "channels_per_stack" << YAML::Value << p.hbm.channels_per_stack;
  o << YAML::Key << "bandwidth_per_channel" << YAML::Value
    << si(p.hbm.bandwidth_per_channel.si(), "B/s");
  o << YAML::Key << "capacity" << YAML::Value << si(p.hbm.capacity.si(), "B");
  o << YAML::Key << "latency" << YAML::Value << si(p.hbm.latency.si(), "s");
  o << YAML::Key << "interleave_granule" << YAML::Value << si(p.hbm.interleave_granule.si(), "B");
  const models::HbmTimingParams& t = p.hbm.timing;
  o << YAML::Key << "timing" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "pseudo_channels" << YAML::Value << t.pseudo_channels;
  o << YAML::Key << "bank_groups" << YAML::Value << t.bank_groups;
  o << YAML::Key << "banks_per_group" << YAML::Value << t.banks_per_group;
  o << YAML::Key << "row_bytes" << YAML::Value << si(t.row_bytes.si(), "B");
  o << YAML::Key << "burst_bytes" << YAML::Value << si(t.burst_bytes.si(), "B");
  const std::pair<const char*, Duration> times[] = {
      {"t_rcd", t.t_rcd}, {"t_rp", t.t_rp},     {"t_ras", t.t_ras}, {"t_ccd_l", t.t_ccd_l},
      {"t_rrd", t.t_rrd}, {"t_faw", t.t_faw},   {"t_wr", t.t_wr},   {"t_wtr", t.t_wtr},
      {"t_rtw", t.t_rtw}, {"t_refi", t.t_refi}, {"t_rfc", t.t_rfc}};
  for (const auto& [key, value] : times)
    o << YAML::Key << key << YAML::Value << si(value.si(), "s");
  o << YAML::EndMap;
  o << YAML::EndMap;
  o << YAML::Key << "ports" << YAML::Value << YAML::BeginMap << YAML::Key << "count" << YAML::Value
    << p.ports.count << YAML::Key << "bandwidth_per_port" << YAML::Value
    << si(p.ports.bandwidth_per_port.si(), "B/s") << YAML::EndMap;
  o << YAML::Key << "power" << YAML::Value << YAML::BeginMap << YAML::Key << "tdp" << YAML::Value
    << si(p.power.tdp.si(), "W") << YAML::Key << "static" << YAML::Value
    << si(p.power.static_power.si(), "W");
  if (with_active_power && p.power.active_power.si() > 0)
    o << YAML::Key << "active" << YAML::Value << si(p.power.active_power.si(), "W");
  o << YAML::EndMap;
  if (p.power.management.present) {
    const models::PowerManagementParams& pm = p.power.management;
    o << YAML::Key << "power_management" << YAML::Value << YAML::BeginMap;
    o << YAML::Key << "points" << YAML::Value << YAML::BeginSeq;
    for (const models::OperatingPoint& point : pm.points) {
      o << YAML::Flow << YAML::BeginMap << YAML::Key << "frequency" << YAML::Value
        << si(point.frequency.si(), "Hz") << YAML::Key << "voltage" << YAML::Value
        << si(point.voltage.si(), "V") << YAML::EndMap;
    }
    o << YAML::EndSeq;
    o << YAML::Key << "frequency_step" << YAML::Value << si(pm.frequency_step.si(), "Hz");
    o << YAML::Key << "time_constant" << YAML::Value << si(pm.time_constant.si(), "s");
    o << YAML::Key << "cap" << YAML::Value << si(pm.cap.si(), "W");
    if (pm.hysteresis > 0) o << YAML::Key << "hysteresis" << YAML::Value << pm.hysteresis;
    if (pm.gating.enabled || !pm.gating.phases.empty()) {
      const models::GatingParams& g = pm.gating;
      o << YAML::Key << "gating" << YAML::Value << YAML::BeginMap;
      o << YAML::Key << "enabled" << YAML::Value << g.enabled;
      o << YAML::Key << "phases" << YAML::Value << YAML::Flow << g.phases;
      // Shortest text that reads back as the same double.
      o.SetDoublePrecision(15);
      o << YAML::Key << "matrix_static_share" << YAML::Value << g.matrix_static_share;
      o << YAML::Key << "residual" << YAML::Value << g.residual;
      o << YAML::Key << "wake_latency" << YAML::Value << si(g.wake_latency.si(), "s");
      o << YAML::Key << "wake_energy" << YAML::Value << si(g.wake_energy.si(), "J");
      o << YAML::EndMap;
    }
    o << YAML::EndMap;
  }
  o << YAML::Key << "energy" << YAML::Value << energy;
  o << YAML::EndMap;
  // Derived figures, for the reader (not read back).
  o << YAML::Key << "derived" << YAML::Value << YAML::BeginMap;
  for (MathPrecision m : {MathPrecision::kBf16, MathPrecision::kFp8, MathPrecision::kFp4}) {
    if (p.tiles.matrix.supports(m)) {
      o << YAML::Key << "peak_" + to_string(m) << YAML::Value
        << si(p.peak_flop_rate(m).si(), "FLOP/s");
    }
  }
  o << YAML::Key << "peak_hbm_bandwidth" << YAML::Value << si(p.hbm.peak_bandwidth().si(), "B/s");
  o << YAML::EndMap << YAML::EndMap;
  return std::string(o.c_str()) + "\n";
}

}  // namespace

std::string chip_fingerprint(const models::ChipParams& chip) {
  // Every field that can time an op, at full precision: two chips that differ in one differ here.
  // The active power is not one: it prices energy only, which is priced from the cached action
  // counts afterwards, so a what-if on it reuses the cache (no op runs on part of the chip at a
  // higher clock: models/chip/matrix_clocks.hpp). The clocks derived from the energy table
  // (resolve_matrix_clocks) are not keys of a chip file, but they time every matmul: an energy
  // table's edit must not reuse cached ops unless the clocks stay.
  std::string out = dump_chip(chip, chip.energy.name, 17, false);
  for (MathPrecision m : {MathPrecision::kBf16, MathPrecision::kFp8, MathPrecision::kFp4}) {
    out += "# matrix clock " + to_string(m) + ": " +
           format_si(chip.tiles.matrix_clock(m).si(), "Hz", 17) + "\n";
  }
  return out;
}

namespace {

std::string dump_energy(const models::EnergyTable& t) {
  YAML::Emitter o;
  o << YAML::BeginMap << YAML::Key << "energy" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "name" << YAML::Value << t.name;
  o << YAML::Key << "mac" << YAML::Value << YAML::BeginMap;
  for (MathPrecision m : {MathPrecision::kBf16, MathPrecision::kFp8, MathPrecision::kFp4}) {
    o << YAML::Key << to_string(m) << YAML::Value << si(t.per_mac[models::index_of(m)].si(), "J");
  }
  o << YAML::EndMap;
  o << YAML::Key << "vector_flop" << YAML::Value << si(t.per_vector_flop.si(), "J");
  o << YAML::Key << "tile_sram" << YAML::Value << si(t.tile_sram.si(), "J/bit");
  o << YAML::Key << "shared_sram" << YAML::Value << si(t.shared_sram.si(), "J/bit");
  o << YAML::Key << "noc" << YAML::Value << si(t.noc.si(), "J/bit");
  o << YAML::Key << "hbm" << YAML::Value << si(t.hbm.si(), "J/bit");
  if (t.hbm_phy.si() > 0) o << YAML::Key << "hbm_phy" << YAML::Value << si(t.hbm_phy.si(), "J/bit");
  if (t.hbm_cache.si() > 0)
    o << YAML::Key << "hbm_cache" << YAML::Value << si(t.hbm_cache.si(), "J/bit");
  o << YAML::Key << "link" << YAML::Value << si(t.link.si(), "J/bit");
  o << YAML::EndMap << YAML::EndMap;
  return std::string(o.c_str()) + "\n";
}

std::string dump_model(const workloads::ModelConfig& m) {
  YAML::Emitter o;
  const workloads::AttentionConfig& a = m.attention();
  const workloads::FfnConfig& f = m.ffn();
  const workloads::PrecisionConfig& p = m.precision();
  o << YAML::BeginMap;
  o << YAML::Key << "name" << YAML::Value << m.name();
  o << YAML::Key << "layers" << YAML::Value << m.layers();
  o << YAML::Key << "hidden_size" << YAML::Value << m.hidden_size();
  o << YAML::Key << "vocab_size" << YAML::Value << m.vocab_size();
  o << YAML::Key << "tied_embeddings" << YAML::Value << m.tied_embeddings();
  o << YAML::Key << "max_context" << YAML::Value << m.max_context();
  o << YAML::Key << "attention" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "type" << YAML::Value << workloads::to_string(a.type);
  o << YAML::Key << "heads" << YAML::Value << a.heads;
  o << YAML::Key << "kv_heads" << YAML::Value << a.kv_heads;
  o << YAML::Key << "head_dim" << YAML::Value << a.head_dim;
  o << YAML::Key << "bias" << YAML::Value << a.bias;
  o << YAML::Key << "sinks" << YAML::Value << a.sinks;
  o << YAML::Key << "sliding_window" << YAML::Value << a.sliding_window;
  if (a.type == workloads::AttentionType::kMla) {
    o << YAML::Key << "q_lora_rank" << YAML::Value << a.q_lora_rank;
    o << YAML::Key << "kv_lora_rank" << YAML::Value << a.kv_lora_rank;
    o << YAML::Key << "qk_nope_head_dim" << YAML::Value << a.qk_nope_head_dim;
    o << YAML::Key << "qk_rope_head_dim" << YAML::Value << a.qk_rope_head_dim;
    o << YAML::Key << "v_head_dim" << YAML::Value << a.v_head_dim;
  }
  // Newer architectures' fields, only where the model uses them (older dumps stay as they were).
  if (a.attention_chunk > 0)
    o << YAML::Key << "attention_chunk" << YAML::Value << a.attention_chunk;
  if (a.output_gate) o << YAML::Key << "output_gate" << YAML::Value << a.output_gate;
  if (a.has_indexer()) {
    o << YAML::Key << "index_heads" << YAML::Value << a.index_heads;
    o << YAML::Key << "index_head_dim" << YAML::Value << a.index_head_dim;
    o << YAML::Key << "index_topk" << YAML::Value << a.index_topk;
  }
  if (m.linear_layers() > 0) {
    o << YAML::Key << "linear_layers" << YAML::Value << m.linear_layers();
    o << YAML::Key << "linear_key_heads" << YAML::Value << a.linear_key_heads;
    o << YAML::Key << "linear_value_heads" << YAML::Value << a.linear_value_heads;
    o << YAML::Key << "linear_key_head_dim" << YAML::Value << a.linear_key_head_dim;
    o << YAML::Key << "linear_value_head_dim" << YAML::Value << a.linear_value_head_dim;
    o << YAML::Key << "linear_conv_kernel" << YAML::Value << a.linear_conv_kernel;
  }
  o << YAML::EndMap;
  o << YAML::Key << "ffn" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "type" << YAML::Value << workloads::to_string(f.type);
  o << YAML::Key << "intermediate_size" << YAML::Value << f.intermediate_size;
  o << YAML::Key << "bias" << YAML::Value << f.bias;
  if (f.type == workloads::FfnType::kMoe) {
    o << YAML::Key << "experts" << YAML::Value << f.experts;
    o << YAML::Key << "top_k" << YAML::Value << f.top_k;
    o << YAML::Key << "expert_intermediate_size" << YAML::Value << f.expert_intermediate_size;
    o << YAML::Key << "shared_experts" << YAML::Value << f.shared_experts;
    o << YAML::Key << "first_dense_layers" << YAML::Value << f.first_dense_layers;
    o << YAML::Key << "router_bias" << YAML::Value << f.router_bias;
    if (f.moe_layer_step > 1) o << YAML::Key << "moe_layer_step" << YAML::Value << f.moe_layer_step;
  }
  o << YAML::EndMap;
  o << YAML::Key << "precision" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "weights" << YAML::Value << to_string(p.weights);
  o << YAML::Key << "experts" << YAML::Value << to_string(p.experts);
  o << YAML::Key << "embeddings" << YAML::Value << to_string(p.embeddings);
  o << YAML::Key << "activations" << YAML::Value << to_string(p.activations);
  o << YAML::Key << "kv_cache" << YAML::Value << to_string(p.kv_cache);
  if (p.mlp) o << YAML::Key << "mlp" << YAML::Value << to_string(*p.mlp);
  if (p.mlp_activations) {
    o << YAML::Key << "mlp_activations" << YAML::Value << to_string(*p.mlp_activations);
  }
  o << YAML::Key << "residual" << YAML::Value << to_string(p.residual);
  o << YAML::EndMap;
  o << YAML::Key << "derived" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "total_parameters" << YAML::Value << m.total_parameters();
  o << YAML::Key << "active_parameters_per_token" << YAML::Value << m.active_parameters_per_token();
  o << YAML::Key << "weight_bytes" << YAML::Value << si(m.weight_bytes().si(), "B");
  o << YAML::Key << "kv_bytes_per_token" << YAML::Value << si(m.kv_bytes_per_token().si(), "B");
  if (m.linear_layers() > 0) {
    o << YAML::Key << "state_bytes_per_sequence" << YAML::Value
      << si(m.state_bytes_per_sequence().si(), "B");
  }
  o << YAML::EndMap << YAML::EndMap;
  return std::string(o.c_str()) + "\n";
}

// Every field as read, optional ones with their defaults resolved.
std::string dump_software(const SoftwareProfile& s) {
  YAML::Emitter o;
  o << YAML::BeginMap << YAML::Key << "software" << YAML::Value << YAML::BeginMap;
  o << YAML::Key << "name" << YAML::Value << s.name;
  o << YAML::Key << "description" << YAML::Value << s.description;
  const std::pair<const char*, Duration> times[] = {
      {"per_op_launch", s.per_op_launch},    {"per_layer_sync", s.per_layer_sync},
      {"per_iteration", s.per_iteration},    {"per_collective", s.per_collective},
      {"per_all_to_all", s.per_all_to_all},  {"per_sequence", s.per_sequence},
      {"per_kv_transfer", s.per_kv_transfer}};
  for (const auto& [key, value] : times) {
    o << YAML::Key << key << YAML::Value << si(value.si(), "s");
  }
  o << YAML::Key << "fused_vector_ops" << YAML::Value << s.fused_vector_ops;
  o << YAML::Key << "top_p_sampler" << YAML::Value
    << (s.top_p_sorts_vocabulary ? "full-sort" : "single-pass");
  o << YAML::Key << "disaggregated_kv" << YAML::Value
    << (s.disaggregated_kv_whole_context ? "whole-context" : "windowed");
  o << YAML::EndMap << YAML::EndMap;
  return std::string(o.c_str()) + "\n";
}

}  // namespace

std::string dump_file(const std::string& path) {
  switch (detect_kind(path)) {
    case FileKind::kChip: {
      const ChipSpec spec = parse_chip(path);
      return dump_chip(spec.params, spec.energy_table);
    }
    case FileKind::kEnergy:
      return dump_energy(parse_energy(path));
    case FileKind::kStudy:
      return study::to_yaml(study::parse_study_file(path));
    case FileKind::kModel:
      return dump_model(workloads::load_model(path));
    case FileKind::kSystem:
      return dump_system(parse_system(path));
    case FileKind::kCalibration:
      return overlay_yaml(parse_overlay(path));
    case FileKind::kSoftware:
      return dump_software(parse_software(path));
    case FileKind::kStackCalibration:
      return stack_calibration_yaml(parse_stack_calibration(path));
  }
  return "";
}

}  // namespace scoville::config
