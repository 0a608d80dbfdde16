#include "models/network/collective.hpp"

#include <algorithm>
#include <map>

#include "models/network/topology.hpp"
#include "sim/base/error.hpp"
#include "sim/base/registry.hpp"

namespace scoville::models {

namespace {

using Reason = std::optional<std::string>;

Reason needs_two(const Communicator& c) {
  if (c.size() < 2) return std::string("needs at least two ranks");
  return std::nullopt;
}

Reason power_of_two(const Communicator& c) {
  if (c.size() < 2 || (c.size() & (c.size() - 1)) != 0) {
    return std::string("needs a power-of-two rank count, got ") + std::to_string(c.size());
  }
  return std::nullopt;
}

Reason hierarchical_shape(const Communicator& c) {
  if (c.domains.size() < 2) return std::string("needs ranks in at least two domains");
  for (const auto& d : c.domains) {
    if (d.size() != c.domains.front().size()) return std::string("needs equal ranks per domain");
  }
  return std::nullopt;
}

int64_t ceil_log2(int64_t n) {
  int64_t k = 0;
  while ((int64_t{1} << k) < n) ++k;
  return k;
}

// Every rank sends `bytes` to its successor on `ring`, `repeat` times.
Step ring_step(const std::vector<int32_t>& ring, Bytes bytes, int64_t repeat, std::string label) {
  Step s;
  const size_t n = ring.size();
  for (size_t i = 0; i < n; ++i) s.transfers.push_back({ring[i], ring[(i + 1) % n], bytes});
  s.repeat = repeat;
  s.label = std::move(label);
  return s;
}

// Several disjoint rings advancing together (one per domain, or one per local rank).
Step rings_step(const std::vector<std::vector<int32_t>>& rings, Bytes bytes, int64_t repeat,
                std::string label) {
  Step s;
  for (const auto& ring : rings) {
    for (const Transfer& t : ring_step(ring, bytes, 1, "").transfers) s.transfers.push_back(t);
  }
  s.repeat = repeat;
  s.label = std::move(label);
  return s;
}

Step all_pairs(const Communicator& c, Bytes bytes, std::string label) {
  Step s;
  s.all_pairs_members = c.ring;
  s.all_pairs_bytes = bytes;
  s.label = std::move(label);
  return s;
}

// Partners at distance d in rank index (i xor d), each sending `bytes`.
Step exchange_step(const Communicator& c, int64_t d, Bytes bytes, std::string label) {
  Step s;
  for (int64_t i = 0; i < c.size(); ++i) {
    s.transfers.push_back(
        {c.ring[static_cast<size_t>(i)], c.ring[static_cast<size_t>(i ^ d)], bytes});
  }
  s.label = std::move(label);
  return s;
}

void append(Schedule& to, Schedule from) {
  for (Step& s : from) to.push_back(std::move(s));
}

Schedule halving(const Communicator& c, Bytes size) {
  Schedule out;
  int64_t parts = 2;
  for (int64_t d = c.size() / 2; d >= 1; d /= 2, parts *= 2) {
    out.push_back(exchange_step(c, d, size / static_cast<double>(parts), "recursive halving"));
  }
  return out;
}

Schedule doubling(const Communicator& c, Bytes size) {
  Schedule out;
  const Bytes piece = size / static_cast<double>(c.size());
  for (int64_t d = 1; d < c.size(); d *= 2) {
    out.push_back(exchange_step(c, d, piece * static_cast<double>(d), "recursive doubling"));
  }
  return out;
}

// Binomial tree on rank indices rooted at rank 0: reduce towards the root.
Schedule tree_reduce(const Communicator& c, Bytes size) {
  Schedule out;
  const int64_t n = c.size();
  for (int64_t k = 0; (int64_t{1} << k) < n; ++k) {
    Step s;
    const int64_t half = int64_t{1} << k;
    for (int64_t i = half; i < n; i += 2 * half) {
      s.transfers.push_back(
          {c.ring[static_cast<size_t>(i)], c.ring[static_cast<size_t>(i - half)], size});
    }
    s.label = "tree reduce";
    out.push_back(std::move(s));
  }
  return out;
}

Schedule tree_broadcast(const Communicator& c, Bytes size) {
  Schedule out;
  const int64_t n = c.size();
  for (int64_t k = ceil_log2(n) - 1; k >= 0; --k) {
    Step s;
    const int64_t half = int64_t{1} << k;
    for (int64_t i = 0; i + half < n; i += 2 * half) {
      s.transfers.push_back(
          {c.ring[static_cast<size_t>(i)], c.ring[static_cast<size_t>(i + half)], size});
    }
    s.label = "tree broadcast";
    out.push_back(std::move(s));
  }
  return out;
}

// Ring broadcast from rank 0, pipelined in kBroadcastChunks chunks: at step t rank p forwards
// chunk t - p to rank p + 1.
Schedule ring_broadcast(const Communicator& c, Bytes size) {
  Schedule out;
  const int64_t n = c.size(), C = kBroadcastChunks;
  const Bytes chunk = size / static_cast<double>(C);
  for (int64_t t = 0; t < C + n - 2; ++t) {
    Step s;
    for (int64_t p = 0; p + 1 < n; ++p) {
      if (t - p >= 0 && t - p < C) {
        s.transfers.push_back(
            {c.ring[static_cast<size_t>(p)], c.ring[static_cast<size_t>(p + 1)], chunk});
      }
    }
    s.label = "ring broadcast";
    out.push_back(std::move(s));
  }
  return out;
}

// Rank i of every domain, across domains (the scale-out rings of a hierarchical collective).
std::vector<std::vector<int32_t>> cross_domain_rings(const Communicator& c) {
  std::vector<std::vector<int32_t>> rings(c.domains.front().size());
  for (const auto& d : c.domains) {
    for (size_t i = 0; i < d.size(); ++i) rings[i].push_back(d[i]);
  }
  return rings;
}

Schedule hierarchical_all_reduce(const Communicator& c, Bytes size) {
  const auto L = static_cast<int64_t>(c.domains.front().size());
  const auto D = static_cast<int64_t>(c.domains.size());
  const Bytes local_piece = size / static_cast<double>(L);
  Schedule out;
  if (L > 1) out.push_back(rings_step(c.domains, local_piece, L - 1, "local reduce-scatter"));
  out.push_back(rings_step(cross_domain_rings(c), local_piece / static_cast<double>(D), 2 * (D - 1),
                           "scale-out all-reduce"));
  if (L > 1) out.push_back(rings_step(c.domains, local_piece, L - 1, "local all-gather"));
  return out;
}

double n_minus_1_over_n(int64_t n) { return static_cast<double>(n - 1) / static_cast<double>(n); }

Registry<CollectiveDef> make_registry() {
  Registry<CollectiveDef> r("collective");
  const auto n_of = [](const Communicator& c) { return static_cast<double>(c.size()); };

  CollectiveDef all_reduce{"all_reduce", [](int64_t n) { return 2 * n_minus_1_over_n(n); }, {}};
  all_reduce.algorithms = {
      {"ring", needs_two,
       [=](const Communicator& c, Bytes s) {
         return Schedule{ring_step(c.ring, s / n_of(c), 2 * (c.size() - 1), "ring")};
       }},
      {"tree", needs_two,
       [](const Communicator& c, Bytes s) {
         Schedule out = tree_reduce(c, s);
         append(out, tree_broadcast(c, s));
         return out;
       }},
      {"direct", needs_two,
       [=](const Communicator& c, Bytes s) {
         return Schedule{all_pairs(c, s / n_of(c), "direct reduce-scatter"),
                         all_pairs(c, s / n_of(c), "direct all-gather")};
       }},
      {"recursive_halving_doubling", power_of_two,
       [](const Communicator& c, Bytes s) {
         Schedule out = halving(c, s);
         append(out, doubling(c, s));
         return out;
       }},
      {"hierarchical", hierarchical_shape, hierarchical_all_reduce},
      // Every rank reads the whole buffer of every other rank and reduces locally: one step
      // (the custom all-reduce kernels of TensorRT-LLM, SGLang and vLLM for small sizes).
      {"one_shot", needs_two,
       [](const Communicator& c, Bytes s) { return Schedule{all_pairs(c, s, "one-shot")}; }, true},
      // NVLink SHARP: each rank's shard is reduced in the switch (multimem.ld_reduce) and
      // multicast back (multimem.st). Rank i sends S into the switch and receives S/n reduced,
      // then sends S/n and receives S; NCCL pipelines the two halves so both link directions
      // stay busy. On the flow model that is two all-pairs steps carrying (n+1)S/(2n) per rank
      // each: the same bytes per direction in total, a latency per half.
      {"nvls", needs_two,
       [=](const Communicator& c, Bytes s) {
         const double n = n_of(c);
         const Bytes per_pair = s * ((n + 1) / (2 * n * (n - 1)));
         return Schedule{all_pairs(c, per_pair, "nvls reduce-scatter (in switch)"),
                         all_pairs(c, per_pair, "nvls all-gather (multicast)")};
       },
       true},
  };
  r.add("all_reduce", [=]() { return all_reduce; });

  const auto gather_like = [=](const std::string& name, const std::string& log_name,
                               std::function<Schedule(const Communicator&, Bytes)> log_expand) {
    CollectiveDef d{name, n_minus_1_over_n, {}};
    d.algorithms = {
        {"ring", needs_two,
         [=](const Communicator& c, Bytes s) {
           return Schedule{ring_step(c.ring, s / n_of(c), c.size() - 1, "ring")};
         }},
        {"direct", needs_two,
         [=](const Communicator& c, Bytes s) {
           return Schedule{all_pairs(c, s / n_of(c), "direct")};
         }},
        {log_name, power_of_two, std::move(log_expand)},
    };
    return d;
  };
  const CollectiveDef all_gather = gather_like("all_gather", "recursive_doubling", doubling);
  const CollectiveDef reduce_scatter = gather_like("reduce_scatter", "recursive_halving", halving);
  r.add("all_gather", [=]() { return all_gather; });
  r.add("reduce_scatter", [=]() { return reduce_scatter; });

  CollectiveDef all_to_all{"all_to_all", n_minus_1_over_n, {}};
  all_to_all.algorithms = {{"direct", needs_two, [=](const Communicator& c, Bytes s) {
                              return Schedule{all_pairs(c, s / n_of(c), "direct")};
                            }}};
  r.add("all_to_all", [=]() { return all_to_all; });

  CollectiveDef broadcast{"broadcast", [](int64_t) { return 1.0; }, {}};
  broadcast.algorithms = {
      {"tree", needs_two, tree_broadcast},
      {"ring", needs_two, ring_broadcast},
      {"direct", needs_two,
       [](const Communicator& c, Bytes s) {
         Step step;
         for (size_t i = 1; i < c.ring.size(); ++i)
           step.transfers.push_back({c.ring[0], c.ring[i], s});
         step.label = "direct";
         return Schedule{step};
       }},
  };
  r.add("broadcast", [=]() { return broadcast; });

  CollectiveDef send_recv{"send_recv", [](int64_t) { return 1.0; }, {}};
  send_recv.algorithms = {{"direct", needs_two, [](const Communicator& c, Bytes s) {
                             Step step;
                             step.transfers.push_back({c.ring.front(), c.ring.back(), s});
                             step.label = "send";
                             return Schedule{step};
                           }}};
  r.add("send_recv", [=]() { return send_recv; });
  return r;
}

const Registry<CollectiveDef>& registry() {
  static const Registry<CollectiveDef> r = make_registry();
  return r;
}

}  // namespace

const Algorithm* CollectiveDef::find(const std::string& algorithm) const {
  for (const Algorithm& a : algorithms) {
    if (a.name == algorithm) return &a;
  }
  return nullptr;
}

std::vector<std::string> CollectiveDef::algorithm_names() const {
  std::vector<std::string> out;
  for (const Algorithm& a : algorithms) out.push_back(a.name);
  return out;
}

CollectiveDef collective(const std::string& name) {
  if (!registry().contains(name)) {
    std::string known;
    for (const std::string& n : registry().names()) known += (known.empty() ? "" : ", ") + n;
    throw InputError(SourceLocation{}, "collective",
                     "unknown collective '" + name + "'; known: " + known);
  }
  return registry().create(name);
}

std::vector<std::string> collective_names() { return registry().names(); }

Communicator make_communicator(const Topology& topology, int64_t ranks, int64_t first) {
  const int64_t n = ranks == 0 ? topology.endpoints() - first : ranks;
  if (first < 0 || n < 1 || first + n > topology.endpoints()) {
    const std::string from = first > 0 ? " from endpoint " + std::to_string(first) : "";
    throw InputError(SourceLocation{}, "chips",
                     "expected 1 to " +
                         std::to_string(topology.endpoints() - std::max<int64_t>(0, first)) +
                         " chips" + from + ", got " + std::to_string(n));
  }
  Communicator c;
  const int64_t domain = topology.domain_size();
  std::map<int64_t, std::vector<int32_t>> domains;  // by domain index, in ring order
  for (int32_t e : topology.ring_order()) {
    if (e < first || e >= first + n) continue;
    c.ring.push_back(e);
    domains[e / domain].push_back(e);
  }
  for (auto& [index, members] : domains) c.domains.push_back(std::move(members));
  return c;
}

Schedule all_to_allv(const Communicator& comm, const std::vector<std::vector<Bytes>>& sizes) {
  Step s;
  s.label = "direct";
  for (size_t i = 0; i < comm.ring.size(); ++i) {
    for (size_t j = 0; j < comm.ring.size(); ++j) {
      if (i != j && sizes.at(i).at(j).si() > 0)
        s.transfers.push_back({comm.ring[i], comm.ring[j], sizes[i][j]});
    }
  }
  return Schedule{s};
}

}  // namespace scoville::models
