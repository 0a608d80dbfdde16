#include "workloads/trace/native_trace.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "sim/base/error.hpp"
#include "sim/base/yaml_reader.hpp"

namespace scoville::workloads {

namespace {

constexpr int64_t kMaxCount = std::numeric_limits<int64_t>::max();

// Shortest text that reads back as the same double: integers as integers, others with 17
// significant digits.
std::string number(double v) {
  char buffer[40];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buffer, sizeof buffer, "%.0f", v);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.17g", v);
  }
  return buffer;
}

// Names are written as double-quoted YAML strings, so any text round-trips.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", static_cast<unsigned char>(c));
      out += buffer;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string id_list(const std::vector<uint64_t>& ids) {
  std::string out = "[";
  for (size_t i = 0; i < ids.size(); ++i) out += (i ? ", " : "") + std::to_string(ids[i]);
  return out + "]";
}

const std::vector<CollectiveKind>& collective_kinds() {
  static const std::vector<CollectiveKind> kinds = {
      CollectiveKind::kAllReduce, CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
      CollectiveKind::kAllToAll,  CollectiveKind::kBroadcast, CollectiveKind::kSend,
      CollectiveKind::kRecv};
  return kinds;
}

// Names of an enum's values (by its to_string), and the reverse lookup.
template <class E>
std::vector<std::string> names_of(const std::vector<E>& values) {
  std::vector<std::string> names;
  for (const E v : values) names.push_back(to_string(v));
  return names;
}
template <class E>
E value_of(const std::vector<E>& values, const std::string& name) {
  for (const E v : values) {
    if (to_string(v) == name) return v;
  }
  return values.front();  // the reader already reported the unknown name
}

const std::vector<OpKind> kOpKinds = {OpKind::kMatmul, OpKind::kAttention, OpKind::kVector};
const std::vector<NumberFormat> kFormats = {NumberFormat::kBf16, NumberFormat::kFp8,
                                            NumberFormat::kMxfp4, NumberFormat::kNvfp4,
                                            NumberFormat::kInt4};
const std::vector<MathPrecision> kMaths = {MathPrecision::kBf16, MathPrecision::kFp8,
                                           MathPrecision::kFp4};
const std::vector<Phase> kPhases = {Phase::kPrefill, Phase::kDecode};

void write_compute(std::ostringstream& out, const Op& op) {
  out << "    compute:\n"
      << "      kind: " << to_string(op.kind) << "\n"
      << "      m: " << op.m << "\n"
      << "      n: " << op.n << "\n"
      << "      k: " << op.k << "\n"
      << "      instances: " << op.instances << "\n"
      << "      weight_format: " << to_string(op.weight_format) << "\n"
      << "      math: " << to_string(op.math) << "\n"
      << "      flops: " << number(op.flops.si()) << " FLOP\n"
      << "      weight_bytes: " << number(op.weight_bytes.si()) << " B\n"
      << "      kv_read_bytes: " << number(op.kv_read_bytes.si()) << " B\n"
      << "      kv_write_bytes: " << number(op.kv_write_bytes.si()) << " B\n"
      << "      activation_in_bytes: " << number(op.activation_in_bytes.si()) << " B\n"
      << "      activation_out_bytes: " << number(op.activation_out_bytes.si()) << " B\n";
}

void write_collective(std::ostringstream& out, const Collective& c) {
  out << "    collective:\n"
      << "      kind: " << to_string(c.kind) << "\n"
      << "      group: " << quoted(c.group) << "\n"
      << "      group_size: " << c.group_size << "\n";
  if (c.peer >= 0) out << "      peer: " << c.peer << "\n";
  out << "      bytes: " << number(c.bytes.si()) << " B\n";
}

// Reads one trace; every problem goes to `diagnostics`.
class TraceReader {
 public:
  TraceReader(const YAML::Node& root, std::string file)
      : root_(root), file_(std::move(file)), top_(root, file_, "", diagnostics_) {}

