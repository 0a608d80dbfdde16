// The area and cost view of a chip (`scoville area`): a terminal table, JSON, CSV and HDF5 of
// the area breakdown (per component and die) and the cost breakdown (per term), and the delta
// against a baseline chip when one is given (a --set change or --compare file).
#pragma once

#include <ostream>
#include <string>

#include "models/area/cost_model.hpp"
#include "sim/config/area_loader.hpp"
#include "sim/output/provenance.hpp"

namespace scoville::output {

struct AreaReport {
  std::string label;  // chip name, with the changes applied ("h200 with tiles.count=160")
  std::string chip_file;
  models::AreaBreakdown area;
  models::CostBreakdown cost;
};

// Runs the area and cost models on loaded inputs; `label` names the variant in outputs.
AreaReport area_report(const config::AreaInputs& inputs, const std::string& label);

// `base` (may be null): the chip the change is measured against.
void render_area_text(std::ostream& out, const AreaReport& report, const AreaReport* base);
void render_area_json(std::ostream& out, const AreaReport& report, const AreaReport* base);

// One row per area item and per cost item (kind column "area" / "cost"), for the report and,
// when given, the baseline (variant column "base" / "changed"). Written atomically.
void write_area_csv(const std::string& path, const AreaReport& report, const AreaReport* base);
void write_area_h5(const std::string& path, const AreaReport& report, const AreaReport* base,
                   const Provenance& provenance);

}  // namespace scoville::output
