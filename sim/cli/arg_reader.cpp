#include "sim/cli/arg_reader.hpp"

#include <charconv>
#include <utility>

namespace scoville::cli {

ArgReader::ArgReader(std::string command, std::vector<std::string> args)
    : command_(std::move(command)), args_(std::move(args)) {}

bool ArgReader::next() {
  if (started_) ++index_;
  started_ = true;
  return index_ < args_.size();
}

const std::string& ArgReader::value() {
  if (index_ + 1 >= args_.size()) throw UsageError{current() + " needs a value"};
  ++index_;
  return args_[index_];
}

long long ArgReader::count() {
  const std::string flag = current();
  return parse_count(flag, value());
}

std::vector<std::string> ArgReader::list() {
  const std::string flag = current();
  std::vector<std::string> items = split_list(value());
  if (items.empty()) throw UsageError{flag + " needs at least one value"};
  return items;
}

std::vector<long long> ArgReader::count_list() {
  const std::string flag = current();
  std::vector<long long> out;
  for (const std::string& item : list()) out.push_back(parse_count(flag, item));
  return out;
}

void ArgReader::unknown() const {
  throw UsageError{"unknown option '" + current() + "' for '" + command_ + "'"};
}

long long parse_count(const std::string& flag, const std::string& value) {
  long long out = 0;
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (ec != std::errc() || ptr != value.data() + value.size() || out < 0) {
    throw UsageError{flag + " expects a whole number >= 0, got '" + value + "'"};
  }
  return out;
}

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string item =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace scoville::cli
