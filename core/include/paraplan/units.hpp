// Unit conversions, one definition each: the core works in SI units (seconds, bytes, FLOP/s)
// and converts at the edges (presets in GB/s, GiB, us; reports in GiB, TFLOP/s).
#pragma once

namespace paraplan::units {

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kTera = 1e12;
inline constexpr double kGiga = 1e9;
inline constexpr double kMega = 1e6;
inline constexpr double kMicro = 1e-6;

}  // namespace paraplan::units