  ChipTrace read() {
    check_format();
    ChipTrace t;
    t.model = top_.string("model");
    t.role = top_.string("role");
    t.rank = top_.integer("rank", 0, kMaxCount);
    t.world_size = top_.integer("world_size", 1, kMaxCount);
    t.multiplicity = top_.integer_or("multiplicity", 1, 1, kMaxCount);
    MapReader deg = top_.map("degrees");
    t.degrees.tp = deg.integer_or("tp", 1, 1, kMaxCount);
    t.degrees.ep = deg.integer_or("ep", 1, 1, kMaxCount);
    t.degrees.pp = deg.integer_or("pp", 1, 1, kMaxCount);
    t.degrees.dp = deg.integer_or("dp", 1, 1, kMaxCount);
    t.degrees.attn_dp = deg.integer_or("attn_dp", 1, 1, kMaxCount);
    t.degrees.sequence_parallel = deg.boolean_or("sequence_parallel", false);
    deg.finish();
    MapReader shape = top_.map("shape");
    t.shape.phase = value_of(kPhases, shape.choice("phase", names_of(kPhases)));
    t.shape.batch = shape.integer("batch", 1, kMaxCount);
    t.shape.new_tokens = shape.integer("new_tokens", 1, kMaxCount);
    t.shape.context = shape.integer("context", 1, kMaxCount);
    shape.finish();
    const int64_t node_count = top_.integer("node_count", 0, kMaxTraceNodes);
    read_nodes(t, node_count);
    top_.finish();
    diagnostics_.throw_if_any();
    check_graph(t);
    diagnostics_.throw_if_any();
    return t;
  }

 private:
  // Another format or version stops the reading at once: nothing else would make sense.
  void check_format() {
    const std::string format = top_.string("format");
    diagnostics_.throw_if_any();
    if (format != kNativeTraceFormat) {
      throw InputError(top_.location_of_key("format"), "format",
                       "expected \"" + std::string(kNativeTraceFormat) + "\", found \"" + format +
                           "\": this is not a scoville native trace");
    }
    const int64_t version = top_.integer("version", 0, kMaxCount);
    diagnostics_.throw_if_any();
    if (version != ChipTrace::kFormatVersion) {
      throw InputError(top_.location_of_key("version"), "version",
                       "unsupported version " + std::to_string(version) + "; this build reads " +
                           kNativeTraceFormat + " version " +
                           std::to_string(ChipTrace::kFormatVersion));
    }
  }

  void read_nodes(ChipTrace& t, int64_t node_count) {
    const YAML::Node nodes = top_.raw("nodes");
    if (node_count == 0 && (!nodes.IsDefined() || nodes.IsNull())) return;
    if (!nodes.IsDefined() || nodes.IsNull()) {
      diagnostics_.error(top_.location(), "nodes", "missing required field 'nodes'");
      return;
    }
    if (!nodes.IsSequence()) {
      diagnostics_.error(location_of(nodes, file_), "nodes",
                         "expected a list of nodes (\"- id: ...\" entries)");
      return;
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      locations_.push_back(location_of(nodes[i], file_));
      t.nodes.push_back(read_node(nodes[i], "nodes[" + std::to_string(i) + "]"));
    }
    if (static_cast<int64_t>(nodes.size()) != node_count) {
      const SourceLocation where =
          locations_.empty() ? location_of(nodes, file_) : locations_.back();
      diagnostics_.error(where, "nodes",
                         "the header's node_count is " + std::to_string(node_count) +
                             " but the file holds " + std::to_string(nodes.size()) +
                             " nodes (ending here): the file is truncated or corrupt");
    }
  }

  TraceNode read_node(const YAML::Node& yaml, const std::string& path) {
    MapReader r(yaml, file_, path, diagnostics_);
    TraceNode node;
    node.id = static_cast<uint64_t>(r.integer("id", 0, kMaxCount));
    node.name = r.string("name");
    node.layer = static_cast<int>(r.integer_or("layer", -1, -1, std::numeric_limits<int>::max()));
    node.data_deps = read_ids(r, "deps");
    node.ctrl_deps = read_ids(r, "ctrl_deps");
    const bool compute = r.has("compute");
    const bool collective = r.has("collective");
    if (compute == collective) {
      r.error("", "expected exactly one of 'compute' or 'collective'");
      r.optional_map("compute");
      r.optional_map("collective");
    } else if (compute) {
      node.kind = TraceNodeKind::kCompute;
      node.op = read_op(r.map("compute"), node.name, node.layer);
    } else {
      node.kind = TraceNodeKind::kCollective;
      node.collective = read_collective(r.map("collective"));
    }
    r.finish();
    return node;
  }

