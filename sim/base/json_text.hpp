// The two pieces every JSON writer needs: string escaping and numbers that read back exactly.
#pragma once

#include <string>

namespace scoville::output {

std::string json_escape(const std::string& s);
// The shortest decimal that reads back as the same double (std::to_chars), so JSON outputs are
// exact and short; non-finite values are null (JSON has no NaN or infinity).
std::string json_number(double v);

}  // namespace scoville::output
