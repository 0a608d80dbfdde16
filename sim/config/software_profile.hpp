// Software overheads of a serving stack, as explicit parameters of the system, separate from the
// hardware (arch/software/*.yaml): what a chip pays per op (kernel launch), per layer
// (synchronisation), per collective call (the collective kernel's launch and cross-chip handshake,
// which the network model's wire and switch latencies do not contain), per iteration (host
// scheduling) and per sequence of an iteration (a Python scheduler's per-request bookkeeping,
// sampling, output processing) on top of its hardware time, and per request handed from a
// prefill pool to a decode pool (the disaggregated stack's KV-transfer control path). A study
// without a `software:` entry pays none (all zero): its times are hardware times. Each serving
// stack (TensorRT-LLM, vLLM, SGLang, ...) is one file; a system file names the stack its
// published rows ran (docs/software.md).
#pragma once

#include <string>
#include <vector>

#include "sim/base/units.hpp"
#include "sim/config/data_paths.hpp"
#include "sim/serving/kernel_path.hpp"

namespace scoville::config {

// A kernel path of the stack (sim/serving/kernel_path.hpp) and the chips it runs on: the stack
// takes it on those chips alone (docs/software.md, "Kernel paths").
struct StackKernelPath {
  serving::KernelPath path;
  std::vector<std::string> chips;  // chip names (arch/chips/<name>.yaml's name)
};

struct SoftwareProfile {
  std::string name;  // empty: no profile (zero overheads)
  std::string description;
  Duration per_op_launch;   // each op (kernel) pays this before it starts
  Duration per_layer_sync;  // each layer pays this once (barrier between layers)
  Duration per_iteration;   // each iteration (prefill pass or decode step) pays this once
  Duration per_collective;  // each collective call (optional key, default 0)
  // Each all-to-all call instead (optional key, default per_collective): an expert-parallel
  // dispatch or combine kernel also packs tokens per destination and signals each peer, which
  // a ring all-reduce's launch and handshake do not.
  Duration per_all_to_all;
  // Each sequence an iteration serves (optional key, default 0): host work that grows with the
  // batch (per-request scheduling, input preparation, sampling, detokenisation), the part an
  // overlapped scheduler does not hide.
  Duration per_sequence;
  // Each request whose KV moves from a prefill pool to a decode pool (optional, default 0): the
  // control path of the handoff (notification, transfer setup), beside the bytes the network
  // model times. Only disaggregated serving pays it.
  Duration per_kv_transfer;
  // Whether the stack runs vector ops (norms, residual adds, rotary, activations, routing, the
  // MoE combine: workloads::OpKind::kVector) inside the kernels beside them (optional key,
  // default false): a fused op adds its work to its neighbour but no kernel of its own, so it
  // pays neither a launch nor the chip's fixed per-op latency (fill, drain, barrier), in the
  // serving pricer (op table and roofline) and in the system engine alike (docs/software.md,
  // "Fused vector ops").
  bool fused_vector_ops = false;
  // How the stack samples requests that ask for top-p (optional key `top_p_sampler`, default
  // single-pass): `full-sort` sorts each sequence's whole vocabulary (workloads::Sampler
  // kFullSort), `single-pass` draws in one pass over the logits as greedy requests do. Greedy
  // requests (InferenceX's, temperature 0) never sort.
  bool top_p_sorts_vocabulary = false;
  // What a prefill/decode-disaggregated deployment of the stack keeps of its sliding-window and
  // chunked layers (optional key `disaggregated_kv`, default `windowed`): `windowed` keeps them
  // to their window or chunk in both pools and moves only that (as colocated serving keeps
  // them); `whole-context` holds and moves every layer's whole context (vLLM turns its hybrid
  // KV cache manager off when a KV connector is configured: docs/serving.md, "Bounded layers").
  bool disaggregated_kv_whole_context = false;
  // Library kernels the stack runs for some ops on some chips, slower than the chip model's own
  // pricing of them (optional list, default none).
  std::vector<StackKernelPath> kernel_paths;
  // The kernel paths that run on `chip`, in the file's order.
  std::vector<serving::KernelPath> kernel_paths_on(const std::string& chip) const;

  // Software time of an iteration of `ops` ops over `layers` layers with `collectives` calls,
  // `all_to_all_calls` of which are all-to-alls, serving `sequences` sequences.
  Duration overhead(int64_t ops, int64_t layers, int64_t collectives = 0,
                    int64_t all_to_all_calls = 0, int64_t sequences = 0) const {
    return per_op_launch * static_cast<double>(ops) + per_layer_sync * static_cast<double>(layers) +
           per_collective * static_cast<double>(collectives - all_to_all_calls) +
           per_all_to_all * static_cast<double>(all_to_all_calls) +
           per_sequence * static_cast<double>(sequences) + per_iteration;
  }
};

SoftwareProfile parse_software_string(const std::string& yaml, const std::string& display_name);
SoftwareProfile parse_software(const std::string& path);
// By file path or by name (arch/software/<name>.yaml).
SoftwareProfile load_software(const std::string& name_or_path, const DataPaths& paths);

// What `--software` asks for: kSystemSoftware (the flag not given: the system file's own stack,
// none for a chip without a system file), kNoSoftware (hardware time alone), or a stack name or
// file.
inline constexpr const char* kSystemSoftware = "";
inline constexpr const char* kNoSoftware = "none";
// The stack in effect: `requested` unless it is kSystemSoftware, then `system_stack` (a system
// file's resolved `software:` file, empty when it names none); "" when none applies.
std::string software_in_effect(const std::string& requested, const std::string& system_stack);

}  // namespace scoville::config
