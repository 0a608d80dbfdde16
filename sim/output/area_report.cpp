#include "sim/output/area_report.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>
#include <vector>

#include "sim/base/atomic_file.hpp"
#include "sim/base/json_text.hpp"
#include "sim/output/h5_writer.hpp"

namespace scoville::output {

namespace {

using models::in_mm2;

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string signed_percent(double v, double base) {
  if (base == 0) return "n/a";
  std::ostringstream s;
  s << std::showpos << std::fixed << std::setprecision(1) << 100.0 * (v - base) / base << "%";
  return s.str();
}

// The same component in the baseline (0 when it has none).
double base_area(const AreaReport* base, const models::AreaItem& item) {
  if (base == nullptr) return 0;
  for (const models::AreaItem& b : base->area.items) {
    if (b.component == item.component && b.die == item.die) return in_mm2(b.total);
  }
  return 0;
}

void print_totals(std::ostream& out, const AreaReport& r) {
  for (const models::DieArea& d : r.area.dies) {
    out << "  " << d.count << " x " << models::to_string(d.kind) << " die (" << d.node
        << "): " << fixed(in_mm2(d.per_die), 1) << " mm^2 each";
    if (d.published_per_die.si() > 0) {
      out << ", published " << fixed(in_mm2(d.published_per_die), 0) << " mm^2 ("
          << signed_percent(in_mm2(d.per_die), in_mm2(d.published_per_die)) << ")";
    }
    out << (d.over_reticle ? "  OVER RETICLE" : "") << "\n";
  }
  out << "  total silicon " << fixed(in_mm2(r.area.total_silicon), 1) << " mm^2, interposer "
      << fixed(in_mm2(r.cost.interposer), 0) << " mm^2\n";
}

}  // namespace

AreaReport area_report(const config::AreaInputs& in, const std::string& label) {
  AreaReport r;
  r.label = label;
  r.chip_file = in.chip_file;
  models::AreaNodes nodes;
  nodes.compute = &in.nodes.at(in.profile.node);
  if (in.profile.io_dies > 0) nodes.io = &in.nodes.at(in.profile.io_node);
  r.area = models::estimate_area(in.chip, in.profile, in.components, nodes, in.cost.reticle_limit);
  r.cost = models::estimate_cost(r.area, in.chip, models::physical_hbm_stacks(in.chip, in.profile),
                                 in.nodes, in.cost);
  return r;
}

void render_area_text(std::ostream& out, const AreaReport& r, const AreaReport* base) {
  out << "area and cost of " << r.label << " (" << r.chip_file << ")\n";
  if (base != nullptr) out << "compared with " << base->label << " (" << base->chip_file << ")\n";
  out << "\n"
      << std::left << std::setw(36) << "component" << std::setw(9) << "die" << std::right
      << std::setw(14) << "count" << std::setw(16) << "unit" << std::setw(13) << "mm^2/unit"
      << std::setw(11) << "mm^2";
  if (base != nullptr) out << std::setw(11) << "delta";
  out << "\n";
  for (const models::AreaItem& i : r.area.items) {
    out << std::left << std::setw(36) << i.component << std::setw(9) << models::to_string(i.die)
        << std::right << std::setw(14) << fixed(i.count, i.count < 10 ? 2 : 0) << std::setw(16)
        << i.unit << std::setw(13) << fixed(in_mm2(i.per_unit), 4) << std::setw(11)
        << fixed(in_mm2(i.total), 1);
    if (base != nullptr) {
      const double b = base_area(base, i);
      out << std::setw(11) << (b == 0 ? "new" : signed_percent(in_mm2(i.total), b));
    }
    out << "\n";
  }
  print_totals(out, r);
  out << "\n"
      << std::left << std::setw(36) << "cost term" << std::right << std::setw(12) << "count"
      << std::setw(12) << "unit" << std::setw(14) << "USD/unit" << std::setw(12) << "USD"
      << "\n";
  for (const models::CostItem& c : r.cost.items) {
    out << std::left << std::setw(36) << c.component << std::right << std::setw(12)
        << fixed(c.count, c.count < 10 ? 0 : 1) << std::setw(12) << c.unit << std::setw(14)
        << fixed(c.per_unit.si(), 2) << std::setw(12) << fixed(c.total.si(), 0) << "\n";
  }
  for (const models::DieCost& d : r.cost.dies) {
    out << "  " << models::to_string(d.kind) << " die: " << fixed(d.dies_per_wafer, 0)
        << " per wafer, yield " << fixed(100.0 * d.yield, 1) << "%, wafer $"
        << fixed(d.wafer_price.si(), 0) << "\n";
  }
  out << "  total $" << fixed(r.cost.total.si(), 0) << " per package\n";
  if (base != nullptr) {
    out << "\nchange: silicon " << fixed(in_mm2(r.area.total_silicon), 1) << " mm^2 vs "
        << fixed(in_mm2(base->area.total_silicon), 1) << " ("
        << signed_percent(in_mm2(r.area.total_silicon), in_mm2(base->area.total_silicon))
        << "), cost $" << fixed(r.cost.total.si(), 0) << " vs $" << fixed(base->cost.total.si(), 0)
        << " (" << signed_percent(r.cost.total.si(), base->cost.total.si()) << ")\n";
  }
  for (const std::string& n : r.area.notes) out << "note: " << n << "\n";
}

namespace {

void json_report(std::ostream& out, const AreaReport& r) {
  out << "{\"label\": \"" << json_escape(r.label) << "\", \"chip_file\": \""
      << json_escape(r.chip_file) << "\", \"area_mm2\": [";
  for (size_t k = 0; k < r.area.items.size(); ++k) {
    const models::AreaItem& i = r.area.items[k];
    out << (k ? ", " : "") << "{\"component\": \"" << json_escape(i.component) << "\", \"die\": \""
        << models::to_string(i.die) << "\", \"count\": " << json_number(i.count) << ", \"unit\": \""
        << json_escape(i.unit) << "\", \"per_unit\": " << json_number(in_mm2(i.per_unit))
        << ", \"total\": " << json_number(in_mm2(i.total)) << "}";
  }
  out << "], \"dies\": [";
  for (size_t k = 0; k < r.area.dies.size(); ++k) {
    const models::DieArea& d = r.area.dies[k];
    out << (k ? ", " : "") << "{\"kind\": \"" << models::to_string(d.kind) << "\", \"node\": \""
        << json_escape(d.node) << "\", \"count\": " << d.count
        << ", \"per_die_mm2\": " << json_number(in_mm2(d.per_die))
        << ", \"published_per_die_mm2\": " << json_number(in_mm2(d.published_per_die))
        << ", \"over_reticle\": " << (d.over_reticle ? "true" : "false") << "}";
  }
  out << "], \"total_silicon_mm2\": " << json_number(in_mm2(r.area.total_silicon))
      << ", \"interposer_mm2\": " << json_number(in_mm2(r.cost.interposer)) << ", \"cost_usd\": [";
  for (size_t k = 0; k < r.cost.items.size(); ++k) {
    const models::CostItem& c = r.cost.items[k];
    out << (k ? ", " : "") << "{\"term\": \"" << json_escape(c.component)
        << "\", \"count\": " << json_number(c.count) << ", \"unit\": \"" << json_escape(c.unit)
        << "\", \"per_unit\": " << json_number(c.per_unit.si())
        << ", \"total\": " << json_number(c.total.si()) << "}";
  }
  out << "], \"die_yield\": [";
  for (size_t k = 0; k < r.cost.dies.size(); ++k) {
    const models::DieCost& d = r.cost.dies[k];
    out << (k ? ", " : "") << "{\"kind\": \"" << models::to_string(d.kind)
        << "\", \"dies_per_wafer\": " << json_number(d.dies_per_wafer)
        << ", \"yield\": " << json_number(d.yield)
        << ", \"per_good_die_usd\": " << json_number(d.per_good_die.si()) << "}";
  }
  out << "], \"total_cost_usd\": " << json_number(r.cost.total.si()) << ", \"notes\": [";
  for (size_t k = 0; k < r.area.notes.size(); ++k) {
    out << (k ? ", " : "") << "\"" << json_escape(r.area.notes[k]) << "\"";
  }
  out << "]}";
}

struct Rows {
  std::vector<std::string> variant, kind, item, die, unit;
  std::vector<double> count, per_unit, total;
};

void add_rows(Rows& rows, const AreaReport& r, const std::string& variant) {
  for (const models::AreaItem& i : r.area.items) {
    rows.variant.push_back(variant);
    rows.kind.push_back("area_mm2");
    rows.item.push_back(i.component);
    rows.die.push_back(models::to_string(i.die));
    rows.unit.push_back(i.unit);
    rows.count.push_back(i.count);
    rows.per_unit.push_back(in_mm2(i.per_unit));
    rows.total.push_back(in_mm2(i.total));
  }
  for (const models::CostItem& c : r.cost.items) {
    rows.variant.push_back(variant);
    rows.kind.push_back("cost_usd");
    rows.item.push_back(c.component);
    rows.die.push_back("");
    rows.unit.push_back(c.unit);
    rows.count.push_back(c.count);
    rows.per_unit.push_back(c.per_unit.si());
    rows.total.push_back(c.total.si());
  }
}

Rows all_rows(const AreaReport& r, const AreaReport* base) {
  Rows rows;
  if (base != nullptr) add_rows(rows, *base, "base");
  add_rows(rows, r, base != nullptr ? "changed" : "chip");
  return rows;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

void render_area_json(std::ostream& out, const AreaReport& r, const AreaReport* base) {
  out << "{\"chip\": ";
  json_report(out, r);
  if (base != nullptr) {
    out << ", \"base\": ";
    json_report(out, *base);
    out << ", \"delta_silicon_mm2\": "
        << json_number(in_mm2(r.area.total_silicon) - in_mm2(base->area.total_silicon))
        << ", \"delta_cost_usd\": " << json_number(r.cost.total.si() - base->cost.total.si());
  }
  out << "}\n";
}

void write_area_csv(const std::string& path, const AreaReport& r, const AreaReport* base) {
  const Rows rows = all_rows(r, base);
  std::ostringstream s;
  s << "variant,kind,item,die,unit,count,per_unit,total\n";
  for (size_t i = 0; i < rows.item.size(); ++i) {
    s << rows.variant[i] << "," << rows.kind[i] << "," << csv_field(rows.item[i]) << ","
      << rows.die[i] << "," << csv_field(rows.unit[i]) << "," << json_number(rows.count[i]) << ","
      << json_number(rows.per_unit[i]) << "," << json_number(rows.total[i]) << "\n";
  }
  write_text_atomically(path, s.str());
}

void write_area_h5(const std::string& path, const AreaReport& r, const AreaReport* base,
                   const Provenance& provenance) {
  const Rows rows = all_rows(r, base);
  H5Document doc;
  doc.root_attributes = {
      {"kind", std::string("area")},           {"tool_version", provenance.tool_version},
      {"git_sha", provenance.git_sha},         {"command_line", provenance.command_line},
      {"created_utc", provenance.created_utc}, {"chip", r.label}};
  // per_unit and total are mm^2 on area rows and USD on cost rows: the kind column says which.
  doc.tables.push_back({"/breakdown",
                        {{"variant", "1", rows.variant},
                         {"kind", "1", rows.kind},
                         {"item", "1", rows.item},
                         {"die", "1", rows.die},
                         {"unit", "1", rows.unit},
                         {"count", "1", rows.count},
                         {"per_unit", "mm^2 or USD (see kind)", rows.per_unit},
                         {"total", "mm^2 or USD (see kind)", rows.total}},
                        {}});
  doc.groups.push_back({"/summary",
                        {{"total_silicon_mm2", in_mm2(r.area.total_silicon)},
                         {"interposer_mm2", in_mm2(r.cost.interposer)},
                         {"total_cost_usd", r.cost.total.si()}}});
  write_h5_atomically(doc, path);
}

}  // namespace scoville::output
