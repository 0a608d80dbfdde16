// The native trace format: one ChipTrace as versioned YAML (docs/traces.md). Human-writable;
// the writer's output is deterministic and reads back equal (every number round-trips).
// Writing the text to disk atomically is the caller's job (sim/output/atomic_file.hpp), since
// this library sits below sim/.
#pragma once

#include <string>

#include "workloads/trace/chip_trace.hpp"

namespace scoville::workloads {

inline constexpr const char* kNativeTraceFormat = "scoville-trace";

std::string render_native_trace(const ChipTrace& trace);

// Throws InputError naming file:line:col and the key for: a YAML syntax error, a truncated file
// (fewer nodes than the header's node_count), another format or an unknown version, a missing
// or malformed field, a duplicate node id, a dependency on a node that does not exist, and a
// dependency cycle. The returned nodes are in a topological order.
ChipTrace read_native_trace(const std::string& path);
ChipTrace parse_native_trace(const std::string& text, const std::string& display_name);

}  // namespace scoville::workloads
