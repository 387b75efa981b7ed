// Loading a CoreFoundation implementation's shared library at run time: the CFRunLoop C API (and the few CFString,
// CFArray and memory functions the conformance cases need) resolved with dlsym into a table of function pointers.
// Nothing of the toolchain's CoreFoundation headers is used: every object is an opaque `cfl_ref`, so a library with
// its own object model (GNUstep's libs-corebase, OpenCFLite, a patched swift-corelibs-foundation) is driven exactly
// through its public C API.
#ifndef RUNLOOPSUITE_CFLOADER_H
#define RUNLOOPSUITE_CFLOADER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Any CF object of the loaded library (CFRunLoopRef, CFStringRef, ...).
typedef const void *cfl_ref;

/// CFRunLoopSourceContext (version 0), field for field as in CFRunLoop.h.
typedef struct {
    long version;
    void *info;
    const void *(*retain)(const void *info);
    void (*release)(const void *info);
    cfl_ref (*copyDescription)(const void *info);
    unsigned char (*equal)(const void *info1, const void *info2);
    unsigned long (*hash)(const void *info);
    void (*schedule)(void *info, cfl_ref runLoop, cfl_ref mode);
    void (*cancel)(void *info, cfl_ref runLoop, cfl_ref mode);
    void (*perform)(void *info);
} cfl_source_context0;

/// CFRunLoopSourceContext1 as swift-corelibs-foundation declares it off Darwin: the port is a file descriptor the
/// loop polls, and perform takes only `info`. (Darwin's takes a mach port and a message; a library with that layout
/// should not be asked for version-1 sources.)
typedef struct {
    long version;
    void *info;
    const void *(*retain)(const void *info);
    void (*release)(const void *info);
    cfl_ref (*copyDescription)(const void *info);
    unsigned char (*equal)(const void *info1, const void *info2);
    unsigned long (*hash)(const void *info);
    int (*getPort)(void *info);
    void (*perform)(void *info);
} cfl_source_context1;

/// CFRunLoopTimerContext and CFRunLoopObserverContext (the same five fields).
typedef struct {
    long version;
    void *info;
    const void *(*retain)(const void *info);
    void (*release)(const void *info);
    cfl_ref (*copyDescription)(const void *info);
} cfl_context;

typedef void (*cfl_timer_callout)(cfl_ref timer, void *info);
typedef void (*cfl_observer_callout)(cfl_ref observer, unsigned long activity, void *info);

