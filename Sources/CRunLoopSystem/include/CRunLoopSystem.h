// Linux primitives that Glibc's Swift overlay does not declare. Thin pass-throughs only: the Swift side
// (retry on EINTR, errno handling) lives with the code that uses them.
#ifndef RUNLOOPSUITE_CSYSTEM_H
#define RUNLOOPSUITE_CSYSTEM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK [| EFD_SEMAPHORE]); returns the fd or -1 with errno set.
int csystem_eventfd(int semaphore);
/// Adds `value` to the eventfd counter; 0 or -1 with errno set.
int csystem_eventfd_write(int fd, uint64_t value);
/// Reads (and so drains) the eventfd counter into *value; 0, or -1 with errno set (EAGAIN when it is zero).
int csystem_eventfd_read(int fd, uint64_t *value);

/// timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK); the fd or -1.
int csystem_timerfd_create(void);
/// Arms the timerfd one-shot at an absolute CLOCK_MONOTONIC time in nanoseconds (0 disarms).
int csystem_timerfd_set_abs_ns(int fd, uint64_t deadline_ns);

/// epoll_create1(EPOLL_CLOEXEC).
int csystem_epoll_create(void);
/// epoll_ctl ADD/MOD/DEL with EPOLLIN, edge-triggered when `edge` is non-zero, carrying `data` as the event's u64.
int csystem_epoll_add(int epfd, int fd, uint64_t data, int edge);
int csystem_epoll_mod(int epfd, int fd, uint64_t data, int edge);
int csystem_epoll_del(int epfd, int fd);
/// epoll_wait into parallel arrays of the events' data words; timeout_ms < 0 waits forever.
int csystem_epoll_wait(int epfd, uint64_t *data, int max_events, int timeout_ms);

/// Like csystem_epoll_wait with a nanosecond timeout (epoll_pwait2; epoll_wait with the timeout rounded up to
/// milliseconds on kernels without it). timeout_ns < 0 waits forever; 0 polls (with plain epoll_wait).
int csystem_epoll_wait_ns(int epfd, uint64_t *data, int max_events, int64_t timeout_ns);
/// The wait and the wake-up write of a run loop's pass, each one system call with no more around it than it needs.
/// On x86_64, outside ThreadSanitizer builds, they enter the kernel directly, not through glibc's wrappers: those are
/// cancellation points, whose enabling and disabling of asynchronous cancellation around the call costs more than the
/// call's own user-space side, and a run loop's thread is never cancelled there (cancellation unwinds the stack, and
/// unwinding through Swift frames is undefined). ThreadSanitizer builds call glibc's, which it intercepts to see the
/// synchronisation of descriptors.
///
/// One event of the epoll set `epfd` into *token (its data word): 1, 0 on timeout, or -1 with errno set.
/// timeout_ns < 0 waits forever, 0 polls (both epoll_pwait with no signal mask, as epoll_wait); a positive timeout
/// goes through csystem_epoll_wait_ns (epoll_pwait2).
int csystem_epoll_wait_one(int epfd, uint64_t *token, int64_t timeout_ns);
/// Adds 1 to the eventfd counter: 0, or -1 with errno set (EAGAIN at the counter's maximum).
int csystem_eventfd_signal(int fd);
/// The calling thread's errno (Swift cannot read the errno macro reliably after another C call).
int csystem_errno(void);
/// read(fd, value, 8): 0 when 8 bytes were read, -1 with errno set otherwise (EAGAIN when nothing is readable).
int csystem_read_u64(int fd, uint64_t *value);
/// pthread_timedjoin_np(thread, NULL, deadline), the deadline in CLOCK_REALTIME seconds since 1970: 0 when the
/// thread was joined, else the error (ETIMEDOUT when it had not exited by then).
int csystem_pthread_timedjoin(unsigned long thread, double deadline_seconds);

/// CLOCK_MONOTONIC in nanoseconds.
uint64_t csystem_monotonic_ns(void);
/// The calling thread's kernel id.
int32_t csystem_gettid(void);
/// glibc's sched_getcpu, declared here: <sched.h> declares it only with _GNU_SOURCE, which the Glibc module does
/// not define.
extern int sched_getcpu(void);
/// The CPU the calling thread runs on (sched_getcpu: a read of glibc's rseq area, no system call), or -1. Inline: a
/// call of its own cost the wake path more than the wrapper does.
static inline int32_t csystem_current_cpu(void) { return (int32_t)sched_getcpu(); }
/// Pins the calling thread to CPU `cpu` (sched_setaffinity); 0, or -1 with errno set (EINVAL: not a CPU this process
/// may use).
int csystem_pin_to_cpu(int cpu);
/// How many CPUs the calling thread may run on (sched_getaffinity), or -1.
int csystem_usable_cpus(void);

/// A spin-wait hint to the CPU (x86 `pause`, Arm `yield`): a busy loop that polls a cache line lets the sibling
/// hyperthread run and leaves the loop without a memory-order mis-speculation when the line changes. Inline: a call
/// would cost more than the hint.
static inline void csystem_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield");
#endif
}

/// FUTEX_WAIT_PRIVATE on the (4-byte aligned) 32-bit word at `word`: sleeps while it holds `expected`, until a
/// FUTEX_WAKE on it (or a signal, or a spurious wake-up). 0 when woken, or -1 with errno set (EAGAIN: it did not hold
/// `expected`; EINTR).
int csystem_futex_wait(void *word, uint32_t expected);
/// FUTEX_WAKE_PRIVATE on the word at `word`: wakes at most `count` of its waiters; how many it woke, or -1 with errno
/// set.
int csystem_futex_wake(void *word, int count);

/// pipe2(fds, O_CLOEXEC): both ends close on exec, atomically (a pipe made by one thread must not leak into a process
/// another thread spawns meanwhile). 0, or -1 with errno set.
int csystem_pipe_cloexec(int fds[2]);

/// Whether `fd` is readable now: poll(2) with a zero timeout. 1 readable, 0 not, -1 with errno set.
int csystem_poll_readable(int fd);

/// The main dispatch queue's run-loop hooks, the ones CoreFoundation's main loop uses (libdispatch.so exports them:
/// _dispatch_get_main_queue_handle_4CF and _dispatch_main_queue_callback_4CF). The handle is an eventfd that
/// libdispatch writes when a block is queued on the main queue; the callback runs the blocks queued so far. Both are
/// for the process's main thread only.
int csystem_main_queue_handle(void);
void csystem_main_queue_callback(void);

#ifdef __cplusplus
}
#endif

#endif
