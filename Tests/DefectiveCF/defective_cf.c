// A defective CoreFoundation, for the tests only (Tests/ConformanceTests/DefectiveCFTests.swift builds it with the
// toolchain's clang into a temporary directory and runs the spec on it through `cf:PATH`; it is no engine of the
// suite). It exports every symbol CFLoader resolves (Sources/CFLoader/CFLoader.c) by forwarding to the toolchain's
// CoreFoundation (the libFoundation.so the process already has) and breaks the behaviours named in the environment
// variable DEFECTIVE_CF, a comma-separated list (read once, when the library is loaded):
//
//   observers-dead            observers are created and scheduled, but their callout is never called
//   stop-no-wake              CFRunLoopStop from a thread other than the loop's sets no stop and does not wake the
//                             loop; the stop takes effect only when the loop wakes for another reason
//   timers-fire-at-once       every timer is created already due (a fire date later than now becomes now)
//   repeating-no-advance      a repeating timer's next fire date reads as its first one forever
//                             (CFRunLoopTimerGetNextFireDate)
//   repeating-spins           a repeating timer repeats every nanosecond whatever its interval, so it is due again at
//                             every pass: a loop running it never sleeps and fires it over and over
//   signal-unscheduled-crash  CFRunLoopSourceSignal on a version-0 source that is in no loop aborts the process
//
// Without DEFECTIVE_CF it behaves exactly as the toolchain's CoreFoundation, with one difference by design: it brings
// its own blocks runtime (_Block_copy, _Block_release), which under RTLD_DEEPBIND its own calls bind to, as GNUstep's
// libs-corebase bound to libgnustep-base's. That runtime knows only its own blocks: it copies any other non-global
// block bytewise without the block's copy helper and frees (after poisoning) the copy on release, so a block that
// the suite made with another runtime and handed over would be invoked after what it captured was released.
// Built with -fvisibility=default; every exported name below is one of CoreFoundation's or of the Blocks ABI.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef const void *ref;

// MARK: Configuration

enum {
    OBSERVERS_DEAD = 1 << 0,
    STOP_NO_WAKE = 1 << 1,
    TIMERS_FIRE_AT_ONCE = 1 << 2,
    REPEATING_NO_ADVANCE = 1 << 3,
    SIGNAL_UNSCHEDULED_CRASH = 1 << 4,
    REPEATING_SPINS = 1 << 5,
};

static unsigned defects;  // written once by the constructor, before any other function of the library runs
static void *real;        // the toolchain's libFoundation.so

/// Ends the process as a library that traps does; the line leads with "Fatal error", which the runner's crash
/// excerpt keeps (Sources/ConformanceKit/IsolatedRunner.swift, CrashOutput), so the tests can tell this abort apart.
static void fail(const char *what) {
    fprintf(stderr, "Fatal error: defective_cf: %s\n", what);
    abort();
}

static void *real_symbol(const char *name) {
    void *symbol = dlsym(real, name);
    if (!symbol) fail(name);
    return symbol;
}

static void read_defects(void) {
    const char *value = getenv("DEFECTIVE_CF");
    if (!value || !*value) return;
    char *list = strdup(value), *save = NULL;
    for (char *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        if (strcmp(item, "observers-dead") == 0)
            defects |= OBSERVERS_DEAD;
        else if (strcmp(item, "stop-no-wake") == 0)
            defects |= STOP_NO_WAKE;
        else if (strcmp(item, "timers-fire-at-once") == 0)
            defects |= TIMERS_FIRE_AT_ONCE;
        else if (strcmp(item, "repeating-no-advance") == 0)
            defects |= REPEATING_NO_ADVANCE;
        else if (strcmp(item, "signal-unscheduled-crash") == 0)
            defects |= SIGNAL_UNSCHEDULED_CRASH;
        else if (strcmp(item, "repeating-spins") == 0)
            defects |= REPEATING_SPINS;
        else {
            fprintf(stderr, "defective_cf: unknown defect '%s' in DEFECTIVE_CF\n", item);
            abort();
        }
    }
    free(list);
}

// MARK: Data symbols

const void *kCFRunLoopCommonModes;
/// CFArrayCallBacks (version, retain, release, copyDescription, equal): a copy of the real one; CFArrayCreate maps
/// its address back to the real one's.
const void *kCFTypeArrayCallBacks[5];
static const void *real_array_callbacks;

