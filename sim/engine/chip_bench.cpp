#include "sim/engine/chip_bench.hpp"

#include <memory>

#include <systemc>

#include "models/chip/chip_module.hpp"
#include "models/chip/run_simulation.hpp"
#include "sim/base/error.hpp"
#include "sim/base/yaml_reader.hpp"

namespace scoville::engine {

namespace {

double d(int64_t v) { return static_cast<double>(v); }

// A stand-alone GEMM as a framework runs it: both operands read from HBM, a bf16 result written.
// The [k x n] operand streams; the [m x k] one is the activation (spilled to HBM when the op's
// activations outgrow shared SRAM, as the policy decides).
BenchCase gemm(const models::ChipParams& chip, int64_t m, int64_t n, int64_t k,
               NumberFormat format) {
  BenchCase c;
  c.group = "gemm";
  c.name = "gemm-" + to_string(format) + "-" + std::to_string(m) + "x" + std::to_string(n) + "x" +
           std::to_string(k);
  const auto executed = chip.executed_precision(math_precision_of(format));
  if (!executed) return c;  // no precision wide enough: case skipped
  models::WorkDescriptor& w = c.work;
  w.label = c.name;
  w.work_class = models::WorkClass::kMatmul;
  w.m = m;
  w.n = n;
  w.k = k;
  w.math = *executed;
  w.flops = Flops(2.0 * d(m) * d(n) * d(k));
  w.stream_bytes = Bytes(d(k) * d(n) * bytes_per_value(format));
  // A weight-only format (int4) multiplies BF16 activations (W4A16).
  const NumberFormat activations = weight_only(format) ? NumberFormat::kBf16 : format;
  w.activation_in_bytes = Bytes(d(m) * d(k) * bytes_per_value(activations));
  w.activation_out_bytes = Bytes(d(m) * d(n) * bytes_per_value(NumberFormat::kBf16));
  c.metric = Metric::kFlopRate;
  c.useful = w.flops.si();
  c.peak = chip.peak_flop_rate(*executed).si();
  c.detail = to_string(format) + " operands on " + to_string(*executed) + " math";
  return c;
}

BenchCase hbm_read(const models::ChipParams& chip, const std::string& name,
                   const std::string& detail, Bytes bytes, models::HbmPattern pattern, bool copy) {
  BenchCase c;
  c.group = "hbm";
  c.name = name;
  c.detail = detail;
  models::WorkDescriptor& w = c.work;
  w.label = name;
  w.work_class = models::WorkClass::kVector;
  w.stream_bytes = bytes;
  if (copy) w.hbm_write_bytes = bytes;
  w.hbm_pattern = pattern;
  c.metric = Metric::kBandwidth;
  c.useful = (w.stream_bytes + w.hbm_write_bytes).si();
  c.peak = chip.hbm.peak_bandwidth().si();
  return c;
}

// Decode attention of a GQA model like Llama 3 70B / GPT-OSS (8 KV heads, 8 query heads per KV
// head, head size 128, bf16 KV): one query token per sequence against its whole context.
BenchCase decode_attention(const models::ChipParams& chip, int64_t batch, int64_t context) {
  constexpr int64_t kKvHeads = 8;
  constexpr int64_t kGroup = 8;
  constexpr int64_t kHeadDim = 128;
  const double kv_bytes_per_value = bytes_per_value(NumberFormat::kBf16);
  BenchCase c;
  c.group = "attention";
  c.name = "decode-attention-" + std::to_string(context);
  c.detail = "batch " + std::to_string(batch) + ", 8 KV heads x 8 queries, head 128, bf16 KV";
  models::WorkDescriptor& w = c.work;
  w.label = c.name;
  w.work_class = models::WorkClass::kAttention;
  w.m = kGroup;
  w.n = context;
  w.k = kHeadDim;
  w.instances = batch * kKvHeads;
  w.math = MathPrecision::kBf16;
  w.flops = Flops(4.0 * d(w.m) * d(w.n) * d(w.k) * d(w.instances));
  w.stream_bytes = Bytes(2.0 * d(context) * d(kHeadDim) * kv_bytes_per_value * d(w.instances));
  w.activation_in_bytes = Bytes(d(w.m) * d(w.k) * kv_bytes_per_value * d(w.instances));
  w.activation_out_bytes = w.activation_in_bytes;
  c.metric = Metric::kBandwidth;
  c.useful = w.stream_bytes.si();
  c.peak = chip.hbm.peak_bandwidth().si();
  return c;
}

// The chip-to-chip DMA alone: bytes between HBM and the ports, striped over every port.
BenchCase port_dma(const models::ChipParams& chip, bool send, Bytes bytes) {
  BenchCase c;
  c.group = "ports";
  c.name = send ? "port-send" : "port-receive";
  c.detail = std::string(send ? "256 MiB read from HBM and sent" : "256 MiB received into HBM") +
             " over " + std::to_string(chip.ports.count) + " ports";
  c.metric = Metric::kBandwidth;
  c.useful = bytes.si();
  c.peak = chip.ports.bandwidth_per_port.si() * d(chip.ports.count);
  c.port = models::PortTransfer{Duration(), bytes, send};
  c.measure_port = true;
  return c;
}

}  // namespace

std::vector<BenchCase> all_bench_cases(const models::ChipParams& chip) {
  std::vector<BenchCase> cases;
  const int64_t gemm_shapes[][3] = {{8192, 8192, 8192},
                                    {4096, 4096, 4096},
                                    {2048, 2048, 2048},
                                    {128, 8192, 8192},
                                    {16, 8192, 8192}};
  for (NumberFormat f : {NumberFormat::kBf16, NumberFormat::kFp8, NumberFormat::kMxfp4}) {
    for (const auto& s : gemm_shapes) {
      BenchCase c = gemm(chip, s[0], s[1], s[2], f);
      if (c.useful > 0) cases.push_back(c);
    }
  }
  using models::HbmAccess;
  const Bytes stream = gib(1);
  cases.push_back(hbm_read(chip, "hbm-read-stream", "1 GiB sequential read", stream, {}, false));
  cases.push_back(
      hbm_read(chip, "hbm-copy", "1 GiB read + 1 GiB written (device copy)", stream, {}, true));
  cases.push_back(hbm_read(chip, "hbm-read-strided-256B", "256 B requests every 4 KiB", mib(64),
                           {HbmAccess::kStrided, 256, 4096, 0}, false));
  cases.push_back(hbm_read(chip, "hbm-read-random-4KiB", "4 KiB requests at random in 4 GiB",
                           mib(256), {HbmAccess::kRandom, 4096, 0, 4ull << 30}, false));
  cases.push_back(hbm_read(chip, "hbm-read-random-256B", "256 B requests at random in 4 GiB",
                           mib(64), {HbmAccess::kRandom, 256, 0, 4ull << 30}, false));
  cases.push_back(hbm_read(chip, "hbm-read-random-64B", "64 B requests at random in 4 GiB", mib(16),
                           {HbmAccess::kRandom, 64, 0, 4ull << 30}, false));
  for (int64_t context : {1024, 8192, 32768}) cases.push_back(decode_attention(chip, 16, context));
  if (chip.ports.count > 0 && chip.ports.bandwidth_per_port.si() > 0) {
    cases.push_back(port_dma(chip, true, mib(256)));
    cases.push_back(port_dma(chip, false, mib(256)));
    // Contention: the stream shares HBM channels (and mesh links) with the ports' traffic.
    BenchCase both =
        hbm_read(chip, "hbm-read-stream-with-port-send",
                 "1 GiB sequential read while the ports send 256 MiB", stream, {}, false);
    both.port = models::PortTransfer{Duration(), mib(256), true};
    cases.push_back(both);
  }
  return cases;
}

std::optional<BenchCase> gemm_case_named(const models::ChipParams& chip, const std::string& name) {
  const std::string prefix = "gemm-";
  if (name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  const size_t dash = name.find('-', prefix.size());
  if (dash == std::string::npos) return std::nullopt;
  const auto format = number_format_from_string(name.substr(prefix.size(), dash - prefix.size()));
  if (!format) return std::nullopt;
  int64_t dims[3] = {0, 0, 0};
  size_t at = dash + 1;
  for (int i = 0; i < 3; ++i) {
    size_t end = at;
    while (end < name.size() && name[end] >= '0' && name[end] <= '9') ++end;
    if (end == at || end - at > 7) return std::nullopt;
    dims[i] = std::stoll(name.substr(at, end - at));
    if (dims[i] < 1 || dims[i] > (int64_t{1} << 20)) return std::nullopt;
    if (i < 2 && (end >= name.size() || name[end] != 'x')) return std::nullopt;
    if (i == 2 && end != name.size()) return std::nullopt;
    at = end + 1;
  }
  BenchCase c = gemm(chip, dims[0], dims[1], dims[2], *format);
  if (c.useful <= 0) return std::nullopt;
  return c;
}

std::vector<BenchResult> run_bench_cases(const models::ChipParams& chip,
                                         const std::vector<BenchCase>& cases) {
  std::vector<std::unique_ptr<models::ChipModule>> modules;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string name = "bench" + std::to_string(i);
    modules.push_back(std::make_unique<models::ChipModule>(name.c_str(), chip));
    const BenchCase& c = cases[i];
    modules.back()->set_program(c.work.label.empty() ? std::vector<models::WorkDescriptor>{}
                                                     : std::vector<models::WorkDescriptor>{c.work});
    if (c.port) modules.back()->submit_port_transfers({*c.port});
  }
  models::run_simulation();
  std::vector<BenchResult> results;
  for (size_t i = 0; i < cases.size(); ++i) {
    const BenchCase& c = cases[i];
    const std::vector<models::PortTransferRecord>& port = modules[i]->port_records();
    if (!modules[i]->finished() || (c.port && port.size() != 1)) {
      throw ScovilleError("chip-bench case '" + c.name + "' stopped before it finished");
    }
    BenchResult r;
    r.seconds = c.measure_port ? (port.front().end - port.front().transfer.start).si()
                               : modules[i]->records().front().elapsed().si();
    r.rate = c.useful / r.seconds;
    results.push_back(r);
  }
  return results;
}

}  // namespace scoville::engine
