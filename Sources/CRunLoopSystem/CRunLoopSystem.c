#define _GNU_SOURCE
#include <poll.h>
#include "CRunLoopSystem.h"

#include <linux/futex.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

int csystem_eventfd(int semaphore) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK | (semaphore ? EFD_SEMAPHORE : 0)); }

int csystem_eventfd_write(int fd, uint64_t value) { return eventfd_write(fd, value); }

int csystem_eventfd_read(int fd, uint64_t *value) { return eventfd_read(fd, value); }

int csystem_timerfd_create(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK); }

int csystem_timerfd_set_abs_ns(int fd, uint64_t deadline_ns) {
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = (time_t)(deadline_ns / 1000000000u);
    spec.it_value.tv_nsec = (long)(deadline_ns % 1000000000u);
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
}

int csystem_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

static int epoll_ctl_op(int epfd, int op, int fd, uint64_t data, int edge) {
    struct epoll_event ev = {0};
    ev.events = EPOLLIN | (edge ? EPOLLET : 0);
    ev.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &ev);
}

int csystem_epoll_add(int epfd, int fd, uint64_t data, int edge) {
    return epoll_ctl_op(epfd, EPOLL_CTL_ADD, fd, data, edge);
}

int csystem_epoll_mod(int epfd, int fd, uint64_t data, int edge) {
    return epoll_ctl_op(epfd, EPOLL_CTL_MOD, fd, data, edge);
}

int csystem_epoll_del(int epfd, int fd) { return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL); }

int csystem_epoll_wait(int epfd, uint64_t *data, int max_events, int timeout_ms) {
    struct epoll_event events[64];
    if (max_events > 64) max_events = 64;
    int n = epoll_wait(epfd, events, max_events, timeout_ms);
    for (int i = 0; i < n; i++) data[i] = events[i].data.u64;
    return n;
}

int csystem_epoll_wait_ns(int epfd, uint64_t *data, int max_events, int64_t timeout_ns) {
    struct epoll_event events[64];
    if (max_events > 64) max_events = 64;
    if (max_events < 1) max_events = 1;
    int n;
    if (timeout_ns <= 0) {
        /* No timeout, or a poll: epoll_wait needs no timespec copied in from user space. */
        n = epoll_wait(epfd, events, max_events, timeout_ns < 0 ? -1 : 0);
    } else {
        struct timespec ts;
        ts.tv_sec = (time_t)(timeout_ns / 1000000000);
        ts.tv_nsec = (long)(timeout_ns % 1000000000);
        n = epoll_pwait2(epfd, events, max_events, &ts, NULL);
        if (n < 0 && errno == ENOSYS) {
            /* Kernels before 5.11: millisecond resolution, rounded up so the wait never ends early. */
            int64_t ms = (timeout_ns + 999999) / 1000000;
            n = epoll_wait(epfd, events, max_events, ms > 0x7fffffff ? 0x7fffffff : (int)ms);
        }
    }
    for (int i = 0; i < n; i++) data[i] = events[i].data.u64;
    return n;
}

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CSYSTEM_LIBC_CALLS 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define CSYSTEM_LIBC_CALLS 1
#endif

#if !defined(CSYSTEM_LIBC_CALLS) && defined(__x86_64__)
/// A system call of up to six arguments made directly: the kernel's result (-errno on failure). x86_64 only (the
/// machines this is measured and tested on); elsewhere glibc's wrappers are called.
static inline long raw_syscall6(long number, long a, long b, long c, long d, long e, long f) {
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    long result;
    __asm__ __volatile__("syscall"
                         : "=a"(result)
                         : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                         : "rcx", "r11", "memory");
    return result;
}
#else
#ifndef CSYSTEM_LIBC_CALLS
#define CSYSTEM_LIBC_CALLS 1
#endif
#endif

int csystem_epoll_wait_one(int epfd, uint64_t *token, int64_t timeout_ns) {
    if (timeout_ns > 0) return csystem_epoll_wait_ns(epfd, token, 1, timeout_ns);
    struct epoll_event event;
#ifdef CSYSTEM_LIBC_CALLS
    int n = epoll_wait(epfd, &event, 1, timeout_ns < 0 ? -1 : 0);
#else
    /* The kernel's sigset size: 8 bytes (no mask is passed, but the size is checked only with one). */
    long n = raw_syscall6(SYS_epoll_pwait, epfd, (long)&event, 1, timeout_ns < 0 ? -1 : 0, 0, 8);
    if (n < 0) {
        errno = (int)-n;
        return -1;
    }
#endif
    if (n > 0) *token = event.data.u64;
    return (int)n;
}

int csystem_eventfd_signal(int fd) {
    uint64_t one = 1;
#ifdef CSYSTEM_LIBC_CALLS
    return eventfd_write(fd, one);
#else
    long n = raw_syscall6(SYS_write, fd, (long)&one, sizeof one, 0, 0, 0);
    if (n < 0) {
        errno = (int)-n;
        return -1;
    }
    return 0;
#endif
}

int csystem_errno(void) { return errno; }

int csystem_read_u64(int fd, uint64_t *value) {
    ssize_t n = read(fd, value, sizeof(*value));
    if (n == (ssize_t)sizeof(*value)) return 0;
    if (n >= 0) {
        errno = EIO;
    }
    return -1;
}

uint64_t csystem_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int32_t csystem_gettid(void) { return (int32_t)syscall(SYS_gettid); }

int csystem_pin_to_cpu(int cpu) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) {
        errno = EINVAL;
        return -1;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

int csystem_usable_cpus(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    return CPU_COUNT(&set);
}

int csystem_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int csystem_pthread_timedjoin(unsigned long thread, double deadline_seconds) {
    struct timespec limit;
    limit.tv_sec = (time_t)deadline_seconds;
    limit.tv_nsec = (long)((deadline_seconds - (double)limit.tv_sec) * 1e9);
    if (limit.tv_nsec < 0) limit.tv_nsec = 0;
    if (limit.tv_nsec > 999999999) limit.tv_nsec = 999999999;
    return pthread_timedjoin_np((pthread_t)thread, NULL, &limit);
}
int csystem_poll_readable(int fd) {
    struct pollfd entry = {.fd = fd, .events = POLLIN, .revents = 0};
    int ready;
    do {
        ready = poll(&entry, 1, 0);
    } while (ready < 0 && errno == EINTR);
    if (ready < 0) return -1;
    return ready > 0 && (entry.revents & POLLIN) ? 1 : 0;
}

// libdispatch's hooks for CoreFoundation (src/queue.c; dispatch_runloop_handle_t is an int on Linux).
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *msg);

int csystem_main_queue_handle(void) { return _dispatch_get_main_queue_handle_4CF(); }

void csystem_main_queue_callback(void) { _dispatch_main_queue_callback_4CF(NULL); }

int csystem_futex_wait(void *word, uint32_t expected) {
    return (int)syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

int csystem_futex_wake(void *word, int count) {
    return (int)syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}