__attribute__((constructor)) static void load(void) {
    real = dlopen("libFoundation.so", RTLD_NOW | RTLD_NOLOAD);
    if (!real) fail("the process has no libFoundation.so to forward to");
    read_defects();
    kCFRunLoopCommonModes = *(const void **)real_symbol("kCFRunLoopCommonModes");
    real_array_callbacks = real_symbol("kCFTypeArrayCallBacks");
    memcpy(kCFTypeArrayCallBacks, real_array_callbacks, sizeof kCFTypeArrayCallBacks);
}

// MARK: Plain forwarding

#define FORWARD(ret, name, params, args)              \
    ret name params {                                 \
        static ret(*function) params;                 \
        if (!function) function = real_symbol(#name); \
        return function args;                         \
    }
#define FORWARD_VOID(name, params, args)              \
    void name params {                                \
        static void(*function) params;                \
        if (!function) function = real_symbol(#name); \
        function args;                                \
    }

FORWARD(ref, CFRunLoopGetCurrent, (void), ())
FORWARD_VOID(CFRunLoopWakeUp, (ref loop), (loop))
FORWARD(unsigned char, CFRunLoopIsWaiting, (ref loop), (loop))
FORWARD(ref, CFRunLoopCopyCurrentMode, (ref loop), (loop))
FORWARD(ref, CFRunLoopCopyAllModes, (ref loop), (loop))
FORWARD_VOID(CFRunLoopAddCommonMode, (ref loop, ref mode), (loop, mode))
FORWARD(double, CFRunLoopGetNextTimerFireDate, (ref loop, ref mode), (loop, mode))
FORWARD_VOID(CFRunLoopAddSource, (ref loop, ref item, ref mode), (loop, item, mode))
FORWARD_VOID(CFRunLoopRemoveSource, (ref loop, ref item, ref mode), (loop, item, mode))
FORWARD(unsigned char, CFRunLoopContainsSource, (ref loop, ref item, ref mode), (loop, item, mode))
FORWARD_VOID(CFRunLoopAddTimer, (ref loop, ref item, ref mode), (loop, item, mode))
FORWARD_VOID(CFRunLoopRemoveTimer, (ref loop, ref item, ref mode), (loop, item, mode))
FORWARD(unsigned char, CFRunLoopContainsTimer, (ref loop, ref item, ref mode), (loop, item, mode))
FORWARD_VOID(CFRunLoopAddObserver, (ref loop, ref item, ref mode), (loop, item, mode))
FORWARD_VOID(CFRunLoopRemoveObserver, (ref loop, ref item, ref mode), (loop, item, mode))
FORWARD(unsigned char, CFRunLoopContainsObserver, (ref loop, ref item, ref mode), (loop, item, mode))
FORWARD_VOID(CFRunLoopSourceInvalidate, (ref source), (source))
FORWARD(unsigned char, CFRunLoopSourceIsValid, (ref source), (source))
FORWARD_VOID(CFRunLoopTimerInvalidate, (ref timer), (timer))
FORWARD(unsigned char, CFRunLoopTimerIsValid, (ref timer), (timer))
FORWARD_VOID(CFRunLoopTimerSetNextFireDate, (ref timer, double date), (timer, date))
FORWARD_VOID(CFRunLoopObserverInvalidate, (ref observer), (observer))
FORWARD(unsigned char, CFRunLoopObserverIsValid, (ref observer), (observer))
FORWARD(double, CFAbsoluteTimeGetCurrent, (void), ())
FORWARD(ref, CFStringCreateWithCString, (ref allocator, const char *text, unsigned encoding),
        (allocator, text, encoding))
FORWARD(long, CFStringGetLength, (ref string), (string))
FORWARD(long, CFStringGetMaximumSizeForEncoding, (long length, unsigned encoding), (length, encoding))
FORWARD(unsigned char, CFStringGetCString, (ref string, char *buffer, long size, unsigned encoding),
        (string, buffer, size, encoding))
FORWARD(long, CFArrayGetCount, (ref array), (array))
FORWARD(const void *, CFArrayGetValueAtIndex, (ref array, long index), (array, index))
FORWARD(ref, CFRetain, (ref object), (object))
FORWARD_VOID(CFRelease, (ref object), (object))

// The optional functions (CFLoader.h), left out when built with -DDEFECTIVE_CF_CORE_ONLY: a library with the core API
// only, whose missing functions `runloop engines` lists (scripts/cli-checks.sh).
#ifndef DEFECTIVE_CF_CORE_ONLY
FORWARD(ref, CFRunLoopGetMain, (void), ())
FORWARD_VOID(_CFRunLoopStopMode, (ref loop, ref mode), (loop, mode))
FORWARD(double, CFRunLoopTimerGetTolerance, (ref timer), (timer))
FORWARD_VOID(CFRunLoopTimerSetTolerance, (ref timer, double tolerance), (timer, tolerance))
FORWARD(unsigned char, CFRunLoopSourceIsSignalled, (ref source), (source))
#endif

ref CFArrayCreate(ref allocator, const void **values, long count, const void *callBacks) {
    static ref (*function)(ref, const void **, long, const void *);
    if (!function) function = real_symbol("CFArrayCreate");
    return function(allocator, values, count, callBacks == kCFTypeArrayCallBacks ? real_array_callbacks : callBacks);
}

// MARK: Blocks: a runtime of this library's own

/// The Blocks ABI's layout (https://clang.llvm.org/docs/Block-ABI-Apple.html).
struct block {
    const void *isa;
    int flags;
    int reserved;
    void (*invoke)(struct block *);
    const struct { unsigned long reserved, size; } * descriptor;
};

enum { BLOCK_IS_GLOBAL = 1 << 28, OWN_BLOCK_MARK = 0x5bc0de };

void *_Block_copy(const void *given) {
    struct block *block = (struct block *)given;
    if (!block || (block->flags & BLOCK_IS_GLOBAL)) return block;
    if (block->reserved == OWN_BLOCK_MARK) fail("a block of this runtime copied twice");
    // Another runtime's block: copied bytewise, without its copy helper (this runtime does not know that runtime's
    // flags), so what the block captured is not retained.
    struct block *copy = malloc(block->descriptor->size);
    memcpy(copy, block, block->descriptor->size);
    copy->reserved = OWN_BLOCK_MARK;
    return copy;
}

void _Block_release(const void *given) {
    struct block *block = (struct block *)given;
    if (!block || (block->flags & BLOCK_IS_GLOBAL)) return;
    if (block->reserved != OWN_BLOCK_MARK) return;
    memset(block, 0x5a, block->descriptor->size < sizeof *block ? sizeof *block : block->descriptor->size);
    free(block);
}

#ifndef DEFECTIVE_CF_CORE_ONLY
/// The block this library hands to the toolchain's CFRunLoopPerformBlock: global (the toolchain's runtime leaves it
/// alone), calling the caller's block as this library copied it, then releasing that copy with this library's
/// runtime. Never freed: the toolchain's CF reads its flags when it releases it after the call.
struct forwarding_block {
    struct block header;
    struct block *inner;
};

static const struct { unsigned long reserved, size; } forwarding_descriptor = {0, sizeof(struct forwarding_block)};

static void invoke_forwarding(struct block *outer) {
    struct block *inner = ((struct forwarding_block *)outer)->inner;
    inner->invoke(inner);
    _Block_release(inner);
}

void CFRunLoopPerformBlock(ref loop, ref modes, const void *block) {
    static void (*function)(ref, ref, const void *);
    if (!function) function = real_symbol("CFRunLoopPerformBlock");
    static const void *global_class;
    if (!global_class) global_class = dlsym(real, "_NSConcreteGlobalBlock");
    struct forwarding_block *outer = calloc(1, sizeof *outer);
    outer->header.isa = global_class ? global_class : (const void *)&forwarding_descriptor;
    outer->header.flags = BLOCK_IS_GLOBAL;
    outer->header.invoke = invoke_forwarding;
    outer->header.descriptor = (const void *)&forwarding_descriptor;
    outer->inner = _Block_copy(block);
    function(loop, modes, outer);
}
#endif

// MARK: Observers (observers-dead)

typedef void (*observer_callout)(ref observer, unsigned long activity, void *info);

static void dead_callout(ref observer, unsigned long activity, void *info) {
    (void)observer;
    (void)activity;
    (void)info;
}

ref CFRunLoopObserverCreate(ref allocator, unsigned long activities, unsigned char repeats, long order,
                            observer_callout callout, void *context) {
    static ref (*function)(ref, unsigned long, unsigned char, long, observer_callout, void *);
    if (!function) function = real_symbol("CFRunLoopObserverCreate");
    return function(allocator, activities, repeats, order, (defects & OBSERVERS_DEAD) ? dead_callout : callout,
                    context);
}

// MARK: Stop (stop-no-wake)

/// Loops whose stop from another thread is pending, applied by an AfterWaiting observer of the loop. Protected by
/// `stops_lock`. A stop that finds the table full replaces the first entry (a loop that never woke again).
enum { MAX_LOOPS = 1024 };
static pthread_mutex_t stops_lock = PTHREAD_MUTEX_INITIALIZER;
static ref pending_stops[MAX_LOOPS];
/// Whether the calling thread's loop has the observer (a thread has one loop).
static __thread int loop_watched;

static void apply_pending_stop(ref observer, unsigned long activity, void *info) {
    (void)observer;
    (void)activity;
    (void)info;
    static void (*stop)(ref);
    if (!stop) stop = real_symbol("CFRunLoopStop");
    static ref (*current)(void);
    if (!current) current = real_symbol("CFRunLoopGetCurrent");
    ref loop = current();
    int pending = 0;
    pthread_mutex_lock(&stops_lock);
    for (int i = 0; i < MAX_LOOPS; i++) {
        if (pending_stops[i] == loop) {
            pending_stops[i] = NULL;
            pending = 1;
        }
    }
    pthread_mutex_unlock(&stops_lock);
    if (pending) stop(loop);
}

/// Adds the AfterWaiting observer that applies pending stops to the calling thread's loop, once per loop.
static void watch_current_loop(void) {
    if (loop_watched) return;
    loop_watched = 1;
    static ref (*current)(void);
    if (!current) current = real_symbol("CFRunLoopGetCurrent");
    ref loop = current();
    static ref (*create)(ref, unsigned long, unsigned char, long, observer_callout, void *);
    if (!create) create = real_symbol("CFRunLoopObserverCreate");
    static void (*add)(ref, ref, ref);
    if (!add) add = real_symbol("CFRunLoopAddObserver");
    ref observer = create(NULL, 1u << 6 /* kCFRunLoopAfterWaiting */, 1, 0, apply_pending_stop, NULL);
    add(loop, observer, kCFRunLoopCommonModes);
}

void CFRunLoopStop(ref loop) {
    static void (*function)(ref);
    if (!function) function = real_symbol("CFRunLoopStop");
    static ref (*current)(void);
    if (!current) current = real_symbol("CFRunLoopGetCurrent");
    if (!(defects & STOP_NO_WAKE) || current() == loop) {
        function(loop);
        return;
    }
    pthread_mutex_lock(&stops_lock);
    int slot = -1;
    for (int i = 0; i < MAX_LOOPS; i++) {
        if (pending_stops[i] == loop) slot = -2;
        if (slot == -1 && !pending_stops[i]) slot = i;
    }
    if (slot != -2) pending_stops[slot >= 0 ? slot : 0] = loop;
    pthread_mutex_unlock(&stops_lock);
}

int CFRunLoopRunInMode(ref mode, double seconds, unsigned char returnAfterSourceHandled) {
    static int (*function)(ref, double, unsigned char);
    if (!function) function = real_symbol("CFRunLoopRunInMode");
    if (defects & STOP_NO_WAKE) watch_current_loop();
    return function(mode, seconds, returnAfterSourceHandled);
}

void CFRunLoopRun(void) {
    static void (*function)(void);
    if (!function) function = real_symbol("CFRunLoopRun");
    if (defects & STOP_NO_WAKE) watch_current_loop();
    function();
}

// MARK: Timers (timers-fire-at-once, repeating-no-advance, repeating-spins)

typedef void (*timer_callout)(ref timer, void *info);

/// Repeating timers and their first fire dates (repeating-no-advance). Protected by `timers_lock`.
enum { MAX_TIMERS = 4096 };
static pthread_mutex_t timers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    ref timer;
    double first;
} repeating[MAX_TIMERS];
static int repeating_count;

ref CFRunLoopTimerCreate(ref allocator, double fireDate, double interval, unsigned long flags, long order,
                         timer_callout callout, void *context) {
    static ref (*function)(ref, double, double, unsigned long, long, timer_callout, void *);
    if (!function) function = real_symbol("CFRunLoopTimerCreate");
    if (defects & TIMERS_FIRE_AT_ONCE) {
        double now = CFAbsoluteTimeGetCurrent();
        if (fireDate > now) fireDate = now;
    }
    if ((defects & REPEATING_SPINS) && interval > 0) interval = 1e-9;
    ref timer = function(allocator, fireDate, interval, flags, order, callout, context);
    if ((defects & REPEATING_NO_ADVANCE) && interval > 0 && timer) {
        pthread_mutex_lock(&timers_lock);
        if (repeating_count < MAX_TIMERS) {
            repeating[repeating_count].timer = timer;
            repeating[repeating_count].first = fireDate;
            repeating_count++;
        }
        pthread_mutex_unlock(&timers_lock);
    }
    return timer;
}

double CFRunLoopTimerGetNextFireDate(ref timer) {
    static double (*function)(ref);
    if (!function) function = real_symbol("CFRunLoopTimerGetNextFireDate");
    if (defects & REPEATING_NO_ADVANCE) {
        pthread_mutex_lock(&timers_lock);
        for (int i = 0; i < repeating_count; i++) {
            if (repeating[i].timer == timer) {
                double first = repeating[i].first;
                pthread_mutex_unlock(&timers_lock);
                return first;
            }
        }
        pthread_mutex_unlock(&timers_lock);
    }
    return function(timer);
}

// MARK: Sources (signal-unscheduled-crash)

/// CFRunLoopSourceContext (version 0), as in CFRunLoop.h.
typedef struct {
    long version;
    void *info;
    const void *(*retain)(const void *info);
    void (*release)(const void *info);
    ref (*copyDescription)(const void *info);
    unsigned char (*equal)(const void *info1, const void *info2);
    unsigned long (*hash)(const void *info);
    void (*schedule)(void *info, ref loop, ref mode);
    void (*cancel)(void *info, ref loop, ref mode);
    void (*perform)(void *info);
} source_context0;

/// What a wrapped version-0 source's info points at: the caller's context and how many modes the source is in.
typedef struct {
    source_context0 caller;
    atomic_long scheduled;
} counted_source;

static const void *counted_retain(const void *info) {
    const counted_source *source = info;
    if (source->caller.retain) source->caller.retain(source->caller.info);
    return info;
}

static void counted_release(const void *info) {
    counted_source *source = (counted_source *)info;
    if (source->caller.release) source->caller.release(source->caller.info);
    free(source);  // CF retains a source's info once, at creation, and releases it once
}

static void counted_schedule(void *info, ref loop, ref mode) {
    counted_source *source = info;
    atomic_fetch_add(&source->scheduled, 1);
    if (source->caller.schedule) source->caller.schedule(source->caller.info, loop, mode);
}

static void counted_cancel(void *info, ref loop, ref mode) {
    counted_source *source = info;
    atomic_fetch_sub(&source->scheduled, 1);
    if (source->caller.cancel) source->caller.cancel(source->caller.info, loop, mode);
}

static void counted_perform(void *info) {
    counted_source *source = info;
    if (source->caller.perform) source->caller.perform(source->caller.info);
}

ref CFRunLoopSourceCreate(ref allocator, long order, void *context) {
    static ref (*function)(ref, long, void *);
    if (!function) function = real_symbol("CFRunLoopSourceCreate");
    source_context0 *given = context;
    if (!(defects & SIGNAL_UNSCHEDULED_CRASH) || given->version != 0 || given->equal || given->hash) {
        return function(allocator, order, context);
    }
    counted_source *source = calloc(1, sizeof *source);
    source->caller = *given;
    source_context0 wrapped = {0,    source, counted_retain,   counted_release, NULL,
                               NULL, NULL,   counted_schedule, counted_cancel,  counted_perform};
    return function(allocator, order, &wrapped);
}

void CFRunLoopSourceSignal(ref source) {
    static void (*function)(ref);
    if (!function) function = real_symbol("CFRunLoopSourceSignal");
    static void (*get_context)(ref, source_context0 *);
    if ((defects & SIGNAL_UNSCHEDULED_CRASH)) {
        if (!get_context) get_context = real_symbol("CFRunLoopSourceGetContext");
        source_context0 context = {0};
        get_context(source, &context);
        if (context.schedule == counted_schedule && atomic_load(&((counted_source *)context.info)->scheduled) == 0) {
            fail("CFRunLoopSourceSignal on a source in no run loop (signal-unscheduled-crash)");
        }
    }
    function(source);
}
