#include "sim/engine/simulated_op_cost.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <utility>

#include <systemc>

#include "models/chip/chip_module.hpp"
#include "models/chip/run_simulation.hpp"
#include "models/compute/tiling_policy.hpp"
#include "sim/base/byte_key.hpp"
#include "sim/base/error.hpp"
#include "sim/config/config_files.hpp"
#include "sim/engine/lowering.hpp"
#include "sim/engine/op_cache_store.hpp"
#include "sim/engine/op_model_version.hpp"
#include "sim/stats/op_accounting.hpp"

namespace scoville::engine {

namespace {

OpSimulatedListener& op_simulated_listener() {
  static OpSimulatedListener listener;
  return listener;
}

void notify_op_simulated(const std::string& chip, const std::string& op) {
  static int64_t simulated = 0;  // ops of this process, for the listener's count
  ++simulated;
  if (op_simulated_listener()) op_simulated_listener()(chip, op, simulated);
}

// `bits` + 1 significant bits: relative error at most 2^-(bits + 2).
double bucket_real(double v, int bits) {
  if (!(v > 0)) return v;
  int exponent = 0;
  const double mantissa = std::frexp(v, &exponent);  // [0.5, 1)
  const double steps = std::ldexp(1.0, bits + 1);
  return std::ldexp(std::round(mantissa * steps) / steps, exponent);
}

// The nearest bucket edge: exact below 2^bits, else the nearest multiple of
// 2^(floor(log2 v) - bits). Edges, not centres: sizes a workload favours (powers of two, multiples
// of a tile) are edges themselves, so they are simulated as they are and never priced through a
// neighbour that splits into tiles differently.
int64_t bucket_edge(int64_t v, int bits) {
  if (v < (int64_t{1} << bits)) return v;
  int log2 = 0;
  while ((v >> (log2 + 1)) != 0) ++log2;
  const int64_t width = int64_t{1} << (log2 - bits);
  return (v + width / 2) / width * width;
}

}  // namespace

std::string work_text_key(const models::WorkDescriptor& w) {
  std::ostringstream k;
  k.precision(17);
  k << static_cast<int>(w.work_class) << ' ' << w.m << ' ' << w.n << ' ' << w.k << ' '
    << w.instances << ' ' << static_cast<int>(w.math) << ' ' << w.flops.si() << ' '
    << w.stream_bytes.si() << ' ' << w.hbm_write_bytes.si() << ' ' << w.activation_in_bytes.si()
    << ' ' << w.activation_out_bytes.si() << ' ' << static_cast<int>(w.hbm_pattern.access) << ' '
    << w.hbm_pattern.request_bytes << ' ' << w.hbm_pattern.stride_bytes << ' '
    << w.hbm_pattern.span_bytes;
  return k.str();
}

namespace {

// The same fields as raw bytes: an exact key that costs no number formatting (the text form is
// made only for the disk).
std::string binary_key(const models::WorkDescriptor& w) {
  return byte_key({static_cast<int64_t>(w.work_class), w.m, w.n, w.k, w.instances,
                   static_cast<int64_t>(w.math), static_cast<int64_t>(w.hbm_pattern.access),
                   static_cast<int64_t>(w.hbm_pattern.request_bytes),
                   static_cast<int64_t>(w.hbm_pattern.stride_bytes),
                   static_cast<int64_t>(w.hbm_pattern.span_bytes)},
                  {w.flops.si(), w.stream_bytes.si(), w.hbm_write_bytes.si(),
                   w.activation_in_bytes.si(), w.activation_out_bytes.si()});
}

// Exact text of a double (hexadecimal floating point round-trips every bit).
std::string exact(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%a", v);
  return buffer;
}

std::optional<SimulatedOp> parse_entry(const std::string& text) {
  SimulatedOp op;
  std::istringstream in(text);
  std::string elapsed, compute;
  if (!(in >> elapsed >> compute)) return std::nullopt;
  char* end = nullptr;
  op.elapsed_s = std::strtod(elapsed.c_str(), &end);
  if (end == elapsed.c_str() || *end != '\0') return std::nullopt;
  op.compute_s = std::strtod(compute.c_str(), &end);
  if (end == compute.c_str() || *end != '\0') return std::nullopt;
  if (!(op.elapsed_s >= 0) || !(op.compute_s >= 0)) return std::nullopt;
  return op;
}

}  // namespace

std::string chip_model_version() { return kOpModelVersion; }

namespace {
std::string chip_model_tag() { return "\nchip-model " + chip_model_version() + "\n"; }
}  // namespace

bool is_current_chip_model_key(std::string_view key) {
  static const std::string tag = chip_model_tag();
  return key.find(tag) != std::string_view::npos;
}

void set_op_simulated_listener(OpSimulatedListener listener) {
  op_simulated_listener() = std::move(listener);
}

std::string work_key(const models::WorkDescriptor& work) { return binary_key(work); }

SimulatedOpCost::SimulatedOpCost(models::ChipParams chip, SimulatedOpCostOptions options)
    : chip_(std::move(chip)), options_(std::move(options)) {
  if (options_.bucket_bits < 1 || options_.bucket_bits > 20) {
    throw InputError(SourceLocation{"<op table>", 0, 0}, "bucket_bits", "expected 1 to 20");
  }
  if (sc_core::sc_get_status() != sc_core::SC_ELABORATION) {
    throw ScovilleError(
        "the simulated op table for chip '" + chip_.name +
        "' must be built before the process simulates anything (SystemC elaborates once)");
  }
  static int count = 0;  // module names must be unique in the process
  const std::string name = "op_table" + std::to_string(count++);
  module_ = std::make_unique<models::ChipModule>(name.c_str(), chip_);
  key_prefix_ = config::chip_fingerprint(chip_) + chip_model_tag();
  if (options_.cache_dir) {
    std::optional<std::string> dir = *options_.cache_dir;
    if (dir->empty()) dir = default_op_cache_dir();
    if (dir) store_ = std::make_unique<OpCacheStore>(*dir);
  }
}

SimulatedOpCost::~SimulatedOpCost() = default;

serving::OpTableStats SimulatedOpCost::stats() const {
  serving::OpTableStats s = stats_;
  s.cache_directory = cache_directory();
  return s;
}

std::string SimulatedOpCost::cache_directory() const {
  return store_ ? store_->directory() : std::string();
}

models::WorkDescriptor SimulatedOpCost::bucketed(const models::WorkDescriptor& work) const {
  const int bits = options_.bucket_bits;
  models::WorkDescriptor b = work;
  b.label.clear();
  const double m = static_cast<double>(std::max<int64_t>(1, work.m));
  const double n = static_cast<double>(std::max<int64_t>(1, work.n));
  const double inst = static_cast<double>(std::max<int64_t>(1, work.instances));
  // A quantity per unit of the dimensions it grows with (bytes per weight, per key, ...), rounded
  // so that every op of a model shares it, times the bucketed dimensions: the key is then the
  // dimensions alone, however the op's sizes were reached.
  const auto rescale = [bits](double total, double units, double bucketed_units) {
    return bucket_real(total / units, bits) * bucketed_units;
  };
  switch (work.work_class) {
    case models::WorkClass::kMatmul: {
      // The tiling reads m, n, k, instances and bytes per element; FLOPs follow from the shape.
      b.m = bucket_edge(work.m, bits);
      b.instances = bucket_edge(work.instances, bits);
      const double bm = static_cast<double>(std::max<int64_t>(1, b.m));
      const double bi = static_cast<double>(std::max<int64_t>(1, b.instances));
      b.flops = Flops(rescale(work.flops.si(), inst * m, bi * bm));
      b.stream_bytes = Bytes(rescale(work.stream_bytes.si(), inst, bi));
      b.hbm_write_bytes = Bytes(rescale(work.hbm_write_bytes.si(), inst * m, bi * bm));
      b.activation_in_bytes = Bytes(rescale(work.activation_in_bytes.si(), inst * m, bi * bm));
      b.activation_out_bytes = Bytes(rescale(work.activation_out_bytes.si(), inst * m, bi * bm));
      break;
    }
    case models::WorkClass::kAttention: {
      // Queries (m), keys (n) and units (instances): FLOPs grow with all three (their ratio to
      // the full product is the causal mask's saving), KV reads with keys x units, the rest with
      // queries x units.
      b.m = bucket_edge(work.m, bits);
      b.n = bucket_edge(work.n, bits);
      b.instances = bucket_edge(work.instances, bits);
      const double bm = static_cast<double>(std::max<int64_t>(1, b.m));
      const double bn = static_cast<double>(std::max<int64_t>(1, b.n));
      const double bi = static_cast<double>(std::max<int64_t>(1, b.instances));
      b.flops = Flops(rescale(work.flops.si(), inst * m * n, bi * bm * bn));
      b.stream_bytes = Bytes(rescale(work.stream_bytes.si(), inst * n, bi * bn));
      b.hbm_write_bytes = Bytes(rescale(work.hbm_write_bytes.si(), inst * m, bi * bm));
      b.activation_in_bytes = Bytes(rescale(work.activation_in_bytes.si(), inst * m, bi * bm));
      b.activation_out_bytes = Bytes(rescale(work.activation_out_bytes.si(), inst * m, bi * bm));
      break;
    }
    case models::WorkClass::kVector:
      // Spread evenly over the tiles: only the totals matter, not the shape.
      b.m = 0;
      b.n = 0;
      b.k = 0;
      b.instances = 1;
      b.flops = Flops(bucket_real(work.flops.si(), bits));
      b.stream_bytes = Bytes(bucket_real(work.stream_bytes.si(), bits));
      b.hbm_write_bytes = Bytes(bucket_real(work.hbm_write_bytes.si(), bits));
      b.activation_in_bytes = Bytes(bucket_real(work.activation_in_bytes.si(), bits));
      b.activation_out_bytes = Bytes(bucket_real(work.activation_out_bytes.si(), bits));
      break;
  }
  return b;
}

double SimulatedOpCost::roofline_s(const models::WorkDescriptor& w, double clock_scale) const {
  const double rate = clock_scale * (w.work_class == models::WorkClass::kVector
                                         ? chip_.peak_vector_rate().si()
                                         : chip_.peak_flop_rate(w.math).si());
  const double compute = rate > 0 ? w.flops.si() / rate : 0.0;
  const double memory =
      (w.stream_bytes.si() + w.hbm_write_bytes.si()) / chip_.hbm.peak_bandwidth().si();
  return std::max(compute, memory);
}

SimulatedOp SimulatedOpCost::simulate(const models::WorkDescriptor& work,
                                      double clock_scale) const {
  // The tile clocks at `clock_scale` of the configured ones, as a DVFS governor sets them.
  if (clock_scale != 1.0) {
    module_->set_governor([clock_scale](size_t, const std::vector<models::OpRecord>&) {
      models::OpControl control;
      control.clock_scale = clock_scale;
      return control;
    });
  }
  module_->set_program({work});
  models::run_simulation();
  module_->set_governor(models::OpGovernor());
  const std::vector<models::OpRecord>& records = module_->records();
  if (records.size() != 1) {
    throw ScovilleError("op table: the chip model stopped before op '" + work.label + "' finished");
  }
  const models::OpRecord& r = records.front();
  SimulatedOp op;
  op.elapsed_s = r.exact_elapsed.si();
  op.compute_s =
      cycles_to_duration(r.max_tile_compute_cycles, chip_.tiles.clock * r.clock_scale).si();
  return op;
}

const SimulatedOpCost::TableEntry& SimulatedOpCost::lookup(const models::WorkDescriptor& key_work,
                                                           double clock_scale) const {
  std::string key = binary_key(key_work);
  key.append(reinterpret_cast<const char*>(&clock_scale), sizeof clock_scale);
  ++stats_.lookups;
  const auto it = table_.find(key);
  if (it != table_.end()) {
    ++stats_.memory_hits;
    return it->second;
  }
  TableEntry entry;
  const models::TilePlan plan = models::TilingPolicy(chip_).plan(key_work);
  models::OpRecord planned;
  planned.planned = plan.totals();
  entry.counts = stats::count_actions(planned, key_work);
  entry.compute_s = cycles_to_duration(plan.max_tile_compute_cycles(), chip_.tiles.clock).si();
  std::string disk_key = key_prefix_ + work_text_key(key_work);
  if (clock_scale != 1.0) disk_key += " clock " + exact(clock_scale);
  std::optional<SimulatedOp> stored;
  if (store_) {
    if (const std::optional<std::string> text = store_->get(disk_key)) stored = parse_entry(*text);
  }
  if (stored) {
    ++stats_.disk_hits;
    entry.op = *stored;
  } else {
    ++stats_.simulated;
    entry.op = simulate(key_work, clock_scale);
    notify_op_simulated(chip_.name, key_work.label);
    if (store_) {
      if (store_->put(disk_key,
                      exact(entry.op.elapsed_s) + ' ' + exact(entry.op.compute_s) + '\n')) {
        ++stats_.disk_writes;
        // Another process may have stored the op first, simulated at another point of its
        // simulated time (the last bits can differ): the stored value is the one every process
        // uses, so two runs agree bit for bit whichever simulated it.
        if (const std::optional<std::string> text = store_->get(disk_key)) {
          if (const std::optional<SimulatedOp> op = parse_entry(*text)) entry.op = *op;
        }
      } else {
        ++stats_.disk_write_failures;
      }
    }
  }
  return table_.emplace(std::move(key), entry).first->second;
}

namespace {

double ratio(double own, double keyed) { return keyed > 0 ? own / keyed : 1.0; }

}  // namespace

serving::OpPrice SimulatedOpCost::price_work(const models::WorkDescriptor& work,
                                             double clock_scale) const {
  const models::WorkDescriptor key_work = bucketed(work);
  const TableEntry& entry = lookup(key_work, clock_scale);
  serving::OpPrice price;
  // The bucketed op's time carried to this op's sizes by the difference of their roofline
  // times: exact for the fixed latencies of small ops (which a ratio would scale), and short by
  // only (1 / achieved efficiency - 1) x the difference for ops that run at a throughput.
  const double shift = roofline_s(work, clock_scale) - roofline_s(key_work, clock_scale);
  // The bucket is at most half a step away, so the shift is a few percent of the op's time; the
  // floor at half the simulated time only keeps a degenerate op (near-zero roofline, huge
  // shift) from reaching zero.
  price.time = Duration(std::max(entry.op.elapsed_s + shift, entry.op.elapsed_s * 0.5));
  // Actions grow with the sizes they count: the bucketed op's plan scaled to this op's FLOPs,
  // HBM bytes and activations (planning every exact op would cost more than the table saves).
  const double flops = ratio(work.flops.si(), key_work.flops.si());
  const double hbm = ratio(work.stream_bytes.si() + work.hbm_write_bytes.si(),
                           key_work.stream_bytes.si() + key_work.hbm_write_bytes.si());
  const double activations =
      ratio(work.activation_in_bytes.si() + work.activation_out_bytes.si(),
            key_work.activation_in_bytes.si() + key_work.activation_out_bytes.si());
  price.counts = entry.counts;
  for (double& macs : price.counts.macs) macs *= flops;
  price.counts.vector_flops *= flops;
  price.counts.hbm = entry.counts.hbm * hbm;
  price.counts.shared_sram = entry.counts.shared_sram * activations;
  price.counts.noc = price.counts.hbm + price.counts.shared_sram;  // as stats::count_actions
  price.counts.tile_sram = price.counts.noc * 2.0;
  price.memory_time = price.counts.hbm / chip_.hbm.peak_bandwidth();
  price.compute_time = Duration(entry.compute_s * flops / clock_scale);
  return price;
}

serving::OpPrice SimulatedOpCost::price(const workloads::Op& op) const {
  if (op.instances == 0) return {};
  return price_work(lower(op, chip_));
}

}  // namespace scoville::engine