/// The functions of one loaded library. Members marked optional may be NULL (the features that need them are off);
/// the others are present whenever cfl_open succeeded.
typedef struct {
    void *handle;
    /// The path it was opened from, and its GNU build id in hex ("" when it has none).
    char path[4096];
    char build_id[65];

    // CFRunLoop
    cfl_ref (*CFRunLoopGetCurrent)(void);
    int32_t (*CFRunLoopRunInMode)(cfl_ref mode, double seconds, unsigned char returnAfterSourceHandled);
    void (*CFRunLoopRun)(void);
    void (*CFRunLoopStop)(cfl_ref loop);
    void (*CFRunLoopWakeUp)(cfl_ref loop);
    unsigned char (*CFRunLoopIsWaiting)(cfl_ref loop);
    cfl_ref (*CFRunLoopCopyCurrentMode)(cfl_ref loop);
    cfl_ref (*CFRunLoopCopyAllModes)(cfl_ref loop);
    void (*CFRunLoopAddCommonMode)(cfl_ref loop, cfl_ref mode);
    double (*CFRunLoopGetNextTimerFireDate)(cfl_ref loop, cfl_ref mode);
    void (*CFRunLoopAddSource)(cfl_ref loop, cfl_ref source, cfl_ref mode);
    void (*CFRunLoopRemoveSource)(cfl_ref loop, cfl_ref source, cfl_ref mode);
    unsigned char (*CFRunLoopContainsSource)(cfl_ref loop, cfl_ref source, cfl_ref mode);
    void (*CFRunLoopAddTimer)(cfl_ref loop, cfl_ref timer, cfl_ref mode);
    void (*CFRunLoopRemoveTimer)(cfl_ref loop, cfl_ref timer, cfl_ref mode);
    unsigned char (*CFRunLoopContainsTimer)(cfl_ref loop, cfl_ref timer, cfl_ref mode);
    void (*CFRunLoopAddObserver)(cfl_ref loop, cfl_ref observer, cfl_ref mode);
    void (*CFRunLoopRemoveObserver)(cfl_ref loop, cfl_ref observer, cfl_ref mode);
    unsigned char (*CFRunLoopContainsObserver)(cfl_ref loop, cfl_ref observer, cfl_ref mode);
    /// The value of the library's kCFRunLoopCommonModes constant.
    cfl_ref commonModes;
    /// Optional (feature blocks): CFRunLoopPerformBlock (its block is passed as a pointer), with CFArrayCreate and
    /// kCFTypeArrayCallBacks for a list of modes.
    void (*CFRunLoopPerformBlock)(cfl_ref loop, cfl_ref modes, const void *block);
    cfl_ref (*CFArrayCreate)(cfl_ref allocator, const void **values, long count, const void *callBacks);
    const void *typeArrayCallBacks;
    /// Optional (feature stopMode): the private _CFRunLoopStopMode.
    void (*_CFRunLoopStopMode)(cfl_ref loop, cfl_ref mode);
    /// Optional (feature mainThread): CFRunLoopGetMain.
    cfl_ref (*CFRunLoopGetMain)(void);

    // Sources
    cfl_ref (*CFRunLoopSourceCreate)(cfl_ref allocator, long order, void *context);
    void (*CFRunLoopSourceSignal)(cfl_ref source);
    void (*CFRunLoopSourceInvalidate)(cfl_ref source);
    unsigned char (*CFRunLoopSourceIsValid)(cfl_ref source);
    /// Optional (feature isSignalled).
    unsigned char (*CFRunLoopSourceIsSignalled)(cfl_ref source);

    // Timers
    cfl_ref (*CFRunLoopTimerCreate)(cfl_ref allocator, double fireDate, double interval, unsigned long flags,
                                    long order, cfl_timer_callout callout, cfl_context *context);
    void (*CFRunLoopTimerInvalidate)(cfl_ref timer);
    unsigned char (*CFRunLoopTimerIsValid)(cfl_ref timer);
    double (*CFRunLoopTimerGetNextFireDate)(cfl_ref timer);
    void (*CFRunLoopTimerSetNextFireDate)(cfl_ref timer, double fireDate);
    /// Optional (feature timerTolerance).
    double (*CFRunLoopTimerGetTolerance)(cfl_ref timer);
    void (*CFRunLoopTimerSetTolerance)(cfl_ref timer, double tolerance);

    // Observers
    cfl_ref (*CFRunLoopObserverCreate)(cfl_ref allocator, unsigned long activities, unsigned char repeats, long order,
                                       cfl_observer_callout callout, cfl_context *context);
    void (*CFRunLoopObserverInvalidate)(cfl_ref observer);
    unsigned char (*CFRunLoopObserverIsValid)(cfl_ref observer);

    // Time, strings, arrays, memory
    double (*CFAbsoluteTimeGetCurrent)(void);
    cfl_ref (*CFStringCreateWithCString)(cfl_ref allocator, const char *text, uint32_t encoding);
    long (*CFStringGetLength)(cfl_ref string);
    long (*CFStringGetMaximumSizeForEncoding)(long length, uint32_t encoding);
    unsigned char (*CFStringGetCString)(cfl_ref string, char *buffer, long size, uint32_t encoding);
    long (*CFArrayGetCount)(cfl_ref array);
    const void *(*CFArrayGetValueAtIndex)(cfl_ref array, long index);
    cfl_ref (*CFRetain)(cfl_ref object);
    void (*CFRelease)(cfl_ref object);
} cfl_library;

/// kCFStringEncodingUTF8.
#define CFL_UTF8 0x08000100u

/// Opens the library at `path` with dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND) and resolves its functions.
/// RTLD_DEEPBIND: the library's calls to its own CF functions bind to its own definitions even though the process
/// already has the toolchain's CoreFoundation (libFoundation.so) loaded with the same symbol names. A library the
/// process has already loaded (that very libFoundation.so) is taken as it is, without RTLD_DEEPBIND, which
/// sanitizer runtimes refuse.
/// Returns NULL and a malloc'd message in *error when the file cannot be opened, is not a shared library, or lacks a
/// core function (all missing ones are named). The table lives for the process.
cfl_library *cfl_open(const char *path, char **error);

/// The toolchain's CoreFoundation, the one this process is linked with: the image that defines CFRunLoopGetCurrent in
/// the process's global scope (found with dladdr; the toolchain's libFoundation.so), opened with cfl_open. NULL and a
/// malloc'd message in *error when the process has no CoreFoundation.
cfl_library *cfl_open_toolchain(char **error);

/// The engine name of a library loaded from `path` (the one naming rule of the `cf:PATH` family): `cf:` and the
/// file name without a leading `lib` and without `.so` and what follows it (`cf:Foundation` for
/// /usr/lib/libFoundation.so.6). Written NUL-terminated into `out` (truncated to `size`).
void cfl_engine_name(const char *path, char *out, unsigned long size);

/// Queues `callout(context)` with the library's CFRunLoopPerformBlock (present: feature blocks) for `modes` (a mode
/// string or an array of them). The block handed to the library is one of the suite's own making, flagged
/// BLOCK_IS_GLOBAL: every Blocks-ABI runtime's _Block_copy returns such a block itself and its _Block_release leaves it
/// alone, so whichever blocks runtime the library binds to (under RTLD_DEEPBIND it may be its own, not the one of
/// the process) never copies, frees or retains anything of it. The suite owns the block: its memory is never freed
/// (the library may still read its flags when it releases it after the call), and `context` is the caller's to free,
/// from `callout` (called at most once) or never.
void cfl_perform_block(const cfl_library *library, cfl_ref loop, cfl_ref modes, void (*callout)(void *context),
                       void *context);

#ifdef __cplusplus
}
#endif

#endif
