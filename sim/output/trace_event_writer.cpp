#include "sim/output/trace_event_writer.hpp"

#include "sim/base/json_text.hpp"

namespace scoville::output {

void EventWriter::metadata(int pid, int tid, const char* what, const std::string& name) {
  begin();
  out_ << "{\"ph\":\"M\",\"pid\":" << pid << ",\"tid\":" << tid << ",\"name\":\"" << what
       << "\",\"args\":{\"name\":\"" << json_escape(name) << "\"}}";
}

void EventWriter::sort_index(int pid, int tid, const char* what, int index) {
  begin();
  out_ << "{\"ph\":\"M\",\"pid\":" << pid << ",\"tid\":" << tid << ",\"name\":\"" << what
       << "\",\"args\":{\"sort_index\":" << index << "}}";
}

bool EventWriter::slice(int pid, int tid, const std::string& name, const std::string& category,
                        Duration start, Duration duration, const std::string& args_json) {
  if (!admit(pid, std::to_string(tid))) return false;
  begin();
  out_ << "{\"ph\":\"X\",\"pid\":" << pid << ",\"tid\":" << tid << ",\"name\":\""
       << json_escape(name) << "\",\"cat\":\"" << json_escape(category)
       << "\",\"ts\":" << json_number(to_us(start)) << ",\"dur\":" << json_number(to_us(duration))
       << ",\"args\":{" << args_json << "}}";
  return true;
}

bool EventWriter::counter(int pid, const char* name, Duration at, const char* series,
                          double value) {
  if (!admit(pid, name)) return false;
  begin();
  out_ << "{\"ph\":\"C\",\"pid\":" << pid << ",\"name\":\"" << name
       << "\",\"ts\":" << json_number(to_us(at)) << ",\"args\":{\"" << series
       << "\":" << json_number(value) << "}}";
  return true;
}

void EventWriter::flow(char phase, int pid, int tid, int64_t id, const std::string& name,
                       const std::string& category, Duration at) {
  begin();
  out_ << "{\"ph\":\"" << phase << "\",\"pid\":" << pid << ",\"tid\":" << tid << ",\"id\":" << id
       << ",\"name\":\"" << json_escape(name) << "\",\"cat\":\"" << json_escape(category)
       << "\",\"ts\":" << json_number(to_us(at)) << (phase == 'f' ? ",\"bp\":\"e\"" : "") << "}";
}

int64_t EventWriter::dropped(int pid, const std::string& key) const {
  const auto it = dropped_.find({pid, key});
  return it == dropped_.end() ? 0 : it->second;
}

void EventWriter::add_dropped(int pid, const std::string& key, int64_t n) {
  dropped_[{pid, key}] += n;
  dropped_total_ += n;
}

void EventWriter::name_thread(int pid, int tid, const std::string& name) {
  const int64_t n = dropped(pid, std::to_string(tid));
  metadata(pid, tid, "thread_name",
           n == 0 ? name : name + " [" + std::to_string(n) + " more not shown]");
  sort_index(pid, tid, "thread_sort_index", tid);
}

bool EventWriter::admit(int pid, const std::string& key) {
  size_t& n = written_[{pid, key}];
  if (n >= cap_) {
    add_dropped(pid, key, 1);
    return false;
  }
  ++n;
  return true;
}

void EventWriter::begin() {
  out_ << (first_ ? "\n" : ",\n");
  first_ = false;
}

std::string arg(const char* key, double value) {
  return std::string("\"") + key + "\":" + json_number(value);
}

std::string arg(const char* key, const std::string& value) {
  return std::string("\"") + key + "\":\"" + json_escape(value) + "\"";
}

}  // namespace scoville::output
