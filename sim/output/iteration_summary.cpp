#include "sim/output/iteration_summary.hpp"

#include <iomanip>

#include "sim/base/json_text.hpp"
#include "sim/base/unit_parser.hpp"
#include "workloads/mapping/trace_summary.hpp"

namespace scoville::output {

namespace {

std::string si(double v, const char* unit) { return format_si(v, unit, 4); }

std::string layer_name(int layer) { return layer < 0 ? "other" : std::to_string(layer); }

std::string json_totals(const workloads::WorkTotals& t) {
  return "{\"flops\": " + json_number(t.flops.si()) +
         ", \"weight_bytes\": " + json_number(t.weight_bytes.si()) +
         ", \"kv_bytes\": " + json_number(t.kv_bytes.si()) +
         ", \"collective_bytes\": " + json_number(t.collective_bytes.si()) + "}";
}

void text_row(std::ostream& out, const std::string& label, const workloads::WorkTotals& t) {
  out << "  " << std::left << std::setw(8) << label << std::right << std::setw(14)
      << si(t.flops.si(), "FLOP") << std::setw(14) << si(t.weight_bytes.si(), "B") << std::setw(14)
      << si(t.kv_bytes.si(), "B") << std::setw(14) << si(t.collective_bytes.si(), "B") << "\n";
}

}  // namespace

void render_iteration_text(std::ostream& out, const workloads::ModelConfig& model,
                           const workloads::MappedIteration& mapped,
                           const std::vector<workloads::MemoryFootprint>& memory, bool have_hbm) {
  const workloads::ParallelDegrees& d = mapped.mapping.degrees;
  out << model.name() << ", " << to_string(mapped.shape.phase) << ", batch " << mapped.shape.batch
      << ", context " << mapped.shape.context << " on " << mapped.mapping.chips << " chips (tp "
      << d.tp << ", ep " << d.ep << ", pp " << d.pp << ", dp " << d.dp << ", attn_dp " << d.attn_dp
      << (d.sequence_parallel ? ", sequence parallel" : "") << ")\n";
  workloads::WorkTotals pool;
  for (size_t i = 0; i < mapped.roles.size(); ++i) {
    const workloads::ChipTrace& t = mapped.roles[i].trace;
    out << "\nrole " << t.role << ": " << t.multiplicity << " chip(s), first rank " << t.rank
        << "; per chip:\n"
        << "  layer             FLOPs   weights read      KV bytes   collectives\n";
    for (const auto& [layer, totals] : workloads::per_layer_totals(t)) {
      text_row(out, layer_name(layer), totals);
    }
    const workloads::WorkTotals chip = workloads::totals(t);
    text_row(out, "total", chip);
    pool += chip * static_cast<double>(t.multiplicity);
    const workloads::MemoryFootprint& m = memory[i];
    out << "  memory per chip: weights " << si(m.weights.si(), "B") << ", KV cache "
        << si(m.kv_cache.si(), "B") << ", activations " << si(m.activations.si(), "B");
    if (have_hbm) {
      out << "; of " << si(m.hbm.si(), "B") << " HBM, " << si(m.kv_capacity.si(), "B")
          << " left for KV (" << m.kv_capacity_sequences << " sequences of context "
          << mapped.shape.context << "; " << m.kv_capacity_tokens << " tokens in every KV layer)";
    }
    out << "\n";
  }
  out << "\nwhole model, all chips:\n";
  text_row(out, "total", pool);
}

void render_iteration_json(std::ostream& out, const workloads::ModelConfig& model,
                           const workloads::MappedIteration& mapped,
                           const std::vector<workloads::MemoryFootprint>& memory, bool have_hbm) {
  const workloads::ParallelDegrees& d = mapped.mapping.degrees;
  out << "{\n  \"model\": \"" << json_escape(model.name()) << "\",\n  \"phase\": \""
      << to_string(mapped.shape.phase) << "\",\n  \"batch\": " << mapped.shape.batch
      << ",\n  \"context\": " << mapped.shape.context << ",\n  \"chips\": " << mapped.mapping.chips
      << ",\n  \"degrees\": {\"tp\": " << d.tp << ", \"ep\": " << d.ep << ", \"pp\": " << d.pp
      << ", \"dp\": " << d.dp << ", \"attn_dp\": " << d.attn_dp
      << ", \"sequence_parallel\": " << (d.sequence_parallel ? "true" : "false")
      << "},\n  \"roles\": [";
  workloads::WorkTotals pool;
  for (size_t i = 0; i < mapped.roles.size(); ++i) {
    const workloads::ChipTrace& t = mapped.roles[i].trace;
    out << (i ? "," : "") << "\n    {\"role\": \"" << json_escape(t.role)
        << "\", \"multiplicity\": " << t.multiplicity << ", \"first_rank\": " << t.rank
        << ",\n     \"layers\": [";
    bool first = true;
    for (const auto& [layer, totals] : workloads::per_layer_totals(t)) {
      out << (first ? "" : ",") << "\n       {\"layer\": \"" << layer_name(layer)
          << "\", \"per_chip\": " << json_totals(totals) << "}";
      first = false;
    }
    const workloads::WorkTotals chip = workloads::totals(t);
    pool += chip * static_cast<double>(t.multiplicity);
    const workloads::MemoryFootprint& m = memory[i];
    out << "],\n     \"per_chip\": " << json_totals(chip)
        << ",\n     \"memory_per_chip\": {\"weights_bytes\": " << json_number(m.weights.si())
        << ", \"kv_cache_bytes\": " << json_number(m.kv_cache.si())
        << ", \"activation_bytes\": " << json_number(m.activations.si());
    if (have_hbm) {
      out << ", \"hbm_bytes\": " << json_number(m.hbm.si())
          << ", \"kv_capacity_bytes\": " << json_number(m.kv_capacity.si())
          << ", \"kv_capacity_tokens\": " << m.kv_capacity_tokens
          << ", \"kv_bytes_per_sequence\": " << json_number(m.kv_bytes_per_sequence.si())
          << ", \"kv_capacity_sequences\": " << m.kv_capacity_sequences;
    }
    out << "}}";
  }
  out << "\n  ],\n  \"whole_model\": " << json_totals(pool) << "\n}\n";
}

}  // namespace scoville::output
