// A registry of named factories for open sets (topologies, collectives, KV placements, ...).
// Registration is explicit (a register_all() per library), never by static initialisers.
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace scoville {

template <class Product, class... Args>
class Registry {
 public:
  using Factory = std::function<Product(Args...)>;

  explicit Registry(std::string what) : what_(std::move(what)) {}

  void add(const std::string& name, Factory factory) {
    if (!factories_.emplace(name, std::move(factory)).second) {
      throw std::logic_error(what_ + " '" + name + "' registered twice");
    }
  }
  bool contains(const std::string& name) const { return factories_.count(name) != 0; }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& entry : factories_) out.push_back(entry.first);
    return out;
  }
  // Throws std::out_of_range naming the known entries when `name` is unknown; callers that
  // read user input check contains() first and report a located error.
  Product create(const std::string& name, Args... args) const {
    const auto it = factories_.find(name);
    if (it == factories_.end()) {
      std::string known;
      for (const auto& entry : factories_) known += (known.empty() ? "" : ", ") + entry.first;
      throw std::out_of_range("unknown " + what_ + " '" + name + "'; known: " + known);
    }
    return it->second(args...);
  }

 private:
  std::string what_;
  std::map<std::string, Factory> factories_;
};

}  // namespace scoville
