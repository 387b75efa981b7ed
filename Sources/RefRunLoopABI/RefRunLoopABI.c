// The reference run loop's C ABI is implemented in Swift (Sources/RefRunLoop/CABI.swift, @_cdecl); this target only
// publishes its header (include/RefRunLoopABI.h) to C and C++ code. SwiftPM needs one source file per C target.
#include "RefRunLoopABI.h"
