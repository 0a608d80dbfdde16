// Manufacturing cost of a chip package from its dies' areas: each die's wafer price over its
// good dies per wafer (dies per wafer with the edge-loss term, times yield), plus HBM by
// capacity, 2.5D packaging by interposer area, and test and assembly per package. Pure; every
// term is reported so that a reader can replace any of them. Sources: arch/area/cost.yaml.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "models/area/area_model.hpp"

namespace scoville::models {

// Whole dies of `die` area on a wafer of `wafer_diameter_m`: pi r^2 / A - pi d / sqrt(2 A)
// (the second term is the partial dies lost at the edge), floored, at least 0.
double dies_per_wafer(Area die, double wafer_diameter_m);

// Fraction of dies without a killing defect at defect density d0 (per m^2):
// negative binomial (1 + A d0 / alpha)^-alpha, or Murphy ((1 - e^-A d0) / (A d0))^2.
double die_yield(Area die, double d0, YieldModel model, double cluster_alpha);

struct DieCost {
  DieKind kind = DieKind::kCompute;
  std::string node;
  int64_t count = 0;  // per package
  Area per_die;
  double dies_per_wafer = 0;
  double yield = 0;
  Money wafer_price;
  Money per_good_die;
};

struct CostItem {
  std::string component;
  double count = 0;
  std::string unit;
  Money per_unit;
  Money total;
};

struct CostBreakdown {
  std::vector<DieCost> dies;
  std::vector<CostItem> items;  // dies first, then HBM, packaging, test
  Area interposer;
  Money total;
};

// `nodes` holds every node named by area.dies. HBM capacity is the chip file's (bytes sold).
CostBreakdown estimate_cost(const AreaBreakdown& area, const ChipParams& chip,
                            int64_t physical_hbm_stacks,
                            const std::map<std::string, ProcessNode>& nodes,
                            const CostParams& cost);

}  // namespace scoville::models
