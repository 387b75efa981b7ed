// Empty: CFuzz only declares libFuzzer's driver (include/CFuzz.h); SwiftPM needs one source file per C target.
#include "CFuzz.h"
