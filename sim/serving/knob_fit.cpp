#include "sim/serving/knob_fit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace scoville::serving {

namespace {

// Overheads may be zero, which log space cannot reach: search log(t + offset) instead, with an
// offset a thousandth of the upper bound (the resolution near zero).
double offset_of(const KnobSpec& k) { return k.unit == "s" ? k.hi * 1e-3 : 0.0; }
double to_u(const KnobSpec& k, double v) { return std::log(v + offset_of(k)); }
double from_u(const KnobSpec& k, double u) {
  return std::clamp(std::exp(u) - offset_of(k), k.lo, k.hi);
}

int class_of(const std::string& suffix) {
  if (suffix == "gemm") return 0;
  if (suffix == "attention") return 1;
  if (suffix == "other") return 2;
  return -1;  // "all"
}

}  // namespace

const std::vector<KnobSpec>& knob_specs() {
  static const std::vector<KnobSpec> specs = [] {
    std::vector<KnobSpec> s;
    const char* classes[] = {"gemm", "attention", "other", "all"};
    for (const char* c : classes) {
      s.push_back({std::string("compute_efficiency.") + c, 0.2, 1.0, "",
                   "achieved fraction of peak math rate (tiling waste, clocks, kernel quality)"});
    }
    for (const char* c : classes) {
      s.push_back({std::string("bandwidth_efficiency.") + c, 0.2, 1.0, "",
                   "achieved fraction of HBM bandwidth (access pattern, paged KV gathers)"});
    }
    s.push_back({"per_op_overhead", 0.0, 20e-6, "s",
                 "time per op beyond the software profile (launch gaps, kernel tails)"});
    s.push_back({"per_iteration_overhead", 0.0, 20e-3, "s",
                 "time per iteration beyond the profile (scheduler, sampling, host sync)"});
    s.push_back({"per_sequence_overhead", 0.0, 100e-6, "s",
                 "time per sequence of an iteration beyond the profile (host work growing with "
                 "the batch)"});
    return s;
  }();
  return specs;
}

const KnobSpec& knob_spec(const std::string& name) {
  std::string known;
  for (const KnobSpec& k : knob_specs()) {
    if (k.name == name) return k;
    known += (known.empty() ? "" : ", ") + k.name;
  }
  throw std::invalid_argument("unknown knob '" + name + "' (known: " + known + ")");
}

void set_knob(EfficiencyKnobs& knobs, const std::string& name, double value) {
  knob_spec(name);
  if (name == "per_op_overhead") {
    knobs.per_op = Duration(value);
    return;
  }
  if (name == "per_iteration_overhead") {
    knobs.per_iteration = Duration(value);
    return;
  }
  if (name == "per_sequence_overhead") {
    knobs.per_sequence = Duration(value);
    return;
  }
  const size_t dot = name.find('.');
  auto& target = name.compare(0, dot, "compute_efficiency") == 0 ? knobs.compute : knobs.bandwidth;
  const int c = class_of(name.substr(dot + 1));
  if (c < 0) {
    target.fill(value);
  } else {
    target[static_cast<size_t>(c)] = value;
  }
}

double get_knob(const EfficiencyKnobs& knobs, const std::string& name) {
  knob_spec(name);
  if (name == "per_op_overhead") return knobs.per_op.si();
  if (name == "per_iteration_overhead") return knobs.per_iteration.si();
  if (name == "per_sequence_overhead") return knobs.per_sequence.si();
  const size_t dot = name.find('.');
  const auto& source =
      name.compare(0, dot, "compute_efficiency") == 0 ? knobs.compute : knobs.bandwidth;
  const int c = class_of(name.substr(dot + 1));
  return source[static_cast<size_t>(std::max(c, 0))];  // "all": the classes are tied
}

const KnobSpec& FitOptions::spec(const std::string& name) const {
  const KnobSpec& generic = knob_spec(name);  // an unknown name throws here
  for (const KnobSpec& b : bounds) {
    if (b.name == name) return b;
  }
  return generic;
}

