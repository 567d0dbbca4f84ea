//===- StatisticABI.h - parse llvm/ADT/Statistic.h as LLVM was built ------===//
//
// Force-included into every C++ file when the project is built with
// assertions (-UNDEBUG) against Debian's LLVM/MLIR, which are built with
// NDEBUG. Statistic.h picks the class behind llvm::Statistic from NDEBUG:
// NoopStatistic in the libraries, TrackingStatistic in our code. The
// constructor of mlir::Pass::Statistic lives in libMLIR and its operators
// (++, =) are inline in ours, so the two disagreed on the object's layout:
// UBSan caught a pass's `++statistic` reading a bool the library never
// wrote. Parsing Statistic.h with NDEBUG defined gives our code the
// libraries' class (statistics count nothing, as in the libraries).
//
//===----------------------------------------------------------------------===//

#ifndef NDEBUG
#define NDEBUG
#include "llvm/ADT/Statistic.h"
#undef NDEBUG
#include <cassert> // assert() again, as -UNDEBUG asked.
#endif
