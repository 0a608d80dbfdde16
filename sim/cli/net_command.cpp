// `scoville net`: time a collective on a system's network, per message size, as nccl-tests
// reports it (time, algorithm bandwidth, bus bandwidth).
#include <cinttypes>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "models/network/flow_replay.hpp"
#include "models/network/network_model.hpp"
#include "sim/base/atomic_file.hpp"
#include "sim/base/error.hpp"
#include "sim/base/json_text.hpp"
#include "sim/base/unit_parser.hpp"
#include "sim/cli/command_table.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/config/system_loader.hpp"
#include "sim/output/network_trace.hpp"
#include "sim/output/output_paths.hpp"

namespace scoville::cli {

OptionSet net_options() {
  OptionSet s("net");
  s.synopsis("[options]", "time a collective on a system's network per message size")
      .text("--system", "NAME|FILE", "system YAML (names resolve to arch/systems/NAME.yaml)")
      .text("--collective", "NAME",
            "all_reduce, all_gather, reduce_scatter, all_to_all, broadcast or send_recv")
      .list("--bytes", "SIZE[,SIZE...]",
            "message sizes with units, e.g. 8B,1MiB,1GiB (nccl-tests sizes)", true)
      .text("--algorithm", "NAME",
            "ring, tree, direct, recursive_halving_doubling, hierarchical, ... (default: the "
            "fastest applicable, see docs/network.md)")
      .count("--chips", "N", "ranks: the first N chips (default: all)")
      .flag("--nccl-only",
            "leave out the serving stacks' custom all-reduce kernels (one_shot, two-shot "
            "direct): NCCL alone, as nccl-tests measures it (systems with network.collectives)")
      .flag("--per-pair", "simulate a flow per pair (no symmetric reduction)")
      .flag("--json", "print the results as JSON instead of a table")
      .text("--trace", "FILE.json",
            "write a Perfetto / Chrome JSON timeline of the collective (one --bytes size): steps "
            "per chip, a thread per link, an arrow per transfer (atomically)")
      .text("--trace-window", "START:END", "keep only that span of the timeline (e.g. '0 s:50 us')")
      .count("--trace-max-events", "N",
             "at most N slices per thread and N transfers (default 5000)");
  return s;
}

namespace {

struct NetOptions {
  std::optional<std::string> system;
  std::optional<std::string> collective;
  std::vector<std::string> sizes;
  std::string algorithm;
  int64_t chips = 0;
  bool per_pair = false;
  bool nccl_only = false;
  bool json = false;
  std::optional<std::string> trace_output;
  std::optional<std::string> trace_window;
  std::optional<long long> trace_max_events;
};

NetOptions parse_net(const std::vector<std::string>& args) {
  const ParsedOptions p = net_options().parse(args);
  NetOptions o;
  o.system = p.text("--system");
  o.collective = p.text("--collective");
  o.sizes = p.list("--bytes");
  o.algorithm = p.text_or("--algorithm", "");
  if (const auto chips = p.count("--chips")) {
    o.chips = *chips;
    if (o.chips < 1) throw UsageError{"--chips: expected at least 1"};
  }
  o.per_pair = p.flag("--per-pair");
  o.nccl_only = p.flag("--nccl-only");
  o.json = p.flag("--json");
  o.trace_output = p.text("--trace");
  o.trace_window = p.text("--trace-window");
  o.trace_max_events = p.count("--trace-max-events");
  if (!o.system) throw UsageError{"--system is required"};
  if (!o.collective) throw UsageError{"--collective is required"};
  if (o.sizes.empty()) throw UsageError{"--bytes is required"};
  if ((o.trace_window || o.trace_max_events) && !o.trace_output) {
    throw UsageError{"--trace-window and --trace-max-events need --trace FILE.json"};
  }
  if (o.trace_output && o.sizes.size() != 1) {
    throw UsageError{"--trace needs exactly one --bytes size"};
  }
  return o;
}

std::vector<Bytes> parse_sizes(const std::vector<std::string>& items) {
  const SourceLocation cli{"<command line>", 0, 0};
  std::vector<Bytes> out;
  for (const std::string& item : items) {
    try {
      const Bytes b = parse<Bytes>(item);
      if (b.si() < 1) throw UnitParseError("a message is at least 1 B");
      out.push_back(b);
    } catch (const UnitParseError& e) {
      throw InputError(cli, "--bytes", "'" + item + "': " + e.what());
    }
  }
  return out;
}

// Errors from the model (unknown collective, algorithm, rank count) name command-line flags.
InputError on_command_line(const InputError& e) {
  std::vector<Diagnostic> out = e.diagnostics();
  for (Diagnostic& d : out) {
    if (d.where.file.empty()) {
      d.where = SourceLocation{"<command line>", 0, 0};
      d.key_path = "--" + d.key_path;
    }
  }
  return InputError(out);
}

std::string fixed(double v, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  return buffer;
}

std::string pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

models::Communicator comm_for_trace(const models::Topology& topology, const NetOptions& o) {
  try {
    return models::make_communicator(topology, o.chips);
  } catch (const InputError& e) {
    throw on_command_line(e);
  }
}

// Writes the timeline of the chosen algorithm's flows (models::replay_collective).
void write_trace(const NetOptions& o, const models::Topology& topology,
                 const models::Communicator& comm, const models::CollectiveResult& result,
                 const Invocation& invocation) {
  output::TraceOptions trace;
  if (o.trace_window) output::parse_trace_window(*o.trace_window, trace);
  if (o.trace_max_events) output::parse_trace_max_events(*o.trace_max_events, trace);
  models::Replay replay;
  try {
    replay = models::replay_collective(topology, comm, result, trace.max_events_per_thread);
  } catch (const InputError& e) {
    throw on_command_line(e);
  }
  const std::string title =
      result.collective + " (" + result.algorithm + ", " + fixed(result.size.si(), 0) + " B)";
  write_text_atomically(
      *o.trace_output,
      output::render_network_trace(topology, replay, title,
                                   output::Provenance::current(invocation.argc, invocation.argv, 0),
                                   trace));
}

}  // namespace

int net_command(const Invocation& invocation, std::ostream& out) {
  const NetOptions o = parse_net(invocation.args);
  output::RunFiles files;
  files.named_input("--system", o.system.value_or(""), "arch/systems");
  files.output("--trace", o.trace_output.value_or(""));
  files.check();
  const std::vector<Bytes> sizes = parse_sizes(o.sizes);
  const config::SystemConfig system =
      config::load_system(*o.system, config::DataPaths::from_environment());
  const models::Topology topology = config::build_network(system);
  models::NetworkModel model(topology);
  model.set_custom_kernels(!o.nccl_only);
  std::vector<models::CollectiveResult> results;
  try {
    const models::Communicator comm = models::make_communicator(topology, o.chips);
    for (const Bytes size : sizes) {
      results.push_back(model.run_collective(*o.collective, comm, size, o.algorithm, !o.per_pair));
    }
  } catch (const InputError& e) {
    throw on_command_line(e);
  }
  if (o.trace_output)
    write_trace(o, topology, comm_for_trace(topology, o), results.front(), invocation);
  const int64_t ranks = results.front().ranks;
  if (o.json) {
    out << "{\"system\": \"" << system.name << "\", \"topology\": \"" << topology.kind()
        << "\", \"chips\": " << topology.endpoints() << ", \"ranks\": " << ranks
        << ", \"collective\": \"" << *o.collective << "\", \"results\": [";
    for (size_t i = 0; i < results.size(); ++i) {
      const models::CollectiveResult& r = results[i];
      out << (i == 0 ? "" : ", ") << "{\"bytes\": " << output::json_number(r.size.si())
          << ", \"time_s\": " << output::json_number(r.timing.time.si())
          << ", \"algbw_GBps\": " << output::json_number(r.algbw.si() / 1e9)
          << ", \"busbw_GBps\": " << output::json_number(r.busbw.si() / 1e9)
          << ", \"algorithm\": \"" << r.algorithm << "\", \"protocol\": \"" << r.protocol
          << "\", \"library_s\": " << output::json_number(r.library_time.si())
          << ", \"wire_efficiency\": " << output::json_number(r.efficiency)
          << ", \"energy_J\": " << output::json_number(r.timing.energy.si())
          << ", \"steps\": " << r.timing.steps << ", \"flows\": " << r.timing.flows
          << ", \"simulated_flows\": " << r.timing.simulated_flows
          << ", \"symmetric\": " << (r.timing.symmetric ? "true" : "false") << "}";
    }
    out << "]}\n";
    return 0;
  }
  const bool library = topology.collective_library().has_value();
  out << "# scoville net: " << *o.collective << " on " << system.name << " (" << topology.kind()
      << ", " << topology.endpoints() << " chips), " << ranks << " ranks, "
      << (!library      ? "wire time only (no network.collectives)"
          : o.nccl_only ? "NCCL library model"
                        : "NCCL and custom-kernel library model")
      << "\n";
  out << "#" << pad("size(B)", 13) << pad("time(us)", 13) << pad("library(us)", 13)
      << pad("algbw(GB/s)", 13) << pad("busbw(GB/s)", 13) << "  algorithm/protocol\n";
  for (const models::CollectiveResult& r : results) {
    out << pad(fixed(r.size.si(), 0), 14) << pad(fixed(r.timing.time.si() * 1e6, 3), 13)
        << pad(fixed(r.library_time.si() * 1e6, 3), 13) << pad(fixed(r.algbw.si() / 1e9, 2), 13)
        << pad(fixed(r.busbw.si() / 1e9, 2), 13) << "  " << r.algorithm
        << (r.protocol.empty() ? "" : "/" + r.protocol)
        << (r.timing.symmetric ? " (symmetric)" : "") << "\n";
  }
  return 0;
}

}  // namespace scoville::cli