  std::vector<uint64_t> read_ids(MapReader& r, const std::string& key) {
    std::vector<uint64_t> ids;
    const YAML::Node list = r.raw(key);
    if (!list.IsDefined() || list.IsNull()) return ids;
    if (!list.IsSequence()) {
      diagnostics_.error(location_of(list, file_), r.path() + "." + key,
                         "expected a list of node ids, e.g. [3, 4]");
      return ids;
    }
    for (const YAML::Node& item : list) {
      const std::string text = item.IsScalar() ? item.Scalar() : std::string();
      uint64_t id = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
      if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
        diagnostics_.error(location_of(item, file_), r.path() + "." + key,
                           "expected a node id (a whole number >= 0), found \"" + text + "\"");
        continue;
      }
      ids.push_back(id);
    }
    return ids;
  }

  Op read_op(MapReader r, const std::string& name, int layer) {
    Op op;
    op.name = name;
    op.layer = layer;
    op.kind = value_of(kOpKinds, r.choice("kind", names_of(kOpKinds)));
    op.m = r.integer_or("m", 0, 0, kMaxCount);
    op.n = r.integer_or("n", 0, 0, kMaxCount);
    op.k = r.integer_or("k", 0, 0, kMaxCount);
    op.instances = r.integer_or("instances", 1, 0, kMaxCount);
    op.weight_format = value_of(kFormats, r.choice_or("weight_format", "bf16", names_of(kFormats)));
    op.math = value_of(kMaths, r.choice_or("math", "bf16", names_of(kMaths)));
    op.flops = r.quantity_or<Flops>("flops", Flops(), Range::kNonNegative);
    const auto bytes = [&](const char* key) {
      return r.quantity_or<Bytes>(key, Bytes(), Range::kNonNegative);
    };
    op.weight_bytes = bytes("weight_bytes");
    op.kv_read_bytes = bytes("kv_read_bytes");
    op.kv_write_bytes = bytes("kv_write_bytes");
    op.activation_in_bytes = bytes("activation_in_bytes");
    op.activation_out_bytes = bytes("activation_out_bytes");
    r.finish();
    return op;
  }

  Collective read_collective(MapReader r) {
    Collective c;
    c.kind = value_of(collective_kinds(), r.choice("kind", names_of(collective_kinds())));
    c.group = r.string("group");
    c.group_size = r.integer("group_size", 1, kMaxCount);
    const bool p2p = c.kind == CollectiveKind::kSend || c.kind == CollectiveKind::kRecv;
    c.peer = p2p ? r.integer("peer", 0, kMaxCount) : r.integer_or("peer", -1, -1, -1);
    c.bytes = r.quantity<Bytes>("bytes", Range::kNonNegative);
    r.finish();
    return c;
  }

  // Ids unique, dependencies on existing nodes, no cycle; then the nodes in a topological order
  // (Kahn's algorithm, taking the earliest listed ready node first, so a file already in order
  // keeps its order).
  void check_graph(ChipTrace& t) {
    std::map<uint64_t, size_t> index;
    for (size_t i = 0; i < t.nodes.size(); ++i) {
      if (!index.emplace(t.nodes[i].id, i).second) {
        diagnostics_.error(locations_[i], "nodes[" + std::to_string(i) + "].id",
                           "node id " + std::to_string(t.nodes[i].id) + " is used twice");
      }
    }
    std::vector<std::vector<size_t>> users(t.nodes.size());
    std::vector<size_t> waiting(t.nodes.size(), 0);
    for (size_t i = 0; i < t.nodes.size(); ++i) {
      for (const auto* deps : {&t.nodes[i].data_deps, &t.nodes[i].ctrl_deps}) {
        for (const uint64_t dep : *deps) {
          const auto it = index.find(dep);
          if (it == index.end()) {
            diagnostics_.error(locations_[i], "nodes[" + std::to_string(i) + "]",
                               "node " + std::to_string(t.nodes[i].id) + " depends on node " +
                                   std::to_string(dep) + ", which does not exist");
            continue;
          }
          users[it->second].push_back(i);
          ++waiting[i];
        }
      }
    }
    if (!diagnostics_.empty()) return;
    std::map<size_t, bool> ready;  // by position in the file
    for (size_t i = 0; i < t.nodes.size(); ++i) {
      if (waiting[i] == 0) ready[i] = true;
    }
    std::vector<TraceNode> sorted;
    while (!ready.empty()) {
      const size_t i = ready.begin()->first;
      ready.erase(ready.begin());
      sorted.push_back(t.nodes[i]);
      for (const size_t user : users[i]) {
        if (--waiting[user] == 0) ready[user] = true;
      }
    }
    if (sorted.size() != t.nodes.size()) {
      for (size_t i = 0; i < t.nodes.size(); ++i) {
        if (waiting[i] == 0) continue;
        diagnostics_.error(locations_[i], "nodes[" + std::to_string(i) + "]",
                           "node " + std::to_string(t.nodes[i].id) +
                               " is part of (or waits on) a dependency cycle");
        break;  // one position is enough to find the cycle
      }
      return;
    }
    t.nodes = std::move(sorted);
  }

  YAML::Node root_;
  std::string file_;
  Diagnostics diagnostics_;
  MapReader top_;
  std::vector<SourceLocation> locations_;
};

}  // namespace

