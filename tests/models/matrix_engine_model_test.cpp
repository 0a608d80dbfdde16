// MatrixEngineModel: cycles and utilisation of one tile's matrix engine. Expected values are
// derived from the engine parameters below.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "models/compute/matrix_engine_model.hpp"

using namespace scoville;
using namespace scoville::models;

namespace {

// A non-square array so that swapped rows/cols would show.
MatrixEngineParams engine_params() {
  MatrixEngineParams p;
  p.rows = 16;
  p.cols = 8;
  p.k_per_cycle[index_of(MathPrecision::kBf16)] = 1;
  p.k_per_cycle[index_of(MathPrecision::kFp8)] = 2;
  p.k_per_cycle[index_of(MathPrecision::kFp4)] = 0;  // not supported
  p.pipeline_latency_cycles = 12;
  return p;
}

double k_per_cycle(const MatrixEngineParams& p, MathPrecision m) {
  return static_cast<double>(p.k_per_cycle[index_of(m)]);
}

}  // namespace

TEST_CASE("matrix engine cycles for exact multiples of the array", "[models][matrix_engine]") {
  const MatrixEngineParams p = engine_params();
  const MatrixEngineModel engine(p);
  const double latency = static_cast<double>(p.pipeline_latency_cycles);
  for (int64_t mb : {1, 2, 5}) {
    for (int64_t nb : {1, 3, 4}) {
      for (int64_t kk : {1, 7, 64}) {
        const int64_t m = mb * p.rows;
        const int64_t n = nb * p.cols;
        const int64_t k = kk * p.k_per_cycle[index_of(MathPrecision::kBf16)];
        const double expected = static_cast<double>(mb * nb * kk) + latency;
        CHECK(engine.cycles(m, n, k, MathPrecision::kBf16) == Approx(expected));
      }
    }
  }
}

TEST_CASE("matrix engine edge blocks cost a full block", "[models][matrix_engine]") {
  const MatrixEngineParams p = engine_params();
  const MatrixEngineModel engine(p);
  const double latency = static_cast<double>(p.pipeline_latency_cycles);
  const int64_t k = 32;
  const double steps = static_cast<double>(k) / k_per_cycle(p, MathPrecision::kBf16);
  const double one_block = engine.cycles(p.rows, p.cols, k, MathPrecision::kBf16) - latency;
  CHECK(one_block == Approx(steps));
  // One row or column past the array doubles the blocks in that dimension.
  CHECK(engine.cycles(p.rows + 1, p.cols, k, MathPrecision::kBf16) - latency ==
        Approx(2 * one_block));
  CHECK(engine.cycles(p.rows, p.cols + 1, k, MathPrecision::kBf16) - latency ==
        Approx(2 * one_block));
  CHECK(engine.cycles(p.rows + 1, p.cols + 1, k, MathPrecision::kBf16) - latency ==
        Approx(4 * one_block));
  // A single row or column still costs a whole block.
  CHECK(engine.cycles(1, 1, k, MathPrecision::kBf16) - latency == Approx(one_block));
  // A partial reduction step costs a full step.
  const MatrixEngineModel e(p);
  const int64_t kf = p.k_per_cycle[index_of(MathPrecision::kFp8)];
  CHECK(e.cycles(p.rows, p.cols, 3 * kf + 1, MathPrecision::kFp8) - latency == Approx(4.0));
}

TEST_CASE("matrix engine fp8 halves the reduction steps", "[models][matrix_engine]") {
  const MatrixEngineParams p = engine_params();
  REQUIRE(p.k_per_cycle[index_of(MathPrecision::kFp8)] ==
          2 * p.k_per_cycle[index_of(MathPrecision::kBf16)]);
  const MatrixEngineModel engine(p);
  const double latency = static_cast<double>(p.pipeline_latency_cycles);
  const int64_t m = 3 * p.rows, n = 2 * p.cols, k = 256;
  const double bf16 = engine.cycles(m, n, k, MathPrecision::kBf16) - latency;
  const double fp8 = engine.cycles(m, n, k, MathPrecision::kFp8) - latency;
  CHECK(fp8 == Approx(bf16 / 2));
  CHECK(fp8 == Approx(3.0 * 2.0 * static_cast<double>(k) / k_per_cycle(p, MathPrecision::kFp8)));
}

TEST_CASE("matrix engine utilisation", "[models][matrix_engine]") {
  const MatrixEngineParams p = engine_params();
  const MatrixEngineModel engine(p);
  const double latency = static_cast<double>(p.pipeline_latency_cycles);
  const MathPrecision bf16 = MathPrecision::kBf16;

  SECTION("large exact shapes are fully used apart from the pipeline fill") {
    const int64_t mb = 64, nb = 64, k = 4096;
    const double steps = static_cast<double>(mb * nb) * static_cast<double>(k);
    const double expected = steps / (steps + latency);
    CHECK(engine.utilisation(mb * p.rows, nb * p.cols, k, bf16) == Approx(expected));
    CHECK(engine.utilisation(mb * p.rows, nb * p.cols, k, bf16) > 1 - 1e-5);
    CHECK(engine.utilisation(mb * p.rows, nb * p.cols, k, MathPrecision::kFp8) > 1 - 1e-5);
  }
  SECTION("edges waste part of the array") {
    const int64_t k = 4096;
    const double exact = engine.utilisation(p.rows, p.cols, k, bf16);
    const double edge = engine.utilisation(p.rows + 1, p.cols, k, bf16);
    CHECK(edge < exact);
    // rows+1 useful rows out of 2*rows computed, over two blocks and one pipeline fill.
    const double useful = static_cast<double>((p.rows + 1) * p.cols * k);
    const double cycles = 2.0 * static_cast<double>(k) / k_per_cycle(p, bf16) + latency;
    CHECK(edge == Approx(useful / (cycles * static_cast<double>(p.macs_per_cycle(bf16)))));
  }
  SECTION("decode-like m = 1 uses one row of the array") {
    const int64_t n = 64 * p.cols, k = 8192;
    const double u = engine.utilisation(1, n, k, bf16);
    const double steps = static_cast<double>(n / p.cols) * static_cast<double>(k);
    CHECK(u == Approx(1.0 / static_cast<double>(p.rows) * steps / (steps + latency)));
    CHECK(u == Approx(1.0 / static_cast<double>(p.rows)).epsilon(1e-4));
  }
  SECTION("empty shapes cost nothing") {
    CHECK(engine.cycles(0, p.cols, 16, bf16) == 0.0);
    CHECK(engine.utilisation(p.rows, 0, 16, bf16) == 0.0);
  }
}

TEST_CASE("matrix engine rejects an unsupported precision", "[models][matrix_engine]") {
  const MatrixEngineParams p = engine_params();
  REQUIRE_FALSE(p.supports(MathPrecision::kFp4));
  const MatrixEngineModel engine(p);
  CHECK_THROWS_AS(engine.cycles(p.rows, p.cols, 16, MathPrecision::kFp4), std::logic_error);
  CHECK_THROWS_AS(engine.utilisation(p.rows, p.cols, 16, MathPrecision::kFp4), std::logic_error);
}
