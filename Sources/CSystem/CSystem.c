#define _GNU_SOURCE
#include "CSystem.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

int csystem_eventfd(int semaphore) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK | (semaphore ? EFD_SEMAPHORE : 0));
}

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

int csystem_epoll_add(int epfd, int fd, uint64_t data, int edge) { return epoll_ctl_op(epfd, EPOLL_CTL_ADD, fd, data, edge); }

int csystem_epoll_mod(int epfd, int fd, uint64_t data, int edge) { return epoll_ctl_op(epfd, EPOLL_CTL_MOD, fd, data, edge); }

int csystem_epoll_del(int epfd, int fd) { return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL); }

int csystem_epoll_wait(int epfd, uint64_t *data, int max_events, int timeout_ms) {
    struct epoll_event events[64];
    if (max_events > 64) max_events = 64;
    int n = epoll_wait(epfd, events, max_events, timeout_ms);
    for (int i = 0; i < n; i++) data[i] = events[i].data.u64;
    return n;
}

uint64_t csystem_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int32_t csystem_gettid(void) { return (int32_t)syscall(SYS_gettid); }
