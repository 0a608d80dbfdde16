// The two pieces every JSON writer needs: string escaping and numbers that read back exactly.
#pragma once

#include <string>

namespace scoville::output {

std::string json_escape(const std::string& s);
// %.17g: reads back as the same double, so JSON outputs are exact; non-finite values are null.
std::string json_number(double v);

}  // namespace scoville::output
