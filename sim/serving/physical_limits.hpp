// The physical limits of a run, checked in one place by every command before anything is
// simulated: the sequence length against the model's maximum context, the memory each chip
// needs (weights + KV cache, per chip role) against its HBM, and a power cap against the chip's
// static power. Each refusal names the field, the value and the bound.
#pragma once

#include <cstdint>
#include <string>

#include "models/chip/chip_params.hpp"
#include "sim/base/error.hpp"
#include "sim/base/units.hpp"
#include "workloads/mapping/pool_mapping.hpp"
#include "workloads/model_config.hpp"

namespace scoville::serving {

// isl + osl tokens of one sequence against the model's max_context. `field` names what the user
// set (e.g. "study.isl", "--isl", "requests.input_tokens").
void check_context(const workloads::ModelConfig& model, int64_t isl, int64_t osl,
                   const SourceLocation& where, const std::string& field);

// One chip holding the whole model (a single-chip study): weights + KV cache of batch sequences
// of `tokens` each against the chip's HBM; refused at the chip file's chip.hbm.capacity.
void check_single_chip_fit(const workloads::ModelConfig& model, const models::ChipParams& chip,
                           int64_t batch, int64_t tokens, const std::string& chip_file);

// A mapped model: every chip role's weights + KV cache + activations at the last decode step
// (batch sequences of `context` tokens) against the chip's HBM (workloads::check_fit).
void check_mapped_fit(const workloads::ModelConfig& model, const workloads::PoolMapping& mapping,
                      const models::ChipParams& chip, int64_t batch, int64_t context);

// A power cap at or below the static power the chip draws at its lowest operating point (leakage
// scales with the voltage) cannot be held at any clock.
void check_power_cap(Power cap, const models::ChipParams& chip, const SourceLocation& where,
                     const std::string& field);

}  // namespace scoville::serving
