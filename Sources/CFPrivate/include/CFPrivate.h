// CoreFoundation functions that libFoundation.so exports but the toolchain's headers declare for Darwin only.
// Declared with untyped pointers so this header needs no CF headers; the symbols resolve at link time (the cf
// engine links Foundation), never through dlsym.
#ifndef RUNLOOPSUITE_CFPRIVATE_H
#define RUNLOOPSUITE_CFPRIVATE_H

/// void _CFRunLoopStopMode(CFRunLoopRef rl, CFStringRef modeName): a persistent per-mode stop request.
void _CFRunLoopStopMode(void *runLoop, const void *modeName);

#endif
