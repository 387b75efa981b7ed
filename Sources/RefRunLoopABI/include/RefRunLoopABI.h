// The C ABI of the reference run loop (RefRunLoop), for C and C++ code such as the benchmark shims.
//
// The functions are implemented in Swift (Sources/RefRunLoop/CABI.swift, `@_cdecl`); link the RefRunLoop target.
// Semantics are CFRunLoop's: each function names its CF counterpart. Times are seconds on CLOCK_MONOTONIC
// (ref_runloop_now), not CFAbsoluteTime.
//
// Ownership: a loop pointer is borrowed (a loop lives as long as its thread; the main loop forever). Sources, timers
// and observers are returned with one reference that the caller gives back with the matching _release function;
// modes they are in keep them alive. After giving a source back, a caller may still pass its pointer to remove and
// invalidate while a mode holds it, once the release has returned (not from another thread during it). Callouts run on
// the loop's thread with no lock held. Mode arguments are NUL-terminated UTF-8 names; NULL means kCFRunLoopCommonModes
// (add, remove, perform_block).
#ifndef REF_RUNLOOP_ABI_H
#define REF_RUNLOOP_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ref_runloop ref_runloop;
typedef struct ref_runloop_source ref_runloop_source;
typedef struct ref_runloop_timer ref_runloop_timer;
typedef struct ref_runloop_observer ref_runloop_observer;

/// A source perform, timer or block callout.
typedef void (*ref_runloop_callout)(void *info);
/// An observer callout; `activity` is one REF_RUNLOOP_ACTIVITY_* bit.
typedef void (*ref_runloop_observer_callout)(uint32_t activity, void *info);

/// kCFRunLoopDefaultMode: "kCFRunLoopDefaultMode". Any string equal to it names the default mode; passing this
/// constant itself spares the add and remove functions a string comparison (it is recognised by its address).
extern const char *const ref_runloop_default_mode;
#define REF_RUNLOOP_DEFAULT_MODE ref_runloop_default_mode

/// CFRunLoopActivity bits.
#define REF_RUNLOOP_ACTIVITY_ENTRY 1u
#define REF_RUNLOOP_ACTIVITY_BEFORE_TIMERS 2u
#define REF_RUNLOOP_ACTIVITY_BEFORE_SOURCES 4u
#define REF_RUNLOOP_ACTIVITY_BEFORE_WAITING 32u
#define REF_RUNLOOP_ACTIVITY_AFTER_WAITING 64u
#define REF_RUNLOOP_ACTIVITY_EXIT 128u
#define REF_RUNLOOP_ACTIVITY_ALL 0x0FFFFFFFu

/// CFRunLoopRunResult values returned by ref_runloop_run.
#define REF_RUNLOOP_RUN_FINISHED 1
#define REF_RUNLOOP_RUN_STOPPED 2
#define REF_RUNLOOP_RUN_TIMED_OUT 3
#define REF_RUNLOOP_RUN_HANDLED_SOURCE 4

// Loops -----------------------------------------------------------------------------------------------------------

/// CFRunLoopGetCurrent: the calling thread's loop, created on first use.
ref_runloop *ref_runloop_current(void);
/// CFRunLoopGetMain.
ref_runloop *ref_runloop_main(void);
/// The loop clock: seconds on CLOCK_MONOTONIC. Timer fire dates use it.
double ref_runloop_now(void);

/// CFRunLoopRunInMode on `loop`, which must be the calling thread's loop. Returns a REF_RUNLOOP_RUN_* value.
int32_t ref_runloop_run(ref_runloop *loop, const char *mode, double seconds, int return_after_source_handled);
/// CFRunLoopStop. Any thread.
void ref_runloop_stop(ref_runloop *loop);
/// _CFRunLoopStopMode. Any thread.
void ref_runloop_stop_mode(ref_runloop *loop, const char *mode);
/// CFRunLoopWakeUp. Any thread.
void ref_runloop_wake_up(ref_runloop *loop);
/// CFRunLoopIsWaiting (1 or 0). Any thread.
int ref_runloop_is_waiting(ref_runloop *loop);
/// CFRunLoopAddCommonMode. Any thread.
void ref_runloop_add_common_mode(ref_runloop *loop, const char *mode);
/// CFRunLoopPerformBlock with a function and its argument. Does not wake the loop. Any thread.
void ref_runloop_perform(ref_runloop *loop, const char *mode, ref_runloop_callout callout, void *info);

/// Benchmark counter: returns from the OS wait (epoll) so far, i.e. how often the loop woke up. Any thread.
uint64_t ref_runloop_wakeup_count(ref_runloop *loop);
/// Benchmark counter: run-loop passes so far. Any thread.
uint64_t ref_runloop_pass_count(ref_runloop *loop);

