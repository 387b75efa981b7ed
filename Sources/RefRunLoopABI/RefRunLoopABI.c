// The reference run loop's C ABI is implemented in Swift (Sources/RefRunLoop/CABI.swift, @_cdecl); this target
// publishes its header (include/RefRunLoopABI.h) to C and C++ code, and defines its one constant.
#include "RefRunLoopABI.h"

const char *const ref_runloop_default_mode = "kCFRunLoopDefaultMode";