JointFitResult fit_knob_sets(
    const std::vector<KnobSlot>& slots, const std::vector<EfficiencyKnobs>& start,
    const std::function<double(const std::vector<EfficiencyKnobs>&)>& objective,
    const FitOptions& options) {
  for (const KnobSlot& slot : slots) {
    if (slot.set >= start.size()) throw std::invalid_argument("knob slot of no knob set");
  }
  for (const KnobSpec& b : options.bounds) {
    const KnobSpec& generic = knob_spec(b.name);
    if (!(b.lo >= generic.lo && b.hi <= generic.hi && b.lo <= b.hi)) {
      throw std::invalid_argument("bounds of " + b.name + " outside the knob's range");
    }
  }
  JointFitResult r;
  r.knobs = start;
  auto eval = [&](const std::vector<EfficiencyKnobs>& k) {
    ++r.evaluations;
    return objective(k);
  };
  r.before = eval(r.knobs);
  double best = r.before;
  const double inv_phi = (std::sqrt(5.0) - 1.0) / 2.0;
  for (int sweep = 0; sweep < options.sweeps; ++sweep) {
    for (const KnobSlot& slot : slots) {
      const KnobSpec& spec = options.spec(slot.name);
      double a = to_u(spec, spec.lo), b = to_u(spec, spec.hi);
      auto at = [&](double u) {
        std::vector<EfficiencyKnobs> k = r.knobs;
        set_knob(k[slot.set], slot.name, from_u(spec, u));
        return eval(k);
      };
      double c = b - inv_phi * (b - a), dpt = a + inv_phi * (b - a);
      double fc = at(c), fd = at(dpt);
      for (int i = 0; i < options.golden_steps; ++i) {
        if (fc <= fd) {
          b = dpt;
          dpt = c;
          fd = fc;
          c = b - inv_phi * (b - a);
          fc = at(c);
        } else {
          a = c;
          c = dpt;
          fc = fd;
          dpt = a + inv_phi * (b - a);
          fd = at(dpt);
        }
      }
      const double u = fc <= fd ? c : dpt;
      const double f = std::min(fc, fd);
      if (f < best) {  // only an improvement moves the knob
        best = f;
        set_knob(r.knobs[slot.set], slot.name, from_u(spec, u));
      }
    }
  }
  // Coordinate descent crawls along valleys where knobs trade off (a lower bandwidth fraction
  // against a larger overhead fit the same rows almost equally); a Nelder-Mead polish in the
  // same log coordinates, scaled to [0, 1] per knob and clamped to the bounds, follows them.
  const size_t n = slots.size();
  if (options.simplex_evaluations > 0 && n > 0) {
    auto to_x = [&](const std::vector<EfficiencyKnobs>& k) {
      std::vector<double> x(n);
      for (size_t i = 0; i < n; ++i) {
        const KnobSpec& spec = options.spec(slots[i].name);
        const double a = to_u(spec, spec.lo), b = to_u(spec, spec.hi);
        x[i] = (to_u(spec, get_knob(k[slots[i].set], slots[i].name)) - a) / (b - a);
      }
      return x;
    };
    auto knobs_at = [&](std::vector<double> x) {
      std::vector<EfficiencyKnobs> k = r.knobs;
      for (size_t i = 0; i < n; ++i) {
        const KnobSpec& spec = options.spec(slots[i].name);
        const double a = to_u(spec, spec.lo), b = to_u(spec, spec.hi);
        set_knob(k[slots[i].set], slots[i].name,
                 from_u(spec, a + std::clamp(x[i], 0.0, 1.0) * (b - a)));
      }
      return k;
    };
    const int budget = r.evaluations + options.simplex_evaluations;
    std::vector<std::vector<double>> xs{to_x(r.knobs)};
    std::vector<double> fs{best};
    for (size_t i = 0; i < n; ++i) {
      std::vector<double> x = xs.front();
      x[i] += x[i] > 0.85 ? -0.1 : 0.1;  // step inward from a bound
      xs.push_back(x);
      fs.push_back(eval(knobs_at(x)));
    }
    while (r.evaluations < budget) {
      std::vector<size_t> order(n + 1);
      for (size_t i = 0; i <= n; ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return fs[a] < fs[b]; });
      const size_t lo = order.front(), hi = order.back(), second = order[n - 1];
      double spread = 0;
      for (size_t i = 0; i <= n; ++i) {
        for (size_t j = 0; j < n; ++j) spread = std::max(spread, std::fabs(xs[i][j] - xs[lo][j]));
      }
      if (spread < 1e-4) break;
      std::vector<double> centre(n, 0.0);
      for (size_t i = 0; i <= n; ++i) {
        if (i == hi) continue;
        for (size_t j = 0; j < n; ++j) centre[j] += xs[i][j] / static_cast<double>(n);
      }
      auto along = [&](double t) {
        std::vector<double> x(n);
        for (size_t j = 0; j < n; ++j)
          x[j] = std::clamp(centre[j] + t * (xs[hi][j] - centre[j]), 0.0, 1.0);
        return x;
      };
      const std::vector<double> xr = along(-1.0);
      const double fr = eval(knobs_at(xr));
      if (fr < fs[lo]) {
        const std::vector<double> xe = along(-2.0);
        const double fe = eval(knobs_at(xe));
        xs[hi] = fe < fr ? xe : xr;
        fs[hi] = std::min(fe, fr);
      } else if (fr < fs[second]) {
        xs[hi] = xr;
        fs[hi] = fr;
      } else {
        const std::vector<double> xc = along(fr < fs[hi] ? -0.5 : 0.5);
        const double fc = eval(knobs_at(xc));
        if (fc < std::min(fr, fs[hi])) {
          xs[hi] = xc;
          fs[hi] = fc;
        } else {  // shrink towards the best
          for (size_t i = 0; i <= n; ++i) {
            if (i == lo) continue;
            for (size_t j = 0; j < n; ++j) xs[i][j] = xs[lo][j] + 0.5 * (xs[i][j] - xs[lo][j]);
            fs[i] = eval(knobs_at(xs[i]));
          }
        }
      }
    }
    size_t arg = 0;
    for (size_t i = 1; i <= n; ++i) {
      if (fs[i] < fs[arg]) arg = i;
    }
    if (fs[arg] < best) {
      best = fs[arg];
      r.knobs = knobs_at(xs[arg]);
    }
  }
  r.after = best;
  return r;
}

FitResult fit_knobs(const std::vector<std::string>& names, const EfficiencyKnobs& start,
                    const std::function<double(const EfficiencyKnobs&)>& objective,
                    const FitOptions& options) {
  std::vector<KnobSlot> slots;
  for (const std::string& name : names) slots.push_back({name, 0});
  const JointFitResult joint = fit_knob_sets(
      slots, {start}, [&](const std::vector<EfficiencyKnobs>& k) { return objective(k.front()); },
      options);
  FitResult r;
  r.knobs = joint.knobs.front();
  r.before = joint.before;
  r.after = joint.after;
  r.evaluations = joint.evaluations;
  return r;
}

}  // namespace scoville::serving