std::string render_native_trace(const ChipTrace& t) {
  std::ostringstream out;
  out << "# One iteration of one chip role (docs/traces.md).\n"
      << "format: " << kNativeTraceFormat << "\n"
      << "version: " << ChipTrace::kFormatVersion << "\n"
      << "model: " << quoted(t.model) << "\n"
      << "role: " << quoted(t.role) << "\n"
      << "rank: " << t.rank << "\n"
      << "world_size: " << t.world_size << "\n"
      << "multiplicity: " << t.multiplicity << "\n"
      << "degrees: {tp: " << t.degrees.tp << ", ep: " << t.degrees.ep << ", pp: " << t.degrees.pp
      << ", dp: " << t.degrees.dp << ", attn_dp: " << t.degrees.attn_dp
      << (t.degrees.sequence_parallel ? ", sequence_parallel: true" : "") << "}\n"
      << "shape: {phase: " << to_string(t.shape.phase) << ", batch: " << t.shape.batch
      << ", new_tokens: " << t.shape.new_tokens << ", context: " << t.shape.context << "}\n"
      << "node_count: " << t.nodes.size() << "\n"
      << "nodes:\n";
  for (const TraceNode& node : t.nodes) {
    out << "  - id: " << node.id << "\n"
        << "    name: " << quoted(node.name) << "\n"
        << "    layer: " << node.layer << "\n";
    if (!node.data_deps.empty()) out << "    deps: " << id_list(node.data_deps) << "\n";
    if (!node.ctrl_deps.empty()) out << "    ctrl_deps: " << id_list(node.ctrl_deps) << "\n";
    if (node.kind == TraceNodeKind::kCompute) {
      write_compute(out, node.op);
    } else {
      write_collective(out, node.collective);
    }
  }
  return out.str();
}

ChipTrace parse_native_trace(const std::string& text, const std::string& display_name) {
  return TraceReader(load_yaml_string(text, display_name), display_name).read();
}

ChipTrace read_native_trace(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > static_cast<std::uintmax_t>(kMaxTraceFileBytes)) {
    throw InputError(SourceLocation{path, 0, 0}, "",
                     "the trace file has " + std::to_string(size) + " bytes, more than the " +
                         std::to_string(kMaxTraceFileBytes) +
                         " Scoville reads; split it (one file per chip role and iteration)");
  }
  return TraceReader(load_yaml_file(path), path).read();
}

}  // namespace scoville::workloads
