// Strong unit types. Every physical value in Scoville is one of these, stored in SI base units
// (bytes, seconds, hertz, joules, watts, FLOP). Mixing dimensions is a compile error; the only
// cross-dimension operators are the physically meaningful ones defined at the bottom.
#pragma once

#include <cmath>
#include <string>

namespace scoville {

template <class Tag>
class Quantity {
 public:
  constexpr Quantity() = default;
  constexpr explicit Quantity(double si_value) : value_(si_value) {}

  // The value in SI base units of this dimension (see the alias list below).
  constexpr double si() const { return value_; }

  constexpr Quantity operator+(Quantity o) const { return Quantity(value_ + o.value_); }
  constexpr Quantity operator-(Quantity o) const { return Quantity(value_ - o.value_); }
  constexpr Quantity operator*(double k) const { return Quantity(value_ * k); }
  constexpr Quantity operator/(double k) const { return Quantity(value_ / k); }
  constexpr double operator/(Quantity o) const { return value_ / o.value_; }
  Quantity& operator+=(Quantity o) {
    value_ += o.value_;
    return *this;
  }
  Quantity& operator-=(Quantity o) {
    value_ -= o.value_;
    return *this;
  }
  constexpr bool operator<(Quantity o) const { return value_ < o.value_; }
  constexpr bool operator>(Quantity o) const { return value_ > o.value_; }
  constexpr bool operator<=(Quantity o) const { return value_ <= o.value_; }
  constexpr bool operator>=(Quantity o) const { return value_ >= o.value_; }
  constexpr bool operator==(Quantity o) const { return value_ == o.value_; }
  constexpr bool operator!=(Quantity o) const { return value_ != o.value_; }

 private:
  double value_ = 0.0;
};

template <class Tag>
constexpr Quantity<Tag> operator*(double k, Quantity<Tag> q) {
  return q * k;
}

struct BytesTag {};
struct BandwidthTag {};
struct DurationTag {};
struct FrequencyTag {};
struct EnergyTag {};
struct PowerTag {};
struct FlopsTag {};
struct FlopRateTag {};
struct EnergyPerBitTag {};
struct VoltageTag {};

using Bytes = Quantity<BytesTag>;                // B
using Bandwidth = Quantity<BandwidthTag>;        // B/s
using Duration = Quantity<DurationTag>;          // s
using Frequency = Quantity<FrequencyTag>;        // Hz
using Energy = Quantity<EnergyTag>;              // J
using Power = Quantity<PowerTag>;                // W
using Flops = Quantity<FlopsTag>;                // FLOP (a count of operations)
using FlopRate = Quantity<FlopRateTag>;          // FLOP/s
using EnergyPerBit = Quantity<EnergyPerBitTag>;  // J/bit
using Voltage = Quantity<VoltageTag>;            // V

// Physically meaningful cross-dimension operations.
constexpr Duration operator/(Bytes b, Bandwidth bw) { return Duration(b.si() / bw.si()); }
constexpr Bytes operator*(Bandwidth bw, Duration t) { return Bytes(bw.si() * t.si()); }
constexpr Bandwidth operator/(Bytes b, Duration t) { return Bandwidth(b.si() / t.si()); }
constexpr Duration operator/(Flops f, FlopRate r) { return Duration(f.si() / r.si()); }
constexpr FlopRate operator/(Flops f, Duration t) { return FlopRate(f.si() / t.si()); }
constexpr Energy operator*(Power p, Duration t) { return Energy(p.si() * t.si()); }
constexpr Power operator/(Energy e, Duration t) { return Power(e.si() / t.si()); }
constexpr Energy operator*(EnergyPerBit e, Bytes b) { return Energy(e.si() * b.si() * 8.0); }
constexpr Energy operator*(Bytes b, EnergyPerBit e) { return e * b; }
// Cycles elapsed in a duration at a clock frequency (dimensionless).
constexpr double operator*(Frequency f, Duration t) { return f.si() * t.si(); }
// Duration of a number of cycles.
constexpr Duration cycles_to_duration(double cycles, Frequency f) {
  return Duration(cycles / f.si());
}

// Convenience constructors for literals in code and tests: decimal SI prefixes, except kib, mib
// and gib, which are binary (1024-based).
constexpr Bytes bytes(double v) { return Bytes(v); }
constexpr Bytes kib(double v) { return Bytes(v * 1024.0); }
constexpr Bytes mib(double v) { return Bytes(v * 1024.0 * 1024.0); }
constexpr Bytes gib(double v) { return Bytes(v * 1024.0 * 1024.0 * 1024.0); }
constexpr Bytes gigabytes(double v) { return Bytes(v * 1e9); }
constexpr Duration seconds(double v) { return Duration(v); }
constexpr Duration milliseconds(double v) { return Duration(v * 1e-3); }
constexpr Duration microseconds(double v) { return Duration(v * 1e-6); }
constexpr Duration nanoseconds(double v) { return Duration(v * 1e-9); }
constexpr Frequency gigahertz(double v) { return Frequency(v * 1e9); }
constexpr Bandwidth gigabytes_per_second(double v) { return Bandwidth(v * 1e9); }
constexpr Bandwidth terabytes_per_second(double v) { return Bandwidth(v * 1e12); }
constexpr Power watts(double v) { return Power(v); }
constexpr Energy joules(double v) { return Energy(v); }
constexpr Energy picojoules(double v) { return Energy(v * 1e-12); }
constexpr EnergyPerBit picojoules_per_bit(double v) { return EnergyPerBit(v * 1e-12); }
constexpr Flops flops(double v) { return Flops(v); }
constexpr FlopRate teraflops_per_second(double v) { return FlopRate(v * 1e12); }

// The dimensions a configuration field can declare. Each field accepts exactly one.
enum class Dimension {
  kBytes,
  kBandwidth,
  kDuration,
  kFrequency,
  kEnergy,
  kPower,
  kFlops,
  kFlopRate,
  kEnergyPerBit,
  kVoltage,
};

// Human-readable name of a dimension and its canonical unit, e.g. "bandwidth (B/s)".
std::string dimension_name(Dimension d);

template <class Q>
struct DimensionOf;
template <>
struct DimensionOf<Bytes> {
  static constexpr Dimension value = Dimension::kBytes;
};
template <>
struct DimensionOf<Bandwidth> {
  static constexpr Dimension value = Dimension::kBandwidth;
};
template <>
struct DimensionOf<Duration> {
  static constexpr Dimension value = Dimension::kDuration;
};
template <>
struct DimensionOf<Frequency> {
  static constexpr Dimension value = Dimension::kFrequency;
};
template <>
struct DimensionOf<Energy> {
  static constexpr Dimension value = Dimension::kEnergy;
};
template <>
struct DimensionOf<Power> {
  static constexpr Dimension value = Dimension::kPower;
};
template <>
struct DimensionOf<Flops> {
  static constexpr Dimension value = Dimension::kFlops;
};
template <>
struct DimensionOf<FlopRate> {
  static constexpr Dimension value = Dimension::kFlopRate;
};
template <>
struct DimensionOf<EnergyPerBit> {
  static constexpr Dimension value = Dimension::kEnergyPerBit;
};
template <>
struct DimensionOf<Voltage> {
  static constexpr Dimension value = Dimension::kVoltage;
};

}  // namespace scoville
