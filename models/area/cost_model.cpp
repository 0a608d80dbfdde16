#include "models/area/cost_model.hpp"

#include <cmath>
#include <stdexcept>

namespace scoville::models {

double dies_per_wafer(Area die, double wafer_diameter_m) {
  if (die.si() <= 0) throw std::invalid_argument("dies_per_wafer: die area must be positive");
  const double pi = std::acos(-1.0);
  const double r = wafer_diameter_m / 2.0;
  const double n = pi * r * r / die.si() - pi * wafer_diameter_m / std::sqrt(2.0 * die.si());
  return n > 0 ? std::floor(n) : 0.0;
}

double die_yield(Area die, double d0, YieldModel model, double cluster_alpha) {
  const double ad = die.si() * d0;  // expected defects per die
  if (ad <= 0) return 1.0;
  if (model == YieldModel::kMurphy) {
    const double f = (1.0 - std::exp(-ad)) / ad;
    return f * f;
  }
  return std::pow(1.0 + ad / cluster_alpha, -cluster_alpha);
}

CostBreakdown estimate_cost(const AreaBreakdown& area, const ChipParams& chip,
                            int64_t physical_hbm_stacks,
                            const std::map<std::string, ProcessNode>& nodes,
                            const CostParams& cost) {
  CostBreakdown out;
  for (const DieArea& d : area.dies) {
    const auto node = nodes.find(d.node);
    if (node == nodes.end()) throw std::invalid_argument("estimate_cost: no node '" + d.node + "'");
    DieCost c;
    c.kind = d.kind;
    c.node = d.node;
    c.count = d.count;
    c.per_die = d.per_die;
    c.dies_per_wafer = dies_per_wafer(d.per_die, cost.wafer_diameter_m);
    c.yield =
        die_yield(d.per_die, node->second.defect_density, cost.yield_model, cost.cluster_alpha);
    c.wafer_price = node->second.wafer_price;
    const double good = c.dies_per_wafer * c.yield;
    if (good <= 0) {
      throw std::invalid_argument("estimate_cost: a " + std::string(to_string(d.kind)) +
                                  " die of this area yields no good die per wafer");
    }
    c.per_good_die = c.wafer_price / good;
    out.dies.push_back(c);
    out.items.push_back({std::string(to_string(d.kind)) + " dies (" + d.node + ")",
                         static_cast<double>(d.count), "good die", c.per_good_die,
                         c.per_good_die * static_cast<double>(d.count)});
  }
  const double gb = chip.hbm.capacity.si() / 1e9;
  out.items.push_back({"HBM", gb, "GB", cost.hbm_per_gb, cost.hbm_per_gb * gb});
  // AMD's compute dies sit on their I/O dies: only the base dies take interposer area.
  Area footprint;
  for (const DieArea& d : area.dies) {
    const bool stacked = d.kind == DieKind::kCompute && area.dies.size() > 1;
    if (!stacked) footprint += d.per_die * static_cast<double>(d.count);
  }
  footprint += cost.hbm_stack_footprint * static_cast<double>(physical_hbm_stacks);
  out.interposer = footprint * cost.interposer_over_silicon;
  const double interposer_mm2 = in_mm2(out.interposer);
  out.items.push_back({"2.5D packaging (interposer)", interposer_mm2, "mm^2",
                       cost.interposer_per_mm2, cost.interposer_per_mm2 * interposer_mm2});
  out.items.push_back(
      {"test and assembly", 1, "package", cost.test_and_assembly, cost.test_and_assembly});
  for (const CostItem& i : out.items) out.total += i.total;
  return out;
}

}  // namespace scoville::models
