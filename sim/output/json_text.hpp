// Moved to sim/base/json_text.hpp (the engine writes JSON too, and may not include sim/output:
// docs/architecture.md). Kept until the writers that include it here are switched over.
#pragma once

#include "sim/base/json_text.hpp"