/// The loop's wait policy (RefRunLoop.WaitPolicy; CF has none). 0 parks: the loop sleeps in its wait at once, as CF
/// does (the default, unless REF_RUNLOOP_SPIN was set when the first loop was made). N > 0 spins then parks: when
/// wake-ups have been arriving, the loop polls its wake-up state for up to N nanoseconds (clamped to 1 ms; how long
/// each time is adaptive) before it sleeps, so a wake-up from another CPU in that window needs no kernel wake-up.
/// CFRunLoop semantics are unchanged: the spin is part of the wait (after BeforeWaiting, with ref_runloop_is_waiting
/// 1) and never outlasts the next timer or the run's deadline. Takes effect at the loop's next wait. Any thread.
void ref_runloop_set_wait_policy(ref_runloop *loop, uint64_t max_spin_ns);
/// The loop's spin cap in nanoseconds, 0 when it parks. Any thread.
uint64_t ref_runloop_wait_policy(ref_runloop *loop);
/// The spin cap that REF_RUNLOOP_SPIN=1 gives (RefRunLoop.WaitPolicy.defaultMaxSpin), in nanoseconds.
uint64_t ref_runloop_default_max_spin_ns(void);
/// Benchmark counter: wake-ups a spin saw claimed before the loop slept (counted in ref_runloop_wakeup_count too).
/// Any thread.
uint64_t ref_runloop_spin_caught_count(ref_runloop *loop);
/// The loop's hand-off hold in nanoseconds (RefRunLoop.handOffHold; CF has none), with either wait policy: while
/// another CPU keeps handing work over, the poll after a handled source first waits up to this long without a system
/// call, so that the hand-offs gather into one batch. 0 polls at once, as CF does; clamped to 1 ms. Only delays the
/// poll, as a descheduled thread would. Takes effect at the loop's next poll. Any thread.
void ref_runloop_set_hand_off_hold_ns(ref_runloop *loop, uint64_t hold_ns);
/// The loop's hand-off hold in nanoseconds, 0 when it has none. Any thread.
uint64_t ref_runloop_hand_off_hold_ns(ref_runloop *loop);
/// The hold a loop starts with (RefRunLoop.WaitPolicy.handOffHold), in nanoseconds.
uint64_t ref_runloop_default_hand_off_hold_ns(void);

// Sources ---------------------------------------------------------------------------------------------------------

/// CFRunLoopSourceCreate, version 0.
ref_runloop_source *ref_runloop_source0_create(long order, ref_runloop_callout perform, void *info);
/// CFRunLoopSourceCreate, version 1: when `fd` is readable the loop reads 8 bytes from it and calls `perform`.
ref_runloop_source *ref_runloop_source1_create(long order, int fd, ref_runloop_callout perform, void *info);
/// CFRunLoopSourceSignal. Does not wake the loop. Any thread.
void ref_runloop_source_signal(ref_runloop_source *source);
/// CFRunLoopSourceInvalidate. Any thread.
void ref_runloop_source_invalidate(ref_runloop_source *source);
/// Gives back the reference returned by a _create function.
void ref_runloop_source_release(ref_runloop_source *source);
/// CFRunLoopAddSource / RemoveSource. Any thread.
void ref_runloop_add_source(ref_runloop *loop, ref_runloop_source *source, const char *mode);
void ref_runloop_remove_source(ref_runloop *loop, ref_runloop_source *source, const char *mode);

// Timers ----------------------------------------------------------------------------------------------------------

/// CFRunLoopTimerCreate. `interval` <= 0 makes a one-shot timer.
ref_runloop_timer *ref_runloop_timer_create(double fire_date, double interval, long order, ref_runloop_callout callout,
                                            void *info);
/// CFRunLoopTimerSetTolerance (Darwin's clamp; honoured: the timer fires within [date, date + tolerance]).
void ref_runloop_timer_set_tolerance(ref_runloop_timer *timer, double tolerance);
/// CFRunLoopTimerSetNextFireDate.
void ref_runloop_timer_set_next_fire_date(ref_runloop_timer *timer, double fire_date);
/// CFRunLoopTimerGetNextFireDate (0 for an invalid timer).
double ref_runloop_timer_next_fire_date(ref_runloop_timer *timer);
/// CFRunLoopTimerInvalidate. Any thread.
void ref_runloop_timer_invalidate(ref_runloop_timer *timer);
void ref_runloop_timer_release(ref_runloop_timer *timer);
/// CFRunLoopAddTimer / RemoveTimer. Any thread.
void ref_runloop_add_timer(ref_runloop *loop, ref_runloop_timer *timer, const char *mode);
void ref_runloop_remove_timer(ref_runloop *loop, ref_runloop_timer *timer, const char *mode);

// Observers -------------------------------------------------------------------------------------------------------

/// CFRunLoopObserverCreate. `activities` is a mask of REF_RUNLOOP_ACTIVITY_* bits.
ref_runloop_observer *ref_runloop_observer_create(uint32_t activities, int repeats, long order,
                                                  ref_runloop_observer_callout callout, void *info);
/// CFRunLoopObserverCreate with a callout that is not told the activity (the ref_runloop_callout type: `info` only),
/// for an observer that does one thing whatever the activity: a caller whose callout has that type needs no wrapper.
ref_runloop_observer *ref_runloop_observer_create_without_activity(uint32_t activities, int repeats, long order,
                                                                   ref_runloop_callout callout, void *info);
/// CFRunLoopObserverInvalidate. Any thread.
void ref_runloop_observer_invalidate(ref_runloop_observer *observer);
void ref_runloop_observer_release(ref_runloop_observer *observer);
/// CFRunLoopAddObserver / RemoveObserver. Any thread.
void ref_runloop_add_observer(ref_runloop *loop, ref_runloop_observer *observer, const char *mode);
void ref_runloop_remove_observer(ref_runloop *loop, ref_runloop_observer *observer, const char *mode);

#ifdef __cplusplus
}
#endif

#endif
