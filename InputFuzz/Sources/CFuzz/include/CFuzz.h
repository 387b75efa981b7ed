// libFuzzer's driver entry point (compiler-rt's FuzzerInterface.h), declared here because Swift cannot import it
// from the toolchain. The fuzz targets call it from their own `main`: SwiftPM links an executable's `main` from the
// module's entry point (`<Module>_main`), so libFuzzer's own `main` cannot be used.
#ifndef CFUZZ_H
#define CFUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
