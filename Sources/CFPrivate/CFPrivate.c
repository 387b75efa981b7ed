// Declarations only (see include/CFPrivate.h); SwiftPM needs one source file per C target.
#include "CFPrivate.h"
